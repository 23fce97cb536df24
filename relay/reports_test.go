package relay_test

import (
	"context"
	"crypto/rand"
	"encoding/json"
	"net/http"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/oklog/ulid/v2"

	"relay/relayclient"
	"relay/reports"
)

// newReport is a report from the account whose messages these are, about
// about, with a fresh id.
func newReport(about string, msgs ...relayclient.ReportMessage) relayclient.Report {
	return relayclient.Report{ID: ulid.MustNew(ulid.Now(), rand.Reader).String(), About: about, Reason: "spam", Messages: msgs}
}

// msg is a message of a report, with a fresh id.
func msg(from string, at int64, text string) relayclient.ReportMessage {
	return relayclient.ReportMessage{ID: ulid.MustNew(ulid.Now(), rand.Reader).String(), From: from, At: at, Text: text}
}

// postReport sends body to POST /api/reports as c's device, with the
// headers a client sends but those in header replaced ("" removes one).
func (s *testServer) postReport(t *testing.T, c *relayclient.Client, header map[string]string, body any) answer {
	t.Helper()
	h := map[string]string{"Origin": s.URL, "X-Device": c.Device, "Content-Type": "application/json"}
	for k, v := range header {
		if v == "" {
			delete(h, k)
		} else {
			h[k] = v
		}
	}
	return raw(t, c, "POST", "/api/reports", h, body)
}

// storedReports are every report the table holds, by number.
func (s *testServer) storedReports(t *testing.T) []reports.Report {
	t.Helper()
	list, err := reports.List(context.Background(), s.Pool, true)
	if err != nil {
		t.Fatal(err)
	}
	var out []reports.Report
	for _, l := range list {
		r, err := reports.Get(context.Background(), s.Pool, l.Number)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, r)
	}
	return out
}

// TestReportRoundTrip: a report is answered 202 with its id, and the
// relay holds exactly what was sent: the two accounts, the reason, the
// comment and the chosen messages in the chosen order, each with its id,
// sender, time and text, and nothing else; the row has no column for an
// address or a device, and names neither.
func TestReportRoundTrip(t *testing.T) {
	s := newTestServer(t)
	alice := s.register(t, "alice", 1)
	s.register(t, "bob", 1)
	// Not the chat's order: the reporter's.
	r := newReport("bob", msg("bob", 1764806460000, "second, chosen first"), msg("alice", 1764806400000, "mine\nwith a line"),
		msg("bob", 1764806300000, "Photo: cat.jpg"))
	r.Reason, r.Comment = "harassment", "every night"
	a := s.postReport(t, alice.device(0), nil, r)
	if a.Status != http.StatusAccepted || !reflect.DeepEqual(a.Body, map[string]any{"id": r.ID}) {
		t.Fatalf("answer %d %s", a.Status, a.Raw)
	}
	got := s.storedReports(t)
	if len(got) != 1 {
		t.Fatalf("%d reports stored, want 1", len(got))
	}
	g := got[0]
	if g.ID != r.ID || g.Reporter != "alice" || g.About != "bob" || g.Reason != "harassment" || g.Comment != "every night" ||
		!g.Open() || g.Note != "" || !g.CreatedAt.Equal(s.Clock.Now().Truncate(time.Microsecond)) {
		t.Errorf("stored %+v", g)
	}
	want := make([]reports.Message, len(r.Messages))
	for i, m := range r.Messages {
		want[i] = reports.Message(m)
	}
	if !reflect.DeepEqual(g.Messages, want) {
		t.Errorf("messages stored %+v\nwant %+v", g.Messages, want)
	}
	// The messages' JSON, member for member: nothing added to what was sent.
	var stored []map[string]any
	var msgs []byte
	if err := s.Pool.QueryRow(context.Background(), `SELECT messages FROM reports`).Scan(&msgs); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(msgs, &stored); err != nil {
		t.Fatal(err)
	}
	for i, m := range stored {
		if len(m) != 4 || m["text"] != r.Messages[i].Text {
			t.Errorf("stored message %d: %v", i, m)
		}
	}
	var cols []string
	rows, _ := s.Pool.Query(context.Background(), `SELECT column_name FROM information_schema.columns WHERE table_name = 'reports' ORDER BY ordinal_position`)
	for rows.Next() {
		var c string
		_ = rows.Scan(&c)
		cols = append(cols, c)
	}
	if want := []string{"number", "reporter_id", "about_id", "client_id", "reason", "comment", "messages", "created_at", "resolved_at", "note"}; !reflect.DeepEqual(cols, want) {
		t.Errorf("the table's columns are %v, want %v", cols, want)
	}
	if n := s.count(t, `SELECT count(*) FROM reports r WHERE r::text LIKE '%'||$1||'%' OR r::text LIKE '%127.0.0.1%'`, alice.Devices[0]); n != 0 {
		t.Errorf("the report names the device or the address")
	}
	// A second report from alice, without a comment, and one from bob.
	r2 := newReport("bob", msg("bob", 1, "x"))
	if err := alice.device(0).FileReport(context.Background(), r2); err != nil {
		t.Fatal(err)
	}
	if got := s.storedReports(t); len(got) != 2 || got[1].ID != r2.ID || got[1].Comment != "" || got[1].Number <= got[0].Number {
		t.Errorf("the second report: %+v", got)
	}
}

// TestReportRetry: the same report sent again with its id is answered
// 202 and stores nothing; the id with another report is 409
// report_conflict and changes nothing; another account may use the same
// id. The retry is answered before the budget: when the account has
// filed all it may, it is still 202.
func TestReportRetry(t *testing.T) {
	s := newTestServer(t)
	alice := s.register(t, "alice", 2)
	bob := s.register(t, "bob", 1)
	s.register(t, "carol", 1)
	ctx := context.Background()
	r := newReport("bob", msg("bob", 1764806400000, "hello"), msg("alice", 1764806400001, "go away"))
	r.Comment = "c"
	if err := alice.device(0).FileReport(ctx, r); err != nil {
		t.Fatal(err)
	}
	// From the account's other device, as a client that lost the answer
	// and retries after a reload would.
	if err := alice.device(1).FileReport(ctx, r); err != nil {
		t.Fatalf("the retry: %v", err)
	}
	// The same meaning in other bytes: members in another order.
	same := `{"messages":[` + strings.TrimSuffix(strings.TrimPrefix(string(mustJSON(t, r.Messages)), "["), "]") +
		`],"comment":"c","reason":"spam","about":"bob","id":"` + r.ID + `"}`
	if a := s.postReport(t, alice.device(0), nil, same); a.Status != http.StatusAccepted {
		t.Fatalf("the retry in other bytes: %d %s", a.Status, a.Raw)
	}
	if n := s.count(t, `SELECT count(*) FROM reports`); n != 1 {
		t.Fatalf("%d reports after retries, want 1", n)
	}
	for name, change := range map[string]func(r *relayclient.Report){
		"another text":    func(r *relayclient.Report) { r.Messages[0].Text = "hello!" },
		"another order":   func(r *relayclient.Report) { r.Messages[0], r.Messages[1] = r.Messages[1], r.Messages[0] },
		"a message fewer": func(r *relayclient.Report) { r.Messages = r.Messages[:1] },
		"another reason":  func(r *relayclient.Report) { r.Reason = "other" },
		"no comment":      func(r *relayclient.Report) { r.Comment = "" },
		"another account": func(r *relayclient.Report) {
			r.About = "carol"
			r.Messages = []relayclient.ReportMessage{msg("carol", 1, "x")}
		},
	} {
		c := r
		c.Messages = append([]relayclient.ReportMessage(nil), r.Messages...)
		change(&c)
		a := s.postReport(t, alice.device(0), nil, c)
		if a.Status != http.StatusConflict || a.code() != "report_conflict" {
			t.Errorf("%s: %d %s", name, a.Status, a.Raw)
		}
	}
	got := s.storedReports(t)
	if len(got) != 1 || got[0].Messages[0].Text != "hello" || got[0].Reason != "spam" || got[0].About != "bob" {
		t.Fatalf("after the conflicts: %+v", got)
	}
	// bob may use alice's id for his own report.
	b := newReport("alice", msg("alice", 1, "x"))
	b.ID = r.ID
	if err := bob.device(0).FileReport(ctx, b); err != nil {
		t.Fatalf("the same id from another account: %v", err)
	}
	// alice spends her budget; her retry is still recognised.
	for i := 1; i < 20; i++ {
		if err := alice.device(0).FileReport(ctx, newReport("bob", msg("bob", 1, "x"))); err != nil {
			t.Fatalf("report %d: %v", i+1, err)
		}
	}
	err := alice.device(0).FileReport(ctx, newReport("bob", msg("bob", 1, "x")))
	wantCode(t, err, "rate_limited")
	if err := alice.device(0).FileReport(ctx, r); err != nil {
		t.Fatalf("the retry with the budget spent: %v", err)
	}
}

func mustJSON(t *testing.T, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestReportRefusals: each refusal of docs/protocol.md, "POST
// /api/reports", with its status and code, in the documented order where
// two apply; none stores a report. The control: the same client, headers
// and report are accepted.
func TestReportRefusals(t *testing.T) {
	s := newTestServer(t)
	alice := s.register(t, "alice", 1)
	bob := s.register(t, "bob", 1)
	s.register(t, "gone", 1)
	// Logged in before the operator disables the account: its session
	// is refused from then on.
	dave := s.register(t, "dave", 1)
	ctx := context.Background()
	if _, err := s.adminTransitions(t).Delete(ctx, "gone", time.Hour); err != nil {
		t.Fatal(err)
	}
	if _, err := s.adminTransitions(t).SetDisabled(ctx, "dave", true); err != nil {
		t.Fatal(err)
	}
	good := newReport("bob", msg("bob", 1, "x"))
	alices := alice.device(0)
	noOrigin := map[string]string{"Origin": ""}
	for _, tc := range []struct {
		name   string
		c      *relayclient.Client
		header map[string]string
		body   any
		status int
		code   string
	}{
		{"no session", &relayclient.Client{BaseURL: s.URL, HTTP: &http.Client{}, Device: alice.Devices[0]}, nil, good, 401, "unauthenticated"},
		{"no device", alices, map[string]string{"X-Device": ""}, good, 400, "device_required"},
		{"bob's device", alices, map[string]string{"X-Device": bob.Devices[0]}, good, 403, "device_forbidden"},
		{"no Origin", alices, noOrigin, good, 403, "origin_required"},
		{"no Origin, and a body too large", alices, noOrigin, strings.Repeat(" ", reports.MaxRequest+1), 403, "origin_required"},
		{"another Origin", alices, map[string]string{"Origin": "https://evil.example"}, good, 403, "origin_forbidden"},
		{"too large", alices, nil, `{"comment":"` + strings.Repeat("x", reports.MaxRequest) + `"}`, 413, "too_large"},
		{"no Content-Type", alices, map[string]string{"Content-Type": ""}, good, 400, "bad_report"},
		{"a form", alices, map[string]string{"Content-Type": "application/x-www-form-urlencoded"}, good, 400, "bad_report"},
		{"text/plain", alices, map[string]string{"Content-Type": "text/plain"}, good, 400, "bad_report"},
		{"another charset", alices, map[string]string{"Content-Type": "application/json; charset=latin1"}, good, 400, "bad_report"},
		{"not JSON", alices, nil, `{"id":`, 400, "bad_json"},
		{"a name twice", alices, nil, `{"id":"x","id":"y"}`, 400, "bad_json"},
		{"the wrong shape", alices, nil, `{"id":"` + good.ID + `"}`, 400, "bad_report"},
		{"oneself", alices, nil, newReport("alice", msg("alice", 1, "x")), 400, "self_report"},
		{"oneself, of the wrong shape", alices, nil, newReport("alice", msg("bob", 1, "x")), 400, "bad_report"},
		{"nobody", alices, nil, newReport("nobody", msg("nobody", 1, "x")), 404, "unknown_account"},
		{"a deleted account", alices, nil, newReport("gone", msg("gone", 1, "x")), 404, "unknown_account"},
		{"a disabled reporter", dave.device(0), nil, newReport("bob", msg("bob", 1, "x")), 403, "account_disabled"},
	} {
		a := s.postReport(t, tc.c, tc.header, tc.body)
		if a.Status != tc.status || a.code() != tc.code {
			t.Errorf("%s: %d %s, want %d %s", tc.name, a.Status, a.Raw, tc.status, tc.code)
		}
		if msg, _ := a.Body["message"].(string); msg == "" {
			t.Errorf("%s: no message", tc.name)
		}
	}
	if n := s.count(t, `SELECT count(*) FROM reports`); n != 0 {
		t.Fatalf("refused reports stored %d rows", n)
	}
	// Where the shape is wrong, the message names the field.
	bad := newReport("bob", msg("bob", 1, "x"), msg("bob", 2, ""))
	if a := s.postReport(t, alices, nil, bad); a.Body["message"] != "messages[1].text: 1 to 16000 characters" {
		t.Errorf("the message of a bad text: %s", a.Raw)
	}
	// The charset may be named, as UTF-8.
	if a := s.postReport(t, alices, map[string]string{"Content-Type": "application/json; charset=UTF-8"}, good); a.Status != http.StatusAccepted {
		t.Fatalf("the control: %d %s", a.Status, a.Raw)
	}
	if n := s.count(t, `SELECT count(*) FROM reports`); n != 1 {
		t.Fatalf("%d reports after the control, want 1", n)
	}
}

// TestReportBudget: an account files 20 reports an hour, per instance;
// the 21st is 429 rate_limited with Retry-After, and one more goes
// through once the bucket has refilled a token (three minutes). A
// refused report takes no token: the control is an account that files
// bad reports all day and its 20 good ones still pass.
func TestReportBudget(t *testing.T) {
	s := newTestServer(t)
	alice := s.register(t, "alice", 1)
	carol := s.register(t, "carol", 1)
	s.register(t, "bob", 1)
	ctx := context.Background()
	for i := range 30 {
		err := carol.device(0).FileReport(ctx, newReport("nobody", msg("nobody", 1, "x")))
		wantCode(t, err, "unknown_account")
		a := s.postReport(t, carol.device(0), nil, newReport("bob", msg("bob", 1, "")))
		if a.code() != "bad_report" {
			t.Fatalf("bad report %d: %s", i, a.Raw)
		}
	}
	for _, u := range []*user{alice, carol} {
		for i := range 20 {
			if err := u.device(0).FileReport(ctx, newReport("bob", msg("bob", 1, "x"))); err != nil {
				t.Fatalf("%s's report %d: %v", u.Name, i+1, err)
			}
		}
	}
	a := s.postReport(t, alice.device(0), nil, newReport("bob", msg("bob", 1, "x")))
	retry, _ := strconv.Atoi(a.Header.Get("Retry-After"))
	if a.Status != http.StatusTooManyRequests || a.code() != "rate_limited" || retry < 170 || retry > 180 {
		t.Fatalf("the 21st: %d %s, Retry-After %q", a.Status, a.Raw, a.Header.Get("Retry-After"))
	}
	s.Clock.Advance(3 * time.Minute)
	if err := alice.device(0).FileReport(ctx, newReport("bob", msg("bob", 1, "x"))); err != nil {
		t.Fatalf("three minutes later: %v", err)
	}
	err := alice.device(0).FileReport(ctx, newReport("bob", msg("bob", 1, "x")))
	wantCode(t, err, "rate_limited")
	if n := s.count(t, `SELECT count(*) FROM reports`); n != 41 {
		t.Fatalf("%d reports, want 41", n)
	}
}

// TestReportsGoWithTheirAccounts: deleting an account removes the
// reports it filed and those about it, and no other: by DELETE
// /api/account, and by relay admin delete's transition.
func TestReportsGoWithTheirAccounts(t *testing.T) {
	s := newTestServer(t)
	ctx := context.Background()
	alice := s.register(t, "alice", 1)
	bob := s.register(t, "bob", 1)
	carol := s.register(t, "carol", 1)
	dave := s.register(t, "dave", 1)
	file := func(from *user, about string) {
		t.Helper()
		if err := from.device(0).FileReport(ctx, newReport(about, msg(about, 1, from.Name+" about "+about))); err != nil {
			t.Fatal(err)
		}
	}
	file(alice, "bob")
	file(bob, "alice")
	file(carol, "alice")
	file(carol, "bob")
	file(dave, "carol")
	left := func() []string {
		t.Helper()
		var out []string
		for _, r := range s.storedReports(t) {
			out = append(out, r.Reporter+">"+r.About)
		}
		return out
	}
	if err := alice.device(0).DeleteAccount(ctx, password); err != nil {
		t.Fatal(err)
	}
	if got := left(); !reflect.DeepEqual(got, []string{"carol>bob", "dave>carol"}) {
		t.Fatalf("after alice's deletion: %v", got)
	}
	if _, err := s.adminTransitions(t).Delete(ctx, "bob", time.Hour); err != nil {
		t.Fatal(err)
	}
	if got := left(); !reflect.DeepEqual(got, []string{"dave>carol"}) {
		t.Fatalf("after bob's deletion: %v", got)
	}
	if n := s.count(t, `SELECT count(*) FROM reports r WHERE r.messages::text LIKE '%alice%' OR r.messages::text LIKE '%bob%'`); n != 0 {
		t.Fatalf("%d reports still hold a deleted account's name", n)
	}
}

// TestResolvedReportsPurged: the relay's housekeeping deletes a report 90
// days after it was resolved (not after it was filed), on the relay's
// clock, and never an open one, however old.
func TestResolvedReportsPurged(t *testing.T) {
	s := newTestServer(t)
	ctx := context.Background()
	alice := s.register(t, "alice", 1)
	s.register(t, "bob", 1)
	for range 2 {
		if err := alice.device(0).FileReport(ctx, newReport("bob", msg("bob", 1, "x"))); err != nil {
			t.Fatal(err)
		}
	}
	list := s.storedReports(t)
	// Resolved a month after it was filed: the 90 days count from then.
	s.Clock.Advance(30 * 24 * time.Hour)
	if _, _, err := reports.Resolve(ctx, s.Pool, list[0].Number, "warned bob", s.Clock.Now()); err != nil {
		t.Fatal(err)
	}
	s.Clock.Advance(reports.ResolvedKeep - time.Minute)
	s.Relay.Housekeeping(ctx)
	if n := s.count(t, `SELECT count(*) FROM reports`); n != 2 {
		t.Fatalf("%d reports a minute before the resolved one's end, want 2", n)
	}
	s.Clock.Advance(2 * time.Minute)
	s.Relay.Housekeeping(ctx)
	got := s.storedReports(t)
	if len(got) != 1 || got[0].Number != list[1].Number || !got[0].Open() {
		t.Fatalf("after 90 days: %+v, want the open report alone", got)
	}
	s.Clock.Advance(365 * 24 * time.Hour)
	s.Relay.Housekeeping(ctx)
	if n := s.count(t, `SELECT count(*) FROM reports`); n != 1 {
		t.Fatalf("the open report went after a year")
	}
}
