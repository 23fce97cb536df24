package relay

import (
	"net/http"

	"github.com/julienschmidt/httprouter"

	"relay/devices"
)

// The preamble of an API endpoint: the checks that come before its own
// work, declared per route in routes.go and run here, in the order
// declared, which is the endpoint's documented order (docs/protocol.md).
// The order is not the same everywhere: Origin comes first on most
// endpoints that change state, after the device on POST /api/ack and the
// push subscription's, and in the middle of the handler's own checks on
// POST /api/messages; the stream refuses to start on a closing relay
// before it looks at the session (ADR 0096).

// checked is what a route's preamble found, for its handler.
type checked struct {
	params  httprouter.Params
	account devices.Account // session, speaker: the session's account
	device  string          // speaker: the device the request speaks as
	body    []byte          // body: the request body, within its bound
	// origin checks the Origin allowlist where the handler's own order
	// puts it; only a route that declares originInHandler has it.
	origin func() error
	// release gives back what a check took (the stream's place in Close's
	// count) once the handler returns, unless the handler keeps it.
	release func()
}

// keep hands what the preamble took over to the handler, which must call
// the function it returns once it is done with it.
func (in *checked) keep() func() {
	f := in.release
	in.release = nil
	return f
}

// A check is one step of a preamble: it refuses the request with an API
// error, or notes what it found in the checked.
type check struct {
	name  string // for the tests: which refusal it makes
	limit int64  // body: the bound
	run   func(s *Server, w http.ResponseWriter, r *http.Request, in *checked) error
}

// endpoint is a route's own work, once its preamble passed.
type endpoint func(w http.ResponseWriter, r *http.Request, in *checked) error

// endpoint runs checks in their order, then h; the first refusal is the
// answer.
func (s *Server) endpoint(h endpoint, checks ...check) handler {
	return func(w http.ResponseWriter, r *http.Request, p httprouter.Params) error {
		in := &checked{params: p}
		defer func() {
			if in.release != nil {
				in.release()
			}
		}()
		for _, c := range checks {
			if err := c.run(s, w, r, in); err != nil {
				return err
			}
		}
		return h(w, r, in)
	}
}

var (
	// origin: 403 origin_required or origin_forbidden (docs/protocol.md,
	// "Origin").
	origin = check{name: "origin", run: func(s *Server, _ http.ResponseWriter, r *http.Request, _ *checked) error {
		return s.checkOrigin(r)
	}}

	// originInHandler leaves the Origin check to the handler, which calls
	// in.origin where its documented order puts it (POST /api/messages:
	// after the clock skew and the rate limit).
	originInHandler = check{name: "origin in handler", run: func(s *Server, _ http.ResponseWriter, r *http.Request, in *checked) error {
		in.origin = func() error { return s.checkOrigin(r) }
		return nil
	}}

	// session: the account behind the session cookie, or 401
	// unauthenticated (and the account's own refusals, disabled or
	// deleted).
	session = check{name: "session", run: func(s *Server, _ http.ResponseWriter, r *http.Request, in *checked) error {
		acc, err := s.session(r)
		if err != nil {
			return err
		}
		in.account = acc
		return nil
	}}

	// speaker: the session and the device in X-Device, in one query: 401
	// unauthenticated, then 400 device_required, then 403
	// device_forbidden.
	speaker = check{name: "speaker", run: func(s *Server, _ http.ResponseWriter, r *http.Request, in *checked) error {
		return s.checkSpeaker(r, in, false)
	}}

	// streamSpeaker is speaker for the event stream, whose device may
	// also come from ?device= (EventSource sets no headers).
	streamSpeaker = check{name: "speaker", run: func(s *Server, _ http.ResponseWriter, r *http.Request, in *checked) error {
		return s.checkSpeaker(r, in, true)
	}}

	// pushOn: 404 push_disabled when the relay has no push contact.
	pushOn = check{name: "push on", run: func(s *Server, _ http.ResponseWriter, _ *http.Request, _ *checked) error {
		if !s.pusher.Enabled() {
			return errPushDisabled
		}
		return nil
	}}

	// streamSlot: 503 shutting_down once Close has begun; otherwise the
	// stream is counted, and Close waits for it until it is released.
	streamSlot = check{name: "stream slot", run: func(s *Server, _ http.ResponseWriter, _ *http.Request, in *checked) error {
		if !s.enterStream() {
			return errShuttingDown
		}
		in.release = s.wg.Done
		return nil
	}}
)

// body reads the request body, at most limit bytes: 413 too_large, 408
// when it does not arrive in time. Decoding it is the handler's, whose
// shape errors come after the preamble.
func body(limit int64) check {
	return check{name: "body", limit: limit, run: func(_ *Server, w http.ResponseWriter, r *http.Request, in *checked) error {
		data, err := readBody(w, r, limit)
		if err != nil {
			return err
		}
		in.body = data
		return nil
	}}
}

func (s *Server) checkSpeaker(r *http.Request, in *checked, allowQuery bool) error {
	acc, dev, err := s.speaker(r, allowQuery)
	if err != nil {
		return err
	}
	in.account, in.device = acc, dev
	return nil
}
