package migrations_test

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"relay/internal/testdb"
	"relay/migrations"
)

// emptyDB returns a pool on a database with no schema at all.
func emptyDB(t *testing.T) *pgxpool.Pool {
	t.Helper()
	pool, _ := testdb.Pool(t)
	ctx := context.Background()
	if _, err := pool.Exec(ctx, `DROP SCHEMA public CASCADE; CREATE SCHEMA public`); err != nil {
		t.Fatal(err)
	}
	return pool
}

func TestStepsAreOrdered(t *testing.T) {
	steps, err := migrations.Steps()
	if err != nil {
		t.Fatal(err)
	}
	if len(steps) == 0 || migrations.Latest() != len(steps) {
		t.Fatalf("%d steps, latest %d", len(steps), migrations.Latest())
	}
}

// TestEachStep applies the steps one by one on an empty database, so every
// step is known to run on the state the steps before it leave.
func TestEachStep(t *testing.T) {
	pool := emptyDB(t)
	ctx := context.Background()
	steps, _ := migrations.Steps()
	for _, s := range steps {
		err := pgx.BeginFunc(ctx, pool, func(tx pgx.Tx) error {
			_, err := tx.Exec(ctx, s.SQL)
			return err
		})
		if err != nil {
			t.Fatalf("%s: %v", s.Name, err)
		}
	}
	// The queue body is stored uncompressed (STORAGE EXTERNAL).
	var storage string
	if err := pool.QueryRow(ctx, `SELECT attstorage FROM pg_attribute WHERE attrelid = 'queue'::regclass AND attname = 'body'`).Scan(&storage); err != nil {
		t.Fatal(err)
	}
	if storage != "e" {
		t.Fatalf("queue.body storage %q, want e (external, uncompressed)", storage)
	}
	// Vacuum never truncates the queue (ADR 0083), and only the queue: the
	// control is the devices table, which keeps PostgreSQL's default.
	for _, c := range []struct {
		table string
		want  bool
	}{{"queue", true}, {"devices", false}} {
		var set bool
		if err := pool.QueryRow(ctx, `SELECT coalesce('vacuum_truncate=false' = ANY (reloptions), false) FROM pg_class WHERE oid = $1::regclass`, c.table).Scan(&set); err != nil {
			t.Fatal(err)
		}
		if set != c.want {
			t.Errorf("%s: vacuum_truncate=false set %v, want %v", c.table, set, c.want)
		}
	}
}

// TestConcurrentApply starts several appliers at once, as several relay
// instances starting together would: each step runs exactly once.
func TestConcurrentApply(t *testing.T) {
	pool := emptyDB(t)
	ctx := context.Background()
	var wg sync.WaitGroup
	ran := make([]int, 4)
	errs := make([]error, 4)
	for i := range ran {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			ran[i], errs[i] = migrations.Apply(ctx, pool)
		}(i)
	}
	wg.Wait()
	total := 0
	for i := range ran {
		if errs[i] != nil {
			t.Fatal(errs[i])
		}
		total += ran[i]
	}
	if total != migrations.Latest() {
		t.Fatalf("steps ran %d times in all, want %d", total, migrations.Latest())
	}
	v, err := migrations.Version(ctx, pool)
	if err != nil || v != migrations.Latest() {
		t.Fatalf("version %d %v", v, err)
	}
	if n, err := migrations.Apply(ctx, pool); n != 0 || err != nil {
		t.Fatalf("second apply ran %d: %v", n, err)
	}
}

// TestStep4MarksLiveDevicesLinked: 0004 marks every device live before it
// linked, leaves revoked ones unlinked, and gives accounts no recovery
// blob. A device added after it starts unlinked (the column's default).
func TestStep4MarksLiveDevicesLinked(t *testing.T) {
	pool := emptyDB(t)
	ctx := context.Background()
	steps, _ := migrations.Steps()
	run := func(s migrations.Step) {
		t.Helper()
		if _, err := pool.Exec(ctx, s.SQL); err != nil {
			t.Fatalf("%s: %v", s.Name, err)
		}
	}
	for _, s := range steps[:3] {
		run(s)
	}
	if _, err := pool.Exec(ctx, `
		INSERT INTO accounts (username, password_hash, public_key) VALUES ('alice', 'x', '\x04');
		INSERT INTO devices (id, account_id, name, public_key) VALUES ('live', 1, 'a', '\x04');
		INSERT INTO devices (id, account_id, name, public_key, revoked_at) VALUES ('revoked', 1, 'b', '\x04', now())`); err != nil {
		t.Fatal(err)
	}
	run(steps[3])
	if _, err := pool.Exec(ctx, `INSERT INTO devices (id, account_id, name, public_key) VALUES ('new', 1, 'c', '\x04')`); err != nil {
		t.Fatal(err)
	}
	rows, err := pool.Query(ctx, `SELECT id, linked FROM devices ORDER BY id`)
	if err != nil {
		t.Fatal(err)
	}
	linked, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (string, error) {
		var id string
		var l bool
		err := r.Scan(&id, &l)
		return fmt.Sprintf("%s=%t", id, l), err
	})
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(linked, " "); got != "live=true new=false revoked=false" {
		t.Fatalf("after 0004: %s", got)
	}
	var blobs int
	if err := pool.QueryRow(ctx, `SELECT count(*) FROM accounts WHERE recovery_blob IS NOT NULL OR recovery_updated_at IS NOT NULL`).Scan(&blobs); err != nil || blobs != 0 {
		t.Fatalf("%d accounts with a recovery blob after 0004: %v", blobs, err)
	}
}

// TestStep5HoldsNamesAndDisables: 0005 leaves every account enabled, and
// held_names takes one row per name hash.
func TestStep5HoldsNamesAndDisables(t *testing.T) {
	pool := emptyDB(t)
	ctx := context.Background()
	steps, _ := migrations.Steps()
	for _, s := range steps[:4] {
		if _, err := pool.Exec(ctx, s.SQL); err != nil {
			t.Fatalf("%s: %v", s.Name, err)
		}
	}
	if _, err := pool.Exec(ctx, `INSERT INTO accounts (username, password_hash, public_key) VALUES ('alice', 'x', '\x04')`); err != nil {
		t.Fatal(err)
	}
	if _, err := pool.Exec(ctx, steps[4].SQL); err != nil {
		t.Fatalf("%s: %v", steps[4].Name, err)
	}
	var disabled int
	if err := pool.QueryRow(ctx, `SELECT count(*) FROM accounts WHERE disabled_at IS NOT NULL`).Scan(&disabled); err != nil || disabled != 0 {
		t.Fatalf("%d accounts disabled after 0005: %v", disabled, err)
	}
	if _, err := pool.Exec(ctx, `INSERT INTO held_names (name_sha256, held_until) VALUES ('\x01', now())`); err != nil {
		t.Fatal(err)
	}
	if _, err := pool.Exec(ctx, `INSERT INTO held_names (name_sha256, held_until) VALUES ('\x01', now())`); err == nil {
		t.Fatal("a name hash was held twice")
	}
}

// TestStep6PushTables: after 0006 a device's push subscription goes with
// the device row, one subscription per device, and one VAPID pair at most.
func TestStep6PushTables(t *testing.T) {
	pool := emptyDB(t)
	ctx := context.Background()
	if _, err := migrations.Apply(ctx, pool); err != nil {
		t.Fatal(err)
	}
	if _, err := pool.Exec(ctx, `
		INSERT INTO accounts (username, password_hash, public_key) VALUES ('alice', 'x', '\x04');
		INSERT INTO devices (id, account_id, name, public_key) VALUES ('a', 1, 'a', '\x04'), ('b', 1, 'b', '\x04');
		INSERT INTO push_subscriptions (device_id, endpoint, p256dh, auth) VALUES ('a', 'https://p/1', '\x04', '\x01'), ('b', 'https://p/2', '\x04', '\x01');
		INSERT INTO push_vapid (id, private_key, public_key) VALUES (1, 'k', 'K')`); err != nil {
		t.Fatal(err)
	}
	if _, err := pool.Exec(ctx, `INSERT INTO push_subscriptions (device_id, endpoint, p256dh, auth) VALUES ('a', 'https://p/3', '\x04', '\x01')`); err == nil {
		t.Fatal("a second subscription for one device was stored")
	}
	if _, err := pool.Exec(ctx, `INSERT INTO push_vapid (id, private_key, public_key) VALUES (2, 'k', 'K')`); err == nil {
		t.Fatal("a second VAPID pair was stored")
	}
	if _, err := pool.Exec(ctx, `DELETE FROM devices WHERE id = 'a'`); err != nil {
		t.Fatal(err)
	}
	rows, err := pool.Query(ctx, `SELECT device_id FROM push_subscriptions ORDER BY device_id`)
	if err != nil {
		t.Fatal(err)
	}
	left, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil || strings.Join(left, " ") != "b" {
		t.Fatalf("after deleting device a: subscriptions of %v (%v), want b", left, err)
	}
}

// TestStep9LastTSFromTheQueue: 0009 gives each device the highest ts of
// the envelopes still queued for it, whatever their seq order, so that the
// next envelope goes after them (ADR 0085); a device with nothing queued,
// or added later, starts at 0.
func TestStep9LastTSFromTheQueue(t *testing.T) {
	pool := emptyDB(t)
	ctx := context.Background()
	steps, _ := migrations.Steps()
	for _, s := range steps[:8] {
		if _, err := pool.Exec(ctx, s.SQL); err != nil {
			t.Fatalf("%s: %v", s.Name, err)
		}
	}
	if _, err := pool.Exec(ctx, `
		INSERT INTO accounts (username, password_hash, public_key) VALUES ('alice', 'x', '\x04');
		INSERT INTO devices (id, account_id, name, public_key, seq) VALUES ('a', 1, 'a', '\x04', 2), ('b', 1, 'b', '\x04', 5);
		INSERT INTO queue (device_id, seq, envelope_id, from_username, from_device, to_username, ts, body)
		VALUES ('a', 1, 'e1', 'bob', 'x', 'alice', 2000, '\x00'), ('a', 2, 'e2', 'bob', 'x', 'alice', 1000, '\x00')`); err != nil {
		t.Fatal(err)
	}
	if _, err := pool.Exec(ctx, steps[8].SQL); err != nil {
		t.Fatalf("%s: %v", steps[8].Name, err)
	}
	if _, err := pool.Exec(ctx, `INSERT INTO devices (id, account_id, name, public_key) VALUES ('c', 1, 'c', '\x04')`); err != nil {
		t.Fatal(err)
	}
	rows, err := pool.Query(ctx, `SELECT id, last_ts FROM devices ORDER BY id`)
	if err != nil {
		t.Fatal(err)
	}
	got, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (string, error) {
		var id string
		var ts int64
		err := r.Scan(&id, &ts)
		return fmt.Sprintf("%s=%d", id, ts), err
	})
	if err != nil {
		t.Fatal(err)
	}
	if s := strings.Join(got, " "); s != "a=2000 b=0 c=0" {
		t.Fatalf("last_ts after 0009: %s, want a=2000 b=0 c=0", s)
	}
}
