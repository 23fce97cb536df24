// Package invites owns the invite codes of a relay whose registration is
// by invite (docs/operations.md, "Who may register"; ADR 0117): making
// them and listing and revoking them, for `relay admin invites`, and
// spending one use of a code inside the transaction that creates an
// account. It owns the invites table.
//
// A code is 20 random symbols of Crockford's base32 (100 bits), shown
// once when it is made, in four groups of five. The relay keeps only the
// SHA-256 of its canonical spelling: a code is random enough that a slow
// hash would add nothing, and a copy of the table registers no one. This
// package never logs a code, and no row says which account used which
// code.
package invites

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

const (
	// Symbols is the length of a code, without its dashes.
	Symbols = 20
	// MaxInput bounds what Parse reads: a code with a dash or a space
	// between every two symbols fits.
	MaxInput = 2 * Symbols
	// MaxUses bounds the uses of one code: a large team, not the world.
	MaxUses = 10_000
	// alphabet is Crockford's base32: no I, L, O or U, which read as
	// other symbols or words.
	alphabet = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"
)

var (
	// ErrMalformed is a code that is not 20 symbols of the alphabet; it
	// says nothing of the codes there are.
	ErrMalformed = errors.New("an invite code is 20 letters and digits, such as 7K2QD-9XW4M-RT8VB-3HNPF")
	// ErrInvalid is a code that cannot be spent: no code has this
	// spelling, or it has no use left, or it expired. One error for the
	// three, found by one statement (Spend).
	ErrInvalid = errors.New("the invite code is unknown, used up or expired")
	// ErrUnknown is an id that no invite has (Revoke).
	ErrUnknown = errors.New("no invite has this id")
)

// Hash is the SHA-256 of a code's canonical spelling, what the table keeps.
type Hash [sha256.Size]byte

// Parse reads a code as a person may type it, case, dashes and spaces
// aside, with Crockford's reading of O as 0 and of I and L as 1, and
// returns its hash. Anything else is ErrMalformed.
func Parse(s string) (Hash, error) {
	if len(s) > MaxInput {
		return Hash{}, ErrMalformed
	}
	var canon [Symbols]byte
	n := 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '-' || c == ' ':
			continue
		case 'a' <= c && c <= 'z':
			c -= 'a' - 'A'
		}
		switch c {
		case 'O':
			c = '0'
		case 'I', 'L':
			c = '1'
		}
		if strings.IndexByte(alphabet, c) < 0 || n == Symbols {
			return Hash{}, ErrMalformed
		}
		canon[n] = c
		n++
	}
	if n != Symbols {
		return Hash{}, ErrMalformed
	}
	return sha256.Sum256(canon[:]), nil
}

// newCode returns a random code in its canonical spelling.
func newCode() string {
	var b [Symbols]byte
	_, _ = rand.Read(b[:]) // never fails (crypto/rand)
	for i := range b {
		b[i] = alphabet[b[i]&31] // 256 is a multiple of 32: uniform
	}
	return string(b[:])
}

// format writes a canonical code in four groups of five.
func format(code string) string {
	var b strings.Builder
	for i := 0; i < len(code); i += 5 {
		if i > 0 {
			b.WriteByte('-')
		}
		b.WriteString(code[i : i+5])
	}
	return b.String()
}

// Invite is one code as the table holds it: never the code itself.
type Invite struct {
	ID        int64
	Uses      int // allowed
	Used      int
	CreatedAt time.Time
	ExpiresAt time.Time // zero: never
}

// State says whether the invite can still be spent at now, and if not why.
func (i Invite) State(now time.Time) string {
	switch {
	case i.Used >= i.Uses:
		return "used up"
	case !i.ExpiresAt.IsZero() && !now.Before(i.ExpiresAt):
		return "expired"
	}
	return "usable"
}

// DB is what the functions run on: the pool, or a transaction.
type DB interface {
	Exec(ctx context.Context, sql string, args ...any) (pgconn.CommandTag, error)
	Query(ctx context.Context, sql string, args ...any) (pgx.Rows, error)
	QueryRow(ctx context.Context, sql string, args ...any) pgx.Row
}

// Create makes an invite of uses uses that expires after ttl (0: never),
// and returns the code, in groups of five, with the row. The code is not
// stored: it exists only in what Create returns.
func Create(ctx context.Context, db DB, uses int, ttl time.Duration, now time.Time) (string, Invite, error) {
	if uses < 1 || uses > MaxUses {
		return "", Invite{}, fmt.Errorf("an invite has 1 to %d uses, not %d", MaxUses, uses)
	}
	if ttl < 0 {
		return "", Invite{}, fmt.Errorf("an invite expires after a positive time, or never (0), not %v", ttl)
	}
	code := newCode()
	inv := Invite{Uses: uses, CreatedAt: now.UTC().Truncate(time.Microsecond)}
	var expires *time.Time
	if ttl > 0 {
		inv.ExpiresAt = inv.CreatedAt.Add(ttl)
		expires = &inv.ExpiresAt
	}
	hash := sha256.Sum256([]byte(code))
	err := db.QueryRow(ctx, `INSERT INTO invites (code_hash, uses, created_at, expires_at) VALUES ($1, $2, $3, $4) RETURNING id`,
		hash[:], uses, inv.CreatedAt, expires).Scan(&inv.ID)
	if err != nil {
		return "", Invite{}, fmt.Errorf("storing the invite: %w", err)
	}
	return format(code), inv, nil
}

// List returns every invite, oldest first.
func List(ctx context.Context, db DB) ([]Invite, error) {
	rows, err := db.Query(ctx, `SELECT id, uses, used, created_at, expires_at FROM invites ORDER BY id`)
	if err != nil {
		return nil, err
	}
	var out []Invite
	for rows.Next() {
		var inv Invite
		var expires *time.Time
		if err := rows.Scan(&inv.ID, &inv.Uses, &inv.Used, &inv.CreatedAt, &expires); err != nil {
			return nil, err
		}
		if expires != nil {
			inv.ExpiresAt = *expires
		}
		out = append(out, inv)
	}
	return out, rows.Err()
}

// Revoke deletes the invite: its code is unknown from then on. A
// registration spending it at that moment either committed first, and
// keeps its account, or finds no row.
func Revoke(ctx context.Context, db DB, id int64) error {
	tag, err := db.Exec(ctx, `DELETE FROM invites WHERE id = $1`, id)
	if err != nil {
		return err
	}
	if tag.RowsAffected() == 0 {
		return ErrUnknown
	}
	return nil
}

// Spend takes one use of the code whose hash is h, in tx, the transaction
// that creates the account: a rollback gives the use back. It is one
// statement whatever the code, so an unknown, a used-up and an expired
// code take the same path and all return ErrInvalid. The row's lock holds
// a second registration with the same code until tx ends; PostgreSQL then
// evaluates the WHERE again on the row the first left, so a code is never
// spent past its uses.
func Spend(ctx context.Context, tx pgx.Tx, h Hash, now time.Time) error {
	tag, err := tx.Exec(ctx, `UPDATE invites SET used = used + 1
		WHERE code_hash = $1 AND used < uses AND (expires_at IS NULL OR expires_at > $2)`, h[:], now)
	if err != nil {
		return fmt.Errorf("spending an invite: %w", err)
	}
	if tag.RowsAffected() == 0 {
		return ErrInvalid
	}
	return nil
}
