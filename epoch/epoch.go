// Package epoch names the history that every device's seq numbers belong
// to (ADR 0086). A device's seq only grows, but only within one history of
// the database: a restore from a backup, a point-in-time recovery or the
// promotion of an asynchronous replica can take it back, and seq numbers a
// client has already seen then name other envelopes. The relay tells each
// stream its epoch (docs/protocol.md, "event: epoch"); a client that sees
// another epoch than the one its cursor belongs to must not trust that
// cursor.
//
// The epoch is read from PostgreSQL, so every relay instance on one
// database gives the same answer without talking to the others. It is
// made of:
//   - the cluster's system identifier: a new cluster (initdb, a logical
//     restore into another cluster);
//   - the timeline WAL is written on: a promotion, a point-in-time
//     recovery;
//   - the oid of the database and of the devices table: a logical restore
//     (pg_restore, psql < dump) into a new database or over the old one
//     creates them anew;
//   - a token the relay stores (table relay_epoch), which `relay admin
//     new-epoch` replaces: what PostgreSQL cannot see, such as a physical
//     backup started as it was saved.
//
// Package epoch reads and renews; it never decides what a stream does.
package epoch

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"strconv"

	"github.com/jackc/pgx/v5"
)

// Querier is what Read asks: a pool, a connection or a transaction.
type Querier interface {
	QueryRow(ctx context.Context, sql string, args ...any) pgx.Row
}

// Parts are what an epoch is made of (see the package comment).
type Parts struct {
	System   int64  // pg_control_system().system_identifier
	Timeline string // the WAL insert timeline, 8 hex digits
	Database uint32 // the database's oid
	Devices  uint32 // the devices table's oid
	Token    string // relay_epoch.token
}

// String is the epoch: 16 hex digits of a hash of the parts. Clients
// compare it for equality and never read it.
func (p Parts) String() string {
	h := sha256.Sum256([]byte(strconv.FormatInt(p.System, 10) + "/" + p.Timeline + "/" +
		strconv.FormatUint(uint64(p.Database), 10) + "/" + strconv.FormatUint(uint64(p.Devices), 10) + "/" + p.Token))
	return hex.EncodeToString(h[:8])
}

// readSQL reads the parts in one statement. The timeline is the one WAL is
// written on now, from the name of the current WAL file:
// pg_control_checkpoint().timeline_id changes only once the first
// checkpoint after a promotion completes, which may take minutes.
const readSQL = `
SELECT s.system_identifier,
       substr(pg_walfile_name(pg_current_wal_lsn()), 1, 8),
       (SELECT oid FROM pg_database WHERE datname = current_database()),
       'devices'::regclass::oid,
       (SELECT token FROM relay_epoch)
FROM pg_control_system() s`

// Read reads the parts of the database's epoch now.
func Read(ctx context.Context, q Querier) (Parts, error) {
	var p Parts
	if err := q.QueryRow(ctx, readSQL).Scan(&p.System, &p.Timeline, &p.Database, &p.Devices, &p.Token); err != nil {
		return Parts{}, fmt.Errorf("reading the epoch: %w", err)
	}
	return p, nil
}

// Renew replaces the relay's token inside tx, which starts a new epoch
// when tx commits: `relay admin new-epoch`, after a restore.
func Renew(ctx context.Context, tx pgx.Tx) error {
	b := make([]byte, 16)
	_, _ = rand.Read(b)
	tag, err := tx.Exec(ctx, `UPDATE relay_epoch SET token = $1, renewed_at = now()`, hex.EncodeToString(b))
	if err != nil {
		return fmt.Errorf("renewing the epoch: %w", err)
	}
	if tag.RowsAffected() != 1 {
		return fmt.Errorf("renewing the epoch: relay_epoch holds %d rows, not 1", tag.RowsAffected())
	}
	return nil
}
