// Package mlsgroup gives each MLS group one order of changes: the relay
// accepts exactly one commit per group and epoch (docs/protocol.md, "POST
// /api/messages", ADR 0099). It owns the mls_groups table, which holds a
// group id and the epoch its next commit must name, and nothing else: no
// member, account, device, name or key.
//
// A commit is queued by package queue's accepting statement, run here
// inside a transaction that first locks the group's row, so the epoch
// check, the queue rows and the new epoch commit or roll back together.
// The package never reads an envelope body; the caller gives it the group
// id and the epoch, read by package mlsheader.
//
// It also owns mls_group_info, each group's latest GroupInfo for external
// joins (info.go, ADR 0101): bytes the members encrypted, which it stores
// and hands back and never reads.
package mlsgroup

import (
	"context"
	"fmt"
	"math"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"relay/queue"
)

// StaleEpochError refuses a commit that names another epoch than the
// group's current one: another commit took that epoch first (the sender
// must apply it and commit again), or the sender is ahead of what the
// relay accepted.
type StaleEpochError struct {
	Current uint64 // the epoch the group's next commit must name
}

func (e *StaleEpochError) Error() string {
	return fmt.Sprintf("the group is at epoch %d", e.Current)
}

// Accept queues e, a commit to the group groupID made at epoch, as
// queue.Accept does, if and only if epoch is the group's current epoch,
// and then moves the group to the next epoch; all in one transaction,
// under the group's row lock. A group the relay has not seen is at epoch
// 0, and its first accepted commit creates its row.
//
// A resend of an envelope the account already sent (its id is known) is
// answered from its record whatever the group's epoch now, as any resend
// is (dup true, or queue.ErrIDConflict), and changes nothing. Any other
// commit at another epoch is *StaleEpochError, and changes nothing.
func Accept(ctx context.Context, pool *pgxpool.Pool, e *queue.Envelope, groupID []byte, epoch uint64, expires, now time.Time) (ts int64, dup bool, ds []queue.Delivery, err error) {
	err = pgx.BeginFunc(ctx, pool, func(tx pgx.Tx) error {
		// The row is made first so that there is one to lock: two first
		// commits of a new group then wait for each other like any two
		// commits. A refused commit rolls the new row back.
		if _, err := tx.Exec(ctx, `INSERT INTO mls_groups (group_id, epoch) VALUES ($1, 0) ON CONFLICT DO NOTHING`, groupID); err != nil {
			return fmt.Errorf("making the group's row: %w", err)
		}
		// The lock orders this group's commits: whoever holds it reads
		// the epoch that the commits before it left, and its own queue
		// rows are committed before the next commit can read the epoch.
		// It is taken before the device rows the accept locks, and only
		// one group's row is locked per transaction, so it adds no cycle
		// to the device locks' order (ADR 0002).
		var current int64
		if err := tx.QueryRow(ctx, `SELECT epoch FROM mls_groups WHERE group_id = $1 FOR UPDATE`, groupID).Scan(&current); err != nil {
			return fmt.Errorf("locking the group: %w", err)
		}
		// A resend of an accepted commit names the epoch it was accepted
		// at, which is no longer current: it is recognised by its id
		// first, as every send is (ADR 0084).
		var found bool
		if ts, found, err = queue.Remembered(ctx, tx, e); found || err != nil {
			dup = found && err == nil
			return err
		}
		if epoch > math.MaxInt64 || int64(epoch) != current {
			return &StaleEpochError{Current: uint64(current)}
		}
		if ts, dup, ds, err = queue.Accept(ctx, tx, e, expires, now); err != nil || dup {
			return err
		}
		if _, err := tx.Exec(ctx, `UPDATE mls_groups SET epoch = epoch + 1, updated_at = $2 WHERE group_id = $1`, groupID, now); err != nil {
			return fmt.Errorf("moving the group to its next epoch: %w", err)
		}
		return nil
	})
	if err != nil {
		return 0, false, nil, err
	}
	return ts, dup, ds, nil
}
