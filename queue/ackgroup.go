package queue

import (
	"context"
	"hash/maphash"
	"sync/atomic"

	"github.com/jackc/pgx/v5/pgxpool"
)

// Acker acknowledges like Ack, but runs the ACKs that arrive while earlier
// ones are being deleted together, in one AckSQL statement: one round trip
// and one commit for the group instead of one per ACK (ADR 0070). An answer
// still comes only after the statement of its group has committed.
//
// Each worker owns the devices whose ids hash to it, so one device is never
// in two groups at once on one relay: two groups never wait for each
// other's queue rows, and cannot deadlock. As with the Committer, a worker
// takes one waiting ACK, then every other one waiting up to the largest
// group, so an idle relay runs each ACK alone and at once; nothing waits
// for a timer.
type Acker struct {
	pool   *pgxpool.Pool
	lanes  *lanes[*ackReq] // one per worker
	seed   maphash.Seed
	failed atomic.Int64 // groups that failed and were run one by one

	// Grouped, when set, is told the size of every group run.
	Grouped func(n int)
}

// ackReq is one ACK waiting for its group.
type ackReq struct {
	ctx    context.Context
	device string
	upTo   int64
	done   chan ackResult // capacity 1: the worker never blocks
}

// Default sizes of an Acker, chosen by make bench (docs/performance.md).
const (
	DefaultAckWorkers  = 2
	DefaultMaxAckGroup = 128
)

// NewAcker returns an Acker with the given number of concurrent groups and
// largest group; zero takes the defaults. It starts nothing: call Run.
func NewAcker(pool *pgxpool.Pool, workers, maxGroup int) *Acker {
	if workers <= 0 {
		workers = DefaultAckWorkers
	}
	if maxGroup <= 0 {
		maxGroup = DefaultMaxAckGroup
	}
	a := &Acker{pool: pool, seed: maphash.MakeSeed()}
	a.lanes = newLanes(workers, maxGroup, false, a.run)
	return a
}

// Run groups ACKs until ctx ends, and returns when its workers have. A
// group in flight then is finished. Before Run starts and after it
// returns, Ack runs each ACK alone. Call it once.
func (a *Acker) Run(ctx context.Context) { a.lanes.Run(ctx) }

// Failed is how many groups failed as a whole and were then run one ACK at
// a time.
func (a *Acker) Failed() int64 { return a.failed.Load() }

// Ack deletes deviceID's queue rows up to upTo as Ack does, in the group it
// runs with. The count is of the rows the group deleted for the device,
// which includes those of other ACKs of the same device in that group.
func (a *Acker) Ack(ctx context.Context, deviceID string, upTo int64) (int64, error) {
	r := &ackReq{ctx: ctx, device: deviceID, upTo: upTo, done: make(chan ackResult, 1)}
	// Once a worker has the ACK it may delete the rows, so wait for the
	// answer even if the client has gone.
	switch queued, err := a.lanes.submit(ctx, maphash.String(a.seed, deviceID), r); {
	case err != nil:
		return 0, err
	case !queued:
		return Ack(ctx, a.pool, deviceID, upTo)
	}
	res := <-r.done
	return res.deleted, res.err
}

// run runs group's ACKs in one statement and answers each of them.
func (a *Acker) run(ctx context.Context, group []*ackReq) {
	// An ACK whose client left before its group formed is dropped here,
	// before anything is deleted for it.
	devs := make([]string, 0, len(group))
	upTos := make([]int64, 0, len(group))
	live := make([]*ackReq, 0, len(group))
	for _, r := range group {
		if err := r.ctx.Err(); err != nil {
			r.done <- ackResult{err: err}
			continue
		}
		live = append(live, r)
		devs = append(devs, r.device)
		upTos = append(upTos, r.upTo)
	}
	group = live
	if len(group) == 0 {
		return
	}
	if a.Grouped != nil {
		a.Grouped(len(group))
	}
	res, err := ackAll(ctx, a.pool, devs, upTos)
	if err != nil && len(group) > 1 {
		// The statement failed as a whole (a deadlock with another
		// instance acking the same device, say), so it deleted nothing:
		// run each ACK alone, so that each gets its own answer.
		a.failed.Add(1)
		for _, r := range group {
			n, err := Ack(ctx, a.pool, r.device, r.upTo)
			r.done <- ackResult{n, err}
		}
		return
	}
	for i, r := range group {
		if err != nil {
			r.done <- ackResult{err: err}
			continue
		}
		r.done <- res[i]
	}
}
