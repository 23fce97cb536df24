package audit

import (
	"bufio"
	"context"
	"os"
	"path/filepath"
	"strings"

	"github.com/jackc/pgx/v5/pgxpool"
)

// Warning is a setting that would hide plaintext from a byte search, with
// what to do about it.
type Warning struct {
	Setting string
	Value   string
	Advice  string
}

const walAdvice = "WAL compression compresses the full-page images in the WAL, so a plaintext inside them would not show up in a byte search. " +
	"To audit, turn it off (ALTER SYSTEM SET wal_compression = off; SELECT pg_reload_conf();), run CHECKPOINT, let the relay work, and audit again."

func walCompressed(v string) bool {
	switch strings.ToLower(strings.Trim(strings.TrimSpace(v), "'\"")) {
	case "", "off", "false", "no", "0":
		return false
	}
	return true
}

// ConfWarnings reads postgresql.conf and postgresql.auto.conf in a data
// directory; the last assignment of a setting wins, as in PostgreSQL.
func ConfWarnings(dir string) []Warning {
	settings := map[string]string{}
	for _, name := range []string{"postgresql.conf", "postgresql.auto.conf"} {
		f, err := os.Open(filepath.Join(dir, name))
		if err != nil {
			continue
		}
		sc := bufio.NewScanner(f)
		for sc.Scan() {
			line := sc.Text()
			if i := strings.IndexByte(line, '#'); i >= 0 {
				line = line[:i]
			}
			k, v, ok := strings.Cut(line, "=")
			if !ok {
				continue
			}
			settings[strings.ToLower(strings.TrimSpace(k))] = strings.TrimSpace(v)
		}
		f.Close()
	}
	var ws []Warning
	if v, ok := settings["wal_compression"]; ok && walCompressed(v) {
		ws = append(ws, Warning{"wal_compression", v, walAdvice})
	}
	return ws
}

// DBWarnings checks the running server's settings and the relay's schema:
// WAL compression, and that envelope bodies are stored uncompressed.
func DBWarnings(ctx context.Context, pool *pgxpool.Pool) ([]Warning, error) {
	var ws []Warning
	var wal string
	if err := pool.QueryRow(ctx, "SHOW wal_compression").Scan(&wal); err != nil {
		return nil, err
	}
	if walCompressed(wal) {
		ws = append(ws, Warning{"wal_compression", wal, walAdvice})
	}
	var storage string
	err := pool.QueryRow(ctx, `SELECT attstorage FROM pg_attribute
		WHERE attrelid = to_regclass('queue') AND attname = 'body'`).Scan(&storage)
	if err == nil && storage != "e" {
		ws = append(ws, Warning{"queue.body storage", storage,
			"envelope bodies may be compressed in TOAST, where a byte search cannot see them. " +
				"The relay's migrations set STORAGE EXTERNAL; restore it with ALTER TABLE queue ALTER COLUMN body SET STORAGE EXTERNAL (new rows only)."})
	}
	return ws, nil
}
