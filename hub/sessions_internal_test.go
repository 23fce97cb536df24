package hub

import (
	"context"
	"sync"
	"testing"
	"time"

	"relay/devices"
	"relay/internal/testdb"
)

// fakeSessions records what the bus tells a session cache.
type fakeSessions struct {
	events chan string
}

func (f *fakeSessions) ForgetNotice(payload string) { f.events <- "forget " + payload }
func (f *fakeSessions) SetListening(on bool) {
	if on {
		f.events <- "on"
	} else {
		f.events <- "off"
	}
}

func (f *fakeSessions) expect(t *testing.T, want string) {
	t.Helper()
	select {
	case got := <-f.events:
		if got != want {
			t.Fatalf("the cache was told %q, want %q", got, want)
		}
	case <-time.After(10 * time.Second):
		t.Fatalf("the cache was not told %q within 10 s", want)
	}
}

// TestBusTellsTheSessionCache: the cache is turned on once the bus
// listens, gets the notices on devices.AuthChannel, is turned off when the
// listening connection is lost and on again once it is back, and is off
// when the hub stops.
func TestBusTellsTheSessionCache(t *testing.T) {
	pool, _ := testdb.Pool(t)
	store, err := devices.NewStore(pool, devices.Config{})
	if err != nil {
		t.Fatal(err)
	}
	f := &fakeSessions{events: make(chan string, 16)}
	h := New(Config{Pool: pool, States: store, Notify: true, Sessions: f})
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	wg.Go(func() { h.Run(ctx) })
	defer func() { cancel(); wg.Wait() }()

	f.expect(t, "on")
	if _, err := pool.Exec(ctx, `SELECT pg_notify($1, '42')`, devices.AuthChannel); err != nil {
		t.Fatal(err)
	}
	f.expect(t, "forget 42")

	var n int
	if err := pool.QueryRow(ctx, `SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity
		WHERE datname = current_database() AND query LIKE 'LISTEN%'`).Scan(&n); err != nil || n != 1 {
		t.Fatalf("terminated %d listening connections (%v), want 1", n, err)
	}
	f.expect(t, "off")
	f.expect(t, "on")

	cancel()
	wg.Wait()
	f.expect(t, "off")
}
