package relay_test

import (
	"context"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"relay/internal/testdb"
	"relay/invites"
	"relay/relay"
	"relay/relayclient"
)

// Who may register (docs/protocol.md, "POST /api/accounts" and "GET
// /api/registration"; ADR 0117).

func withRegistration(r relay.Registration) option {
	return func(c *relay.Config) { c.Registration = r }
}

// invite makes an invite of uses uses expiring after ttl (0: never) at
// the server clock's time, as relay admin invites create does.
func (s *testServer) invite(t *testing.T, uses int, ttl time.Duration) (string, invites.Invite) {
	t.Helper()
	code, inv, err := invites.Create(context.Background(), s.Pool, uses, ttl, s.Clock.Now())
	if err != nil {
		t.Fatal(err)
	}
	return code, inv
}

// registerBody is a registration of username with code (none when "").
func registerBody(t *testing.T, username, code string) map[string]string {
	b := map[string]string{"username": username, "password": password, "publicKey": b64(newKey(t))}
	if code != "" {
		b["invite"] = code
	}
	return b
}

// TestRegistrationMode: GET /api/registration says each mode, to anyone,
// with no session and no Origin; a relay configured with a mode it does
// not know does not start.
func TestRegistrationMode(t *testing.T) {
	pool, _ := testdb.Pool(t)
	clk := &clock{t: time.Now()}
	for _, mode := range []relay.Registration{"", relay.RegistrationOpen, relay.RegistrationInvite, relay.RegistrationClosed} {
		s := served(t, pool, clk, withRegistration(mode))
		got, err := relayclient.New(s.URL).Registration(context.Background())
		want := string(mode)
		if mode == "" {
			want = "open" // the default, as before there was a choice
		}
		if err != nil || got != want {
			t.Errorf("mode %q: GET /api/registration says %q, %v; want %q", mode, got, err, want)
		}
	}
	_, err := relay.New(relay.Config{Pool: pool, BaseURL: "http://127.0.0.1:1", Registration: "invites"})
	if err == nil || !strings.Contains(err.Error(), `open, invite or closed, not "invites"`) {
		t.Fatalf("relay.New with registration %q: %v", "invites", err)
	}
}

// TestClosedRegistration: a closed relay refuses every registration, a
// malformed one too, and creates nothing; the accounts made before it
// closed log in, link a new device and send as before. The control: the
// same registration on the same database, served open, is created.
func TestClosedRegistration(t *testing.T) {
	pool, _ := testdb.Pool(t)
	clk := &clock{t: time.Now()}
	open := running(t, served(t, pool, clk))
	alice := open.register(t, "alice", 1)
	open.register(t, "bob", 1)
	closed := running(t, served(t, pool, clk, withRegistration(relay.RegistrationClosed)))
	origin := map[string]string{"Origin": closed.URL}
	for _, body := range []any{registerBody(t, "carol", ""), registerBody(t, "carol", "7K2QD-9XW4M-RT8VB-3HNPF"), `{"username":`} {
		a := raw(t, relayclient.New(closed.URL), "POST", "/api/accounts", origin, body)
		if a.Status != http.StatusForbidden || a.code() != "registration_closed" || !strings.Contains(a.Body["message"].(string), "closed registration") {
			t.Errorf("register on a closed relay: %d %s", a.Status, a.Raw)
		}
	}
	if n := closed.count(t, `SELECT count(*) FROM accounts`); n != 2 {
		t.Fatalf("%d accounts, want alice and bob alone", n)
	}
	// Logging in on a new browser and linking it is not registering.
	c := relayclient.New(closed.URL)
	if _, err := c.Login(context.Background(), "alice", password); err != nil {
		t.Fatalf("alice logs in on a closed relay: %v", err)
	}
	dev, err := c.AddDevice(context.Background(), "alice-new", newKey(t))
	if err != nil {
		t.Fatalf("alice adds a device on a closed relay: %v", err)
	}
	c.Device = dev
	if err := c.MarkLinked(context.Background()); err != nil {
		t.Fatalf("the new device reports itself linked: %v", err)
	}
	closed.send(t, c, "bob", "from the new device")
	closed.send(t, alice.device(0), "bob", "from the old one")
	// The control.
	a := raw(t, relayclient.New(open.URL), "POST", "/api/accounts", map[string]string{"Origin": open.URL}, registerBody(t, "carol", ""))
	if a.Status != http.StatusCreated {
		t.Fatalf("the control, open: %d %s", a.Status, a.Raw)
	}
}

// TestInviteRegistration: on a relay by invite a registration needs a
// code with a use left; each account takes one use, and a registration
// refused for another reason (the name is taken) gives its use back. An
// unknown, a used-up, an expired and a revoked code get one answer. An
// open relay ignores the field, however malformed.
func TestInviteRegistration(t *testing.T) {
	s := newTestServer(t, withRegistration(relay.RegistrationInvite))
	ctx := context.Background()
	origin := map[string]string{"Origin": s.URL}
	post := func(body any) answer {
		t.Helper()
		return raw(t, relayclient.New(s.URL), "POST", "/api/accounts", origin, body)
	}
	used := func(id int64) int {
		t.Helper()
		return s.count(t, `SELECT used FROM invites WHERE id = $1`, id)
	}
	two, twoInv := s.invite(t, 2, 0)
	if len(two) != 23 || strings.Count(two, "-") != 3 {
		t.Fatalf("code %q: want four groups of five", two)
	}
	if a := post(registerBody(t, "alice", two)); a.Status != http.StatusCreated {
		t.Fatalf("alice with a code of two uses: %d %s", a.Status, a.Raw)
	}
	// Spelled as a person may type it: lower case, spaces for dashes.
	typed := strings.ToLower(strings.ReplaceAll(two, "-", " "))
	if a := post(registerBody(t, "alice", typed)); a.code() != "username_taken" || used(twoInv.ID) != 1 {
		t.Fatalf("a taken name with the code: %d %s, %d uses spent; want username_taken and the use given back", a.Status, a.Raw, used(twoInv.ID))
	}
	if a := post(registerBody(t, "bob", typed)); a.Status != http.StatusCreated || used(twoInv.ID) != 2 {
		t.Fatalf("bob with the code's last use: %d %s, %d uses spent", a.Status, a.Raw, used(twoInv.ID))
	}

	soon, _ := s.invite(t, 5, time.Hour)
	revoked, revokedInv := s.invite(t, 5, 0)
	if err := invites.Revoke(ctx, s.Pool, revokedInv.ID); err != nil {
		t.Fatal(err)
	}
	s.Clock.Advance(time.Hour)
	for name, code := range map[string]string{
		"used up": two, "expired": soon, "revoked": revoked,
		"unknown": "7K2QD-9XW4M-RT8VB-3HNPF",
	} {
		a := post(registerBody(t, "carol", code))
		if a.Status != http.StatusForbidden || a.code() != "invalid_invite" || a.Body["message"] != "this invite code is unknown, used up or expired: ask the relay's operator for a new one" {
			t.Errorf("%s code: %d %s, want 403 invalid_invite with the one message", name, a.Status, a.Raw)
		}
	}
	for name, c := range map[string]struct {
		body any
		code string
	}{
		"no code":      {registerBody(t, "carol", ""), "invite_required"},
		"19 symbols":   {registerBody(t, "carol", "7K2QD-9XW4M-RT8VB-3HNP"), "bad_invite"},
		"21 symbols":   {registerBody(t, "carol", "7K2QD-9XW4M-RT8VB-3HNPFF"), "bad_invite"},
		"a U":          {registerBody(t, "carol", "7K2QD-9XW4M-RT8VB-3HNPU"), "bad_invite"},
		"not a string": {`{"username":"carol","password":"` + password + `","publicKey":"` + b64(newKey(t)) + `","invite":5}`, "bad_json"},
		"given twice":  {`{"username":"carol","password":"` + password + `","publicKey":"` + b64(newKey(t)) + `","invite":"` + soon + `","invite":""}`, "bad_json"},
		"empty":        {registerBody(t, "carol", ""), "invite_required"},
		"dashes only":  {registerBody(t, "carol", "-----"), "bad_invite"},
		"a tab":        {registerBody(t, "carol", " 7K2QD9XW4MRT8VB3HNPF\t"), "bad_invite"},
	} {
		if a := post(c.body); a.code() != c.code || a.Status >= 500 {
			t.Errorf("%s: %d %s, want %s", name, a.Status, a.Raw, c.code)
		}
	}
	if n := s.count(t, `SELECT count(*) FROM accounts`); n != 2 {
		t.Fatalf("%d accounts, want alice and bob", n)
	}
	// The control of "expired": a code made now registers.
	fresh, _ := s.invite(t, 1, time.Hour)
	if a := post(registerBody(t, "carol", fresh)); a.Status != http.StatusCreated {
		t.Fatalf("carol with a fresh code: %d %s", a.Status, a.Raw)
	}

	// An open relay on the same database ignores the field.
	open := running(t, served(t, s.Pool, s.Clock))
	a := raw(t, relayclient.New(open.URL), "POST", "/api/accounts", map[string]string{"Origin": open.URL}, registerBody(t, "dave", "not a code at all"))
	if a.Status != http.StatusCreated {
		t.Fatalf("an open relay with a malformed code: %d %s", a.Status, a.Raw)
	}
}

// TestInviteCheckOrder: POST /api/accounts's checks on a relay by invite
// in the order docs/protocol.md gives: the shape of the account, the code's
// presence and shape, the throttle, the code's use, the name. For each
// pair, a request failing both gets the earlier one's refusal.
func TestInviteCheckOrder(t *testing.T) {
	pool, _ := testdb.Pool(t)
	clk := &clock{t: time.Now()}
	s := running(t, served(t, pool, clk, withRegistration(relay.RegistrationInvite)))
	// A relay on the same database that takes one attempt and no more.
	throttled := running(t, served(t, pool, clk, withRegistration(relay.RegistrationInvite), withAuthRates(1, 1)))
	code, _ := s.invite(t, 10, 0)
	if a := raw(t, relayclient.New(s.URL), "POST", "/api/accounts", map[string]string{"Origin": s.URL}, registerBody(t, "alice", code)); a.Status != http.StatusCreated {
		t.Fatal(a.Status, string(a.Raw))
	}
	if a := raw(t, relayclient.New(throttled.URL), "POST", "/api/accounts", map[string]string{"Origin": throttled.URL}, registerBody(t, "bob", code)); a.Status != http.StatusCreated {
		t.Fatal(a.Status, string(a.Raw)) // the one attempt
	}
	const unknown = "7K2QD-9XW4M-RT8VB-3HNPF"
	for _, c := range []struct {
		name      string
		throttled bool
		body      map[string]string
		want      string
	}{
		{"bad username before no code", false, map[string]string{"username": "A", "password": password, "publicKey": b64(newKey(t))}, "bad_username"},
		{"bad key before bad code", false, map[string]string{"username": "carol", "password": password, "publicKey": "x", "invite": "x"}, "bad_public_key"},
		{"no code before the throttle", true, registerBody(t, "carol", ""), "invite_required"},
		{"bad code before the throttle", true, registerBody(t, "carol", "x"), "bad_invite"},
		{"the throttle before an unknown code", true, registerBody(t, "carol", unknown), "too_many_attempts"},
		{"the throttle, the control", true, registerBody(t, "carol", code), "too_many_attempts"},
		{"an unknown code before a taken name", false, registerBody(t, "alice", unknown), "invalid_invite"},
		{"a taken name, the control", false, registerBody(t, "alice", code), "username_taken"},
	} {
		srv := s
		if c.throttled {
			srv = throttled
		}
		a := raw(t, relayclient.New(srv.URL), "POST", "/api/accounts", map[string]string{"Origin": srv.URL}, c.body)
		if a.code() != c.want {
			t.Errorf("%s: %d %s, want %s", c.name, a.Status, a.Raw, c.want)
		}
	}
}

// TestInviteSpentOnceConcurrently: registrations racing with a code of
// one use create one account, whatever the order in which their
// transactions reach the code's row; the others are invalid_invite. A
// check and a spend in two statements would let several through (or,
// under the table's CHECK, fail with a 500).
func TestInviteSpentOnceConcurrently(t *testing.T) {
	s := newTestServer(t, withRegistration(relay.RegistrationInvite))
	code, inv := s.invite(t, 1, 0)
	const racers = 8
	keys := make([][]byte, racers)
	for i := range keys {
		keys[i] = newKey(t)
	}
	start := make(chan struct{})
	errs := make([]error, racers)
	var wg sync.WaitGroup
	for i := range racers {
		wg.Go(func() {
			<-start
			c := relayclient.New(s.URL)
			errs[i] = c.RegisterWithInvite(context.Background(), "racer_"+string(rune('a'+i)), password, keys[i], code)
		})
	}
	close(start)
	wg.Wait()
	created := 0
	for i, err := range errs {
		switch {
		case err == nil:
			created++
		case relayclient.Code(err) != "invalid_invite":
			t.Errorf("racer %d: %v, want 201 or invalid_invite", i, err)
		}
	}
	if created != 1 || s.count(t, `SELECT count(*) FROM accounts`) != 1 || s.count(t, `SELECT used FROM invites WHERE id = $1`, inv.ID) != 1 {
		t.Fatalf("%d registrations created, %d accounts, %d uses spent: want one of each", created,
			s.count(t, `SELECT count(*) FROM accounts`), s.count(t, `SELECT used FROM invites WHERE id = $1`, inv.ID))
	}
}
