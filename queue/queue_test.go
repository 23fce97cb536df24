package queue_test

import (
	"context"
	"fmt"
	"maps"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/oklog/ulid/v2"

	"relay/internal/testdb"
	"relay/queue"
)

// fixture creates accounts with devices directly in the database and returns
// the device ids per account id.
func fixture(t testing.TB, pool *pgxpool.Pool, devicesPerAccount ...int) map[int64][]string {
	t.Helper()
	ctx := context.Background()
	out := map[int64][]string{}
	for i, n := range devicesPerAccount {
		var acc int64
		err := pool.QueryRow(ctx, `INSERT INTO accounts (username, password_hash, public_key) VALUES ($1, 'x', '\x04') RETURNING id`,
			fmt.Sprintf("user%d", i)).Scan(&acc)
		if err != nil {
			t.Fatal(err)
		}
		for j := 0; j < n; j++ {
			id := ulid.Make().String()
			if _, err := pool.Exec(ctx, `INSERT INTO devices (id, account_id, name, public_key) VALUES ($1, $2, 'd', '\x04')`, id, acc); err != nil {
				t.Fatal(err)
			}
			out[acc] = append(out[acc], id)
		}
	}
	return out
}

// accountIDs returns the fixture's accounts in the order they were made
// (ids are serial), so that a test never depends on map order.
func accountIDs(devs map[int64][]string) []int64 {
	return slices.Sorted(maps.Keys(devs))
}

func envelope(from, to int64, fromDevice string, body string) *queue.Envelope {
	return &queue.Envelope{ID: ulid.Make().String(), FromAccount: from, FromUsername: "u", FromDevice: fromDevice,
		ToAccount: to, ToUsername: "v", TS: time.Now().UnixMilli(), Body: []byte(body)}
}

// TestConcurrentFanOutsNoDeadlockNoGap fans out from both ends of a
// conversation at once, so the transactions lock overlapping device sets.
func TestConcurrentFanOutsNoDeadlockNoGap(t *testing.T) {
	pool, _ := testdb.Pool(t)
	ctx := context.Background()
	devs := fixture(t, pool, 3, 3)
	accs := accountIDs(devs)
	const workers, each = 8, 40
	var wg sync.WaitGroup
	errs := make(chan error, workers)
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			from, to := accs[w%2], accs[(w+1)%2]
			for i := 0; i < each; i++ {
				_, _, _, err := queue.Accept(ctx, pool, envelope(from, to, devs[from][i%3], "x"), time.Now().Add(time.Hour), time.Now())
				if err != nil {
					errs <- err
					return
				}
			}
		}(w)
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatalf("fan-out failed (deadlock?): %v", err)
	}
	// Every device's seqs are 1..n without a gap, and n matches the
	// device counter.
	total := int(gaplessRows(t, pool))
	// Each envelope reaches 3 recipient devices and 2 other sender devices.
	if want := workers * each * 5; total != want {
		t.Fatalf("%d queue rows, want %d", total, want)
	}
}

// gaplessRows checks that every device's queue holds seqs 1..n without a gap,
// n being the device's counter, and returns the rows in all queues.
func gaplessRows(t *testing.T, pool *pgxpool.Pool) int64 {
	t.Helper()
	rows, err := pool.Query(context.Background(), `SELECT d.id, d.seq, count(q.seq), coalesce(max(q.seq), 0), coalesce(min(q.seq), 0)
		FROM devices d LEFT JOIN queue q ON q.device_id = d.id GROUP BY d.id, d.seq`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	total := int64(0)
	for rows.Next() {
		var id string
		var head, n, max, min int64
		if err := rows.Scan(&id, &head, &n, &max, &min); err != nil {
			t.Fatal(err)
		}
		if n != head || max != head || (n > 0 && min != 1) {
			t.Errorf("device %s: head %d, %d rows from %d to %d", id, head, n, min, max)
		}
		total += n
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return total
}

func TestAcceptDedupAndConflict(t *testing.T) {
	pool, _ := testdb.Pool(t)
	ctx := context.Background()
	devs := fixture(t, pool, 1, 2)
	from, to := twoAccounts(devs) // the first account has one device
	e := envelope(from, to, devs[from][0], "body")
	accept := func(e *queue.Envelope) (int64, bool, []queue.Delivery, error) {
		return queue.Accept(ctx, pool, e, time.Now().Add(time.Hour), time.Now())
	}
	ts, dup, ds, err := accept(e)
	if err != nil || dup || ts != e.TS || len(ds) != 2 {
		t.Fatalf("first: ts %d dup %v deliveries %v err %v", ts, dup, ds, err)
	}
	again := *e
	again.TS += 5000
	ts, dup, ds, err = accept(&again)
	if err != nil || !dup || ts != e.TS || len(ds) != 0 {
		t.Fatalf("resend: ts %d dup %v deliveries %v err %v; want the original ts %d and nothing queued", ts, dup, ds, err, e.TS)
	}
	other := *e
	other.Body = []byte("different")
	if _, _, _, err := accept(&other); err != queue.ErrIDConflict {
		t.Fatalf("different body: %v", err)
	}
	var rows, contacts int
	if err := pool.QueryRow(ctx, `SELECT (SELECT count(*) FROM queue), (SELECT count(*) FROM contacts)`).Scan(&rows, &contacts); err != nil {
		t.Fatal(err)
	}
	if rows != 2 || contacts != 2 {
		t.Fatalf("%d queue rows and %d contact rows, want 2 and 2", rows, contacts)
	}
}

// BenchmarkAccept accepts one envelope for five devices (one statement),
// against the real database.
func BenchmarkAccept(b *testing.B) {
	pool, _ := testdb.Pool(b)
	ctx := context.Background()
	var accs [2]int64
	var sender string
	for i := range accs {
		if err := pool.QueryRow(ctx, `INSERT INTO accounts (username, password_hash, public_key) VALUES ($1, 'x', '\x04') RETURNING id`,
			fmt.Sprintf("user%d", i)).Scan(&accs[i]); err != nil {
			b.Fatal(err)
		}
		for j := 0; j < 3; j++ {
			id := ulid.Make().String()
			if _, err := pool.Exec(ctx, `INSERT INTO devices (id, account_id, name, public_key) VALUES ($1, $2, 'd', '\x04')`, id, accs[i]); err != nil {
				b.Fatal(err)
			}
			if i == 0 && j == 0 {
				sender = id
			}
		}
	}
	body := make([]byte, 1024)
	b.ReportAllocs()
	for b.Loop() {
		e := envelope(accs[0], accs[1], sender, string(body))
		_, _, ds, err := queue.Accept(ctx, pool, e, time.Now().Add(time.Hour), time.Now())
		if err == nil && len(ds) != 5 {
			err = fmt.Errorf("%d deliveries", len(ds))
		}
		if err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkWALPerEnvelope accepts 1 KiB envelopes for five devices one at
// a time, then ACKs every row one at a time, as each device of the web
// client ACKs a live delivery, and reports per envelope the WAL each part
// writes (pg_current_wal_lsn before and after, so the server must carry no
// other load while it runs) and the CPU time of the one PostgreSQL backend
// that runs them (from /proc, when the server runs on this machine).
func BenchmarkWALPerEnvelope(b *testing.B) {
	cfg, err := pgxpool.ParseConfig(testdb.New(b))
	if err != nil {
		b.Fatal(err)
	}
	cfg.MaxConns = 1 // one backend, whose CPU time is read
	ctx := context.Background()
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		b.Fatal(err)
	}
	defer pool.Close()
	devs := fixture(b, pool, 3, 3)
	accs := accountIDs(devs)
	from, to, sender := accs[0], accs[1], devs[accs[0]][0]
	var pid int
	if err := pool.QueryRow(ctx, `SELECT pg_backend_pid()`).Scan(&pid); err != nil {
		b.Fatal(err)
	}
	lsn := func() int64 {
		var n int64
		if err := pool.QueryRow(ctx, `SELECT pg_current_wal_lsn() - '0/0'::pg_lsn`).Scan(&n); err != nil {
			b.Fatal(err)
		}
		return n
	}
	// cpu is the backend's user and system time in clock ticks (1/100 s).
	cpu := func() int64 {
		stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
		if err != nil {
			return 0
		}
		f := strings.Fields(string(stat[strings.LastIndexByte(string(stat), ')')+2:]))
		u, _ := strconv.ParseInt(f[11], 10, 64)
		s, _ := strconv.ParseInt(f[12], 10, 64)
		return u + s
	}
	body := string(make([]byte, 1024))
	var acceptWAL, ackWAL, acceptCPU, ackCPU int64
	var deliveries []queue.Delivery
	b.ReportAllocs()
	for b.Loop() {
		deliveries = deliveries[:0]
		l0, c0 := lsn(), cpu()
		for range 100 {
			_, _, ds, err := queue.Accept(ctx, pool, envelope(from, to, sender, body), time.Now().Add(time.Hour), time.Now())
			if err == nil && len(ds) != 5 {
				err = fmt.Errorf("%d deliveries", len(ds))
			}
			if err != nil {
				b.Fatal(err)
			}
			deliveries = append(deliveries, ds...)
		}
		l1, c1 := lsn(), cpu()
		for _, d := range deliveries {
			if _, err := queue.Ack(ctx, pool, d.DeviceID, d.Seq); err != nil {
				b.Fatal(err)
			}
		}
		acceptWAL += l1 - l0
		ackWAL += lsn() - l1
		acceptCPU += c1 - c0
		ackCPU += cpu() - c1
	}
	n := float64(b.N) * 100
	b.ReportMetric(float64(acceptWAL)/n, "accept-WAL-B/envelope")
	b.ReportMetric(float64(ackWAL)/n, "ack-WAL-B/envelope")
	b.ReportMetric(float64(acceptCPU)*1e4/n, "accept-pg-µs/envelope")
	b.ReportMetric(float64(ackCPU)*1e4/n, "ack-pg-µs/envelope")
}
