package main

import (
	"context"
	"crypto/rand"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5/pgxpool"

	"relay/internal/testdb"
)

func runBinary(t *testing.T, env []string, args ...string) (string, int) {
	t.Helper()
	cmd := exec.Command(binary, args...)
	cmd.Env = append(os.Environ(), env...)
	out, err := cmd.CombinedOutput()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return string(out), code
}

// TestAuditCommand checks the exit codes and words of `relay audit` on a
// directory that stands in for a data directory.
func TestAuditCommand(t *testing.T) {
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "pg_wal"), 0o755); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(dir, "pg_wal", "000000010000000000000001"), []byte("....secret-plaintext...."), 0o600)
	os.WriteFile(filepath.Join(dir, "postgresql.auto.conf"), []byte("wal_compression = 'lz4'\n"), 0o600)
	if err := os.MkdirAll(filepath.Join(dir, "base", "16384"), 0o755); err != nil {
		t.Fatal(err)
	}

	out, code := runBinary(t, nil, "audit", "--needle", "nothing-like-this", "--pgdata", dir)
	if code != 0 || !strings.Contains(out, "no hit in 2 files") {
		t.Fatalf("clean audit: exit %d\n%s", code, out)
	}
	if !strings.Contains(out, "warning: wal_compression = 'lz4'") {
		t.Fatalf("no warning about WAL compression:\n%s", out)
	}
	out, code = runBinary(t, nil, "audit", "--needle", "secret-plaintext", "--needle", "nothing-like-this", "--pgdata", dir)
	if code != 1 || !strings.Contains(out, `HIT pg_wal/000000010000000000000001 at byte 4: "secret-plaintext" as utf-8`) {
		t.Fatalf("audit with a hit: exit %d\n%s", code, out)
	}
	// A file as the needle: a photo stored in plain is found by its
	// pieces, wherever its pages lie; another photo is not.
	photo := make([]byte, 20000)
	_, _ = rand.Read(photo)
	photoFile, other := filepath.Join(t.TempDir(), "photo.jpg"), filepath.Join(t.TempDir(), "other.jpg")
	os.WriteFile(photoFile, photo, 0o600)
	os.WriteFile(other, append(append([]byte{}, photo[:1024]...), make([]byte, 19000)...), 0o600)
	os.WriteFile(filepath.Join(dir, "base", "16384", "2619"), append(append(photo[10000:], []byte("page header")...), photo[:10000]...), 0o600)
	out, code = runBinary(t, nil, "audit", "--needle-file", other, "--pgdata", dir)
	if code != 0 || !strings.Contains(out, "no hit") {
		t.Fatalf("audit for another file: exit %d\n%s", code, out)
	}
	out, code = runBinary(t, nil, "audit", "--needle-file", photoFile, "--pgdata", dir)
	if code != 1 || !strings.Contains(out, "HIT base/16384/2619 at byte") || !strings.Contains(out, "piece 1 of "+photoFile+" as utf-8") {
		t.Fatalf("audit for a stored file: exit %d\n%s", code, out)
	}
	out, code = runBinary(t, nil, "audit", "--needle", "short", "--pgdata", dir)
	if code != 2 || !strings.Contains(out, "shorter than 8 bytes") {
		t.Fatalf("short needle: exit %d\n%s", code, out)
	}
	out, code = runBinary(t, []string{"PGDATA="}, "audit")
	if code != 2 || !strings.Contains(out, "--needle") {
		t.Fatalf("no arguments: exit %d\n%s", code, out)
	}
}

func TestAuditStatsCommand(t *testing.T) {
	db := testdb.New(t)
	ctx := context.Background()
	pool, err := pgxpool.New(ctx, db)
	if err != nil {
		t.Fatal(err)
	}
	defer pool.Close()
	if _, err := pool.Exec(ctx, `INSERT INTO accounts (username, password_hash, public_key) VALUES ('alice', 'x', '\x04'), ('bob', 'x', '\x04')`); err != nil {
		t.Fatal(err)
	}
	if _, err := pool.Exec(ctx, `UPDATE accounts SET recovery_blob = '\xc0ffee', recovery_updated_at = now() WHERE username = 'alice'`); err != nil {
		t.Fatal(err)
	}
	if _, err := pool.Exec(ctx, `INSERT INTO devices (id, account_id, name, public_key, seq) SELECT '01JQ00000000000000000DEV01', id, 'd', '\x04', 2 FROM accounts WHERE username = 'alice'`); err != nil {
		t.Fatal(err)
	}
	if _, err := pool.Exec(ctx, `INSERT INTO queue (device_id, seq, envelope_id, from_username, from_device, to_username, ts, body)
		VALUES ('01JQ00000000000000000DEV01', 1, 'x', 'bob', 'y', 'alice', 0, '\xdeadbeef'), ('01JQ00000000000000000DEV01', 2, 'z', 'bob', 'y', 'alice', 0, '\x00')`); err != nil {
		t.Fatal(err)
	}
	out, code := runBinary(t, []string{"DATABASE_URL=" + db}, "audit", "--stats")
	if code != 0 {
		t.Fatalf("exit %d\n%s", code, out)
	}
	for _, want := range []string{"accounts             2", "recovery blobs       1", "queued envelopes     2 (5 B of ciphertext)", "01JQ00000000000000000DEV01  alice    2       5 B"} {
		if !strings.Contains(out, want) {
			t.Errorf("stats lack %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "deadbeef") {
		t.Fatal("stats show envelope content")
	}
	if strings.Contains(out, "c0ffee") {
		t.Fatal("stats show a recovery blob")
	}
}
