package relay_test

import (
	"context"
	"fmt"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"

	"relay/devices"
	"relay/lifecycle"
	"relay/relayclient"
)

// naming counts, per table, the rows that name one of needles (an
// account id, a username, a device id) in any column of cols.
func (s *testServer) naming(t *testing.T, cols map[string][]string, needles []string) map[string]int {
	t.Helper()
	out := map[string]int{}
	for tb, cs := range cols {
		var conds []string
		for _, c := range cs {
			conds = append(conds, fmt.Sprintf("%s::text = ANY ($1)", pgx.Identifier{c}.Sanitize()))
		}
		out[tb] = s.count(t, fmt.Sprintf("SELECT count(*) FROM %s WHERE %s", pgx.Identifier{tb}.Sanitize(), strings.Join(conds, " OR ")), needles)
	}
	return out
}

// left is what a transition leaves of the rows that name someone in a
// table.
type left int

const (
	none  left = iota // there were none, and there are none
	kept              // every one is still there
	fewer             // some went, some are left
	gone              // there were some, and none is left
)

func (l left) String() string {
	if l < none || l > gone {
		return "more"
	}
	return [...]string{"none", "kept", "fewer", "gone"}[l]
}

func leftOf(before, after int) left {
	switch {
	case before == 0 && after == 0:
		return none
	case after == before:
		return kept
	case after == 0:
		return gone
	case after < before:
		return fewer
	}
	return -1 // more: no transition adds rows of whom it ends
}

// lifecycleSeeded are the tables the scenario of TestLifecycleTables puts
// rows of alice and bob in; lifecycleRelayOnly are the tables whose text
// names the relay, never an account (the VAPID key pair, the instances'
// random ids, ADR 0055, and the epoch's token, ADR 0086).
var (
	lifecycleSeeded    = []string{"accounts", "attachment_fetches", "attachments", "contacts", "devices", "key_packages", "push_subscriptions", "queue", "reports", "sent", "sessions"}
	lifecycleRelayOnly = []string{"push_vapid", "relay_epoch", "relay_instances"}
)

// TestLifecycleTables: each transition of package lifecycle, made as its
// caller makes it (the HTTP API for a device's revocation, a key
// replacement and a deletion; relay admin's way, without a hub, for
// disabling and ending sessions), leaves in every table of the schema
// that can name an account or a device exactly what it should of the
// device it ends, of its account, of the account's other device and of
// another account (bob, who wrote to alice and was written to). A table
// the schema gains fails here until each transition says what it leaves
// there.
func TestLifecycleTables(t *testing.T) {
	type views map[string]map[string]left // who → table → what is left
	// Tables not named in a view are none for it.
	cases := []struct {
		name string
		do   func(t *testing.T, s *testServer, alice *user)
		want views
	}{
		{"revoke device", func(t *testing.T, s *testServer, alice *user) {
			if err := alice.device(0).Revoke(context.Background(), alice.Devices[1]); err != nil {
				t.Fatal(err)
			}
		}, views{
			"the device": {"attachment_fetches": gone, "devices": kept, "queue": gone, "push_subscriptions": gone, "key_packages": gone},
			"the other":  {"attachment_fetches": kept, "devices": kept, "queue": kept, "push_subscriptions": kept, "key_packages": kept},
			"alice":      {"attachment_fetches": fewer, "attachments": kept, "accounts": kept, "sessions": kept, "devices": kept, "contacts": kept, "reports": kept, "queue": fewer, "sent": kept, "push_subscriptions": fewer, "key_packages": fewer},
			"bob":        {"attachment_fetches": kept, "attachments": kept, "accounts": kept, "sessions": kept, "devices": kept, "contacts": kept, "reports": kept, "queue": fewer, "sent": kept, "push_subscriptions": kept, "key_packages": kept},
		}},
		{"replace key", func(t *testing.T, s *testServer, alice *user) {
			if _, err := alice.device(0).ReplaceKey(context.Background(), password, newKey(t), []string{alice.Devices[1]}, nil); err != nil {
				t.Fatal(err)
			}
			// Every key package of the account goes: the old key
			// certified their credentials.
		}, views{
			"the device": {"attachment_fetches": gone, "devices": kept, "queue": gone, "push_subscriptions": gone, "key_packages": gone},
			"the other":  {"attachment_fetches": kept, "devices": kept, "queue": kept, "push_subscriptions": kept, "key_packages": gone},
			"alice":      {"attachment_fetches": fewer, "attachments": kept, "accounts": kept, "sessions": kept, "devices": kept, "contacts": kept, "reports": kept, "queue": fewer, "sent": kept, "push_subscriptions": fewer, "key_packages": gone},
			"bob":        {"attachment_fetches": kept, "attachments": kept, "accounts": kept, "sessions": kept, "devices": kept, "contacts": kept, "reports": kept, "queue": fewer, "sent": kept, "push_subscriptions": kept, "key_packages": kept},
		}},
		{"delete account", func(t *testing.T, s *testServer, alice *user) {
			if err := alice.device(0).DeleteAccount(context.Background(), password); err != nil {
				t.Fatal(err)
			}
		}, views{
			"the device": {"attachment_fetches": gone, "devices": gone, "queue": gone, "push_subscriptions": gone, "key_packages": gone},
			"the other":  {"attachment_fetches": gone, "devices": gone, "queue": gone, "push_subscriptions": gone, "key_packages": gone},
			"alice":      {"attachment_fetches": gone, "attachments": gone, "accounts": gone, "sessions": gone, "devices": gone, "contacts": gone, "reports": gone, "queue": gone, "sent": gone, "push_subscriptions": gone, "key_packages": gone},
			// bob keeps his own rows; those that named alice went.
			"bob": {"attachment_fetches": gone, "attachments": kept, "accounts": kept, "sessions": kept, "devices": kept, "contacts": gone, "reports": gone, "queue": gone, "sent": gone, "push_subscriptions": kept, "key_packages": kept},
		}},
		{"disable account", func(t *testing.T, s *testServer, alice *user) {
			if _, err := s.adminTransitions(t).SetDisabled(context.Background(), alice.Name, true); err != nil {
				t.Fatal(err)
			}
			if n := s.count(t, `SELECT count(*) FROM accounts WHERE username = $1 AND disabled_at IS NOT NULL`, alice.Name); n != 1 {
				t.Fatalf("alice is not disabled")
			}
		}, views{
			"the device": {"attachment_fetches": kept, "devices": kept, "queue": kept, "push_subscriptions": kept, "key_packages": kept},
			"the other":  {"attachment_fetches": kept, "devices": kept, "queue": kept, "push_subscriptions": kept, "key_packages": kept},
			"alice":      {"attachment_fetches": kept, "attachments": kept, "accounts": kept, "sessions": kept, "devices": kept, "contacts": kept, "reports": kept, "queue": kept, "sent": kept, "push_subscriptions": kept, "key_packages": kept},
			"bob":        {"attachment_fetches": kept, "attachments": kept, "accounts": kept, "sessions": kept, "devices": kept, "contacts": kept, "reports": kept, "queue": kept, "sent": kept, "push_subscriptions": kept, "key_packages": kept},
		}},
		{"revoke sessions", func(t *testing.T, s *testServer, alice *user) {
			if _, _, err := s.adminTransitions(t).RevokeSessions(context.Background(), alice.Name); err != nil {
				t.Fatal(err)
			}
		}, views{
			"the device": {"attachment_fetches": kept, "devices": kept, "queue": kept, "push_subscriptions": kept, "key_packages": kept},
			"the other":  {"attachment_fetches": kept, "devices": kept, "queue": kept, "push_subscriptions": kept, "key_packages": kept},
			"alice":      {"attachment_fetches": kept, "attachments": kept, "accounts": kept, "sessions": gone, "devices": kept, "contacts": kept, "reports": kept, "queue": kept, "sent": kept, "push_subscriptions": kept, "key_packages": kept},
			"bob":        {"attachment_fetches": kept, "attachments": kept, "accounts": kept, "sessions": kept, "devices": kept, "contacts": kept, "reports": kept, "queue": kept, "sent": kept, "push_subscriptions": kept, "key_packages": kept},
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s := newTestServer(t)
			ctx := context.Background()
			alice := s.register(t, "alice", 3)
			bob := s.register(t, "bob", 1)
			// alice's device 0 speaks; device 1 is the one a revocation
			// ends and writes nothing, so that every row naming it is one
			// the transition decides about; device 2 is the other one.
			s.send(t, bob.device(0), "alice", "to alice")
			s.send(t, alice.device(0), "bob", "to bob")
			for _, d := range append(slices.Clone(alice.Devices), bob.Devices...) {
				if _, err := s.Pool.Exec(ctx, `INSERT INTO push_subscriptions (device_id, endpoint, p256dh, auth) VALUES ($1, 'https://push.example/'||$1, '\x04', '\x01')`, d); err != nil {
					t.Fatal(err)
				}
				// One one-time and one last-resort key package each.
				if _, err := s.Pool.Exec(ctx, `INSERT INTO key_packages (device_id, last_resort, data) VALUES ($1, false, '\x01'), ($1, true, '\x02')`, d); err != nil {
					t.Fatal(err)
				}
			}
			// An attachment each, uploaded by alice's speaking device: it is
			// the account's, not the device's. Each waits for the other's
			// devices and its account's others: alice's for her devices 1
			// and 2 and bob's, bob's for alice's three.
			for _, up := range []struct {
				c  *relayclient.Client
				to string
			}{{alice.device(0), "bob"}, {bob.device(0), "alice"}} {
				a, err := up.c.CreateAttachment(ctx, 10)
				if err != nil {
					t.Fatal(err)
				}
				if err := up.c.PutAttachmentPart(ctx, a.ID, 0, []byte("ciphertext")); err != nil {
					t.Fatal(err)
				}
				if _, err := up.c.FinishAttachmentFor(ctx, a.ID, []string{up.to}); err != nil {
					t.Fatal(err)
				}
			}
			// A report each: alice about bob, bob about alice (ADR 0118).
			for _, r := range []struct {
				from  *user
				about string
			}{{alice, "bob"}, {bob, "alice"}} {
				if err := r.from.device(0).FileReport(ctx, newReport(r.about, msg(r.about, 1, "reported"))); err != nil {
					t.Fatal(err)
				}
			}
			cols := s.accountColumns(t)
			for tb := range cols {
				if !slices.Contains(lifecycleSeeded, tb) && !slices.Contains(lifecycleRelayOnly, tb) {
					t.Errorf("table %s can name an account or a device, and this test puts no row in it: seed it, and say what each transition leaves in it", tb)
				}
			}
			for _, tb := range lifecycleSeeded {
				if _, ok := cols[tb]; !ok {
					t.Errorf("table %s names no account any more: take it out of lifecycleSeeded", tb)
				}
			}
			accountOf := func(u *user) []string {
				return append([]string{u.Name, fmt.Sprint(s.accountID(t, u.Name))}, u.Devices...)
			}
			who := map[string][]string{
				"the device": {alice.Devices[1]},
				"the other":  {alice.Devices[2]},
				"alice":      accountOf(alice),
				"bob":        accountOf(bob),
			}
			before := map[string]map[string]int{}
			for w, needles := range who {
				before[w] = s.naming(t, cols, needles)
			}
			c.do(t, s, alice)
			names := make([]string, 0, len(who))
			for w := range who {
				names = append(names, w)
			}
			sort.Strings(names)
			for _, w := range names {
				after := s.naming(t, cols, who[w])
				for tb := range cols {
					want := c.want[w][tb] // none when not named
					if got := leftOf(before[w][tb], after[tb]); got != want {
						t.Errorf("%s in %s: %s (%d rows before, %d after), want %s", w, tb, got, before[w][tb], after[tb], want)
					}
				}
			}
		})
	}
}

// adminTransitions are the transitions as relay admin makes them: its own
// store, and no hub.
func (s *testServer) adminTransitions(t *testing.T) *lifecycle.Transitions {
	t.Helper()
	store, err := devices.NewStore(s.Pool, devices.Config{})
	if err != nil {
		t.Fatal(err)
	}
	return lifecycle.New(s.Pool, store, nil)
}
