package queue

import (
	"context"
	"time"
)

// GroupResult is one envelope's answer from CommitGroup.
type GroupResult struct {
	TS  int64
	Dup bool
	DS  []Delivery
	Err error
}

// CommitGroup commits envs as one group, as a worker does when they arrive
// together, so that tests choose the group instead of the scheduler.
func (c *Committer) CommitGroup(ctx context.Context, envs []*Envelope, expires, now time.Time) []GroupResult {
	group := make([]*acceptReq, len(envs))
	for i, e := range envs {
		group[i] = &acceptReq{ctx: ctx, e: e, expires: expires, now: now, done: make(chan acceptResult, 1)}
	}
	c.commit(ctx, group)
	out := make([]GroupResult, len(envs))
	for i, r := range group {
		res := <-r.done
		out[i] = GroupResult{res.ts, res.dup, res.ds, res.err}
	}
	return out
}

// CommitBatchOnly runs a group's single batch, without the fallback to one
// transaction per envelope.
func (c *Committer) CommitBatchOnly(ctx context.Context, envs []*Envelope, expires, now time.Time) error {
	group := make([]*acceptReq, len(envs))
	for i, e := range envs {
		group[i] = &acceptReq{ctx: ctx, e: e, expires: expires, now: now}
	}
	_, err := c.commitGroup(ctx, group)
	return err
}

// AcceptArgs are AcceptSQL's parameters for e, so that a test can run a
// variant of the statement with them.
func AcceptArgs(e *Envelope, expires, now time.Time) []any { return acceptArgs(e, expires, now) }

// AckResult is one ACK's answer from AckGroup.
type AckResult struct {
	Deleted int64
	Err     error
}

// AckGroup runs the ACKs (devs[i], upTos[i]) as one group, as a worker
// does when they arrive together, so that tests choose the group instead
// of the scheduler. ctxs, when not nil, are the ACKs' own contexts.
func (a *Acker) AckGroup(ctx context.Context, devs []string, upTos []int64, ctxs []context.Context) []AckResult {
	group := make([]*ackReq, len(devs))
	for i := range devs {
		rctx := ctx
		if ctxs != nil {
			rctx = ctxs[i]
		}
		group[i] = &ackReq{ctx: rctx, device: devs[i], upTo: upTos[i], done: make(chan ackResult, 1)}
	}
	a.run(ctx, group)
	out := make([]AckResult, len(devs))
	for i, r := range group {
		res := <-r.done
		out[i] = AckResult{res.deleted, res.err}
	}
	return out
}
