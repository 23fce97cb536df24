package relay_test

import (
	"context"
	"strings"
	"testing"
	"time"
)

// TestPurgeByAgeTellsTheDevice: envelopes past the age limit are deleted,
// and the device's next stream begins with "purged" naming the last seq
// lost, then replays what is left. A device that already had them (its
// Last-Event-ID is past the mark) is not told: the control. Once the device
// ACKs past the mark, it is not told again.
func TestPurgeByAgeTellsTheDevice(t *testing.T) {
	s := newTestServer(t)
	alice := s.register(t, "alice", 1)
	bob := s.register(t, "bob", 1)
	for i := 0; i < 3; i++ {
		s.send(t, alice.device(0), "bob", "x")
	}
	old := s.Clock.Now().Add(-31 * 24 * time.Hour).UnixMilli()
	if _, err := s.Pool.Exec(context.Background(), `UPDATE queue SET ts = $1 WHERE seq <= 2`, old); err != nil {
		t.Fatal(err)
	}
	s.Relay.PurgeQueues(context.Background())
	if n := s.count(t, `SELECT count(*) FROM queue WHERE device_id = $1`, bob.Devices[0]); n != 1 {
		t.Fatalf("%d envelopes left, want 1", n)
	}

	had := follow(t, bob.device(0), "2")
	had.expectEnvelopes(t, 3, 1)
	had.expectReady(t, 3)
	had.cancel()

	f := follow(t, bob.device(0), "")
	if e := f.next(t); e.Name != "purged" || e.Seq != 2 || e.Reason != "age" {
		t.Fatalf("first event %+v, want purged up to 2 for age", e)
	}
	f.expectEnvelopes(t, 3, 1)
	f.expectReady(t, 3)
	f.cancel()
	if err := bob.device(0).Ack(context.Background(), 3); err != nil {
		t.Fatal(err)
	}
	again := follow(t, bob.device(0), "")
	again.expectReady(t, 3)
}

// TestPurgeBySize: a queue over its size limit loses its oldest envelopes
// until the rest fits, and the device is told with reason "size".
func TestPurgeBySize(t *testing.T) {
	s := newTestServer(t, withQueueMaxBytes(3000))
	alice := s.register(t, "alice", 1)
	bob := s.register(t, "bob", 1)
	for i := 0; i < 5; i++ {
		s.send(t, alice.device(0), "bob", strings.Repeat("y", 1000))
	}
	s.Relay.PurgeQueues(context.Background())
	f := follow(t, bob.device(0), "")
	if e := f.next(t); e.Name != "purged" || e.Seq != 2 || e.Reason != "size" {
		t.Fatalf("first event %+v, want purged up to 2 for size", e)
	}
	f.expectEnvelopes(t, 3, 3)
	f.expectReady(t, 5)
	// alice's device had no queue to trim (it sent; it has no other device).
	if n := s.count(t, `SELECT count(*) FROM devices WHERE purged_seq > 0`); n != 1 {
		t.Fatalf("%d devices marked as purged, want 1", n)
	}
}

// TestRevokedDevicesForgotten: a revoked device's row is deleted once it has
// been revoked for the keeping time, and its id stays refused.
func TestRevokedDevicesForgotten(t *testing.T) {
	s := newTestServer(t)
	alice := s.register(t, "alice", 2)
	if err := alice.device(0).Revoke(context.Background(), alice.Devices[1]); err != nil {
		t.Fatal(err)
	}
	s.Relay.PurgeQueues(context.Background())
	if n := s.count(t, `SELECT count(*) FROM devices WHERE id = $1`, alice.Devices[1]); n != 1 {
		t.Fatal("a device revoked just now was deleted")
	}
	s.Clock.Advance(31 * 24 * time.Hour)
	s.Relay.PurgeQueues(context.Background())
	if n := s.count(t, `SELECT count(*) FROM devices WHERE id = $1`, alice.Devices[1]); n != 0 {
		t.Fatal("a device revoked 31 days ago is still kept")
	}
	if _, err := alice.Client.Login(context.Background(), "alice", password); err != nil {
		t.Fatal(err) // the session of 31 days ago has expired
	}
	_, err := alice.device(1).Send(context.Background(), s.newID(), "alice", []byte("x"))
	wantCode(t, err, "device_forbidden")
}
