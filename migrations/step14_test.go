package migrations_test

import (
	"context"
	"strings"
	"testing"

	"relay/migrations"
)

// TestStep14Attachments: after 0014 an attachment has a 16-byte id, a
// positive size and part size, and an account that exists; its parts
// have an index from 0 and bytes, stored uncompressed, and go with the
// attachment, which goes with its account; a device it waits for exists. Each refusal has its control,
// which is accepted.
func TestStep14Attachments(t *testing.T) {
	pool := emptyDB(t)
	ctx := context.Background()
	if _, err := migrations.Apply(ctx, pool); err != nil {
		t.Fatal(err)
	}
	exec := func(sql string) error {
		_, err := pool.Exec(ctx, sql)
		return err
	}
	const att = `INSERT INTO attachments (id, account_id, size, part_size, created_at, expires_at) VALUES `
	for _, sql := range []string{
		`INSERT INTO accounts (username, password_hash, public_key) VALUES ('alice', 'h', '\x04')`,
		att + `(decode(repeat('ab', 16), 'hex'), 1, 1, 524288, now(), now())`,
		`INSERT INTO attachment_parts (attachment_id, n, data) VALUES (decode(repeat('ab', 16), 'hex'), 0, '\x01')`,
	} {
		if err := exec(sql); err != nil {
			t.Fatalf("%s: %v", sql, err)
		}
	}
	for _, sql := range []string{
		att + `(decode(repeat('cd', 15), 'hex'), 1, 1, 1, now(), now())`,
		att + `(decode(repeat('cd', 17), 'hex'), 1, 1, 1, now(), now())`,
		att + `(decode(repeat('cd', 16), 'hex'), 2, 1, 1, now(), now())`,
		att + `(decode(repeat('cd', 16), 'hex'), 1, 0, 1, now(), now())`,
		att + `(decode(repeat('cd', 16), 'hex'), 1, 1, 0, now(), now())`,
		att + `(decode(repeat('cd', 16), 'hex'), 1, 1, 1, now(), NULL)`,
		`INSERT INTO attachment_parts (attachment_id, n, data) VALUES (decode(repeat('ab', 16), 'hex'), -1, '\x01')`,
		`INSERT INTO attachment_parts (attachment_id, n, data) VALUES (decode(repeat('ab', 16), 'hex'), 1, '')`,
		`INSERT INTO attachment_parts (attachment_id, n, data) VALUES (decode(repeat('ab', 16), 'hex'), 0, '\x02')`,
		`INSERT INTO attachment_parts (attachment_id, n, data) VALUES (decode(repeat('ef', 16), 'hex'), 0, '\x01')`,
		`INSERT INTO attachment_fetches (attachment_id, device_id) VALUES (decode(repeat('ab', 16), 'hex'), 'no such device')`,
		`INSERT INTO attachment_fetches (attachment_id, device_id) VALUES (decode(repeat('ef', 16), 'hex'), 'no such device')`,
	} {
		if err := exec(sql); err == nil || !strings.Contains(err.Error(), "violat") {
			t.Errorf("%s: %v, want a constraint violation", sql, err)
		}
	}
	var storage string
	if err := pool.QueryRow(ctx, `SELECT attstorage FROM pg_attribute WHERE attrelid = 'attachment_parts'::regclass AND attname = 'data'`).Scan(&storage); err != nil {
		t.Fatal(err)
	}
	if storage != "e" {
		t.Errorf("attachment_parts.data storage %q, want e (external, uncompressed)", storage)
	}
	if err := exec(`DELETE FROM accounts WHERE id = 1`); err != nil {
		t.Fatal(err)
	}
	var n int
	if err := pool.QueryRow(ctx, `SELECT (SELECT count(*) FROM attachments) + (SELECT count(*) FROM attachment_parts)`).Scan(&n); err != nil {
		t.Fatal(err)
	}
	if n != 0 {
		t.Fatalf("%d rows left after the account's deletion", n)
	}
}
