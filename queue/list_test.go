package queue_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/oklog/ulid/v2"

	"relay/internal/testdb"
	"relay/queue"
)

// The envelopes of a "to" list (ADR 0106): one accept for many accounts.

// listEnvelope is an envelope from account from, speaking as fromDevice,
// to the accounts to, each named "user<i>" as fixture names them.
func listEnvelope(accs []int64, from int, fromDevice string, to []int) *queue.Envelope {
	e := &queue.Envelope{ID: ulid.Make().String(), FromAccount: accs[from], FromUsername: fmt.Sprintf("user%d", from),
		FromDevice: fromDevice, Listed: true, TS: time.Now().UnixMilli(), Body: []byte("x")}
	var names []string
	for _, i := range to {
		name := fmt.Sprintf("user%d", i)
		names = append(names, name)
		e.Recipients = append(e.Recipients, queue.Recipient{Account: accs[i], Username: name})
	}
	e.ToUsername = queue.ListKey(names)
	return e
}

// TestListKey: a list's key is the same for the same names in the same
// order, and another for another order, for one name fewer, and for the
// one name the list holds: a username is never a list's key.
func TestListKey(t *testing.T) {
	k := queue.ListKey([]string{"bob", "carol"})
	if k != queue.ListKey([]string{"bob", "carol"}) {
		t.Fatal("the key of one list changes")
	}
	for _, other := range []string{queue.ListKey([]string{"carol", "bob"}), queue.ListKey([]string{"bob"}), "bob", queue.ListKey([]string{"bob,carol"})} {
		if other == k {
			t.Fatalf("%q is the key of another list too", other)
		}
	}
	if len(k) != len("list:")+64 || k[:5] != "list:" {
		t.Fatalf("key %q", k)
	}
}

// TestListEnvelopesInOneGroup: two list envelopes committed as one group
// reach every device of their accounts but the sending ones, each copy
// carrying the username of the account it was queued for, the sender's on
// the sender's other devices.
func TestListEnvelopesInOneGroup(t *testing.T) {
	pool, _ := testdb.Pool(t)
	ctx := context.Background()
	devs := fixture(t, pool, 2, 2, 1)
	accs := accountIDs(devs)
	owner := map[string]string{}
	for i, a := range accs {
		for _, d := range devs[a] {
			owner[d] = fmt.Sprintf("user%d", i)
		}
	}
	envs := []*queue.Envelope{
		listEnvelope(accs, 0, devs[accs[0]][0], []int{1, 2}),
		listEnvelope(accs, 1, devs[accs[1]][1], []int{2, 0}),
	}
	c := queue.NewCommitter(pool, 1, 0)
	res := c.CommitGroup(ctx, envs, time.Now().Add(time.Hour), time.Now())
	if err := groupErr(c, res); err != nil {
		t.Fatal(err)
	}
	for i, r := range res {
		if len(r.DS) != 4 { // five devices, less the sending one
			t.Fatalf("envelope %d: %d deliveries, want 4", i, len(r.DS))
		}
		for _, d := range r.DS {
			if d.DeviceID == envs[i].FromDevice || d.To != owner[d.DeviceID] {
				t.Errorf("envelope %d: delivery %+v, want to %q and never the sending device", i, d, owner[d.DeviceID])
			}
		}
	}
	if total := gaplessRows(t, pool); total != 8 {
		t.Fatalf("%d queue rows, want 8", total)
	}
}

// TestGroupCommitListsNoDeadlock: two committers accept list envelopes to
// random, overlapping sets of accounts at once. No group fails, and every
// device's seqs are gapless. The control, tried: a group that first locks
// only its senders' devices, as it did before lists, deadlocks with
// another here in every run.
func TestGroupCommitListsNoDeadlock(t *testing.T) {
	pool, _ := testdb.Pool(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	devs := fixture(t, pool, 2, 2, 2, 2, 2)
	accs := accountIDs(devs)
	committers := []*queue.Committer{queue.NewCommitter(pool, 2, 0), queue.NewCommitter(pool, 2, 0)}
	for _, c := range committers {
		go c.Run(ctx)
	}
	const senders, each = 8, 20
	deliveries := acceptAtOnce(t, committers, senders, each, 2, func(rng *rand.Rand) *queue.Envelope {
		from := rng.IntN(len(accs))
		var to []int
		for _, i := range rng.Perm(len(accs))[:2+rng.IntN(3)] {
			if i != from {
				to = append(to, i)
			}
		}
		return listEnvelope(accs, from, devs[accs[from]][rng.IntN(2)], to)
	})
	if total := gaplessRows(t, pool); total != deliveries {
		t.Fatalf("%d queue rows, %d deliveries reported", total, deliveries)
	}
}
