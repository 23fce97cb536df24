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
	"errors"
	"fmt"
	"log/slog"
	"net/url"
	"sync"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/julienschmidt/httprouter"

	"relay/attachments"
	"relay/devices"
	"relay/envelope"
	"relay/hub"
	"relay/mlsgroup"
	"relay/push"
	"relay/queue"
	"relay/reports"
)

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
	groupLimits   *buckets[int64]  // MLS commits and welcomes per account (ADR 0105)
	fanoutLimits  *buckets[int64]  // other accounts named per account, on top of the above (ADR 0106)
	authLimits    *buckets[string] // logins and registrations per client address
	userLimits    *buckets[string] // logins per username
	// recoveryLimits are fetches of the recovery blob per account
	// (docs/protocol.md, "GET /api/recovery").
	recoveryLimits *buckets[int64]
	claimLimits    *buckets[int64] // key package claims per account (keypackages.go)
	groupInfoPuts  *buckets[int64] // GroupInfo stores per account (groups.go)
	groupInfoGets  *buckets[int64] // GroupInfo reads per account (groups.go)
	uploadLimits   *buckets[int64] // attachments started per account (attachments.go)
	reportLimits   *buckets[int64] // reports filed per account (reports.go)
	attachments    attachments.Store
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
	orDefault(&cfg.GroupRatePerMinute, d.GroupRatePerMinute)
	orDefault(&cfg.FanoutRatePerMinute, d.FanoutRatePerMinute)
	orDefault(&cfg.MaxRecipients, d.MaxRecipients)
	orDefault(&cfg.AuthPerMinute, d.AuthPerMinute)
	orDefault(&cfg.AuthPerUserPerMinute, d.AuthPerUserPerMinute)
	orDefault(&cfg.PingInterval, d.PingInterval)
	orDefault(&cfg.MaxBody, d.MaxBody)
	orDefault(&cfg.Skew, d.Skew)
	orDefault(&cfg.DedupWindow, d.DedupWindow)
	orDefault(&cfg.Argon2, d.Argon2)
	orDefault(&cfg.MaxDevices, d.MaxDevices)
	orDefault(&cfg.CatchUp, d.CatchUp)
	orDefault(&cfg.AttachmentMaxSize, d.AttachmentMaxSize)
	orDefault(&cfg.AttachmentQuota, d.AttachmentQuota)
	orDefault(&cfg.AttachmentMaxAge, d.AttachmentMaxAge)
	orDefault(&cfg.AttachmentsPerMinute, d.AttachmentsPerMinute)
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
	orDefault(&cfg.Registration, d.Registration)
	if _, err := ParseRegistration(string(cfg.Registration)); err != nil {
		return nil, fmt.Errorf("relay: %w", err)
	}
	if err := checkPushContact(cfg.PushContact); err != nil {
		return nil, err
	}
	if cfg.MaxBody < 1 || cfg.MaxBody > envelope.MaxBody {
		return nil, fmt.Errorf("relay: the body limit must be between 1 and %d bytes", envelope.MaxBody)
	}
	if cfg.FanoutRatePerMinute < cfg.MaxRecipients {
		// The bucket's burst is its rate: a list of the most names allowed
		// would need more tokens than the bucket ever holds.
		return nil, fmt.Errorf("relay: the fan-out rate (%d) must be at least the most recipients of a list (%d)", cfg.FanoutRatePerMinute, cfg.MaxRecipients)
	}
	if cfg.AttachmentMaxAge < cfg.QueueMaxAge {
		// A message the queue still delivers would name an attachment
		// already gone.
		return nil, fmt.Errorf("relay: attachments must be kept (%s) at least as long as the queue keeps envelopes (%s)", cfg.AttachmentMaxAge, cfg.QueueMaxAge)
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
		groupLimits:   newBuckets[int64](cfg.GroupRatePerMinute),
		fanoutLimits:  newBuckets[int64](cfg.FanoutRatePerMinute),
		authLimits:    newBuckets[string](cfg.AuthPerMinute),
		userLimits:    newBuckets[string](cfg.AuthPerUserPerMinute),
		// Ten an hour is plenty for a person restoring a browser or two;
		// the blob is useless without the recovery key, and the budget
		// bounds what a stolen session carries away in a burst.
		recoveryLimits: newBucketsPer[int64](10, time.Hour),
		claimLimits:    newBuckets[int64](claimsPerMinute),
		groupInfoPuts:  newBucketsPer[int64](groupInfoPutsPerHour, time.Hour),
		groupInfoGets:  newBuckets[int64](groupInfoGetsPerMinute),
		uploadLimits:   newBuckets[int64](cfg.AttachmentsPerMinute),
		reportLimits:   newBucketsPer[int64](reportsPerHour, time.Hour),
		attachments: attachments.NewPostgres(cfg.Pool, attachments.Limits{
			MaxSize: cfg.AttachmentMaxSize, Quota: cfg.AttachmentQuota, MaxAge: cfg.AttachmentMaxAge}),
		closing: make(chan struct{}),
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

// Run does the relay's background work until ctx ends or Close is called:
// group commit (ADR 0018), the hub's wake-ups across instances and
// catch-up check (ADR 0016), housekeeping (expired sessions, idempotency
// records, resolved reports past their keep: ADR 0118), the queue purge,
// the gauges that need the database (relay_queue_depth) and Web Push (ADR
// 0055). It returns only when every goroutine it started has ended:
// ErrClosed after Close, ctx's error otherwise. Call it once; New starts
// nothing.
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
// PurgeInterval), deletes revoked devices' rows kept long enough, the
// GroupInfo of groups nobody stored one for since the queue's age limit
// (such a row names no account, so it goes by age, ADR 0101), and the
// attachments expired (ADR 0107).
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
	if n, err := mlsgroup.PurgeInfo(ctx, s.pool, s.now().Add(-s.cfg.QueueMaxAge)); err != nil {
		s.log.Warn("purging group info", "err", err)
	} else if n > 0 {
		s.log.Info("purging group info", "group_info_deleted", n)
	}
	if n, err := s.attachments.Purge(ctx, s.now()); err != nil {
		s.log.Warn("purging attachments", "err", err)
	} else if n > 0 {
		s.log.Info("purging attachments", "expired_attachments_deleted", n)
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
	// Resolved reports, 90 days on (ADR 0118): the count, never a report.
	if n, err := reports.Purge(ctx, s.pool, s.now().Add(-reports.ResolvedKeep)); err != nil {
		s.log.Warn("housekeeping", "err", err)
	} else if n > 0 {
		s.log.Info("housekeeping", "resolved_reports_deleted", n)
	}
	s.limits.sweep(s.now())
	s.selfLimits.sweep(s.now())
	s.receiptLimits.sweep(s.now())
	s.groupLimits.sweep(s.now())
	s.fanoutLimits.sweep(s.now())
	s.authLimits.sweep(s.now())
	s.userLimits.sweep(s.now())
	s.recoveryLimits.sweep(s.now())
	s.claimLimits.sweep(s.now())
	s.groupInfoPuts.sweep(s.now())
	s.groupInfoGets.sweep(s.now())
	s.uploadLimits.sweep(s.now())
	s.reportLimits.sweep(s.now())
}

// BeginClose refuses new event streams (503 shutting_down) and ends every
// open one with event: shutdown (docs/protocol.md). It returns at once;
// other requests are still served, so that an http.Server can drain them.
func (s *Server) BeginClose() {
	s.mu.Lock()
	first := !s.closed
	if first {
		s.closed = true
		close(s.closing)
	}
	s.mu.Unlock()
	if first {
		// Streams waiting in a read of their connection look at
		// closing only when woken.
		s.hub.SignalAll()
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
