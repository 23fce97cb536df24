package relay_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"relay/relayclient"
)

// TestHostileJSON posts malformed, truncated, oversized, wrongly typed,
// duplicated-key, deeply nested and otherwise hostile bodies to every
// endpoint that takes JSON. Each gets a stable 400 or 413 code, never a
// 500, and nothing is written.
func TestHostileJSON(t *testing.T) {
	s := newTestServer(t)
	alice := s.register(t, "alice", 1)
	s.register(t, "bob", 1)
	okEnvelope := `"id":"` + s.newID() + `","to":"bob","body":"aGVsbG8="`
	bodies := map[string]string{
		"empty":            ``,
		"null":             `null`,
		"malformed":        `{"username": "x",`,
		"truncated":        `{"id":"01J`,
		"top-level array":  `[1,2,3]`,
		"wrong types":      `{"username": 5, "password": true, "publicKey": [], "name": {}, "upTo": "7", "id": 1, "to": null, "body": 3}`,
		"duplicated key":   `{` + okEnvelope + `,"to":"alice","username":"carol","username":"dave","password":"long enough pw","password":"x","upTo":1,"upTo":2}`,
		"deeply nested":    strings.Repeat(`[`, 5000) + strings.Repeat(`]`, 5000),
		"nested objects":   strings.Repeat(`{"a":`, 3000) + `1` + strings.Repeat(`}`, 3000),
		"invalid UTF-8":    "{\"username\":\"caro\xff\",\"name\":\"\xfe\",\"to\":\"b\xffb\"}",
		"huge number":      `{"upTo": 1e400}`,
		"negative":         `{"upTo": -1}`,
		"oversized":        `{"username":"` + strings.Repeat("a", 200<<10) + `"}`,
		"trailing garbage": `{"upTo": 0} {"upTo": 1}`,
	}
	allowed := map[string]bool{
		"bad_json": true, "too_large": true, "bad_envelope": true, "bad_username": true, "bad_password": true,
		"bad_public_key": true, "bad_device_name": true, "bad_ack": true, "bad_credentials": true,
		"bad_device_update": true, "bad_recovery_blob": true, "bad_revoke_list": true, "bad_attachment_size": true,
	}
	before := s.state(t)
	sessions := s.count(t, `SELECT count(*) FROM sessions`)
	account := s.recoveryState(t, "alice")
	for _, ep := range []struct{ method, path string }{
		{"POST", "/api/accounts"}, {"POST", "/api/sessions"}, {"POST", "/api/devices"}, {"POST", "/api/messages"}, {"POST", "/api/ack"},
		{"PATCH", "/api/devices/" + alice.Devices[0]}, {"PUT", "/api/recovery"}, {"PUT", "/api/account/key"},
		{"POST", "/api/attachments"},
	} {
		path := ep.path
		for name, body := range bodies {
			req, _ := http.NewRequest(ep.method, s.URL+path, bytes.NewReader([]byte(body)))
			req.Header.Set("Content-Type", "application/json")
			req.Header.Set("Origin", s.URL)
			req.Header.Set("X-Device", alice.Devices[0])
			resp, err := alice.Client.HTTP.Do(req)
			if err != nil {
				t.Fatalf("%s %s: %v", path, name, err)
			}
			raw, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			var e struct {
				Error string `json:"error"`
			}
			_ = json.Unmarshal(raw, &e)
			code := e.Error
			if (resp.StatusCode != 400 && resp.StatusCode != 413 && resp.StatusCode != 401) || !allowed[code] {
				t.Errorf("%s %s: %d %s", path, name, resp.StatusCode, raw)
			}
		}
	}
	if after := s.recoveryState(t, "alice"); after != account {
		t.Errorf("hostile bodies changed the account:\n%s\n%s", account, after)
	}
	if after := s.state(t); after != before {
		t.Errorf("hostile bodies changed the database: %v -> %v", before, after)
	}
	if n := s.count(t, `SELECT count(*) FROM sessions`); n != sessions {
		t.Errorf("hostile bodies opened %d sessions", n-sessions)
	}
	if n := s.count(t, `SELECT count(*) FROM accounts`); n != 2 {
		t.Errorf("%d accounts after hostile bodies, want 2", n)
	}
	if n := s.count(t, `SELECT count(*) FROM devices`); n != 2 {
		t.Errorf("%d devices after hostile bodies, want 2", n)
	}
	if n := s.count(t, `SELECT count(*) FROM attachments`); n != 0 {
		t.Errorf("%d attachments after hostile bodies, want 0", n)
	}
	// The control: the same client and headers do get through with a
	// well-formed body.
	s.send(t, alice.device(0), "bob", "fine")
}

// TestHostileInvites posts hostile invite codes to a relay whose
// registration is by invite: overlong, control bytes, invalid UTF-8,
// lookalike digits, SQL, a code's hash, wrong types, the field twice.
// Each gets a stable 4xx code, never a 5xx; no account is created and no
// use is spent. /api/registration takes no method but GET, which ignores
// a query and a body. The control: the code itself registers.
func TestHostileInvites(t *testing.T) {
	s := newTestServer(t, withRegistration("invite"))
	code, inv := s.invite(t, 1, 0)
	key := b64(newKey(t))
	body := func(invite string) string {
		return `{"username":"carol","password":"` + password + `","publicKey":"` + key + `","invite":` + invite + `}`
	}
	allowed := map[string]bool{"bad_invite": true, "invalid_invite": true, "invite_required": true, "bad_json": true, "too_large": true}
	for name, b := range map[string]string{
		"overlong":        body(`"` + strings.Repeat("7K2QD-", 3000) + `"`),
		"just over":       body(`"` + strings.Repeat(" ", 21) + strings.ReplaceAll(code, "-", "") + `"`),
		"NUL":             body(`"` + code[:22] + `\u0000"`),
		"newline":         body(`"` + code + `\n"`),
		"invalid UTF-8":   body("\"" + code[:22] + "\xff\""),
		"fullwidth digit": body("\"\uff17" + code[1:] + "\""),
		"SQL":             body(`"' OR 1=1 --"`),
		"its hash":        body(`"` + strings.Repeat("ab", 32) + `"`),
		"number":          body(`7`),
		"array":           body(`["` + code + `"]`),
		"object":          body(`{"code":"` + code + `"}`),
		"null":            body(`null`),
		"twice":           `{"username":"carol","password":"` + password + `","publicKey":"` + key + `","invite":"x","invite":"` + code + `"}`,
	} {
		a := raw(t, relayclient.New(s.URL), "POST", "/api/accounts", map[string]string{"Origin": s.URL, "Content-Type": "application/json"}, b)
		if a.Status < 400 || a.Status >= 500 || !allowed[a.code()] {
			t.Errorf("%s: %d %s", name, a.Status, a.Raw)
		}
	}
	if n := s.count(t, `SELECT count(*) FROM accounts`); n != 0 {
		t.Errorf("hostile codes created %d accounts", n)
	}
	if n := s.count(t, `SELECT used FROM invites WHERE id = $1`, inv.ID); n != 0 {
		t.Errorf("hostile codes spent %d uses", n)
	}
	c := relayclient.New(s.URL)
	for _, m := range []string{"POST", "PUT", "DELETE", "PATCH"} {
		if a := raw(t, c, m, "/api/registration", map[string]string{"Origin": s.URL}, `{"mode":"open"}`); a.Status != 405 || a.code() != "method_not_allowed" {
			t.Errorf("%s /api/registration: %d %s", m, a.Status, a.Raw)
		}
	}
	for _, path := range []string{"/api/registration?mode=open", "/api/registration?%ff=%00"} {
		if a := raw(t, c, "GET", path, nil, `{"mode":"open"}`); a.Status != 200 || a.Body["mode"] != "invite" {
			t.Errorf("GET %s: %d %s", path, a.Status, a.Raw)
		}
	}
	// The control.
	if err := c.RegisterWithInvite(context.Background(), "carol", password, newKey(t), code); err != nil {
		t.Fatalf("the code itself: %v", err)
	}
}

// TestHostilePaths sends request targets byte for byte as written:
// overlong UTF-8 dots and slashes, invalid UTF-8, encoded dots, slashes
// and backslashes, a NUL. None names a file of the web client, so each is
// 404 (docs/protocol.md, "Other paths"), never a 5xx; fs.Sub's error for
// a name that is not valid UTF-8 used to be a 500. The control: a file of
// the client asked for the same way is 200.
func TestHostilePaths(t *testing.T) {
	s := newTestServer(t)
	host := strings.TrimPrefix(s.URL, "http://")
	get := func(target string) (int, string) {
		t.Helper()
		return rawRequest(t, host, "GET "+target+" HTTP/1.1\r\nHost: "+host+"\r\nConnection: close\r\n\r\n")
	}
	for _, target := range []string{
		"/%c0%ae%c0%ae/%c0%ae%c0%ae/etc/passwd",
		"/%c0%ae%c0%ae/%c0%ae%c0%ae/app.js",
		"/%c0%af..%c0%afapp.js",
		"/%e0%80%ae%e0%80%ae/etc/passwd",
		"/%ff",
		"/app.js%ff",
		"/app.js%00",
		"/..%2f..%2fetc%2fpasswd",
		"/%2e%2e/%2e%2e/etc/passwd",
		"/../../etc/passwd",
		"/..%5c..%5cetc%5cpasswd",
		"/static/app.js",
		"/nope.js",
	} {
		if status, body := get(target); status != http.StatusNotFound {
			t.Errorf("GET %s: %d %q, want 404", target, status, body)
		}
	}
	if status, body := get("/app.js"); status != http.StatusOK || !strings.Contains(body, "import") {
		t.Errorf("GET /app.js: %d, want 200 and the script", status)
	}
	if status, _ := get("/"); status != http.StatusOK {
		t.Errorf("GET /: %d, want 200", status)
	}
}

// TestHostileAttachmentPaths sends attachment ids and part indexes byte
// for byte as written: encoded slashes and dots, overlong UTF-8, a NUL,
// padding, a sign, a huge index, another alphabet. Each is a 4xx with a
// stable code (or the router's redirect of a trailing slash), never a
// 5xx, and stores nothing; the control, the same
// request with the id and index as issued, is 204.
func TestHostileAttachmentPaths(t *testing.T) {
	s := newTestServer(t)
	alice := s.register(t, "alice", 1)
	a, err := alice.device(0).CreateAttachment(t.Context(), 3)
	if err != nil {
		t.Fatal(err)
	}
	cookie := alice.Client.HTTP.Jar.Cookies(mustURL(t, s.URL))[0]
	host := strings.TrimPrefix(s.URL, "http://")
	put := func(target string) (int, string) {
		t.Helper()
		return rawRequest(t, host, fmt.Sprintf("PUT %s HTTP/1.1\r\nHost: %s\r\nOrigin: %s\r\nX-Device: %s\r\nCookie: %s=%s\r\nContent-Length: 3\r\nConnection: close\r\n\r\nabc",
			target, host, s.URL, alice.Devices[0], cookie.Name, cookie.Value))
	}
	for _, target := range []string{
		"/api/attachments/" + a.ID + "%2f/parts/0",
		"/api/attachments/" + a.ID[:20] + "%2e%2e/parts/0",
		"/api/attachments/" + a.ID[:21] + "%00/parts/0",
		"/api/attachments/" + a.ID[:21] + "%c0%ae/parts/0",
		"/api/attachments/" + a.ID[:20] + "==/parts/0",
		"/api/attachments/" + a.ID[:20] + "+/parts/0",
		"/api/attachments/" + a.ID + "/parts/+0",
		"/api/attachments/" + a.ID + "/parts/0x0",
		"/api/attachments/" + a.ID + "/parts/%ef%bc%90", // a fullwidth 0
		"/api/attachments/" + a.ID + "/parts/18446744073709551616",
		"/api/attachments/" + a.ID + "/parts/..%2f0",
		"/api/attachments/" + a.ID + "/parts/0/",
		"/api/attachments/%ff/parts/0",
	} {
		status, body := put(target)
		var e struct {
			Error string `json:"error"`
		}
		_ = json.Unmarshal([]byte(body), &e)
		// A trailing slash, even an encoded one, is the router's 307 to
		// the path without it, as on every route; it stores nothing.
		if status == http.StatusTemporaryRedirect && (strings.HasSuffix(target, "/") || strings.Contains(target, "%2f/")) {
			continue
		}
		if status < 400 || status >= 500 || e.Error == "" {
			t.Errorf("PUT %s: %d %q", target, status, body)
		}
	}
	if n := s.count(t, `SELECT count(*) FROM attachment_parts`); n != 0 {
		t.Fatalf("%d parts stored by hostile paths", n)
	}
	if status, body := put("/api/attachments/" + a.ID + "/parts/0"); status != http.StatusNoContent {
		t.Fatalf("the control: %d %q", status, body)
	}
}

// rawRequest sends request to host byte for byte as written, and returns
// the answer's status and body.
func rawRequest(t *testing.T, host, request string) (int, string) {
	t.Helper()
	conn, err := net.Dial("tcp", host)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	_ = conn.SetDeadline(time.Now().Add(10 * time.Second))
	if _, err := io.WriteString(conn, request); err != nil {
		t.Fatal(err)
	}
	resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
	if err != nil {
		t.Fatalf("%.60q: %v", request, err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(body)
}
