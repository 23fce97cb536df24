package relay_test

import (
	"context"
	"log/slog"
	"net/url"
	"strings"
	"testing"

	"relay/relay"
)

// TestLogsHoldNoSecrets runs every kind of request with debug logging and
// looks for passwords, tokens, keys and bodies in the log.
func TestLogsHoldNoSecrets(t *testing.T) {
	var logs relay.SyncBuffer
	s := newTestServer(t, func(c *relay.Config) {
		c.Logger = slog.New(slog.NewJSONHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	})
	ctx := context.Background()
	alice := s.register(t, "alice", 1)
	bob := s.register(t, "bob", 1)
	if _, err := bob.Client.Login(ctx, "bob", password); err != nil {
		t.Fatal(err)
	}
	body := "secret-ciphertext-marker-7f3a"
	s.send(t, alice.device(0), "bob", body)
	f := follow(t, bob.device(0), "")
	f.expectEnvelopes(t, 1, 1)
	f.expectReady(t, 1)
	if err := bob.device(0).Ack(ctx, 1); err != nil {
		t.Fatal(err)
	}
	key, _ := alice.Client.Lookup(ctx, "bob")
	u, _ := url.Parse(s.URL)
	token := alice.Client.HTTP.Jar.Cookies(u)[0].Value

	out := logs.String()
	if !strings.Contains(out, `"path":"/api/messages"`) {
		t.Fatalf("the log has no request lines; the test would prove nothing:\n%s", out)
	}
	for name, secret := range map[string]string{
		"password":        password,
		"session token":   token,
		"body":            body,
		"body in base64":  b64([]byte(body)),
		"public key":      b64(key.PublicKey),
		"device id query": "device=" + bob.Devices[0],
	} {
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
