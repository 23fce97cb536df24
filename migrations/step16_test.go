package migrations_test

import (
	"context"
	"strings"
	"testing"

	"relay/migrations"
)

// TestStep16Reports: after 0016 a report names two accounts that exist
// and differ, the client's id once per reporter, one of four reasons, a
// comment of at most 1,000 characters and an array of 1 to 50 messages;
// a note only once resolved; it goes with either account. Each refusal
// has its control, which is accepted.
func TestStep16Reports(t *testing.T) {
	pool := emptyDB(t)
	ctx := context.Background()
	if _, err := migrations.Apply(ctx, pool); err != nil {
		t.Fatal(err)
	}
	exec := func(sql string) error {
		_, err := pool.Exec(ctx, sql)
		return err
	}
	count := func(sql string) int {
		t.Helper()
		var n int
		if err := pool.QueryRow(ctx, sql).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	const (
		ins  = `INSERT INTO reports (reporter_id, about_id, client_id, reason, comment, messages, created_at, resolved_at, note) VALUES `
		id   = `'01JBZ5GQ7N0000000000000000'`
		msgs = `'[{"id":"01JBZ5GQ7N0000000000000001","from":"bob","at":1,"text":"x"}]'`
	)
	for _, sql := range []string{
		`INSERT INTO accounts (username, password_hash, public_key) VALUES ('alice', 'h', '\x04'), ('bob', 'h', '\x04'), ('carol', 'h', '\x04')`,
		ins + `(1, 2, ` + id + `, 'spam', '', ` + msgs + `, now(), NULL, '')`,
		// The same id from another reporter.
		ins + `(3, 2, ` + id + `, 'other', '` + strings.Repeat("é", 1000) + `', ` + msgs + `, now(), now(), 'warned')`,
		ins + `(1, 3, '7ZZZZZZZZZZZZZZZZZZZZZZZZZ', 'illegal', '', (SELECT jsonb_agg(x) FROM generate_series(1, 50) x), now(), NULL, '')`,
		`INSERT INTO reports (reporter_id, about_id, client_id, reason, messages, created_at) VALUES (2, 1, ` + id + `, 'harassment', ` + msgs + `, now())`,
	} {
		if err := exec(sql); err != nil {
			t.Fatalf("%s: %v", sql, err)
		}
	}
	for _, sql := range []string{
		ins + `(1, 2, ` + id + `, 'spam', '', ` + msgs + `, now(), NULL, '')`,                   // the id again
		ins + `(1, 1, '01JBZ5GQ7N0000000000000009', 'spam', '', ` + msgs + `, now(), NULL, '')`, // oneself
		ins + `(1, 9, '01JBZ5GQ7N0000000000000009', 'spam', '', ` + msgs + `, now(), NULL, '')`, // nobody
		ins + `(1, 2, '01jbz5gq7n0000000000000009', 'spam', '', ` + msgs + `, now(), NULL, '')`,
		ins + `(1, 2, '81JBZ5GQ7N0000000000000009', 'spam', '', ` + msgs + `, now(), NULL, '')`,
		ins + `(1, 2, '01JBZ5GQ7N000000000000009', 'spam', '', ` + msgs + `, now(), NULL, '')`,
		ins + `(1, 2, '01JBZ5GQ7N0000000000000009', 'rude', '', ` + msgs + `, now(), NULL, '')`,
		ins + `(1, 2, '01JBZ5GQ7N0000000000000009', 'spam', '` + strings.Repeat("é", 1001) + `', ` + msgs + `, now(), NULL, '')`,
		ins + `(1, 2, '01JBZ5GQ7N0000000000000009', 'spam', '', '[]', now(), NULL, '')`,
		ins + `(1, 2, '01JBZ5GQ7N0000000000000009', 'spam', '', '{"id":1}', now(), NULL, '')`,
		ins + `(1, 2, '01JBZ5GQ7N0000000000000009', 'spam', '', (SELECT jsonb_agg(x) FROM generate_series(1, 51) x), now(), NULL, '')`,
		ins + `(1, 2, '01JBZ5GQ7N0000000000000009', 'spam', '', ` + msgs + `, now(), NULL, 'a note while open')`,
		ins + `(1, 2, '01JBZ5GQ7N0000000000000009', 'spam', NULL, ` + msgs + `, now(), NULL, '')`,
		ins + `(1, 2, '01JBZ5GQ7N0000000000000009', 'spam', '', ` + msgs + `, NULL, NULL, '')`,
		`UPDATE reports SET resolved_at = NULL WHERE note <> ''`,
	} {
		if err := exec(sql); err == nil || !strings.Contains(err.Error(), "violat") {
			t.Errorf("%s: %v, want a constraint violation", sql, err)
		}
	}
	// bob's deletion takes the reports about him and the one he filed;
	// the one about carol stays.
	if err := exec(`DELETE FROM accounts WHERE username = 'bob'`); err != nil {
		t.Fatal(err)
	}
	if n := count(`SELECT count(*) FROM reports`); n != 1 {
		t.Errorf("%d reports after bob's deletion, want 1 (alice's about carol)", n)
	}
	if err := exec(`DELETE FROM accounts WHERE username = 'alice'`); err != nil {
		t.Fatal(err)
	}
	if n := count(`SELECT count(*) FROM reports`); n != 0 {
		t.Errorf("%d reports after alice's deletion, want 0", n)
	}
}
