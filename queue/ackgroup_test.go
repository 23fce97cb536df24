package queue_test

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"relay/internal/testdb"
	"relay/queue"
)

// queued sends n envelopes from account from to account to, so that each
// of to's devices has seqs 1..n queued.
func queued(t *testing.T, pool *pgxpool.Pool, from, to int64, fromDevice string, n int) {
	t.Helper()
	for i := range n {
		if _, _, _, err := queue.Accept(context.Background(), pool, envelope(from, to, fromDevice, fmt.Sprint(i)), time.Now().Add(time.Hour), time.Now()); err != nil {
			t.Fatal(err)
		}
	}
}

// left is how many queue rows a device has.
func left(t *testing.T, pool *pgxpool.Pool, dev string) int {
	t.Helper()
	var n int
	if err := pool.QueryRow(context.Background(), `SELECT count(*) FROM queue WHERE device_id = $1`, dev).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

// One group answers each ACK as if it had come alone, in one statement:
// an ACK beyond its device's head is ErrBadAck and deletes nothing, while
// the other ACKs of the group, of the same device too, still apply. The
// control is the second device: a statement that took each device's
// highest ACK without checking it first against the head would delete
// nothing for it, and the check on its rows fails.
func TestAckGroupAnswersEachAck(t *testing.T) {
	pool, _ := testdb.Pool(t)
	ctx := context.Background()
	devs := fixture(t, pool, 1, 4)
	a, b := twoAccounts(devs)
	queued(t, pool, a, b, devs[a][0], 5)
	d := devs[b]
	acker := queue.NewAcker(pool, 1, 0)

	res := acker.AckGroup(ctx,
		[]string{d[0], d[1], d[1], d[2], d[2], d[3], "01NOSUCHDEVICE0000000000000"},
		[]int64{3, 2, 99, 1, 4, -1, 1}, nil)

	for i, want := range []struct {
		deleted int64
		bad     bool
		other   bool
	}{
		{deleted: 3},
		{deleted: 2}, {bad: true},
		{deleted: 4}, {deleted: 4}, // the group deleted 4 rows of d[2] for both
		{bad: true},
		{other: true},
	} {
		r := res[i]
		switch {
		case want.bad:
			if !errors.Is(r.Err, queue.ErrBadAck) {
				t.Errorf("ACK %d: %v, want ErrBadAck", i, r.Err)
			}
		case want.other:
			if r.Err == nil || errors.Is(r.Err, queue.ErrBadAck) {
				t.Errorf("ACK %d of an unknown device: %v, want an error other than ErrBadAck", i, r.Err)
			}
		case r.Err != nil || r.Deleted != want.deleted:
			t.Errorf("ACK %d: deleted %d, %v; want %d", i, r.Deleted, r.Err, want.deleted)
		}
	}
	for i, want := range []int{2, 3, 1, 5} {
		if n := left(t, pool, d[i]); n != want {
			t.Errorf("device %d keeps %d rows, want %d", i, n, want)
		}
	}
	if acker.Failed() != 0 {
		t.Errorf("%d groups failed as a whole", acker.Failed())
	}
}

// An ACK at or past a device's purge mark clears it, in a group as alone;
// an ACK below the mark leaves it.
func TestAckGroupClearsPurgeMark(t *testing.T) {
	pool, _ := testdb.Pool(t)
	ctx := context.Background()
	devs := fixture(t, pool, 1, 3)
	a, b := twoAccounts(devs)
	queued(t, pool, a, b, devs[a][0], 4)
	d := devs[b]
	if _, err := pool.Exec(ctx, `UPDATE devices SET purged_seq = 2, purged_reason = $1 WHERE account_id = $2`, queue.PurgeAge, b); err != nil {
		t.Fatal(err)
	}

	res := queue.NewAcker(pool, 1, 0).AckGroup(ctx, []string{d[0], d[1]}, []int64{2, 1}, nil)
	for i, r := range res {
		if r.Err != nil {
			t.Fatalf("ACK %d: %v", i, r.Err)
		}
	}
	if _, err := queue.Ack(ctx, pool, d[2], 4); err != nil {
		t.Fatal(err)
	}
	for i, want := range []int64{0, 2, 0} {
		st, err := queue.State(ctx, pool, d[i])
		if err != nil {
			t.Fatal(err)
		}
		if st.PurgedSeq != want {
			t.Errorf("device %d: purge mark %d, want %d", i, st.PurgedSeq, want)
		}
	}
}

// An ACK whose client left before its group ran deletes nothing and is
// answered with the context's error; the rest of the group still runs.
func TestAckGroupDropsCancelledAck(t *testing.T) {
	pool, _ := testdb.Pool(t)
	ctx := context.Background()
	devs := fixture(t, pool, 1, 2)
	a, b := twoAccounts(devs)
	queued(t, pool, a, b, devs[a][0], 2)
	d := devs[b]
	gone, cancel := context.WithCancel(ctx)
	cancel()

	res := queue.NewAcker(pool, 1, 0).AckGroup(ctx, []string{d[0], d[1]}, []int64{2, 2}, []context.Context{gone, ctx})
	if !errors.Is(res[0].Err, context.Canceled) {
		t.Errorf("the cancelled ACK: %v, want context.Canceled", res[0].Err)
	}
	if res[1].Err != nil || res[1].Deleted != 2 {
		t.Errorf("the live ACK: deleted %d, %v; want 2", res[1].Deleted, res[1].Err)
	}
	if n := left(t, pool, d[0]); n != 2 {
		t.Errorf("the cancelled ACK's device keeps %d rows, want 2", n)
	}
}

// Through Run, ACKs from many goroutines at once, several per device and
// in any order, each get a right answer and together empty every queue;
// after Run has returned, Ack still works, alone. goleak (TestMain) checks
// that Run's workers are gone.
func TestAckerConcurrent(t *testing.T) {
	pool, _ := testdb.Pool(t)
	ctx := context.Background()
	devs := fixture(t, pool, 1, 8)
	a, b := twoAccounts(devs)
	const n = 6
	queued(t, pool, a, b, devs[a][0], n)
	acker := queue.NewAcker(pool, 2, 4)
	runCtx, stop := context.WithCancel(ctx)
	ran := make(chan struct{})
	go func() {
		defer close(ran)
		acker.Run(runCtx)
	}()

	var wg sync.WaitGroup
	errs := make(chan error, len(devs[b])*(n+1))
	for _, dev := range devs[b] {
		for upTo := int64(n); upTo >= 0; upTo-- {
			wg.Go(func() {
				if _, err := acker.Ack(ctx, dev, upTo); err != nil {
					errs <- fmt.Errorf("ACK %d: %w", upTo, err)
				}
			})
		}
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	for i, dev := range devs[b] {
		if k := left(t, pool, dev); k != 0 {
			t.Errorf("device %d keeps %d rows", i, k)
		}
	}

	stop()
	<-ran
	if _, err := acker.Ack(ctx, devs[b][0], n+1); !errors.Is(err, queue.ErrBadAck) {
		t.Errorf("an ACK beyond the head after Run: %v, want ErrBadAck", err)
	}
}

// BenchmarkAckParallel ACKs one 1 KiB envelope at a time from 32 devices
// at once, each ACK its own, alone and grouped, against the real database.
func BenchmarkAckParallel(b *testing.B) {
	for _, bc := range []struct {
		name    string
		grouped bool
	}{{"alone", false}, {"grouped", true}} {
		b.Run(bc.name, func(b *testing.B) {
			pool, _ := testdb.Pool(b)
			ctx := context.Background()
			const parallelism = 16 // goroutines per GOMAXPROCS
			n := parallelism * runtime.GOMAXPROCS(0)
			all := fixture(b, pool, n)
			devs := all[accountIDs(all)[0]]
			// Every device gets b.N rows, more than it will ACK.
			if _, err := pool.Exec(ctx, `INSERT INTO queue (device_id, seq, envelope_id, from_username, from_device, to_username, ts, body)
				SELECT d, s, 'e', 'u', 'f', 'v', 0, convert_to(repeat('x', 1024), 'UTF8') FROM unnest($1::text[]) d, generate_series(1, $2) s`, devs, b.N); err != nil {
				b.Fatal(err)
			}
			if _, err := pool.Exec(ctx, `UPDATE devices SET seq = $1`, b.N); err != nil {
				b.Fatal(err)
			}
			ack := func(dev string, upTo int64) error {
				_, err := queue.Ack(ctx, pool, dev, upTo)
				return err
			}
			if bc.grouped {
				acker := queue.NewAcker(pool, 0, 0)
				runCtx, stop := context.WithCancel(ctx)
				ran := make(chan struct{})
				go func() {
					defer close(ran)
					acker.Run(runCtx)
				}()
				defer func() { stop(); <-ran }()
				ack = func(dev string, upTo int64) error {
					_, err := acker.Ack(ctx, dev, upTo)
					return err
				}
			}
			var next atomic.Int64
			b.SetParallelism(parallelism)
			b.ReportAllocs()
			b.ResetTimer()
			b.RunParallel(func(pb *testing.PB) {
				dev := devs[next.Add(1)-1]
				var upTo int64
				for pb.Next() {
					upTo++
					if err := ack(dev, upTo); err != nil {
						b.Error(err)
						return
					}
				}
			})
		})
	}
}
