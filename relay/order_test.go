package relay_test

import (
	"context"
	"slices"
	"testing"
	"time"

	"relay/relayclient"
)

// TestOneOrderIsCommitOrder: within a chat, the ts the relay gives is in
// commit order on every device (ADR 0085), through the whole relay: the
// 202, the live stream and the replay.
//
//   - Across instances: bob answers alice's message through a second
//     instance whose clock is 3 seconds behind the first's. His answer is
//     ordered after her message.
//   - Request order is not commit order: request A starts first but waits
//     for a device row that a test transaction holds; request B starts a
//     second later (the relay's clock moves) and commits first. A's ts is
//     above B's.
//
// On every device the envelopes arrive in seq order with ts rising, and
// each copy carries the ts its sender was answered. Before ADR 0085 (ts
// taken at the request) the answer carried a ts 3 seconds before the
// message, and A one second before B.
func TestOneOrderIsCommitOrder(t *testing.T) {
	s := newTestServer(t)
	slow := running(t, served(t, s.Pool, &clock{t: s.Clock.Now().Add(-3 * time.Second)}))
	ctx := context.Background()
	alice := s.register(t, "alice", 2)
	bob := s.register(t, "bob", 2)
	var all []*relayclient.Client
	for _, u := range []*user{alice, bob} {
		for i := range u.Devices {
			all = append(all, u.device(i))
		}
	}
	followers := map[string]*follower{}
	for _, c := range all {
		f := follow(t, c, "")
		f.expectReady(t, 0)
		followers[c.Device] = f
	}
	answered := map[string]int64{} // envelope id: the ts of its 202
	sendVia := func(srv *testServer, from *relayclient.Client, to string) relayclient.Accepted {
		t.Helper()
		a, err := from.Send(ctx, srv.newID(), to, []byte("m"))
		if err != nil {
			t.Fatalf("send: %v", err)
		}
		answered[a.ID] = a.TS
		return a
	}

	// Across instances, one clock 3 s behind the other.
	question := sendVia(s, alice.device(0), "bob")
	if e := followers[bob.Devices[0]].next(t); e.Name != "envelope" || e.Envelope.ID != question.ID {
		t.Fatalf("bob's device got %+v, want alice's message", e)
	}
	answer := sendVia(slow, elsewhere(t, bob.device(0), slow.URL), "alice")
	if answer.TS <= question.TS {
		t.Errorf("the answer through the slow instance has ts %d, not after the message it answers (%d)", answer.TS, question.TS)
	}

	// Request order against commit order. The device that sorts first is
	// locked; A is sent to its account from the other account, so A locks
	// it first of all; B is sent from it, so B never locks it.
	devs := slices.Concat(alice.Devices, bob.Devices)
	first := slices.Min(devs)
	owner, other := alice, bob
	if slices.Contains(bob.Devices, first) {
		owner, other = bob, alice
	}
	ownerFirst := owner.device(slices.Index(owner.Devices, first))
	blocker, err := s.Pool.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { blocker.Rollback(ctx) })
	var pid int32
	if err := blocker.QueryRow(ctx, `SELECT pg_backend_pid() FROM devices WHERE id = $1 FOR UPDATE`, first).Scan(&pid); err != nil {
		t.Fatal(err)
	}
	type sent struct {
		a   relayclient.Accepted
		err error
	}
	aDone := make(chan sent, 1)
	aID := s.newID()
	go func() {
		a, err := other.device(0).Send(ctx, aID, owner.Name, []byte("A"))
		aDone <- sent{a, err}
	}()
	waitFor(t, "A to wait for the test transaction's lock", func() bool {
		var n int
		if err := s.Pool.QueryRow(ctx, `SELECT count(*) FROM pg_stat_activity
			WHERE datname = current_database() AND $1 = ANY (pg_blocking_pids(pid))`, pid).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n > 0
	})
	s.Clock.Advance(time.Second)
	b := sendVia(s, ownerFirst, other.Name)
	if err := blocker.Rollback(ctx); err != nil {
		t.Fatal(err)
	}
	got := <-aDone
	if got.err != nil {
		t.Fatalf("A: %v", got.err)
	}
	answered[got.a.ID] = got.a.TS
	if got.a.TS <= b.TS {
		t.Errorf("A, committed after B, has ts %d, not after B's %d", got.a.TS, b.TS)
	}

	// Every device: seq order is ts order, live and replayed, and every
	// copy has the ts of its 202.
	for _, c := range all {
		var n int
		if err := s.Pool.QueryRow(ctx, `SELECT seq FROM devices WHERE id = $1`, c.Device).Scan(&n); err != nil {
			t.Fatal(err)
		}
		f := followers[c.Device]
		start := int64(1)
		if c.Device == bob.Devices[0] {
			start = 2 // alice's message, read above
		}
		live := f.expectEnvelopes(t, start, n-int(start)+1)
		replayed := follow(t, c, "").expectEnvelopes(t, 1, n)
		for _, es := range [][]*relayclient.Envelope{live, replayed} {
			for i, e := range es {
				if want, ok := answered[e.ID]; !ok || e.TS != want {
					t.Errorf("device %d: envelope seq %d has ts %d, its 202 said %d", slices.Index(all, c), e.Seq, e.TS, want)
				}
				if i > 0 && e.TS <= es[i-1].TS {
					t.Errorf("device %d: seq %d has ts %d, not after seq %d's %d", slices.Index(all, c), e.Seq, e.TS, es[i-1].Seq, es[i-1].TS)
				}
			}
		}
	}
}
