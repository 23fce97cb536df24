package main

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/oklog/ulid/v2"

	"relay/epoch"
	"relay/internal/testdb"
	"relay/relayclient"
)

func adminPool(t *testing.T, db string) *pgxpool.Pool {
	t.Helper()
	pool, err := pgxpool.New(context.Background(), db)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(pool.Close)
	return pool
}

func countRows(t *testing.T, pool *pgxpool.Pool, q string, args ...any) int {
	t.Helper()
	var n int
	if err := pool.QueryRow(context.Background(), q, args...).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

// TestAdminUsage: every command has --help (exit 0), and a command that
// is not well formed exits 2 with what is wrong, before it touches the
// database; an unknown account exits 1.
func TestAdminUsage(t *testing.T) {
	db := testdb.New(t)
	env := []string{"DATABASE_URL=" + db}
	for _, words := range [][]string{{}, {"stats"}, {"disable"}, {"enable"}, {"delete"}, {"sessions", "revoke"}, {"vacuum"}, {"new-epoch"}} {
		out, code := runBinary(t, env, append(append([]string{"admin"}, words...), "--help")...)
		if code != 0 || !strings.Contains(out, "Usage") {
			t.Errorf("admin %v --help: exit %d\n%s", words, code, out)
		}
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"admin"}, "needs a command"},
		{[]string{"admin", "shutdown"}, `no command "shutdown"`},
		{[]string{"admin", "disable", "--reason", "spam"}, "takes one USERNAME"},
		{[]string{"admin", "disable", "alice"}, "needs --reason"},
		{[]string{"admin", "disable", "alice", "--reason", "  "}, "needs --reason"},
		{[]string{"admin", "disable", "Alice!", "--reason", "spam"}, "is not a username"},
		{[]string{"admin", "enable", "alice", "bob", "--reason", "x"}, "takes one USERNAME"},
		{[]string{"admin", "stats", "alice"}, "takes no argument"},
		{[]string{"admin", "new-epoch"}, "needs --reason"},
		{[]string{"admin", "new-epoch", "alice", "--reason", "x"}, "takes no argument"},
		{[]string{"admin", "sessions", "revoke", "--reason", "x"}, "takes one USERNAME"},
		{[]string{"admin", "delete", "alice", "--reason", "x", "--deleted-name-hold", "1s"}, "--deleted-name-hold must be at least"},
		{[]string{"admin", "delete", "alice", "--reason", "x", "--bogus"}, "flag provided but not defined"},
	} {
		out, code := runBinary(t, env, tc.args...)
		if code != 2 || !strings.Contains(out, tc.want) {
			t.Errorf("%v: exit %d, want 2 and %q\n%s", tc.args, code, tc.want, out)
		}
	}
	for _, args := range [][]string{
		{"admin", "disable", "nobody", "--reason", "x"},
		{"admin", "enable", "--reason", "x", "nobody"},
		{"admin", "delete", "nobody", "--reason=x"},
		{"admin", "sessions", "revoke", "nobody", "--reason", "x"},
	} {
		out, code := runBinary(t, env, args...)
		if code != 1 || !strings.Contains(out, "no account is named nobody") {
			t.Errorf("%v: exit %d, want 1\n%s", args, code, out)
		}
	}
}

// TestAdminNewEpoch: relay admin new-epoch, run after a restore, starts a
// new epoch, and every open stream, on every instance, ends at once with
// event: rewound, so that its client reconnects and learns the epoch; a
// new stream tells it. The log names the reason and both epochs.
func TestAdminNewEpoch(t *testing.T) {
	ps := instances(t, 2)
	db := ps[0].db
	env := []string{"DATABASE_URL=" + db}
	ctx := context.Background()
	alice := account(t, ps[0].url(), "alice", 2)
	var fs []*follower
	for i, p := range ps {
		f := follow(at(alice[i], p))
		defer f.cancel()
		f.expect(t, "ready", 10*time.Second)
		fs = append(fs, f)
	}
	before := readEpoch(t, db)

	out, code := runBinary(t, env, "admin", "new-epoch", "--reason", "restored from last night's backup")
	after := readEpoch(t, db)
	if code != 0 || after == before || !strings.Contains(out, "epoch "+before+" replaced by "+after) {
		t.Fatalf("new-epoch: exit %d, epoch %s then %s\n%s", code, before, after, out)
	}
	if !strings.Contains(out, `reason="restored from last night's backup"`) {
		t.Errorf("the log lacks the reason:\n%s", out)
	}
	for _, f := range fs {
		// Well under the 5 s catch-up interval: the notification.
		f.expect(t, "rewound", 2*time.Second)
	}
	var got string
	err := alice[0].Stream(ctx, "", false, func(e relayclient.Event) error {
		if e.Name == "epoch" {
			got = e.Epoch
			return errors.New("seen")
		}
		return nil
	})
	if got != after {
		t.Fatalf("a new stream told epoch %q (%v), want %s", got, err, after)
	}
}

func readEpoch(t *testing.T, db string) string {
	t.Helper()
	p, err := epoch.Read(context.Background(), adminPool(t, db))
	if err != nil {
		t.Fatal(err)
	}
	return p.String()
}

// TestAdminDisableEnable: on a running relay, disabling alice ends her
// open stream with event: disabled at once; she can then neither log in,
// nor send, nor stream (403 account_disabled), while bob is untouched.
// Enabling gives everything back with the same session. The log names
// the reason and alice, and no other username.
func TestAdminDisableEnable(t *testing.T) {
	ps := instances(t, 2)
	db := ps[0].db
	env := []string{"DATABASE_URL=" + db}
	ctx := context.Background()
	alice := account(t, ps[0].url(), "alice", 1)
	bob := account(t, ps[0].url(), "bob", 1)
	send(t, bob[0], "alice")
	f := follow(at(alice[0], ps[1]))
	defer f.cancel()
	f.expect(t, "envelope", 10*time.Second)
	f.expect(t, "ready", 2*time.Second)

	out, code := runBinary(t, env, "admin", "disable", "alice", "--reason", "spam reported by three people")
	if code != 0 || !strings.Contains(out, "disabled alice") {
		t.Fatalf("disable: exit %d\n%s", code, out)
	}
	for _, want := range []string{`reason="spam reported by three people"`, "username=alice"} {
		if !strings.Contains(out, want) {
			t.Errorf("the log lacks %s:\n%s", want, out)
		}
	}
	if strings.Contains(out, "bob") {
		t.Errorf("the output names another account:\n%s", out)
	}
	// Well under the 5 s catch-up interval: the notification.
	f.expect(t, "disabled", 2*time.Second)
	if err := <-f.done; !errors.Is(err, relayclient.ErrStreamEnded) {
		t.Fatalf("the stream ended with %v", err)
	}
	_, err := alice[0].Send(ctx, ulid.Make().String(), "bob", []byte("x"))
	wantCode(t, err, "account_disabled")
	err = alice[0].Stream(ctx, "", false, func(relayclient.Event) error { return nil })
	wantCode(t, err, "account_disabled")
	_, err = relayclient.New(ps[1].url()).Login(ctx, "alice", "long enough password")
	wantCode(t, err, "account_disabled")
	_, err = relayclient.New(ps[1].url()).Login(ctx, "alice", "a wrong password")
	wantCode(t, err, "bad_credentials") // the state is told to the password's owner only
	send(t, bob[0], "alice")            // what is sent to her waits

	out, code = runBinary(t, env, "admin", "enable", "alice", "--reason", "appeal granted")
	if code != 0 || !strings.Contains(out, "enabled alice") || !strings.Contains(out, `reason="appeal granted"`) {
		t.Fatalf("enable: exit %d\n%s", code, out)
	}
	send(t, alice[0], "bob")
	g := follow(at(alice[0], ps[1]))
	defer g.cancel()
	g.expect(t, "envelope", 10*time.Second) // never ACKed
	g.expect(t, "envelope", 2*time.Second)  // sent while she was disabled
	g.expect(t, "ready", 2*time.Second)
}

// TestAdminSessionsRevoke: every session of alice ends, her streams end
// with event: logged_out, her requests are then 401; a login on the same
// browser speaks as the same device again. bob's session is untouched.
func TestAdminSessionsRevoke(t *testing.T) {
	ps := instances(t, 1)
	env := []string{"DATABASE_URL=" + ps[0].db}
	ctx := context.Background()
	alice := account(t, ps[0].url(), "alice", 2)
	bob := account(t, ps[0].url(), "bob", 1)
	f := follow(alice[1])
	defer f.cancel()
	f.expect(t, "ready", 10*time.Second)
	out, code := runBinary(t, env, "admin", "sessions", "revoke", "alice", "--reason", "stolen laptop")
	if code != 0 || !strings.Contains(out, "ended 1 sessions of alice") || !strings.Contains(out, `reason="stolen laptop"`) {
		t.Fatalf("sessions revoke: exit %d\n%s", code, out)
	}
	f.expect(t, "logged_out", 2*time.Second)
	_, err := alice[0].Send(ctx, ulid.Make().String(), "bob", []byte("x"))
	wantCode(t, err, "unauthenticated")
	send(t, bob[0], "alice")
	if _, err := alice[0].Login(ctx, "alice", "long enough password"); err != nil {
		t.Fatal(err)
	}
	send(t, alice[0], "bob")
}

// TestAdminDeleteOnTwoInstances: alice streams from instance 2 and sends
// through it as fast as she can while relay admin deletes her. The stream
// ends with event: deleted within the notification's time, not the
// catch-up interval; every send is accepted before or refused after with
// 401 or 410, never a 5xx; nothing of alice is left, in bob's queue
// either, and after the vacuum her username and the bytes of her envelope
// are gone from the table files of the database (checked in SQL here; the
// browser test searches the files). Deleting again exits 1 and says so.
func TestAdminDeleteOnTwoInstances(t *testing.T) {
	ps := instances(t, 2)
	db := ps[0].db
	pool := adminPool(t, db)
	env := []string{"DATABASE_URL=" + db}
	ctx := context.Background()
	alice := account(t, ps[0].url(), "alice", 2)
	bob := account(t, ps[0].url(), "bob", 1)
	send(t, bob[0], "alice")
	f := follow(at(alice[0], ps[1]))
	defer f.cancel()
	f.expect(t, "envelope", 10*time.Second)
	f.expect(t, "ready", 2*time.Second)

	sender := at(alice[1], ps[1])
	var mu sync.Mutex // guards accepted, refusals
	accepted := 0
	refusals := map[string]int{}
	started := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() {
		for i := 0; ; i++ {
			_, err := sender.Send(ctx, ulid.Make().String(), "bob", []byte("racing ciphertext"))
			mu.Lock()
			if err == nil {
				accepted++
			} else {
				refusals[relayclient.Code(err)]++
			}
			mu.Unlock()
			if i == 0 {
				close(started)
			}
			if err != nil {
				return
			}
		}
	})
	<-started
	out, code := runBinary(t, env, "admin", "delete", "alice", "--reason", "asked by mail", "--deleted-name-hold", "2h")
	if code != 0 || !strings.Contains(out, "deleted alice and its 2 devices") || !strings.Contains(out, "rewrote accounts") {
		t.Fatalf("delete: exit %d\n%s", code, out)
	}
	if strings.Contains(out, "bob") {
		t.Errorf("the output names another account:\n%s", out)
	}
	// Her racing envelopes reach her other device too, until the end.
	e := f.next(t, 2*time.Second)
	for e.Name == "envelope" {
		e = f.next(t, 2*time.Second)
	}
	if e.Name != "deleted" {
		t.Fatalf("got event %s, want deleted", e.Name)
	}
	wg.Wait()
	for c := range refusals {
		if c != "unauthenticated" && c != "account_deleted" {
			t.Fatalf("a send racing the deletion got %q (%v)", c, refusals)
		}
	}
	if accepted == 0 {
		t.Fatal("no send was accepted before the deletion: the race was not run")
	}
	if n := countRows(t, pool, `SELECT count(*) FROM queue WHERE from_username = 'alice' OR to_username = 'alice'`); n != 0 {
		t.Fatalf("%d envelopes of alice left after %d accepted", n, accepted)
	}
	if n := countRows(t, pool, `SELECT count(*) FROM accounts WHERE username = 'alice'`); n != 0 {
		t.Fatal("alice is still there")
	}
	if n := countRows(t, pool, `SELECT count(*) FROM held_names WHERE held_until < now() + interval '3 hours'`); n != 1 {
		t.Fatal("the name is not held for --deleted-name-hold")
	}
	_, err := bob[0].Lookup(ctx, "alice")
	wantCode(t, err, "account_deleted")

	out, code = runBinary(t, env, "admin", "delete", "alice", "--reason", "twice")
	if code != 1 || !strings.Contains(out, "was deleted already") {
		t.Fatalf("second delete: exit %d\n%s", code, out)
	}
	out, code = runBinary(t, env, "admin", "stats")
	if code != 0 || !strings.Contains(out, "accounts             1 (0 disabled)") || !strings.Contains(out, "held usernames       1") {
		t.Fatalf("stats: exit %d\n%s", code, out)
	}
	if strings.Contains(out, "bob") || strings.Contains(out, bob[0].Device) {
		t.Fatalf("stats name an account or a device:\n%s", out)
	}
}

// TestAdminDeleteWithoutNotifications: with NOTIFY off, the catch-up
// check alone ends a deleted account's stream, with event: deleted.
func TestAdminDeleteWithoutNotifications(t *testing.T) {
	ps := instances(t, 1, "--notify=false", "--catch-up-interval", "200ms")
	alice := account(t, ps[0].url(), "alice", 1)
	f := follow(alice[0])
	defer f.cancel()
	f.expect(t, "ready", 10*time.Second)
	if out, code := runBinary(t, []string{"DATABASE_URL=" + ps[0].db}, "admin", "delete", "alice", "--reason", "x", "--vacuum=false"); code != 0 {
		t.Fatalf("delete: exit %d\n%s", code, out)
	}
	f.expect(t, "deleted", 5*time.Second)
}

func wantCode(t *testing.T, err error, code string) {
	t.Helper()
	if got := relayclient.Code(err); got != code {
		t.Fatalf("got error %v, want code %q", err, code)
	}
}
