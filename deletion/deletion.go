// Package deletion deletes an account and everything the relay holds of
// it, in one transaction, and erases deleted rows from the table files
// (docs/protocol.md, "DELETE /api/account"; docs/operations.md, "relay
// admin delete" and "relay admin vacuum"; ADR 0059).
//
// It composes the tables' owners (package devices for accounts, sessions,
// devices, contacts and held names; package queue for queues and
// idempotency records) and tells every relay instance, through package
// hub, to end the account's streams with event: deleted. It never reads an
// envelope body or a key, and it logs nothing itself.
package deletion

import (
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"relay/devices"
	"relay/hub"
	"relay/queue"
)

// Notifier queues, inside the deletion's transaction, the notice that ends
// the devices' streams on every relay instance: hub.NotifyEnded, or a
// Hub's method of that name.
type Notifier func(ctx context.Context, tx pgx.Tx, reason string, devices []string) error

// Delete deletes the account of username and holds the name for hold:
// every row of the account in every table of the relay goes, or none does.
// An unknown username, and an account deleted meanwhile, is
// devices.ErrUnknownAccount. The caller ends the streams of the returned
// devices on its own instance (hub.Hub.Ended) once Delete has returned;
// notify has told the others, on commit.
func Delete(ctx context.Context, pool *pgxpool.Pool, store *devices.Store, username string, hold time.Duration, notify Notifier) (devices.Deleted, error) {
	var d devices.Deleted
	err := pgx.BeginFunc(ctx, pool, func(tx pgx.Tx) error {
		acc, err := store.LockForDeletion(ctx, tx, username)
		if err != nil {
			return err
		}
		// Before the devices go: DropAccount finds the queues through them.
		if err := queue.DropAccount(ctx, tx, acc.ID, acc.Username); err != nil {
			return err
		}
		if d, err = store.DeleteAccount(ctx, tx, acc, hold); err != nil {
			return err
		}
		return notify(ctx, tx, hub.ReasonDeleted, d.Devices)
	})
	if err != nil {
		return devices.Deleted{}, fmt.Errorf("deleting an account: %w", err)
	}
	return d, nil
}

// Tables are the relay's tables that hold rows of accounts, in the order
// Vacuum rewrites them.
var Tables = []string{"accounts", "sessions", "devices", "contacts", "queue", "sent", "held_names"}

// Vacuum rewrites each of Tables with VACUUM FULL and then runs CHECKPOINT.
// ANALYZE, in the same statement, rebuilds the planner's statistics from
// the live rows, so that their samples (usernames among them) no longer
// name a deleted account.
// A plain VACUUM marks a deleted row's space free but leaves its bytes in
// the page until a new row overwrites them; VACUUM FULL writes the live
// rows into new files and removes the old ones, indexes and TOAST
// included, so the deleted bytes leave the table files. Each table is
// locked (ACCESS EXCLUSIVE) while it is rewritten: sends and stream reads
// wait, for about as long as copying the table takes. The CHECKPOINT lets
// PostgreSQL remove the old files at once. It needs a role that owns the
// tables, and CHECKPOINT one with pg_checkpoint or superuser; a CHECKPOINT
// refused is reported as such, after the rewrite.
func Vacuum(ctx context.Context, pool *pgxpool.Pool) error {
	for _, t := range Tables {
		// VACUUM cannot run inside a transaction block: each is a
		// statement of its own, on the pool.
		if _, err := pool.Exec(ctx, "VACUUM (FULL, ANALYZE) "+pgx.Identifier{t}.Sanitize()); err != nil {
			return fmt.Errorf("VACUUM (FULL, ANALYZE) %s: %w", t, err)
		}
	}
	if _, err := pool.Exec(ctx, "CHECKPOINT"); err != nil {
		return fmt.Errorf("CHECKPOINT (the tables were rewritten): %w", err)
	}
	return nil
}
