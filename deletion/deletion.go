// Package deletion erases deleted rows from the table files: relay admin
// vacuum, which relay admin delete runs after the deletion
// (docs/operations.md, "relay admin vacuum"; ADR 0060). The deletion
// itself, one transaction, belongs to package lifecycle (ADR 0059,
// ADR 0093).
//
// It never reads a row, and it logs nothing itself.
package deletion

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

// Tables are the relay's tables that hold rows of accounts, in the order
// Vacuum rewrites them. key_packages holds credentials that name their
// account and device (ADR 0100); push_subscriptions a device's id and its
// browser's push endpoint. TestVacuumRewritesEveryAccountTable finds, from
// the schema, any table that can name an account and is missing here.
// attachments names its uploader's account, attachment_fetches the
// devices an attachment waits for; attachment_parts holds the ciphertext,
// whose bytes must leave the files with the row. reports holds plain
// text, the messages a person reported, which must leave the files when
// the report goes (ADR 0118).
var Tables = []string{"accounts", "sessions", "devices", "contacts", "queue", "sent", "held_names", "key_packages", "push_subscriptions",
	"attachments", "attachment_fetches", "attachment_parts", "reports"}

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
