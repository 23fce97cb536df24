package attachments

import (
	"context"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

// Postgres is the Store in the relay's own database: the attachments and
// attachment_parts tables, a row per part, each part read a range at a
// time (storage external, so a range reads only its own pages).
type Postgres struct {
	pool   *pgxpool.Pool
	limits Limits
}

// NewPostgres is the Store in pool's database, with limits.
func NewPostgres(pool *pgxpool.Pool, limits Limits) *Postgres {
	return &Postgres{pool: pool, limits: limits}
}

var _ Store = (*Postgres)(nil)

const columns = `id, account_id, size, part_size, finished_at IS NOT NULL, expires_at`

func scan(row pgx.Row) (Attachment, error) {
	var a Attachment
	err := row.Scan(&a.ID, &a.Account, &a.Size, &a.PartSize, &a.Finished, &a.Expires)
	if errors.Is(err, pgx.ErrNoRows) {
		return Attachment{}, ErrUnknown
	}
	return a, err
}

// Create checks the size and the account's quota and inserts the row,
// under the account row's lock, so that two uploads of one account cannot
// both pass the quota.
func (p *Postgres) Create(ctx context.Context, account int64, size int64, now time.Time) (Attachment, error) {
	if size > p.limits.MaxSize {
		return Attachment{}, &TooLargeError{Max: p.limits.MaxSize}
	}
	id, err := newID()
	if err != nil {
		return Attachment{}, err
	}
	var a Attachment
	err = pgx.BeginFunc(ctx, p.pool, func(tx pgx.Tx) error {
		// NO KEY UPDATE: it orders the creations of one account and waits
		// for a deletion of the account, but not for the foreign keys that
		// other rows hold on it.
		tag, err := tx.Exec(ctx, `SELECT 1 FROM accounts WHERE id = $1 FOR NO KEY UPDATE`, account)
		if err != nil {
			return fmt.Errorf("locking the account: %w", err)
		}
		if tag.RowsAffected() == 0 {
			return ErrAccountGone
		}
		var used int64
		if err := tx.QueryRow(ctx, `SELECT coalesce(sum(size), 0) FROM attachments WHERE account_id = $1 AND expires_at > $2`,
			account, now).Scan(&used); err != nil {
			return fmt.Errorf("summing the account's attachments: %w", err)
		}
		if used+size > p.limits.Quota {
			return &QuotaError{Used: used, Quota: p.limits.Quota}
		}
		a, err = scan(tx.QueryRow(ctx, `INSERT INTO attachments (id, account_id, size, part_size, created_at, expires_at)
			VALUES ($1, $2, $3, $4, $5, $6) RETURNING `+columns,
			id, account, size, PartSize, now, now.Add(UploadWindow)))
		return err
	})
	if err != nil {
		return Attachment{}, err
	}
	return a, nil
}

// owned is account's attachment id, unexpired, locked as lock says
// ("SHARE" or "UPDATE").
func owned(ctx context.Context, tx pgx.Tx, account int64, id []byte, now time.Time, lock string) (Attachment, error) {
	return scan(tx.QueryRow(ctx, `SELECT `+columns+` FROM attachments
		WHERE id = $1 AND account_id = $2 AND expires_at > $3 FOR `+lock, id, account, now))
}

// PutPart stores part n under the attachment row's share lock: parts of
// one attachment arrive at once, and Finish, which takes the row's
// exclusive lock, sees every part stored before it.
func (p *Postgres) PutPart(ctx context.Context, account int64, id []byte, n int, data []byte, now time.Time) error {
	return pgx.BeginFunc(ctx, p.pool, func(tx pgx.Tx) error {
		a, err := owned(ctx, tx, account, id, now, "SHARE")
		if err != nil {
			return err
		}
		if a.Finished {
			return ErrFinished
		}
		if n >= a.Parts() || len(data) != a.PartLen(n) {
			return &PartError{N: n, Parts: a.Parts(), Len: len(data), Want: a.PartLen(min(n, a.Parts()-1))}
		}
		_, err = tx.Exec(ctx, `INSERT INTO attachment_parts (attachment_id, n, data) VALUES ($1, $2, $3)
			ON CONFLICT (attachment_id, n) DO UPDATE SET data = EXCLUDED.data`, id, n, data)
		return err
	})
}

func received(ctx context.Context, q pgx.Tx, id []byte) ([]int, error) {
	rows, err := q.Query(ctx, `SELECT n FROM attachment_parts WHERE attachment_id = $1 ORDER BY n`, id)
	if err != nil {
		return nil, err
	}
	return pgx.CollectRows(rows, pgx.RowTo[int])
}

// Received is the attachment and its parts held.
func (p *Postgres) Received(ctx context.Context, account int64, id []byte, now time.Time) (Attachment, []int, error) {
	var a Attachment
	var got []int
	err := pgx.BeginFunc(ctx, p.pool, func(tx pgx.Tx) error {
		var err error
		if a, err = owned(ctx, tx, account, id, now, "SHARE"); err != nil {
			return err
		}
		got, err = received(ctx, tx, id)
		return err
	})
	return a, got, err
}

// Finish marks the attachment finished, and sets its expiry to
// Limits.MaxAge from now, once every part is stored; with f.To, it lists
// the devices the attachment waits for, in the same transaction.
func (p *Postgres) Finish(ctx context.Context, account int64, id []byte, f Fetchers, now time.Time) (Attachment, error) {
	var a Attachment
	err := pgx.BeginFunc(ctx, p.pool, func(tx pgx.Tx) error {
		var err error
		if a, err = owned(ctx, tx, account, id, now, "UPDATE"); err != nil || a.Finished {
			return err
		}
		got, err := received(ctx, tx, id)
		if err != nil {
			return err
		}
		if m := missing(a, got); len(m) > 0 {
			return &IncompleteError{Missing: m}
		}
		age := p.limits.MaxAge
		switch {
		case f.For != "":
			if err := listOne(ctx, tx, account, id, f); err != nil {
				return err
			}
			age = TransferMaxAge
		case f.To != nil:
			if err := list(ctx, tx, account, id, f); err != nil {
				return err
			}
		}
		a, err = scan(tx.QueryRow(ctx, `UPDATE attachments SET finished_at = $2, expires_at = $3, listed = $4
			WHERE id = $1 RETURNING `+columns, id, now, now.Add(age), f.To != nil || f.For != ""))
		return err
	})
	return a, err
}

// list inserts the devices attachment id waits for: the live devices of
// the accounts f.To names and of the uploader's account, but f.Device.
func list(ctx context.Context, tx pgx.Tx, account int64, id []byte, f Fetchers) error {
	rows, err := tx.Query(ctx, `SELECT n FROM unnest($1::text[]) AS n
		WHERE NOT EXISTS (SELECT 1 FROM accounts WHERE username = n) LIMIT 1`, f.To)
	if err != nil {
		return err
	}
	unknown, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		return err
	}
	if len(unknown) > 0 {
		return &UnknownAccountError{Username: unknown[0]}
	}
	_, err = tx.Exec(ctx, `INSERT INTO attachment_fetches (attachment_id, device_id)
		SELECT $1, d.id FROM devices d
		WHERE d.revoked_at IS NULL AND d.id <> $4
		  AND (d.account_id = $2 OR d.account_id IN (SELECT id FROM accounts WHERE username = ANY ($3)))
		ON CONFLICT DO NOTHING`, id, account, f.To, f.Device)
	return err
}

// listOne makes attachment id wait for the device f.For alone, which must
// be a live device of the uploader's account other than f.Device.
func listOne(ctx context.Context, tx pgx.Tx, account int64, id []byte, f Fetchers) error {
	tag, err := tx.Exec(ctx, `INSERT INTO attachment_fetches (attachment_id, device_id)
		SELECT $1, d.id FROM devices d
		WHERE d.id = $3 AND d.account_id = $2 AND d.revoked_at IS NULL AND d.id <> $4
		ON CONFLICT DO NOTHING`, id, account, f.For, f.Device)
	if err == nil && tag.RowsAffected() == 0 {
		return ErrUnknownDevice
	}
	return err
}

// waitsForNobody is the condition of an attachment whose listed devices
// have all fetched it or are revoked.
const waitsForNobody = `listed AND NOT EXISTS (SELECT 1 FROM attachment_fetches f JOIN devices d ON d.id = f.device_id
	WHERE f.attachment_id = attachments.id AND d.revoked_at IS NULL)`

// Fetched deletes device's row of the attachment, then the attachment if
// it waits for nobody else. The attachment row's lock orders two last
// fetches, so that one of them deletes it.
func (p *Postgres) Fetched(ctx context.Context, id []byte, device string, now time.Time) (bool, error) {
	var gone bool
	err := pgx.BeginFunc(ctx, p.pool, func(tx pgx.Tx) error {
		var listed bool
		err := tx.QueryRow(ctx, `SELECT listed FROM attachments WHERE id = $1 AND finished_at IS NOT NULL AND expires_at > $2 FOR UPDATE`, id, now).Scan(&listed)
		if errors.Is(err, pgx.ErrNoRows) {
			return ErrUnknown
		}
		if err != nil || !listed {
			return err
		}
		if _, err := tx.Exec(ctx, `DELETE FROM attachment_fetches WHERE attachment_id = $1 AND device_id = $2`, id, device); err != nil {
			return err
		}
		tag, err := tx.Exec(ctx, `DELETE FROM attachments WHERE id = $1 AND `+waitsForNobody, id)
		gone = err == nil && tag.RowsAffected() > 0
		return err
	})
	return gone, err
}

// Get is the attachment, if finished and unexpired; its uploader asking
// for an unfinished one gets the parts it misses.
func (p *Postgres) Get(ctx context.Context, account int64, id []byte, now time.Time) (Attachment, error) {
	a, err := scan(p.pool.QueryRow(ctx, `SELECT `+columns+` FROM attachments WHERE id = $1 AND expires_at > $2`, id, now))
	if err != nil || a.Finished {
		return a, err
	}
	if a.Account != account {
		return Attachment{}, ErrUnknown
	}
	_, got, err := p.Received(ctx, account, id, now)
	if err != nil {
		return Attachment{}, err
	}
	return Attachment{}, &IncompleteError{Missing: missing(a, got)}
}

// Read writes bytes [off, off+n) of a to w, one part's range per query,
// so that no more than a part is ever in memory. A part gone meanwhile
// (the attachment was deleted) is ErrUnknown, after what was written.
func (p *Postgres) Read(ctx context.Context, a Attachment, off, n int64, w io.Writer) error {
	for n > 0 {
		part := off / int64(a.PartSize)
		from := off - part*int64(a.PartSize)
		take := min(n, int64(a.PartLen(int(part)))-from)
		var b []byte
		// substring counts from 1.
		err := p.pool.QueryRow(ctx, `SELECT substring(data FROM $3 FOR $4) FROM attachment_parts
			WHERE attachment_id = $1 AND n = $2`, a.ID, part, from+1, take).Scan(&b)
		if errors.Is(err, pgx.ErrNoRows) || (err == nil && int64(len(b)) != take) {
			return ErrUnknown
		}
		if err != nil {
			return err
		}
		if _, err := w.Write(b); err != nil {
			return err
		}
		off += take
		n -= take
	}
	return nil
}

// Delete deletes the attachment and its parts.
func (p *Postgres) Delete(ctx context.Context, account int64, id []byte) error {
	tag, err := p.pool.Exec(ctx, `DELETE FROM attachments WHERE id = $1 AND account_id = $2`, id, account)
	if err != nil {
		return err
	}
	if tag.RowsAffected() == 0 {
		return ErrUnknown
	}
	return nil
}

// purgeBatch bounds the attachments one purge transaction deletes: each
// takes its parts with it, up to MaxSize bytes of them.
const purgeBatch = 20

// Purge deletes expired attachments, and those that wait for no live
// device any more (the last ones it waited for were revoked), a batch per
// transaction.
func (p *Postgres) Purge(ctx context.Context, now time.Time) (int64, error) {
	var total int64
	for {
		tag, err := p.pool.Exec(ctx, `DELETE FROM attachments WHERE id IN
			(SELECT id FROM attachments WHERE expires_at <= $1 OR (`+waitsForNobody+`) LIMIT $2)`, now, purgeBatch)
		if err != nil {
			return total, fmt.Errorf("purging attachments: %w", err)
		}
		total += tag.RowsAffected()
		if tag.RowsAffected() < purgeBatch {
			return total, nil
		}
	}
}

// DropDevice deletes the rows of the attachments that wait for device, in
// tx: the device was revoked, and will never fetch them.
func DropDevice(ctx context.Context, tx pgx.Tx, device string) error {
	_, err := tx.Exec(ctx, `DELETE FROM attachment_fetches WHERE device_id = $1`, device)
	return err
}
