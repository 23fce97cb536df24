package relay_test

import (
	"context"
	"errors"
	"net/http"
	"net/netip"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"

	"relay/relayclient"
)

func TestCreateAccount(t *testing.T) {
	s := newTestServer(t)
	c := relayclient.New(s.URL)
	origin := map[string]string{"Origin": s.URL}
	key := b64(newKey(t))

	a := raw(t, c, "POST", "/api/accounts", origin, map[string]string{"username": "alice", "password": password, "publicKey": key})
	if a.Status != http.StatusCreated || a.Body["username"] != "alice" {
		t.Fatalf("register: %d %s", a.Status, a.Raw)
	}
	cookie := a.Header.Get("Set-Cookie")
	for _, want := range []string{"relay_session=", "HttpOnly", "SameSite=Strict", "Max-Age=2592000"} {
		if !strings.Contains(cookie, want) {
			t.Errorf("session cookie %q lacks %q", cookie, want)
		}
	}
	if strings.Contains(cookie, "Secure") {
		t.Errorf("cookie over plain http must not be Secure: %q", cookie)
	}
	// The token is stored only as a hash.
	token := strings.TrimPrefix(strings.Split(cookie, ";")[0], "relay_session=")
	if len(token) < 43 {
		t.Fatalf("token %d characters, want 256 bits", len(token))
	}
	if n := s.count(t, "SELECT count(*) FROM sessions WHERE token_hash = convert_to($1, 'UTF8')", token); n != 0 {
		t.Fatal("the session token is stored in plain")
	}
	if n := s.count(t, "SELECT count(*) FROM sessions"); n != 1 {
		t.Fatalf("%d sessions, want 1", n)
	}
	if n := s.count(t, "SELECT count(*) FROM accounts WHERE password_hash LIKE '$argon2id$%' AND strpos(password_hash, $1) = 0", password); n != 1 {
		t.Fatal("the password is not stored as an argon2id hash")
	}

	long := strings.Repeat("p", 1025)
	cases := []struct {
		name   string
		header map[string]string
		body   any
		status int
		code   string
	}{
		{"taken", origin, map[string]string{"username": "alice", "password": password, "publicKey": key}, 409, "username_taken"},
		{"no origin", nil, map[string]string{"username": "bob", "password": password, "publicKey": key}, 403, "origin_required"},
		{"foreign origin", map[string]string{"Origin": "http://evil.example"}, map[string]string{"username": "bob", "password": password, "publicKey": key}, 403, "origin_forbidden"},
		{"upper case", origin, map[string]string{"username": "Bob", "password": password, "publicKey": key}, 400, "bad_username"},
		{"too short name", origin, map[string]string{"username": "bo", "password": password, "publicKey": key}, 400, "bad_username"},
		{"too long name", origin, map[string]string{"username": strings.Repeat("b", 33), "password": password, "publicKey": key}, 400, "bad_username"},
		{"short password", origin, map[string]string{"username": "bob", "password": "1234567", "publicKey": key}, 400, "bad_password"},
		{"long password", origin, map[string]string{"username": "bob", "password": long, "publicKey": key}, 400, "bad_password"},
		{"key not base64", origin, map[string]string{"username": "bob", "password": password, "publicKey": "%%%"}, 400, "bad_public_key"},
		{"key url-safe", origin, map[string]string{"username": "bob", "password": password, "publicKey": key[:10] + "_" + key[11:]}, 400, "bad_public_key"},
		{"key unpadded", origin, map[string]string{"username": "bob", "password": password, "publicKey": strings.TrimRight(b64(make([]byte, 64)), "=")}, 400, "bad_public_key"},
		{"key short", origin, map[string]string{"username": "bob", "password": password, "publicKey": b64(newKey(t)[:33])}, 400, "bad_public_key"},
		{"key off curve", origin, map[string]string{"username": "bob", "password": password, "publicKey": b64(append([]byte{4}, make([]byte, 64)...))}, 400, "bad_public_key"},
		{"not json", origin, "{", 400, "bad_json"},
		{"wrong type", origin, `{"username": 5}`, 400, "bad_json"},
		{"huge", origin, `{"username":"` + strings.Repeat("a", 20000) + `"}`, 413, "too_large"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			a := raw(t, relayclient.New(s.URL), "POST", "/api/accounts", tc.header, tc.body)
			if a.Status != tc.status || a.code() != tc.code {
				t.Fatalf("got %d %s, want %d %s", a.Status, a.Raw, tc.status, tc.code)
			}
			if m, _ := a.Body["message"].(string); m == "" {
				t.Fatalf("error without a message: %s", a.Raw)
			}
		})
	}
	if n := s.count(t, "SELECT count(*) FROM accounts"); n != 1 {
		t.Fatalf("%d accounts after refused registrations, want 1", n)
	}
}

func TestLoginLogout(t *testing.T) {
	s := newTestServer(t)
	ctx := context.Background()
	alice := s.register(t, "alice", 1)

	// A second session of the same account.
	c2 := relayclient.New(s.URL)
	acc, err := c2.Login(ctx, "alice", password)
	if err != nil {
		t.Fatal(err)
	}
	if acc.Username != "alice" || len(acc.PublicKey) != 65 {
		t.Fatalf("login answered %+v", acc)
	}

	// Unknown user and wrong password look the same.
	wrong := raw(t, relayclient.New(s.URL), "POST", "/api/sessions", map[string]string{"Origin": s.URL}, map[string]string{"username": "alice", "password": "wrong password"})
	unknown := raw(t, relayclient.New(s.URL), "POST", "/api/sessions", map[string]string{"Origin": s.URL}, map[string]string{"username": "nobody", "password": "wrong password"})
	if wrong.Status != 401 || wrong.code() != "bad_credentials" || string(wrong.Raw) != string(unknown.Raw) || unknown.Status != 401 {
		t.Fatalf("wrong password: %d %s; unknown user: %d %s", wrong.Status, wrong.Raw, unknown.Status, unknown.Raw)
	}
	if a := raw(t, relayclient.New(s.URL), "POST", "/api/sessions", nil, map[string]string{"username": "alice", "password": password}); a.code() != "origin_required" {
		t.Fatalf("login without Origin: %d %s", a.Status, a.Raw)
	}

	// Logout ends only that session and clears the cookie.
	a := raw(t, alice.Client, "DELETE", "/api/sessions", map[string]string{"Origin": s.URL}, nil)
	if a.Status != http.StatusNoContent || !strings.Contains(a.Header.Get("Set-Cookie"), "Max-Age=0") {
		t.Fatalf("logout: %d %v", a.Status, a.Header)
	}
	if _, err := alice.Client.Devices(ctx); relayclient.Code(err) != "unauthenticated" {
		t.Fatalf("after logout: %v", err)
	}
	if _, err := c2.Devices(ctx); err != nil {
		t.Fatalf("the other session ended too: %v", err)
	}
	if n := s.count(t, "SELECT count(*) FROM sessions"); n != 1 {
		t.Fatalf("%d session rows after logout, want 1", n)
	}
	wantCode(t, alice.Client.Logout(ctx), "unauthenticated")
}

// TestLoginFailuresCostTheSame: a login for an unknown username runs
// argon2id once, against the dummy hash, as a wrong password for a known
// one does, under the same per-username throttle, and gets the same bytes
// (ADR 0005): neither the answer nor the work tells whether the username
// exists. The work is counted, not timed. The controls: the right
// password costs one hash too, and an attempt refused before the password
// check (throttled, or a malformed username, under which no account can
// exist) costs none, so the counter counts hashing and nothing else.
func TestLoginFailuresCostTheSame(t *testing.T) {
	s := newTestServer(t, withAuthRates(10000, 1))
	s.register(t, "alice", 0)
	hashes := func() float64 {
		t.Helper()
		v, err := strconv.ParseFloat(s.metric(t, "relay_password_hashes_total"), 64)
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	// login answers one attempt and says how many hashes it cost.
	login := func(username, pw string) (answer, float64) {
		t.Helper()
		before := hashes()
		a := raw(t, relayclient.New(s.URL), "POST", "/api/sessions", map[string]string{"Origin": s.URL},
			map[string]string{"username": username, "password": pw})
		return a, hashes() - before
	}
	headers := func(a answer) http.Header {
		h := a.Header.Clone()
		h.Del("Date")
		h.Del("X-Request-Id")
		return h
	}

	wrong, n := login("alice", "wrong password")
	if wrong.Status != 401 || wrong.code() != "bad_credentials" || n != 1 {
		t.Fatalf("wrong password: %d %s after %v hashes, want 401 bad_credentials after 1", wrong.Status, wrong.Raw, n)
	}
	unknown, n := login("nobody", "wrong password")
	if n != 1 {
		t.Fatalf("unknown username: %v hashes, want 1 like a wrong password", n)
	}
	if unknown.Status != wrong.Status || string(unknown.Raw) != string(wrong.Raw) || !reflect.DeepEqual(headers(unknown), headers(wrong)) {
		t.Fatalf("unknown username: %d %v %s; wrong password: %d %v %s", unknown.Status, headers(unknown), unknown.Raw,
			wrong.Status, headers(wrong), wrong.Raw)
	}
	// Each username has had its one attempt of the minute, known or not.
	for _, u := range []string{"alice", "nobody"} {
		if a, n := login(u, "wrong password"); a.code() != "too_many_attempts" || n != 0 {
			t.Errorf("%s again: %d %s after %v hashes, want too_many_attempts after none", u, a.Status, a.Raw, n)
		}
	}
	if a, n := login("No-Body", "wrong password"); a.code() != "bad_credentials" || n != 0 {
		t.Errorf("malformed username: %d %s after %v hashes, want bad_credentials after none", a.Status, a.Raw, n)
	}
	s.Clock.Advance(time.Minute)
	if a, n := login("alice", password); a.Status != 200 || n != 1 {
		t.Errorf("right password: %d %s after %v hashes, want 200 after 1", a.Status, a.Raw, n)
	}
}

func TestSessionExpires(t *testing.T) {
	s := newTestServer(t)
	alice := s.register(t, "alice", 0)
	ctx := context.Background()
	if _, err := alice.Client.Devices(ctx); err != nil {
		t.Fatal(err)
	}
	s.Clock.Advance(30*24*60*60*1e9 + 1e9) // 30 days and a second
	_, err := alice.Client.Devices(ctx)
	wantCode(t, err, "unauthenticated")
}

func TestKeyDirectory(t *testing.T) {
	s := newTestServer(t)
	ctx := context.Background()
	alice := s.register(t, "alice", 0)
	bob := s.register(t, "bob", 0)
	a, err := alice.Client.Lookup(ctx, "bob")
	if err != nil {
		t.Fatal(err)
	}
	b, _ := bob.Client.Login(ctx, "bob", password)
	if a.Username != "bob" || string(a.PublicKey) != string(b.PublicKey) {
		t.Fatalf("directory says %+v, bob's key is %x", a, b.PublicKey)
	}
	_, err = alice.Client.Lookup(ctx, "carol")
	wantCode(t, err, "unknown_account")
	_, err = alice.Client.Lookup(ctx, "NOT_A_NAME")
	wantCode(t, err, "bad_username")
	_, err = relayclient.New(s.URL).Lookup(ctx, "bob")
	wantCode(t, err, "unauthenticated")
}

func TestUnknownEndpoint(t *testing.T) {
	s := newTestServer(t)
	c := relayclient.New(s.URL)
	if a := raw(t, c, "GET", "/api/nothing", nil, nil); a.Status != 404 || a.code() != "not_found" {
		t.Fatalf("unknown endpoint: %d %s", a.Status, a.Raw)
	}
	if a := raw(t, c, "PUT", "/api/messages", nil, nil); a.Status != 405 || a.code() != "method_not_allowed" {
		t.Fatalf("wrong method: %d %s", a.Status, a.Raw)
	}
}

func TestPlaceholderPage(t *testing.T) {
	s := newTestServer(t)
	a := raw(t, relayclient.New(s.URL), "GET", "/", nil, nil)
	if a.Status != 200 || !strings.Contains(string(a.Raw), "relay") {
		t.Fatalf("GET /: %d %s", a.Status, a.Raw)
	}
	csp := a.Header.Get("Content-Security-Policy")
	for _, want := range []string{"script-src 'self'", "connect-src 'self'", "frame-ancestors 'none'"} {
		if !strings.Contains(csp, want) {
			t.Errorf("CSP %q lacks %q", csp, want)
		}
	}
	if strings.Contains(string(a.Raw), "<script>") || strings.Contains(string(a.Raw), "style=") {
		t.Error("the page has inline script or style")
	}
}

// TestSecurityHeaders: every answer, API or page, forbids sniffing,
// referrers, framing and powerful browser features; HSTS is sent only when
// the relay is reached over HTTPS (a plain-HTTP base URL here), since
// browsers ignore it over HTTP and it would pin a development host.
func TestSecurityHeaders(t *testing.T) {
	s := newTestServer(t)
	c := relayclient.New(s.URL)
	for _, path := range []string{"/", "/app.js", "/api/contacts", "/healthz", "/api/nothing"} {
		a := raw(t, c, "GET", path, nil, nil)
		for k, want := range map[string]string{
			"X-Content-Type-Options": "nosniff",
			"Referrer-Policy":        "no-referrer",
			"X-Frame-Options":        "DENY",
		} {
			if got := a.Header.Get(k); got != want {
				t.Errorf("%s: %s is %q, want %q", path, k, got, want)
			}
		}
		if pp := a.Header.Get("Permissions-Policy"); !strings.Contains(pp, "camera=()") || !strings.Contains(pp, "geolocation=()") {
			t.Errorf("%s: Permissions-Policy %q", path, pp)
		}
		if csp := a.Header.Get("Content-Security-Policy"); !strings.Contains(csp, "frame-ancestors 'none'") {
			t.Errorf("%s: CSP %q", path, csp)
		}
		if hsts := a.Header.Get("Strict-Transport-Security"); hsts != "" {
			t.Errorf("%s: HSTS %q over plain HTTP", path, hsts)
		}
	}
}

// TestAuthThrottled: logins are limited per username and per client
// address, registrations per address, before any password is hashed; the
// answer is 429 too_many_attempts with Retry-After, and a minute later the
// attempts are allowed again.
func TestAuthThrottled(t *testing.T) {
	s := newTestServer(t, withAuthRates(4, 2))
	s.register(t, "alice", 0) // 1 of 4 from this address
	c := relayclient.New(s.URL)
	ctx := context.Background()
	for i := 0; i < 2; i++ { // 2 and 3 of 4; 1 and 2 of 2 for alice
		if _, err := c.Login(ctx, "alice", "wrong password"); relayclient.Code(err) != "bad_credentials" {
			t.Fatalf("login %d: %v", i, err)
		}
	}
	_, err := c.Login(ctx, "alice", password) // the right password, too late
	wantCode(t, err, "too_many_attempts")
	var re *relayclient.Error
	if !errors.As(err, &re) || re.RetryAfter <= 0 {
		t.Fatalf("no Retry-After: %v", err)
	}
	// Another username from the same address: 4 of 4, then the address is
	// spent for logins and registrations alike.
	if _, err := c.Login(ctx, "bob", password); relayclient.Code(err) != "bad_credentials" {
		t.Fatalf("bob: %v", err)
	}
	wantCode(t, c.Register(ctx, "carol", password, newKey(t)), "too_many_attempts")
	if n := s.count(t, `SELECT count(*) FROM accounts WHERE username = 'carol'`); n != 0 {
		t.Fatal("a throttled registration created its account")
	}
	s.Clock.Advance(time.Minute)
	if _, err := c.Login(ctx, "alice", password); err != nil {
		t.Fatalf("a minute later: %v", err)
	}
}

// TestTrustedProxyAddress: behind a trusted proxy, X-Forwarded-For tells
// clients apart; from an untrusted peer the header is ignored, so a client
// cannot escape its limit by inventing addresses (the control).
func TestTrustedProxyAddress(t *testing.T) {
	attempt := func(s *testServer, xff string) string {
		a := raw(t, relayclient.New(s.URL), "POST", "/api/sessions",
			map[string]string{"Origin": s.URL, "X-Forwarded-For": xff},
			map[string]string{"username": "nobody", "password": "wrong password"})
		return a.code()
	}
	for _, tc := range []struct {
		name    string
		trusted []netip.Prefix
		want    string // the third attempt, from a third forwarded address
	}{
		{"trusted", []netip.Prefix{netip.MustParsePrefix("127.0.0.0/8")}, "bad_credentials"},
		{"untrusted", nil, "too_many_attempts"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := newTestServer(t, withAuthRates(2, 1000, tc.trusted...))
			for _, xff := range []string{"203.0.113.1", "203.0.113.2"} {
				if got := attempt(s, xff); got != "bad_credentials" {
					t.Fatalf("from %s: %s", xff, got)
				}
			}
			if got := attempt(s, "198.51.100.7, 203.0.113.3"); got != tc.want {
				t.Fatalf("third address: %s, want %s", got, tc.want)
			}
		})
	}
}
