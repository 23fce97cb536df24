package relay_test

import (
	"context"
	"crypto/rand"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/oklog/ulid/v2"

	"relay/mlsheader"
	"relay/relayclient"
)

// commitMsg is an MLS private message whose header says commit, in group
// group at epoch, with payload as its ciphertext: the relay reads the
// header only (package mlsheader), so this is all a commit needs to be to
// the relay.
func commitMsg(group string, epoch uint64, payload string) []byte {
	return mlsMsg(group, epoch, 3, payload)
}

func mlsMsg(group string, epoch uint64, contentType byte, payload string) []byte {
	b := []byte{0, 1, 0, 2, byte(len(group))}
	b = append(b, group...)
	for i := 7; i >= 0; i-- {
		b = append(b, byte(epoch>>(8*i)))
	}
	b = append(b, contentType, 0, 0, byte(len(payload)))
	return append(b, payload...)
}

func (s *testServer) epochOf(t *testing.T, group string) int {
	t.Helper()
	return s.count(t, `SELECT coalesce((SELECT epoch FROM mls_groups WHERE group_id = $1), 0)`, []byte(group))
}

func wantStale(t *testing.T, err error, current uint64) {
	t.Helper()
	var e *relayclient.Error
	if !errors.As(err, &e) || e.Status != 409 || e.Code != "stale_epoch" || e.CurrentEpoch != current {
		t.Fatalf("got %v (%+v), want 409 stale_epoch naming epoch %d", err, e, current)
	}
}

// TestCommitOnePerEpoch: a group the relay has not seen takes its first
// commit at epoch 0; each accepted commit moves it on by one; a commit
// for an older or a newer epoch is refused with the current one, and
// changes nothing; a resend of an accepted commit is answered with its
// original ts after the group has moved on; an envelope not marked as a
// commit is never counted, whatever its bytes.
func TestCommitOnePerEpoch(t *testing.T) {
	s := newTestServer(t)
	ctx := context.Background()
	alice := s.register(t, "alice", 1)
	s.register(t, "bob", 1)
	a := alice.device(0)
	const g = "group-one"

	// Unknown group, epoch 3: refused, no row made.
	_, err := a.SendCommit(ctx, s.newID(), "bob", commitMsg(g, 3, "x"))
	wantStale(t, err, 0)
	if n := s.count(t, `SELECT count(*) FROM mls_groups`); n != 0 {
		t.Fatalf("a refused first commit left %d group rows", n)
	}
	// The same bytes, not marked as a commit: an ordinary envelope.
	s.send(t, a, "bob", string(commitMsg(g, 3, "x")))
	if e := s.epochOf(t, g); e != 0 {
		t.Fatalf("an envelope not marked as a commit moved the group to %d", e)
	}
	first := s.newID()
	acc0, err := a.SendCommit(ctx, first, "bob", commitMsg(g, 0, "c0"))
	if err != nil {
		t.Fatal(err)
	}
	for e := uint64(1); e < 4; e++ {
		if _, err := a.SendCommit(ctx, s.newID(), "bob", commitMsg(g, e, "c")); err != nil {
			t.Fatalf("epoch %d: %v", e, err)
		}
	}
	before := s.state(t)
	for _, e := range []uint64{0, 3, 5} { // taken, taken, ahead
		_, err := a.SendCommit(ctx, s.newID(), "bob", commitMsg(g, e, "late"))
		wantStale(t, err, 4)
	}
	// The control of the resend: the first commit again, same id and
	// bytes, answered as accepted with its ts; another body under its id
	// is id_conflict, as for any send.
	again, err := a.SendCommit(ctx, first, "bob", commitMsg(g, 0, "c0"))
	if err != nil || again.TS != acc0.TS {
		t.Fatalf("resend: %+v, %v; want ts %d", again, err, acc0.TS)
	}
	_, err = a.SendCommit(ctx, first, "bob", commitMsg(g, 0, "other"))
	wantCode(t, err, "id_conflict")
	if after := s.state(t); after != before {
		t.Fatalf("refusals and a resend changed the queue, records or contacts: %v → %v", before, after)
	}
	if e := s.epochOf(t, g); e != 4 {
		t.Fatalf("group at epoch %d, want 4", e)
	}
	// Another group is another order.
	if _, err := a.SendCommit(ctx, s.newID(), "bob", commitMsg("group-two", 0, "c")); err != nil {
		t.Fatal(err)
	}
	// A proposal or an application message marked as a commit is refused
	// at check 3.
	_, err = a.SendCommit(ctx, s.newID(), "bob", mlsMsg(g, 4, 1, "app"))
	wantCode(t, err, "bad_commit")
	_, err = a.SendCommit(ctx, s.newID(), "bob", []byte("not mls"))
	wantCode(t, err, "bad_commit")
}

// TestCommitCheckOrder: the commit checks come where docs/protocol.md puts
// them: bad_commit with the shape (check 3), before the clock skew and
// the recipient; stale_epoch last (check 10), after the recipient; and a
// refused commit gives its rate-limit token back (to the bucket for group
// upkeep, ADR 0105).
func TestCommitCheckOrder(t *testing.T) {
	s := newTestServer(t, withRate(2), withGroupRate(2))
	ctx := context.Background()
	alice := s.register(t, "alice", 1)
	s.register(t, "bob", 1)
	a := alice.device(0)
	skewed := ulid.MustNew(ulid.Timestamp(s.Clock.Now().Add(-10*time.Minute)), rand.Reader).String()
	_, err := a.SendCommit(ctx, skewed, "nobody", []byte("not mls"))
	wantCode(t, err, "bad_commit")
	_, err = a.SendCommit(ctx, skewed, "bob", commitMsg("g", 7, "x"))
	wantCode(t, err, "clock_skew")
	_, err = a.SendCommit(ctx, s.newID(), "nobody", commitMsg("g", 7, "x"))
	wantCode(t, err, "unknown_recipient")
	for i := 0; i < 5; i++ { // more than the rate: each stale commit gives its token back
		_, err = a.SendCommit(ctx, s.newID(), "bob", commitMsg("g", 7, "x"))
		wantStale(t, err, 0)
	}
	if _, err := a.SendCommit(ctx, s.newID(), "bob", commitMsg("g", 0, "x")); err != nil {
		t.Fatalf("a commit still within the rate: %v", err)
	}
}

// TestConcurrentCommits: in each of many rounds, two devices (one of
// alice's, one of bob's) commit to the group's current epoch at the same
// moment: exactly one wins, the other is told the next epoch, and every
// device's queue holds exactly one commit per epoch (no fork). The
// loser then retries at the epoch it was told, as a client would, and
// the next round starts from there.
func TestConcurrentCommits(t *testing.T) {
	s := newTestServer(t, withRate(1000), withSelfRate(1000))
	ctx := context.Background()
	alice := s.register(t, "alice", 2)
	bob := s.register(t, "bob", 2)
	const g = "race"
	const rounds = 25
	epoch := uint64(0)
	for r := 0; r < rounds; r++ {
		senders := []struct {
			c  *relayclient.Client
			to string
		}{{alice.device(0), "bob"}, {bob.device(0), "alice"}}
		errs := make([]error, len(senders))
		start := make(chan struct{})
		var wg sync.WaitGroup
		for i, sd := range senders {
			id := s.newID()
			wg.Add(1)
			go func() {
				defer wg.Done()
				<-start
				_, errs[i] = sd.c.SendCommit(ctx, id, sd.to, commitMsg(g, epoch, sd.to))
			}()
		}
		close(start)
		wg.Wait()
		won := 0
		for i, err := range errs {
			if err == nil {
				won++
				continue
			}
			wantStale(t, err, epoch+1)
			// The loser applies the winner and commits its change again.
			if _, err := senders[i].c.SendCommit(ctx, s.newID(), senders[i].to, commitMsg(g, epoch+1, "retry")); err != nil {
				t.Fatalf("round %d: the loser's retry: %v", r, err)
			}
		}
		if won != 1 {
			t.Fatalf("round %d: %d commits won epoch %d, want exactly 1 (%v)", r, won, epoch, errs)
		}
		epoch += 2
	}
	if e := s.epochOf(t, g); e != int(epoch) {
		t.Fatalf("group at %d, want %d", e, epoch)
	}
	// The devices that never commit hold every accepted commit, one per
	// epoch: the relay's order, with no fork.
	for _, d := range []string{alice.Devices[1], bob.Devices[1]} {
		rows, err := s.Pool.Query(ctx, `SELECT body FROM queue WHERE device_id = $1 ORDER BY seq`, d)
		if err != nil {
			t.Fatal(err)
		}
		bodies, err := pgx.CollectRows(rows, pgx.RowTo[[]byte])
		if err != nil {
			t.Fatal(err)
		}
		if len(bodies) != int(epoch) {
			t.Fatalf("a device holds %d commits for %d epochs", len(bodies), epoch)
		}
		for i, b := range bodies {
			h, err := mlsheader.Parse(b)
			if err != nil || h.Epoch != uint64(i) {
				t.Fatalf("commit %d in seq order is at epoch %d (%v), want %d", i, h.Epoch, err, i)
			}
		}
	}
	if n := s.count(t, `SELECT count(*) FROM sent`); n != int(epoch) {
		t.Fatalf("%d commits accepted for %d epochs", n, epoch)
	}
}
