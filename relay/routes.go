package relay

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/julienschmidt/httprouter"

	"relay/envelope"
	"relay/reports"
	"relay/webclient"
)

// The router and its table of routes, the HTTP server's limits, and the
// handler around every request: headers, body bounds, recovery from
// panics, the access log.

func (s *Server) routes() *httprouter.Router {
	r := httprouter.New()
	for _, rt := range s.routeTable() {
		h := s.handle(s.endpoint(rt.h, rt.checks...))
		if rt.pattern != "/api/events" { // a stream's time is its life, not a latency
			h = s.timed(rt.method+" "+rt.pattern, h)
		}
		r.Handle(rt.method, rt.pattern, h)
		// Each pattern is also kept for the access log, which records it
		// instead of the path (accesslog.go).
		s.patterns.add(rt.pattern)
	}
	client := webclient.Handler()
	r.NotFound = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.HasPrefix(r.URL.Path, "/api/") {
			s.writeError(w, r, errNotFound)
			return
		}
		client.ServeHTTP(w, r)
	})
	r.HandleMethodNotAllowed = true
	r.MethodNotAllowed = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.writeError(w, r, errMethodNotAllowed)
	})
	r.PanicHandler = func(w http.ResponseWriter, r *http.Request, v any) {
		s.log.Error("panic", "request_id", requestID(r), "panic", fmt.Sprint(v))
		s.writeError(w, r, errors.New("panic"))
	}
	return r
}

// timed observes h's time in relay_http_request_duration_seconds under
// route, the method and pattern: a label of known values, never the path,
// which can name a username or a device id (ADR 0025). The route's series
// exists from the start, so a rate over it is 0 rather than missing.
func (s *Server) timed(route string, h httprouter.Handle) httprouter.Handle {
	obs := s.metrics.latency.WithLabelValues(route)
	return func(w http.ResponseWriter, r *http.Request, p httprouter.Params) {
		start := time.Now() // not s.now: tests stop that clock
		h(w, r, p)
		obs.Observe(time.Since(start).Seconds())
	}
}

// route is an endpoint and its preamble (preamble.go): the checks that
// run before it, in the order docs/protocol.md gives for it.
type route struct {
	method, pattern string
	checks          []check
	h               endpoint
}

// routeTable is every route. A route's checks are its documented order
// (docs/protocol.md) up to where the handler's own checks begin;
// TestPreamblesAsDocumented holds each line to the documentation.
func (s *Server) routeTable() []route {
	const (
		get, post, put = http.MethodGet, http.MethodPost, http.MethodPut
		patch, del     = http.MethodPatch, http.MethodDelete
	)
	return []route{
		{post, "/api/accounts", []check{origin, body(maxJSON)}, s.createAccount},
		// Public: a client asks before it shows Create account.
		{get, "/api/registration", nil, s.getRegistration},
		{get, "/api/accounts/:username", []check{session}, s.getAccount},
		// As a device, like the key package claim that tells the same ids.
		{get, "/api/accounts/:username/devices", []check{speaker}, s.getAccountDevices},
		{post, "/api/sessions", []check{origin, body(maxJSON)}, s.login},
		{del, "/api/sessions", []check{origin, session}, s.logout},
		{post, "/api/devices", []check{origin, session, body(maxJSON)}, s.addDevice},
		{get, "/api/devices", []check{session}, s.listDevices},
		{patch, "/api/devices/:id", []check{origin, session, body(maxJSON)}, s.updateDevice},
		{del, "/api/devices/:id", []check{origin, session}, s.revokeDevice},
		{put, "/api/recovery", []check{origin, session, body(maxJSON)}, s.putRecovery},
		{get, "/api/recovery", []check{session}, s.getRecovery},
		{del, "/api/recovery", []check{origin, session}, s.deleteRecovery},
		{put, "/api/account/key", []check{origin, speaker, body(maxJSON)}, s.replaceKey},
		{del, "/api/account", []check{origin, speaker, body(maxJSON)}, s.deleteAccount},
		{get, "/api/contacts", []check{session}, s.listContacts},
		{post, "/api/keypackages", []check{speaker, origin, body(maxKeyPackagesRequest)}, s.publishKeyPackages},
		{get, "/api/keypackages", []check{speaker}, s.keyPackagesHeld},
		{post, "/api/keypackages/claim", []check{speaker, origin, body(maxJSON)}, s.claimKeyPackages},
		// Knowing the group id is the capability (ADR 0101).
		{put, "/api/groups/:group/info", []check{speaker, origin, body(maxGroupInfoRequest)}, s.putGroupInfo},
		{get, "/api/groups/:group/info", []check{speaker}, s.getGroupInfo},
		// Knowing the attachment id is the capability to read it; only
		// its uploader's account changes it (ADR 0107).
		{post, "/api/attachments", []check{speaker, origin, body(maxJSON)}, s.createAttachment},
		{put, "/api/attachments/:id/parts/:n", []check{speaker, origin, body(maxPartRequest)}, s.putAttachmentPart},
		{get, "/api/attachments/:id/parts", []check{speaker}, s.attachmentParts},
		{post, "/api/attachments/:id/finish", []check{speaker, origin, body(maxJSON)}, s.finishAttachment},
		{post, "/api/attachments/:id/received", []check{speaker, origin, body(maxJSON)}, s.attachmentReceived},
		{get, "/api/attachments/:id", []check{speaker}, s.getAttachment},
		{del, "/api/attachments/:id", []check{speaker, origin}, s.deleteAttachment},
		{get, "/api/push/key", []check{session, pushOn}, s.pushKey},
		{get, "/api/push", []check{speaker, pushOn}, s.getPush},
		{put, "/api/push", []check{speaker, origin, pushOn, body(maxPushBody)}, s.putPush},
		// Also when push is off, so that a client can always clean up.
		{del, "/api/push", []check{speaker, origin}, s.deletePush},
		// Origin is check 7 of 9, after the clock skew and the rate limit.
		{post, "/api/messages", []check{speaker, body(envelope.MaxRequest), originInHandler}, s.send},
		{post, "/api/ack", []check{speaker, origin, body(maxJSON)}, s.ack},
		// Up to 50 messages of 16,000 characters, in plain text (ADR 0118).
		{post, "/api/reports", []check{speaker, origin, body(reports.MaxRequest)}, s.fileReport},
		// A closing relay starts no stream, whoever asks.
		{get, "/api/events", []check{streamSlot, streamSpeaker}, s.events},
		// The device only in X-Device, never ?device=: a fetch can set
		// headers, unlike EventSource, and a URL ends up in proxies' logs.
		{get, "/api/queue", []check{speaker}, s.queuePage},
		{get, "/healthz", nil, s.healthz},
		{get, "/readyz", nil, s.readyz},
	}
}

// HTTPServer returns an http.Server for Handler with the relay's limits:
// headers within HeaderTimeout and 16 KiB, idle connections closed after
// two minutes. There is no server-wide read or write timeout, because
// event streams live for hours; Handler bounds each request's body in
// size and time instead, and each write to a stream has its own deadline.
func (s *Server) HTTPServer() *http.Server {
	return &http.Server{
		Handler:           s.Handler(),
		ReadHeaderTimeout: s.cfg.HeaderTimeout,
		IdleTimeout:       2 * time.Minute,
		MaxHeaderBytes:    maxHeaderBytes,
		ErrorLog:          slog.NewLogLogger(s.log.Handler(), slog.LevelWarn),
	}
}

// permissionsPolicy turns off browser features the client never uses, and
// leaves the microphone to the relay's own pages, which record voice
// messages: no frame and no other origin gets it.
const permissionsPolicy = "accelerometer=(), camera=(), display-capture=(), geolocation=(), gyroscope=(), " +
	"hid=(), magnetometer=(), microphone=(self), midi=(), payment=(), serial=(), usb=(), xr-spatial-tracking=()"

// maxHeaderBytes bounds a request's headers.
const maxHeaderBytes = 16 << 10

// Handler is the relay's whole HTTP interface: the API and the web client.
func (s *Server) Handler() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := s.now()
		id := newRequestID()
		path := r.URL.Path // before the router's redirects rewrite it
		r = r.WithContext(context.WithValue(r.Context(), requestIDKey{}, id))
		sw := &statusWriter{ResponseWriter: w}
		h := w.Header()
		h.Set("X-Request-Id", id)
		// Every answer, API or page: no sniffing, no referrer, no
		// framing, no powerful features; pages set their own CSP.
		h.Set("X-Content-Type-Options", "nosniff")
		h.Set("Referrer-Policy", "no-referrer")
		h.Set("X-Frame-Options", "DENY")
		h.Set("Content-Security-Policy", "default-src 'none'; frame-ancestors 'none'")
		h.Set("Permissions-Policy", permissionsPolicy)
		if s.secure {
			// Browsers only heed this over HTTPS; the relay is reached
			// over HTTPS whenever its base URL says so.
			h.Set("Strict-Transport-Security", "max-age=63072000; includeSubDomains")
		}
		if r.URL.Path != "/api/events" {
			// A request's body must arrive within BodyTimeout (a stream
			// has none, and lives for hours).
			_ = http.NewResponseController(w).SetReadDeadline(time.Now().Add(s.cfg.BodyTimeout))
		}
		s.router.ServeHTTP(sw, r)
		if sw.status == 0 {
			// Nothing written (the router's automatic OPTIONS answer):
			// net/http sends 200.
			sw.status = http.StatusOK
		}
		if sw.status != 0 {
			s.metrics.requests.WithLabelValues(strconv.Itoa(sw.status/100) + "xx").Inc()
		}
		// The route, never the path or the query: either can carry a
		// username or a device id (ADR 0025). Nothing here ever logs a
		// body, a cookie or a header value.
		s.log.Info("request", "request_id", id, "method", r.Method, "path", s.logPath(path),
			"status", sw.status, "duration_ms", s.now().Sub(start).Milliseconds())
	})
}
