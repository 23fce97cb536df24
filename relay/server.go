// Package relay is the relay's HTTP API and its event-stream writer, and the
// wiring of the parts behind them (docs/protocol.md is the contract).
//
// The relay is a dumb pipe: it checks who is speaking (package devices),
// checks the shape and clock of each envelope (package envelope), fans it
// into per-device queues (package queue) and streams those queues to the
// devices over Server-Sent Events, woken by package hub. It never decrypts
// anything and never logs an envelope body, a password, a session token, a
// key, a username or a device id (the access log names a request by its
// route's pattern, ADR 0025).
package relay

import (
	"context"
	"crypto/rand"
	"crypto/x509"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/go-json-experiment/json/jsontext"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/julienschmidt/httprouter"

	"relay/canonical"
	"relay/devices"
	"relay/envelope"
	"relay/hub"
	"relay/migrations"
	"relay/push"
	"relay/queue"
	"relay/webclient"
)

// Config is what a Server needs. A zero field takes its value from
// [DefaultConfig], so a caller sets only what it changes.
type Config struct {
	Pool   *pgxpool.Pool
	Logger *slog.Logger     // nil: discard
	Now    func() time.Time // nil: time.Now; tests move the clock

	// BaseURL is where clients reach this relay, such as
	// "https://relay.example". It sets the default Origin allowlist and
	// whether cookies are Secure.
	BaseURL string
	// Origins allowed on non-GET requests; empty means just BaseURL's.
	Origins []string

	// RatePerMinute bounds the envelopes an account sends to other
	// accounts, SelfRatePerMinute those it sends to itself (read positions,
	// notes to self; ADR 0035); each is also its bucket's burst.
	RatePerMinute, SelfRatePerMinute int
	// ReceiptRatePerMinute bounds the envelopes marked as receipts that an
	// account sends to other accounts: a bucket of their own, so that
	// delivery and read receipts never hold up a message (ADR 0051).
	ReceiptRatePerMinute int

	// AuthPerMinute bounds logins and registrations per client address,
	// AuthPerUserPerMinute logins per username. TrustedProxies are the
	// proxies whose X-Forwarded-For names the client address; without
	// them the peer address counts.
	AuthPerMinute, AuthPerUserPerMinute int
	TrustedProxies                      []netip.Prefix
	PingInterval                        time.Duration // between event: ping on a stream
	MaxBody                             int           // decoded envelope body limit, at most envelope.MaxBody
	Skew                                time.Duration // clock skew allowed on send (ADR 0011)
	// DedupWindow is how long after its accept an envelope's idempotency
	// record is kept at least, so that a resend with the same id is
	// recognised whatever the id's age (ADR 0084).
	DedupWindow time.Duration

	Argon2          devices.Argon2Params
	MaxDevices      int // live devices per account
	HashConcurrency int // argon2id hashes at once; 0: GOMAXPROCS

	// DisableNotify turns off cross-instance wake-ups through
	// LISTEN/NOTIFY; streams fed by other instances are then caught up
	// only by the interval check. For measuring NOTIFY's cost.
	DisableNotify bool
	// DisableSessionCache makes every session and device check a query
	// (ADR 0072). The cache is off anyway without notifications. For
	// measuring the cache, and for tests that change sessions, devices
	// or accounts in SQL behind the relay's back.
	DisableSessionCache bool
	// CatchUp is the interval of the check that makes up for lost
	// notifications (ADR 0016). It bounds the extra delay of a delivery
	// when a notification is lost, and of a push when its signal is lost
	// (the push sweep, ADR 0087).
	CatchUp time.Duration

	// HeaderTimeout bounds the time to send a request's headers,
	// BodyTimeout the time to send a request's body, and
	// StreamWriteTimeout each write to an event stream: slow or stuck
	// clients are cut off instead of holding memory and goroutines.
	HeaderTimeout, BodyTimeout, StreamWriteTimeout time.Duration

	// QueueMaxAge and QueueMaxBytes bound each device's queue: envelopes
	// older than QueueMaxAge are deleted, and so are the oldest beyond
	// QueueMaxBytes of ciphertext; the device is told on its next stream.
	// PurgeInterval is how often the bounds are applied.
	QueueMaxAge, PurgeInterval time.Duration
	QueueMaxBytes              int64
	// RevokedKeep is how long a revoked device's row is kept.
	RevokedKeep time.Duration
	// DeletedNameHold is how long a deleted account's username is held
	// back from new registrations (ADR 0059).
	DeletedNameHold time.Duration

	// CommitWorkers and MaxGroup size the group commit of accepted
	// envelopes (ADR 0018).
	CommitWorkers, MaxGroup int

	// PushContact turns Web Push on (ADR 0055): the VAPID subject,
	// "mailto:…" or "https://…". Empty: no push, and the push endpoints
	// answer 404 push_disabled. PushInterval bounds the pushes to one
	// device; PushAllowPrivate lets endpoints reach loopback and private
	// addresses; PushRootCAs, for tests, replaces the system's CAs.
	PushContact      string
	PushInterval     time.Duration
	PushAllowPrivate bool
	PushRootCAs      *x509.CertPool
	// PushWorkers send pushes at once, PushQueue bounds the pushes
	// waiting for them, PushBackoff is the first wait before a retry.
	PushWorkers, PushQueue int
	PushBackoff            time.Duration
}

// DefaultConfig holds the default of every Config field that has one; New
// fills a zero field from it, and the relay command's flags show it.
func DefaultConfig() Config {
	return Config{
		RatePerMinute: 30,
		// A read record goes out each time a chat is read (ADR 0015): two
		// a second is more than a person reads, and an envelope to self
		// reaches only the account's own devices (ADR 0035).
		SelfRatePerMinute: 120,
		// Receipts are batched by the client (docs/protocol.md, "Rate
		// limit"): 120 a minute is more than a person reading at any pace
		// on a few devices sends.
		ReceiptRatePerMinute: 120,
		AuthPerMinute:        20,
		AuthPerUserPerMinute: 10,
		// Often enough for a client to tell a silent link from a dead one
		// (docs/protocol.md, "GET /api/events").
		PingInterval: 20 * time.Second,
		MaxBody:      envelope.MaxBody,
		Skew:         envelope.DefaultSkew,
		Argon2:       devices.DefaultArgon2,
		MaxDevices:   devices.DefaultMaxDevices,
		// The extra delay of a delivery whose notification was lost, for
		// one query per instance per interval (ADR 0016).
		CatchUp: 5 * time.Second,
		// Headers are at most 16 KiB and a body about 87 KiB (a full
		// envelope in base64): ample time on a slow link, short enough
		// that slow senders cannot pile up connections.
		HeaderTimeout: 10 * time.Second,
		BodyTimeout:   30 * time.Second,
		// A stream's writes are a few KiB: a client that cannot take one
		// in 15 s has stopped reading, and what it missed stays queued.
		StreamWriteTimeout: 15 * time.Second,
		QueueMaxAge:        30 * 24 * time.Hour,
		QueueMaxBytes:      64 << 20,
		// Each purge scans every queue; the bounds are days and MiB, so
		// hourly is precise enough.
		PurgeInterval: time.Hour,
		RevokedKeep:   30 * 24 * time.Hour,
		// Long enough that the contacts of a deleted account see "deleted"
		// before anyone else can take its name (ADR 0059).
		DeletedNameHold: devices.DefaultNameHold,
		// Chosen by make bench (ADR 0018, docs/performance.md).
		CommitWorkers: queue.DefaultCommitWorkers,
		MaxGroup:      queue.DefaultMaxGroup,
		// A closed tab needs one wake-up to sync, not one per message;
		// a minute keeps a busy chat from buzzing a phone.
		PushInterval: time.Minute,
		// Pushes wait on a remote service: a few at once, and a queue
		// that holds a burst to many devices; beyond it they are dropped.
		PushWorkers: 4,
		PushQueue:   256,
		// Push services ask for backoff with 429 and 5xx; three retries
		// from 1 s span about 7 s.
		PushBackoff: time.Second,
		// A device offline for a day that retries with its old id is
		// still recognised, with a day of margin; about 231 bytes of
		// database per accepted envelope (ADR 0084, docs/performance.md).
		DedupWindow: 48 * time.Hour,
	}
}

// Server is the relay's HTTP side. Create it with New, serve Handler, run
// Run for the background work, and call BeginClose and Close when done.
type Server struct {
	pool    *pgxpool.Pool
	log     *slog.Logger
	now     func() time.Time
	cfg     Config
	origins map[string]bool
	secure  bool // cookies get the Secure attribute

	accounts      *devices.Store
	hub           *hub.Hub
	pusher        *push.Pusher
	metrics       *metrics
	limits        *buckets[int64]  // envelopes per account to other accounts
	selfLimits    *buckets[int64]  // envelopes per account to itself (ADR 0035)
	receiptLimits *buckets[int64]  // receipts per account to others (ADR 0051)
	authLimits    *buckets[string] // logins and registrations per client address
	userLimits    *buckets[string] // logins per username
	// recoveryLimits are fetches of the recovery blob per account
	// (docs/protocol.md, "GET /api/recovery").
	recoveryLimits *buckets[int64]
	router         *httprouter.Router
	patterns       routePatterns // the router's, for the access log

	committer *queue.Committer
	acker     *queue.Acker

	// background are the loops Run starts, each until its context ends;
	// New lists them, and a new one is one more entry.
	background []func(context.Context)
	// closeWait bounds how long Close waits for the streams and Run.
	closeWait time.Duration

	mu      sync.Mutex         // guards the following
	closed  bool               // BeginClose was called: no new stream, no Run
	running bool               // Run was called
	stopRun context.CancelFunc // ends Run; nil until Run is called
	closing chan struct{}      // closed with closed: open streams end
	wg      sync.WaitGroup     // open streams and Run; Add only under mu, while !closed
}

// ErrClosed is returned by Run once Close has been called, and wrapped by
// Close when its wait ran out.
var ErrClosed = errors.New("relay: server closed")

// New checks cfg and returns a Server. It does not touch the database.
func New(cfg Config) (*Server, error) {
	if cfg.Pool == nil {
		return nil, errors.New("relay: Config.Pool is required")
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	d := DefaultConfig()
	orDefault(&cfg.RatePerMinute, d.RatePerMinute)
	orDefault(&cfg.SelfRatePerMinute, d.SelfRatePerMinute)
	orDefault(&cfg.ReceiptRatePerMinute, d.ReceiptRatePerMinute)
	orDefault(&cfg.AuthPerMinute, d.AuthPerMinute)
	orDefault(&cfg.AuthPerUserPerMinute, d.AuthPerUserPerMinute)
	orDefault(&cfg.PingInterval, d.PingInterval)
	orDefault(&cfg.MaxBody, d.MaxBody)
	orDefault(&cfg.Skew, d.Skew)
	orDefault(&cfg.DedupWindow, d.DedupWindow)
	orDefault(&cfg.Argon2, d.Argon2)
	orDefault(&cfg.MaxDevices, d.MaxDevices)
	orDefault(&cfg.CatchUp, d.CatchUp)
	orDefault(&cfg.HeaderTimeout, d.HeaderTimeout)
	orDefault(&cfg.BodyTimeout, d.BodyTimeout)
	orDefault(&cfg.StreamWriteTimeout, d.StreamWriteTimeout)
	orDefault(&cfg.QueueMaxAge, d.QueueMaxAge)
	orDefault(&cfg.QueueMaxBytes, d.QueueMaxBytes)
	orDefault(&cfg.PurgeInterval, d.PurgeInterval)
	orDefault(&cfg.RevokedKeep, d.RevokedKeep)
	orDefault(&cfg.DeletedNameHold, d.DeletedNameHold)
	orDefault(&cfg.CommitWorkers, d.CommitWorkers)
	orDefault(&cfg.MaxGroup, d.MaxGroup)
	orDefault(&cfg.PushInterval, d.PushInterval)
	orDefault(&cfg.PushWorkers, d.PushWorkers)
	orDefault(&cfg.PushQueue, d.PushQueue)
	orDefault(&cfg.PushBackoff, d.PushBackoff)
	if err := checkPushContact(cfg.PushContact); err != nil {
		return nil, err
	}
	if cfg.MaxBody < 1 || cfg.MaxBody > envelope.MaxBody {
		return nil, fmt.Errorf("relay: the body limit must be between 1 and %d bytes", envelope.MaxBody)
	}
	base, err := url.Parse(cfg.BaseURL)
	if err != nil || (base.Scheme != "http" && base.Scheme != "https") || base.Host == "" {
		return nil, fmt.Errorf("relay: base URL %q must look like http(s)://host[:port]", cfg.BaseURL)
	}
	origins := map[string]bool{}
	list := cfg.Origins
	if len(list) == 0 {
		list = []string{cfg.BaseURL}
	}
	for _, o := range list {
		n, err := normalizeOrigin(o)
		if err != nil {
			return nil, fmt.Errorf("relay: allowed origin %q: %v", o, err)
		}
		origins[n] = true
	}
	cache := !cfg.DisableNotify && !cfg.DisableSessionCache
	store, err := devices.NewStore(cfg.Pool, devices.Config{Argon2: cfg.Argon2, HashConcurrency: cfg.HashConcurrency, Now: cfg.Now, MaxDevices: cfg.MaxDevices,
		Cache: cache})
	if err != nil {
		return nil, err
	}
	var sessions hub.Sessions
	if cache {
		sessions = store
	}
	s := &Server{
		pool: cfg.Pool, log: cfg.Logger, now: cfg.Now, cfg: cfg,
		origins: origins, secure: base.Scheme == "https",
		accounts:      store,
		hub:           hub.New(hub.Config{Pool: cfg.Pool, Logger: cfg.Logger, States: store, Notify: !cfg.DisableNotify, CatchUp: cfg.CatchUp, Sessions: sessions, Epoch: readEpoch(cfg.Pool)}),
		limits:        newBuckets[int64](cfg.RatePerMinute),
		selfLimits:    newBuckets[int64](cfg.SelfRatePerMinute),
		receiptLimits: newBuckets[int64](cfg.ReceiptRatePerMinute),
		authLimits:    newBuckets[string](cfg.AuthPerMinute),
		userLimits:    newBuckets[string](cfg.AuthPerUserPerMinute),
		// Ten an hour is plenty for a person restoring a browser or two;
		// the blob is useless without the recovery key, and the budget
		// bounds what a stolen session carries away in a burst.
		recoveryLimits: newBucketsPer[int64](10, time.Hour),
		closing:        make(chan struct{}),
	}
	s.pusher = push.New(push.Config{
		Pool: cfg.Pool, Logger: cfg.Logger, Now: cfg.Now,
		Contact: cfg.PushContact, Interval: cfg.PushInterval, AllowPrivate: cfg.PushAllowPrivate, RootCAs: cfg.PushRootCAs,
		Instance: s.hub.Instance(), PresenceTTL: s.hub.PresenceTTL(),
		Workers: cfg.PushWorkers, Queue: cfg.PushQueue, Backoff: cfg.PushBackoff,
		// A wake-up the fast path lost waits as long as a delivery whose
		// notification was lost (ADR 0087).
		Sweep: cfg.CatchUp,
	})
	s.committer = queue.NewCommitter(cfg.Pool, cfg.CommitWorkers, cfg.MaxGroup)
	s.metrics = newMetrics(s)
	s.committer.Grouped = func(n int) { s.metrics.groups.Observe(float64(n)) }
	s.acker = queue.NewAcker(cfg.Pool, 0, 0)
	s.acker.Grouped = func(n int) { s.metrics.ackGroups.Observe(float64(n)) }
	s.background = []func(context.Context){
		s.hub.Run,       // wake-ups across instances, the dispatcher, the catch-up check
		s.committer.Run, // group commit (ADR 0018)
		s.acker.Run,     // ACK grouping (ADR 0070)
		every(time.Minute, s.housekeeping),
		// A loop of its own: a purge of a large queue may take long, and
		// must not hold up housekeeping or the hub's catch-up check.
		every(cfg.PurgeInterval, s.PurgeQueues),
		s.refreshGauges, // relay_queue_depth, so that a scrape runs no query
		s.pusher.Run,    // Web Push to devices without a stream (ADR 0055, ADR 0087)
	}
	// A stream's last write (event: shutdown) may take StreamWriteTimeout;
	// everything else ends within moments of its context, and 5 s more
	// covers a group commit in flight on a slow database.
	s.closeWait = cfg.StreamWriteTimeout + 5*time.Second
	s.router = s.routes()
	return s, nil
}

// orDefault sets a zero *v to def.
func orDefault[T comparable](v *T, def T) {
	var zero T
	if *v == zero {
		*v = def
	}
}

// every returns a loop that runs f at once and then every d until its
// context ends.
func every(d time.Duration, f func(context.Context)) func(context.Context) {
	return func(ctx context.Context) {
		t := time.NewTicker(d)
		defer t.Stop()
		for ctx.Err() == nil {
			f(ctx)
			select {
			case <-ctx.Done():
				return
			case <-t.C:
			}
		}
	}
}

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

// Run does the relay's background work until ctx ends or Close is called:
// group commit (ADR 0018), the hub's wake-ups across instances and
// catch-up check (ADR 0016), housekeeping (expired sessions and
// idempotency records), the queue purge, the gauges that need the
// database (relay_queue_depth) and Web Push (ADR 0055). It returns only when every
// goroutine it started has ended: ErrClosed after Close, ctx's error
// otherwise. Call it once; New starts nothing.
//
// The Handler works without Run, before it starts and after it returns:
// envelopes are then committed one at a time, streams read their queues
// themselves, and other instances are not woken (their catch-up check
// delivers).
func (s *Server) Run(ctx context.Context) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	s.mu.Lock()
	switch {
	case s.closed:
		s.mu.Unlock()
		return ErrClosed
	case s.running:
		s.mu.Unlock()
		return errors.New("relay: Run called twice")
	}
	s.running = true
	s.stopRun = cancel
	s.wg.Add(1)
	s.mu.Unlock()
	defer s.wg.Done()

	var wg sync.WaitGroup
	for _, loop := range s.background {
		wg.Go(func() { loop(ctx) })
	}
	wg.Wait()
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return ErrClosed
	}
	return ctx.Err()
}

// PurgeQueues applies the queue limits now (Run does it every
// PurgeInterval) and deletes revoked devices' rows kept long enough.
func (s *Server) PurgeQueues(ctx context.Context) {
	aged, trimmed, err := queue.Purge(ctx, s.pool, s.now().Add(-s.cfg.QueueMaxAge), s.cfg.QueueMaxBytes)
	if err != nil {
		s.log.Warn("purging queues", "err", err)
	} else if aged+trimmed > 0 {
		s.log.Info("purging queues", "expired_envelopes_deleted", aged, "envelopes_over_size_deleted", trimmed)
	}
	if n, err := s.accounts.PurgeRevoked(ctx, s.now().Add(-s.cfg.RevokedKeep)); err != nil {
		s.log.Warn("purging revoked devices", "err", err)
	} else if n > 0 {
		s.log.Info("purging revoked devices", "devices_deleted", n)
	}
}

func (s *Server) housekeeping(ctx context.Context) {
	if n, err := s.accounts.PurgeSessions(ctx); err != nil {
		s.log.Warn("housekeeping", "err", err)
	} else if n > 0 {
		s.log.Info("housekeeping", "expired_sessions_deleted", n)
	}
	if n, err := s.accounts.PurgeHeldNames(ctx); err != nil {
		s.log.Warn("housekeeping", "err", err)
	} else if n > 0 {
		s.log.Info("housekeeping", "held_names_released", n)
	}
	if n, err := queue.PurgeSent(ctx, s.pool, s.now()); err != nil {
		s.log.Warn("housekeeping", "err", err)
	} else if n > 0 {
		s.log.Info("housekeeping", "idempotency_records_deleted", n)
	}
	s.limits.sweep(s.now())
	s.selfLimits.sweep(s.now())
	s.receiptLimits.sweep(s.now())
	s.authLimits.sweep(s.now())
	s.userLimits.sweep(s.now())
	s.recoveryLimits.sweep(s.now())
}

// BeginClose refuses new event streams (503 shutting_down) and ends every
// open one with event: shutdown (docs/protocol.md). It returns at once;
// other requests are still served, so that an http.Server can drain them.
func (s *Server) BeginClose() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.closed {
		s.closed = true
		close(s.closing)
	}
}

// Close calls BeginClose, stops Run, and waits until every stream and
// every goroutine of Run has ended, for at most StreamWriteTimeout plus
// 5 s; when that runs out it returns an error wrapping ErrClosed. The
// caller shuts the http.Server down, best between BeginClose and Close.
func (s *Server) Close() error {
	s.BeginClose()
	s.mu.Lock()
	stop := s.stopRun
	s.mu.Unlock()
	if stop != nil {
		stop()
	}
	done := make(chan struct{})
	go func() {
		s.wg.Wait() // no Add can follow: closed is set
		close(done)
	}()
	t := time.NewTimer(s.closeWait)
	defer t.Stop()
	select {
	case <-done:
		return nil
	case <-t.C:
		return fmt.Errorf("%w, but streams or background work still run after %s", ErrClosed, s.closeWait)
	}
}

// enterStream counts a new event stream in s.wg, unless BeginClose was
// called: then it reports false and the stream must be refused.
func (s *Server) enterStream() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return false
	}
	s.wg.Add(1)
	return true
}

type requestIDKey struct{}

func requestID(r *http.Request) string {
	id, _ := r.Context().Value(requestIDKey{}).(string)
	return id
}

func newRequestID() string {
	b := make([]byte, 8)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

// statusWriter remembers the status for the access log. Unwrap lets
// http.ResponseController reach the real writer's Flush and deadlines.
type statusWriter struct {
	http.ResponseWriter
	status int
}

func (w *statusWriter) WriteHeader(code int) {
	if w.status == 0 {
		w.status = code
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *statusWriter) Write(b []byte) (int, error) {
	if w.status == 0 {
		w.status = http.StatusOK
	}
	return w.ResponseWriter.Write(b)
}

func (w *statusWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// handler is an API endpoint: it writes its success answer itself and
// returns an error for everything else.
type handler func(w http.ResponseWriter, r *http.Request, p httprouter.Params) error

func (s *Server) handle(h handler) httprouter.Handle {
	return func(w http.ResponseWriter, r *http.Request, p httprouter.Params) {
		w.Header().Set("Cache-Control", "no-store")
		if err := h(w, r, p); err != nil {
			s.writeError(w, r, err)
		}
	}
}

func (s *Server) writeError(w http.ResponseWriter, r *http.Request, err error) {
	ae := toAPIError(err, requestID(r))
	if r.URL.Path == "/api/messages" {
		s.metrics.rejected.WithLabelValues(ae.code).Inc()
	}
	if ae.status >= 500 {
		s.log.Error("request failed", "request_id", requestID(r), "method", r.Method, "path", s.logPath(r.URL.Path), "err", err)
	}
	for k, v := range ae.header {
		w.Header().Set(k, v)
	}
	body := map[string]any{"error": ae.code, "message": ae.message}
	for k, v := range ae.extra {
		body[k] = v
	}
	writeJSON(w, ae.status, body)
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

// maxJSON bounds the body of every JSON request but POST /api/messages.
const maxJSON = 16 << 10

// readBody reads a request body of at most limit bytes.
func readBody(w http.ResponseWriter, r *http.Request, limit int64) ([]byte, error) {
	data, err := io.ReadAll(http.MaxBytesReader(w, r.Body, limit))
	if err != nil {
		var mbe *http.MaxBytesError
		if errors.As(err, &mbe) {
			return nil, tooLarge(limit)
		}
		var ne net.Error
		if errors.As(err, &ne) && ne.Timeout() {
			return nil, errRequestTimeout
		}
		return nil, codeBadJSON.errorf("could not read the request body")
	}
	return data, nil
}

// readJSON decodes a bounded JSON request body into dst.
func readJSON(w http.ResponseWriter, r *http.Request, limit int64, dst any) error {
	data, err := readBody(w, r, limit)
	if err != nil {
		return err
	}
	return decodeJSON(data, dst)
}

// decodeJSON decodes a request body into dst: I-JSON (ADR 0022), then the
// shape dst wants. Its errors are 400 bad_json.
func decodeJSON(data []byte, dst any) error {
	if !jsontext.Value(data).IsValid() {
		return errBadJSON
	}
	if err := json.Unmarshal(data, dst); err != nil {
		return codeBadJSON.errorf("the request body is not the JSON object this endpoint expects: %v", jsonProblem(err))
	}
	return nil
}

// jsonProblem describes a decoding error without echoing client bytes.
func jsonProblem(err error) string {
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) {
		return fmt.Sprintf("field %q must be a %s", te.Field, te.Type)
	}
	return "malformed JSON"
}

// normalizeOrigin reduces an origin to scheme://host[:port] in lower case,
// the form browsers send.
func normalizeOrigin(o string) (string, error) {
	u, err := url.Parse(strings.TrimSpace(o))
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return "", errors.New("want scheme://host[:port]")
	}
	if (u.Path != "" && u.Path != "/") || u.RawQuery != "" || u.User != nil {
		return "", errors.New("an origin has no path, query or user")
	}
	return strings.ToLower(u.Scheme + "://" + u.Host), nil
}

// checkOrigin enforces the Origin allowlist on a request that changes state
// (docs/protocol.md, "Origin").
func (s *Server) checkOrigin(r *http.Request) error {
	o := r.Header.Get("Origin")
	if o == "" {
		return errOriginRequired
	}
	n, err := normalizeOrigin(o)
	if err != nil || !s.origins[n] {
		return errOriginForbidden
	}
	return nil
}

const sessionCookie = "relay_session"

// session returns the account behind the request's session cookie.
func (s *Server) session(r *http.Request) (devices.Account, error) {
	c, err := r.Cookie(sessionCookie)
	if err != nil {
		return devices.Account{}, errUnauthenticated
	}
	return s.accounts.Authenticate(r.Context(), c.Value)
}

// speaker checks the session and the device a request speaks as, in one
// query, keeping the documented order: 401 unauthenticated, then 400
// device_required, then 403 device_forbidden. The device id comes from
// X-Device or, for streams, from ?device=.
func (s *Server) speaker(r *http.Request, allowQuery bool) (devices.Account, string, error) {
	c, err := r.Cookie(sessionCookie)
	if err != nil || c.Value == "" {
		return devices.Account{}, "", errUnauthenticated
	}
	id := r.Header.Get("X-Device")
	if id == "" && allowQuery {
		id = r.URL.Query().Get("device")
	}
	lookup := id
	if _, err := canonical.ParseULID(id); err != nil {
		lookup = "" // never matches; the session is still checked first
	}
	acc, live, err := s.accounts.AuthenticateDevice(r.Context(), c.Value, lookup)
	switch {
	case err != nil:
		return devices.Account{}, "", err
	case id == "":
		return devices.Account{}, "", errDeviceRequired
	case !live:
		return devices.Account{}, "", errDeviceForbidden
	}
	return acc, id, nil
}

func (s *Server) setSessionCookie(w http.ResponseWriter, sess devices.Session) {
	http.SetCookie(w, &http.Cookie{
		Name: sessionCookie, Value: sess.Token, Path: "/",
		Expires: sess.Expires, MaxAge: int(devices.SessionTTL / time.Second),
		HttpOnly: true, Secure: s.secure, SameSite: http.SameSiteStrictMode,
	})
}

func (s *Server) clearSessionCookie(w http.ResponseWriter) {
	http.SetCookie(w, &http.Cookie{
		Name: sessionCookie, Value: "", Path: "/", MaxAge: -1,
		HttpOnly: true, Secure: s.secure, SameSite: http.SameSiteStrictMode,
	})
}

// GET /healthz: the process is alive.
func (s *Server) healthz(w http.ResponseWriter, _ *http.Request, _ httprouter.Params) error {
	writeJSON(w, http.StatusOK, map[string]string{"status": "alive"})
	return nil
}

// GET /readyz: the instance is not shutting down, and the database answers
// and holds every migration this relay knows, so the instance can take
// traffic. While it drains, a load balancer learns to send new requests
// elsewhere.
func (s *Server) readyz(w http.ResponseWriter, r *http.Request, _ httprouter.Params) error {
	select {
	case <-s.closing:
		return codeNotReady.errorf("this instance is shutting down")
	default:
	}
	ctx, cancel := context.WithTimeout(r.Context(), 2*time.Second)
	defer cancel()
	v, err := migrations.Version(ctx, s.pool)
	if err != nil {
		return codeNotReady.errorf("the database does not answer: %v", unwrapAll(err))
	}
	if v < migrations.Latest() {
		return codeNotReady.errorf("the database is at migration %d of %d; run relay migrate", v, migrations.Latest())
	}
	writeJSON(w, http.StatusOK, map[string]any{"status": "ready", "migration": v})
	return nil
}

// unwrapAll returns the innermost error, short and without SQL.
func unwrapAll(err error) error {
	for {
		u := errors.Unwrap(err)
		if u == nil {
			return err
		}
		err = u
	}
}
