package relay

import (
	"encoding/json"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/julienschmidt/httprouter"

	"relay/internal/testdb"
)

// TestPanicIsInternal: a handler that panics answers a generic 500
// internal naming the request id, and only the log says what happened.
func TestPanicIsInternal(t *testing.T) {
	pool, _ := testdb.Pool(t)
	var logs syncBuffer
	s, err := New(Config{Pool: pool, BaseURL: "http://127.0.0.1", Logger: slog.New(slog.NewTextHandler(&logs, nil))})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	s.router.GET("/api/boom", s.handle(func(http.ResponseWriter, *http.Request, httprouter.Params) error {
		panic("the secret cause")
	}))
	hs := httptest.NewServer(s.Handler())
	defer hs.Close()
	resp, err := http.Get(hs.URL + "/api/boom")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var body struct{ Error, Message string }
	_ = json.NewDecoder(resp.Body).Decode(&body)
	id := resp.Header.Get("X-Request-Id")
	if resp.StatusCode != 500 || body.Error != "internal" || id == "" || !strings.Contains(body.Message, id) {
		t.Fatalf("answer %d %+v (request id %q)", resp.StatusCode, body, id)
	}
	if strings.Contains(body.Message, "secret cause") {
		t.Fatal("the panic's cause reached the client")
	}
	if l := logs.String(); !strings.Contains(l, "the secret cause") || !strings.Contains(l, id) {
		t.Fatalf("the log does not hold the cause under the request id:\n%s", l)
	}
}
