package hub

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"log/slog"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"relay/devices"
)

// The bus carries news between relay instances that share one PostgreSQL,
// through LISTEN/NOTIFY on a dedicated connection (ADR 0016):
//
//	relay_wake    "<instance> <device> <device> …"  these queues grew
//	relay_stream  "a <instance> <device> <gen>"     a stream opened
//	              "r <instance> <device>"           a device was revoked
//	              "e <reason> <device> <device> …"  end these streams
//	              "h"                               a new epoch began: end every stream
//	relay_auth    "<account id>"                    forget its cached sessions
//
// An "e" notice is sent inside the transaction of the change that ends the
// streams (NotifyEnded), so PostgreSQL delivers it on commit and never for
// a change rolled back; it may come from a process that is no relay
// instance (relay admin), so every instance handles it, its sender too.
//
// Correctness never depends on a notification arriving: the catch-up check
// (Hub.catchUpOnce) compares every local stream with its device row at a
// bounded interval and does what a lost notification would have done.
const (
	chanWake   = "relay_wake"
	chanStream = "relay_stream"

	// wakeBatch bounds the device ids in one notification (27 bytes
	// each) well under PostgreSQL's 8000-byte payload limit.
	wakeBatch = 200
	// wakeDelay is how long wake-ups wait to share one NOTIFY: one
	// NOTIFY takes a cluster-wide lock at commit, so fewer is cheaper.
	wakeDelay = 2 * time.Millisecond
)

type bus struct {
	pool     *pgxpool.Pool
	hub      *Hub
	log      *slog.Logger
	instance string
	enabled  bool
	sessions Sessions // nil: no session cache to keep told

	// Sending starts with Run; what is queued before waits for it, and a
	// full queue drops (the catch-up check covers it).
	wakes   chan string // device ids to wake on other instances
	notices chan string // stream events, sent as they come

	// Counters, for the metrics.
	received atomic.Int64 // notifications received from other instances
	dropped  atomic.Int64 // wake-ups dropped because the queue was full
}

func newBus(pool *pgxpool.Pool, h *Hub, log *slog.Logger, enabled bool) *bus {
	b := make([]byte, 8)
	_, _ = rand.Read(b)
	return &bus{pool: pool, hub: h, log: log, instance: hex.EncodeToString(b), enabled: enabled,
		wakes: make(chan string, 4096), notices: make(chan string, 1024)}
}

// wake asks other instances to wake these devices' streams. It never
// blocks a sender: when the queue is full the wake-up is dropped and the
// catch-up check delivers within its interval.
func (b *bus) wake(devices []string) {
	if !b.enabled {
		return
	}
	for _, d := range devices {
		select {
		case b.wakes <- d:
		default:
			b.dropped.Add(1)
		}
	}
}

func (b *bus) notice(msg string) {
	if !b.enabled {
		return
	}
	select {
	case b.notices <- msg:
	default: // the catch-up check will see the generation
	}
}

// announce tells other instances that this one opened a device stream.
func (b *bus) announce(device string, gen int64) {
	b.notice("a " + b.instance + " " + device + " " + strconv.FormatInt(gen, 10))
}

// revoked tells other instances to end the device's stream.
func (b *bus) revoked(device string) {
	b.notice("r " + b.instance + " " + device)
}

// NotifyEnded queues, inside tx, the notice that ends these devices'
// streams on every relay instance with reason (one of ReasonRevoked,
// ReasonDeleted, ReasonDisabled, ReasonLoggedOut); PostgreSQL sends it
// when tx commits. The hub of the caller's own instance is told with
// Hub.Ended after the commit. Streams whose notice is lost end at the
// next catch-up check, but for ReasonLoggedOut, which that check cannot
// see: such a stream lasts until it reconnects (docs/protocol.md).
func NotifyEnded(ctx context.Context, tx pgx.Tx, reason string, devices []string) error {
	if !endReasons[reason] {
		return fmt.Errorf("hub: %q is no reason to end a stream", reason)
	}
	for len(devices) > 0 {
		n := min(len(devices), wakeBatch)
		payload := "e " + reason + " " + strings.Join(devices[:n], " ")
		if _, err := tx.Exec(ctx, "SELECT pg_notify($1, $2)", chanStream, payload); err != nil {
			return fmt.Errorf("notifying the relay instances: %w", err)
		}
		devices = devices[n:]
	}
	return nil
}

// NotifyEpoch queues, inside tx, the notice that a new epoch begins when tx
// commits (relay admin new-epoch): every relay instance ends its streams
// with ReasonRewound, so that clients learn the epoch at once. The
// catch-up check does the same within its interval when the notice is
// lost.
func NotifyEpoch(ctx context.Context, tx pgx.Tx) error {
	if _, err := tx.Exec(ctx, "SELECT pg_notify($1, 'h')", chanStream); err != nil {
		return fmt.Errorf("notifying the relay instances: %w", err)
	}
	return nil
}

// send delivers queued wake-ups and notices until ctx ends.
func (b *bus) send(ctx context.Context) {
	var batch []string
	timer := time.NewTimer(time.Hour)
	timer.Stop()
	flush := func() {
		if len(batch) == 0 {
			return
		}
		payload := b.instance + " " + strings.Join(batch, " ")
		batch = batch[:0]
		if _, err := b.pool.Exec(ctx, "SELECT pg_notify($1, $2)", chanWake, payload); err != nil && ctx.Err() == nil {
			b.log.Debug("notify failed; the catch-up check covers it", "err", err)
		}
	}
	for {
		select {
		case <-ctx.Done():
			return
		case d := <-b.wakes:
			if len(batch) == 0 {
				timer.Reset(wakeDelay)
			}
			batch = append(batch, d)
			if len(batch) >= wakeBatch {
				timer.Stop()
				flush()
			}
		case <-timer.C:
			flush()
		case n := <-b.notices:
			if _, err := b.pool.Exec(ctx, "SELECT pg_notify($1, $2)", chanStream, n); err != nil && ctx.Err() == nil {
				b.log.Debug("notify failed; the catch-up check covers it", "err", err)
			}
		}
	}
}

// listen receives other instances' notifications on a dedicated
// connection, reconnecting with backoff. After every (re)connect it wakes
// all local streams, since notifications may have been missed meanwhile.
func (b *bus) listen(ctx context.Context) {
	backoff := 100 * time.Millisecond
	for ctx.Err() == nil {
		err := b.listenOnce(ctx)
		if ctx.Err() != nil {
			return
		}
		b.log.Warn("lost the notification connection; streams are caught up by the interval check until it is back", "err", err, "retry_in", backoff)
		select {
		case <-ctx.Done():
			return
		case <-time.After(backoff):
		}
		backoff = min(backoff*2, 5*time.Second)
	}
}

func (b *bus) listenOnce(ctx context.Context) error {
	conn, err := pgx.ConnectConfig(ctx, b.pool.Config().ConnConfig.Copy())
	if err != nil {
		return err
	}
	defer func() {
		// ctx has ended or the connection failed: say goodbye, but do
		// not let an unreachable server hold up Run's return.
		cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), time.Second)
		defer cancel()
		conn.Close(cctx)
	}()
	if _, err := conn.Exec(ctx, "LISTEN "+chanWake+"; LISTEN "+chanStream+"; LISTEN "+devices.AuthChannel); err != nil {
		return err
	}
	if b.sessions != nil {
		// From here no notice is missed; until the connection is
		// lost, when the cache is flushed and bypassed again.
		b.sessions.SetListening(true)
		defer b.sessions.SetListening(false)
	}
	b.hub.wakeAll()
	for {
		n, err := conn.WaitForNotification(ctx)
		if err != nil {
			return err
		}
		b.handle(n.Channel, n.Payload)
	}
}

func (b *bus) handle(channel, payload string) {
	f := strings.Fields(payload)
	switch {
	case channel == chanWake && len(f) > 1 && f[0] != b.instance:
		b.received.Add(1)
		for _, d := range f[1:] {
			b.hub.wake(d)
		}
	case channel == chanStream && len(f) == 4 && f[0] == "a" && f[1] != b.instance:
		b.received.Add(1)
		if gen, err := strconv.ParseInt(f[3], 10, 64); err == nil {
			b.hub.newer(f[2], gen)
		}
	case channel == chanStream && len(f) == 3 && f[0] == "r" && f[1] != b.instance:
		b.received.Add(1)
		b.hub.stop(f[2], ReasonRevoked)
	case channel == devices.AuthChannel && b.sessions != nil:
		b.received.Add(1)
		b.sessions.ForgetNotice(payload)
	case channel == chanStream && len(f) == 1 && f[0] == "h":
		b.received.Add(1)
		b.hub.rewindAll()
	case channel == chanStream && len(f) > 2 && f[0] == "e" && endReasons[f[1]]:
		b.received.Add(1)
		b.hub.Ended(f[1], f[2:])
	}
}
