package relay_test

import (
	"context"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"testing"

	"github.com/jackc/pgx/v5"

	"relay/devices"
	"relay/hub"
	"relay/relay"
	"relay/relayclient"
)

func withoutSessionCache() option { return func(c *relay.Config) { c.DisableSessionCache = true } }

// another starts a second relay instance on s's database and clock, as a
// deployment with several instances runs them (ADR 0016).
func (s *testServer) another(t *testing.T, opts ...option) *testServer {
	t.Helper()
	return running(t, served(t, s.Pool, s.Clock, opts...))
}

// elsewhere is c speaking to the instance at base with a cookie jar of its
// own holding the same session: a logout through c's jar does not take
// the cookie away from it, as it would not from a thief's copy.
func elsewhere(t *testing.T, c *relayclient.Client, base string) *relayclient.Client {
	t.Helper()
	from, _ := url.Parse(c.BaseURL)
	to, _ := url.Parse(base)
	jar, _ := cookiejar.New(nil)
	jar.SetCookies(to, c.HTTP.Jar.Cookies(from))
	d := *c
	d.BaseURL, d.Origin, d.HTTP = base, base, &http.Client{Jar: jar}
	return &d
}

// cacheInstances starts instances A and B on one database, both with the
// cache or, in mode "uncached", both without it, and returns the instance
// a test's next requests go to: A in mode "here", B otherwise. It returns
// once both caches are on (or, uncached, off).
func cacheInstances(t *testing.T, mode string) (a, b, at *testServer) {
	t.Helper()
	var opts []option
	if mode == "uncached" {
		opts = append(opts, withoutSessionCache())
	}
	a = newTestServer(t, opts...)
	b = a.another(t, opts...)
	at = b
	if mode == "here" {
		at = a
	}
	cached := mode != "uncached"
	waitFor(t, "the cache to be on", func() bool {
		return a.Relay.SessionCacheOn() == cached && b.Relay.SessionCacheOn() == cached
	})
	return a, b, at
}

// asAdmin runs f in a transaction of a devices.Store of its own, as relay
// admin (another process, no cache) runs its changes.
func asAdmin(t *testing.T, s *testServer, f func(ctx context.Context, st *devices.Store, tx pgx.Tx) error) {
	t.Helper()
	st, err := devices.NewStore(s.Pool, devices.Config{Argon2: cheapArgon2})
	if err != nil {
		t.Fatal(err)
	}
	if err := pgx.BeginFunc(context.Background(), s.Pool, func(tx pgx.Tx) error { return f(context.Background(), st, tx) }); err != nil {
		t.Fatal(err)
	}
}

// TestSessionCacheInvalidation: alice's device 0 speaks with a session
// and device that the instance it speaks to holds in memory; a change must
// make its next request answer exactly what it answers without the cache.
// Each case runs in up to three ways:
//   - elsewhere: the change is made on instance A (or by relay admin, in a
//     process of its own) and the request goes to instance B once B has
//     had the change's notice;
//   - here: the change and the request go to instance A, the request at
//     once, without waiting for the notice (A forgets after its commit);
//   - uncached: the answer of a relay without the cache, which must be the
//     same.
//
// Expiry and an entry's life need no notice: they run on the clock.
func TestSessionCacheInvalidation(t *testing.T) {
	ctx := context.Background()
	type fixture struct {
		a, b         *testServer
		alice        *user
		victim       *relayclient.Client // device 0, with a jar of its own
		other        *relayclient.Client // device 1, at A
		victimDevice string
	}
	type kind int
	const (
		onA    kind = iota // a request to instance A makes the change
		admin              // another process makes it
		nobody             // the clock does
	)
	for _, tc := range []struct {
		name   string
		by     kind
		change func(t *testing.T, f *fixture)
		want   string // the code of the next answer; "" is a success
	}{
		{"logout", onA, func(t *testing.T, f *fixture) {
			if err := f.alice.Client.Logout(ctx); err != nil {
				t.Fatal(err)
			}
		}, "unauthenticated"},
		{"device revoked", onA, func(t *testing.T, f *fixture) {
			if err := f.other.Revoke(ctx, f.victimDevice); err != nil {
				t.Fatal(err)
			}
		}, "device_forbidden"},
		{"key replaced, revoking the device", onA, func(t *testing.T, f *fixture) {
			if _, err := f.other.ReplaceKey(ctx, password, newKey(t), []string{f.victimDevice}, nil); err != nil {
				t.Fatal(err)
			}
		}, "device_forbidden"},
		{"account deleted", onA, func(t *testing.T, f *fixture) {
			if err := f.other.DeleteAccount(ctx, password); err != nil {
				t.Fatal(err)
			}
		}, "unauthenticated"},
		{"account disabled by relay admin", admin, func(t *testing.T, f *fixture) {
			asAdmin(t, f.a, func(ctx context.Context, st *devices.Store, tx pgx.Tx) error {
				devs, err := st.SetDisabled(ctx, tx, "alice", true)
				if err != nil {
					return err
				}
				return hub.NotifyEnded(ctx, tx, hub.ReasonDisabled, devs)
			})
		}, "account_disabled"},
		{"sessions revoked by relay admin", admin, func(t *testing.T, f *fixture) {
			asAdmin(t, f.a, func(ctx context.Context, st *devices.Store, tx pgx.Tx) error {
				_, devs, err := st.RevokeSessions(ctx, tx, "alice")
				if err != nil {
					return err
				}
				return hub.NotifyEnded(ctx, tx, hub.ReasonLoggedOut, devs)
			})
		}, "unauthenticated"},
		{"session expired", nobody, func(t *testing.T, f *fixture) {
			// Read again shortly before the session ends, so that the
			// entry would outlive it.
			f.a.Clock.Advance(devices.SessionTTL - devices.CacheTTL/2)
			for range 2 {
				if err := f.victim.Ack(ctx, 0); err != nil {
					t.Fatalf("before the session's end: %v", err)
				}
			}
			f.a.Clock.Advance(devices.CacheTTL / 2)
		}, "unauthenticated"},
		{"entry outlived, after a change no notice told", nobody, func(t *testing.T, f *fixture) {
			// Behind the relay's back: only the bound on an entry's
			// life ends what the cache holds.
			if _, err := f.a.Pool.Exec(ctx, `UPDATE devices SET revoked_at = now() WHERE id = $1`, f.victimDevice); err != nil {
				t.Fatal(err)
			}
			if f.b.Relay.SessionCacheOn() {
				if err := f.victim.Ack(ctx, 0); err != nil {
					t.Fatalf("before the entry's end: %v, want the answer it holds", err)
				}
			}
			f.a.Clock.Advance(devices.CacheTTL)
		}, "device_forbidden"},
	} {
		for _, mode := range []string{"elsewhere", "here", "uncached"} {
			if mode == "here" && tc.by != onA {
				continue
			}
			t.Run(tc.name+"/"+mode, func(t *testing.T) {
				a, b, at := cacheInstances(t, mode)
				cached := mode != "uncached"
				f := &fixture{a: a, b: b}
				f.alice = a.register(t, "alice", 2)
				f.victimDevice = f.alice.Devices[0]
				f.other = f.alice.device(1)
				f.victim = elsewhere(t, f.alice.device(0), at.URL)
				for range 2 {
					if err := f.victim.Ack(ctx, 0); err != nil {
						t.Fatal(err)
					}
				}
				hits, forgotten := at.Relay.SessionCacheStats()
				if cached != (hits > 0) {
					t.Fatalf("the instance answered %d checks from memory (cache on: %v)", hits, cached)
				}
				tc.change(t, f)
				if mode == "elsewhere" && tc.by != nobody {
					waitFor(t, "instance B to have the notice", func() bool {
						_, n := at.Relay.SessionCacheStats()
						return n > forgotten
					})
				}
				err := f.victim.Ack(ctx, 0)
				if got := relayclient.Code(err); got != tc.want {
					t.Fatalf("the next request answered %v, want %q", err, tc.want)
				}
				if mode == "here" {
					// Its own notice usually comes before the next
					// request, and hides a missing forgetting after the
					// commit; the two forgettings do not hide each other.
					waitFor(t, "instance A to forget after its commit and at its own notice", func() bool {
						_, n := at.Relay.SessionCacheStats()
						return n >= forgotten+2
					})
				}
			})
		}
	}
}

// TestAccountCacheInvalidation: instance B holds bob's account in memory
// (alice sent to him and read his key there). A change to it on instance
// A must make B's next answers those of a relay without the cache, in the
// same three ways as TestSessionCacheInvalidation.
func TestAccountCacheInvalidation(t *testing.T) {
	ctx := context.Background()
	type fixture struct {
		a, b       *testServer
		alice, bob *user
		atAlice    *relayclient.Client // alice's device 0, at the instance asked
		newKey     []byte
	}
	for _, tc := range []struct {
		name   string
		change func(t *testing.T, f *fixture)
		check  func(t *testing.T, f *fixture)
	}{
		{"account deleted", func(t *testing.T, f *fixture) {
			if err := f.bob.device(0).DeleteAccount(ctx, password); err != nil {
				t.Fatal(err)
			}
		}, func(t *testing.T, f *fixture) {
			if _, err := f.atAlice.Lookup(ctx, "bob"); relayclient.Code(err) != "account_deleted" {
				t.Fatalf("bob's key: %v, want account_deleted", err)
			}
			if _, err := f.atAlice.Send(ctx, f.a.newID(), "bob", []byte("x")); relayclient.Code(err) != "account_deleted" {
				t.Fatalf("a send to bob: %v, want account_deleted", err)
			}
		}},
		{"key replaced", func(t *testing.T, f *fixture) {
			f.newKey = newKey(t)
			if _, err := f.bob.device(1).ReplaceKey(ctx, password, f.newKey, []string{f.bob.Devices[0]}, nil); err != nil {
				t.Fatal(err)
			}
		}, func(t *testing.T, f *fixture) {
			got, err := f.atAlice.Lookup(ctx, "bob")
			if err != nil {
				t.Fatal(err)
			}
			if string(got.PublicKey) != string(f.newKey) {
				t.Fatal("bob's key is the one before the replacement")
			}
		}},
	} {
		for _, mode := range []string{"elsewhere", "here", "uncached"} {
			t.Run(tc.name+"/"+mode, func(t *testing.T) {
				a, b, at := cacheInstances(t, mode)
				cached := mode != "uncached"
				f := &fixture{a: a, b: b}
				f.alice = a.register(t, "alice", 1)
				f.bob = a.register(t, "bob", 2)
				f.atAlice = elsewhere(t, f.alice.device(0), at.URL)
				for range 2 {
					if _, err := f.atAlice.Send(ctx, a.newID(), "bob", []byte("x")); err != nil {
						t.Fatal(err)
					}
					if _, err := f.atAlice.Lookup(ctx, "bob"); err != nil {
						t.Fatal(err)
					}
				}
				if hits := at.Relay.AccountCacheHits(); cached != (hits >= 3) {
					t.Fatalf("the instance answered %d of 4 lookups of bob from memory (cache on: %v)", hits, cached)
				}
				_, forgotten := at.Relay.SessionCacheStats()
				tc.change(t, f)
				if mode == "elsewhere" {
					waitFor(t, "instance B to have the notice", func() bool {
						_, n := at.Relay.SessionCacheStats()
						return n > forgotten
					})
				}
				tc.check(t, f)
			})
		}
	}
}

// TestKeyDirectoryFresh: GET /api/accounts/:username?fresh=1 reads the
// table whatever the instance holds in memory, and the plain lookups
// after it answer what it read. Bob's key is changed in SQL, which sends
// no notice; the control is the plain lookup before the fresh one, which
// answers the key held in memory. A query that is not fresh=0 or fresh=1
// once is bad_query.
func TestKeyDirectoryFresh(t *testing.T) {
	ctx := context.Background()
	s := newTestServer(t)
	waitFor(t, "the cache to be on", s.Relay.SessionCacheOn)
	alice := s.register(t, "alice", 0)
	bob := s.register(t, "bob", 0)
	old, err := alice.Client.Lookup(ctx, "bob")
	if err != nil {
		t.Fatal(err)
	}
	key := newKey(t)
	if _, err := s.Pool.Exec(ctx, `UPDATE accounts SET public_key = $2 WHERE username = $1`, bob.Name, key); err != nil {
		t.Fatal(err)
	}
	keyOf := func(query string) string {
		t.Helper()
		a := raw(t, alice.Client, "GET", "/api/accounts/bob"+query, nil, nil)
		if a.Status != http.StatusOK {
			t.Fatalf("GET /api/accounts/bob%s: %d %s", query, a.Status, a.Raw)
		}
		k, _ := a.Body["publicKey"].(string)
		return k
	}
	if got := keyOf("?fresh=0"); got != b64(old.PublicKey) {
		t.Fatal("control: the lookup before the fresh one did not answer the key held in memory")
	}
	if got := keyOf("?fresh=1"); got != b64(key) {
		t.Fatal("fresh=1 answered the key held in memory")
	}
	if got := keyOf(""); got != b64(key) {
		t.Fatal("the lookup after the fresh one answered the key held before it")
	}
	for _, q := range []string{"?fresh=2", "?fresh=true", "?fresh=1&fresh=1", "?fresh=%zz", "?fresh="} {
		if a := raw(t, alice.Client, "GET", "/api/accounts/bob"+q, nil, nil); a.Status != http.StatusBadRequest || a.code() != "bad_query" {
			t.Fatalf("GET /api/accounts/bob%s: %d %s, want 400 bad_query", q, a.Status, a.Raw)
		}
	}
}
