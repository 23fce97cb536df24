// Package push sends Web Push signals (RFC 8030, with VAPID, RFC 8292,
// and message encryption, RFC 8291) to devices that have envelopes queued
// and no open stream on any relay instance, so that a closed tab learns
// that there is something to fetch (ADR 0055, ADR 0056).
//
// A push is only a signal. Its payload is empty: it never carries the
// sender, the recipient, a count or anything of an envelope, so the push
// service learns that a device got something, and when, and nothing more.
// The client syncs with the relay on it and shows fixed text.
//
// The decision to push is made from committed state, never from memory
// alone (ADR 0087): the accepting statement records on a device's
// subscription that it should be woken (wake.go), and a push is claimed,
// by any instance, from that record. The accepting request then only
// signals ([Pusher.Signal], never blocking) so that the push goes out at
// once; [Pusher.Run] claims and sends in the background, and sweeps the
// database for what a crash, a restart or a full queue left, so that a
// push service that is slow, down or hung never delays a 202, the queue or
// a stream, and a wake-up is late at worst, never lost.
//
// It owns the push_subscriptions and push_vapid tables. It never logs an
// endpoint, a key or a device id.
package push

import (
	"context"
	"crypto/x509"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	webpush "github.com/SherClockHolmes/webpush-go"
	"github.com/jackc/pgx/v5/pgxpool"
)

// The headers of every push (RFC 8030, section 5).
const (
	// ttl is how long the push service keeps a push for a device that is
	// offline: a day, after which the device's next start syncs anyway.
	ttl = 24 * 60 * 60
	// urgency: a message is something a person waits for.
	urgency = webpush.UrgencyHigh
	// topic makes the push service keep one undelivered push per device,
	// not one per interval, while the device is offline.
	topic = "new"
	// recordSize keeps the padded, encrypted body small (128 bytes) for an
	// empty payload; the library pads to the record size.
	recordSize = 128
)

// Config is what a Pusher needs.
type Config struct {
	Pool   *pgxpool.Pool
	Logger *slog.Logger     // nil: discard
	Now    func() time.Time // nil: time.Now; when pushes were claimed

	// Contact is the VAPID subject (RFC 8292, section 2.1), "mailto:…" or
	// "https://…"; empty turns push off.
	Contact string
	// Interval: at most one push per device per Interval, across
	// instances and restarts.
	Interval time.Duration
	// Sweep is how often the database is read for devices due a push
	// that no signal brought (0: 5 s): the longest a wake-up the fast
	// path lost waits.
	Sweep time.Duration
	// Instance is this relay instance's name in devices.stream_instance,
	// PresenceTTL how long another instance's heartbeat counts (package
	// hub, ADR 0055).
	Instance    string
	PresenceTTL time.Duration
	// AllowPrivate lets endpoints resolve to loopback and private
	// addresses (tests, a push service on a private network).
	AllowPrivate bool
	// RootCAs are the CAs push services' certificates must chain to; nil:
	// the system's. Tests give their push service's.
	RootCAs *x509.CertPool

	// Workers send pushes at once; Queue bounds the pushes waiting for
	// them (no more are claimed than fit) and MaxPending the signalled
	// devices waiting to be considered; Backoff is the first wait before
	// a retry, doubled each time, Retries the retries after the first
	// attempt.
	Workers, Queue, MaxPending, Retries int
	Backoff                             time.Duration
}

// Pusher sends pushes. Create it with New, call Run for the background
// work; Signal works before, during and after Run (what it queues waits
// for Run, and the database keeps what it loses).
type Pusher struct {
	cfg    Config
	log    *slog.Logger
	client *http.Client

	mu      sync.Mutex     // guards the following
	pending map[string]int // device → signals not yet considered
	keys    *vapidKeys     // loaded or made on first use

	// claiming serialises claims, so that the room a claim counts in jobs
	// is still there when it queues what it claimed: nothing claimed is
	// ever dropped.
	claiming sync.Mutex

	wake chan struct{} // capacity 1
	jobs chan job

	// Counters, for the metrics and tests. A push is counted sent or
	// failed after what it writes to the database, so that a test that
	// sees the count sees the write.
	sent      atomic.Int64 // pushes the push service accepted (2xx)
	failed    atomic.Int64 // pushes given up: refused, gone, or retried out
	dropped   atomic.Int64 // signals dropped (too many pending, or the claim failed); the sweep finds their devices
	signalled atomic.Int64 // signals taken by Signal
	settled   atomic.Int64 // signals considered (or dropped)
	claimed   atomic.Int64 // pushes claimed: each ends sent or failed (or cut by shutdown)
	swept     atomic.Int64 // of the claimed, those a sweep found rather than a signal
	sweeps    atomic.Int64 // sweeps run
}

type job struct {
	device string
	sub    Subscription
	seq    int64 // the wake_seq the push answers
}

// New returns a Pusher. It starts nothing and touches no database.
func New(cfg Config) *Pusher {
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	def := func(v *int, d int) {
		if *v <= 0 {
			*v = d
		}
	}
	def(&cfg.Workers, 4)
	def(&cfg.Queue, 256)
	def(&cfg.MaxPending, 10000)
	if cfg.Retries < 0 {
		cfg.Retries = 0
	} else if cfg.Retries == 0 {
		cfg.Retries = 3
	}
	if cfg.Backoff <= 0 {
		cfg.Backoff = time.Second
	}
	if cfg.Sweep <= 0 {
		cfg.Sweep = 5 * time.Second
	}
	return &Pusher{cfg: cfg, log: cfg.Logger, client: newClient(cfg.AllowPrivate, cfg.RootCAs),
		pending: map[string]int{}, wake: make(chan struct{}, 1), jobs: make(chan job, cfg.Queue)}
}

// Enabled reports whether the relay pushes at all (a contact is set).
func (p *Pusher) Enabled() bool { return p.cfg.Contact != "" }

// Signal says that an envelope that wakes (queue.Envelope.Wake) has
// committed for these devices, so that Run claims their pushes now rather
// than at the next sweep. Devices the envelope does not wake (the
// sender's own) are never claimed: the committed record decides. It never
// blocks and never touches the database. Beyond MaxPending devices
// waiting, the signal is dropped, and the sweep finds the device.
func (p *Pusher) Signal(devices []string) {
	if !p.Enabled() || len(devices) == 0 {
		return
	}
	p.mu.Lock()
	for _, d := range devices {
		p.signalled.Add(1)
		n, ok := p.pending[d]
		if !ok && len(p.pending) >= p.cfg.MaxPending {
			p.dropped.Add(1)
			p.settled.Add(1)
			continue
		}
		p.pending[d] = n + 1
	}
	p.mu.Unlock()
	select {
	case p.wake <- struct{}{}:
	default:
	}
}

// Stats are the Pusher's counters.
type Stats struct {
	Sent, Failed, Dropped int64
	// Signalled counts the devices Signal was given, Settled those of them
	// considered since (or dropped): equal when Run has caught up.
	// Claimed counts the pushes decided on, Swept those of them a sweep
	// found, and Sweeps the sweeps run.
	Signalled, Settled, Claimed, Swept, Sweeps int64
}

// Stats returns the counters.
func (p *Pusher) Stats() Stats {
	return Stats{Sent: p.sent.Load(), Failed: p.failed.Load(), Dropped: p.dropped.Load(),
		Signalled: p.signalled.Load(), Settled: p.settled.Load(), Claimed: p.claimed.Load(),
		Swept: p.swept.Load(), Sweeps: p.sweeps.Load()}
}

// claimBatch bounds the devices one claim reads.
const claimBatch = 500

// Run considers signalled devices, sweeps the database every Sweep, and
// sends the pushes until ctx ends, and returns only when every goroutine
// it started has ended. It sweeps at once, so that a relay restarted
// after a crash sends what the crash cut off. Without a contact it only
// waits for ctx. Call it once.
func (p *Pusher) Run(ctx context.Context) {
	if !p.Enabled() {
		<-ctx.Done()
		return
	}
	defer p.client.CloseIdleConnections()
	var wg sync.WaitGroup
	for range p.cfg.Workers {
		wg.Go(func() {
			for {
				select {
				case <-ctx.Done():
					return
				case j := <-p.jobs:
					p.push(ctx, j)
				}
			}
		})
	}
	defer wg.Wait()
	t := time.NewTicker(p.cfg.Sweep)
	defer t.Stop()
	p.Sweep(ctx)
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			p.Sweep(ctx)
		case <-p.wake:
			for p.round(ctx) {
			}
		}
	}
}

// round claims the pushes of up to claimBatch signalled devices and queues
// them for the workers. It reports whether devices are still pending.
func (p *Pusher) round(ctx context.Context) bool {
	p.mu.Lock()
	ids := make([]string, 0, min(len(p.pending), claimBatch))
	signals := 0
	for d, n := range p.pending {
		if len(ids) == claimBatch {
			break
		}
		ids = append(ids, d)
		signals += n
		delete(p.pending, d)
	}
	more := len(p.pending) > 0
	p.mu.Unlock()
	if len(ids) == 0 {
		return false
	}
	defer p.settled.Add(int64(signals))
	if _, err := p.claim(ctx, ids); err != nil {
		if ctx.Err() == nil {
			p.log.Warn("push: claiming the pushes of signalled devices failed; the sweep will find them", "devices", len(ids), "err", err)
		}
		p.dropped.Add(int64(len(ids)))
	}
	return more && ctx.Err() == nil
}

// Sweep claims the pushes of devices due one that no signal brought (a
// crash, a restart, a full queue, an interval that had not passed, a
// stream that ended with its envelopes unread) and queues them for the
// workers; it first forgets the wake-ups whose envelopes have left the
// queue. Run calls it every Sweep; it is exported so that tests with a
// clock of their own need not wait for the ticker.
func (p *Pusher) Sweep(ctx context.Context) {
	if !p.Enabled() {
		return
	}
	defer p.sweeps.Add(1)
	if err := p.answered(ctx); err != nil && ctx.Err() == nil {
		p.log.Warn("push: forgetting the wake-ups already read failed", "err", err)
	}
	n, err := p.claim(ctx, nil)
	if err != nil && ctx.Err() == nil {
		p.log.Warn("push: sweeping for devices due a push failed", "err", err)
	}
	p.swept.Add(int64(n))
}

func (p *Pusher) pool() *pgxpool.Pool { return p.cfg.Pool }

// retryCap bounds a wait the push service asks for with Retry-After.
const retryCap = time.Minute

// push sends one push, retrying 429 and 5xx answers and failed connections
// with backoff. A 404 or 410 means the subscription is gone: it is
// deleted (RFC 8030, section 7.3). A push taken, or refused for good, is
// recorded as answering its wake-up; one retried out, or cut by shutdown,
// is not, and the sweep claims it again once the interval has passed.
func (p *Pusher) push(ctx context.Context, j job) {
	keys, err := p.vapid(ctx)
	if err != nil {
		if ctx.Err() == nil {
			p.failed.Add(1)
			p.log.Warn("push: no VAPID key", "err", err)
		}
		return
	}
	wait := p.cfg.Backoff
	for attempt := 0; ; attempt++ {
		status, retryAfter, err := p.send(ctx, keys, j.sub)
		switch {
		case ctx.Err() != nil:
			return
		case err == nil && status >= 200 && status < 300:
			p.answer(ctx, j)
			p.sent.Add(1)
			return
		case err == nil && (status == http.StatusNotFound || status == http.StatusGone):
			// Only if the device has not subscribed again meanwhile.
			if _, err := p.pool().Exec(ctx, `DELETE FROM push_subscriptions WHERE device_id = $1 AND endpoint = $2`, j.device, j.sub.Endpoint); err != nil && ctx.Err() == nil {
				p.log.Warn("push: deleting an expired subscription failed", "err", err)
			}
			p.failed.Add(1)
			p.log.Info("push: the push service says the subscription is gone; deleted", "status", status)
			return
		case errors.Is(err, ErrForbiddenAddress):
			p.answer(ctx, j) // until the subscription changes, trying again cannot help
			p.failed.Add(1)
			p.log.Warn("push: the endpoint resolves to an address that is not public; see --push-allow-private")
			return
		case err == nil && status != http.StatusTooManyRequests && status < 500:
			p.answer(ctx, j)
			p.failed.Add(1)
			p.log.Warn("push: refused by the push service", "status", status)
			return
		case attempt >= p.cfg.Retries:
			p.failed.Add(1)
			p.log.Warn("push: giving up after retries until the interval has passed", "attempts", attempt+1, "status", status, "err", errText(err))
			return
		}
		d := max(wait, retryAfter)
		if d > retryCap {
			d = retryCap
		}
		t := time.NewTimer(d)
		select {
		case <-ctx.Done():
			t.Stop()
			return
		case <-t.C:
		}
		wait *= 2
	}
}

// errText is err's message without the URL net/http puts in it (the
// endpoint identifies the device at its push service).
func errText(err error) string {
	if err == nil {
		return ""
	}
	var ue *url.Error
	if errors.As(err, &ue) {
		return ue.Err.Error()
	}
	return err.Error()
}

// Payload is what every push carries: nothing (the client shows fixed
// text and syncs).
var Payload = []byte{}

// send makes one attempt and returns the push service's status and the
// Retry-After it asked for.
func (p *Pusher) send(ctx context.Context, keys *vapidKeys, sub Subscription) (int, time.Duration, error) {
	subject := p.cfg.Contact
	// webpush-go adds "mailto:" to a subject that is not an https URL.
	subject = strings.TrimPrefix(subject, "mailto:")
	resp, err := webpush.SendNotificationWithContext(ctx, Payload, &webpush.Subscription{
		Endpoint: sub.Endpoint,
		Keys:     webpush.Keys{P256dh: b64url(sub.P256dh), Auth: b64url(sub.Auth)},
	}, &webpush.Options{
		HTTPClient:      p.client,
		RecordSize:      recordSize,
		Subscriber:      subject,
		Topic:           topic,
		TTL:             ttl,
		Urgency:         urgency,
		VAPIDPublicKey:  keys.public,
		VAPIDPrivateKey: keys.private,
	})
	if err != nil {
		return 0, 0, fmt.Errorf("sending a push: %w", err)
	}
	defer resp.Body.Close()
	var retryAfter time.Duration
	if s, err := strconv.Atoi(resp.Header.Get("Retry-After")); err == nil && s > 0 {
		retryAfter = time.Duration(s) * time.Second
	}
	return resp.StatusCode, retryAfter, nil
}
