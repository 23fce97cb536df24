package relay_test

import (
	"context"
	"testing"
	"time"

	"relay/internal/pushtest"
	"relay/relay"
)

// wakeState is the durable decision's columns of device's subscription
// (ADR 0087).
func (s *testServer) wakeState(t *testing.T, device string) (wake, pushed int64) {
	t.Helper()
	if err := s.Pool.QueryRow(context.Background(), `SELECT wake_seq, pushed_seq FROM push_subscriptions WHERE device_id = $1`, device).
		Scan(&wake, &pushed); err != nil {
		t.Fatal(err)
	}
	return wake, pushed
}

// sweepSettled sweeps now and waits until what the sweep claimed has been
// sent or given up.
func sweepSettled(t *testing.T, s *testServer) {
	t.Helper()
	s.Relay.SweepPush(context.Background())
	settled(t, s)
}

// TestPushLostSignalIsSwept: a relay accepts an envelope and goes away
// before its pusher has run (its signal lived only in memory); another
// relay on the same database pushes the device once, from what the
// accept committed, and not again.
func TestPushLostSignalIsSwept(t *testing.T) {
	svc := pushtest.New(t, pushContact)
	first := newTestServerWithoutRun(t, withPush(svc))
	alice := first.register(t, "alice", 1)
	bob := first.register(t, "bob", 1)
	sub := svc.Subscribe(t)
	subscribe(t, bob.device(0), sub)
	first.send(t, alice.device(0), "bob", "sent just before the crash")
	if st := first.Relay.PushStats(); st.Signalled != 1 || st.Claimed != 0 {
		t.Fatalf("%+v: want one signal, not yet considered", st)
	}
	if err := first.Relay.Close(); err != nil {
		t.Fatal(err)
	}

	second := running(t, served(t, first.Pool, first.Clock, withPush(svc)))
	svc.WaitFor(t, "the push from the second relay", func() bool { return len(svc.Pushes(sub)) == 1 })
	settled(t, second)
	second.Clock.Advance(relay.DefaultConfig().PushInterval)
	sweepSettled(t, second)
	if st := second.Relay.PushStats(); st.Claimed != 1 || st.Swept != 1 || svc.Tries(sub) != 1 {
		t.Fatalf("%+v, %d requests: want one push, found by the sweep", st, svc.Tries(sub))
	}
	if wake, pushed := second.wakeState(t, bob.Devices[0]); wake != 1 || pushed != 1 {
		t.Fatalf("wake_seq %d, pushed_seq %d: want the wake-up answered", wake, pushed)
	}
}

// TestPushIntervalHeldThenSwept: a message within the interval after a
// push is not pushed at once, nor by a sweep before the interval ends (on
// the relay's clock, at the millisecond); the first sweep after it pushes
// once, and later sweeps never again.
func TestPushIntervalHeldThenSwept(t *testing.T) {
	svc := pushtest.New(t, pushContact)
	s := newTestServer(t, withPush(svc))
	alice := s.register(t, "alice", 1)
	bob := s.register(t, "bob", 1)
	sub := svc.Subscribe(t)
	subscribe(t, bob.device(0), sub)
	interval := relay.DefaultConfig().PushInterval

	s.send(t, alice.device(0), "bob", "first")
	svc.WaitFor(t, "the first push", func() bool { return len(svc.Pushes(sub)) == 1 })
	settled(t, s)
	s.Clock.Advance(time.Second)
	s.send(t, alice.device(0), "bob", "within the interval")
	settled(t, s)
	s.Clock.Advance(interval - time.Second - time.Millisecond)
	sweepSettled(t, s)
	if n := svc.Tries(sub); n != 1 {
		t.Fatalf("%d requests before the interval ended, want 1", n)
	}
	if wake, pushed := s.wakeState(t, bob.Devices[0]); wake != 2 || pushed != 1 {
		t.Fatalf("wake_seq %d, pushed_seq %d: want the second wake-up due", wake, pushed)
	}

	s.Clock.Advance(time.Millisecond)
	sweepSettled(t, s)
	if n := len(svc.Pushes(sub)); n != 2 {
		t.Fatalf("%d pushes once the interval ended, want 2", n)
	}
	for range 2 {
		s.Clock.Advance(interval)
		sweepSettled(t, s)
	}
	if n := svc.Tries(sub); n != 2 {
		t.Fatalf("%d requests after two more intervals, want 2", n)
	}
}

// TestPushSweepSkipsStreams: the sweep never pushes a device that streams,
// here or on another live instance, however long ago its last push was,
// and forgets a wake-up the device has read. When a stream ends with an
// envelope unread, or the instance holding it stops beating, the device is
// pushed once.
func TestPushSweepSkipsStreams(t *testing.T) {
	svc := pushtest.New(t, pushContact)
	s := newTestServer(t, withPush(svc))
	ctx := context.Background()
	alice := s.register(t, "alice", 1)
	bob := s.register(t, "bob", 3)
	unread, elsewhere, reader := svc.Subscribe(t), svc.Subscribe(t), svc.Subscribe(t)
	subscribe(t, bob.device(0), unread)
	subscribe(t, bob.device(1), elsewhere)
	subscribe(t, bob.device(2), reader)
	// The other instance's beat is in the future, so that it counts as
	// alive however slowly this test runs, until the test stops it.
	if _, err := s.Pool.Exec(ctx, `INSERT INTO relay_instances (id, seen_at) VALUES ('other', now() + interval '1 hour');
		UPDATE devices SET stream_instance = 'other' WHERE id = '`+bob.Devices[1]+`'`); err != nil {
		t.Fatal(err)
	}
	f0 := follow(t, bob.device(0), "")
	f0.expectReady(t, 0)
	f2 := follow(t, bob.device(2), "")
	f2.expectReady(t, 0)

	s.send(t, alice.device(0), "bob", "x")
	f0.expectEnvelopes(t, 1, 1) // and never ACKed
	f2.expectEnvelopes(t, 1, 1)
	if err := bob.device(2).Ack(ctx, 1); err != nil {
		t.Fatal(err)
	}
	settled(t, s)
	s.Clock.Advance(time.Hour)
	sweepSettled(t, s)
	if n := svc.Tries(unread) + svc.Tries(elsewhere) + svc.Tries(reader); n != 0 {
		t.Fatalf("%d pushes to streaming devices", n)
	}
	if wake, pushed := s.wakeState(t, bob.Devices[2]); wake != 1 || pushed != 1 {
		t.Fatalf("the reader's wake_seq %d, pushed_seq %d: want the read wake-up forgotten", wake, pushed)
	}

	for _, f := range []*follower{f0, f2} {
		f.cancel()
		f.expectEnd(t)
	}
	waitFor(t, "the ended streams to be cleared", func() bool {
		return s.count(t, `SELECT count(*) FROM devices WHERE id = ANY ($1) AND stream_instance IS NULL`, []string{bob.Devices[0], bob.Devices[2]}) == 2
	})
	sweepSettled(t, s)
	if len(svc.Pushes(unread)) != 1 || svc.Tries(reader) != 0 || svc.Tries(elsewhere) != 0 {
		t.Fatalf("after the streams ended: %d, %d, %d requests; want one to the device that left its envelope unread",
			svc.Tries(unread), svc.Tries(elsewhere), svc.Tries(reader))
	}

	if _, err := s.Pool.Exec(ctx, `UPDATE relay_instances SET seen_at = now() - interval '1 hour' WHERE id = 'other'`); err != nil {
		t.Fatal(err)
	}
	sweepSettled(t, s)
	if len(svc.Pushes(elsewhere)) != 1 {
		t.Fatalf("%d pushes to the device whose instance stopped beating, want 1", svc.Tries(elsewhere))
	}
	s.Clock.Advance(time.Hour)
	sweepSettled(t, s)
	if svc.Tries(unread) != 1 || svc.Tries(elsewhere) != 1 || svc.Tries(reader) != 0 {
		t.Fatalf("after another hour: %d, %d, %d requests; want 1, 1, 0", svc.Tries(unread), svc.Tries(elsewhere), svc.Tries(reader))
	}
}
