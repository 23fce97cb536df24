// Package lifecycle owns the changes that end something of an account:
// revoking a device, replacing the account key, deleting the account,
// disabling (or enabling) it and ending its sessions (ADR 0093). The HTTP
// API (package relay) and relay admin both make these changes through it
// and nowhere else.
//
// Each change is one function and one transaction that composes the
// tables' owners: package devices for accounts, sessions and devices,
// package queue for queues and idempotency records, package push for
// subscriptions, package keypackages for MLS key packages. What a change does outside its transaction happens after
// the commit, in one order for every change and every caller:
//
//  1. this process holds the account out of its cache before the commit
//     (devices.Store.HoldAccount), and releases it after step 2;
//  2. the notice to the other relay instances is queued inside the
//     transaction (hub.NotifyEnded; devices' notice on its AuthChannel),
//     so PostgreSQL delivers it on commit and never for a rollback;
//  3. after the commit, this process forgets the account's cached
//     sessions (devices.Store.ForgetAccount);
//  4. then it ends the streams it holds (hub.Hub), and for a revoked
//     device tells the other instances through the hub's bus.
//
// relay admin has no hub: it does 1 to 3, and the instances do 4 when
// the notice arrives, or at their catch-up check. The package never reads
// an envelope body or a key, and it logs nothing itself.
package lifecycle

import (
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"relay/attachments"
	"relay/devices"
	"relay/hub"
	"relay/keypackages"
	"relay/push"
	"relay/queue"
)

// Transitions makes the changes. It holds no state of its own: creating
// one is as cheap as a struct.
type Transitions struct {
	pool  *pgxpool.Pool
	store *devices.Store
	hub   *hub.Hub // nil in relay admin: no stream is held here
}

// New returns the transitions over pool, with store for the tables of
// package devices and its cache, and h for this instance's streams (nil
// when the process holds none, as relay admin).
func New(pool *pgxpool.Pool, store *devices.Store, h *hub.Hub) *Transitions {
	return &Transitions{pool: pool, store: store, hub: h}
}

// notifyEnded queues, inside tx, the notice that ends the devices' streams
// on every relay instance. An instance's own hub knows whether its
// notifications are on; relay admin always sends it.
func (t *Transitions) notifyEnded(ctx context.Context, tx pgx.Tx, reason string, devices []string) error {
	if t.hub != nil {
		return t.hub.NotifyEnded(ctx, tx, reason, devices)
	}
	return hub.NotifyEnded(ctx, tx, reason, devices)
}

// committed does what a change does after its commit, in the package's
// order: the account's cached sessions first, so that no request of a
// device being ended passes a cached check, then the streams held here.
func (t *Transitions) committed(accountID int64, reason string, devices []string) {
	t.store.ForgetAccount(accountID)
	switch {
	case t.hub == nil:
	case reason == hub.ReasonRevoked:
		// A revocation tells the other instances through the bus, after
		// the commit, and not inside the transaction.
		for _, d := range devices {
			t.hub.Revoked(d)
		}
	default:
		t.hub.Ended(reason, devices)
	}
}

// drop deletes what a revoked device leaves: its push subscription, its
// key packages, its place in the attachments' waits, then its queue. The caller has locked the device row in
// tx. The key packages go so that nobody adds a device that can no longer
// read to a group.
func drop(ctx context.Context, tx pgx.Tx, device string) error {
	if err := push.Delete(ctx, tx, device); err != nil {
		return err
	}
	if err := keypackages.Drop(ctx, tx, device); err != nil {
		return err
	}
	// The attachments that waited for it wait for the others only.
	if err := attachments.DropDevice(ctx, tx, device); err != nil {
		return err
	}
	return queue.Drop(ctx, tx, device)
}

// RevokeDevice revokes device of accountID: the device row is marked
// revoked and its push subscription, key packages and queue go, in one transaction; its
// stream ends with event: revoked. Another account's device, an unknown id
// and an already revoked device are devices.ErrUnknownDevice.
func (t *Transitions) RevokeDevice(ctx context.Context, accountID int64, device string) error {
	release := t.store.HoldAccount(accountID)
	defer release()
	err := pgx.BeginFunc(ctx, t.pool, func(tx pgx.Tx) error {
		// Revoke takes the device row's lock first, the lock a fan-out
		// takes (ADR 0002); what it leaves goes under that lock.
		if err := t.store.Revoke(ctx, tx, accountID, device); err != nil {
			return err
		}
		return drop(ctx, tx, device)
	})
	if err != nil {
		return err
	}
	t.committed(accountID, hub.ReasonRevoked, []string{device})
	return nil
}

// ReplaceKey replaces the account key as r says (devices.Store.ReplaceKey,
// ADR 0043): the revoked devices' push subscriptions, key packages and
// queues go in the same transaction, with every key package of the
// account's other devices (ADR 0100), and the revoked devices' streams end
// with event: revoked. The caller has checked the password.
func (t *Transitions) ReplaceKey(ctx context.Context, r devices.KeyReplacement) error {
	// Held from before the commit: between the commit and the forgetting,
	// this instance would otherwise answer the old key from memory.
	release := t.store.HoldAccount(r.AccountID)
	defer release()
	err := pgx.BeginFunc(ctx, t.pool, func(tx pgx.Tx) error {
		// ReplaceKey locks the account row, then the device rows in id
		// order; what the revoked devices leave goes under those locks.
		if err := t.store.ReplaceKey(ctx, tx, r); err != nil {
			return err
		}
		for _, id := range r.Revoke {
			if err := drop(ctx, tx, id); err != nil {
				return err
			}
		}
		// The other devices' key packages name credentials the old key
		// certified: they go too, and each device publishes new ones.
		return keypackages.DropAccount(ctx, tx, r.AccountID)
	})
	if err != nil {
		return err
	}
	t.committed(r.AccountID, hub.ReasonRevoked, r.Revoke)
	return nil
}

// Delete deletes the account of username and holds the name for hold:
// every row of the account in every table of the relay goes, or none does
// (ADR 0059), and its streams end with event: deleted on every instance.
// An unknown username, and an account deleted meanwhile, is
// devices.ErrUnknownAccount.
func (t *Transitions) Delete(ctx context.Context, username string, hold time.Duration) (devices.Deleted, error) {
	var d devices.Deleted
	release := func() {}
	defer func() { release() }()
	err := pgx.BeginFunc(ctx, t.pool, func(tx pgx.Tx) error {
		acc, err := t.store.LockForDeletion(ctx, tx, username)
		if err != nil {
			return err
		}
		release = t.store.HoldAccount(acc.ID)
		// Before the devices go: DropAccount finds the queues through them.
		// The push subscriptions and key packages go with the devices (ON
		// DELETE CASCADE).
		if err := queue.DropAccount(ctx, tx, acc.ID, acc.Username); err != nil {
			return err
		}
		if d, err = t.store.DeleteAccount(ctx, tx, acc, hold); err != nil {
			return err
		}
		return t.notifyEnded(ctx, tx, hub.ReasonDeleted, d.Devices)
	})
	if err != nil {
		return devices.Deleted{}, fmt.Errorf("deleting an account: %w", err)
	}
	t.committed(d.AccountID, hub.ReasonDeleted, d.Devices)
	return d, nil
}

// SetDisabled disables or enables the account of username and returns its
// devices that are not revoked. Disabling ends their streams with event:
// disabled on every instance; enabling ends nothing. Nothing is deleted,
// key packages neither: disabling is undone by enabling, and a disabled
// account's devices are still members of their groups.
// An unknown username is devices.ErrUnknownAccount.
func (t *Transitions) SetDisabled(ctx context.Context, username string, disabled bool) ([]string, error) {
	var acc devices.Account
	var devs []string
	release := func() {}
	defer func() { release() }()
	err := pgx.BeginFunc(ctx, t.pool, func(tx pgx.Tx) error {
		// The account row's lock, which SetDisabled takes too, gives the
		// id whose cached sessions go after the commit.
		var err error
		if acc, err = t.store.LockAccount(ctx, tx, username); err != nil {
			return err
		}
		release = t.store.HoldAccount(acc.ID)
		if devs, err = t.store.SetDisabled(ctx, tx, username, disabled); err != nil || !disabled {
			return err
		}
		return t.notifyEnded(ctx, tx, hub.ReasonDisabled, devs)
	})
	if err != nil {
		return nil, err
	}
	var ended []string
	if disabled {
		ended = devs
	}
	t.committed(acc.ID, hub.ReasonDisabled, ended)
	return devs, nil
}

// RevokeSessions ends every session of the account of username and returns
// how many there were and its devices that are not revoked, whose streams
// end with event: logged_out. The devices stay. An unknown username is
// devices.ErrUnknownAccount.
func (t *Transitions) RevokeSessions(ctx context.Context, username string) (int64, []string, error) {
	var acc devices.Account
	var n int64
	var devs []string
	release := func() {}
	defer func() { release() }()
	err := pgx.BeginFunc(ctx, t.pool, func(tx pgx.Tx) error {
		var err error
		if acc, err = t.store.LockAccount(ctx, tx, username); err != nil {
			return err
		}
		release = t.store.HoldAccount(acc.ID)
		if n, devs, err = t.store.RevokeSessions(ctx, tx, username); err != nil {
			return err
		}
		return t.notifyEnded(ctx, tx, hub.ReasonLoggedOut, devs)
	})
	if err != nil {
		return 0, nil, err
	}
	t.committed(acc.ID, hub.ReasonLoggedOut, devs)
	return n, devs, nil
}
