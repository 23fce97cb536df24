package queue

import (
	"context"
	"fmt"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

// Committer accepts envelopes like Accept, but commits envelopes that
// arrive while earlier ones are being committed together, in one
// transaction: one round trip and one WAL flush for the group instead of
// one per envelope (ADR 0018). An answer still comes only after the
// envelope's own group has committed, so a 202 still means committed.
//
// Workers each take one waiting envelope, then every other one waiting up
// to MaxGroup, and commit them (lanes.go).
type Committer struct {
	pool   *pgxpool.Pool
	lanes  *lanes[*acceptReq]
	failed atomic.Int64 // groups that failed and were accepted one by one

	// Grouped, when set, is told the size of every group committed.
	Grouped func(n int)
}

// acceptReq is one envelope waiting for its group.
type acceptReq struct {
	ctx          context.Context
	e            *Envelope
	expires, now time.Time
	done         chan acceptResult // capacity 1: the worker never blocks
}

type acceptResult struct {
	ts  int64
	dup bool
	ds  []Delivery
	err error
}

// Default sizes of a Committer, chosen by make bench (docs/performance.md).
const (
	DefaultCommitWorkers = 2
	DefaultMaxGroup      = 64
)

// NewCommitter returns a Committer with the given number of concurrent
// group commits and largest group; zero takes the defaults. It starts
// nothing: call Run.
func NewCommitter(pool *pgxpool.Pool, workers, maxGroup int) *Committer {
	if workers <= 0 {
		workers = DefaultCommitWorkers
	}
	if maxGroup <= 0 {
		maxGroup = DefaultMaxGroup
	}
	c := &Committer{pool: pool}
	c.lanes = newLanes(workers, maxGroup, true, c.commit)
	return c
}

// Run commits groups until ctx ends, and returns when its workers have. A
// group in flight then is finished (its requests are waiting for their
// answers). Before Run starts and after it returns, Accept commits each
// envelope alone, so a relay that serves before its background work starts,
// or drains its requests on the way down, still stores what it is sent.
// Call it once.
func (c *Committer) Run(ctx context.Context) { c.lanes.Run(ctx) }

// Failed is how many groups failed as a whole and were then accepted one
// envelope at a time.
func (c *Committer) Failed() int64 { return c.failed.Load() }

// Accept stores e as Accept does, in the group it is committed with.
func (c *Committer) Accept(ctx context.Context, e *Envelope, expires, now time.Time) (ts int64, dup bool, ds []Delivery, err error) {
	r := &acceptReq{ctx: ctx, e: e, expires: expires, now: now, done: make(chan acceptResult, 1)}
	// Once a worker has the envelope it may commit it, so wait for the
	// answer even if the client has gone: the handler must not report a
	// failure for a commit that happens.
	switch queued, err := c.lanes.submit(ctx, 0, r); {
	case err != nil:
		return 0, false, nil, err
	case !queued:
		return Accept(ctx, c.pool, e, expires, now)
	}
	res := <-r.done
	return res.ts, res.dup, res.ds, res.err
}

// commit commits group and answers each of its envelopes.
func (c *Committer) commit(ctx context.Context, group []*acceptReq) {
	// An envelope whose client left before its group formed is dropped
	// here, before anything is written for it.
	live := group[:0]
	for _, r := range group {
		if err := r.ctx.Err(); err != nil {
			r.done <- acceptResult{err: err}
			continue
		}
		live = append(live, r)
	}
	group = live
	if len(group) == 0 {
		return
	}
	if c.Grouped != nil {
		c.Grouped(len(group))
	}
	if len(group) == 1 {
		r := group[0]
		ts, dup, ds, err := Accept(ctx, c.pool, r.e, r.expires, r.now)
		r.done <- acceptResult{ts, dup, ds, err}
		return
	}
	results, err := c.commitGroup(ctx, group)
	if err != nil {
		c.failed.Add(1)
		// The group's transaction rolled back as a whole, so nothing of
		// it was written. One envelope may be at fault (or a deadlock
		// with another instance): accept each alone, so that it gets its
		// own answer and the others are not held back by it.
		for _, r := range group {
			ts, dup, ds, err := Accept(ctx, c.pool, r.e, r.expires, r.now)
			r.done <- acceptResult{ts, dup, ds, err}
		}
		return
	}
	for i, r := range group {
		res := results[i]
		if res.err == nil && res.dup {
			// The record was there already (an earlier send, or an
			// earlier envelope of this group): compare it as Accept
			// does, now that the group has committed.
			res.ts, res.err = resent(ctx, c.pool, r.e)
			res.dup = res.err == nil
		}
		r.done <- res
	}
}

// lockTargetsSQL locks, in id order, every device row the group's
// statements will lock, before any of them runs. Each AcceptSQL locks its
// own devices in id order, but a group runs several, and two groups taking
// the same devices in different statement order could deadlock; taking
// them all first, in one order, prevents that. Each statement still takes
// its envelope's ts from its devices' last ts, which the group's earlier
// statements have raised, so within a group too ts order is seq order.
const lockTargetsSQL = `SELECT 1 FROM devices WHERE account_id = ANY ($1::bigint[]) AND revoked_at IS NULL ORDER BY id FOR UPDATE`

// commitGroup runs AcceptSQL for each envelope of group as one batch: the
// statements and a single Sync go out together, and PostgreSQL runs them
// in one implicit transaction that commits at the Sync, all or nothing.
// Results are only trusted once the batch has closed without error, which
// means the commit happened.
func (c *Committer) commitGroup(ctx context.Context, group []*acceptReq) ([]acceptResult, error) {
	var b pgx.Batch
	var accounts []int64
	seen := map[int64]bool{}
	for _, r := range group {
		targets, _ := r.e.targets()
		for _, a := range targets {
			if !seen[a] {
				seen[a] = true
				accounts = append(accounts, a)
			}
		}
	}
	b.Queue(lockTargetsSQL, accounts)
	for _, r := range group {
		b.Queue(AcceptSQL, acceptArgs(r.e, r.expires, r.now)...)
	}
	br := c.pool.SendBatch(ctx, &b)
	results := make([]acceptResult, len(group))
	var err error
	if _, err = br.Exec(); err == nil {
		for i := range group {
			var fresh, ts int64
			var ids, tos []string
			var seqs []int64
			if err = br.QueryRow().Scan(&fresh, &ts, &ids, &seqs, &tos); err != nil {
				break
			}
			if fresh == 1 {
				results[i] = acceptResult{ts: ts, ds: deliveries(ids, seqs, tos)}
			} else {
				results[i] = acceptResult{dup: true}
			}
		}
	}
	if cerr := br.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return nil, fmt.Errorf("accepting a group of %d: %w", len(group), err)
	}
	// Only now that the group has committed: after a failure each
	// envelope is accepted again from the relay's clock at its request.
	for i, r := range group {
		if !results[i].dup {
			r.e.TS = results[i].ts
		}
	}
	return results, nil
}
