package migrations_test

import (
	"context"
	"testing"

	"relay/migrations"
)

// TestStep11LeavesSubscriptionsNotDue: 0011 gives the subscriptions that
// exist when it runs no wake-up due (wake_seq = pushed_seq), so that an
// upgrade does not push every subscribed device at once (ADR 0087).
func TestStep11LeavesSubscriptionsNotDue(t *testing.T) {
	pool := emptyDB(t)
	ctx := context.Background()
	steps, _ := migrations.Steps()
	for _, s := range steps {
		if s.Version == 11 {
			if _, err := pool.Exec(ctx, `
				INSERT INTO accounts (username, password_hash, public_key) VALUES ('alice', 'x', '\x04');
				INSERT INTO devices (id, account_id, name, public_key, seq) VALUES ('d', 1, 'a', '\x04', 7);
				INSERT INTO queue (device_id, seq, envelope_id, from_username, from_device, to_username, ts, body)
				VALUES ('d', 7, 'e', 'bob', 'x', 'alice', 0, '\x00');
				INSERT INTO push_subscriptions (device_id, endpoint, p256dh, auth) VALUES ('d', 'https://p.example/d', '\x04', '\x00')`); err != nil {
				t.Fatal(err)
			}
		}
		if _, err := pool.Exec(ctx, s.SQL); err != nil {
			t.Fatalf("%s: %v", s.Name, err)
		}
		if s.Version == 11 {
			break
		}
	}
	var due bool
	if err := pool.QueryRow(ctx, `SELECT wake_seq > pushed_seq FROM push_subscriptions WHERE device_id = 'd'`).Scan(&due); err != nil {
		t.Fatal(err)
	}
	if due {
		t.Fatal("a subscription made before 0011 is due a push after it")
	}
}
