package relay

import (
	"errors"
	"mime"
	"net/http"
	"strings"

	"relay/devices"
	"relay/reports"
)

// POST /api/reports: a person reports a message or a contact to the
// relay's operator (package reports; ADR 0118). The relay stores the
// report and nothing more: no address, no device, and no log line names
// anything in it; the access log has the route, as for every request.

// reportsPerHour is each account's budget of reports, per instance: a
// person reporting a burst of abuse files a few; a client that files
// hundreds is itself the abuse.
const reportsPerHour = 20

// POST /api/reports. The checks run in the order docs/protocol.md gives;
// a request refused by one stores nothing and takes no token.
func (s *Server) fileReport(w http.ResponseWriter, r *http.Request, in *checked) error {
	// 1 session and 2 X-Device, 3 Origin, 4 the body's bound: the
	// route's preamble (routes.go)
	// 5 Content-Type: the report is JSON, and a cross-site form cannot
	// send that type without the browser asking the relay first
	if !jsonContentType(r.Header.Get("Content-Type")) {
		return codeBadReport.errorf("send the report with Content-Type: application/json")
	}
	// 6 shape
	rep, err := reports.Parse(in.body, in.account.Username)
	if err != nil {
		return err
	}
	// 7 about someone else
	if rep.About == in.account.Username {
		return codeSelfReport.err()
	}
	ctx := r.Context()
	// 8 a known id is answered from its row: a retry stores nothing and
	// takes no token; the id with another report is report_conflict
	if _, found, err := reports.Find(ctx, s.pool, in.account.ID, &rep); err != nil {
		return err
	} else if found {
		writeJSON(w, http.StatusAccepted, map[string]string{"id": rep.ID})
		return nil
	}
	// 9 the account reported exists
	about, err := s.accounts.Lookup(ctx, rep.About)
	if errors.Is(err, devices.ErrUnknownAccount) || errors.Is(err, devices.ErrAccountDeleted) {
		return unknownReported()
	} else if err != nil {
		return err
	}
	// 10 the account's budget
	now := s.now()
	res, retry := s.reportLimits.reserve(in.account.ID, now)
	if res == nil {
		return retryAfter(codeRateLimited.errorf("this account filed %d reports in the last hour, the most the relay takes; retry in %d s", reportsPerHour, retry), retry)
	}
	// 11 stored, or recognised if a retry raced this request
	_, created, err := reports.File(ctx, s.pool, in.account.ID, about.ID, &rep, now)
	if !created {
		res.CancelAt(now)
	}
	if errors.Is(err, reports.ErrAccountGone) {
		// The reporter or the account reported was deleted after the
		// checks above; which one decides the answer.
		if _, serr := s.session(r); serr != nil {
			return serr
		}
		return unknownReported()
	}
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusAccepted, map[string]string{"id": rep.ID})
	return nil
}

// unknownReported is the account in "about" that is none (or no longer).
func unknownReported() *apiError {
	return codeUnknownAccount.errorf("no account has the username in \"about\" (it may have been deleted); nothing was stored")
}

// jsonContentType reports whether v is application/json, with no charset
// or UTF-8's.
func jsonContentType(v string) bool {
	mt, params, err := mime.ParseMediaType(v)
	if err != nil || mt != "application/json" {
		return false
	}
	cs, ok := params["charset"]
	return !ok || strings.EqualFold(cs, "utf-8")
}
