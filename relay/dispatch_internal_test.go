package relay

import (
	"context"
	"log/slog"
	"testing"

	"relay/internal/testdb"
	"relay/queue"
)

// TestDispatcherHandsOverOrFallsBack: rows for a stream that takes them
// are handed over in order and advance its position; a stream that cannot
// take them (its hand-over channel is full) is told to read for itself, and
// its position does not move, so no row is skipped.
func TestDispatcherHandsOverOrFallsBack(t *testing.T) {
	pool, _ := testdb.Pool(t)
	ctx := context.Background()
	for _, q := range []string{
		`INSERT INTO accounts (username, password_hash, public_key) VALUES ('alice', 'x', '\x04')`,
		`INSERT INTO devices (id, account_id, name, public_key, seq) SELECT d, (SELECT id FROM accounts), 'd', '\x04', 3 FROM unnest(ARRAY['DEVA', 'DEVB']) d`,
		`INSERT INTO queue (device_id, seq, envelope_id, from_username, from_device, to_username, ts, body)
			SELECT d, g, d || g, 'bob', 'x', 'alice', 0, '\x01' FROM unnest(ARRAY['DEVA', 'DEVB']) d, generate_series(1, 3) g`,
	} {
		if _, err := pool.Exec(ctx, q); err != nil {
			t.Fatal(err)
		}
	}
	d := newDispatcher(pool, slog.New(slog.DiscardHandler))
	taker := &stream{device: "DEVA", items: make(chan []queue.Item, 1), wake: make(chan struct{}, 1)}
	taker.queued.Store(1)
	full := &stream{device: "DEVB", items: make(chan []queue.Item), wake: make(chan struct{}, 1)} // nobody reads
	full.queued.Store(1)
	d.round(ctx, map[*stream]bool{taker: true, full: true})

	select {
	case batch := <-taker.items:
		if len(batch) != 2 || batch[0].Seq != 2 || batch[1].Seq != 3 {
			t.Fatalf("handed over %+v, want seq 2 and 3", batch)
		}
	default:
		t.Fatal("nothing handed over")
	}
	if taker.queued.Load() != 3 {
		t.Fatalf("position %d after the hand-over, want 3", taker.queued.Load())
	}
	select {
	case <-full.wake:
	default:
		t.Fatal("a stream that could not take its rows was not told to read for itself")
	}
	if full.queued.Load() != 1 {
		t.Fatalf("the full stream's position moved to %d", full.queued.Load())
	}
}
