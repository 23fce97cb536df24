package relay_test

import (
	"context"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"relay/epoch"
	"relay/hub"
	"relay/relay"
	"relay/relayclient"
)

// nextEpoch returns the stream's event: epoch, failing the test if none
// comes within ten seconds.
func (f *follower) nextEpoch(t *testing.T) relayclient.Event {
	t.Helper()
	select {
	case e := <-f.epochs:
		return e
	case <-time.After(10 * time.Second):
		t.Fatal("no epoch event within 10 s")
		return relayclient.Event{}
	}
}

// epoch is the database's epoch now.
func (s *testServer) epoch(t testing.TB) string {
	t.Helper()
	p, err := epoch.Read(context.Background(), s.Pool)
	if err != nil {
		t.Fatal(err)
	}
	return p.String()
}

// newEpoch does what relay admin new-epoch does.
func (s *testServer) newEpoch(t *testing.T) {
	t.Helper()
	err := pgx.BeginFunc(context.Background(), s.Pool, func(tx pgx.Tx) error {
		if err := epoch.Renew(context.Background(), tx); err != nil {
			return err
		}
		return hub.NotifyEpoch(context.Background(), tx)
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestStreamTellsItsEpoch: every stream starts with event: epoch, the
// database's epoch and the device's seq, before the replay; the epoch stays
// while the database does, and a new epoch ends the open stream with
// event: rewound, the next stream telling the new one.
func TestStreamTellsItsEpoch(t *testing.T) {
	s := newTestServer(t)
	alice := s.register(t, "alice", 1)
	bob := s.register(t, "bob", 1)
	for range 2 {
		s.send(t, alice.device(0), "bob", "x")
	}
	f := follow(t, bob.device(0), "")
	first := f.nextEpoch(t)
	if first.Epoch != s.epoch(t) || first.Seq != 2 || first.Ahead {
		t.Fatalf("epoch event %+v, want epoch %s seq 2", first, s.epoch(t))
	}
	f.expectEnvelopes(t, 1, 2)
	f.expectReady(t, 2)
	f.cancel()

	g := follow(t, bob.device(0), "2")
	if e := g.nextEpoch(t); e.Epoch != first.Epoch {
		t.Fatalf("the same database told epoch %s, then %s", first.Epoch, e.Epoch)
	}
	g.expectReady(t, 2)

	s.newEpoch(t)
	if e := g.next(t); e.Name != hub.ReasonRewound {
		t.Fatalf("after a new epoch the open stream got %+v, want rewound", e)
	}
	h := follow(t, bob.device(0), "2")
	if e := h.nextEpoch(t); e.Epoch == first.Epoch || e.Epoch != s.epoch(t) {
		t.Fatalf("after relay admin new-epoch the stream told %s (before: %s, now: %s)", e.Epoch, first.Epoch, s.epoch(t))
	}
	h.expectReady(t, 2)
}

// TestLastEventIDAhead: a Last-Event-ID beyond the device's seq (its
// history went back under the client) is answered with the whole queue,
// the epoch event saying the cursor was ahead, instead of an error that
// left the client nothing to resume from.
func TestLastEventIDAhead(t *testing.T) {
	s := newTestServer(t)
	alice := s.register(t, "alice", 1)
	bob := s.register(t, "bob", 1)
	for range 3 {
		s.send(t, alice.device(0), "bob", "x")
	}
	f := follow(t, bob.device(0), "9")
	if e := f.nextEpoch(t); !e.Ahead || e.Seq != 3 {
		t.Fatalf("epoch event %+v, want ahead with seq 3", e)
	}
	f.expectEnvelopes(t, 1, 3)
	f.expectReady(t, 3)
	f.cancel()

	// The control: a cursor within the head is no news.
	g := follow(t, bob.device(0), "3")
	if e := g.nextEpoch(t); e.Ahead {
		t.Fatalf("epoch event %+v says ahead for a Last-Event-ID at the head", e)
	}
	g.expectReady(t, 3)
}

// TestStreamEndsWhenSeqGoesBack: a device's seq set below what its open
// stream wrote (a restore that PostgreSQL cannot tell, done under a
// running relay) ends the stream with event: rewound at the next catch-up
// check, before a new envelope reuses a seq the client has seen; the next
// stream says the client's Last-Event-ID is ahead.
func TestStreamEndsWhenSeqGoesBack(t *testing.T) {
	s := newTestServer(t, func(c *relay.Config) { c.CatchUp = 50 * time.Millisecond })
	alice := s.register(t, "alice", 1)
	bob := s.register(t, "bob", 1)
	for range 3 {
		s.send(t, alice.device(0), "bob", "x")
	}
	f := follow(t, bob.device(0), "")
	f.nextEpoch(t)
	f.expectEnvelopes(t, 1, 3)
	f.expectReady(t, 3)
	if _, err := s.Pool.Exec(context.Background(), `UPDATE devices SET seq = 1 WHERE id = $1`, bob.Devices[0]); err != nil {
		t.Fatal(err)
	}
	if e := f.next(t); e.Name != hub.ReasonRewound {
		t.Fatalf("after the seq went back the stream got %+v, want rewound", e)
	}
	g := follow(t, bob.device(0), "3")
	if e := g.nextEpoch(t); !e.Ahead || e.Seq != 1 {
		t.Fatalf("epoch event %+v, want ahead with seq 1", e)
	}
}

// TestStreamEndsWhenTheEpochChangesUnannounced: an epoch that changes with
// no notice (a failover: the new primary's timeline; here the token,
// changed in SQL) ends the open stream with event: rewound at the next
// catch-up check, although the device's seq did not go back.
func TestStreamEndsWhenTheEpochChangesUnannounced(t *testing.T) {
	s := newTestServer(t, func(c *relay.Config) { c.CatchUp = 50 * time.Millisecond })
	alice := s.register(t, "alice", 1)
	bob := s.register(t, "bob", 1)
	s.send(t, alice.device(0), "bob", "x")
	f := follow(t, bob.device(0), "")
	before := f.nextEpoch(t)
	f.expectEnvelopes(t, 1, 1)
	f.expectReady(t, 1)
	if _, err := s.Pool.Exec(context.Background(), `UPDATE relay_epoch SET token = 'promoted'`); err != nil {
		t.Fatal(err)
	}
	if e := f.next(t); e.Name != hub.ReasonRewound {
		t.Fatalf("after the epoch changed the stream got %+v, want rewound", e)
	}
	g := follow(t, bob.device(0), "1")
	if e := g.nextEpoch(t); e.Epoch == before.Epoch || e.Ahead {
		t.Fatalf("epoch event %+v after the change, before %s", e, before.Epoch)
	}
}
