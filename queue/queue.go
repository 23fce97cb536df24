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
	"encoding/hex"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
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
	// ToAccount is the recipient of an envelope whose "to" is one
	// username; its copies all carry ToUsername as "to".
	ToAccount int64
	// ToUsername is the "to" as the idempotency record compares it: the
	// recipient's username, or for a list, the list's ListKey.
	ToUsername string
	// Listed makes this the envelope of a "to" list (ADR 0106): it is
	// queued for the devices of Recipients and of the sender's account,
	// not ToAccount's, and each copy carries as "to" the username of the
	// account it is queued for, the sender's on the sender's other
	// devices.
	Listed bool
	// Recipients are the accounts of a list other than the sender's, each
	// once; it may be empty (a list that names only the sender).
	Recipients []Recipient
	// TS is in Unix milliseconds. The caller sets the relay's clock at the
	// request; Accept replaces it with the ts the envelope was given under
	// its devices' locks, never earlier (ADR 0085).
	TS   int64
	Body []byte
	// Wake: the envelope should wake the recipient's devices by Web Push
	// (a message from another account, not a receipt). AcceptSQL records
	// it on their push subscriptions (ADR 0087).
	Wake bool
}

// Recipient is an account a list envelope is queued for.
type Recipient struct {
	Account  int64
	Username string
}

// ListKey is how an idempotency record keeps a "to" list: "list:" and the
// hex SHA-256 of the list as compact JSON, names in the order sent. A
// username never holds a ':', so a list never matches a single username,
// not even a list of that one name; a record takes the same room for any
// list, and holds no username in the clear (ADR 0106).
func ListKey(names []string) string {
	sum := sha256.Sum256([]byte(`["` + strings.Join(names, `","`) + `"]`))
	return "list:" + hex.EncodeToString(sum[:])
}

// Delivery is one queue row a fan-out wrote.
type Delivery struct {
	DeviceID string
	Seq      int64
	To       string // the "to" the row carries
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

// ReadMany is Read for many devices at once: up to limit envelopes of each
// device's queue after its own seq, in one query, keyed by device.
func ReadMany(ctx context.Context, pool *pgxpool.Pool, deviceIDs []string, after []int64, limit int) (map[string][]Item, error) {
	rows, err := pool.Query(ctx, `SELECT q.device_id, q.seq, q.envelope_id, q.from_username, q.from_device, q.to_username, q.ts, q.body
		FROM unnest($1::text[], $2::bigint[]) AS w (dev, after)
		CROSS JOIN LATERAL (
			SELECT * FROM queue WHERE device_id = w.dev AND seq > w.after ORDER BY seq LIMIT $3
		) q
		ORDER BY q.device_id, q.seq`, deviceIDs, after, limit)
	if err != nil {
		return nil, fmt.Errorf("reading queues: %w", err)
	}
	defer rows.Close()
	items := map[string][]Item{}
	for rows.Next() {
		var dev string
		var it Item
		if err := rows.Scan(&dev, &it.Seq, &it.ID, &it.From, &it.FromDevice, &it.To, &it.TS, &it.Body); err != nil {
			return nil, fmt.Errorf("reading queues: %w", err)
		}
		items[dev] = append(items[dev], it)
	}
	return items, rows.Err()
}

// Head returns the last seq handed out for a device: the resume point of a
// stream with nothing left to replay.
func Head(ctx context.Context, pool *pgxpool.Pool, deviceID string) (int64, error) {
	st, err := State(ctx, pool, deviceID)
	return st.Seq, err
}

// QueueState is where a device's queue stands.
type QueueState struct {
	Seq          int64  // the last seq handed out
	PurgedSeq    int64  // the highest seq deleted undelivered, not yet ACKed past; 0: none
	PurgedReason string // PurgeAge or PurgeSize, when PurgedSeq > 0
}

// State reads a device's queue state.
func State(ctx context.Context, pool *pgxpool.Pool, deviceID string) (QueueState, error) {
	var st QueueState
	err := pool.QueryRow(ctx, `SELECT seq, purged_seq, purged_reason FROM devices WHERE id = $1`, deviceID).
		Scan(&st.Seq, &st.PurgedSeq, &st.PurgedReason)
	if err != nil {
		return QueueState{}, fmt.Errorf("reading queue head: %w", err)
	}
	return st, nil
}

// Why the relay deleted envelopes nobody ACKed.
const (
	PurgeAge  = "age"  // older than the age limit
	PurgeSize = "size" // beyond the device's size limit, oldest first
)

// Purge deletes queued envelopes accepted before olderThan and, for every
// device whose queue holds more than maxBytes of ciphertext, its oldest
// envelopes until the rest fits. For each device that lost envelopes it
// records the highest seq lost and why, so that the device's next stream
// says so. It returns how many envelopes each rule deleted.
func Purge(ctx context.Context, pool *pgxpool.Pool, olderThan time.Time, maxBytes int64) (aged, trimmed int64, err error) {
	const mark = `per AS (SELECT device_id, max(seq) AS upto, count(*) AS n FROM gone GROUP BY device_id),
		marked AS (UPDATE devices d SET purged_seq = greatest(d.purged_seq, per.upto), purged_reason = $2
			FROM per WHERE d.id = per.device_id RETURNING 1)
		SELECT coalesce(sum(n), 0)::bigint FROM per`
	err = pool.QueryRow(ctx, `WITH gone AS (DELETE FROM queue WHERE ts < $1 RETURNING device_id, seq), `+mark,
		olderThan.UnixMilli(), PurgeAge).Scan(&aged)
	if err != nil {
		return 0, 0, fmt.Errorf("purging old envelopes: %w", err)
	}
	// kept is the ciphertext of a row and every newer row of its device:
	// rows where it exceeds the limit are the oldest that do not fit.
	err = pool.QueryRow(ctx, `WITH over AS (
			SELECT device_id FROM queue GROUP BY device_id HAVING sum(octet_length(body)) > $1
		), sized AS (
			SELECT q.device_id, q.seq, sum(octet_length(q.body)) OVER (PARTITION BY q.device_id ORDER BY q.seq DESC) AS kept
			FROM queue q JOIN over USING (device_id)
		), gone AS (
			DELETE FROM queue q USING sized s
			WHERE q.device_id = s.device_id AND q.seq = s.seq AND s.kept > $1
			RETURNING q.device_id, q.seq
		), `+mark, maxBytes, PurgeSize).Scan(&trimmed)
	if err != nil {
		return aged, 0, fmt.Errorf("trimming full queues: %w", err)
	}
	return aged, trimmed, nil
}

// Ack deletes a device's queue rows with seq <= upTo and returns how many it
// deleted. Acking again is harmless; upTo beyond the last seq handed out is
// ErrBadAck, because it would also cover envelopes the device never saw.
// It runs AckSQL for the one ACK; an Acker runs it for many at once.
func Ack(ctx context.Context, pool *pgxpool.Pool, deviceID string, upTo int64) (int64, error) {
	res, err := ackAll(ctx, pool, []string{deviceID}, []int64{upTo})
	if err != nil {
		return 0, err
	}
	return res[0].deleted, res[0].err
}

// AckSQL deletes the queue rows that a list of ACKs covers, in one
// statement: $1 are device ids and $2 the seqs they ACK up to, pairwise; a
// device may appear more than once. It returns one row per device it
// found: the device id, its head (the last seq handed out) and the rows
// deleted for it. An ACK beyond its device's head deletes nothing; the
// others of the same device still count, as if they had come one by one.
//
// It takes no lock on a device row before it deletes, so an ACK never
// waits for a fan-out in flight: seq only grows, so a head read here can
// only be exceeded later, and rows not yet committed are not deleted. An
// ACK at or past the purge mark means the device was told: its stream said
// "purged" before any later envelope. Only then is the device row touched.
const AckSQL = `WITH req AS (
		SELECT r.device_id, r.up_to, d.seq AS head
		FROM unnest($1::text[], $2::bigint[]) AS r(device_id, up_to) JOIN devices d ON d.id = r.device_id),
	ok AS (SELECT device_id, max(up_to) AS up_to FROM req WHERE up_to <= head GROUP BY device_id),
	del AS (DELETE FROM queue q USING ok WHERE q.device_id = ok.device_id AND q.seq <= ok.up_to RETURNING q.device_id),
	told AS (UPDATE devices d SET purged_seq = 0, purged_reason = '' FROM ok
		WHERE d.id = ok.device_id AND d.purged_seq > 0 AND d.purged_seq <= ok.up_to RETURNING 1),
	n AS (SELECT device_id, count(*) AS deleted FROM del GROUP BY device_id)
	SELECT h.device_id, h.head, coalesce(n.deleted, 0)
	FROM (SELECT DISTINCT device_id, head FROM req) h LEFT JOIN n ON n.device_id = h.device_id`

// ackResult is one ACK's answer.
type ackResult struct {
	deleted int64 // rows deleted for its device by the whole statement
	err     error
}

// ackAll runs AckSQL for the ACKs (devs[i], upTos[i]) and answers each
// one. The error is the statement's: when it is set, nothing was deleted.
func ackAll(ctx context.Context, pool *pgxpool.Pool, devs []string, upTos []int64) ([]ackResult, error) {
	out := make([]ackResult, len(devs))
	var qdevs []string
	var qupTos []int64
	for i, upTo := range upTos {
		if upTo < 0 {
			out[i].err = fmt.Errorf("%w: upTo must not be negative", ErrBadAck)
			continue
		}
		qdevs = append(qdevs, devs[i])
		qupTos = append(qupTos, upTo)
	}
	if len(qdevs) == 0 {
		return out, nil
	}
	type found struct{ head, deleted int64 }
	byDevice := make(map[string]found, len(qdevs))
	rows, err := pool.Query(ctx, AckSQL, qdevs, qupTos)
	if err != nil {
		return nil, fmt.Errorf("acking: %w", err)
	}
	var dev string
	var f found
	_, err = pgx.ForEachRow(rows, []any{&dev, &f.head, &f.deleted}, func() error {
		byDevice[dev] = f
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("acking: %w", err)
	}
	for i, upTo := range upTos {
		if out[i].err != nil {
			continue
		}
		f, ok := byDevice[devs[i]]
		switch {
		case !ok:
			out[i].err = errors.New("acking: no such device")
		case upTo > f.head:
			out[i].err = fmt.Errorf("%w: upTo %d is beyond the last seq %d of this device", ErrBadAck, upTo, f.head)
		default:
			out[i].deleted = f.deleted
		}
	}
	return out, nil
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

// AcceptSQL accepts an envelope in one statement, and so in one round trip
// and one implicit transaction (ADR 0017):
//
//   - targets locks the device rows FOR UPDATE in id order: every fan-out
//     locks in the same order, so two that share devices cannot deadlock,
//     whichever accounts each names, and a device revoked meanwhile is
//     re-checked after the lock wait and dropped. A resend, whose
//     idempotency record is already committed, locks nothing.
//   - stamp takes the envelope's ts under those locks (ADR 0085): the
//     relay's clock at the request, raised above the last ts of every
//     target device, so that on each of them ts order is seq order, and
//     above the sending device's, so that an answer is never ordered
//     before what its device had received. The sending device is only
//     read: everything it had received was committed before this
//     statement began.
//   - remembered writes the idempotency record (ADR 0003) with that ts.
//     ON CONFLICT DO NOTHING waits for a concurrent insert of the same key
//     to commit or roll back, so two racing resends cannot both enqueue;
//     when the record already exists nothing else is written.
//   - bumped advances each device's seq and last ts under the lock, which
//     is held until commit, so the next envelope for the device cannot
//     take seq+1 before this one is visible: seq order is commit order
//     (ADR 0002), and so is ts order.
//   - queued writes one queue row per device with its new seq, and the
//     "to" of its account ($11, paired with $7).
//   - contacted makes the sender and each other target account contacts
//     both ways, in one order, so that two first sends between the same
//     accounts wait for each other instead of deadlocking. The contacts
//     table belongs to package devices; it is written here so that
//     accepting stays one statement.
//   - woken records, on the push subscriptions of the other accounts'
//     devices, the seq of an envelope that should wake them ($13), so
//     that the decision to push is made from what committed, and a crash
//     after the commit loses no wake-up (ADR 0087). The table belongs to
//     package push; only the row of a subscribed device is written.
//
// It answers with whether the record was new, the ts it was given and the
// deliveries. Exported so that the benchmark's pgbench reference runs
// exactly the relay's SQL.
//
// Parameters: $1 sender account, $2 envelope id, $3 the "to" the record
// keeps (Envelope.ToUsername), $4 body SHA-256, $5 the relay's clock at
// the request (Unix ms), $6 record expiry, $7 target accounts, the
// sender's included, $8 sending device, $9 sender username, $10 body,
// $11 the "to" of the copies of each target account, in $7's order,
// $12 now, $13 whether the envelope wakes the other accounts' devices.
const AcceptSQL = `
WITH targets AS (
    SELECT id, account_id, last_ts FROM devices
    WHERE account_id = ANY ($7::bigint[]) AND revoked_at IS NULL AND id <> $8
      AND NOT EXISTS (SELECT 1 FROM sent WHERE account_id = $1 AND envelope_id = $2)
    ORDER BY id
    FOR UPDATE
), stamp AS (
    SELECT greatest($5::bigint, (SELECT max(last_ts) + 1 FROM targets),
        (SELECT last_ts + 1 FROM devices WHERE id = $8)) AS ts
), remembered AS (
    INSERT INTO sent (account_id, envelope_id, to_username, body_sha256, ts, expires_at)
    VALUES ($1, $2, $3, $4, (SELECT ts FROM stamp), $6) ON CONFLICT DO NOTHING
    RETURNING ts
), bumped AS (
    UPDATE devices d SET seq = d.seq + 1, last_ts = r.ts
    FROM targets t, remembered r WHERE d.id = t.id
    RETURNING d.id, d.seq, d.last_ts AS ts
), queued AS (
    INSERT INTO queue (device_id, seq, envelope_id, from_username, from_device, to_username, ts, body)
    SELECT b.id, b.seq, $2, $9, $8, n.to_username, b.ts, $10
    FROM bumped b JOIN targets t ON t.id = b.id
    JOIN unnest($7::bigint[], $11::text[]) AS n (account_id, to_username) ON n.account_id = t.account_id
    RETURNING device_id, seq, to_username
), contacted AS (
    INSERT INTO contacts (account_id, contact_id, since)
    SELECT v.a, v.b, $12 FROM unnest($7::bigint[]) AS o (id)
    CROSS JOIN LATERAL (VALUES ($1::bigint, o.id), (o.id, $1::bigint)) AS v (a, b)
    WHERE o.id <> $1 AND EXISTS (SELECT 1 FROM remembered)
    ORDER BY v.a, v.b
    ON CONFLICT DO NOTHING
), woken AS (
    UPDATE push_subscriptions s SET wake_seq = b.seq
    FROM bumped b JOIN targets t ON t.id = b.id
    WHERE $13 AND s.device_id = b.id AND t.account_id <> $1
)
SELECT (SELECT count(*) FROM remembered), coalesce((SELECT ts FROM remembered), 0),
    coalesce(array_agg(device_id), '{}'), coalesce(array_agg(seq), '{}'), coalesce(array_agg(to_username), '{}')
FROM queued`

// Querier is a pool or a transaction.
type Querier interface {
	QueryRow(ctx context.Context, sql string, args ...any) pgx.Row
}

// Accept stores an accepted envelope with AcceptSQL and makes the sender and
// each recipient contacts. It returns the ts the envelope was given and sets
// e.TS to it. For a resend of the same envelope it returns dup=true and the
// original ts; the same id with another recipient or body is
// ErrIDConflict.
func Accept(ctx context.Context, db Querier, e *Envelope, expires, now time.Time) (ts int64, dup bool, ds []Delivery, err error) {
	var fresh int64
	var ids, tos []string
	var seqs []int64
	err = db.QueryRow(ctx, AcceptSQL, acceptArgs(e, expires, now)...).Scan(&fresh, &ts, &ids, &seqs, &tos)
	if err != nil {
		var pgErr *pgconn.PgError
		if errors.As(err, &pgErr) && pgErr.Code == "23503" { // foreign_key_violation
			err = fmt.Errorf("%w (%s)", ErrAccountGone, pgErr.ConstraintName)
		}
		return 0, false, nil, fmt.Errorf("accepting: %w", err)
	}
	if fresh == 1 {
		e.TS = ts
		return ts, false, deliveries(ids, seqs, tos), nil
	}
	ts, err = resent(ctx, db, e)
	return ts, err == nil, nil, err
}

// acceptArgs are AcceptSQL's parameters for e.
func acceptArgs(e *Envelope, expires, now time.Time) []any {
	sum := sha256.Sum256(e.Body)
	accounts, tos := e.targets()
	return []any{e.FromAccount, e.ID, e.ToUsername, sum[:], e.TS, expires,
		accounts, e.FromDevice, e.FromUsername, e.Body, tos, now, e.Wake}
}

// targets are the accounts whose devices get a copy of e, the sender's
// own last, each once, and the "to" each one's copies carry
// (docs/protocol.md, "Fan-out").
func (e *Envelope) targets() (accounts []int64, tos []string) {
	if !e.Listed {
		accounts, tos = []int64{e.ToAccount}, []string{e.ToUsername}
		if e.FromAccount != e.ToAccount {
			accounts, tos = append(accounts, e.FromAccount), append(tos, e.ToUsername)
		}
		return accounts, tos
	}
	accounts, tos = make([]int64, 0, len(e.Recipients)+1), make([]string, 0, len(e.Recipients)+1)
	for _, r := range e.Recipients {
		if r.Account != e.FromAccount { // each account once: its rows would collide
			accounts, tos = append(accounts, r.Account), append(tos, r.Username)
		}
	}
	return append(accounts, e.FromAccount), append(tos, e.FromUsername)
}

func deliveries(ids []string, seqs []int64, tos []string) []Delivery {
	ds := make([]Delivery, len(ids))
	for i := range ids {
		ds[i] = Delivery{DeviceID: ids[i], Seq: seqs[i], To: tos[i]}
	}
	return ds
}

// resent compares e with the idempotency record its id already has and
// returns the original ts, the one its first acceptance was given, setting
// e.TS to it; or ErrIDConflict when the "to" or the body differ.
func resent(ctx context.Context, db Querier, e *Envelope) (int64, error) {
	ts, found, err := Remembered(ctx, db, e)
	if err == nil && !found {
		err = errors.New("reading the earlier envelope: its record is gone")
	}
	if err == nil {
		e.TS = ts
	}
	return ts, err
}

// Remembered looks up the idempotency record of e's id, by e's sender
// account. found is false when the relay has none (never accepted, or
// expired); otherwise ts is the original ts, or err is ErrIDConflict when
// the "to" (ToUsername) or the body differ. The relay asks before it
// refuses an envelope, so that a resend it knows is answered whatever the
// id's age (ADR 0084).
func Remembered(ctx context.Context, db Querier, e *Envelope) (ts int64, found bool, err error) {
	sum := sha256.Sum256(e.Body)
	var to string
	var prior []byte
	err = db.QueryRow(ctx, `SELECT to_username, body_sha256, ts FROM sent WHERE account_id = $1 AND envelope_id = $2`,
		e.FromAccount, e.ID).Scan(&to, &prior, &ts)
	if errors.Is(err, pgx.ErrNoRows) {
		return 0, false, nil
	}
	if err != nil {
		return 0, false, fmt.Errorf("reading the earlier envelope: %w", err)
	}
	if to != e.ToUsername || string(prior) != string(sum[:]) {
		return 0, true, ErrIDConflict
	}
	return ts, true, nil
}

// ErrAccountGone is an envelope whose sender or recipient account was
// deleted after the request's checks: the idempotency record or the
// contact rows would name an account that no longer exists.
var ErrAccountGone = errors.New("the sender or the recipient account was deleted")

// DropAccount deletes, inside tx, everything package queue holds of an
// account being deleted: the queues of its devices, the envelopes it sent
// that still wait in other devices' queues, its idempotency records and
// those of envelopes sent to it. Its devices' seq counters go with their
// rows (package devices). A contact's device whose queue loses an envelope
// this way sees a gap in seq, which the stream protocol allows
// (docs/protocol.md, "DELETE /api/account").
func DropAccount(ctx context.Context, tx pgx.Tx, accountID int64, username string) error {
	for _, q := range []struct {
		sql, what string
		arg       any
	}{
		{`DELETE FROM queue WHERE device_id IN (SELECT id FROM devices WHERE account_id = $1)`, "its queues", accountID},
		// No index serves this: a deletion is rare, and the queue holds
		// only what is not delivered yet.
		{`DELETE FROM queue WHERE from_username = $1`, "what it sent", username},
		{`DELETE FROM sent WHERE account_id = $1`, "its idempotency records", accountID},
		{`DELETE FROM sent WHERE to_username = $1`, "the idempotency records of envelopes to it", username},
	} {
		if _, err := tx.Exec(ctx, q.sql, q.arg); err != nil {
			return fmt.Errorf("deleting %s: %w", q.what, err)
		}
	}
	return nil
}
