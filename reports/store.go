package reports

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

// The reports table (migration 0016): filed by the API, read and resolved
// by relay admin, purged by the relay's housekeeping, and gone with the
// account of either side (ON DELETE CASCADE).

var (
	// ErrConflict is a report whose id the reporter already used for a
	// different report.
	ErrConflict = errors.New("this report id was already used for a different report")
	// ErrAccountGone is a report whose reporter or reported account was
	// deleted while it was being filed: nothing was stored.
	ErrAccountGone = errors.New("an account of the report was deleted")
	// ErrUnknown is a number that no report has (any more).
	ErrUnknown = errors.New("no report has this number")
)

// DB is what the functions run on: the pool, or a transaction.
type DB interface {
	Exec(ctx context.Context, sql string, args ...any) (pgconn.CommandTag, error)
	Query(ctx context.Context, sql string, args ...any) (pgx.Rows, error)
	QueryRow(ctx context.Context, sql string, args ...any) pgx.Row
}

// messagesJSON is r's messages as the table keeps them.
func messagesJSON(r *Report) (string, error) {
	b, err := json.Marshal(r.Messages)
	return string(b), err
}

// Find looks for the report that the account reporterID filed with r's id.
// found is false when there is none; when there is one, err is
// ErrConflict unless it is r (the same account reported, reason, comment
// and messages): then number is its number.
func Find(ctx context.Context, db DB, reporterID int64, r *Report) (number int64, found bool, err error) {
	msgs, err := messagesJSON(r)
	if err != nil {
		return 0, false, err
	}
	var same bool
	err = db.QueryRow(ctx, `SELECT r.number, a.username = $3 AND r.reason = $4 AND r.comment = $5 AND r.messages = $6::jsonb
		FROM reports r JOIN accounts a ON a.id = r.about_id
		WHERE r.reporter_id = $1 AND r.client_id = $2`,
		reporterID, r.ID, r.About, r.Reason, r.Comment, msgs).Scan(&number, &same)
	switch {
	case errors.Is(err, pgx.ErrNoRows):
		return 0, false, nil
	case err != nil:
		return 0, false, fmt.Errorf("reading a report: %w", err)
	case !same:
		return number, true, ErrConflict
	}
	return number, true, nil
}

// File stores r, reported by the account reporterID about the account
// aboutID, at now, and returns its number. created is false when the
// reporter had already filed a report with r's id: the same one (a retry;
// nothing is stored), or another (ErrConflict). An account of the report
// deleted meanwhile is ErrAccountGone.
func File(ctx context.Context, db DB, reporterID, aboutID int64, r *Report, now time.Time) (number int64, created bool, err error) {
	msgs, err := messagesJSON(r)
	if err != nil {
		return 0, false, err
	}
	err = db.QueryRow(ctx, `INSERT INTO reports (reporter_id, about_id, client_id, reason, comment, messages, created_at)
		VALUES ($1, $2, $3, $4, $5, $6::jsonb, $7)
		ON CONFLICT (reporter_id, client_id) DO NOTHING RETURNING number`,
		reporterID, aboutID, r.ID, r.Reason, r.Comment, msgs, now).Scan(&number)
	var pgErr *pgconn.PgError
	switch {
	case err == nil:
		return number, true, nil
	case errors.As(err, &pgErr) && pgErr.Code == "23503": // foreign_key_violation
		return 0, false, ErrAccountGone
	case !errors.Is(err, pgx.ErrNoRows):
		return 0, false, fmt.Errorf("storing a report: %w", err)
	}
	// The id was taken, by a retry that raced this one or came before
	// the caller's Find. The row can only have gone since with an account
	// of it (the purge takes resolved reports, 90 days on).
	number, found, err := Find(ctx, db, reporterID, r)
	if err == nil && !found {
		err = ErrAccountGone
	}
	return number, false, err
}

// List returns the open reports, or every report with all, oldest first;
// each without its comment, its messages' content or the note, which
// Get gives, but with the number of its messages.
func List(ctx context.Context, db DB, all bool) ([]Summary, error) {
	rows, err := db.Query(ctx, `SELECT r.number, r.created_at, r.reason, rep.username, ab.username,
			jsonb_array_length(r.messages), r.resolved_at
		FROM reports r JOIN accounts rep ON rep.id = r.reporter_id JOIN accounts ab ON ab.id = r.about_id
		WHERE $1 OR r.resolved_at IS NULL ORDER BY r.number`, all)
	if err != nil {
		return nil, fmt.Errorf("reading the reports: %w", err)
	}
	return pgx.CollectRows(rows, func(row pgx.CollectableRow) (Summary, error) {
		var s Summary
		var resolved *time.Time
		err := row.Scan(&s.Number, &s.CreatedAt, &s.Reason, &s.Reporter, &s.About, &s.Messages, &resolved)
		if resolved != nil {
			s.ResolvedAt = *resolved
		}
		return s, err
	})
}

// Summary is a line of List.
type Summary struct {
	Number          int64
	CreatedAt       time.Time
	Reason          string
	Reporter, About string
	Messages        int
	ResolvedAt      time.Time // zero while open
}

// Get returns the report numbered number, whole; ErrUnknown when no report
// has that number (any more).
func Get(ctx context.Context, db DB, number int64) (Report, error) {
	r := Report{Number: number}
	var msgs []byte
	var resolved *time.Time
	err := db.QueryRow(ctx, `SELECT r.client_id, rep.username, ab.username, r.reason, r.comment, r.messages,
			r.created_at, r.resolved_at, r.note
		FROM reports r JOIN accounts rep ON rep.id = r.reporter_id JOIN accounts ab ON ab.id = r.about_id
		WHERE r.number = $1`, number).Scan(&r.ID, &r.Reporter, &r.About, &r.Reason, &r.Comment, &msgs,
		&r.CreatedAt, &resolved, &r.Note)
	if errors.Is(err, pgx.ErrNoRows) {
		return Report{}, ErrUnknown
	}
	if err != nil {
		return Report{}, fmt.Errorf("reading report %d: %w", number, err)
	}
	if resolved != nil {
		r.ResolvedAt = *resolved
	}
	if err := json.Unmarshal(msgs, &r.Messages); err != nil {
		return Report{}, fmt.Errorf("reading the messages of report %d: %w", number, err)
	}
	return r, nil
}

// Resolve marks the report numbered number resolved at now, with the
// operator's note, and returns when it was resolved. A report resolved
// before keeps its time and note, and already is true; a number that no
// report has is ErrUnknown.
func Resolve(ctx context.Context, db DB, number int64, note string, now time.Time) (resolvedAt time.Time, already bool, err error) {
	err = db.QueryRow(ctx, `UPDATE reports SET resolved_at = $2, note = $3
		WHERE number = $1 AND resolved_at IS NULL RETURNING resolved_at`, number, now, note).Scan(&resolvedAt)
	if err == nil {
		return resolvedAt, false, nil
	}
	if !errors.Is(err, pgx.ErrNoRows) {
		return time.Time{}, false, fmt.Errorf("resolving report %d: %w", number, err)
	}
	var resolved *time.Time
	err = db.QueryRow(ctx, `SELECT resolved_at FROM reports WHERE number = $1`, number).Scan(&resolved)
	switch {
	case errors.Is(err, pgx.ErrNoRows):
		return time.Time{}, false, ErrUnknown
	case err != nil:
		return time.Time{}, false, fmt.Errorf("resolving report %d: %w", number, err)
	case resolved == nil:
		// Not reached: nothing sets resolved_at back to NULL.
		return time.Time{}, false, fmt.Errorf("resolving report %d: the update found it resolved, and it is open", number)
	}
	return *resolved, true, nil
}

// Purge deletes the reports resolved at or before before, and returns how
// many.
func Purge(ctx context.Context, db DB, before time.Time) (int64, error) {
	tag, err := db.Exec(ctx, `DELETE FROM reports WHERE resolved_at <= $1`, before)
	if err != nil {
		return 0, fmt.Errorf("purging resolved reports: %w", err)
	}
	return tag.RowsAffected(), nil
}
