package hub

import (
	"context"
	"log/slog"
	"testing"
	"time"

	"relay/devices"
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
	taker := &Stream{device: "DEVA", items: make(chan []queue.Item, 1), wake: make(chan struct{}, 1)}
	taker.queued.Store(1)
	full := &Stream{device: "DEVB", items: make(chan []queue.Item), wake: make(chan struct{}, 1)} // nobody reads
	full.queued.Store(1)
	d.round(ctx, map[*Stream]bool{taker: true, full: true})

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

// TestHubDeliverInOrderOnly: the accepting request hands a row straight to
// a live stream only when the stream has been given every row before it;
// a row out of order, or for a stream not yet live, only wakes the stream
// to read, and a stream too far behind to take the row is woken to read
// the gap it now has.
func TestHubDeliverInOrderOnly(t *testing.T) {
	h := New(Config{})
	s := h.Open("DEVA", 1)
	s.queued.Store(4)
	item := func(seq int64) queue.Item { return queue.Item{Seq: seq, ID: "E", Body: []byte{1}} }
	woken := func() bool {
		select {
		case <-s.wake:
			return true
		default:
			return false
		}
	}

	h.deliver("DEVA", item(5)) // not live yet: it is replaying
	if !woken() || len(s.items) != 0 || s.queued.Load() != 4 {
		t.Fatalf("a stream still replaying was handed a row (queued %d)", s.queued.Load())
	}
	s.live.Store(true)
	h.deliver("DEVA", item(5))
	if woken() || len(s.items) != 1 || s.queued.Load() != 5 {
		t.Fatalf("the next row was not handed over (queued %d, %d batches)", s.queued.Load(), len(s.items))
	}
	h.deliver("DEVA", item(7)) // 6 has not come this way
	if !woken() || len(s.items) != 1 || s.queued.Load() != 5 {
		t.Fatalf("a row out of order was handed over (queued %d)", s.queued.Load())
	}
	for seq := int64(6); len(s.items) < cap(s.items); seq++ {
		h.deliver("DEVA", item(seq))
	}
	next := s.queued.Load() + 1
	h.deliver("DEVA", item(next)) // the channel is full
	if !woken() || s.queued.Load() != next {
		t.Fatalf("a stream that could not take its row was not told to read (queued %d, want %d)", s.queued.Load(), next)
	}
	if b := <-s.items; b[0].Seq != 5 {
		t.Fatalf("first hand-over is seq %d, want 5", b[0].Seq)
	}
}

// TestWakeWithoutRun: before Run starts and after it returns, a live
// stream that is woken reads for itself, instead of waiting for a
// dispatcher that is not there (the naive hub marks it and it waits for
// ever); while Run runs, the dispatcher takes the wake-up.
func TestWakeWithoutRun(t *testing.T) {
	pool, _ := testdb.Pool(t)
	h := New(Config{Pool: pool})
	s := h.Open("DEVA", 1)
	s.Live(0)
	selfRead := func() bool {
		select {
		case <-s.Wake():
			return true
		default:
			return false
		}
	}
	h.wake("DEVA")
	if !selfRead() {
		t.Fatal("before Run: the woken stream was not told to read for itself")
	}

	ctx, cancel := context.WithCancel(context.Background())
	ran := make(chan struct{})
	go func() { h.Run(ctx); close(ran) }()
	deadline := time.Now().Add(10 * time.Second)
	for !h.dispatch.mark(s) {
		if time.Now().After(deadline) {
			t.Fatal("the dispatcher did not start")
		}
		time.Sleep(time.Millisecond)
	}
	cancel()
	<-ran
	for selfRead() { // what the dispatcher took may have been handed back
	}
	h.wake("DEVA")
	if !selfRead() {
		t.Fatal("after Run: the woken stream was not told to read for itself")
	}
}

// fakeStates answers the catch-up check from a map.
type fakeStates map[string]devices.StreamState

func (f fakeStates) StreamStates(_ context.Context, ids []string) (map[string]devices.StreamState, error) {
	out := map[string]devices.StreamState{}
	for _, id := range ids {
		if st, ok := f[id]; ok {
			out[id] = st
		}
	}
	return out, nil
}

// StreamsEnded records nothing: these tests read no presence.
func (f fakeStates) StreamsEnded(context.Context, string, []string, []int64) error { return nil }

// TestCatchUpEndsStreamsWithTheirReason: the check that stands in for a
// lost notice ends a revoked device's stream with revoked, the stream of
// a device whose row is gone with deleted, and a disabled account's with
// disabled; a live device's stream goes on.
func TestCatchUpEndsStreamsWithTheirReason(t *testing.T) {
	h := New(Config{States: fakeStates{
		"LIVE":     {Gen: 1},
		"REVOKED":  {Gen: 1, Revoked: true},
		"DISABLED": {Gen: 1, Disabled: true},
	}})
	streams := map[string]*Stream{}
	for _, d := range []string{"LIVE", "REVOKED", "DISABLED", "GONE"} {
		streams[d] = h.Open(d, 1)
	}
	if err := h.catchUpOnce(context.Background()); err != nil {
		t.Fatal(err)
	}
	for d, want := range map[string]string{"REVOKED": ReasonRevoked, "DISABLED": ReasonDisabled, "GONE": ReasonDeleted} {
		select {
		case <-streams[d].Done():
			if streams[d].Reason() != want {
				t.Errorf("%s ended with %s, want %s", d, streams[d].Reason(), want)
			}
		default:
			t.Errorf("%s's stream goes on", d)
		}
	}
	select {
	case <-streams["LIVE"].Done():
		t.Fatal("a live device's stream was ended")
	default:
	}
}

// TestBusEndsStreams: an "e" notice ends the named devices' streams with
// its reason, whoever sent it; one with a reason the hub does not know,
// or none, ends nothing.
func TestBusEndsStreams(t *testing.T) {
	h := New(Config{})
	a, b, c := h.Open("DEVA", 1), h.Open("DEVB", 1), h.Open("DEVC", 1)
	h.bus.handle(chanStream, "e shutdown DEVC")
	h.bus.handle(chanStream, "e deleted")
	h.bus.handle(chanStream, "e deleted DEVA DEVB")
	for _, s := range []*Stream{a, b} {
		select {
		case <-s.Done():
			if s.Reason() != ReasonDeleted {
				t.Fatalf("ended with %s", s.Reason())
			}
		default:
			t.Fatal("a named stream goes on")
		}
	}
	select {
	case <-c.Done():
		t.Fatal("a notice with an unknown reason ended a stream")
	default:
	}
	if err := NotifyEnded(context.Background(), nil, "shutdown", []string{"DEVC"}); err == nil {
		t.Fatal("NotifyEnded took a reason that is no end")
	}
}
