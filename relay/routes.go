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

	"relay/webclient"
)

// The router, the HTTP server's limits, and the handler around every
// request: headers, body bounds, recovery from panics, the access log.

func (s *Server) routes() *httprouter.Router {
	r := httprouter.New()
	// Each pattern is also kept for the access log, which records it
	// instead of the path (accesslog.go).
	route := func(method, pattern string, h httprouter.Handle) {
		r.Handle(method, pattern, h)
		s.patterns.add(pattern)
	}
	route(http.MethodPost, "/api/accounts", s.handle(s.createAccount))
	route(http.MethodGet, "/api/accounts/:username", s.handle(s.getAccount))
	route(http.MethodPost, "/api/sessions", s.handle(s.login))
	route(http.MethodDelete, "/api/sessions", s.handle(s.logout))
	route(http.MethodPost, "/api/devices", s.handle(s.addDevice))
	route(http.MethodGet, "/api/devices", s.handle(s.listDevices))
	route(http.MethodPatch, "/api/devices/:id", s.handle(s.updateDevice))
	route(http.MethodDelete, "/api/devices/:id", s.handle(s.revokeDevice))
	route(http.MethodPut, "/api/recovery", s.handle(s.putRecovery))
	route(http.MethodGet, "/api/recovery", s.handle(s.getRecovery))
	route(http.MethodDelete, "/api/recovery", s.handle(s.deleteRecovery))
	route(http.MethodPut, "/api/account/key", s.handle(s.replaceKey))
	route(http.MethodDelete, "/api/account", s.handle(s.deleteAccount))
	route(http.MethodGet, "/api/contacts", s.handle(s.listContacts))
	route(http.MethodPost, "/api/keypackages", s.handle(s.publishKeyPackages))
	route(http.MethodGet, "/api/keypackages", s.handle(s.keyPackagesHeld))
	route(http.MethodPost, "/api/keypackages/claim", s.handle(s.claimKeyPackages))
	route(http.MethodGet, "/api/push/key", s.handle(s.pushKey))
	route(http.MethodGet, "/api/push", s.handle(s.getPush))
	route(http.MethodPut, "/api/push", s.handle(s.putPush))
	route(http.MethodDelete, "/api/push", s.handle(s.deletePush))
	route(http.MethodPost, "/api/messages", s.handle(s.send))
	route(http.MethodPost, "/api/ack", s.handle(s.ack))
	route(http.MethodGet, "/api/events", s.handle(s.events))
	route(http.MethodGet, "/api/queue", s.handle(s.queuePage))
	route(http.MethodGet, "/healthz", s.handle(s.healthz))
	route(http.MethodGet, "/readyz", s.handle(s.readyz))
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

// permissionsPolicy turns off browser features the client never uses.
const permissionsPolicy = "accelerometer=(), camera=(), display-capture=(), geolocation=(), gyroscope=(), " +
	"hid=(), magnetometer=(), microphone=(), midi=(), payment=(), serial=(), usb=(), xr-spatial-tracking=()"

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
