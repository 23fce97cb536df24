package migrations_test

import (
	"context"
	"strings"
	"testing"

	"relay/migrations"
)

// TestStep12MLSTables: after 0012 a device has at most one last-resort
// key package but many one-time ones, its packages go with its row, their
// bytes are stored uncompressed like the queue's bodies, and a group id
// is 1 to 256 bytes. Each refusal has its control, which is accepted.
func TestStep12MLSTables(t *testing.T) {
	pool := emptyDB(t)
	ctx := context.Background()
	if _, err := migrations.Apply(ctx, pool); err != nil {
		t.Fatal(err)
	}
	exec := func(sql string) error {
		_, err := pool.Exec(ctx, sql)
		return err
	}
	for _, sql := range []string{
		`INSERT INTO accounts (username, password_hash, public_key) VALUES ('alice', 'x', '\x04')`,
		`INSERT INTO devices (id, account_id, name, public_key) VALUES ('d', 1, 'a', '\x04')`,
		`INSERT INTO key_packages (device_id, last_resort, data) VALUES ('d', false, '\x01'), ('d', false, '\x02'), ('d', true, '\x03')`,
		`INSERT INTO mls_groups (group_id, epoch) VALUES ('\x01', 0), (decode(repeat('ab', 256), 'hex'), 7)`,
	} {
		if err := exec(sql); err != nil {
			t.Fatalf("%s: %v", sql, err)
		}
	}
	for _, sql := range []string{
		`INSERT INTO key_packages (device_id, last_resort, data) VALUES ('d', true, '\x04')`,
		`INSERT INTO key_packages (device_id, last_resort, data) VALUES ('nobody', false, '\x04')`,
		`INSERT INTO mls_groups (group_id, epoch) VALUES ('', 0)`,
		`INSERT INTO mls_groups (group_id, epoch) VALUES (decode(repeat('ab', 257), 'hex'), 0)`,
		`INSERT INTO mls_groups (group_id, epoch) VALUES ('\x02', -1)`,
	} {
		if err := exec(sql); err == nil || !strings.Contains(err.Error(), "violat") {
			t.Errorf("%s: %v, want a constraint violation", sql, err)
		}
	}
	var storage string
	if err := pool.QueryRow(ctx, `SELECT attstorage FROM pg_attribute WHERE attrelid = 'key_packages'::regclass AND attname = 'data'`).Scan(&storage); err != nil {
		t.Fatal(err)
	}
	if storage != "e" {
		t.Errorf("key_packages.data storage %q, want e (external, uncompressed)", storage)
	}
	if err := exec(`DELETE FROM devices WHERE id = 'd'`); err != nil {
		t.Fatal(err)
	}
	var n int
	if err := pool.QueryRow(ctx, `SELECT count(*) FROM key_packages`).Scan(&n); err != nil || n != 0 {
		t.Fatalf("%d key packages outlive their device (%v)", n, err)
	}
}
