package relay_test

import (
	"bytes"
	"context"
	"crypto/rand"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/oklog/ulid/v2"

	"relay/relayclient"
)

func randomBytes(t *testing.T, n int) []byte {
	t.Helper()
	b := make([]byte, n)
	if _, err := rand.Read(b); err != nil {
		t.Fatal(err)
	}
	return b
}

// recoveryState is what the recovery endpoints and the key replacement
// could change, for "changes nothing" checks: the account key, the blob
// and every device's revoked and linked flags.
func (s *testServer) recoveryState(t *testing.T, username string) string {
	t.Helper()
	var out string
	err := s.Pool.QueryRow(context.Background(), `SELECT encode(a.public_key, 'hex') || ' ' || coalesce(encode(a.recovery_blob, 'hex'), '-') || ' ' ||
			coalesce(a.recovery_updated_at::text, '-') || ' ' ||
			coalesce((SELECT string_agg(d.id || ':' || (d.revoked_at IS NULL) || ':' || d.linked || ':' || d.name, ',' ORDER BY d.id)
				FROM devices d WHERE d.account_id = a.id), '')
		FROM accounts a WHERE a.username = $1`, username).Scan(&out)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func TestRecoveryBlob(t *testing.T) {
	s := newTestServer(t)
	ctx := context.Background()
	alice := s.register(t, "alice", 1)
	bob := s.register(t, "bob", 1)

	_, err := alice.Client.GetRecovery(ctx)
	wantCode(t, err, "no_recovery")
	wantCode(t, alice.Client.DeleteRecovery(ctx), "") // none to delete is fine

	first := randomBytes(t, 126)
	if err := alice.Client.PutRecovery(ctx, first); err != nil {
		t.Fatal(err)
	}
	got, err := alice.Client.GetRecovery(ctx)
	if err != nil || !bytes.Equal(got.Blob, first) || !got.UpdatedAt.Equal(s.Clock.Now().Truncate(time.Second)) {
		t.Fatalf("got %x at %v (%v), want %x at %v", got.Blob, got.UpdatedAt, err, first, s.Clock.Now())
	}
	// The blob is per account: bob has none.
	_, err = bob.Client.GetRecovery(ctx)
	wantCode(t, err, "no_recovery")

	// Replaced, at both bounds of its size.
	for _, n := range []int{1, 1024} {
		s.Clock.Advance(time.Minute)
		blob := randomBytes(t, n)
		if err := alice.Client.PutRecovery(ctx, blob); err != nil {
			t.Fatalf("%d bytes: %v", n, err)
		}
		if got, err := alice.Client.GetRecovery(ctx); err != nil || !bytes.Equal(got.Blob, blob) || !got.UpdatedAt.Equal(s.Clock.Now().Truncate(time.Second)) {
			t.Fatalf("%d bytes: got %d bytes at %v, %v", n, len(got.Blob), got.UpdatedAt, err)
		}
	}
	if err := alice.Client.DeleteRecovery(ctx); err != nil {
		t.Fatal(err)
	}
	_, err = alice.Client.GetRecovery(ctx)
	wantCode(t, err, "no_recovery")
	if err := alice.Client.PutRecovery(ctx, first); err != nil {
		t.Fatal(err)
	}

	// PUT's checks, in the documented order: each case fails every later
	// check too.
	origin := map[string]string{"Origin": s.URL}
	anon := relayclient.New(s.URL)
	before := s.recoveryState(t, "alice")
	for _, tc := range []struct {
		name   string
		client *relayclient.Client
		method string
		header map[string]string
		body   any
		code   string
	}{
		{"origin first", anon, "PUT", nil, `{`, "origin_required"},
		{"foreign origin", alice.Client, "PUT", map[string]string{"Origin": "https://evil.example"}, `{`, "origin_forbidden"},
		{"session before size", anon, "PUT", origin, `{"blob":"` + strings.Repeat("A", 20<<10) + `"}`, "unauthenticated"},
		{"size before JSON", alice.Client, "PUT", origin, `{"blob":"` + strings.Repeat("A", 20<<10), "too_large"},
		{"JSON before blob", alice.Client, "PUT", origin, `{"blob":"", "blob":""}`, "bad_json"},
		{"wrong type", alice.Client, "PUT", origin, `{"blob": 5}`, "bad_json"},
		{"missing", alice.Client, "PUT", origin, `{}`, "bad_recovery_blob"},
		{"null", alice.Client, "PUT", origin, `{"blob": null}`, "bad_recovery_blob"},
		{"empty", alice.Client, "PUT", origin, `{"blob": ""}`, "bad_recovery_blob"},
		{"too long", alice.Client, "PUT", origin, map[string]string{"blob": b64(make([]byte, 1025))}, "bad_recovery_blob"},
		{"not base64", alice.Client, "PUT", origin, `{"blob": "!!!!"}`, "bad_recovery_blob"},
		{"unpadded", alice.Client, "PUT", origin, `{"blob": "AAA"}`, "bad_recovery_blob"},
		{"URL-safe", alice.Client, "PUT", origin, `{"blob": "-_-_"}`, "bad_recovery_blob"},
		{"line break", alice.Client, "PUT", origin, `{"blob": "AAAA\nAAAA"}`, "bad_recovery_blob"},
		{"delete: origin first", anon, "DELETE", nil, nil, "origin_required"},
		{"delete: session", anon, "DELETE", origin, nil, "unauthenticated"},
		{"get: session", anon, "GET", nil, nil, "unauthenticated"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a := raw(t, tc.client, tc.method, "/api/recovery", tc.header, tc.body)
			if a.code() != tc.code {
				t.Fatalf("got %d %s, want %s", a.Status, a.Raw, tc.code)
			}
		})
	}
	if after := s.recoveryState(t, "alice"); after != before {
		t.Fatalf("refused requests changed the account:\n%s\n%s", before, after)
	}
	// The control: the same client and headers get through.
	if a := raw(t, alice.Client, "PUT", "/api/recovery", origin, map[string]string{"blob": b64(first)}); a.Status != http.StatusNoContent {
		t.Fatalf("well-formed PUT: %d %s", a.Status, a.Raw)
	}
}

// TestRecoveryThrottle: ten fetches an hour per account, burst ten; the
// eleventh is 429 too_many_attempts with Retry-After, and the bucket is
// the account's alone. Fetches that find no blob count too.
func TestRecoveryThrottle(t *testing.T) {
	s := newTestServer(t)
	ctx := context.Background()
	alice := s.register(t, "alice", 1)
	bob := s.register(t, "bob", 1)
	if err := alice.Client.PutRecovery(ctx, []byte("blob")); err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 10; i++ {
		if _, err := alice.Client.GetRecovery(ctx); err != nil {
			t.Fatalf("fetch %d: %v", i+1, err)
		}
	}
	_, err := alice.Client.GetRecovery(ctx)
	var e *relayclient.Error
	if !errorsAs(err, &e) || e.Code != "too_many_attempts" || e.Status != http.StatusTooManyRequests || e.RetryAfter != 6*time.Minute {
		t.Fatalf("11th fetch within the hour: %v", err)
	}
	// Another session of the same account shares the bucket.
	other := relayclient.New(s.URL)
	if _, err := other.Login(ctx, "alice", password); err != nil {
		t.Fatal(err)
	}
	_, err = other.GetRecovery(ctx)
	wantCode(t, err, "too_many_attempts")
	// Bob's bucket is his own: the control that the refusal is alice's.
	for i := 0; i < 10; i++ {
		_, err := bob.Client.GetRecovery(ctx)
		wantCode(t, err, "no_recovery")
	}
	_, err = bob.Client.GetRecovery(ctx)
	wantCode(t, err, "too_many_attempts")
	// One token comes back every six minutes.
	s.Clock.Advance(6 * time.Minute)
	if _, err := alice.Client.GetRecovery(ctx); err != nil {
		t.Fatalf("after six minutes: %v", err)
	}
	_, err = alice.Client.GetRecovery(ctx)
	wantCode(t, err, "too_many_attempts")
	// Storing and deleting are not fetches.
	if err := alice.Client.PutRecovery(ctx, []byte("new")); err != nil {
		t.Fatal(err)
	}
	if err := alice.Client.DeleteRecovery(ctx); err != nil {
		t.Fatal(err)
	}
}

// TestDeviceLinked: the first device of an account is linked; a second is
// not until it says so itself; another device cannot say it for it; a
// device added after every linked one was revoked is linked.
func TestDeviceLinked(t *testing.T) {
	s := newTestServer(t)
	ctx := context.Background()
	alice := s.register(t, "alice", 2)
	linked := func() string {
		t.Helper()
		list, err := alice.Client.Devices(ctx)
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, d := range list {
			out = append(out, fmt.Sprintf("%s=%t", d.Name, d.Linked))
		}
		return strings.Join(out, " ")
	}
	if got := linked(); got != "alice-0=true alice-1=false" {
		t.Fatalf("after registration: %s", got)
	}
	origin := map[string]string{"Origin": s.URL}
	path := "/api/devices/" + alice.Devices[1]
	// Another device of the account cannot mark it, nor can the session
	// alone.
	a := raw(t, alice.Client, "PATCH", path, map[string]string{"Origin": s.URL, "X-Device": alice.Devices[0]}, `{"linked": true}`)
	if a.Status != http.StatusForbidden || a.code() != "device_forbidden" {
		t.Fatalf("marked by another device: %d %s", a.Status, a.Raw)
	}
	if a := raw(t, alice.Client, "PATCH", path, origin, `{"linked": true}`); a.code() != "device_required" {
		t.Fatalf("marked without X-Device: %d %s", a.Status, a.Raw)
	}
	if got := linked(); got != "alice-0=true alice-1=false" {
		t.Fatalf("after refused marks: %s", got)
	}
	if err := alice.device(1).MarkLinked(ctx); err != nil {
		t.Fatal(err)
	}
	if got := linked(); got != "alice-0=true alice-1=true" {
		t.Fatalf("after marking itself: %s", got)
	}
	// A third device waits for linking while linked ones live.
	third, err := alice.Client.AddDevice(ctx, "alice-2", newKey(t))
	if err != nil {
		t.Fatal(err)
	}
	if got := linked(); got != "alice-0=true alice-1=true alice-2=false" {
		t.Fatalf("with linked devices alive: %s", got)
	}
	// After every device is revoked, a new one is still not linked: only
	// an account's very first device made the key; this one must restore
	// (or replace the key) first.
	for _, id := range alice.Devices {
		if err := alice.Client.Revoke(ctx, id); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := alice.Client.AddDevice(ctx, "alice-3", newKey(t)); err != nil {
		t.Fatal(err)
	}
	if got := linked(); got != "alice-2=false alice-3=false" {
		t.Fatalf("after revoking every linked device: %s (third %s)", got, third)
	}
}

// TestDeviceUpdate: renaming and PATCH's checks in the documented order.
func TestDeviceUpdate(t *testing.T) {
	s := newTestServer(t)
	ctx := context.Background()
	alice := s.register(t, "alice", 3)
	bob := s.register(t, "bob", 1)
	// Any device of the account may be renamed by the session, with or
	// without X-Device.
	if err := alice.Client.RenameDevice(ctx, alice.Devices[1], "Work laptop ✓"); err != nil {
		t.Fatal(err)
	}
	if err := alice.device(0).RenameDevice(ctx, alice.Devices[2], "Phone"); err != nil {
		t.Fatal(err)
	}
	list, _ := alice.Client.Devices(ctx)
	if list[0].Name != "alice-0" || list[1].Name != "Work laptop ✓" || list[2].Name != "Phone" || list[1].Linked {
		t.Fatalf("after renaming: %+v", list)
	}
	// Name and linked at once, from the device itself.
	if a := raw(t, alice.Client, "PATCH", "/api/devices/"+alice.Devices[2], map[string]string{"Origin": s.URL, "X-Device": alice.Devices[2]},
		`{"name": "My phone", "linked": true}`); a.Status != http.StatusNoContent {
		t.Fatalf("name and linked: %d %s", a.Status, a.Raw)
	}
	list, _ = alice.Client.Devices(ctx)
	if list[2].Name != "My phone" || !list[2].Linked {
		t.Fatalf("after name and linked: %+v", list[2])
	}
	if err := alice.Client.Revoke(ctx, alice.Devices[2]); err != nil {
		t.Fatal(err)
	}

	origin := map[string]string{"Origin": s.URL}
	asOther := map[string]string{"Origin": s.URL, "X-Device": alice.Devices[0]}
	anon := relayclient.New(s.URL)
	mine, revoked, foreign, unknown := alice.Devices[1], alice.Devices[2], bob.Devices[0], ulid.Make().String()
	before := s.recoveryState(t, "alice")
	// Each case fails every later check too, where it can.
	for _, tc := range []struct {
		name   string
		client *relayclient.Client
		id     string
		header map[string]string
		body   string
		code   string
	}{
		{"origin first", anon, unknown, nil, `{`, "origin_required"},
		{"session", anon, unknown, origin, `{"name": ""}`, "unauthenticated"},
		{"size", alice.Client, unknown, origin, `{"name": "` + strings.Repeat("x", 20<<10) + `"}`, "too_large"},
		{"JSON", alice.Client, unknown, origin, `{"name": "a", "name": ""}`, "bad_json"},
		{"wrong type", alice.Client, unknown, origin, `{"name": 5, "x": 1}`, "bad_json"},
		{"not an object", alice.Client, unknown, origin, `[]`, "bad_json"},
		{"update before name", alice.Client, unknown, origin, `{"name": "", "color": "red"}`, "bad_device_update"},
		{"empty object", alice.Client, mine, origin, `{}`, "bad_device_update"},
		{"null", alice.Client, mine, origin, `null`, "bad_device_update"},
		{"linked false", alice.Client, mine, origin, `{"linked": false}`, "bad_device_update"},
		{"linked null", alice.Client, mine, origin, `{"linked": null}`, "bad_device_update"},
		{"name null", alice.Client, mine, origin, `{"name": null}`, "bad_device_update"},
		{"name before device", alice.Client, unknown, origin, `{"name": ""}`, "bad_device_name"},
		{"long name", alice.Client, mine, origin, `{"name": "` + strings.Repeat("x", 65) + `"}`, "bad_device_name"},
		{"control character", alice.Client, mine, origin, `{"name": "a\u0007b"}`, "bad_device_name"},
		{"unknown", alice.Client, unknown, origin, `{"name": "x"}`, "unknown_device"},
		{"foreign", alice.Client, foreign, origin, `{"name": "x"}`, "unknown_device"},
		{"revoked", alice.Client, revoked, origin, `{"name": "x"}`, "unknown_device"},
		{"malformed id", alice.Client, "x'y", origin, `{"name": "x"}`, "unknown_device"},
		{"NUL in the id", alice.Client, "%00", origin, `{"name": "x"}`, "unknown_device"},
		{"invalid UTF-8 in the id", alice.Client, "%ff", origin, `{"name": "x"}`, "unknown_device"},
		{"NUL, linked", alice.Client, "%00", asOther, `{"linked": true}`, "unknown_device"},
		{"device before X-Device", alice.Client, foreign, origin, `{"linked": true}`, "unknown_device"},
		{"device before another speaker", alice.Client, revoked, asOther, `{"linked": true}`, "unknown_device"},
		{"X-Device required", alice.Client, mine, origin, `{"linked": true}`, "device_required"},
		{"another speaker", alice.Client, mine, asOther, `{"linked": true}`, "device_forbidden"},
		{"another account's speaker", alice.Client, mine, map[string]string{"Origin": s.URL, "X-Device": foreign}, `{"linked": true, "name": "x"}`, "device_forbidden"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a := raw(t, tc.client, "PATCH", "/api/devices/"+tc.id, tc.header, tc.body)
			if a.code() != tc.code {
				t.Fatalf("got %d %s, want %s", a.Status, a.Raw, tc.code)
			}
		})
	}
	if after := s.recoveryState(t, "alice"); after != before {
		t.Fatalf("refused updates changed the account:\n%s\n%s", before, after)
	}
	if list, _ := bob.Client.Devices(ctx); list[0].Name != "bob-0" {
		t.Fatalf("bob's device was renamed: %+v", list[0])
	}
}

// TestReplaceKey: the key, the blob, the revocations, their queues and
// streams and the speaker's linked flag all change at once.
func TestReplaceKey(t *testing.T) {
	s := newTestServer(t)
	ctx := context.Background()
	alice := s.register(t, "alice", 3)
	bob := s.register(t, "bob", 1)
	if err := alice.Client.PutRecovery(ctx, []byte("old blob")); err != nil {
		t.Fatal(err)
	}
	s.send(t, bob.device(0), "alice", "queued")
	lost := follow(t, alice.device(2), "")
	lost.expectEnvelopes(t, 1, 1)
	lost.expectReady(t, 1)
	kept := follow(t, alice.device(0), "")
	kept.expectEnvelopes(t, 1, 1)
	kept.expectReady(t, 1)

	newKey1, blob := newKey(t), randomBytes(t, 126)
	got, err := alice.device(1).ReplaceKey(ctx, password, newKey1, []string{alice.Devices[2], alice.Devices[2]}, blob)
	if err != nil || !bytes.Equal(got, newKey1) {
		t.Fatalf("replace key: %x, %v", got, err)
	}
	if acc, err := bob.Client.Lookup(ctx, "alice"); err != nil || !bytes.Equal(acc.PublicKey, newKey1) {
		t.Fatalf("the directory serves %x (%v), want the new key", acc.PublicKey, err)
	}
	if rec, err := alice.Client.GetRecovery(ctx); err != nil || !bytes.Equal(rec.Blob, blob) {
		t.Fatalf("recovery blob %q, %v", rec.Blob, err)
	}
	if e := lost.next(t); e.Name != "revoked" {
		t.Fatalf("the revoked device's stream got %+v, want revoked", e)
	}
	lost.expectEnd(t)
	if n := s.count(t, "SELECT count(*) FROM queue WHERE device_id = $1", alice.Devices[2]); n != 0 {
		t.Fatalf("the revoked device still has %d queued", n)
	}
	if n := s.count(t, "SELECT count(*) FROM queue WHERE device_id = $1", alice.Devices[0]); n != 1 {
		t.Fatalf("a kept device has %d queued, want its 1", n)
	}
	list, _ := alice.Client.Devices(ctx)
	if len(list) != 2 || list[0].ID != alice.Devices[0] || !list[0].Linked || list[1].ID != alice.Devices[1] || !list[1].Linked {
		t.Fatalf("devices after the replacement: %+v", list)
	}
	_, err = alice.device(2).Send(ctx, s.newID(), "bob", []byte("x"))
	wantCode(t, err, "device_forbidden")
	// The kept device's stream goes on.
	s.send(t, bob.device(0), "alice", "after")
	kept.expectEnvelopes(t, 2, 1)

	// Without "recovery" the old blob goes: it wrapped the old key.
	newKey2 := newKey(t)
	if _, err := alice.device(0).ReplaceKey(ctx, password, newKey2, nil, nil); err != nil {
		t.Fatal(err)
	}
	_, err = alice.Client.GetRecovery(ctx)
	wantCode(t, err, "no_recovery")
	if acc, _ := alice.Client.Lookup(ctx, "alice"); !bytes.Equal(acc.PublicKey, newKey2) {
		t.Fatal("the second replacement did not take")
	}
}

// TestReplaceKeyCheckOrder: PUT /api/account/key's checks in the
// documented order, each case failing every later check too; and none
// changes anything: an unknown id in revoke leaves the key, the blob and
// every device as they were, the listed live ones included.
func TestReplaceKeyCheckOrder(t *testing.T) {
	s := newTestServer(t)
	ctx := context.Background()
	alice := s.register(t, "alice", 3)
	bob := s.register(t, "bob", 1)
	if err := alice.Client.Revoke(ctx, alice.Devices[2]); err != nil {
		t.Fatal(err)
	}
	if err := alice.Client.PutRecovery(ctx, []byte("old blob")); err != nil {
		t.Fatal(err)
	}
	s.send(t, bob.device(0), "alice", "queued")
	speaker, other, revoked, foreign, unknown := alice.Devices[1], alice.Devices[0], alice.Devices[2], bob.Devices[0], ulid.Make().String()
	key := b64(newKey(t))
	body := func(publicKey string, revoke []string, recovery any) map[string]any {
		m := map[string]any{"publicKey": publicKey, "revoke": revoke, "password": password}
		if recovery != nil {
			m["recovery"] = recovery
		}
		return m
	}
	many := make([]string, 21)
	for i := range many {
		many[i] = ulid.Make().String()
	}
	dup20 := append(append([]string{}, many[:20]...), many[:20]...)
	as := func(dev string) map[string]string { return map[string]string{"Origin": s.URL, "X-Device": dev} }
	anon := relayclient.New(s.URL)
	// Fails every check.
	worst := body("AAAA", []string{speaker, unknown}, "")
	before := s.recoveryState(t, "alice")
	queued := s.count(t, "SELECT count(*) FROM queue WHERE device_id = $1", other)
	for _, tc := range []struct {
		name   string
		client *relayclient.Client
		header map[string]string
		body   any
		code   string
	}{
		{"origin first", anon, map[string]string{"X-Device": speaker}, worst, "origin_required"},
		{"session", anon, as(speaker), worst, "unauthenticated"},
		{"X-Device", alice.Client, map[string]string{"Origin": s.URL}, worst, "device_required"},
		{"foreign X-Device", alice.Client, as(foreign), worst, "device_forbidden"},
		{"revoked X-Device", alice.Client, as(revoked), worst, "device_forbidden"},
		{"size", alice.Client, as(speaker), `{"publicKey":"` + strings.Repeat("A", 20<<10) + `"}`, "too_large"},
		{"JSON", alice.Client, as(speaker), `{"publicKey": "AAAA", "publicKey": "AAAA", "revoke": ["` + speaker + `"]}`, "bad_json"},
		{"revoke of the wrong type", alice.Client, as(speaker), `{"publicKey": "AAAA", "revoke": "` + other + `"}`, "bad_json"},
		{"key before list", alice.Client, as(speaker), worst, "bad_public_key"},
		{"no key", alice.Client, as(speaker), body("", nil, ""), "bad_public_key"},
		{"speaker listed", alice.Client, as(speaker), body(key, []string{other, speaker, unknown}, ""), "bad_revoke_list"},
		{"21 ids", alice.Client, as(speaker), body(key, many, ""), "bad_revoke_list"},
		{"blob before devices", alice.Client, as(speaker), body(key, []string{unknown}, ""), "bad_recovery_blob"},
		{"blob too long", alice.Client, as(speaker), body(key, []string{unknown}, b64(make([]byte, 1025))), "bad_recovery_blob"},
		{"blob not base64", alice.Client, as(speaker), body(key, []string{unknown}, "A"), "bad_recovery_blob"},
		{"password before devices", alice.Client, as(speaker), map[string]any{"publicKey": key, "revoke": []string{unknown}, "password": "wrong password"}, "bad_credentials"},
		{"no password", alice.Client, as(speaker), map[string]any{"publicKey": key, "revoke": []string{unknown}}, "bad_credentials"},
		{"20 distinct, given twice", alice.Client, as(speaker), body(key, dup20, nil), "unknown_device"},
		// The all-or-nothing control: other is live and listed first.
		{"unknown with a live one", alice.Client, as(speaker), body(key, []string{other, unknown}, b64([]byte("new"))), "unknown_device"},
		{"foreign with a live one", alice.Client, as(speaker), body(key, []string{other, foreign}, nil), "unknown_device"},
		{"revoked with a live one", alice.Client, as(speaker), body(key, []string{other, revoked}, nil), "unknown_device"},
		{"malformed with a live one", alice.Client, as(speaker), body(key, []string{other, "x'); DROP TABLE devices; --"}, nil), "unknown_device"},
		{"NUL with a live one", alice.Client, as(speaker), body(key, []string{other, "a\x00b"}, nil), "unknown_device"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a := raw(t, tc.client, "PUT", "/api/account/key", tc.header, tc.body)
			if a.code() != tc.code {
				t.Fatalf("got %d %s, want %s", a.Status, a.Raw, tc.code)
			}
		})
	}
	if after := s.recoveryState(t, "alice"); after != before {
		t.Fatalf("refused replacements changed the account:\n%s\n%s", before, after)
	}
	if n := s.count(t, "SELECT count(*) FROM queue WHERE device_id = $1", other); n != queued {
		t.Fatalf("refused replacements left %d queued for a listed device, want %d", n, queued)
	}
	// The control: the same request without the unknown id goes through.
	if a := raw(t, alice.Client, "PUT", "/api/account/key", as(speaker), body(key, []string{other}, b64([]byte("new")))); a.Status != http.StatusOK || a.Body["publicKey"] != key {
		t.Fatalf("well-formed replacement: %d %s", a.Status, a.Raw)
	}
	if after := s.recoveryState(t, "alice"); after == before {
		t.Fatal("the replacement changed nothing")
	}
}

// TestReplaceKeyConcurrent: two devices of one account replace its key at
// once, each revoking the other. They run one after the other: exactly one
// succeeds, the other is refused as a revoked speaker, and the account is
// left entirely as the winner made it (its key, its blob, the loser
// revoked, itself linked), never a mix.
func TestReplaceKeyConcurrent(t *testing.T) {
	s := newTestServer(t)
	ctx := context.Background()
	for round := 0; round < 5; round++ {
		name := fmt.Sprintf("alice%d", round)
		alice := s.register(t, name, 3)
		keys := [][]byte{newKey(t), newKey(t)}
		blobs := [][]byte{randomBytes(t, 126), randomBytes(t, 126)}
		errs := make([]error, 2)
		start := make(chan struct{})
		var wg sync.WaitGroup
		for i := range 2 {
			wg.Go(func() {
				<-start
				_, errs[i] = alice.device(i).ReplaceKey(ctx, password, keys[i], []string{alice.Devices[1-i], alice.Devices[2]}, blobs[i])
			})
		}
		close(start)
		wg.Wait()
		winner := -1
		for i, err := range errs {
			switch relayclient.Code(err) {
			case "":
				if winner >= 0 {
					t.Fatalf("round %d: both replacements succeeded", round)
				}
				winner = i
			case "device_forbidden":
			default:
				t.Fatalf("round %d: device %d: %v", round, i, err)
			}
		}
		if winner < 0 {
			t.Fatalf("round %d: neither replacement succeeded: %v", round, errs)
		}
		acc, _ := alice.Client.Lookup(ctx, name)
		rec, err := alice.Client.GetRecovery(ctx)
		list, _ := alice.Client.Devices(ctx)
		if err != nil || !bytes.Equal(acc.PublicKey, keys[winner]) || !bytes.Equal(rec.Blob, blobs[winner]) ||
			len(list) != 1 || list[0].ID != alice.Devices[winner] || !list[0].Linked {
			t.Fatalf("round %d: winner %d, state: key %x blob %x (%v) devices %+v", round, winner, acc.PublicKey, rec.Blob, err, list)
		}
	}
}
