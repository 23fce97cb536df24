package devices

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/jackc/pgx/v5"
)

// MaxRecoveryBlob bounds a recovery blob, in bytes (docs/protocol.md,
// "PUT /api/recovery"); a version-1 blob is 126.
const MaxRecoveryBlob = 1024

// MaxRevoke bounds the devices one key replacement revokes: an account
// has at most DefaultMaxDevices.
const MaxRevoke = 20

// Recovery is an account's recovery blob: the account private key wrapped
// under a key only its owner has (docs/crypto.md). The relay cannot open it.
type Recovery struct {
	Blob      []byte
	UpdatedAt time.Time
}

// SetRecovery stores or replaces the account's one recovery blob.
func (s *Store) SetRecovery(ctx context.Context, accountID int64, blob []byte) error {
	_, err := s.pool.Exec(ctx, `UPDATE accounts SET recovery_blob = $2, recovery_updated_at = $3 WHERE id = $1`,
		accountID, blob, s.now())
	if err != nil {
		return fmt.Errorf("storing the recovery blob: %w", err)
	}
	return nil
}

// GetRecovery returns the account's recovery blob, or ErrNoRecovery.
func (s *Store) GetRecovery(ctx context.Context, accountID int64) (Recovery, error) {
	var r Recovery
	var at *time.Time
	err := s.pool.QueryRow(ctx, `SELECT recovery_blob, recovery_updated_at FROM accounts WHERE id = $1`,
		accountID).Scan(&r.Blob, &at)
	if errors.Is(err, pgx.ErrNoRows) || (err == nil && r.Blob == nil) {
		return Recovery{}, ErrNoRecovery
	}
	if err != nil {
		return Recovery{}, fmt.Errorf("reading the recovery blob: %w", err)
	}
	if at != nil {
		r.UpdatedAt = *at
	}
	return r, nil
}

// DeleteRecovery deletes the account's recovery blob, if it has one.
func (s *Store) DeleteRecovery(ctx context.Context, accountID int64) error {
	_, err := s.pool.Exec(ctx, `UPDATE accounts SET recovery_blob = NULL, recovery_updated_at = NULL WHERE id = $1`, accountID)
	if err != nil {
		return fmt.Errorf("deleting the recovery blob: %w", err)
	}
	return nil
}

// UpdateDevice renames a live device of accountID when name is not nil,
// and marks it linked when linked is set; an unknown, revoked or foreign
// id is ErrUnknownDevice. The caller has checked the name and who may
// mark the device linked.
func (s *Store) UpdateDevice(ctx context.Context, accountID int64, deviceID string, name *string, linked bool) error {
	tag, err := s.pool.Exec(ctx, `UPDATE devices SET name = coalesce($3, name), linked = linked OR $4
		WHERE id = $1 AND account_id = $2 AND revoked_at IS NULL`, deviceID, accountID, name, linked)
	if err != nil {
		return fmt.Errorf("updating a device: %w", err)
	}
	if tag.RowsAffected() == 0 {
		return ErrUnknownDevice
	}
	return nil
}

// IsLiveDevice reports whether deviceID is a live device of accountID.
func (s *Store) IsLiveDevice(ctx context.Context, accountID int64, deviceID string) (bool, error) {
	var live bool
	err := s.pool.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM devices WHERE id = $1 AND account_id = $2 AND revoked_at IS NULL)`,
		deviceID, accountID).Scan(&live)
	return live, err
}

// KeyReplacement is a new account key, from the device speaking, with the
// devices it revokes and the recovery blob that wraps the new key (nil:
// none; the old one wrapped the old key and goes).
type KeyReplacement struct {
	AccountID int64
	Speaker   string
	PublicKey []byte
	Revoke    []string // distinct, without Speaker
	Recovery  []byte
	Password  string // the account's password, checked with CheckPassword first
}

// ReplaceKey replaces the account's public key inside tx, revokes the
// listed devices and marks the speaker linked; the caller drops the
// revoked devices' queues in the same transaction and tells the hub once
// it has committed. A listed id that is not a live device of the account
// is ErrUnknownDevice, and a speaker revoked meanwhile ErrDeviceForbidden:
// the caller rolls back, and nothing has changed.
func (s *Store) ReplaceKey(ctx context.Context, tx pgx.Tx, r KeyReplacement) error {
	// The account row's lock makes key replacements of one account run
	// one after the other, each on the devices the one before left: two
	// at once would each revoke the other's speaker and leave a key that
	// no live device holds. AddDevice takes the same lock, so a device is
	// never added against a set of linked devices about to change.
	if _, err := tx.Exec(ctx, `SELECT 1 FROM accounts WHERE id = $1 FOR UPDATE`, r.AccountID); err != nil {
		return fmt.Errorf("locking the account: %w", err)
	}
	// The device rows are locked in id order, as a fan-out locks them
	// (queue, ADR 0002), so the two never wait for each other in a cycle;
	// a fan-out waiting for a revoked row then sees revoked_at set.
	ids := append(slices.Clone(r.Revoke), r.Speaker)
	rows, err := tx.Query(ctx, `SELECT id FROM devices WHERE id = ANY ($1) AND account_id = $2 AND revoked_at IS NULL
		ORDER BY id FOR UPDATE`, ids, r.AccountID)
	if err != nil {
		return fmt.Errorf("locking the devices: %w", err)
	}
	live, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		return fmt.Errorf("locking the devices: %w", err)
	}
	if !slices.Contains(live, r.Speaker) {
		return ErrDeviceForbidden // revoked since the X-Device check
	}
	if len(live) != len(ids) {
		return ErrUnknownDevice
	}
	now := s.now()
	if _, err := tx.Exec(ctx, `UPDATE devices SET revoked_at = $3 WHERE id = ANY ($1) AND account_id = $2`,
		r.Revoke, r.AccountID, now); err != nil {
		return fmt.Errorf("revoking devices: %w", err)
	}
	if _, err := tx.Exec(ctx, `UPDATE devices SET linked = true WHERE id = $1`, r.Speaker); err != nil {
		return fmt.Errorf("marking the device linked: %w", err)
	}
	var at *time.Time
	if r.Recovery != nil {
		at = &now
	}
	if _, err := tx.Exec(ctx, `UPDATE accounts SET public_key = $2, recovery_blob = $3, recovery_updated_at = $4 WHERE id = $1`,
		r.AccountID, r.PublicKey, r.Recovery, at); err != nil {
		return fmt.Errorf("replacing the account key: %w", err)
	}
	return notifyAuth(ctx, tx, r.AccountID)
}

// CheckPassword verifies the account's password, with the same argon2id
// work as a login: a request that would lock the other devices out (a key
// replacement) needs the password again, not only a session.
func (s *Store) CheckPassword(ctx context.Context, accountID int64, password string) error {
	var stored string
	err := s.pool.QueryRow(ctx, `SELECT password_hash FROM accounts WHERE id = $1`, accountID).Scan(&stored)
	if err != nil && !errors.Is(err, pgx.ErrNoRows) {
		return fmt.Errorf("reading the password hash: %w", err)
	}
	ok, err := s.pw.verify(ctx, password, stored)
	if err != nil {
		return err
	}
	if !ok || stored == "" {
		return ErrBadCredentials
	}
	return nil
}
