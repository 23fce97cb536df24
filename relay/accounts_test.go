package relay_test

import (
	"context"
	"net/http"
	"strings"
	"testing"

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
