package relay_test

import (
	"context"
	"slices"
	"testing"

	"relay/relayclient"
)

// TestAccountDevices: GET /api/accounts/:username/devices answers the ids
// of the account's live devices, in id order, and nothing else; a revoked
// device leaves the list (the control of the liveness filter), and a
// device of another account never appears in it (the control of the
// account filter), whoever asks.
func TestAccountDevices(t *testing.T) {
	s := newTestServer(t)
	ctx := context.Background()
	alice := s.register(t, "alice", 2)
	bob := s.register(t, "bob", 3)
	s.register(t, "carol", 1) // devices that must never show up in bob's list
	a := alice.device(0)
	sorted := func(ids ...string) []string { return slices.Sorted(slices.Values(ids)) }

	got, err := a.AccountDevices(ctx, "bob")
	if err != nil {
		t.Fatal(err)
	}
	if want := sorted(bob.Devices...); !slices.Equal(got, want) {
		t.Fatalf("bob's devices %v, want %v", got, want)
	}
	// One's own account, the asking device among them (unlike a claim).
	if got, err := a.AccountDevices(ctx, "alice"); err != nil || !slices.Equal(got, sorted(alice.Devices...)) {
		t.Fatalf("alice's own devices %v (%v), want %v", got, err, sorted(alice.Devices...))
	}
	// Nothing but the username and the ids.
	ans := raw(t, a, "GET", "/api/accounts/bob/devices", map[string]string{"X-Device": a.Device}, nil)
	if ans.Status != 200 || len(ans.Body) != 2 || ans.Body["username"] != "bob" {
		t.Fatalf("answer %d %s, want 200 with username and devices only", ans.Status, ans.Raw)
	}

	if err := bob.device(0).Revoke(ctx, bob.Devices[1]); err != nil {
		t.Fatal(err)
	}
	got, err = a.AccountDevices(ctx, "bob")
	if err != nil {
		t.Fatal(err)
	}
	if want := sorted(bob.Devices[0], bob.Devices[2]); !slices.Equal(got, want) {
		t.Fatalf("after a revocation bob's devices are %v, want %v", got, want)
	}

	// An account with no live device left: an empty list, not null.
	for _, id := range []string{bob.Devices[0], bob.Devices[2]} {
		if err := bob.Client.Revoke(ctx, id); err != nil {
			t.Fatal(err)
		}
	}
	ans = raw(t, a, "GET", "/api/accounts/bob/devices", map[string]string{"X-Device": a.Device}, nil)
	if ans.Status != 200 || string(ans.Raw) != `{"username":"bob","devices":[]}`+"\n" {
		t.Fatalf("bob without devices: %d %q", ans.Status, ans.Raw)
	}
}

// TestAccountDevicesChecks: the checks in the order docs/protocol.md
// gives, and a deleted account answered as the directory answers it.
func TestAccountDevicesChecks(t *testing.T) {
	s := newTestServer(t)
	ctx := context.Background()
	alice := s.register(t, "alice", 1)
	bob := s.register(t, "bob", 1)
	a := alice.device(0)
	dev := map[string]string{"X-Device": a.Device}
	for _, c := range []struct {
		name   string
		client *relayclient.Client
		header map[string]string
		path   string
		want   string
	}{
		{"no session", relayclient.New(s.URL), dev, "/api/accounts/bob/devices", "unauthenticated"},
		{"no device", a, nil, "/api/accounts/nobody/devices", "device_required"},
		{"another account's device", a, map[string]string{"X-Device": bob.Devices[0]}, "/api/accounts/bob/devices", "device_forbidden"},
		{"bad name", a, dev, "/api/accounts/B/devices", "bad_username"},
		{"unknown", a, dev, "/api/accounts/nobody/devices", "unknown_account"},
		{"post", a, map[string]string{"X-Device": a.Device, "Origin": s.URL}, "/api/accounts/bob/devices", "method_not_allowed"},
	} {
		method := "GET"
		if c.name == "post" {
			method = "POST"
		}
		if got := raw(t, c.client, method, c.path, c.header, nil); got.code() != c.want {
			t.Errorf("%s: %d %s, want %s", c.name, got.Status, got.code(), c.want)
		}
	}
	if err := bob.device(0).DeleteAccount(ctx, password); err != nil {
		t.Fatal(err)
	}
	_, err := a.AccountDevices(ctx, "bob")
	wantCode(t, err, "account_deleted")
	if _, err := a.Lookup(ctx, "bob"); relayclient.Code(err) != "account_deleted" {
		t.Fatalf("the directory answers %v for bob, the devices list account_deleted", err)
	}
}
