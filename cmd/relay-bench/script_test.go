package main

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"testing"

	"github.com/jackc/pgx/v5/pgxpool"

	"relay/internal/testdb"
)

// TestPgbenchScriptIsTheRelaysTransaction runs the generated pgbench script
// once against a fresh database and checks it did what the relay's enqueue
// transaction does: an idempotency record, five queue rows with seq 1, and
// the contacts both ways. It fails if the relay's SQL changes in a way the
// script no longer follows.
func TestPgbenchScriptIsTheRelaysTransaction(t *testing.T) {
	pgbench, db, pool := pgbenchDB(t)
	ctx := context.Background()
	for _, q := range pairFixture {
		if _, err := pool.Exec(ctx, q); err != nil {
			t.Fatal(err)
		}
	}
	f, err := os.CreateTemp("", "script-*.sql")
	if err != nil {
		t.Fatal(err)
	}
	defer os.Remove(f.Name())
	f.WriteString(pgbenchScript())
	f.Close()
	out, err := exec.Command(pgbench, "-n", "-M", "prepared", "-c", "1", "-t", "1", "-f", f.Name(), db).CombinedOutput()
	if err != nil {
		t.Fatalf("pgbench: %v\n%s", err, out)
	}
	var sent, rows, contacts, sender int
	if err := pool.QueryRow(ctx, `SELECT (SELECT count(*) FROM sent), (SELECT count(*) FROM queue WHERE seq = 1),
		(SELECT count(*) FROM contacts), (SELECT count(*) FROM queue WHERE device_id = 'S1')`).Scan(&sent, &rows, &contacts, &sender); err != nil {
		t.Fatal(err)
	}
	if sent != 1 || rows != 5 || contacts != 2 || sender != 0 {
		t.Fatalf("sent %d, queue rows %d, contacts %d, rows for the sending device %d; want 1, 5, 2, 0", sent, rows, contacts, sender)
	}
}

// pairFixture is two accounts of three devices, sender and recipient,
// and the bench_pairs row of a client sending from S1 to recipient.
var pairFixture = []string{
	`INSERT INTO accounts (username, password_hash, public_key) VALUES ('sender', 'x', '\x04'), ('recipient', 'x', '\x04')`,
	`INSERT INTO devices (id, account_id, name, public_key) SELECT 'S' || g, (SELECT id FROM accounts WHERE username = 'sender'), 'd', '\x04' FROM generate_series(1, 3) g`,
	`INSERT INTO devices (id, account_id, name, public_key) SELECT 'R' || g, (SELECT id FROM accounts WHERE username = 'recipient'), 'd', '\x04' FROM generate_series(1, 3) g`,
	`CREATE TABLE bench_pairs (client_id int PRIMARY KEY, from_account bigint, from_device text, from_username text, to_account bigint, to_username text)`,
	`INSERT INTO bench_pairs SELECT 0, f.id, 'S1', 'sender', t.id, 'recipient' FROM accounts f, accounts t WHERE f.username = 'sender' AND t.username = 'recipient'`,
}

// pgbenchDB returns the newest pgbench beside the PostgreSQL server
// binaries, a fresh database's URL and a pool on it, closed at the end of
// the test.
func pgbenchDB(t *testing.T) (pgbench, db string, pool *pgxpool.Pool) {
	t.Helper()
	bins, _ := filepath.Glob("/usr/lib/postgresql/*/bin/pgbench")
	sort.Strings(bins)
	if len(bins) == 0 {
		t.Fatal("pgbench is missing: it comes with the PostgreSQL server package that make test installs")
	}
	db = testdb.New(t)
	pool, err := pgxpool.New(context.Background(), db)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(pool.Close)
	return bins[len(bins)-1], db, pool
}

// TestSplitScriptWritesWhatTheStatementWrites runs the per-account form of
// the accept (splitScript) after the relay's own statement, from each of
// two accounts to the other at once, and checks that both wrote the same
// rows: an idempotency record per envelope, a queue row per target device
// with gapless seq, one ts per envelope on all its rows and records, raised
// above every target's last ts, and the contacts both ways.
func TestSplitScriptWritesWhatTheStatementWrites(t *testing.T) {
	pgbench, db, pool := pgbenchDB(t)
	ctx := context.Background()
	for _, q := range append(pairFixture,
		`INSERT INTO bench_pairs SELECT 1, f.id, 'R1', 'recipient', t.id, 'sender' FROM accounts f, accounts t WHERE f.username = 'recipient' AND t.username = 'sender'`,
		// A last ts far ahead on one target: every envelope's ts must pass it.
		`UPDATE devices SET last_ts = 5000000000000 WHERE id = 'R3'`,
	) {
		if _, err := pool.Exec(ctx, q); err != nil {
			t.Fatal(err)
		}
	}
	for _, script := range []string{pgbenchScript(), splitScript(), splitScript()} {
		f, err := os.CreateTemp("", "script-*.sql")
		if err != nil {
			t.Fatal(err)
		}
		f.WriteString(script)
		f.Close()
		out, err := exec.Command(pgbench, "-n", "-M", "prepared", "-c", "2", "-t", "5", "-f", f.Name(), db).CombinedOutput()
		os.Remove(f.Name())
		if err != nil {
			t.Fatalf("pgbench: %v\n%s", err, out)
		}
	}
	// 30 envelopes, 15 each way; each to the other account's 3 devices
	// and the sender's 2 others.
	var sent, rows, gaps, tsOff, stale, contacts, own int
	if err := pool.QueryRow(ctx, `SELECT (SELECT count(*) FROM sent), (SELECT count(*) FROM queue),
		(SELECT count(*) FROM devices d WHERE d.seq <> (SELECT count(*) FROM queue q WHERE q.device_id = d.id)
			OR (SELECT max(seq) FROM queue q WHERE q.device_id = d.id) <> d.seq),
		(SELECT count(*) FROM queue q JOIN sent s ON s.envelope_id = q.envelope_id WHERE q.ts <> s.ts),
		(SELECT count(*) FROM sent WHERE ts <= 5000000000000),
		(SELECT count(*) FROM contacts),
		(SELECT count(*) FROM queue q JOIN sent s ON s.envelope_id = q.envelope_id JOIN bench_pairs p ON p.from_account = s.account_id WHERE q.device_id = p.from_device)`).
		Scan(&sent, &rows, &gaps, &tsOff, &stale, &contacts, &own); err != nil {
		t.Fatal(err)
	}
	if sent != 30 || rows != 150 || gaps != 0 || tsOff != 0 || stale != 0 || contacts != 2 || own != 0 {
		t.Fatalf("records %d, queue rows %d, devices with gaps %d, rows off their envelope's ts %d, envelopes not after the targets' ts %d, contacts %d, rows for a sending device %d; want 30, 150, 0, 0, 0, 2, 0",
			sent, rows, gaps, tsOff, stale, contacts, own)
	}
	var disorder int
	if err := pool.QueryRow(ctx, `SELECT count(*) FROM queue a JOIN queue b ON a.device_id = b.device_id AND b.seq = a.seq + 1 WHERE b.ts <= a.ts`).Scan(&disorder); err != nil {
		t.Fatal(err)
	}
	if disorder != 0 {
		t.Fatalf("%d queue rows whose ts does not rise with seq", disorder)
	}
}
