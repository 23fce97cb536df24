package devices

import (
	"context"
	"slices"
	"testing"
	"time"

	"relay/internal/testdb"
)

// TestStreamsEndedLocksInIDOrder: StreamsEnded must lock the device rows
// it clears in id order, the order every accept locks its target devices
// in (ADR 0002), or a stream ending beside an accept of the same devices
// can deadlock with it and the accept answers 500. A transaction standing
// in for the accept holds the lower id, StreamsEnded is asked to clear
// both, higher id first, then the stand-in takes the higher id: with the
// rows locked in the order they were listed, StreamsEnded holds it and
// PostgreSQL breaks the deadlock by failing one of the two.
func TestStreamsEndedLocksInIDOrder(t *testing.T) {
	pool, _ := testdb.Pool(t)
	s, err := NewStore(pool, Config{Argon2: Argon2Params{Memory: 64, Time: 1, Threads: 1}})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	sess, err := s.CreateAccount(ctx, "alice", "correct horse battery", []byte{4}, nil)
	if err != nil {
		t.Fatal(err)
	}
	acc, err := s.Authenticate(ctx, sess.Token)
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	var gens []int64
	for _, name := range []string{"one", "two"} {
		d, err := s.AddDevice(ctx, acc.ID, name, []byte{4})
		if err != nil {
			t.Fatal(err)
		}
		gen, err := s.OpenStream(ctx, d.ID, "here")
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, d.ID)
		gens = append(gens, gen)
	}
	low, high := slices.Min(ids), slices.Max(ids)
	if ids[0] != high { // list the higher id first
		ids[0], ids[1] = ids[1], ids[0]
		gens[0], gens[1] = gens[1], gens[0]
	}

	accept, err := pool.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer accept.Rollback(ctx)
	if _, err := accept.Exec(ctx, `SELECT 1 FROM devices WHERE id = $1 FOR UPDATE`, low); err != nil {
		t.Fatal(err)
	}
	ended := make(chan error, 1)
	go func() { ended <- s.StreamsEnded(ctx, "here", ids, gens) }()
	// Wait until StreamsEnded is waiting for the lower id's lock.
	for waiting := false; !waiting; {
		err := pool.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM pg_stat_activity
			WHERE wait_event_type = 'Lock' AND query LIKE '%stream_instance = NULL%')`).Scan(&waiting)
		if err != nil {
			t.Fatal(err)
		}
		select {
		case err := <-ended:
			t.Fatalf("StreamsEnded returned (%v) while the lower id was locked", err)
		case <-time.After(10 * time.Millisecond):
		}
	}
	if _, err := accept.Exec(ctx, `SELECT 1 FROM devices WHERE id = $1 FOR UPDATE`, high); err != nil {
		t.Fatalf("the accept's second lock: %v", err)
	}
	if err := accept.Commit(ctx); err != nil {
		t.Fatal(err)
	}
	if err := <-ended; err != nil {
		t.Fatalf("StreamsEnded: %v", err)
	}
	var open int
	if err := pool.QueryRow(ctx, `SELECT count(*) FROM devices WHERE stream_instance IS NOT NULL`).Scan(&open); err != nil {
		t.Fatal(err)
	}
	if open != 0 {
		t.Fatalf("%d devices still stream after StreamsEnded", open)
	}
}
