// Package keypackages keeps the MLS key packages devices publish, so that
// others can add them to a group while they are offline (RFC 9420,
// section 10; docs/protocol.md, "Key packages"; ADR 0099). It owns the
// key_packages table.
//
// A key package is opaque to the relay: it stores the bytes a device gave
// and hands them out, and never parses, verifies or logs them. Each device
// has up to MaxOneTime one-time packages, each handed out once and deleted
// by the claim that takes it, and at most one last-resort package, handed
// out whenever the device has no one-time package left and never deleted
// by a claim (RFC 9420, section 16.8).
package keypackages

import (
	"context"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

const (
	// MaxSize bounds one key package. One of ciphersuite 2 (P-256) is
	// about 330 bytes; 8 KiB leaves room for post-quantum suites (an
	// ML-KEM-1024 key with an ML-DSA-87 credential and signature is
	// about 7 KiB) without letting a device store much.
	MaxSize = 8 << 10
	// MaxOneTime is how many one-time packages a device may hold: enough
	// for a day of being added to new chats while offline, and at most
	// MaxOneTime × MaxSize (800 KiB) of storage per device.
	MaxOneTime = 100
)

// ErrDeviceGone is a publication for a device that was revoked meanwhile.
var ErrDeviceGone = errors.New("the device was revoked")

// TooManyError refuses a publication that would leave the device with
// more than MaxOneTime one-time packages. Nothing was stored.
type TooManyError struct {
	Have int // the device's one-time packages now
}

func (e *TooManyError) Error() string {
	return fmt.Sprintf("the device holds %d one-time key packages; at most %d", e.Have, MaxOneTime)
}

// Count is what a device holds.
type Count struct {
	OneTime    int
	LastResort bool
}

// Publish stores device's new one-time packages and, when lastResort is
// not nil, replaces its last-resort package, all or nothing, and returns
// what the device then holds. The caller has checked each package's size.
func Publish(ctx context.Context, pool *pgxpool.Pool, device string, oneTime [][]byte, lastResort []byte) (Count, error) {
	var c Count
	err := pgx.BeginFunc(ctx, pool, func(tx pgx.Tx) error {
		// The device row's lock orders publications of one device, so
		// that two cannot both pass the count, and orders them with a
		// revocation, which takes the same lock before it deletes the
		// device's packages (package lifecycle): none is left behind.
		var live bool
		err := tx.QueryRow(ctx, `SELECT revoked_at IS NULL FROM devices WHERE id = $1 FOR UPDATE`, device).Scan(&live)
		if errors.Is(err, pgx.ErrNoRows) || (err == nil && !live) {
			return ErrDeviceGone
		}
		if err != nil {
			return fmt.Errorf("locking the device: %w", err)
		}
		if c, err = count(ctx, tx, device); err != nil {
			return err
		}
		if c.OneTime+len(oneTime) > MaxOneTime {
			return &TooManyError{Have: c.OneTime}
		}
		if len(oneTime) > 0 {
			if _, err := tx.Exec(ctx, `INSERT INTO key_packages (device_id, last_resort, data) SELECT $1, false, unnest($2::bytea[])`,
				device, oneTime); err != nil {
				return fmt.Errorf("storing one-time key packages: %w", err)
			}
			c.OneTime += len(oneTime)
		}
		if lastResort != nil {
			if _, err := tx.Exec(ctx, `INSERT INTO key_packages (device_id, last_resort, data) VALUES ($1, true, $2)
				ON CONFLICT (device_id) WHERE last_resort DO UPDATE SET data = EXCLUDED.data, created_at = now()`,
				device, lastResort); err != nil {
				return fmt.Errorf("storing the last-resort key package: %w", err)
			}
			c.LastResort = true
		}
		return nil
	})
	return c, err
}

// Querier is a pool or a transaction.
type Querier interface {
	QueryRow(ctx context.Context, sql string, args ...any) pgx.Row
}

// Held returns what device holds.
func Held(ctx context.Context, db Querier, device string) (Count, error) {
	return count(ctx, db, device)
}

func count(ctx context.Context, db Querier, device string) (Count, error) {
	var c Count
	err := db.QueryRow(ctx, `SELECT count(*) FILTER (WHERE NOT last_resort), bool_or(last_resort) IS TRUE
		FROM key_packages WHERE device_id = $1`, device).Scan(&c.OneTime, &c.LastResort)
	if err != nil {
		return Count{}, fmt.Errorf("counting key packages: %w", err)
	}
	return c, nil
}

// Claimed is what a claim gives for one device.
type Claimed struct {
	Device     string
	Data       []byte // nil: the device has no key package at all
	LastResort bool   // Data is the device's last-resort package
}

// claimSQL takes one key package for each live device of account $1 but
// $2, in one statement. For each device, the subquery locks its oldest
// one-time package that no concurrent claim has locked (SKIP LOCKED: a
// waiting claim would find the row deleted after the wait and take none),
// and the DELETE removes it, so no package is ever handed out twice. A
// device with none left gets its last-resort package, which stays.
const claimSQL = `
WITH devs AS (
    SELECT id FROM devices WHERE account_id = $1 AND revoked_at IS NULL AND id <> $2
), claimed AS (
    DELETE FROM key_packages WHERE id IN (
        SELECT k.id FROM devs CROSS JOIN LATERAL (
            SELECT id FROM key_packages WHERE device_id = devs.id AND NOT last_resort
            ORDER BY id LIMIT 1 FOR UPDATE SKIP LOCKED) k)
    RETURNING device_id, data
)
SELECT d.id, coalesce(c.data, l.data), c.data IS NULL AND l.data IS NOT NULL
FROM devs d
LEFT JOIN claimed c ON c.device_id = d.id
LEFT JOIN key_packages l ON l.device_id = d.id AND l.last_resort
ORDER BY d.id`

// Claim takes one key package for each live device of accountID except
// the device except (the claimer's own, when it claims its own account's),
// atomically: a one-time package goes to exactly one claim.
func Claim(ctx context.Context, pool *pgxpool.Pool, accountID int64, except string) ([]Claimed, error) {
	rows, err := pool.Query(ctx, claimSQL, accountID, except)
	if err != nil {
		return nil, fmt.Errorf("claiming key packages: %w", err)
	}
	out, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (Claimed, error) {
		var c Claimed
		err := r.Scan(&c.Device, &c.Data, &c.LastResort)
		return c, err
	})
	if err != nil {
		return nil, fmt.Errorf("claiming key packages: %w", err)
	}
	return out, nil
}

// Drop deletes, inside tx, every key package of device, which is being
// revoked. The caller holds the device row's lock.
func Drop(ctx context.Context, tx pgx.Tx, device string) error {
	if _, err := tx.Exec(ctx, `DELETE FROM key_packages WHERE device_id = $1`, device); err != nil {
		return fmt.Errorf("deleting key packages: %w", err)
	}
	return nil
}

// DropAccount deletes, inside tx, every key package of the account's
// devices: its key was replaced, and each package names a credential the
// old key certified, which members now refuse (ADR 0100). The devices
// that stay publish again once they hold the new key. The caller holds
// the account row's lock.
func DropAccount(ctx context.Context, tx pgx.Tx, accountID int64) error {
	if _, err := tx.Exec(ctx, `DELETE FROM key_packages WHERE device_id IN (SELECT id FROM devices WHERE account_id = $1)`, accountID); err != nil {
		return fmt.Errorf("deleting the account's key packages: %w", err)
	}
	return nil
}
