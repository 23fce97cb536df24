package relay_test

import (
	"context"
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/oklog/ulid/v2"

	"relay/relayclient"
)

func TestDevices(t *testing.T) {
	s := newTestServer(t)
	ctx := context.Background()
	alice := s.register(t, "alice", 2)
	bob := s.register(t, "bob", 1)

	for _, id := range alice.Devices {
		if _, err := ulid.ParseStrict(id); err != nil {
			t.Fatalf("device id %q is not a ULID", id)
		}
	}
	list, err := alice.Client.Devices(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(list) != 2 || list[0].ID != alice.Devices[0] || list[1].ID != alice.Devices[1] || list[0].Name != "alice-0" ||
		len(list[0].PublicKey) != 65 || list[0].CreatedAt == 0 || list[0].LastSeenAt != nil {
		t.Fatalf("alice's devices: %+v", list)
	}

	origin := map[string]string{"Origin": s.URL}
	for _, tc := range []struct {
		name   string
		header map[string]string
		body   any
		status int
		code   string
	}{
		{"empty name", origin, map[string]string{"name": "", "publicKey": b64(newKey(t))}, 400, "bad_device_name"},
		{"long name", origin, map[string]string{"name": strings.Repeat("x", 65), "publicKey": b64(newKey(t))}, 400, "bad_device_name"},
		{"control character", origin, map[string]string{"name": "a\x00b", "publicKey": b64(newKey(t))}, 400, "bad_device_name"},
		{"bad key", origin, map[string]string{"name": "phone", "publicKey": "AAAA"}, 400, "bad_public_key"},
		{"no origin", nil, map[string]string{"name": "phone", "publicKey": b64(newKey(t))}, 403, "origin_required"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a := raw(t, alice.Client, "POST", "/api/devices", tc.header, tc.body)
			if a.Status != tc.status || a.code() != tc.code {
				t.Fatalf("got %d %s, want %d %s", a.Status, a.Raw, tc.status, tc.code)
			}
		})
	}
	if _, err := relayclient.New(s.URL).AddDevice(ctx, "x", newKey(t)); relayclient.Code(err) != "unauthenticated" {
		t.Fatalf("add device without session: %v", err)
	}
	if n := s.count(t, "SELECT count(*) FROM devices"); n != 3 {
		t.Fatalf("%d devices after refused requests, want 3", n)
	}

	// Revoking another account's device is 404, and changes nothing.
	wantCode(t, alice.Client.Revoke(ctx, bob.Devices[0]), "unknown_device")
	wantCode(t, alice.Client.Revoke(ctx, "not-an-id"), "unknown_device")
	if _, err := bob.device(0).Send(ctx, s.newID(), "alice", []byte("x")); err != nil {
		t.Fatalf("bob's device broke: %v", err)
	}
	if a := raw(t, alice.Client, "DELETE", "/api/devices/"+alice.Devices[1], nil, nil); a.code() != "origin_required" {
		t.Fatalf("revoke without Origin: %d %s", a.Status, a.Raw)
	}

	// Revoke: gone from the list, its queue dropped, its id refused.
	if n := s.count(t, "SELECT count(*) FROM queue WHERE device_id = $1", alice.Devices[1]); n != 1 {
		t.Fatalf("alice's second device has %d queued, want 1", n)
	}
	if err := alice.Client.Revoke(ctx, alice.Devices[1]); err != nil {
		t.Fatal(err)
	}
	list, _ = alice.Client.Devices(ctx)
	if len(list) != 1 || list[0].ID != alice.Devices[0] {
		t.Fatalf("after revoke: %+v", list)
	}
	if n := s.count(t, "SELECT count(*) FROM queue WHERE device_id = $1", alice.Devices[1]); n != 0 {
		t.Fatalf("revoked device still has %d queued", n)
	}
	_, err = alice.device(1).Send(ctx, s.newID(), "bob", []byte("x"))
	wantCode(t, err, "device_forbidden")
	wantCode(t, alice.device(1).Ack(ctx, 0), "device_forbidden")
	wantCode(t, alice.Client.Revoke(ctx, alice.Devices[1]), "unknown_device")
	// Nothing is fanned out to it any more.
	s.send(t, bob.device(0), "alice", "after revocation")
	if n := s.count(t, "SELECT count(*) FROM queue WHERE device_id = $1", alice.Devices[1]); n != 0 {
		t.Fatalf("revoked device got %d envelopes", n)
	}
}

func TestDeviceHeader(t *testing.T) {
	s := newTestServer(t)
	ctx := context.Background()
	alice := s.register(t, "alice", 1)
	bob := s.register(t, "bob", 1)
	// Speaking as bob's device with alice's session.
	foreign := *alice.Client
	foreign.Device = bob.Devices[0]
	_, err := foreign.Send(ctx, s.newID(), "bob", []byte("x"))
	wantCode(t, err, "device_forbidden")
	wantCode(t, foreign.Ack(ctx, 0), "device_forbidden")
	unknown := *alice.Client
	unknown.Device = ulid.Make().String()
	_, err = unknown.Send(ctx, s.newID(), "bob", []byte("x"))
	wantCode(t, err, "device_forbidden")
	garbage := *alice.Client
	garbage.Device = "'; DROP TABLE devices; --"
	_, err = garbage.Send(ctx, s.newID(), "bob", []byte("x"))
	wantCode(t, err, "device_forbidden")
	_, err = alice.Client.Send(ctx, s.newID(), "bob", []byte("x"))
	wantCode(t, err, "device_required")
	wantCode(t, alice.Client.Ack(ctx, 0), "device_required")
	if a := raw(t, alice.Client, "GET", "/api/events", nil, nil); a.Status != http.StatusBadRequest || a.code() != "device_required" {
		t.Fatalf("stream without device: %d %s", a.Status, a.Raw)
	}
	if a := raw(t, alice.Client, "GET", "/api/events?device="+bob.Devices[0], nil, nil); a.Status != http.StatusForbidden || a.code() != "device_forbidden" {
		t.Fatalf("stream of a foreign device: %d %s", a.Status, a.Raw)
	}
	if s.count(t, "SELECT count(*) FROM queue") != 0 {
		t.Fatal("a refused request queued something")
	}
}

// TestDeviceCap: an account has at most its limit of live devices; the
// next gets 409 too_many_devices, also when many are added at once, and
// revoking one makes room.
func TestDeviceCap(t *testing.T) {
	s := newTestServer(t, withMaxDevices(3))
	alice := s.register(t, "alice", 0)
	ctx := context.Background()
	var wg sync.WaitGroup
	errs := make([]error, 10)
	for i := range errs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, errs[i] = alice.Client.AddDevice(ctx, "d", newKey(t))
		}()
	}
	wg.Wait()
	added := 0
	for _, err := range errs {
		switch relayclient.Code(err) {
		case "":
			added++
		case "too_many_devices":
		default:
			t.Fatalf("add device: %v", err)
		}
	}
	if added != 3 {
		t.Fatalf("%d devices added concurrently, want exactly 3", added)
	}
	list, err := alice.Client.Devices(ctx)
	if err != nil || len(list) != 3 {
		t.Fatalf("devices: %d, %v", len(list), err)
	}
	if err := alice.Client.Revoke(ctx, list[0].ID); err != nil {
		t.Fatal(err)
	}
	if _, err := alice.Client.AddDevice(ctx, "d", newKey(t)); err != nil {
		t.Fatalf("after revoking one: %v", err)
	}
}
