package relay_test

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/base64"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"relay/relay"
	"relay/relayclient"
)

// newGroupID draws a group id as clients do: 32 random bytes.
func newGroupID(t *testing.T) []byte {
	t.Helper()
	g := make([]byte, 32)
	if _, err := rand.Read(g); err != nil {
		t.Fatal(err)
	}
	return g
}

// commitTo moves group g on the relay to epoch, by commits from c.
func (s *testServer) commitTo(t *testing.T, c *relayclient.Client, g []byte, epoch uint64) {
	t.Helper()
	for e := uint64(s.epochOf(t, string(g))); e < epoch; e++ {
		if _, err := c.SendCommit(context.Background(), s.newID(), "alice", commitMsg(string(g), e, "c")); err != nil {
			t.Fatalf("commit at epoch %d: %v", e, err)
		}
	}
}

func wantGroupInfo(t *testing.T, c *relayclient.Client, g []byte, epoch uint64, info string) {
	t.Helper()
	got, err := c.GetGroupInfo(context.Background(), g)
	if err != nil || got.Epoch != epoch || string(got.Info) != info {
		t.Fatalf("GroupInfo %d %q (%v), want %d %q", got.Epoch, got.Info, err, epoch, info)
	}
}

func wantEpochError(t *testing.T, err error, code string, epoch uint64) {
	t.Helper()
	var e *relayclient.Error
	if !errors.As(err, &e) || e.Status != 409 || e.Code != code ||
		(code == "stale_epoch" && e.CurrentEpoch != epoch) || (code == "epoch_ahead" && e.GroupEpoch != epoch) {
		t.Fatalf("got %v (%+v), want 409 %s naming epoch %d", err, e, code, epoch)
	}
}

// TestGroupInfo: one GroupInfo per group; a store of the same or a later
// epoch replaces it, an earlier one is stale_epoch with the stored epoch
// and changes nothing; an epoch the group's commits have not reached on
// the relay is epoch_ahead, until the commit is accepted (the control);
// any device that names the group reads it, and another group's is
// another row.
func TestGroupInfo(t *testing.T) {
	s := newTestServer(t)
	ctx := context.Background()
	alice := s.register(t, "alice", 1)
	bob := s.register(t, "bob", 1)
	a, b := alice.device(0), bob.device(0)
	g, other := newGroupID(t), newGroupID(t)

	_, err := a.GetGroupInfo(ctx, g)
	wantCode(t, err, "unknown_group")
	// A group without a commit is at epoch 0.
	if err := a.PutGroupInfo(ctx, g, 0, []byte("gi-0")); err != nil {
		t.Fatal(err)
	}
	wantGroupInfo(t, b, g, 0, "gi-0")
	wantEpochError(t, a.PutGroupInfo(ctx, g, 1, []byte("gi-1")), "epoch_ahead", 0)
	s.commitTo(t, a, g, 1)
	if err := a.PutGroupInfo(ctx, g, 1, []byte("gi-1")); err != nil {
		t.Fatalf("after the commit to epoch 1: %v", err)
	}
	// The same epoch again replaces it, from any account.
	if err := b.PutGroupInfo(ctx, g, 1, []byte("gi-1b")); err != nil {
		t.Fatal(err)
	}
	wantGroupInfo(t, a, g, 1, "gi-1b")
	s.commitTo(t, a, g, 3)
	if err := b.PutGroupInfo(ctx, g, 3, []byte("gi-3")); err != nil {
		t.Fatal(err)
	}
	wantEpochError(t, a.PutGroupInfo(ctx, g, 2, []byte("gi-2")), "stale_epoch", 3)
	wantEpochError(t, a.PutGroupInfo(ctx, g, 0, []byte("gi-0")), "stale_epoch", 3)
	wantEpochError(t, a.PutGroupInfo(ctx, g, 4, []byte("gi-4")), "epoch_ahead", 3)
	wantGroupInfo(t, a, g, 3, "gi-3")

	_, err = a.GetGroupInfo(ctx, other)
	wantCode(t, err, "unknown_group")
	if err := a.PutGroupInfo(ctx, other, 0, []byte("other-0")); err != nil {
		t.Fatal(err)
	}
	wantGroupInfo(t, a, other, 0, "other-0")
	wantGroupInfo(t, a, g, 3, "gi-3")
	if n := s.count(t, `SELECT count(*) FROM mls_group_info`); n != 2 {
		t.Fatalf("%d rows for two groups", n)
	}
	// The bytes are stored as sent, under the id as bytes, with no author.
	var stored []byte
	if err := s.Pool.QueryRow(ctx, `SELECT info FROM mls_group_info WHERE group_id = $1`, g).Scan(&stored); err != nil || string(stored) != "gi-3" {
		t.Fatalf("stored %q (%v)", stored, err)
	}
}

// TestGroupInfoChecks: the checks of both endpoints in the order
// docs/protocol.md gives, and each account's budgets.
func TestGroupInfoChecks(t *testing.T) {
	s := newTestServer(t)
	ctx := context.Background()
	alice := s.register(t, "alice", 1)
	bob := s.register(t, "bob", 1)
	a := alice.device(0)
	g := base64.RawURLEncoding.EncodeToString(newGroupID(t))
	path := "/api/groups/" + g + "/info"
	put := map[string]string{"Origin": s.URL, "X-Device": a.Device, "Content-Type": "application/json"}
	dev := map[string]string{"X-Device": a.Device}
	ok := `{"epoch": 0, "info": "eA=="}`
	for _, c := range []struct {
		name, method, path string
		client             *relayclient.Client
		header             map[string]string
		body               any
		want               string
	}{
		{"no session", "PUT", path, relayclient.New(s.URL), put, ok, "unauthenticated"},
		{"no device", "PUT", "/api/groups/x/info", a, map[string]string{"Origin": s.URL}, `{`, "device_required"},
		{"another's device", "PUT", path, a, map[string]string{"Origin": s.URL, "X-Device": bob.Devices[0]}, ok, "device_forbidden"},
		{"no origin", "PUT", "/api/groups/x/info", a, dev, `{`, "origin_required"},
		{"too large", "PUT", "/api/groups/x/info", a, put, strings.Repeat(" ", 96<<10+1), "too_large"},
		{"bad group before bad json", "PUT", "/api/groups/" + g[:42] + "/info", a, put, `{`, "bad_group"},
		{"padded group", "PUT", "/api/groups/" + g[:42] + "=/info", a, put, ok, "bad_group"},
		{"standard alphabet", "PUT", "/api/groups/" + strings.Repeat("+", 43) + "/info", a, put, ok, "bad_group"},
		{"bad json", "PUT", path, a, put, `{`, "bad_json"},
		{"no info", "PUT", path, a, put, `{"epoch": 0}`, "bad_group_info"},
		{"get, no device", "GET", "/api/groups/x/info", a, nil, nil, "device_required"},
		{"get, bad group", "GET", "/api/groups/" + g + "A/info", a, dev, nil, "bad_group"},
		{"get, unknown", "GET", path, a, dev, nil, "unknown_group"},
		{"delete", "DELETE", path, a, put, nil, "method_not_allowed"},
	} {
		if got := raw(t, c.client, c.method, c.path, c.header, c.body); got.code() != c.want {
			t.Errorf("%s: %d %s, want %s", c.name, got.Status, got.code(), c.want)
		}
	}
	if got := raw(t, a, "PUT", path, put, ok); got.Status != 204 {
		t.Fatalf("the control: %d %s, want 204", got.Status, got.Raw)
	}

	// The budgets, per account: 60 stores an hour and 60 reads a minute,
	// taken by every request past the shape checks (one store and one
	// read of an unknown group were spent above), then 429 with
	// Retry-After.
	b := bob.device(0)
	id, _ := base64.RawURLEncoding.DecodeString(g)
	budget := func(name string, n int, call func() error, wait time.Duration) {
		t.Helper()
		done := 0
		var last error
		for range n + 1 {
			if last = call(); last != nil {
				break
			}
			done++
		}
		var e *relayclient.Error
		if !errors.As(last, &e) || e.Code != "rate_limited" || e.RetryAfter != wait {
			t.Fatalf("%s: %v after %d, want rate_limited with Retry-After %s", name, last, done, wait)
		}
		if done != n {
			t.Fatalf("%s: %d passed the budget, want %d", name, done, n)
		}
	}
	budget("stores", 59, func() error { return a.PutGroupInfo(ctx, id, 0, []byte("x")) }, time.Minute)
	budget("reads", 59, func() error { _, err := a.GetGroupInfo(ctx, id); return err }, time.Second)
	// Shape refusals take no token, and another account has its own.
	if got := raw(t, a, "PUT", "/api/groups/x/info", put, ok); got.code() != "bad_group" {
		t.Fatalf("over budget, a bad group id: %s, want bad_group", got.code())
	}
	if err := b.PutGroupInfo(ctx, id, 0, []byte("y")); err != nil {
		t.Fatalf("another account's store: %v", err)
	}
	s.Clock.Advance(time.Minute)
	if err := a.PutGroupInfo(ctx, id, 0, []byte("z")); err != nil {
		t.Fatalf("a minute later: %v", err)
	}
}

// TestGroupInfoPurge: a GroupInfo nobody stored for longer than the
// queue's age limit is deleted by the purge; one stored again at the same
// epoch meanwhile stays (the control), as does every one before its time.
// The limit is two days here, so that the sessions outlive it.
func TestGroupInfoPurge(t *testing.T) {
	const maxAge = 48 * time.Hour
	s := newTestServer(t, func(c *relay.Config) { c.QueueMaxAge = maxAge })
	ctx := context.Background()
	a := s.register(t, "alice", 1).device(0)
	old, kept := newGroupID(t), newGroupID(t)
	for _, g := range [][]byte{old, kept} {
		if err := a.PutGroupInfo(ctx, g, 0, []byte("gi")); err != nil {
			t.Fatal(err)
		}
	}
	s.Clock.Advance(maxAge - time.Hour)
	s.Relay.PurgeQueues(ctx)
	wantGroupInfo(t, a, old, 0, "gi")
	if err := a.PutGroupInfo(ctx, kept, 0, []byte("gi again")); err != nil {
		t.Fatal(err)
	}
	s.Clock.Advance(2 * time.Hour)
	s.Relay.PurgeQueues(ctx)
	_, err := a.GetGroupInfo(ctx, old)
	wantCode(t, err, "unknown_group")
	wantGroupInfo(t, a, kept, 0, "gi again")
	// A group whose row went starts again with the next store.
	if err := a.PutGroupInfo(ctx, old, 0, []byte("gi new")); err != nil {
		t.Fatal(err)
	}
	wantGroupInfo(t, a, old, 0, "gi new")
}

// TestGroupInfoConcurrentStores: many devices of several accounts store
// GroupInfos of different epochs of one group at once; each store either
// wins or is told of a later epoch already stored, and what stays is of
// the latest epoch, whatever the order the database ran them in.
func TestGroupInfoConcurrentStores(t *testing.T) {
	s := newTestServer(t)
	ctx := context.Background()
	alice := s.register(t, "alice", 1)
	g := newGroupID(t)
	const top = 5
	s.commitTo(t, alice.device(0), g, top)
	var clients []*relayclient.Client
	for i := range 4 {
		clients = append(clients, s.register(t, fmt.Sprintf("member_%d", i), 1).device(0))
	}
	const each = 6
	errs := make([]error, len(clients)*each)
	start := make(chan struct{})
	var wg sync.WaitGroup
	for i, c := range clients {
		for j := range each {
			n := i*each + j
			wg.Go(func() {
				<-start
				errs[n] = c.PutGroupInfo(ctx, g, uint64(n%(top+1)), []byte(fmt.Sprintf("gi-%d-%d", n%(top+1), n)))
			})
		}
	}
	close(start)
	wg.Wait()
	for n, err := range errs {
		var e *relayclient.Error
		switch {
		case err == nil:
		case errors.As(err, &e) && e.Code == "stale_epoch" && e.CurrentEpoch > uint64(n%(top+1)):
		default:
			t.Fatalf("store %d at epoch %d: %v", n, n%(top+1), err)
		}
	}
	got, err := alice.device(0).GetGroupInfo(ctx, g)
	if err != nil || got.Epoch != top || !bytes.HasPrefix(got.Info, []byte(fmt.Sprintf("gi-%d-", top))) {
		t.Fatalf("stored %d %q (%v), want a GroupInfo of epoch %d", got.Epoch, got.Info, err, top)
	}
}
