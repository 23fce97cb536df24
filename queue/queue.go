// Package queue is where envelopes wait for devices: one queue per device in
// PostgreSQL, fed by fan-out, read in sequence order, emptied by ACK.
//
// Every queue row carries a per-device sequence number, seq, that is gapless
// and in commit order. It is taken from the device row inside the
// transaction that inserts the queue row, under that row's lock (ADR 0002),
// never from a sequence or a clock: a reader that has seen seq n can ask for
// seq > n and never skip a row that commits later.
//
// The queue stores envelope bodies as opaque bytes. It never decrypts, never
// inspects and never logs them.
package queue

import (
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

// Errors the API maps to its stable codes.
var (
	ErrIDConflict = errors.New("envelope id already used for a different envelope")
	ErrBadAck     = errors.New("bad ack")
)

// Envelope is an accepted envelope on its way into the queues.
type Envelope struct {
	ID           string // canonical ULID
	FromAccount  int64
	FromUsername string
	FromDevice   string
	ToAccount    int64
	ToUsername   string
	TS           int64 // Unix milliseconds when the relay accepted it
	Body         []byte
}

// Delivery is one queue row a fan-out wrote.
type Delivery struct {
	DeviceID string
	Seq      int64
}

// Item is one queued envelope as a device reads it.
type Item struct {
	Seq        int64  `json:"seq"`
	ID         string `json:"id"`
	From       string `json:"from"`
	FromDevice string `json:"fromDevice"`
	To         string `json:"to"`
	TS         int64  `json:"ts"`
	Body       []byte `json:"body"`
}

// RememberSQL writes the idempotency record of an accepted envelope. ON
// CONFLICT DO NOTHING waits for a concurrent insert of the same key to
// commit or roll back, so two racing resends cannot both enqueue. Exported,
// like EnqueueSQL, so that benchmarks run exactly the relay's SQL.
const RememberSQL = `INSERT INTO sent (account_id, envelope_id, to_username, body_sha256, ts, expires_at)
	VALUES ($1, $2, $3, $4, $5, $6) ON CONFLICT DO NOTHING`

// Remember records an accepted envelope for idempotency inside the
// transaction that enqueues it, and keeps the record until expires.
//
// It returns dup=true with the original ts when the same account already
// sent this id to the same recipient with the same body: the caller then
// enqueues nothing and answers as it did the first time. The same id with a
// different recipient or body is ErrIDConflict.
func Remember(ctx context.Context, tx pgx.Tx, e *Envelope, expires time.Time) (ts int64, dup bool, err error) {
	sum := sha256.Sum256(e.Body)
	tag, err := tx.Exec(ctx, RememberSQL, e.FromAccount, e.ID, e.ToUsername, sum[:], e.TS, expires)
	if err != nil {
		return 0, false, fmt.Errorf("remembering envelope: %w", err)
	}
	if tag.RowsAffected() == 1 {
		return e.TS, false, nil
	}
	var to string
	var prior []byte
	err = tx.QueryRow(ctx, `SELECT to_username, body_sha256, ts FROM sent WHERE account_id = $1 AND envelope_id = $2`,
		e.FromAccount, e.ID).Scan(&to, &prior, &ts)
	if err != nil {
		return 0, false, fmt.Errorf("reading the earlier envelope: %w", err)
	}
	if to != e.ToUsername || string(prior) != string(sum[:]) {
		return 0, false, ErrIDConflict
	}
	return ts, true, nil
}

// enqueueSQL fans one envelope out to every live device of the recipient and
// of the sender's account except the sending device. It is one statement so
// that its locks and its seq numbers are taken in a single round trip:
//
//   - targets locks the device rows FOR UPDATE in id order. Every fan-out
//     locks in the same order, so two that share devices cannot deadlock;
//     and a device revoked meanwhile is re-checked after the lock wait and
//     dropped.
//   - bumped advances each device's seq under that lock. The lock is held
//     until commit, so the next envelope for the device cannot take seq+1
//     before this one is visible: seq order is commit order.
//   - the INSERT writes one queue row per device with its new seq.
const enqueueSQL = `
WITH targets AS (
    SELECT id FROM devices
    WHERE account_id = ANY ($1::bigint[]) AND revoked_at IS NULL AND id <> $2
    ORDER BY id
    FOR UPDATE
), bumped AS (
    UPDATE devices d SET seq = d.seq + 1
    FROM targets t WHERE d.id = t.id
    RETURNING d.id, d.seq
)
INSERT INTO queue (device_id, seq, envelope_id, from_username, from_device, to_username, ts, body)
SELECT id, seq, $3, $4, $2, $5, $6, $7 FROM bumped
RETURNING device_id, seq`

// EnqueueSQL is the fan-out statement, exported so that benchmarks can run
// exactly the SQL the relay runs.
func EnqueueSQL() string { return enqueueSQL }

// Enqueue fans e out inside tx. The caller commits; until then the rows
// are invisible and the target devices stay locked.
func Enqueue(ctx context.Context, tx pgx.Tx, e *Envelope) ([]Delivery, error) {
	accounts := []int64{e.ToAccount}
	if e.FromAccount != e.ToAccount {
		accounts = append(accounts, e.FromAccount)
	}
	rows, err := tx.Query(ctx, enqueueSQL, accounts, e.FromDevice, e.ID, e.FromUsername, e.ToUsername, e.TS, e.Body)
	if err != nil {
		return nil, fmt.Errorf("enqueueing: %w", err)
	}
	ds, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (Delivery, error) {
		var d Delivery
		err := row.Scan(&d.DeviceID, &d.Seq)
		return d, err
	})
	if err != nil {
		return nil, fmt.Errorf("enqueueing: %w", err)
	}
	return ds, nil
}

// Read returns up to limit envelopes of a device's queue with
// after < seq <= upTo, in seq order.
func Read(ctx context.Context, pool *pgxpool.Pool, deviceID string, after, upTo int64, limit int) ([]Item, error) {
	rows, err := pool.Query(ctx, `SELECT seq, envelope_id, from_username, from_device, to_username, ts, body
		FROM queue WHERE device_id = $1 AND seq > $2 AND seq <= $3 ORDER BY seq LIMIT $4`, deviceID, after, upTo, limit)
	if err != nil {
		return nil, fmt.Errorf("reading queue: %w", err)
	}
	items, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (Item, error) {
		var it Item
		err := row.Scan(&it.Seq, &it.ID, &it.From, &it.FromDevice, &it.To, &it.TS, &it.Body)
		return it, err
	})
	if err != nil {
		return nil, fmt.Errorf("reading queue: %w", err)
	}
	return items, nil
}

// Head returns the last seq handed out for a device: the resume point of a
// stream with nothing left to replay.
func Head(ctx context.Context, pool *pgxpool.Pool, deviceID string) (int64, error) {
	var seq int64
	err := pool.QueryRow(ctx, `SELECT seq FROM devices WHERE id = $1`, deviceID).Scan(&seq)
	if err != nil {
		return 0, fmt.Errorf("reading queue head: %w", err)
	}
	return seq, nil
}

// Ack deletes a device's queue rows with seq <= upTo and returns how many it
// deleted. Acking again is harmless; upTo beyond the last seq handed out is
// ErrBadAck, because it would also cover envelopes the device never saw.
func Ack(ctx context.Context, pool *pgxpool.Pool, deviceID string, upTo int64) (int64, error) {
	if upTo < 0 {
		return 0, fmt.Errorf("%w: upTo must not be negative", ErrBadAck)
	}
	// One statement and no lock on the device row, so an ACK never waits
	// for a fan-out in flight: seq only grows, so the head read here can
	// only be exceeded later, and rows not yet committed are not deleted.
	var head, deleted int64
	err := pool.QueryRow(ctx, `WITH head AS (SELECT seq FROM devices WHERE id = $1),
		del AS (DELETE FROM queue WHERE device_id = $1 AND seq <= $2 AND $2 <= (SELECT seq FROM head) RETURNING 1)
		SELECT (SELECT seq FROM head), (SELECT count(*) FROM del)`, deviceID, upTo).Scan(&head, &deleted)
	if err != nil {
		return 0, fmt.Errorf("acking: %w", err)
	}
	if upTo > head {
		return 0, fmt.Errorf("%w: upTo %d is beyond the last seq %d of this device", ErrBadAck, upTo, head)
	}
	return deleted, nil
}

// Drop deletes a device's whole queue inside tx (on revocation).
func Drop(ctx context.Context, tx pgx.Tx, deviceID string) error {
	_, err := tx.Exec(ctx, `DELETE FROM queue WHERE device_id = $1`, deviceID)
	return err
}

// PurgeSent deletes idempotency records whose window has closed.
func PurgeSent(ctx context.Context, pool *pgxpool.Pool, now time.Time) (int64, error) {
	tag, err := pool.Exec(ctx, `DELETE FROM sent WHERE expires_at <= $1`, now)
	if err != nil {
		return 0, fmt.Errorf("purging idempotency records: %w", err)
	}
	return tag.RowsAffected(), nil
}
