package queue_test

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/oklog/ulid/v2"

	"relay/internal/testdb"
	"relay/queue"
)

// fillSent writes n idempotency records of the shape the relay writes, as
// a day of traffic does: 1,000 accounts sending in turn, ids and expiry
// times growing, so that both indexes are filled as in production.
func fillSent(b *testing.B, pool *pgxpool.Pool, n int) time.Time {
	b.Helper()
	ctx := context.Background()
	if _, err := pool.Exec(ctx, `INSERT INTO accounts (username, password_hash, public_key)
		SELECT 'user' || lpad(i::text, 4, '0'), 'x', '\x04' FROM generate_series(1, 1000) i`); err != nil {
		b.Fatal(err)
	}
	var first int64
	if err := pool.QueryRow(ctx, `SELECT min(id) FROM accounts`).Scan(&first); err != nil {
		b.Fatal(err)
	}
	start := time.Now()
	const batch = 10000
	for done := 0; done < n; done += batch {
		var accs []int64
		var ids, tos []string
		var sums [][]byte
		var tss []int64
		var exps []time.Time
		for i := done; i < min(done+batch, n); i++ {
			at := start.Add(time.Duration(i) * time.Millisecond)
			accs = append(accs, first+int64(i%1000))
			ids = append(ids, ulid.MustNew(ulid.Timestamp(at), rand.Reader).String())
			tos = append(tos, fmt.Sprintf("user%04d", (i*7)%1000+1))
			sum := sha256.Sum256([]byte(ids[len(ids)-1]))
			sums = append(sums, sum[:])
			tss = append(tss, at.UnixMilli())
			exps = append(exps, at.Add(48*time.Hour))
		}
		_, err := pool.Exec(ctx, `INSERT INTO sent (account_id, envelope_id, to_username, body_sha256, ts, expires_at)
			SELECT * FROM unnest($1::bigint[], $2::text[], $3::text[], $4::bytea[], $5::bigint[], $6::timestamptz[])`,
			accs, ids, tos, sums, tss, exps)
		if err != nil {
			b.Fatal(err)
		}
	}
	if _, err := pool.Exec(ctx, `VACUUM ANALYZE sent`); err != nil {
		b.Fatal(err)
	}
	return start
}

// BenchmarkSentTable measures the idempotency records the dedup window
// keeps (ADR 0084): the bytes of the table and its indexes per accepted
// envelope, what a housekeeping run costs when the table holds a whole
// window (a minute's expiry of a 48-hour window is 1/2880 of it), and
// what an account deletion's search by recipient costs, which no index
// serves. Run it with -benchtime=1x: each loop is one full measurement.
func BenchmarkSentTable(b *testing.B) {
	const n = 200_000
	ctx := context.Background()
	pool, _ := testdb.Pool(b)
	start := fillSent(b, pool, n)
	var total, heap, pkey, expiry int64
	err := pool.QueryRow(ctx, `SELECT pg_total_relation_size('sent'), pg_relation_size('sent'),
		pg_relation_size('sent_pkey'), pg_relation_size('sent_expires_at')`).Scan(&total, &heap, &pkey, &expiry)
	if err != nil {
		b.Fatal(err)
	}
	rows, err := pool.Query(ctx, `EXPLAIN DELETE FROM sent WHERE expires_at <= $1`, start.Add(48*time.Hour+n/2880*time.Millisecond))
	if err != nil {
		b.Fatal(err)
	}
	lines, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		b.Fatal(err)
	}
	plan := strings.Join(lines, "\n")
	if !strings.Contains(plan, "sent_expires_at") {
		b.Fatalf("housekeeping's delete does not use the expiry index: %s", plan)
	}
	var purge, byRecipient time.Duration
	runs := 0
	for b.Loop() {
		runs++
		// A minute's worth of the window expires, past what earlier
		// loops deleted.
		upTo := start.Add(48*time.Hour + time.Duration(runs*n/2880)*time.Millisecond)
		t0 := time.Now()
		deleted, err := queue.PurgeSent(ctx, pool, upTo)
		if err != nil || deleted == 0 {
			b.Fatalf("purge deleted %d: %v", deleted, err)
		}
		purge += time.Since(t0)
		t0 = time.Now()
		if _, err := pool.Exec(ctx, `DELETE FROM sent WHERE to_username = 'nobody'`); err != nil {
			b.Fatal(err)
		}
		byRecipient += time.Since(t0)
	}
	b.ReportMetric(float64(total)/n, "B/record")
	b.ReportMetric(float64(heap)/n, "heap-B/record")
	b.ReportMetric(float64(pkey+expiry)/n, "index-B/record")
	b.ReportMetric(float64(purge.Microseconds())/float64(runs), "purge-µs/run")
	b.ReportMetric(float64(byRecipient.Microseconds())/float64(runs)/(n/100_000), "by-recipient-µs/100k-records")
}
