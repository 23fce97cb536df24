package migrations_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"relay/migrations"
)

// TestStep13GroupInfo: after 0013 a GroupInfo is stored under a group id
// of exactly 32 bytes, at an epoch of 0 or more, with 1 to 65,536 bytes of
// info, stored uncompressed like the queue's bodies, and one row per
// group. Each refusal has its control, which is accepted.
func TestStep13GroupInfo(t *testing.T) {
	pool := emptyDB(t)
	ctx := context.Background()
	if _, err := migrations.Apply(ctx, pool); err != nil {
		t.Fatal(err)
	}
	exec := func(sql string) error {
		_, err := pool.Exec(ctx, sql)
		return err
	}
	id := func(n int) string { return fmt.Sprintf(`decode(repeat('ab', %d), 'hex')`, n) }
	for _, sql := range []string{
		`INSERT INTO mls_group_info (group_id, epoch, info, updated_at) VALUES (` + id(32) + `, 0, '\x01', now())`,
		`INSERT INTO mls_group_info (group_id, epoch, info, updated_at) VALUES (decode(repeat('cd', 32), 'hex'), 7, decode(repeat('00', 65536), 'hex'), now())`,
	} {
		if err := exec(sql); err != nil {
			t.Fatalf("%s: %v", sql, err)
		}
	}
	for _, sql := range []string{
		`INSERT INTO mls_group_info (group_id, epoch, info, updated_at) VALUES (` + id(32) + `, 1, '\x01', now())`,
		`INSERT INTO mls_group_info (group_id, epoch, info, updated_at) VALUES (` + id(31) + `, 0, '\x01', now())`,
		`INSERT INTO mls_group_info (group_id, epoch, info, updated_at) VALUES (` + id(33) + `, 0, '\x01', now())`,
		`INSERT INTO mls_group_info (group_id, epoch, info, updated_at) VALUES (decode(repeat('ef', 32), 'hex'), -1, '\x01', now())`,
		`INSERT INTO mls_group_info (group_id, epoch, info, updated_at) VALUES (decode(repeat('ef', 32), 'hex'), 0, '', now())`,
		`INSERT INTO mls_group_info (group_id, epoch, info, updated_at) VALUES (decode(repeat('ef', 32), 'hex'), 0, decode(repeat('00', 65537), 'hex'), now())`,
		`INSERT INTO mls_group_info (group_id, epoch, info) VALUES (decode(repeat('ef', 32), 'hex'), 0, '\x01')`,
	} {
		if err := exec(sql); err == nil || !strings.Contains(err.Error(), "violat") {
			t.Errorf("%s: %v, want a constraint violation", sql, err)
		}
	}
	var storage string
	if err := pool.QueryRow(ctx, `SELECT attstorage FROM pg_attribute WHERE attrelid = 'mls_group_info'::regclass AND attname = 'info'`).Scan(&storage); err != nil {
		t.Fatal(err)
	}
	if storage != "e" {
		t.Errorf("mls_group_info.info storage %q, want e (external, uncompressed)", storage)
	}
}
