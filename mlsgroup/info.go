package mlsgroup

import (
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"math"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

// The store of each group's latest GroupInfo, from which a device that
// fell behind rejoins by an external commit (RFC 9420, section 12.4.3.2;
// ADR 0101). The members encrypt it before they store it: to the relay it
// is opaque bytes with an epoch, under a group id, in the table
// mls_group_info, one row per group, naming no account and no author.

// IDSize is the size of the group ids the GroupInfo store takes: the 32
// random bytes clients draw for every group (ADR 0099).
const IDSize = 32

// MaxInfo bounds a stored GroupInfo: a group of two accounts' devices
// takes a few KiB; 64 KiB leaves room for many devices and large
// credentials.
const MaxInfo = 64 << 10

// ErrBadID refuses a group id that is not IDSize bytes in unpadded
// base64url, spelled the one way that encodes them.
var ErrBadID = errors.New("a group id is 43 characters of unpadded base64url (RFC 4648, section 5) encoding 32 bytes")

// ErrUnknownGroup: no GroupInfo is stored for the group.
var ErrUnknownGroup = errors.New("no GroupInfo is stored for this group")

// idLen is the length of a group id's text: 43 characters, the last one
// carrying 2 bits that must be zero.
var idLen = base64.RawURLEncoding.EncodedLen(IDSize)

// ParseID reads a group id as the API spells it (docs/protocol.md, "Group
// info"): exactly 43 characters of the URL-safe alphabet without padding,
// trailing bits zero, so that one group has one spelling.
func ParseID(s string) ([]byte, error) {
	// The length first: the decoder skips line breaks, which would
	// otherwise let a longer string through.
	if len(s) != idLen {
		return nil, ErrBadID
	}
	b, err := base64.RawURLEncoding.Strict().DecodeString(s)
	if err != nil || len(b) != IDSize {
		return nil, ErrBadID
	}
	return b, nil
}

// FormatID is the spelling of a group id that ParseID takes.
func FormatID(id []byte) string { return base64.RawURLEncoding.EncodeToString(id) }

// Info is a stored GroupInfo: its epoch, and its bytes as the members
// encrypted them.
type Info struct {
	Epoch uint64
	Data  []byte
}

// InfoStaleError refuses a GroupInfo older than the one stored: another
// member stored the GroupInfo of a later epoch first.
type InfoStaleError struct {
	Current uint64 // the epoch of the GroupInfo stored
}

func (e *InfoStaleError) Error() string {
	return fmt.Sprintf("a GroupInfo of epoch %d is stored", e.Current)
}

// EpochAheadError refuses a GroupInfo of an epoch the group's commits have
// not reached on the relay: only the epochs the relay ordered are stored,
// so that nobody can put a group's GroupInfo out of the members' reach by
// naming an epoch they will never get to.
type EpochAheadError struct {
	Group uint64 // the group's epoch on the relay (0: no commit yet)
}

func (e *EpochAheadError) Error() string {
	return fmt.Sprintf("the group is at epoch %d on the relay", e.Group)
}

// PutInfo stores data as the GroupInfo of group id at epoch, replacing the
// stored one unless that one is of a later epoch (*InfoStaleError). An
// epoch past the group's current one, the epoch its next commit must name
// (0 for a group without a commit), is *EpochAheadError. A GroupInfo of
// the same epoch replaces the stored one, so a member can refresh it and
// keep it from the purge. now is when it was stored, for PurgeInfo.
func PutInfo(ctx context.Context, pool *pgxpool.Pool, id []byte, epoch uint64, data []byte, now time.Time) error {
	return pgx.BeginFunc(ctx, pool, func(tx pgx.Tx) error {
		// No lock on the group's row: its epoch only grows, and a member
		// stores the GroupInfo of an epoch once its commit is accepted,
		// so the epoch read here is at least that one.
		var group int64
		if err := tx.QueryRow(ctx, `SELECT coalesce((SELECT epoch FROM mls_groups WHERE group_id = $1), 0)`, id).Scan(&group); err != nil {
			return fmt.Errorf("reading the group's epoch: %w", err)
		}
		if epoch > math.MaxInt64 || int64(epoch) > group {
			return &EpochAheadError{Group: uint64(group)}
		}
		// A row the condition keeps is still locked by the statement, so
		// the epoch read next is the one that refused this GroupInfo, and
		// no purge or other store can change it before the transaction
		// ends.
		tag, err := tx.Exec(ctx, `INSERT INTO mls_group_info (group_id, epoch, info, updated_at) VALUES ($1, $2, $3, $4)
			ON CONFLICT (group_id) DO UPDATE SET epoch = excluded.epoch, info = excluded.info, updated_at = excluded.updated_at
			WHERE mls_group_info.epoch <= excluded.epoch`, id, int64(epoch), data, now)
		if err != nil {
			return fmt.Errorf("storing the GroupInfo: %w", err)
		}
		if tag.RowsAffected() == 1 {
			return nil
		}
		var current int64
		if err := tx.QueryRow(ctx, `SELECT epoch FROM mls_group_info WHERE group_id = $1`, id).Scan(&current); err != nil {
			return fmt.Errorf("reading the stored GroupInfo's epoch: %w", err)
		}
		return &InfoStaleError{Current: uint64(current)}
	})
}

// GetInfo returns the GroupInfo stored for group id, or ErrUnknownGroup.
func GetInfo(ctx context.Context, pool *pgxpool.Pool, id []byte) (Info, error) {
	var in Info
	var epoch int64
	err := pool.QueryRow(ctx, `SELECT epoch, info FROM mls_group_info WHERE group_id = $1`, id).Scan(&epoch, &in.Data)
	if errors.Is(err, pgx.ErrNoRows) {
		return Info{}, ErrUnknownGroup
	}
	if err != nil {
		return Info{}, fmt.Errorf("reading the GroupInfo: %w", err)
	}
	in.Epoch = uint64(epoch)
	return in, nil
}

// PurgeInfo deletes the GroupInfo of every group that nobody stored since
// before: a row names no account, so no deletion of an account or device
// reaches it, and it goes by age instead (ADR 0101).
func PurgeInfo(ctx context.Context, pool *pgxpool.Pool, before time.Time) (int64, error) {
	tag, err := pool.Exec(ctx, `DELETE FROM mls_group_info WHERE updated_at < $1`, before)
	if err != nil {
		return 0, fmt.Errorf("deleting old GroupInfo: %w", err)
	}
	return tag.RowsAffected(), nil
}
