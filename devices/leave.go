package devices

import (
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
)

// Errors of deleted and disabled accounts, which the API maps to their
// stable codes (docs/protocol.md, "DELETE /api/account").
var (
	// ErrAccountDeleted is a lookup of a username whose account was
	// deleted and which is still held.
	ErrAccountDeleted = errors.New("account deleted")
	// ErrUsernameHeld is a registration of a held username.
	ErrUsernameHeld = errors.New("username held after a deletion")
	// ErrAccountDisabled is a login or a session of an account an
	// operator disabled.
	ErrAccountDisabled = errors.New("account disabled")
)

// DefaultNameHold is how long a deleted account's username is held back
// from new registrations: long enough that its contacts notice the
// deletion before anyone else can take the name (ADR 0059).
const DefaultNameHold = 30 * 24 * time.Hour

// nameHash is what held_names stores of a username.
func nameHash(username string) []byte {
	h := sha256.Sum256([]byte(username))
	return h[:]
}

// Deleted is what DeleteAccount removed: enough for the caller to end the
// streams of the devices once the transaction has committed.
type Deleted struct {
	AccountID int64
	Username  string
	Devices   []string // every device of the account, revoked ones too
}

// LockAccount locks the account row of username inside tx and returns it,
// or ErrUnknownAccount. The lock orders the change with every other one
// that takes it: AddDevice, ReplaceKey, a deletion, an operator's change.
func (s *Store) LockAccount(ctx context.Context, tx pgx.Tx, username string) (Account, error) {
	var acc Account
	err := tx.QueryRow(ctx, `SELECT id, username, public_key FROM accounts WHERE username = $1 FOR UPDATE`,
		username).Scan(&acc.ID, &acc.Username, &acc.PublicKey)
	if errors.Is(err, pgx.ErrNoRows) {
		return Account{}, ErrUnknownAccount
	}
	if err != nil {
		return Account{}, fmt.Errorf("locking the account: %w", err)
	}
	return acc, nil
}

// LockForDeletion locks, inside tx, the device rows of the account of
// username in id order and then the account row, and returns the account,
// or ErrUnknownAccount (also when another deletion got there first). The
// device rows come first because a fan-out locks its target devices
// first and the account rows (in key-share mode, through its foreign keys)
// after: taken in the same order, the two never wait for each other in a
// cycle. An envelope being accepted from or to the account commits before
// the deletion reads, and is deleted with the rest; one accepted after it
// finds the account gone (queue.ErrAccountGone).
func (s *Store) LockForDeletion(ctx context.Context, tx pgx.Tx, username string) (Account, error) {
	var id int64
	err := tx.QueryRow(ctx, `SELECT id FROM accounts WHERE username = $1`, username).Scan(&id)
	if errors.Is(err, pgx.ErrNoRows) {
		return Account{}, ErrUnknownAccount
	}
	if err != nil {
		return Account{}, fmt.Errorf("finding the account: %w", err)
	}
	if _, err := tx.Exec(ctx, `SELECT 1 FROM devices WHERE account_id = $1 ORDER BY id FOR UPDATE`, id); err != nil {
		return Account{}, fmt.Errorf("locking the devices: %w", err)
	}
	return s.LockAccount(ctx, tx, username)
}

// DeleteAccount deletes the rows of package devices that belong to acc,
// locked with LockForDeletion in the same tx: its sessions, its contact
// rows both ways, its devices and the account row with its recovery blob.
// It then holds the username until now plus hold. The caller deletes the
// queue rows and idempotency records (package queue) in the same tx,
// before this.
func (s *Store) DeleteAccount(ctx context.Context, tx pgx.Tx, acc Account, hold time.Duration) (Deleted, error) {
	d := Deleted{AccountID: acc.ID, Username: acc.Username}
	rows, err := tx.Query(ctx, `SELECT id FROM devices WHERE account_id = $1 ORDER BY id`, acc.ID)
	if err != nil {
		return Deleted{}, fmt.Errorf("listing the devices: %w", err)
	}
	if d.Devices, err = pgx.CollectRows(rows, pgx.RowTo[string]); err != nil {
		return Deleted{}, fmt.Errorf("listing the devices: %w", err)
	}
	for _, q := range []string{
		`DELETE FROM sessions WHERE account_id = $1`,
		`DELETE FROM contacts WHERE account_id = $1 OR contact_id = $1`,
		`DELETE FROM devices WHERE account_id = $1`,
		`DELETE FROM accounts WHERE id = $1`,
	} {
		if _, err := tx.Exec(ctx, q, acc.ID); err != nil {
			return Deleted{}, fmt.Errorf("deleting the account: %w", err)
		}
	}
	// A name held before (deleted, registered again after its hold, and
	// deleted again) is held anew.
	if _, err := tx.Exec(ctx, `INSERT INTO held_names (name_sha256, held_until) VALUES ($1, $2)
		ON CONFLICT (name_sha256) DO UPDATE SET held_until = excluded.held_until`,
		nameHash(acc.Username), s.now().Add(hold)); err != nil {
		return Deleted{}, fmt.Errorf("holding the username: %w", err)
	}
	return d, notifyAuth(ctx, tx, acc.ID)
}

// heldName reports whether username is held after a deletion.
func (s *Store) heldName(ctx context.Context, q interface {
	QueryRow(context.Context, string, ...any) pgx.Row
}, username string) (bool, error) {
	var held bool
	err := q.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM held_names WHERE name_sha256 = $1 AND held_until > $2)`,
		nameHash(username), s.now()).Scan(&held)
	if err != nil {
		return false, fmt.Errorf("checking held names: %w", err)
	}
	return held, nil
}

// PurgeHeldNames deletes the names whose hold has passed: they are free.
func (s *Store) PurgeHeldNames(ctx context.Context) (int64, error) {
	tag, err := s.pool.Exec(ctx, `DELETE FROM held_names WHERE held_until <= $1`, s.now())
	if err != nil {
		return 0, fmt.Errorf("purging held names: %w", err)
	}
	return tag.RowsAffected(), nil
}

// SetDisabled disables or enables the account of username and returns its
// devices that are not revoked, whose streams the caller ends (on
// disabling) once tx commits. An unknown username is ErrUnknownAccount.
// Sessions are kept: enabling gives the devices their account back
// without a new login.
func (s *Store) SetDisabled(ctx context.Context, tx pgx.Tx, username string, disabled bool) ([]string, error) {
	acc, err := s.LockAccount(ctx, tx, username)
	if err != nil {
		return nil, err
	}
	var at *time.Time
	if disabled {
		now := s.now()
		at = &now
	}
	// coalesce keeps the first time of a repeated disable.
	if _, err := tx.Exec(ctx, `UPDATE accounts SET disabled_at = CASE WHEN $2::timestamptz IS NULL THEN NULL ELSE coalesce(disabled_at, $2) END
		WHERE id = $1`, acc.ID, at); err != nil {
		return nil, fmt.Errorf("disabling the account: %w", err)
	}
	if err := notifyAuth(ctx, tx, acc.ID); err != nil {
		return nil, err
	}
	return s.liveDevices(ctx, tx, acc.ID)
}

// RevokeSessions ends every session of the account of username inside tx
// and returns how many there were and the devices that are not revoked,
// whose streams the caller ends once tx commits. The devices stay: a login
// on the same browser speaks as the same device again.
func (s *Store) RevokeSessions(ctx context.Context, tx pgx.Tx, username string) (int64, []string, error) {
	acc, err := s.LockAccount(ctx, tx, username)
	if err != nil {
		return 0, nil, err
	}
	tag, err := tx.Exec(ctx, `DELETE FROM sessions WHERE account_id = $1`, acc.ID)
	if err != nil {
		return 0, nil, fmt.Errorf("revoking sessions: %w", err)
	}
	if err := notifyAuth(ctx, tx, acc.ID); err != nil {
		return 0, nil, err
	}
	ids, err := s.liveDevices(ctx, tx, acc.ID)
	return tag.RowsAffected(), ids, err
}

func (s *Store) liveDevices(ctx context.Context, tx pgx.Tx, accountID int64) ([]string, error) {
	rows, err := tx.Query(ctx, `SELECT id FROM devices WHERE account_id = $1 AND revoked_at IS NULL ORDER BY id`, accountID)
	if err != nil {
		return nil, fmt.Errorf("listing the devices: %w", err)
	}
	ids, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		return nil, fmt.Errorf("listing the devices: %w", err)
	}
	return ids, nil
}
