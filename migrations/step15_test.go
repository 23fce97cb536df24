package migrations_test

import (
	"context"
	"strings"
	"testing"

	"relay/migrations"
)

// TestStep15Invites: after 0015 an invite is stored by a 32-byte hash,
// once; its uses are 1 or more and what is spent of them 0 to all; it
// expires after it was made, or never. Each refusal has its control,
// which is accepted, and the last use of a code is a constraint of the
// table as well as of the statement that spends it.
func TestStep15Invites(t *testing.T) {
	pool := emptyDB(t)
	ctx := context.Background()
	if _, err := migrations.Apply(ctx, pool); err != nil {
		t.Fatal(err)
	}
	exec := func(sql string) error {
		_, err := pool.Exec(ctx, sql)
		return err
	}
	const hash = `decode(repeat('ab', 32), 'hex')`
	for _, sql := range []string{
		`INSERT INTO invites (code_hash, uses, created_at) VALUES (` + hash + `, 1, now())`,
		`INSERT INTO invites (code_hash, uses, used, created_at, expires_at) VALUES (decode(repeat('cd', 32), 'hex'), 3, 3, now(), now() + interval '1 hour')`,
		`UPDATE invites SET used = used + 1 WHERE code_hash = ` + hash,
	} {
		if err := exec(sql); err != nil {
			t.Fatalf("%s: %v", sql, err)
		}
	}
	for _, sql := range []string{
		`INSERT INTO invites (code_hash, uses, created_at) VALUES (` + hash + `, 1, now())`,
		`INSERT INTO invites (code_hash, uses, created_at) VALUES (decode(repeat('ef', 31), 'hex'), 1, now())`,
		`INSERT INTO invites (code_hash, uses, created_at) VALUES (decode(repeat('ef', 33), 'hex'), 1, now())`,
		`INSERT INTO invites (code_hash, uses, created_at) VALUES (decode(repeat('ef', 32), 'hex'), 0, now())`,
		`INSERT INTO invites (code_hash, uses, used, created_at) VALUES (decode(repeat('ef', 32), 'hex'), 1, -1, now())`,
		`INSERT INTO invites (code_hash, uses, created_at, expires_at) VALUES (decode(repeat('ef', 32), 'hex'), 1, now(), now())`,
		`INSERT INTO invites (code_hash, uses) VALUES (decode(repeat('ef', 32), 'hex'), 1)`,
		`UPDATE invites SET used = used + 1 WHERE code_hash = ` + hash,
	} {
		if err := exec(sql); err == nil || !strings.Contains(err.Error(), "violat") {
			t.Errorf("%s: %v, want a constraint violation", sql, err)
		}
	}
}
