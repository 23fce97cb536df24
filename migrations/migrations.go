// Package migrations holds the relay's schema as ordered SQL files and
// applies them. Files are named NNNN_title.sql and run in that order, each in
// its own transaction, recorded in schema_migrations. Apply holds a
// PostgreSQL advisory lock while it works, so several relay instances that
// start at once against one database apply each step exactly once.
//
// A step, once released, never changes: a new need gets a new file.
package migrations

import (
	"context"
	"embed"
	"fmt"
	"io/fs"
	"sort"
	"strconv"
	"strings"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

//go:embed *.sql
var files embed.FS

// lockKey is the advisory lock that serialises Apply across processes.
// Arbitrary, but fixed forever: it is "relaymig" in ASCII.
const lockKey int64 = 0x72656c61796d6967

// Step is one migration file.
type Step struct {
	Version int
	Name    string
	SQL     string
}

// Steps returns every migration, in order.
func Steps() ([]Step, error) {
	entries, err := fs.ReadDir(files, ".")
	if err != nil {
		return nil, err
	}
	var steps []Step
	for _, e := range entries {
		name := e.Name()
		num, _, ok := strings.Cut(name, "_")
		v, err := strconv.Atoi(num)
		if !ok || err != nil || v <= 0 {
			return nil, fmt.Errorf("migrations: file %q is not named NNNN_title.sql", name)
		}
		b, err := files.ReadFile(name)
		if err != nil {
			return nil, err
		}
		steps = append(steps, Step{Version: v, Name: name, SQL: string(b)})
	}
	sort.Slice(steps, func(i, j int) bool { return steps[i].Version < steps[j].Version })
	for i := range steps {
		if steps[i].Version != i+1 {
			return nil, fmt.Errorf("migrations: %s: versions must run 1, 2, 3… without gaps", steps[i].Name)
		}
	}
	return steps, nil
}

// Latest is the version of the newest step.
func Latest() int {
	steps, err := Steps()
	if err != nil || len(steps) == 0 {
		return 0
	}
	return steps[len(steps)-1].Version
}

// Apply brings the database up to the newest step and returns how many steps
// it ran.
func Apply(ctx context.Context, pool *pgxpool.Pool) (int, error) {
	steps, err := Steps()
	if err != nil {
		return 0, err
	}
	conn, err := pool.Acquire(ctx)
	if err != nil {
		return 0, fmt.Errorf("migrations: %w", err)
	}
	defer conn.Release()

	// A session-level lock, held across the per-step transactions below,
	// so a second instance waits here and then finds nothing left to do.
	if _, err := conn.Exec(ctx, "SELECT pg_advisory_lock($1)", lockKey); err != nil {
		return 0, fmt.Errorf("migrations: taking the advisory lock: %w", err)
	}
	defer conn.Exec(context.WithoutCancel(ctx), "SELECT pg_advisory_unlock($1)", lockKey) //nolint:errcheck // the lock also ends with the session

	if _, err := conn.Exec(ctx, `CREATE TABLE IF NOT EXISTS schema_migrations (
		version    integer PRIMARY KEY,
		name       text NOT NULL,
		applied_at timestamptz NOT NULL DEFAULT now())`); err != nil {
		return 0, fmt.Errorf("migrations: %w", err)
	}
	var current int
	if err := conn.QueryRow(ctx, "SELECT coalesce(max(version), 0) FROM schema_migrations").Scan(&current); err != nil {
		return 0, fmt.Errorf("migrations: %w", err)
	}
	if current > len(steps) {
		return 0, fmt.Errorf("migrations: the database is at version %d but this relay knows only %d: run a newer relay", current, len(steps))
	}
	ran := 0
	for _, s := range steps[current:] {
		err := pgx.BeginFunc(ctx, conn, func(tx pgx.Tx) error {
			if _, err := tx.Exec(ctx, s.SQL); err != nil {
				return err
			}
			_, err := tx.Exec(ctx, "INSERT INTO schema_migrations (version, name) VALUES ($1, $2)", s.Version, s.Name)
			return err
		})
		if err != nil {
			return ran, fmt.Errorf("migrations: %s: %w", s.Name, err)
		}
		ran++
	}
	return ran, nil
}

// Version reports the newest applied step, 0 for an empty database.
func Version(ctx context.Context, pool *pgxpool.Pool) (int, error) {
	var v int
	err := pool.QueryRow(ctx, `SELECT coalesce(max(version), 0) FROM schema_migrations`).Scan(&v)
	return v, err
}
