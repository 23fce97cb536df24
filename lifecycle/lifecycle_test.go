package lifecycle_test

import (
	"context"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"relay/devices"
	"relay/internal/testdb"
	"relay/lifecycle"
)

// TestReplaceKeyHoldsTheCache: from before a key replacement commits
// until this instance has forgotten the account, the instance answers no
// lookup of it from memory, so that none is answered with the old key
// once the new one committed. The replacement is stopped inside its
// transaction, before its commit, by a lock the test holds on the account
// row; the control is the same lookup before the replacement began,
// answered from memory.
func TestReplaceKeyHoldsTheCache(t *testing.T) {
	ctx := context.Background()
	pool, _ := testdb.Pool(t)
	store, err := devices.NewStore(pool, devices.Config{Argon2: devices.Argon2Params{Memory: 64, Time: 1, Threads: 1}, Cache: true})
	if err != nil {
		t.Fatal(err)
	}
	store.SetListening(true)
	sess, err := store.CreateAccount(ctx, "alice", "correct horse battery", []byte{4}, nil)
	if err != nil {
		t.Fatal(err)
	}
	acc, err := store.Authenticate(ctx, sess.Token)
	if err != nil {
		t.Fatal(err)
	}
	dev, err := store.AddDevice(ctx, acc.ID, "laptop", []byte{4})
	if err != nil {
		t.Fatal(err)
	}
	// lookup is alice's key, and whether it came from memory.
	lookup := func() (byte, bool) {
		t.Helper()
		hits := store.NameCacheHits()
		a, err := store.Lookup(ctx, "alice")
		if err != nil {
			t.Fatal(err)
		}
		return a.PublicKey[0], store.NameCacheHits() > hits
	}
	lookup()
	if k, mem := lookup(); k != 4 || !mem {
		t.Fatalf("control: key %d from memory %v, want 4 from memory", k, mem)
	}

	blocker, err := pool.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer blocker.Rollback(ctx) //nolint:errcheck // rolled back below; a second time is a no-op
	if _, err := blocker.Exec(ctx, `SELECT 1 FROM accounts WHERE id = $1 FOR UPDATE`, acc.ID); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() {
		done <- lifecycle.New(pool, store, nil).ReplaceKey(ctx, devices.KeyReplacement{AccountID: acc.ID, Speaker: dev.ID, PublicKey: []byte{5}})
	}()
	waitForLockWait(t, pool)

	if k, mem := lookup(); k != 4 || mem {
		t.Fatalf("during the replacement: key %d from memory %v, want 4 read from the table", k, mem)
	}
	if err := blocker.Rollback(ctx); err != nil {
		t.Fatal(err)
	}
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if k, _ := lookup(); k != 5 {
		t.Fatalf("after the replacement: key %d, want 5", k)
	}
	if k, mem := lookup(); k != 5 || !mem {
		t.Fatalf("after the replacement the cache is not used again: key %d from memory %v", k, mem)
	}
}

// waitForLockWait waits until a session of the test's database waits for
// a row lock.
func waitForLockWait(t *testing.T, pool *pgxpool.Pool) {
	t.Helper()
	for i := 0; ; i++ {
		var n int
		err := pool.QueryRow(context.Background(), `SELECT count(*) FROM pg_stat_activity
			WHERE datname = current_database() AND wait_event_type = 'Lock'`).Scan(&n)
		if err != nil {
			t.Fatal(err)
		}
		if n > 0 {
			return
		}
		if i > 1000 {
			t.Fatal("the replacement never waited for the account row")
		}
		time.Sleep(10 * time.Millisecond)
	}
}
