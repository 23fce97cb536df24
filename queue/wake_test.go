package queue_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"relay/internal/testdb"
	"relay/queue"
)

// subscribeAll gives devices a push subscription (package push's table).
func subscribeAll(t testing.TB, pool *pgxpool.Pool, devices ...string) {
	t.Helper()
	for _, d := range devices {
		if _, err := pool.Exec(context.Background(), `INSERT INTO push_subscriptions (device_id, endpoint, p256dh, auth)
			VALUES ($1, 'https://push.example/' || $1, '\x04', '\x00')`, d); err != nil {
			t.Fatal(err)
		}
	}
}

// TestAcceptRecordsWakeUps: an envelope that wakes records its seq on the
// subscriptions of the recipient's devices, in the accepting statement,
// and on no device of the sender's; one that does not wake (a receipt,
// an envelope to oneself) records nothing (ADR 0087).
func TestAcceptRecordsWakeUps(t *testing.T) {
	pool, _ := testdb.Pool(t)
	ctx := context.Background()
	devs := fixture(t, pool, 3, 2)
	accs := accountIDs(devs)
	alice, bob := accs[0], accs[1]
	subscribeAll(t, pool, devs[alice][1], devs[bob][0], devs[bob][1])
	wakes := func() map[string]int64 {
		rows, err := pool.Query(ctx, `SELECT device_id, wake_seq FROM push_subscriptions`)
		if err != nil {
			t.Fatal(err)
		}
		defer rows.Close()
		m := map[string]int64{}
		for rows.Next() {
			var d string
			var w int64
			if err := rows.Scan(&d, &w); err != nil {
				t.Fatal(err)
			}
			m[d] = w
		}
		return m
	}
	accept := func(from, to int64, wake bool) {
		e := envelope(from, to, devs[from][0], "x")
		e.Wake = wake
		if _, _, _, err := queue.Accept(ctx, pool, e, time.Now().Add(time.Hour), time.Now()); err != nil {
			t.Fatal(err)
		}
	}
	want := func(step string, aliceOther, bob0, bob1 int64) {
		t.Helper()
		got := wakes()
		if got[devs[alice][1]] != aliceOther || got[devs[bob][0]] != bob0 || got[devs[bob][1]] != bob1 {
			t.Fatalf("%s: wake_seq %d (the sender's other device), %d, %d (the recipient's); want %d, %d, %d", step,
				got[devs[alice][1]], got[devs[bob][0]], got[devs[bob][1]], aliceOther, bob0, bob1)
		}
	}
	accept(alice, bob, true) // seq 1 on every target
	want("a message", 0, 1, 1)
	accept(alice, bob, false) // a receipt: seq 2
	want("a receipt", 0, 1, 1)
	accept(alice, alice, false) // to oneself: seq 3 on alice's others only
	accept(alice, bob, true)    // seq 3 on bob's, 4 on alice's others
	want("another message", 0, 3, 3)
	accept(bob, alice, true) // bob writes: alice's devices wake, seq 5 there
	want("a reply", 5, 3, 3)
}

// BenchmarkAcceptWake is BenchmarkAccept's envelope (five target devices)
// with the recipient's three devices subscribed and woken, against none
// subscribed: the cost of recording the wake-ups, in time and in WAL per
// envelope (pg_current_wal_lsn before and after, so the server must
// carry no other load while it runs).
func BenchmarkAcceptWake(b *testing.B) {
	for _, subscribed := range []bool{false, true} {
		b.Run(fmt.Sprintf("subscribed=%v", subscribed), func(b *testing.B) {
			pool, _ := testdb.Pool(b)
			ctx := context.Background()
			devs := fixture(b, pool, 3, 3)
			accs := accountIDs(devs)
			if subscribed {
				subscribeAll(b, pool, devs[accs[1]]...)
			}
			lsn := func() int64 {
				var n int64
				if err := pool.QueryRow(ctx, `SELECT pg_current_wal_lsn() - '0/0'::pg_lsn`).Scan(&n); err != nil {
					b.Fatal(err)
				}
				return n
			}
			body := string(make([]byte, 1024))
			b.ReportAllocs()
			start, n := lsn(), 0
			for b.Loop() {
				e := envelope(accs[0], accs[1], devs[accs[0]][0], body)
				e.Wake = true
				if _, _, _, err := queue.Accept(ctx, pool, e, time.Now().Add(time.Hour), time.Now()); err != nil {
					b.Fatal(err)
				}
				n++
			}
			b.ReportMetric(float64(lsn()-start)/float64(n), "WAL-B/op")
		})
	}
}
