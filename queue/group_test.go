package queue_test

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"relay/internal/testdb"
	"relay/queue"
)

func count(t *testing.T, pool *pgxpool.Pool, sql string) int {
	t.Helper()
	var n int
	if err := pool.QueryRow(context.Background(), sql).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

func twoAccounts(devs map[int64][]string) (a, b int64) {
	accs := accountIDs(devs)
	return accs[0], accs[1]
}

// A group commits all or nothing: its statements run in one implicit
// transaction. The control is the batch on its own: one bad envelope (a
// sender account that does not exist) rolls back the good ones around it.
// The committer then accepts each alone, so the good ones are stored once
// and the bad one gets its own error.
func TestGroupCommitAllOrNothing(t *testing.T) {
	pool, _ := testdb.Pool(t)
	ctx := context.Background()
	devs := fixture(t, pool, 2, 3)
	a, b := twoAccounts(devs)
	exp, now := time.Now().Add(time.Hour), time.Now()
	good1 := envelope(a, b, devs[a][0], "one")
	bad := envelope(-1, b, devs[a][0], "bad")
	good2 := envelope(b, a, devs[b][0], "two")
	c := queue.NewCommitter(pool, 1, 0)

	if err := c.CommitBatchOnly(ctx, []*queue.Envelope{good1, bad, good2}, exp, now); err == nil {
		t.Fatal("a group with an envelope from an unknown account committed")
	}
	if n := count(t, pool, `SELECT count(*) FROM queue`) + count(t, pool, `SELECT count(*) FROM sent`); n != 0 {
		t.Fatalf("the failed group left %d rows behind", n)
	}

	res := c.CommitGroup(ctx, []*queue.Envelope{good1, bad, good2}, exp, now)
	if res[1].Err == nil {
		t.Error("the bad envelope was accepted")
	}
	for _, i := range []int{0, 2} {
		if res[i].Err != nil || res[i].Dup {
			t.Fatalf("good envelope %d: %+v", i, res[i])
		}
	}
	// good1: 3 devices of b and a's other device; good2: 2 of a, 2 of b.
	if len(res[0].DS) != 4 || len(res[2].DS) != 4 {
		t.Fatalf("deliveries %d and %d, want 4 and 4", len(res[0].DS), len(res[2].DS))
	}
	if n := count(t, pool, `SELECT count(*) FROM queue`); n != 8 {
		t.Fatalf("%d queue rows, want 8", n)
	}
}

// Within one group the second copy of an envelope is a resend of the first
// (the same ts, nothing queued twice) and the same id with another body is
// a conflict, exactly as across groups.
func TestGroupCommitDuplicatesInOneGroup(t *testing.T) {
	pool, _ := testdb.Pool(t)
	ctx := context.Background()
	devs := fixture(t, pool, 1, 2)
	a, b := twoAccounts(devs)
	exp, now := time.Now().Add(time.Hour), time.Now()
	e := envelope(a, b, devs[a][0], "same")
	again := *e
	again.TS = e.TS + 5 // a resend is accepted later; the answer keeps the first ts
	other := *e
	other.Body = []byte("different")
	res := queue.NewCommitter(pool, 1, 0).CommitGroup(ctx, []*queue.Envelope{e, &again, &other}, exp, now)
	if res[0].Err != nil || res[0].Dup || len(res[0].DS) != 2 {
		t.Fatalf("first: %+v", res[0])
	}
	if res[1].Err != nil || !res[1].Dup || res[1].TS != e.TS || res[1].DS != nil {
		t.Fatalf("resend in the same group: %+v, want dup with ts %d", res[1], e.TS)
	}
	if !errors.Is(res[2].Err, queue.ErrIDConflict) {
		t.Fatalf("same id, other body: %v, want ErrIDConflict", res[2].Err)
	}
	// every device of b and a's other devices, once
	if n, want := count(t, pool, `SELECT count(*) FROM queue`), len(devs[b])+len(devs[a])-1; n != want {
		t.Fatalf("%d queue rows, want %d", n, want)
	}
}

// Two committers (two relay instances) accept concurrently between
// accounts that share devices. Groups form (one worker for many senders),
// no group fails (a deadlock between groups would make one fail and fall
// back; removing lockTargetsSQL makes this happen here), and every
// device's seqs are gapless.
func TestGroupCommitConcurrentNoDeadlockNoGap(t *testing.T) {
	pool, _ := testdb.Pool(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	devs := fixture(t, pool, 3, 3, 3, 3)
	accs := accountIDs(devs)
	var grouped, biggest atomic.Int64
	committers := []*queue.Committer{queue.NewCommitter(pool, 1, 0), queue.NewCommitter(pool, 2, 0)}
	for _, c := range committers {
		c.Grouped = func(n int) {
			grouped.Add(1)
			for {
				m := biggest.Load()
				if int64(n) <= m || biggest.CompareAndSwap(m, int64(n)) {
					break
				}
			}
		}
		go c.Run(ctx)
	}
	const senders, each = 16, 25
	deliveries := acceptAtOnce(t, committers, senders, each, 1, func(rng *rand.Rand) *queue.Envelope {
		from, to := accs[rng.IntN(len(accs))], accs[rng.IntN(len(accs))]
		return envelope(from, to, devs[from][rng.IntN(3)], "x")
	})
	if biggest.Load() < 2 {
		t.Fatalf("no group of more than one envelope formed in %d commits", grouped.Load())
	}
	t.Logf("%d commits for %d envelopes, largest group %d", grouped.Load(), senders*each, biggest.Load())
	total := gaplessRows(t, pool)
	if total != deliveries {
		t.Fatalf("%d queue rows, %d deliveries reported", total, deliveries)
	}
}

// acceptAtOnce has senders accept each envelopes that next makes, all at
// once, spread over committers, and returns the deliveries they were
// answered. It fails the test on an error or a duplicate, and if a group
// of any committer failed as a whole (as a deadlock between groups makes
// one) and was accepted one envelope at a time.
func acceptAtOnce(t *testing.T, committers []*queue.Committer, senders, each int, seed uint64, next func(*rand.Rand) *queue.Envelope) int64 {
	t.Helper()
	ctx := context.Background()
	var wg sync.WaitGroup
	var deliveries atomic.Int64
	errs := make(chan error, senders)
	for w := range senders {
		wg.Go(func() {
			rng := rand.New(rand.NewPCG(uint64(w), seed))
			c := committers[w%len(committers)]
			for range each {
				_, dup, ds, err := c.Accept(ctx, next(rng), time.Now().Add(time.Hour), time.Now())
				if err != nil || dup {
					errs <- errors.Join(err, errors.New("accept failed or was a duplicate"))
					return
				}
				deliveries.Add(int64(len(ds)))
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	var f int64
	for _, c := range committers {
		f += c.Failed()
	}
	if f != 0 {
		t.Fatalf("%d groups failed and fell back to one transaction per envelope (deadlock?)", f)
	}
	return deliveries.Load()
}

// An envelope whose client has gone before its group forms is not written;
// before Run starts and after it returns, Accept still stores envelopes,
// one by one, instead of hanging or refusing them while the relay starts or
// drains. (Before Run, a committer waiting for a worker would hold the send
// until its context ran out: the bounded context makes that a failure.)
func TestCommitterCancelledAndStopped(t *testing.T) {
	pool, _ := testdb.Pool(t)
	devs := fixture(t, pool, 1, 1)
	a, b := twoAccounts(devs)
	gone, cancelGone := context.WithCancel(context.Background())
	cancelGone()
	c := queue.NewCommitter(pool, 1, 0)
	res := c.CommitGroup(gone, []*queue.Envelope{envelope(a, b, devs[a][0], "x")}, time.Now().Add(time.Hour), time.Now())
	if !errors.Is(res[0].Err, context.Canceled) {
		t.Fatalf("cancelled envelope: %v", res[0].Err)
	}
	if n := count(t, pool, `SELECT count(*) FROM sent`); n != 0 {
		t.Fatalf("a cancelled envelope left %d records", n)
	}
	early, cancelEarly := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancelEarly()
	if _, _, ds, err := c.Accept(early, envelope(a, b, devs[a][0], "w"), time.Now().Add(time.Hour), time.Now()); err != nil || len(ds) != 1 {
		t.Fatalf("before Run: %v, %d deliveries", err, len(ds))
	}
	ctx, stop := context.WithCancel(context.Background())
	ran := make(chan struct{})
	go func() { c.Run(ctx); close(ran) }()
	if _, _, _, err := c.Accept(context.Background(), envelope(a, b, devs[a][0], "y"), time.Now().Add(time.Hour), time.Now()); err != nil {
		t.Fatal(err)
	}
	stop()
	<-ran
	_, _, ds, err := c.Accept(context.Background(), envelope(a, b, devs[a][0], "z"), time.Now().Add(time.Hour), time.Now())
	if err != nil || len(ds) != 1 {
		t.Fatalf("after Run: %v, %d deliveries", err, len(ds))
	}
	if n := count(t, pool, `SELECT count(*) FROM sent`); n != 3 {
		t.Fatalf("%d records, want 3", n)
	}
}

// BenchmarkAcceptParallel accepts 1 KiB envelopes for five devices each from
// 8 concurrent senders (distinct account pairs, as in make bench), one
// transaction per envelope ("each") and through a Committer ("grouped"),
// on a pool of 16 connections.
func BenchmarkAcceptParallel(b *testing.B) {
	for _, workers := range []int{0, 1, 2, 4} {
		mode := "each"
		if workers > 0 {
			mode = fmt.Sprintf("grouped-%dworkers", workers)
		}
		b.Run(mode, func(b *testing.B) {
			_, url := testdb.Pool(b)
			cfg, err := pgxpool.ParseConfig(url)
			if err != nil {
				b.Fatal(err)
			}
			cfg.MaxConns = 16
			pool, err := pgxpool.NewWithConfig(context.Background(), cfg)
			if err != nil {
				b.Fatal(err)
			}
			defer pool.Close()
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			devs := fixture(b, pool, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3)
			accs := accountIDs(devs)
			c := queue.NewCommitter(pool, workers, 0)
			var groups atomic.Int64
			c.Grouped = func(int) { groups.Add(1) }
			go c.Run(ctx)
			body := string(make([]byte, 1024))
			var next atomic.Int64
			b.SetParallelism(8 / max(1, runtime.GOMAXPROCS(0)))
			b.ReportAllocs()
			b.ResetTimer()
			b.RunParallel(func(pb *testing.PB) {
				i := int(next.Add(1)-1) % (len(accs) / 2)
				from, to := accs[2*i], accs[2*i+1]
				for pb.Next() {
					e := envelope(from, to, devs[from][0], body)
					var ds []queue.Delivery
					var err error
					if mode == "each" {
						_, _, ds, err = queue.Accept(ctx, pool, e, time.Now().Add(time.Hour), time.Now())
					} else {
						_, _, ds, err = c.Accept(ctx, e, time.Now().Add(time.Hour), time.Now())
					}
					if err == nil && len(ds) != 5 {
						err = fmt.Errorf("%d deliveries", len(ds))
					}
					if err != nil {
						b.Error(err)
						return
					}
				}
			})
			if workers > 0 && groups.Load() > 0 {
				b.ReportMetric(float64(b.N)/float64(groups.Load()), "envelopes/commit")
			}
		})
	}
}
