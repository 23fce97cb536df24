package queue_test

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"relay/internal/testdb"
	"relay/queue"
)

// TestSeqUnderConcurrentWriters is the acceptance test of ADR 0002. A cursor
// on a BIGSERIAL or a clock skips rows under concurrent writers: A takes
// number 2, B takes 3 and commits first, a reader sees 3 and moves its
// cursor past 2, and when A commits its row is behind the cursor for good.
// seq taken from the device row, under that row's lock, in the transaction
// that inserts the queue row, does not: B cannot take its number until A has
// committed, so the reader sees every row, gapless and in order.
//
// Every case runs that schedule on the relay's own accept path (Accept in a
// transaction, the group committer, or both), with the interleaving forced
// through PostgreSQL's locks, not timing. The controls run the same schedule
// on AcceptSQL with the locked counter replaced by a naive number, and must
// lose A's rows: that proves the schedule measures what it claims.
func TestSeqUnderConcurrentWriters(t *testing.T) {
	fromSequence := variantAccept("bumped AS (SELECT t.id, nextval('naive_seq') AS seq, r.ts FROM targets t, remembered r)", nil)
	outsideTx := variantAccept(
		"bumped AS (SELECT n.id, n.seq, r.ts FROM targets t JOIN unnest($14::text[], $15::bigint[]) AS n (id, seq) ON n.id = t.id, remembered r)",
		numbersOutsideTx)
	cases := []struct {
		name  string
		a     holder
		b     sender
		naive bool // a control: the schedule must lose A's rows
	}{
		{"accept in transactions", holdInTx(relayAccept), sendInTx(relayAccept), false},
		{"group commit behind an open accept", holdInTx(relayAccept), sendInGroup, false},
		{"group commit behind a group commit", holdInGroup, sendInGroup, false},
		{"control: seq from a sequence", holdInTx(fromSequence), sendInTx(fromSequence), true},
		{"control: seq taken outside the transaction", holdInTx(outsideTx), sendInTx(outsideTx), true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got := runSeqSchedule(t, tc.a, tc.b)
			t.Logf("B waited for A: %v; the reader saw %v; the queue holds %v", got.waited, got.seen, got.committed)
			var lost []seqRow // committed, never seen
			for _, r := range got.committed {
				if !slices.Contains(got.seen, r) {
					lost = append(lost, r)
				}
			}
			if tc.naive {
				if got.waited || !slices.ContainsFunc(lost, func(r seqRow) bool { return r.name == "A1" }) {
					t.Fatalf("the naive numbering did not lose A's row: B waited for A: %v, the reader missed %v", got.waited, lost)
				}
				return
			}
			if !got.waited {
				t.Errorf("B committed while A held its number: it did not wait for the device row lock")
			}
			if len(lost) > 0 || !slices.Equal(got.seen, got.committed) {
				t.Fatalf("the reader missed %v: it saw %v, the queue holds %v", lost, got.seen, got.committed)
			}
			for i, r := range got.committed {
				if r.seq != int64(i+1) {
					t.Fatalf("the queue holds %v: seq is not 1..n", got.committed)
				}
			}
		})
	}
}

// seqOutcome is what a schedule ended with.
type seqOutcome struct {
	waited    bool     // B waited for A's lock on the device row
	seen      []seqRow // the rows the reader saw, in the order it saw them
	committed []seqRow // the rows in the device's queue at the end, in seq order
}

// seqRow is a queue row: its seq and the name of its envelope.
type seqRow struct {
	seq  int64
	name string
}

// A holder starts writer A on pool: it returns once A has taken the numbers
// of its first envelope, with A's transaction still open, A's backend pid,
// and commit, which lets A go on and commit.
type holder func(t *testing.T, ctx context.Context, pool *pgxpool.Pool, envs []*queue.Envelope) (pid int32, commit func() error)

// A sender runs writer B on pool to its commit.
type sender func(ctx context.Context, pool *pgxpool.Pool, envs []*queue.Envelope) error

// runSeqSchedule sends envelopes between two accounts, the recipient having
// one device, whose queue the reader follows:
//
//  1. B's path sends one envelope and the reader reads it. This also makes
//     the accounts contacts, so that any wait below is on the device row.
//  2. A sends two envelopes and holds its transaction open.
//  3. B sends two envelopes. Either B waits for A's lock on the device row
//     (PostgreSQL says so), or B commits.
//  4. The reader reads, between the commits.
//  5. A commits; B commits if it was waiting; the reader reads.
//
// The sender has a second device, so that each envelope fans out to two
// devices: a counter shared by all devices leaves gaps in each queue.
func runSeqSchedule(t *testing.T, a holder, b sender) seqOutcome {
	t.Helper()
	reader, url := testdb.Pool(t)
	ctx := context.Background()
	poolA, poolB := namedPool(t, url, "writer_a"), namedPool(t, url, "writer_b")
	if _, err := reader.Exec(ctx, `CREATE SEQUENCE naive_seq`); err != nil { // the controls' numbers
		t.Fatal(err)
	}
	devs := fixture(t, reader, 2, 1)
	from, to := twoAccounts(devs)
	target := devs[to][0]
	names := map[string]string{}
	mk := func(name string) *queue.Envelope {
		e := envelope(from, to, devs[from][0], name)
		names[e.ID] = name
		return e
	}
	warm := mk("warm-up")
	envsA := []*queue.Envelope{mk("A1"), mk("A2")}
	envsB := []*queue.Envelope{mk("B1"), mk("B2")}

	var out seqOutcome
	cursor := int64(0)
	read := func() {
		t.Helper()
		// As the stream does: everything after the last seq written.
		items, err := queue.Read(ctx, reader, target, cursor, math.MaxInt64, 500)
		if err != nil {
			t.Fatal(err)
		}
		for _, it := range items {
			out.seen = append(out.seen, seqRow{it.Seq, names[it.ID]})
			cursor = it.Seq
		}
	}

	if err := b(ctx, poolB, []*queue.Envelope{warm}); err != nil {
		t.Fatal(err)
	}
	read()
	pidA, commitA := a(t, ctx, poolA, envsA)
	bDone := make(chan error, 1)
	go func() { bDone <- b(ctx, poolB, envsB) }()
	committedB := false
	pollUntil(t, "B to wait for A's lock or to commit", func() bool {
		select {
		case err := <-bDone:
			if err != nil {
				t.Fatalf("B: %v", err)
			}
			committedB = true
			return true
		default:
		}
		out.waited = waitsForDeviceRow(t, reader, pidA)
		return out.waited
	})
	read()
	if err := commitA(); err != nil {
		t.Fatalf("A: %v", err)
	}
	if !committedB {
		if err := <-bDone; err != nil {
			t.Fatalf("B: %v", err)
		}
	}
	read()

	rows, err := reader.Query(ctx, `SELECT seq, envelope_id FROM queue WHERE device_id = $1 ORDER BY seq`, target)
	if err != nil {
		t.Fatal(err)
	}
	out.committed, err = pgx.CollectRows(rows, func(row pgx.CollectableRow) (seqRow, error) {
		var r seqRow
		var id string
		err := row.Scan(&r.seq, &id)
		r.name = names[id]
		return r, err
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(out.committed) != 5 {
		t.Fatalf("the queue holds %v, want five rows", out.committed)
	}
	return out
}

// waitsForDeviceRow reports whether writer B's backend waits for a lock that
// pidA holds, and fails the test if that lock is not on a devices row: the
// schedule would then measure the wrong lock. A backend waiting for a row
// lock holds the row's tuple lock while it waits for the holder's
// transaction.
func waitsForDeviceRow(t *testing.T, pool *pgxpool.Pool, pidA int32) bool {
	t.Helper()
	var waiting int
	var onDevices bool
	err := pool.QueryRow(context.Background(), `SELECT count(*), coalesce(bool_and(EXISTS (SELECT 1 FROM pg_locks l
			WHERE l.pid = a.pid AND l.locktype = 'tuple' AND l.relation = 'devices'::regclass)), true)
		FROM pg_stat_activity a
		WHERE a.datname = current_database() AND a.application_name = 'writer_b'
		  AND a.wait_event_type = 'Lock' AND $1 = ANY (pg_blocking_pids(a.pid))`, pidA).Scan(&waiting, &onDevices)
	if err != nil {
		t.Fatal(err)
	}
	if !onDevices {
		t.Fatal("B waits for A, but not for a device row")
	}
	return waiting > 0
}

// pollUntil calls cond until it holds, for at most ten seconds.
func pollUntil(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(2 * time.Millisecond)
	}
}

// namedPool opens a pool on the test database whose backends show name as
// application_name, so that the test can find them in pg_stat_activity.
func namedPool(t *testing.T, url, name string) *pgxpool.Pool {
	t.Helper()
	cfg, err := pgxpool.ParseConfig(url)
	if err != nil {
		t.Fatal(err)
	}
	cfg.ConnConfig.RuntimeParams["application_name"] = name
	pool, err := pgxpool.NewWithConfig(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(pool.Close)
	return pool
}

// acceptFn accepts e inside tx; pool is the writer's, for statements outside
// the transaction.
type acceptFn func(ctx context.Context, tx pgx.Tx, pool *pgxpool.Pool, e *queue.Envelope) error

// relayAccept is the relay's own accept.
func relayAccept(ctx context.Context, tx pgx.Tx, _ *pgxpool.Pool, e *queue.Envelope) error {
	_, dup, _, err := queue.Accept(ctx, tx, e, time.Now().Add(time.Hour), time.Now())
	if err == nil && dup {
		err = errors.New("accepted as a resend")
	}
	return err
}

// variantAccept runs AcceptSQL with the device rows neither locked nor
// counted in the transaction: the bumped step is replaced by bumped, whose
// extra parameters, if any, come from extra. The lock goes too, because a
// lock held to commit serialises the writers whatever numbers them. The
// replacements must apply, or every accept fails, so that a control cannot
// drift from the relay's statement unnoticed.
func variantAccept(bumped string, extra func(ctx context.Context, pool *pgxpool.Pool, args []any) ([]any, error)) acceptFn {
	sql := queue.AcceptSQL
	var stale error
	for _, r := range [][2]string{
		{"ORDER BY id\n    FOR UPDATE\n", "ORDER BY id\n"},
		{`bumped AS (
    UPDATE devices d SET seq = d.seq + 1, last_ts = r.ts
    FROM targets t, remembered r WHERE d.id = t.id
    RETURNING d.id, d.seq, d.last_ts AS ts
)`, bumped},
	} {
		if strings.Count(sql, r[0]) != 1 && stale == nil {
			stale = fmt.Errorf("queue.AcceptSQL no longer contains %q once: update the control", r[0])
		}
		sql = strings.Replace(sql, r[0], r[1], 1)
	}
	return func(ctx context.Context, tx pgx.Tx, pool *pgxpool.Pool, e *queue.Envelope) error {
		if stale != nil {
			return stale
		}
		args := queue.AcceptArgs(e, time.Now().Add(time.Hour), time.Now())
		if extra != nil {
			more, err := extra(ctx, pool, args)
			if err != nil {
				return err
			}
			args = append(args, more...)
		}
		var fresh, ts int64
		var ids, tos []string
		var seqs []int64
		if err := tx.QueryRow(ctx, sql, args...).Scan(&fresh, &ts, &ids, &seqs, &tos); err != nil {
			return err
		}
		if fresh != 1 || len(ids) != 2 {
			return fmt.Errorf("variant accepted fresh=%d for %d devices", fresh, len(ids))
		}
		return nil
	}
}

// numbersOutsideTx advances the target devices' counters in a statement of
// its own, committed at once, and returns their ids and new seqs as the
// parameters $14 and $15.
func numbersOutsideTx(ctx context.Context, pool *pgxpool.Pool, args []any) ([]any, error) {
	var ids []string
	var seqs []int64
	err := pool.QueryRow(ctx, `WITH b AS (UPDATE devices SET seq = seq + 1
			WHERE account_id = ANY ($1::bigint[]) AND revoked_at IS NULL AND id <> $2 RETURNING id, seq)
		SELECT array_agg(id), array_agg(seq) FROM b`, args[6], args[7]).Scan(&ids, &seqs)
	return []any{ids, seqs}, err
}

// holdInTx runs A in an explicit transaction, left open.
func holdInTx(accept acceptFn) holder {
	return func(t *testing.T, ctx context.Context, pool *pgxpool.Pool, envs []*queue.Envelope) (int32, func() error) {
		t.Helper()
		tx, err := pool.Begin(ctx)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { tx.Rollback(ctx) })
		var pid int32
		if err := tx.QueryRow(ctx, `SELECT pg_backend_pid()`).Scan(&pid); err != nil {
			t.Fatal(err)
		}
		for _, e := range envs {
			if err := accept(ctx, tx, pool, e); err != nil {
				t.Fatalf("A: %v", err)
			}
		}
		return pid, func() error { return tx.Commit(ctx) }
	}
}

// sendInTx runs B in an explicit transaction.
func sendInTx(accept acceptFn) sender {
	return func(ctx context.Context, pool *pgxpool.Pool, envs []*queue.Envelope) error {
		return pgx.BeginFunc(ctx, pool, func(tx pgx.Tx) error {
			for _, e := range envs {
				if err := accept(ctx, tx, pool, e); err != nil {
					return err
				}
			}
			return nil
		})
	}
}

// sendInGroup commits envs as one group of a Committer.
func sendInGroup(ctx context.Context, pool *pgxpool.Pool, envs []*queue.Envelope) error {
	c := queue.NewCommitter(pool, 1, 0)
	return groupErr(c, c.CommitGroup(ctx, envs, time.Now().Add(time.Hour), time.Now()))
}

// holdInGroup commits envs as one group of a Committer, held open after the
// first envelope: a blocker transaction has already claimed the last
// envelope's idempotency key, so the group's statement for it waits for the
// blocker, with the device rows locked and the first envelope's numbers
// taken. commit ends the blocker (rolling back, so the key is free) and waits
// for the group.
func holdInGroup(t *testing.T, ctx context.Context, pool *pgxpool.Pool, envs []*queue.Envelope) (int32, func() error) {
	t.Helper()
	blocker, err := pool.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { blocker.Rollback(ctx) })
	var pidBlocker int32
	if err := blocker.QueryRow(ctx, `SELECT pg_backend_pid()`).Scan(&pidBlocker); err != nil {
		t.Fatal(err)
	}
	last := envs[len(envs)-1]
	if _, err := blocker.Exec(ctx, `INSERT INTO sent (account_id, envelope_id, to_username, body_sha256, ts, expires_at)
		VALUES ($1, $2, '', '', 0, now())`, last.FromAccount, last.ID); err != nil {
		t.Fatal(err)
	}
	c := queue.NewCommitter(pool, 1, 0)
	done := make(chan error, 1)
	go func() { done <- groupErr(c, c.CommitGroup(ctx, envs, time.Now().Add(time.Hour), time.Now())) }()
	var pid int32
	pollUntil(t, "A's group to wait for the blocker", func() bool {
		select {
		case err := <-done:
			t.Fatalf("A's group ended before it reached its last envelope: %v", err)
		default:
		}
		err := pool.QueryRow(ctx, `SELECT coalesce(max(pid), 0) FROM pg_stat_activity
			WHERE datname = current_database() AND $1 = ANY (pg_blocking_pids(pid))`, pidBlocker).Scan(&pid)
		if err != nil {
			t.Fatal(err)
		}
		return pid != 0
	})
	return pid, func() error {
		if err := blocker.Rollback(ctx); err != nil {
			return err
		}
		return <-done
	}
}

// groupErr is the first error of a group's results, or an error if the
// group did not commit as one batch.
func groupErr(c *queue.Committer, res []queue.GroupResult) error {
	for _, r := range res {
		if r.Err != nil {
			return r.Err
		}
		if r.Dup {
			return errors.New("accepted as a resend")
		}
	}
	if c.Failed() != 0 {
		return errors.New("the group failed and was accepted one by one")
	}
	return nil
}
