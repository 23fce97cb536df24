package push

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"
)

// The durable decision to push (ADR 0087). Its state is three columns of
// a device's push_subscriptions row:
//
//	wake_seq    the seq of the newest envelope that should wake the
//	            device, written by the accepting statement (queue.AcceptSQL)
//	            in the transaction that queues it
//	pushed_seq  the wake_seq already answered: by a push the push service
//	            took (or refused for good), or by the device itself, once
//	            that envelope has left its queue
//	pushed_at   when the last push was claimed, by any instance
//
// A device is due a push while wake_seq > pushed_seq, the envelope at
// wake_seq is still queued, the device streams nowhere, and pushed_at is
// older than the interval. Whatever this process forgets (a crash between
// the commit and the push, a restart, a full queue), the rows keep, and
// the next sweep of any instance claims it.

// claimSQL claims the pushes of the devices due one, among those filter
// admits, at most $5 of them: it sets pushed_at in the statement that
// decides, so that two instances never both push a device within the
// interval, and returns each device's subscription and the wake_seq its
// push answers. Rows another transaction holds (an accept writing
// wake_seq, another claim) are skipped, never waited for: that accept
// signals once it commits, and the other claim has them.
//
// No open stream means devices.stream_instance is empty, or names another
// instance whose heartbeat is older than PresenceTTL (ADR 0055). This
// instance is alive by definition: its streams clear their mark when they
// end.
//
// Parameters: $1 now, $2 the end of pushes within the interval, $3 this
// instance, $4 PresenceTTL in seconds, $5 the most to claim, $6 (signalled
// only) the device ids.
const claimSQL = `
UPDATE push_subscriptions s SET pushed_at = $1
WHERE s.device_id IN (
    SELECT c.device_id FROM push_subscriptions c
      JOIN devices d ON d.id = c.device_id
      LEFT JOIN relay_instances i ON i.id = d.stream_instance
    WHERE %s
      AND c.wake_seq > c.pushed_seq
      AND (c.pushed_at IS NULL OR c.pushed_at <= $2)
      AND d.revoked_at IS NULL
      AND (d.stream_instance IS NULL
           OR (d.stream_instance <> $3 AND (i.seen_at IS NULL OR i.seen_at < now() - make_interval(secs => $4))))
      AND EXISTS (SELECT 1 FROM queue q WHERE q.device_id = c.device_id AND q.seq = c.wake_seq)
    LIMIT $5
    FOR UPDATE OF c SKIP LOCKED)
RETURNING s.device_id, s.endpoint, s.p256dh, s.auth, s.wake_seq`

var (
	// claimSignalled looks only at the devices a signal named, by key.
	claimSignalled = fmt.Sprintf(claimSQL, `c.device_id = ANY ($6::text[])`)
	// claimSwept looks at every subscription: the sweep.
	claimSwept = fmt.Sprintf(claimSQL, `true`)
)

// claim claims the pushes of the devices due one (among ids; all when ids
// is nil), no more than the workers' queue has room for, queues them, and
// returns how many it claimed. What does not fit stays due in the
// database for the next sweep.
func (p *Pusher) claim(ctx context.Context, ids []string) (int, error) {
	p.claiming.Lock()
	defer p.claiming.Unlock()
	room := cap(p.jobs) - len(p.jobs)
	if room == 0 {
		return 0, nil
	}
	now := p.cfg.Now()
	args := []any{now, now.Add(-p.cfg.Interval), p.cfg.Instance, p.cfg.PresenceTTL.Seconds(), room}
	sql := claimSwept
	if ids != nil {
		sql = claimSignalled
		args = append(args, ids)
	}
	rows, err := p.pool().Query(ctx, sql, args...)
	if err != nil {
		return 0, err
	}
	jobs, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (job, error) {
		var j job
		err := r.Scan(&j.device, &j.sub.Endpoint, &j.sub.P256dh, &j.sub.Auth, &j.seq)
		return j, err
	})
	if err != nil {
		return 0, err
	}
	p.claimed.Add(int64(len(jobs)))
	for _, j := range jobs {
		// Never blocks: at most room were claimed, and only claims,
		// one at a time, add to jobs.
		p.jobs <- j
	}
	return len(jobs), nil
}

// answer records that j's push answered its wake-up. Only for the same
// subscription: one made since starts afresh. A failure costs at most
// one more push, once the interval has passed.
func (p *Pusher) answer(ctx context.Context, j job) {
	_, err := p.pool().Exec(ctx, `UPDATE push_subscriptions SET pushed_seq = greatest(pushed_seq, $3)
		WHERE device_id = $1 AND endpoint = $2`, j.device, j.sub.Endpoint, j.seq)
	if err != nil && ctx.Err() == nil {
		p.log.Warn("push: recording a push failed; it may be sent again after the interval", "err", err)
	}
}

// answeredSQL forgets the wake-ups whose envelope has left the queue (the
// device read and ACKed it, on a stream here or on another instance), so
// that the sweep's reading of the table stays a reading of the few rows
// with something to do. seen is read from the statement's snapshot;
// locking then re-reads each row, and the check wake_seq = seen.wake_seq
// drops a row whose wake_seq has moved on since: a wake-up that committed
// meanwhile is never taken for answered. Rows held by others are skipped
// (an accept in a group holds several, and waiting here could deadlock
// with it).
const answeredSQL = `
WITH seen AS (
    SELECT c.device_id, c.wake_seq FROM push_subscriptions c
    WHERE c.wake_seq > c.pushed_seq
      AND NOT EXISTS (SELECT 1 FROM queue q WHERE q.device_id = c.device_id AND q.seq = c.wake_seq)
), locked AS (
    SELECT c.device_id, seen.wake_seq FROM push_subscriptions c JOIN seen ON seen.device_id = c.device_id
    WHERE c.wake_seq = seen.wake_seq
    FOR UPDATE OF c SKIP LOCKED
)
UPDATE push_subscriptions s SET pushed_seq = l.wake_seq FROM locked l WHERE s.device_id = l.device_id`

func (p *Pusher) answered(ctx context.Context) error {
	_, err := p.pool().Exec(ctx, answeredSQL)
	return err
}
