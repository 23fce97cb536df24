package relay_test

import (
	"context"
	"errors"
	"net/http"
	"testing"

	"relay/relayclient"
)

// TestAckWithAStaleEpoch: an ACK that names the epoch its cursor belongs
// to deletes nothing once the relay's epoch is another (relay admin
// new-epoch, as after a restore): its seq numbers may name rows of the new
// history the client never saw. It is answered 409 epoch_changed with the
// epoch now; an ACK of the current epoch, and one without an epoch, delete
// as before.
func TestAckWithAStaleEpoch(t *testing.T) {
	s := newTestServer(t)
	alice := s.register(t, "alice", 1)
	bob := s.register(t, "bob", 1)
	for range 3 {
		s.send(t, alice.device(0), "bob", "x")
	}
	ctx := context.Background()
	queued := func() int {
		return s.count(t, `SELECT count(*) FROM queue WHERE device_id = $1`, bob.Devices[0])
	}
	old := s.epoch(t)
	s.newEpoch(t)
	now := s.epoch(t)
	if now == old {
		t.Fatalf("relay admin new-epoch kept epoch %s", old)
	}

	err := bob.device(0).AckEpoch(ctx, 2, old)
	var re *relayclient.Error
	if !errors.As(err, &re) || re.Status != http.StatusConflict || re.Code != "epoch_changed" || re.Epoch != now {
		t.Fatalf("ACK of the old epoch: %v, want 409 epoch_changed carrying epoch %s", err, now)
	}
	if n := queued(); n != 3 {
		t.Fatalf("an ACK of the old epoch left %d of 3 rows", n)
	}

	if err := bob.device(0).AckEpoch(ctx, 1, now); err != nil {
		t.Fatalf("ACK of the current epoch: %v", err)
	}
	if n := queued(); n != 2 {
		t.Fatalf("an ACK of the current epoch up to 1 left %d of 3 rows, want 2", n)
	}
	if err := bob.device(0).Ack(ctx, 2); err != nil {
		t.Fatalf("ACK without an epoch: %v", err)
	}
	if n := queued(); n != 1 {
		t.Fatalf("an ACK without an epoch up to 2 left %d of 3 rows, want 1", n)
	}
}
