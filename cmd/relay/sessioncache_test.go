package main

import (
	"context"
	"strings"
	"testing"
	"time"

	"relay/devices"
	"relay/relayclient"
)

// answersSoon polls c's ACK until its answer's code is want ("" is a
// success), failing on any other answer meanwhile. The deadline is well
// under devices.CacheTTL: a cached session that no notice reached would
// still pass when it ends.
func answersSoon(t *testing.T, c *relayclient.Client, want string) {
	t.Helper()
	const within = 5 * time.Second
	if within >= devices.CacheTTL/2 {
		t.Fatal("the deadline would not tell a notice from the end of an entry")
	}
	deadline := time.Now().Add(within)
	for {
		err := c.Ack(context.Background(), 0)
		if got := relayclient.Code(err); got == want {
			return
		}
		if err != nil {
			t.Fatalf("answered %v while waiting for %q", err, want)
		}
		if time.Now().After(deadline) {
			t.Fatalf("still a success %v after the change, want %q", within, want)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// TestAdminChangesReachCachedSessions: alice's device speaks to instance 2,
// which holds her session in memory; each relay admin command (another
// process, committing on the database) makes instance 2 answer as it would
// without the cache, through the command's notice.
func TestAdminChangesReachCachedSessions(t *testing.T) {
	ps := instances(t, 2)
	env := []string{"DATABASE_URL=" + ps[0].db}
	alice := account(t, ps[0].url(), "alice", 1)
	victim := at(alice[0], ps[1])
	cache := func() {
		t.Helper()
		for range 2 {
			if err := victim.Ack(context.Background(), 0); err != nil {
				t.Fatal(err)
			}
		}
	}
	admin := func(args ...string) {
		t.Helper()
		if out, code := runBinary(t, env, append([]string{"admin"}, append(args, "--reason", "test")...)...); code != 0 {
			t.Fatalf("%s: exit %d\n%s", strings.Join(args, " "), code, out)
		}
	}

	cache()
	admin("disable", "alice")
	answersSoon(t, victim, "account_disabled")
	admin("enable", "alice")
	answersSoon(t, victim, "")

	cache()
	admin("sessions", "revoke", "alice")
	answersSoon(t, victim, "unauthenticated")

	if _, err := alice[0].Login(context.Background(), "alice", "long enough password"); err != nil {
		t.Fatal(err)
	}
	cache()
	admin("delete", "alice")
	answersSoon(t, victim, "unauthenticated")
}
