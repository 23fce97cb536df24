// Package testdb gives each test its own fresh, migrated PostgreSQL database.
//
// The server comes from $RELAY_TEST_DATABASE_URL (an admin URL) or, when that
// is unset, from the project's private cluster (scripts/pgcluster.sh), which
// it starts if needed. Each test database is a copy of a template that holds
// the current migrations, which makes a new database cost a file copy rather
// than a schema build. Nothing here mocks the database.
package testdb

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"relay/migrations"
)

var (
	adminOnce sync.Once
	adminURL  string
	adminErr  error

	templateOnce sync.Once
	templateName string
	templateErr  error
)

// AdminURL returns the URL of a role that may create databases.
func AdminURL(t testing.TB) string {
	t.Helper()
	adminOnce.Do(func() {
		if u := os.Getenv("RELAY_TEST_DATABASE_URL"); u != "" {
			adminURL = u
			return
		}
		_, file, _, _ := runtime.Caller(0)
		script := filepath.Join(filepath.Dir(file), "..", "..", "scripts", "pgcluster.sh")
		out, err := exec.Command("bash", script, "url").Output()
		if err != nil {
			var stderr string
			if ee, ok := err.(*exec.ExitError); ok {
				stderr = string(ee.Stderr)
			}
			adminErr = fmt.Errorf("starting the private PostgreSQL cluster with %s: %v\n%s", script, err, stderr)
			return
		}
		adminURL = strings.TrimSpace(string(out))
	})
	if adminErr != nil {
		t.Fatalf("testdb: %v (or set RELAY_TEST_DATABASE_URL)", adminErr)
	}
	return adminURL
}

// New creates a fresh database with every migration applied and returns its
// URL. The database is dropped when the test ends.
func New(t testing.TB) string {
	t.Helper()
	admin := AdminURL(t)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	tmpl := template(t, admin)

	name := "relay_test_" + randomHex(8)
	conn, err := pgx.Connect(ctx, admin)
	if err != nil {
		t.Fatalf("testdb: %v", err)
	}
	defer conn.Close(ctx)
	if _, err := conn.Exec(ctx, fmt.Sprintf("CREATE DATABASE %s TEMPLATE %s", name, tmpl)); err != nil {
		t.Fatalf("testdb: creating %s: %v", name, err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		conn, err := pgx.Connect(ctx, admin)
		if err != nil {
			t.Errorf("testdb: dropping %s: %v", name, err)
			return
		}
		defer conn.Close(ctx)
		if _, err := conn.Exec(ctx, fmt.Sprintf("DROP DATABASE IF EXISTS %s WITH (FORCE)", name)); err != nil {
			t.Errorf("testdb: dropping %s: %v", name, err)
		}
	})
	return withDatabaseURL(admin, name)
}

// Pool is New plus a pool on the new database, closed when the test ends.
func Pool(t testing.TB) (*pgxpool.Pool, string) {
	t.Helper()
	u := New(t)
	pool, err := pgxpool.New(context.Background(), u)
	if err != nil {
		t.Fatalf("testdb: %v", err)
	}
	t.Cleanup(pool.Close)
	return pool, u
}

// template returns the name of a template database holding the current
// migrations, creating it once per content of the migrations. Test binaries
// of several packages run at once, so creation is serialised with an
// advisory lock on the server.
func template(t testing.TB, admin string) string {
	t.Helper()
	templateOnce.Do(func() {
		templateName, templateErr = makeTemplate(admin)
	})
	if templateErr != nil {
		t.Fatalf("testdb: preparing the template database: %v", templateErr)
	}
	return templateName
}

func makeTemplate(admin string) (string, error) {
	steps, err := migrations.Steps()
	if err != nil {
		return "", err
	}
	h := sha256.New()
	for _, s := range steps {
		fmt.Fprintf(h, "%s\x00%s\x00", s.Name, s.SQL)
	}
	name := "relay_template_" + hex.EncodeToString(h.Sum(nil))[:16]

	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	conn, err := pgx.Connect(ctx, admin)
	if err != nil {
		return "", err
	}
	defer conn.Close(ctx)
	// Arbitrary fixed key shared by every test binary ("relaytmp").
	if _, err := conn.Exec(ctx, "SELECT pg_advisory_lock(8243124879573133680)"); err != nil {
		return "", err
	}
	defer conn.Exec(ctx, "SELECT pg_advisory_unlock(8243124879573133680)") //nolint:errcheck // ends with the session anyway

	var exists bool
	if err := conn.QueryRow(ctx, "SELECT EXISTS (SELECT 1 FROM pg_database WHERE datname = $1 AND datistemplate)", name).Scan(&exists); err != nil {
		return "", err
	}
	if exists {
		return name, nil
	}
	if _, err := conn.Exec(ctx, fmt.Sprintf("DROP DATABASE IF EXISTS %s WITH (FORCE)", name)); err != nil {
		return "", err
	}
	if _, err := conn.Exec(ctx, fmt.Sprintf("CREATE DATABASE %s", name)); err != nil {
		return "", err
	}
	pool, err := pgxpool.New(ctx, withDatabaseURL(admin, name))
	if err != nil {
		return "", err
	}
	_, err = migrations.Apply(ctx, pool)
	pool.Close()
	if err != nil {
		return "", err
	}
	if _, err := conn.Exec(ctx, fmt.Sprintf("ALTER DATABASE %s WITH is_template true", name)); err != nil {
		return "", err
	}
	return name, nil
}

func withDatabaseURL(admin, name string) string {
	u, err := url.Parse(admin)
	if err != nil {
		panic(fmt.Sprintf("testdb: bad admin URL: %v", err))
	}
	u.Path = "/" + name
	return u.String()
}

func randomHex(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}
