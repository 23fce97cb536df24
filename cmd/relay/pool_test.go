package main

import (
	"context"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5/pgxpool"

	"relay/internal/testdb"
)

// The relay's connections plan each prepared statement once (ADR 0077),
// and a URL that says otherwise wins. The control, a pool made from the
// URL alone, plans as PostgreSQL does by default, so the default case sees
// the relay's setting and not the server's.
func TestPoolPlanCacheMode(t *testing.T) {
	url := testdb.New(t)
	sep := "?"
	if strings.Contains(url, "?") {
		sep = "&"
	}
	for _, c := range []struct {
		name, url, want string
		config          func(string) (*pgxpool.Config, error)
	}{
		{"default", url, "force_generic_plan", poolConfig},
		{"the URL wins", url + sep + "plan_cache_mode=force_custom_plan", "force_custom_plan", poolConfig},
		{"control: a plain pool", url, "auto", pgxpool.ParseConfig},
	} {
		t.Run(c.name, func(t *testing.T) {
			cfg, err := c.config(c.url)
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
}
