package queue_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"relay/internal/testdb"
	"relay/queue"
)

// chat is two accounts of two devices each, with ids chosen for the
// schedule of TestTSFollowsCommitOrder: y1 sorts first, so that an accept
// locking y1 waits there before it locks anything else.
type chat struct {
	x, y           int64
	x1, x2, y1, y2 string
}

func newChat(t *testing.T, pool *pgxpool.Pool) chat {
	t.Helper()
	ctx := context.Background()
	c := chat{x1: "d2-x1", x2: "d3-x2", y1: "d1-y1", y2: "d4-y2"}
	for _, a := range []struct {
		acc  *int64
		name string
		devs []string
	}{{&c.x, "x", []string{c.x1, c.x2}}, {&c.y, "y", []string{c.y1, c.y2}}} {
		if err := pool.QueryRow(ctx, `INSERT INTO accounts (username, password_hash, public_key) VALUES ($1, 'x', '\x04') RETURNING id`,
			a.name).Scan(a.acc); err != nil {
			t.Fatal(err)
		}
		for _, d := range a.devs {
			if _, err := pool.Exec(ctx, `INSERT INTO devices (id, account_id, name, public_key) VALUES ($1, $2, 'd', '\x04')`, d, *a.acc); err != nil {
				t.Fatal(err)
			}
		}
	}
	return c
}

// deviceQueue is one device's queue: ts and envelope id in seq order.
type deviceQueue struct {
	ts  []int64
	ids []string
}

func queues(t *testing.T, pool *pgxpool.Pool) map[string]deviceQueue {
	t.Helper()
	rows, err := pool.Query(context.Background(), `SELECT device_id, ts, envelope_id FROM queue ORDER BY device_id, seq`)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]deviceQueue{}
	var dev, id string
	var ts int64
	_, err = pgx.ForEachRow(rows, []any{&dev, &ts, &id}, func() error {
		q := out[dev]
		q.ts, q.ids = append(q.ts, ts), append(q.ids, id)
		out[dev] = q
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// disorder returns, for each device whose ts do not rise strictly with
// seq, what its queue holds.
func disorder(qs map[string]deviceQueue, names map[string]string) []string {
	var out []string
	for _, dev := range []string{"d1-y1", "d2-x1", "d3-x2", "d4-y2"} {
		q := qs[dev]
		for i := 1; i < len(q.ts); i++ {
			if q.ts[i] <= q.ts[i-1] {
				var s []string
				for j := range q.ts {
					s = append(s, fmt.Sprintf("%s ts %d", names[q.ids[j]], q.ts[j]))
				}
				out = append(out, fmt.Sprintf("%s in seq order: %s", dev, strings.Join(s, ", ")))
				break
			}
		}
	}
	return out
}

// TestTSFollowsCommitOrder is the acceptance test of ADR 0085. Two sends to
// one chat start in one order and commit in the other: A's request comes
// first (its relay clock reads t0), but A waits for a device row that a
// test transaction holds; B's request comes a second later, does not need
// that row, and commits. On the devices both reach, B takes seq 1 and A
// seq 2. A's ts must then be above B's, as on every device seq order and
// ts order agree, and it is the ts A's sender is answered, the one its
// idempotency record keeps and the one a resend is answered.
//
// The control takes ts at the request as the relay did before: there the
// same schedule leaves A's ts below B's on the devices where A comes
// second, which proves that the schedule reverses the two.
func TestTSFollowsCommitOrder(t *testing.T) {
	atRequest := variantStamp("stamp AS (SELECT $5::bigint AS ts)")
	cases := []struct {
		name    string
		a       func(ctx context.Context, pool *pgxpool.Pool, c chat, a, extra *queue.Envelope) (int64, error)
		control bool // the schedule must leave ts in the other order
	}{
		{"one accept", acceptAlone(relayAcceptTS), false},
		{"group commit", acceptInGroup, false},
		{"control: ts taken at the request", acceptAlone(atRequest), true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			reader, url := testdb.Pool(t)
			pool := namedPool(t, url, "writer_a")
			ctx := context.Background()
			c := newChat(t, reader)
			t0 := time.Now().Truncate(time.Millisecond)
			a := envelope(c.x, c.y, c.x1, "A")
			a.TS = t0.UnixMilli()
			// A second envelope of A's group, whose request came even
			// earlier: within the group it still goes after A.
			extra := envelope(c.x, c.y, c.x1, "A2")
			extra.TS = t0.Add(-time.Second).UnixMilli()
			b := envelope(c.y, c.x, c.y1, "B")
			b.TS = t0.Add(time.Second).UnixMilli()
			names := map[string]string{a.ID: "A", extra.ID: "A2", b.ID: "B"}

			// The test transaction holds y1, the first device A locks.
			blocker, err := reader.Begin(ctx)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { blocker.Rollback(ctx) })
			var pidBlocker int32
			if err := blocker.QueryRow(ctx, `SELECT pg_backend_pid() FROM devices WHERE id = $1 FOR UPDATE`, c.y1).Scan(&pidBlocker); err != nil {
				t.Fatal(err)
			}
			aDone := make(chan error, 1)
			var tsA int64
			go func() {
				var err error
				tsA, err = tc.a(ctx, pool, c, a, extra)
				aDone <- err
			}()
			pollUntil(t, "A to wait for the test transaction's lock on y1", func() bool {
				select {
				case err := <-aDone:
					t.Fatalf("A ended before the lock on y1 was released: %v", err)
				default:
				}
				var waiting int
				if err := reader.QueryRow(ctx, `SELECT count(*) FROM pg_stat_activity
					WHERE datname = current_database() AND application_name = 'writer_a'
					  AND $1 = ANY (pg_blocking_pids(pid))`, pidBlocker).Scan(&waiting); err != nil {
					t.Fatal(err)
				}
				return waiting > 0
			})
			tsB, dup, _, err := queue.Accept(ctx, reader, b, t0.Add(time.Hour), t0)
			if err != nil || dup {
				t.Fatalf("B: dup %v, %v", dup, err)
			}
			if err := blocker.Rollback(ctx); err != nil {
				t.Fatal(err)
			}
			if err := <-aDone; err != nil {
				t.Fatalf("A: %v", err)
			}

			qs := queues(t, reader)
			for _, dev := range []string{c.x2, c.y2} {
				if got := qs[dev].ids; len(got) < 2 || got[0] != b.ID || got[1] != a.ID {
					t.Fatalf("%s holds %v in seq order; the schedule must commit B, then A", dev, got)
				}
			}
			bad := disorder(qs, names)
			t.Logf("A asked at %d and was given %d; B asked at %d and was given %d", t0.UnixMilli(), tsA, b.TS, tsB)
			if tc.control {
				if len(bad) == 0 {
					t.Fatal("with ts taken at the request, ts order still agrees with seq order: the schedule does not reverse A and B")
				}
				t.Logf("as expected: %s", strings.Join(bad, "; "))
				return
			}
			if len(bad) > 0 {
				t.Fatalf("ts order is not seq order: %s", strings.Join(bad, "; "))
			}
			// Every copy of an envelope has the ts its sender was
			// answered, and so has its idempotency record.
			for _, e := range []*queue.Envelope{a, extra, b} {
				if names[e.ID] == "A2" && tc.name != "group commit" {
					continue
				}
				var stored int64
				if err := reader.QueryRow(ctx, `SELECT ts FROM sent WHERE account_id = $1 AND envelope_id = $2`, e.FromAccount, e.ID).Scan(&stored); err != nil {
					t.Fatal(err)
				}
				for dev, q := range qs {
					for i, id := range q.ids {
						if id == e.ID && q.ts[i] != stored {
							t.Errorf("%s: %s has ts %d, its idempotency record %d", dev, names[id], q.ts[i], stored)
						}
					}
				}
				if e.TS != stored {
					t.Errorf("%s: answered ts %d, its idempotency record %d", names[e.ID], e.TS, stored)
				}
			}
			if tsA != a.TS || tsB != b.TS {
				t.Errorf("the answers (%d, %d) are not the envelopes' ts (%d, %d)", tsA, tsB, a.TS, b.TS)
			}
			// A resend, later still, is answered the ts A was given, alone
			// and in a group.
			again := *a
			again.TS = t0.Add(time.Minute).UnixMilli()
			if ts, dup, _, err := queue.Accept(ctx, reader, &again, t0.Add(time.Hour), t0); err != nil || !dup || ts != tsA {
				t.Errorf("resend: ts %d dup %v %v; want %d", ts, dup, err, tsA)
			}
			again.TS = t0.Add(time.Minute).UnixMilli()
			fresh := envelope(c.x, c.y, c.x1, "C")
			res := queue.NewCommitter(reader, 1, 0).CommitGroup(ctx, []*queue.Envelope{&again, fresh}, t0.Add(time.Hour), t0)
			if res[0].Err != nil || !res[0].Dup || res[0].TS != tsA {
				t.Errorf("resend in a group: %+v; want dup with ts %d", res[0], tsA)
			}
			if bad := disorder(queues(t, reader), names); len(bad) > 0 {
				t.Fatalf("after the resends: %s", strings.Join(bad, "; "))
			}
		})
	}
}

// tsAccept accepts e on pool and returns the ts it was given.
type tsAccept func(ctx context.Context, pool *pgxpool.Pool, e *queue.Envelope) (int64, error)

func relayAcceptTS(ctx context.Context, pool *pgxpool.Pool, e *queue.Envelope) (int64, error) {
	ts, dup, _, err := queue.Accept(ctx, pool, e, time.Now().Add(time.Hour), time.Now())
	if err == nil && dup {
		err = fmt.Errorf("accepted as a resend")
	}
	return ts, err
}

// acceptAlone sends A alone; the group's second envelope is not sent.
func acceptAlone(accept tsAccept) func(ctx context.Context, pool *pgxpool.Pool, c chat, a, extra *queue.Envelope) (int64, error) {
	return func(ctx context.Context, pool *pgxpool.Pool, _ chat, a, _ *queue.Envelope) (int64, error) {
		return accept(ctx, pool, a)
	}
}

// acceptInGroup commits A and the extra envelope as one group: the group
// locks every device of both accounts first, y1 among them. The extra
// envelope's request came before A's, but it is committed after A.
func acceptInGroup(ctx context.Context, pool *pgxpool.Pool, _ chat, a, extra *queue.Envelope) (int64, error) {
	c := queue.NewCommitter(pool, 1, 0)
	res := c.CommitGroup(ctx, []*queue.Envelope{a, extra}, time.Now().Add(time.Hour), time.Now())
	if err := groupErr(c, res); err != nil {
		return 0, err
	}
	return res[0].TS, nil
}

// variantStamp runs AcceptSQL with its stamp step replaced.
func variantStamp(stamp string) tsAccept {
	sql := queue.AcceptSQL
	const from, to = "stamp AS (", "), remembered AS ("
	i, j := strings.Index(sql, from), strings.Index(sql, to)
	stale := i < 0 || j < i || strings.Count(sql, from) != 1
	if !stale {
		sql = sql[:i] + stamp + sql[j+1:]
	}
	return func(ctx context.Context, pool *pgxpool.Pool, e *queue.Envelope) (int64, error) {
		if stale {
			return 0, fmt.Errorf("queue.AcceptSQL no longer has one %q step: update the control", from)
		}
		var fresh, ts int64
		var ids, tos []string
		var seqs []int64
		err := pool.QueryRow(ctx, sql, queue.AcceptArgs(e, time.Now().Add(time.Hour), time.Now())...).Scan(&fresh, &ts, &ids, &seqs, &tos)
		if err == nil && fresh != 1 {
			err = fmt.Errorf("variant accepted fresh=%d", fresh)
		}
		return ts, err
	}
}

// TestTSNeverGoesBack: ts is the relay's clock at the request unless a
// device has been given a later one, as an instance whose clock is behind
// another's, or a clock set back, would give. Sent one after the other,
// each envelope's ts is above the last ts of every device it reaches, and
// above the sending device's: an answer is never ordered before what its
// device had received, even when no device receives both.
func TestTSNeverGoesBack(t *testing.T) {
	pool, _ := testdb.Pool(t)
	ctx := context.Background()
	devs := fixture(t, pool, 1, 1, 2)
	accs := accountIDs(devs)
	x, y, z := accs[0], accs[1], accs[2] // y: one device; z: two
	t0 := time.Now().Truncate(time.Millisecond)
	send := func(from, to int64, dev string, at time.Time) int64 {
		t.Helper()
		e := envelope(from, to, dev, "m")
		e.TS = at.UnixMilli()
		ts, _, _, err := queue.Accept(ctx, pool, e, t0.Add(time.Hour), t0)
		if err != nil {
			t.Fatal(err)
		}
		return ts
	}
	steps := []struct {
		name     string
		from, to int64
		dev      string
		at       time.Time
		want     func(prev int64) int64
	}{
		{"x to y at t0: the clock", x, y, devs[x][0], t0, func(int64) int64 { return t0.UnixMilli() }},
		{"y answers from a clock 3 s behind: after what it received", y, x, devs[y][0], t0.Add(-3 * time.Second), func(p int64) int64 { return p + 1 }},
		{"x again, at t0: after what x received", x, y, devs[x][0], t0, func(p int64) int64 { return p + 1 }},
		{"z to x, 5 s later: the clock", z, x, devs[z][0], t0.Add(5 * time.Second), func(int64) int64 { return t0.Add(5 * time.Second).UnixMilli() }},
		{"x to z from the slow clock: after what z's devices had", x, z, devs[x][0], t0.Add(-3 * time.Second), func(p int64) int64 { return p + 1 }},
		{"z's other device to y, from the slow clock: after what it had", z, y, devs[z][1], t0.Add(-3 * time.Second), func(p int64) int64 { return p + 1 }},
	}
	prev := int64(0)
	for _, s := range steps {
		got := send(s.from, s.to, s.dev, s.at)
		if want := s.want(prev); got != want {
			t.Fatalf("%s: ts %d, want %d (the one before: %d)", s.name, got, want, prev)
		}
		prev = got
	}
}
