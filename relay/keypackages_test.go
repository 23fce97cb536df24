package relay_test

import (
	"context"
	"fmt"
	"sync"
	"testing"

	"relay/keypackages"
	"relay/relayclient"
)

// kps returns n distinct key packages named for who.
func kps(who string, n int) [][]byte {
	out := make([][]byte, n)
	for i := range out {
		out[i] = []byte(fmt.Sprintf("%s-kp-%d", who, i))
	}
	return out
}

// TestKeyPackages: a device publishes one-time packages and a last-resort
// one and sees what it holds; a claim of an account gives one package for
// each of its live devices, the oldest one-time first, then the
// last-resort one, which stays; a claim of one's own account leaves out
// the claiming device; a device with nothing published is listed with
// none; the cap per device holds and refuses the whole publication.
func TestKeyPackages(t *testing.T) {
	s := newTestServer(t)
	ctx := context.Background()
	alice := s.register(t, "alice", 2)
	bob := s.register(t, "bob", 3)
	b0, b1 := bob.device(0), bob.device(1)
	held, err := b0.PublishKeyPackages(ctx, kps("b0", 2), []byte("b0-last"))
	if err != nil || held != (relayclient.KeyPackagesHeld{OneTime: 2, LastResort: true, Max: keypackages.MaxOneTime}) {
		t.Fatalf("publish: %+v, %v", held, err)
	}
	if _, err := b1.PublishKeyPackages(ctx, nil, []byte("b1-last")); err != nil {
		t.Fatal(err)
	}
	want := func(got []relayclient.ClaimedKeyPackage, exp map[string]string, last map[string]bool) {
		t.Helper()
		if len(got) != len(exp) {
			t.Fatalf("claimed %+v, want %d devices", got, len(exp))
		}
		for _, c := range got {
			w, ok := exp[c.Device]
			switch {
			case !ok:
				t.Fatalf("claimed for device %s, which is not expected", c.Device)
			case w == "" && c.KeyPackage != nil, w != "" && string(c.KeyPackage) != w, c.LastResort != last[c.Device]:
				t.Fatalf("device %s: %q (last resort %v), want %q (%v)", c.Device, c.KeyPackage, c.LastResort, w, last[c.Device])
			}
		}
	}
	d0, d1, d2 := bob.Devices[0], bob.Devices[1], bob.Devices[2]
	a := alice.device(0)
	for i, exp := range []map[string]string{
		{d0: "b0-kp-0", d1: "b1-last", d2: ""},
		{d0: "b0-kp-1", d1: "b1-last", d2: ""},
		{d0: "b0-last", d1: "b1-last", d2: ""}, // the one-time ones are used up
		{d0: "b0-last", d1: "b1-last", d2: ""}, // and the last resort stays
	} {
		got, err := a.ClaimKeyPackages(ctx, "bob")
		if err != nil {
			t.Fatal(err)
		}
		want(got, exp, map[string]bool{d0: i >= 2, d1: true})
	}
	if h, err := b0.KeyPackages(ctx); err != nil || h.OneTime != 0 || !h.LastResort {
		t.Fatalf("after the claims, bob's device 0 holds %+v, %v", h, err)
	}
	// Own account: the claiming device is left out.
	if _, err := b1.PublishKeyPackages(ctx, kps("b1", 1), nil); err != nil {
		t.Fatal(err)
	}
	got, err := b0.ClaimKeyPackages(ctx, "bob")
	if err != nil {
		t.Fatal(err)
	}
	want(got, map[string]string{d1: "b1-kp-0", d2: ""}, nil)
	// The cap: a publication past it is refused whole.
	if _, err := b0.PublishKeyPackages(ctx, kps("x", keypackages.MaxOneTime), nil); err != nil {
		t.Fatalf("publishing up to the cap: %v", err)
	}
	_, err = b0.PublishKeyPackages(ctx, kps("y", 1), []byte("new-last"))
	wantCode(t, err, "too_many_key_packages")
	if h, _ := b0.KeyPackages(ctx); h.OneTime != keypackages.MaxOneTime {
		t.Fatalf("a refused publication changed the count to %d", h.OneTime)
	}
	if got, _ := a.ClaimKeyPackages(ctx, "bob"); got[0].Device != d0 || string(got[0].KeyPackage) != "x-kp-0" {
		t.Fatalf("claim after the cap: %+v", got)
	}
	// A revoked device is no longer claimed, and its packages are gone.
	if err := b1.Revoke(ctx, d2); err != nil {
		t.Fatal(err)
	}
	got, _ = a.ClaimKeyPackages(ctx, "bob")
	want(got, map[string]string{d0: "x-kp-1", d1: "b1-last"}, map[string]bool{d1: true})
}

// TestKeyPackageClaimsAreAtomic: many claimers at once, from several
// accounts and devices, against a real PostgreSQL, never get the same
// one-time package twice; every one-time package published is handed out
// exactly once; the claims that find none left get the last-resort one.
func TestKeyPackageClaimsAreAtomic(t *testing.T) {
	s := newTestServer(t)
	ctx := context.Background()
	bob := s.register(t, "bob", 2)
	const perDevice = 30
	for i := range bob.Devices {
		if _, err := bob.device(i).PublishKeyPackages(ctx, kps(fmt.Sprint("d", i), perDevice), []byte(fmt.Sprint("last-", i))); err != nil {
			t.Fatal(err)
		}
	}
	const claimers, each = 8, 5 // 40 claims for 30 packages per device
	var clients []*relayclient.Client
	for i := 0; i < claimers; i++ {
		clients = append(clients, s.register(t, fmt.Sprintf("claimer_%d", i), 1).device(0))
	}
	results := make([][]relayclient.ClaimedKeyPackage, claimers*each)
	errs := make([]error, claimers*each)
	start := make(chan struct{})
	var wg sync.WaitGroup
	for i, c := range clients {
		for j := 0; j < each; j++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				<-start
				results[i*each+j], errs[i*each+j] = c.ClaimKeyPackages(ctx, "bob")
			}()
		}
	}
	close(start)
	wg.Wait()
	seen := map[string]int{}
	lastResorts := 0
	for i, r := range results {
		if errs[i] != nil {
			t.Fatalf("claim %d: %v", i, errs[i])
		}
		if len(r) != len(bob.Devices) {
			t.Fatalf("claim %d: %d devices, want %d", i, len(r), len(bob.Devices))
		}
		for _, c := range r {
			if c.LastResort {
				lastResorts++
				continue
			}
			seen[string(c.KeyPackage)]++
		}
	}
	for kp, n := range seen {
		if n != 1 {
			t.Errorf("one-time package %s handed out %d times", kp, n)
		}
	}
	if len(seen) != perDevice*len(bob.Devices) {
		t.Errorf("%d one-time packages handed out, want all %d", len(seen), perDevice*len(bob.Devices))
	}
	if want := (claimers*each - perDevice) * len(bob.Devices); lastResorts != want {
		t.Errorf("%d last-resort answers, want %d", lastResorts, want)
	}
	if n := s.count(t, `SELECT count(*) FROM key_packages WHERE NOT last_resort`); n != 0 {
		t.Errorf("%d one-time packages left", n)
	}
}

// TestKeyPackageChecks: the endpoints' checks, in the order
// docs/protocol.md gives; the claim budget per account; and a claim of a
// deleted account answers as a send to it does.
func TestKeyPackageChecks(t *testing.T) {
	s := newTestServer(t)
	ctx := context.Background()
	alice := s.register(t, "alice", 1)
	bob := s.register(t, "bob", 1)
	a := alice.device(0)
	origin := map[string]string{"Origin": s.URL, "X-Device": a.Device, "Content-Type": "application/json"}
	noOrigin := map[string]string{"X-Device": a.Device}
	for _, c := range []struct {
		name, method, path string
		client             *relayclient.Client
		header             map[string]string
		body               any
		want               string
	}{
		{"no session", "POST", "/api/keypackages", relayclient.New(s.URL), origin, `{`, "unauthenticated"},
		{"no device", "POST", "/api/keypackages", a, map[string]string{"Origin": s.URL}, `{`, "device_required"},
		{"no origin", "POST", "/api/keypackages", a, noOrigin, `{`, "origin_required"},
		{"bad json", "POST", "/api/keypackages", a, origin, `{`, "bad_json"},
		{"nothing", "POST", "/api/keypackages", a, origin, `{}`, "bad_key_packages"},
		{"too large", "POST", "/api/keypackages", a, origin, `{"oneTime": ["` + string(make([]byte, 130<<10)) + `"]}`, "too_large"},
		{"count, no device", "GET", "/api/keypackages", a, nil, nil, "device_required"},
		{"claim, no origin", "POST", "/api/keypackages/claim", a, noOrigin, `{"username": "nobody"}`, "origin_required"},
		{"claim, bad name", "POST", "/api/keypackages/claim", a, origin, `{"username": "B"}`, "bad_username"},
		{"claim, unknown", "POST", "/api/keypackages/claim", a, origin, `{"username": "nobody"}`, "unknown_account"},
	} {
		if got := raw(t, c.client, c.method, c.path, c.header, c.body); got.code() != c.want {
			t.Errorf("%s: %d %s, want %s", c.name, got.Status, got.code(), c.want)
		}
	}
	if err := bob.device(0).DeleteAccount(ctx, password); err != nil {
		t.Fatal(err)
	}
	_, err := a.ClaimKeyPackages(ctx, "bob")
	wantCode(t, err, "account_deleted")
	// The budget: claimsPerMinute claims, then 429 with Retry-After, also
	// for claims of names that do not exist (one was spent above).
	ok := 0
	var last error
	for i := 0; i < 61; i++ {
		if _, last = a.ClaimKeyPackages(ctx, "alice"); last != nil {
			break
		}
		ok++
	}
	wantCode(t, last, "rate_limited")
	if ok != 58 {
		t.Fatalf("%d claims passed the budget after 2, want 58 (the budget is 60 a minute)", ok)
	}
	// Claims and sends have budgets of their own.
	s.send(t, a, "alice", "a note to self")
}
