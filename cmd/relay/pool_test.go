package main

import (
	"context"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5/pgxpool"

	"relay/internal/testdb"
)

// The relay's connections plan each prepared statement once (ADR 0077),
// and a URL that says otherwise wins.
func TestPoolPlanCacheMode(t *testing.T) {
	url := testdb.New(t)
	sep := "?"
	if strings.Contains(url, "?") {
		sep = "&"
	}
	for _, c := range []struct {
		name, url, want string
	}{
		{"default", url, "force_generic_plan"},
		{"the URL wins", url + sep + "plan_cache_mode=force_custom_plan", "force_custom_plan"},
	} {
		t.Run(c.name, func(t *testing.T) {
			cfg, err := poolConfig(c.url)
			if err != nil {
				t.Fatal(err)
			}
			pool, err := pgxpool.NewWithConfig(context.Background(), cfg)
			if err != nil {
				t.Fatal(err)
			}
			defer pool.Close()
			var got string
			if err := pool.QueryRow(context.Background(), "SHOW plan_cache_mode").Scan(&got); err != nil {
				t.Fatal(err)
			}
			if got != c.want {
				t.Errorf("plan_cache_mode = %q, want %q", got, c.want)
			}
		})
	}
	// The control: a pool made from the URL alone plans as PostgreSQL
	// does by default, so the default case above sees the relay's setting.
	pool, err := pgxpool.New(context.Background(), url)
	if err != nil {
		t.Fatal(err)
	}
	defer pool.Close()
	var got string
	if err := pool.QueryRow(context.Background(), "SHOW plan_cache_mode").Scan(&got); err != nil {
		t.Fatal(err)
	}
	if got != "auto" {
		t.Errorf("a plain pool: plan_cache_mode = %q, want PostgreSQL's default auto", got)
	}
}
