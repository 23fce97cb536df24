package relay_test

import (
	"bytes"
	"context"
	"crypto/ecdh"
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"os"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/oklog/ulid/v2"

	"relay/devices"
	"relay/internal/testdb"
	"relay/relay"
	"relay/relayclient"
)

// clock is a settable clock for the server under test, so clock-skew and
// rate-limit tests need no sleeping.
type clock struct {
	mu sync.Mutex // guards t
	t  time.Time
}

func (c *clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *clock) Advance(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}

// testServer is a relay on a real PostgreSQL database of its own, served on
// a loopback port.
type testServer struct {
	URL   string
	Pool  *pgxpool.Pool
	Clock *clock
	Relay *relay.Server
}

type option func(*relay.Config)

func withRate(n int) option                { return func(c *relay.Config) { c.RatePerMinute = n } }
func withSelfRate(n int) option            { return func(c *relay.Config) { c.SelfRatePerMinute = n } }
func withReceiptRate(n int) option         { return func(c *relay.Config) { c.ReceiptRatePerMinute = n } }
func withGroupRate(n int) option           { return func(c *relay.Config) { c.GroupRatePerMinute = n } }
func withPing(d time.Duration) option      { return func(c *relay.Config) { c.PingInterval = d } }
func withRealClock() option                { return func(c *relay.Config) { c.Now = nil } }
func withOrigins(origins ...string) option { return func(c *relay.Config) { c.Origins = origins } }
func withMaxBody(n int) option             { return func(c *relay.Config) { c.MaxBody = n } }
func withQueueMaxBytes(n int64) option     { return func(c *relay.Config) { c.QueueMaxBytes = n } }
func withMaxDevices(n int) option          { return func(c *relay.Config) { c.MaxDevices = n } }
func withAuthRates(perAddress, perUser int, trusted ...netip.Prefix) option {
	return func(c *relay.Config) {
		c.AuthPerMinute, c.AuthPerUserPerMinute, c.TrustedProxies = perAddress, perUser, trusted
	}
}
func withTimeouts(header, body, streamWrite time.Duration) option {
	return func(c *relay.Config) {
		c.HeaderTimeout, c.BodyTimeout, c.StreamWriteTimeout = header, body, streamWrite
	}
}

// cheapArgon2 keeps tests fast; the production costs are in ADR 0005.
var cheapArgon2 = devices.Argon2Params{Memory: 64, Time: 1, Threads: 1}

// newTestServer is a served relay with its background work running, as in
// production.
func newTestServer(t testing.TB, opts ...option) *testServer {
	t.Helper()
	pool, _ := testdb.Pool(t)
	return running(t, served(t, pool, &clock{t: time.Now()}, opts...))
}

// newTestServerWithoutRun is a served relay whose Run is left to the test.
func newTestServerWithoutRun(t testing.TB, opts ...option) *testServer {
	t.Helper()
	pool, _ := testdb.Pool(t)
	return served(t, pool, &clock{t: time.Now()}, opts...)
}

// running starts s's background work (Run), ended by the test's cleanup.
func running(t testing.TB, s *testServer) *testServer {
	errc := make(chan error, 1)
	go func() { errc <- s.Relay.Run(context.Background()) }()
	t.Cleanup(func() {
		// Before served's cleanup and the database's: Run must have
		// ended before they go.
		if err := s.Relay.Close(); err != nil {
			t.Errorf("Close: %v", err)
		}
		if err := <-errc; !errors.Is(err, relay.ErrClosed) {
			t.Errorf("Run returned %v, want ErrClosed", err)
		}
	})
	return s
}

// served is a relay on pool and clk, served on a port of its own.
func served(t testing.TB, pool *pgxpool.Pool, clk *clock, opts ...option) *testServer {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	base := "http://" + ln.Addr().String()
	cfg := relay.Config{Pool: pool, Now: clk.Now, BaseURL: base, RatePerMinute: 1000, SelfRatePerMinute: 1000, Argon2: cheapArgon2,
		AuthPerMinute: 10000, AuthPerUserPerMinute: 10000}
	if os.Getenv("RELAY_TEST_LOG") != "" {
		cfg.Logger = slog.New(slog.NewTextHandler(os.Stderr, nil))
	}
	for _, o := range opts {
		o(&cfg)
	}
	srv, err := relay.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	hs := &httptest.Server{Listener: ln, Config: srv.HTTPServer()}
	hs.Start()
	t.Cleanup(func() {
		if err := srv.Close(); err != nil {
			t.Errorf("Close: %v", err)
		}
		hs.Close()
	})
	return &testServer{URL: base, Pool: pool, Clock: clk, Relay: srv}
}

func newKey(t testing.TB) []byte {
	t.Helper()
	k, err := ecdh.P256().GenerateKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	return k.PublicKey().Bytes()
}

func b64(b []byte) string { return base64.StdEncoding.EncodeToString(b) }

// user is an account with its logged-in client and devices.
type user struct {
	Name    string
	Client  *relayclient.Client
	Devices []string
}

// device returns a client of the account speaking as its i-th device.
func (u *user) device(i int) *relayclient.Client {
	c := *u.Client
	c.Device = u.Devices[i]
	return &c
}

const password = "correct horse battery"

// register creates an account with n devices.
func (s *testServer) register(t testing.TB, name string, n int) *user {
	t.Helper()
	ctx := context.Background()
	c := relayclient.New(s.URL)
	if err := c.Register(ctx, name, password, newKey(t)); err != nil {
		t.Fatalf("register %s: %v", name, err)
	}
	u := &user{Name: name, Client: c}
	for i := 0; i < n; i++ {
		id, err := c.AddDevice(ctx, fmt.Sprintf("%s-%d", name, i), newKey(t))
		if err != nil {
			t.Fatalf("add device: %v", err)
		}
		u.Devices = append(u.Devices, id)
	}
	return u
}

// newID returns a fresh envelope id at the server clock's time.
func (s *testServer) newID() string {
	return ulid.MustNew(ulid.Timestamp(s.Clock.Now()), rand.Reader).String()
}

// send posts an envelope and fails the test unless it is accepted.
func (s *testServer) send(t testing.TB, from *relayclient.Client, to string, body string) relayclient.Accepted {
	t.Helper()
	a, err := from.Send(context.Background(), s.newID(), to, []byte(body))
	if err != nil {
		t.Fatalf("send: %v", err)
	}
	return a
}

// answer is a raw HTTP answer.
type answer struct {
	Status int
	Header http.Header
	Body   map[string]any
	Raw    []byte
}

func (a answer) code() string {
	c, _ := a.Body["error"].(string)
	return c
}

// raw sends a request exactly as given: the tests of error codes and check
// order need control over every header.
func raw(t *testing.T, c *relayclient.Client, method, path string, header map[string]string, body any) answer {
	t.Helper()
	var rd io.Reader
	switch b := body.(type) {
	case nil:
	case string:
		rd = bytes.NewReader([]byte(b))
	case []byte:
		rd = bytes.NewReader(b)
	default:
		j, err := json.Marshal(b)
		if err != nil {
			t.Fatal(err)
		}
		rd = bytes.NewReader(j)
	}
	req, err := http.NewRequest(method, c.BaseURL+path, rd)
	if err != nil {
		t.Fatal(err)
	}
	for k, v := range header {
		req.Header.Set(k, v)
	}
	resp, err := c.HTTP.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	a := answer{Status: resp.StatusCode, Header: resp.Header}
	a.Raw, _ = io.ReadAll(resp.Body)
	if len(a.Raw) > 0 && a.Raw[0] == '{' {
		if err := json.Unmarshal(a.Raw, &a.Body); err != nil {
			t.Fatalf("answer is not JSON: %q", a.Raw)
		}
	}
	return a
}

// count returns the number of rows of a query's single count(*) result.
func (s *testServer) count(t *testing.T, query string, args ...any) int {
	t.Helper()
	var n int
	if err := s.Pool.QueryRow(context.Background(), query, args...).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

// state is everything a send could change, for "changes nothing" checks.
func (s *testServer) state(t *testing.T) [3]int {
	t.Helper()
	return [3]int{
		s.count(t, "SELECT count(*) FROM queue"),
		s.count(t, "SELECT count(*) FROM sent"),
		s.count(t, "SELECT count(*) FROM contacts"),
	}
}

func wantCode(t *testing.T, err error, code string) {
	t.Helper()
	if got := relayclient.Code(err); got != code {
		t.Fatalf("got error %v, want code %q", err, code)
	}
}
