package audit

import (
	"context"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

// DeviceQueue is one device's queue in numbers.
type DeviceQueue struct {
	Device  string
	Account string
	Queued  int64
	Bytes   int64
	Oldest  time.Duration // age of the oldest queued envelope
	Revoked bool
}

// Stats is what the relay holds at one moment: counts and sizes only.
type Stats struct {
	Accounts           int64
	DisabledAccounts   int64 // accounts an operator disabled
	HeldNames          int64 // usernames of deleted accounts held back
	RecoveryBlobs      int64 // accounts with a recovery blob
	Devices            int64
	RevokedDevices     int64
	Sessions           int64
	ExpiredSessions    int64
	IdempotencyRecords int64
	Contacts           int64
	Queued             int64
	QueuedBytes        int64
	Attachments        int64         // stored, finished or not, expired ones not yet purged included
	AttachmentBytes    int64         // their declared sizes
	PerDevice          []DeviceQueue // devices with a non-empty queue
}

// ReadStats reads the counts. It reads no envelope body, only its length,
// and no recovery blob, only whether there is one.
func ReadStats(ctx context.Context, pool *pgxpool.Pool, now time.Time) (*Stats, error) {
	s := &Stats{}
	err := pool.QueryRow(ctx, `SELECT
		(SELECT count(*) FROM accounts),
		(SELECT count(*) FROM accounts WHERE disabled_at IS NOT NULL),
		(SELECT count(*) FROM held_names),
		(SELECT count(*) FROM accounts WHERE recovery_blob IS NOT NULL),
		(SELECT count(*) FROM devices WHERE revoked_at IS NULL),
		(SELECT count(*) FROM devices WHERE revoked_at IS NOT NULL),
		(SELECT count(*) FROM sessions WHERE expires_at > $1),
		(SELECT count(*) FROM sessions WHERE expires_at <= $1),
		(SELECT count(*) FROM sent),
		(SELECT count(*) FROM contacts),
		(SELECT count(*) FROM queue),
		(SELECT coalesce(sum(octet_length(body)), 0) FROM queue),
		(SELECT count(*) FROM attachments),
		(SELECT coalesce(sum(size), 0) FROM attachments)`, now).Scan(
		&s.Accounts, &s.DisabledAccounts, &s.HeldNames, &s.RecoveryBlobs, &s.Devices, &s.RevokedDevices, &s.Sessions, &s.ExpiredSessions,
		&s.IdempotencyRecords, &s.Contacts, &s.Queued, &s.QueuedBytes, &s.Attachments, &s.AttachmentBytes)
	if err != nil {
		return nil, err
	}
	rows, err := pool.Query(ctx, `SELECT q.device_id, a.username, count(*), sum(octet_length(q.body)), min(q.ts), d.revoked_at IS NOT NULL
		FROM queue q JOIN devices d ON d.id = q.device_id JOIN accounts a ON a.id = d.account_id
		GROUP BY q.device_id, a.username, d.revoked_at ORDER BY min(q.ts)`)
	if err != nil {
		return nil, err
	}
	s.PerDevice, err = pgx.CollectRows(rows, func(row pgx.CollectableRow) (DeviceQueue, error) {
		var d DeviceQueue
		var oldest int64
		err := row.Scan(&d.Device, &d.Account, &d.Queued, &d.Bytes, &oldest, &d.Revoked)
		d.Oldest = now.Sub(time.UnixMilli(oldest))
		return d, err
	})
	return s, err
}
