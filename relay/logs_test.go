package relay_test

import (
	"context"
	"encoding/base64"
	"fmt"
	"log/slog"
	"net/url"
	"strings"
	"testing"
	"time"

	"relay/relay"
	"relay/relayclient"
)

// TestLogsHoldNoSecrets runs every kind of request with debug logging and
// looks for passwords, tokens, keys, bodies, usernames and device ids in
// the log. Usernames and ids go in request bodies, in X-Device, in
// ?device= and in paths, of routes (a lookup, a revocation, a 405, a
// preflight, a 500) and of no route; the access log names each request by
// its route's pattern or a web client file, never by its path (ADR 0025).
func TestLogsHoldNoSecrets(t *testing.T) {
	var logs relay.SyncBuffer
	s := newTestServer(t, func(c *relay.Config) {
		c.Logger = slog.New(slog.NewJSONHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	})
	ctx := context.Background()
	// Names nothing in the relay says by itself.
	const aliceName, bobName, nobody = "zq_alice_7c1", "zq_bob_7c1", "zq_nobody_7c1"
	origin := map[string]string{"Origin": s.URL}
	alice := s.register(t, aliceName, 1)
	bob := s.register(t, bobName, 2)
	if _, err := bob.Client.Login(ctx, bobName, password); err != nil {
		t.Fatal(err)
	}
	if _, err := relayclient.New(s.URL).Login(ctx, nobody, password); relayclient.Code(err) != "bad_credentials" {
		t.Fatalf("login of an unknown username: %v", err)
	}
	body := "secret-ciphertext-marker-7f3a"
	s.send(t, alice.device(0), bobName, body)
	f := follow(t, bob.device(0), "")
	f.expectEnvelopes(t, 1, 1)
	f.expectReady(t, 1)
	if err := bob.device(0).Ack(ctx, 1); err != nil {
		t.Fatal(err)
	}
	key, _ := alice.Client.Lookup(ctx, bobName)
	_, err := alice.Client.Lookup(ctx, nobody)
	wantCode(t, err, "unknown_account")
	u, _ := url.Parse(s.URL)
	token := alice.Client.HTTP.Jar.Cookies(u)[0].Value

	// The recovery blob, a device's new name, a key replacement.
	blob, newBlob := []byte("recovery-blob-marker-91c2"), []byte("recovery-blob-marker-52d8")
	deviceName := "device-name-marker-3e4b"
	if err := alice.Client.PutRecovery(ctx, blob); err != nil {
		t.Fatal(err)
	}
	if _, err := alice.Client.GetRecovery(ctx); err != nil {
		t.Fatal(err)
	}
	if err := alice.Client.RenameDevice(ctx, alice.Devices[0], deviceName); err != nil {
		t.Fatal(err)
	}
	if err := alice.device(0).MarkLinked(ctx); err != nil {
		t.Fatal(err)
	}
	newAccountKey := newKey(t)
	if _, err := alice.device(0).ReplaceKey(ctx, password, newAccountKey, nil, newBlob); err != nil {
		t.Fatal(err)
	}

	// A group's GroupInfo, whose id travels in the path, and an account's
	// device ids, which travel in the answer.
	group, groupInfo := newGroupID(t), []byte("group-info-marker-0d6e")
	if err := bob.device(0).PutGroupInfo(ctx, group, 0, groupInfo); err != nil {
		t.Fatal(err)
	}
	if _, err := alice.device(0).GetGroupInfo(ctx, group); err != nil {
		t.Fatal(err)
	}
	if _, err := alice.device(0).AccountDevices(ctx, bobName); err != nil {
		t.Fatal(err)
	}

	// Bob revokes his second device, then its id is refused everywhere.
	revoked := bob.Devices[1]
	if err := bob.Client.Revoke(ctx, revoked); err != nil {
		t.Fatal(err)
	}
	wantCode(t, bob.Client.Revoke(ctx, revoked), "unknown_device")
	for _, a := range []answer{
		raw(t, bob.Client, "GET", "/api/events?device="+revoked, nil, nil),
		raw(t, bob.Client, "POST", "/api/ack", map[string]string{"Origin": s.URL, "X-Device": revoked}, map[string]int{"upTo": 1}),
	} {
		if a.code() != "device_forbidden" {
			t.Fatalf("with the revoked id: %d %s", a.Status, a.Raw)
		}
	}
	// Paths with a username or an id that no route answers as they are.
	for _, req := range [][2]string{
		{"POST", "/api/accounts/" + bobName},   // 405
		{"OPTIONS", "/api/devices/" + revoked}, // the router's preflight answer
		{"GET", "/api/accounts/" + bobName + "/"},
		{"GET", "/api/devices/" + bob.Devices[0] + "/x"},
		{"GET", "/api/" + nobody},
		{"GET", "/" + aliceName},
		{"GET", "/" + bob.Devices[0] + "/../app.js"},
	} {
		raw(t, alice.Client, req[0], req[1], origin, nil)
	}
	// A stream's line comes when its handler returns, after the replay,
	// which may be after the client has seen ready.
	deadline := time.Now().Add(10 * time.Second)
	for !strings.Contains(logs.String(), `"path":"/api/events","status":200`) {
		if time.Now().After(deadline) {
			t.Fatalf("no log line for the stream:\n%s", logs.String())
		}
		time.Sleep(10 * time.Millisecond)
	}
	// A report, whose messages are plain text (ADR 0118), and one refused.
	reportText, reportComment := "report-text-marker-6b1d", "report-comment-marker-2a9f"
	report := newReport(bobName, msg(bobName, 1764806400000, reportText))
	report.Comment = reportComment
	if err := alice.device(0).FileReport(ctx, report); err != nil {
		t.Fatal(err)
	}
	wantCode(t, alice.device(0).FileReport(ctx, newReport(bobName, msg(nobody, 1, reportText))), "bad_report")
	// A failure is logged with its route: the database loses a table.
	if _, err := s.Pool.Exec(ctx, `ALTER TABLE accounts RENAME TO accounts_gone`); err != nil {
		t.Fatal(err)
	}
	_, err = alice.Client.Lookup(ctx, bobName)
	wantCode(t, err, "internal")
	wantCode(t, alice.device(0).FileReport(ctx, newReport(bobName, msg(bobName, 1, reportText))), "internal")

	out := logs.String()
	// The controls: request lines are there, named by route or file, so
	// the search below could find what it looks for.
	for _, want := range []string{
		`"path":"/api/messages"`,
		`"method":"GET","path":"/api/accounts/:username","status":200`,
		`"method":"GET","path":"/api/accounts/:username","status":404`,
		`"method":"POST","path":"/api/accounts/:username","status":405`,
		`"method":"OPTIONS","path":"/api/devices/:id"`,
		`"method":"DELETE","path":"/api/devices/:id","status":204`,
		`"method":"PATCH","path":"/api/devices/:id","status":204`,
		`"method":"PUT","path":"/api/recovery","status":204`,
		`"method":"GET","path":"/api/recovery","status":200`,
		`"method":"PUT","path":"/api/account/key","status":200`,
		`"method":"PUT","path":"/api/groups/:group/info","status":204`,
		`"method":"GET","path":"/api/groups/:group/info","status":200`,
		`"method":"GET","path":"/api/accounts/:username/devices","status":200`,
		`"method":"POST","path":"/api/reports","status":202`,
		`"method":"POST","path":"/api/reports","status":400`,
		`"method":"POST","path":"/api/reports","status":500`,
		`"msg":"request failed","request_id":`,
		`"method":"GET","path":"/app.js","status":200`,
		`"path":"(unmatched)"`,
	} {
		if !strings.Contains(out, want) {
			t.Errorf("the log lacks %s:\n%s", want, out)
		}
	}
	secrets := map[string]string{
		"password":       password,
		"session token":  token,
		"body":           body,
		"body in base64": b64([]byte(body)),
		"public key":     b64(key.PublicKey),
		"username":       aliceName,
		"other username": bobName,
		"unknown name":   nobody,
		"recovery blob":  b64(blob),
		"blob in clear":  string(blob),
		"new blob":       b64(newBlob),
		"device name":    deviceName,
		"new key":        b64(newAccountKey),
		"group id":       base64.RawURLEncoding.EncodeToString(group),
		"group info":     b64(groupInfo),
		"report text":    reportText,
		"report comment": reportComment,
		"report id":      report.ID,
		"report message": report.Messages[0].ID,
	}
	for i, id := range append(alice.Devices, bob.Devices...) {
		secrets[fmt.Sprintf("device id %d", i)] = id
	}
	for name, secret := range secrets {
		if strings.Contains(out, secret) {
			t.Errorf("the log holds the %s", name)
		}
	}
}

// TestInternalErrorsStayInternal breaks the database under a running relay:
// the client gets a generic 500 with a request id, the log has the cause.
func TestInternalErrorsStayInternal(t *testing.T) {
	var logs relay.SyncBuffer
	s := newTestServer(t, func(c *relay.Config) {
		c.Logger = slog.New(slog.NewJSONHandler(&logs, nil))
	})
	alice := s.register(t, "alice", 1)
	s.register(t, "bob", 1)
	if _, err := s.Pool.Exec(context.Background(), `DROP TABLE queue`); err != nil {
		t.Fatal(err)
	}
	a := raw(t, alice.device(0), "POST", "/api/messages", map[string]string{"X-Device": alice.Devices[0], "Origin": s.URL},
		map[string]string{"id": s.newID(), "to": "bob", "body": b64([]byte("x"))})
	id := a.Header.Get("X-Request-Id")
	msg, _ := a.Body["message"].(string)
	if a.Status != 500 || a.code() != "internal" || id == "" || !strings.Contains(msg, id) {
		t.Fatalf("got %d %s (request id %q)", a.Status, a.Raw, id)
	}
	if strings.Contains(strings.ToLower(string(a.Raw)), "queue") || strings.Contains(string(a.Raw), "SQLSTATE") {
		t.Fatalf("the answer leaks the database error: %s", a.Raw)
	}
	if !strings.Contains(logs.String(), id) || !strings.Contains(logs.String(), "queue") {
		t.Fatalf("the log lacks the failure under request id %s:\n%s", id, logs.String())
	}
	if n := s.count(t, "SELECT count(*) FROM sent"); n != 0 {
		t.Fatalf("a failed send left %d idempotency records", n)
	}
}
