package relay_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"relay/queue"
	"relay/relayclient"
)

// accountColumns lists, from the schema, every column that can name an
// account: the columns with a foreign key to accounts or devices, every
// text column (usernames and device ids are text), and accounts.id. A new
// table with such a column is found here without anyone listing it.
func (s *testServer) accountColumns(t *testing.T) map[string][]string {
	t.Helper()
	rows, err := s.Pool.Query(context.Background(), `
		SELECT c.relname, a.attname FROM pg_class c
		JOIN pg_namespace n ON n.oid = c.relnamespace AND n.nspname = 'public'
		JOIN pg_attribute a ON a.attrelid = c.oid AND a.attnum > 0 AND NOT a.attisdropped
		WHERE c.relkind = 'r' AND c.relname <> 'schema_migrations'
		  AND (a.atttypid IN ('text'::regtype, 'varchar'::regtype)
		    OR (c.relname = 'accounts' AND a.attname = 'id')
		    OR EXISTS (SELECT 1 FROM pg_constraint k
		      WHERE k.contype = 'f' AND k.conrelid = c.oid AND a.attnum = ANY (k.conkey)
		        AND k.confrelid IN ('accounts'::regclass, 'devices'::regclass)))
		ORDER BY 1, 2`)
	if err != nil {
		t.Fatal(err)
	}
	cols := map[string][]string{}
	for rows.Next() {
		var tb, col string
		if err := rows.Scan(&tb, &col); err != nil {
			t.Fatal(err)
		}
		cols[tb] = append(cols[tb], col)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return cols
}

// rowsOf counts, per table, the rows that name u: its account id, its
// username or one of its device ids, in any column accountColumns found.
func (s *testServer) rowsOf(t *testing.T, cols map[string][]string, id int64, u *user) map[string]int {
	t.Helper()
	needles := append([]string{u.Name}, u.Devices...)
	out := map[string]int{}
	for tb, cs := range cols {
		var conds []string
		for _, c := range cs {
			conds = append(conds, fmt.Sprintf("%s::text = ANY ($1)", pgx.Identifier{c}.Sanitize()))
		}
		n := s.count(t, fmt.Sprintf("SELECT count(*) FROM %s WHERE %s", pgx.Identifier{tb}.Sanitize(), strings.Join(conds, " OR ")),
			append(needles, fmt.Sprint(id)))
		out[tb] = n
	}
	return out
}

func (s *testServer) accountID(t *testing.T, name string) int64 {
	t.Helper()
	var id int64
	if err := s.Pool.QueryRow(context.Background(), `SELECT id FROM accounts WHERE username = $1`, name).Scan(&id); err != nil {
		t.Fatal(err)
	}
	return id
}

// TestDeleteAccount: alice, with two devices streaming, a recovery blob,
// contacts, envelopes queued both ways and idempotency records, deletes
// her account. Both streams end with event: deleted; for every table of
// the schema that can name an account, her rows were there before and
// none is left after, while bob's and carol's are untouched; her name
// is held: a lookup is 410 account_deleted, a registration 409
// username_held, a send to her 410; once the hold has passed, the name
// is free and a lookup answers the new owner's key.
func TestDeleteAccount(t *testing.T) {
	s := newTestServer(t)
	ctx := context.Background()
	alice := s.register(t, "alice", 2)
	bob := s.register(t, "bob", 1)
	carol := s.register(t, "carol", 1)
	if err := alice.Client.PutRecovery(ctx, []byte("wrapped account key")); err != nil {
		t.Fatal(err)
	}
	s.send(t, bob.device(0), "alice", "to alice")     // queued for alice's devices
	s.send(t, alice.device(0), "bob", "from alice")   // queued for bob's device
	s.send(t, alice.device(0), "alice", "to herself") // her own queue
	s.send(t, carol.device(0), "bob", "from carol")   // stays

	cols := s.accountColumns(t)
	// The tables this test puts rows of alice in. A new table that can
	// name an account fails here until the test gives it rows too, so
	// that the deletion is checked on it.
	seeded := []string{"accounts", "contacts", "devices", "queue", "sent", "sessions", "push_subscriptions", "key_packages", "attachments", "attachment_fetches", "reports"}
	// Tables whose text names the relay, never an account: its VAPID key
	// pair, its instances' random ids (ADR 0055) and its epoch's token
	// (ADR 0086).
	relayOnly := []string{"push_vapid", "relay_instances", "relay_epoch"}
	if _, err := s.Pool.Exec(ctx, `INSERT INTO push_subscriptions (device_id, endpoint, p256dh, auth) VALUES ($1, 'https://push.example/a', '\x04', '\x01')`, alice.Devices[0]); err != nil {
		t.Fatal(err)
	}
	for _, c := range []*relayclient.Client{alice.device(0), bob.device(0)} {
		if _, err := c.PublishKeyPackages(ctx, [][]byte{[]byte("one-time")}, []byte("last resort")); err != nil {
			t.Fatal(err)
		}
	}
	// An attachment of each, finished, and one of alice's unfinished:
	// attachment_parts names no account, and is counted below. Alice's
	// waits for her other device and bob's.
	photo, err := alice.device(0).CreateAttachment(ctx, 5)
	if err != nil {
		t.Fatal(err)
	}
	if err := alice.device(0).PutAttachmentPart(ctx, photo.ID, 0, []byte("photo")); err != nil {
		t.Fatal(err)
	}
	if _, err := alice.device(0).FinishAttachmentFor(ctx, photo.ID, []string{"bob"}); err != nil {
		t.Fatal(err)
	}
	if _, err := alice.device(1).CreateAttachment(ctx, 10); err != nil {
		t.Fatal(err)
	}
	bobPhoto, err := bob.device(0).UploadAttachment(ctx, []byte("bob's photo"))
	if err != nil {
		t.Fatal(err)
	}
	// alice reports bob, and so does carol: hers stays (ADR 0118).
	for _, c := range []*relayclient.Client{alice.device(0), carol.device(0)} {
		if err := c.FileReport(ctx, newReport("bob", msg("bob", 1, "reported"))); err != nil {
			t.Fatal(err)
		}
	}
	for tb := range cols {
		if !slices.Contains(seeded, tb) && !slices.Contains(relayOnly, tb) {
			t.Errorf("table %s can name an account, and this test puts no row of alice in it: seed it, and make the deletion delete it", tb)
		}
	}
	id := s.accountID(t, "alice")
	before := s.rowsOf(t, cols, id, alice)
	bobBefore := s.rowsOf(t, cols, s.accountID(t, "bob"), bob)

	streams := []*follower{follow(t, alice.device(0), ""), follow(t, alice.device(1), "")}
	for _, f := range streams {
		if e := f.next(t); e.Name != "envelope" {
			t.Fatalf("got %+v, want the queued envelope", e)
		}
	}
	for _, f := range streams {
		for e := f.next(t); e.Name != "ready"; e = f.next(t) {
		}
	}
	if err := alice.device(0).DeleteAccount(ctx, password); err != nil {
		t.Fatal(err)
	}
	for i, f := range streams {
		if e := f.next(t); e.Name != "deleted" {
			t.Fatalf("stream %d got %+v, want deleted", i, e)
		}
		if err := f.expectEnd(t); !errors.Is(err, relayclient.ErrStreamEnded) {
			t.Fatalf("stream %d ended with %v", i, err)
		}
	}

	after := s.rowsOf(t, cols, id, alice)
	for tb := range cols {
		t.Run(tb, func(t *testing.T) {
			if slices.Contains(seeded, tb) && before[tb] == 0 {
				t.Fatalf("no row of alice in %s before the deletion: the check below proves nothing", tb)
			}
			if after[tb] != 0 {
				t.Fatalf("%d rows of alice left in %s (%d before)", after[tb], tb, before[tb])
			}
		})
	}
	if n := s.count(t, `SELECT count(*) FROM accounts WHERE recovery_blob IS NOT NULL`); n != 0 {
		t.Fatalf("%d recovery blobs left", n)
	}
	// Her attachment's part went with it; bob's stays, and reads.
	if n := s.count(t, `SELECT count(*) FROM attachment_parts`); n != 1 {
		t.Fatalf("%d attachment parts left, want bob's one", n)
	}
	if b, err := bob.device(0).ReadAttachment(ctx, bobPhoto.ID); err != nil || string(b) != "bob's photo" {
		t.Fatalf("bob's attachment after alice's deletion: %q, %v", b, err)
	}
	// bob lost only alice's envelope, her contact row and her report
	// about him; carol's stay.
	bobAfter := s.rowsOf(t, cols, s.accountID(t, "bob"), bob)
	if bobAfter["queue"] != 1 || bobAfter["accounts"] != bobBefore["accounts"] || bobAfter["sessions"] != bobBefore["sessions"] ||
		bobAfter["contacts"] != 2 || bobAfter["key_packages"] != 2 || bobAfter["reports"] != 1 {
		t.Fatalf("bob's rows before %v, after %v", bobBefore, bobAfter)
	}

	_, err = bob.Client.Lookup(ctx, "alice")
	wantCode(t, err, "account_deleted")
	var re *relayclient.Error
	if !errors.As(err, &re) || re.Status != http.StatusGone {
		t.Fatalf("lookup of a deleted account: %v, want 410", err)
	}
	_, err = bob.device(0).Send(ctx, s.newID(), "alice", []byte("x"))
	wantCode(t, err, "account_deleted")
	_, err = alice.device(0).Send(ctx, s.newID(), "bob", []byte("x"))
	wantCode(t, err, "unauthenticated")
	// Control: a name that never existed is still unknown_account.
	_, err = bob.Client.Lookup(ctx, "nobody")
	wantCode(t, err, "unknown_account")

	again := relayclient.New(s.URL)
	err = again.Register(ctx, "alice", password, newKey(t))
	wantCode(t, err, "username_held")
	s.Clock.Advance(30*24*time.Hour - time.Minute)
	err = again.Register(ctx, "alice", password, newKey(t))
	wantCode(t, err, "username_held")

	s.Clock.Advance(2 * time.Minute)
	if _, err := bob.Client.Login(ctx, "bob", password); err != nil { // his session has expired too
		t.Fatal(err)
	}
	key := newKey(t)
	if err := again.Register(ctx, "alice", password, key); err != nil {
		t.Fatalf("the name after its hold: %v", err)
	}
	acc, err := bob.Client.Lookup(ctx, "alice")
	if err != nil || b64(acc.PublicKey) != b64(key) {
		t.Fatalf("lookup of the new alice: %v", err)
	}
	if n := s.count(t, `SELECT count(*) FROM contacts WHERE account_id = $1`, s.accountID(t, "alice")); n != 0 {
		t.Fatalf("the new alice inherited %d contacts", n)
	}
}

// TestDeleteAccountCheckOrder: DELETE /api/account's checks in the
// documented order, each case failing every later check too. None of them
// changes anything: alice's rows are all there afterwards, and her
// session still works.
func TestDeleteAccountCheckOrder(t *testing.T) {
	s := newTestServer(t)
	alice := s.register(t, "alice", 1)
	bob := s.register(t, "bob", 1)
	s.send(t, bob.device(0), "alice", "queued")
	cols := s.accountColumns(t)
	id := s.accountID(t, "alice")
	before := s.rowsOf(t, cols, id, alice)
	dev := alice.Devices[0]
	as := func(dev string) map[string]string { return map[string]string{"Origin": s.URL, "X-Device": dev} }
	anon := relayclient.New(s.URL)
	wrong := map[string]string{"password": "wrong password"}
	for _, tc := range []struct {
		name   string
		client *relayclient.Client
		header map[string]string
		body   any
		code   string
	}{
		{"origin first", anon, map[string]string{"X-Device": dev}, `{`, "origin_required"},
		{"origin allowed", alice.Client, map[string]string{"Origin": "https://evil.example", "X-Device": dev}, `{`, "origin_forbidden"},
		{"session", anon, as(dev), `{`, "unauthenticated"},
		{"X-Device", alice.Client, map[string]string{"Origin": s.URL}, `{`, "device_required"},
		{"foreign X-Device", alice.Client, as(bob.Devices[0]), `{`, "device_forbidden"},
		{"size", alice.Client, as(dev), `{"password":"` + strings.Repeat("a", 20<<10) + `"}`, "too_large"},
		{"JSON", alice.Client, as(dev), `{"password": "a", "password": "b"}`, "bad_json"},
		{"type", alice.Client, as(dev), `{"password": 5}`, "bad_json"},
		{"no password", alice.Client, as(dev), `{}`, "bad_credentials"},
		{"wrong password", alice.Client, as(dev), wrong, "bad_credentials"},
		{"too long a password", alice.Client, as(dev), map[string]string{"password": strings.Repeat("a", 1025)}, "bad_credentials"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a := raw(t, tc.client, "DELETE", "/api/account", tc.header, tc.body)
			if a.code() != tc.code {
				t.Fatalf("got %d %s, want %s", a.Status, a.Raw, tc.code)
			}
		})
	}
	if after := s.rowsOf(t, cols, id, alice); fmt.Sprint(after) != fmt.Sprint(before) {
		t.Fatalf("a refused deletion changed alice's rows: before %v, after %v", before, after)
	}
	if _, err := alice.Client.Lookup(context.Background(), "alice"); err != nil {
		t.Fatalf("alice's session after the refusals: %v", err)
	}
	// Control: the same request with the password deletes.
	if a := raw(t, alice.Client, "DELETE", "/api/account", as(dev), map[string]string{"password": password}); a.Status != http.StatusNoContent {
		t.Fatalf("deletion: %d %s", a.Status, a.Raw)
	}
	// Deleting twice: the session went with the account.
	if a := raw(t, alice.Client, "DELETE", "/api/account", as(dev), map[string]string{"password": password}); a.code() != "unauthenticated" {
		t.Fatalf("second deletion: %d %s", a.Status, a.Raw)
	}
}

// TestDeleteAccountThrottled: the password check runs under the login
// throttles: past the per-username budget a deletion is 429
// too_many_attempts with Retry-After even with the right password, and
// nothing is deleted; the budget is the one logins of the same name take.
func TestDeleteAccountThrottled(t *testing.T) {
	s := newTestServer(t, withAuthRates(10000, 3))
	ctx := context.Background()
	alice := s.register(t, "alice", 1)
	for i := 0; i < 2; i++ {
		err := alice.device(0).DeleteAccount(ctx, "wrong password")
		wantCode(t, err, "bad_credentials")
	}
	// The third token goes to a login of the same name.
	if _, err := relayclient.New(s.URL).Login(ctx, "alice", "wrong password"); relayclient.Code(err) != "bad_credentials" {
		t.Fatalf("login: %v", err)
	}
	err := alice.device(0).DeleteAccount(ctx, password)
	wantCode(t, err, "too_many_attempts")
	var re *relayclient.Error
	if !errors.As(err, &re) || re.RetryAfter <= 0 {
		t.Fatalf("no Retry-After: %v", err)
	}
	if n := s.count(t, `SELECT count(*) FROM accounts WHERE username = 'alice'`); n != 1 {
		t.Fatal("a throttled deletion deleted")
	}
	s.Clock.Advance(time.Minute)
	if err := alice.device(0).DeleteAccount(ctx, password); err != nil {
		t.Fatalf("after the throttle: %v", err)
	}
}

// TestDeleteWhileSending: alice's two devices send as fast as they can,
// to bob and to herself, while her third deletes the account. Every send
// is accepted before the deletion or refused after it with 401
// unauthenticated or 410 account_deleted, never a 5xx; and whatever was
// accepted, nothing of alice is left, in bob's queue either.
func TestDeleteWhileSending(t *testing.T) {
	s := newTestServer(t)
	ctx := context.Background()
	alice := s.register(t, "alice", 3)
	bob := s.register(t, "bob", 1)
	cols := s.accountColumns(t)
	id := s.accountID(t, "alice")
	stop := make(chan struct{})
	var wg sync.WaitGroup
	var mu sync.Mutex // guards accepted, refusals
	accepted := 0
	refusals := map[string]int{}
	started := make(chan struct{}, 2)
	for i, to := range []string{"bob", "alice"} {
		wg.Go(func() {
			c := alice.device(i)
			first := true
			for {
				select {
				case <-stop:
					return
				default:
				}
				_, err := c.Send(ctx, s.newID(), to, []byte("racing"))
				mu.Lock()
				if err == nil {
					accepted++
				} else {
					refusals[relayclient.Code(err)]++
				}
				mu.Unlock()
				if first {
					started <- struct{}{}
					first = false
				}
				if err != nil {
					return // the account is gone
				}
			}
		})
	}
	<-started
	<-started
	if err := alice.device(2).DeleteAccount(ctx, password); err != nil {
		t.Fatal(err)
	}
	close(stop)
	wg.Wait()
	for code := range refusals {
		if code != "unauthenticated" && code != "account_deleted" {
			t.Fatalf("a send racing the deletion got %q (%v)", code, refusals)
		}
	}
	if accepted == 0 {
		t.Fatal("no send was accepted before the deletion: the race was not run")
	}
	for tb, n := range s.rowsOf(t, cols, id, alice) {
		if n != 0 {
			t.Fatalf("%d rows of alice left in %s after %d accepted sends", n, tb, accepted)
		}
	}
	if n := s.count(t, `SELECT count(*) FROM queue WHERE device_id = $1`, bob.Devices[0]); n != 0 {
		t.Fatalf("%d of alice's envelopes left in bob's queue", n)
	}
}

// TestDeleteWhileAnAcceptHoldsTheDevices: an accept to alice that holds
// her device rows' locks when her deletion begins commits first, and the
// deletion then finds and deletes what it wrote. The queue's rows do not
// reference their device (ADR 0081), so nothing else would delete them:
// the deletion must lock the devices before it deletes their queues.
func TestDeleteWhileAnAcceptHoldsTheDevices(t *testing.T) {
	s := newTestServer(t)
	ctx := context.Background()
	alice := s.register(t, "alice", 2)
	bob := s.register(t, "bob", 1)
	// They are contacts already, so that the accept below reads no row of
	// alice's account: only her devices' locks order it with the deletion.
	if _, err := bob.device(0).Send(ctx, s.newID(), "alice", []byte("hello")); err != nil {
		t.Fatal(err)
	}
	tx, err := s.Pool.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback(ctx)
	now := s.Clock.Now()
	e := &queue.Envelope{ID: s.newID(), FromAccount: s.accountID(t, "bob"), FromUsername: "bob", FromDevice: bob.Devices[0],
		ToAccount: s.accountID(t, "alice"), ToUsername: "alice", TS: now.UnixMilli(), Body: []byte("racing")}
	if _, _, ds, err := queue.Accept(ctx, tx, e, now.Add(time.Hour), now); err != nil || len(ds) != 2 {
		t.Fatalf("the accept wrote %v (%v), want alice's 2 devices", ds, err)
	}
	done := make(chan error, 1)
	go func() { done <- alice.device(0).DeleteAccount(ctx, password) }()
	waitFor(t, "the deletion to wait for the accept's locks", func() bool {
		return s.count(t, `SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'`) > 0
	})
	if err := tx.Commit(ctx); err != nil {
		t.Fatal(err)
	}
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if n := s.count(t, `SELECT count(*) FROM queue WHERE device_id = ANY ($1)`, alice.Devices); n != 0 {
		t.Fatalf("%d envelopes left in the queues of alice's deleted devices", n)
	}
}
