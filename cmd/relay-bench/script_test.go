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
	for _, q := range []string{
		`INSERT INTO accounts (username, password_hash, public_key) VALUES ('sender', 'x', '\x04'), ('recipient', 'x', '\x04')`,
		`INSERT INTO devices (id, account_id, name, public_key) SELECT 'S' || g, (SELECT id FROM accounts WHERE username = 'sender'), 'd', '\x04' FROM generate_series(1, 3) g`,
		`INSERT INTO devices (id, account_id, name, public_key) SELECT 'R' || g, (SELECT id FROM accounts WHERE username = 'recipient'), 'd', '\x04' FROM generate_series(1, 3) g`,
		`CREATE TABLE bench_pairs (client_id int PRIMARY KEY, from_account bigint, from_device text, from_username text, to_account bigint, to_username text)`,
		`INSERT INTO bench_pairs SELECT 0, f.id, 'S1', 'sender', t.id, 'recipient' FROM accounts f, accounts t WHERE f.username = 'sender' AND t.username = 'recipient'`,
	} {
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
