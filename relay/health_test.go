package relay_test

import (
	"context"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"relay/internal/testdb"
	"relay/relay"
	"relay/relayclient"
)

func TestHealthReadyAndMetrics(t *testing.T) {
	s := newTestServer(t)
	c := relayclient.New(s.URL)
	if a := raw(t, c, "GET", "/healthz", nil, nil); a.Status != 200 {
		t.Fatalf("healthz: %d %s", a.Status, a.Raw)
	}
	if a := raw(t, c, "GET", "/readyz", nil, nil); a.Status != 200 || a.Body["status"] != "ready" {
		t.Fatalf("readyz: %d %s", a.Status, a.Raw)
	}
	alice := s.register(t, "alice", 2)
	s.register(t, "bob", 1)
	s.send(t, alice.device(0), "bob", "x")
	_, err := alice.device(0).Send(context.Background(), s.newID(), "nobody", []byte("x"))
	wantCode(t, err, "unknown_recipient")
	s.Relay.CountQueue(context.Background())
	// alice's second device got her copy as seq 1.
	if err := alice.device(1).Ack(context.Background(), 1); err != nil {
		t.Fatal(err)
	}

	text := s.scrape(t)
	for _, want := range []string{
		"relay_envelopes_accepted_total 1",
		`relay_envelopes_rejected_total{reason="unknown_recipient"} 1`,
		"relay_queue_depth 2",
		"relay_streams_open 0",
		"relay_db_pool_max_conns",
		"relay_accept_group_size_count 1", // one envelope, committed alone
		"relay_accept_group_failures_total 0",
		"relay_ack_group_size_count 1", // one ACK, run alone
		"relay_ack_group_failures_total 0",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("metrics lack %q", want)
		}
	}
	for _, secret := range []string{"alice", "bob", alice.Devices[0]} {
		if strings.Contains(text, secret) {
			t.Errorf("metrics name %q", secret)
		}
	}
}

// TestRequestLatencyByRoute: every API request is timed under its route,
// the method and pattern, never its path; the event stream, whose time is
// its life, is not. A histogram that timed every route would have a series
// for GET /api/events from the start.
func TestRequestLatencyByRoute(t *testing.T) {
	s := newTestServer(t)
	alice := exercise(t, s)
	text := s.scrape(t)
	for _, want := range []string{
		`relay_http_request_duration_seconds_count{route="POST /api/accounts"} 2`,
		`relay_http_request_duration_seconds_count{route="POST /api/devices"} 3`,
		`relay_http_request_duration_seconds_count{route="POST /api/messages"} 2`, // accepted and refused alike
		`relay_http_request_duration_seconds_count{route="POST /api/ack"} 1`,
		`relay_http_request_duration_seconds_count{route="GET /api/queue"} 0`, // every route from the start
	} {
		if !strings.Contains(text, want) {
			t.Errorf("metrics lack %q", want)
		}
	}
	for _, rp := range s.Relay.Preambles() {
		series := `relay_http_request_duration_seconds_count{route="` + rp.Method + " " + rp.Pattern + `"}`
		if has := strings.Contains(text, series); has != (rp.Pattern != "/api/events") {
			t.Errorf("%s %s: timed %v", rp.Method, rp.Pattern, has)
		}
	}
	for _, secret := range []string{"alice", "bob", alice.Devices[0]} {
		if strings.Contains(text, secret) {
			t.Errorf("metrics name %q", secret)
		}
	}
}

// TestMetricsNotPublic: the public listener answers /metrics like any
// unknown path, so outsiders cannot time sends by the counters (ADR 0031).
func TestMetricsNotPublic(t *testing.T) {
	s := newTestServer(t)
	a := raw(t, relayclient.New(s.URL), "GET", "/metrics", nil, nil)
	if a.Status != http.StatusNotFound || strings.Contains(string(a.Raw), "relay_") {
		t.Fatalf("public GET /metrics: %d %s", a.Status, a.Raw)
	}
	if !strings.Contains(s.scrape(t), "relay_envelopes_accepted_total 0") {
		t.Fatal("MetricsHandler does not serve the metrics")
	}
}

// TestQueueDepthIsCountedNotQueried: a scrape shows the queue as last
// counted, not as it is now: scraping runs no query. A gauge that counted
// on each scrape would show the second envelope before the count.
func TestQueueDepthIsCountedNotQueried(t *testing.T) {
	s := newTestServerWithoutRun(t) // the test counts; Run would count too
	ctx := context.Background()
	alice := s.register(t, "alice", 1)
	s.register(t, "bob", 1)
	if got := s.metric(t, "relay_queue_depth"); got != "-1" {
		t.Fatalf("queue depth before the first count: %s, want -1", got)
	}
	s.send(t, alice.device(0), "bob", "one")
	s.Relay.CountQueue(ctx)
	if got := s.metric(t, "relay_queue_depth"); got != "1" {
		t.Fatalf("queue depth after one envelope: %s, want 1", got)
	}
	s.send(t, alice.device(0), "bob", "two")
	if got := s.metric(t, "relay_queue_depth"); got != "1" {
		t.Fatalf("queue depth before the next count: %s, want the last count, 1", got)
	}
	s.Relay.CountQueue(ctx)
	if got := s.metric(t, "relay_queue_depth"); got != "2" {
		t.Fatalf("queue depth after the next count: %s, want 2", got)
	}
}

// TestDatabaseAwayIs503 runs a relay whose database is not there: nothing
// listens at its address, or its pool is closed (as while the instance
// shuts down). Requests get 503 unavailable at once, never a hang, never a
// 202 and never a 500.
func TestDatabaseAwayIs503(t *testing.T) {
	for _, tc := range []struct {
		name string
		pool func(t *testing.T) *pgxpool.Pool
	}{
		{"nothing listens", func(t *testing.T) *pgxpool.Pool {
			ln, err := net.Listen("tcp", "127.0.0.1:0")
			if err != nil {
				t.Fatal(err)
			}
			dead := ln.Addr().String()
			ln.Close() // nothing listens there now
			pool, err := pgxpool.New(context.Background(), "postgres://x@"+dead+"/x?connect_timeout=2")
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(pool.Close)
			return pool
		}},
		{"pool closed", func(t *testing.T) *pgxpool.Pool {
			pool, err := pgxpool.New(context.Background(), testdb.New(t))
			if err != nil {
				t.Fatal(err)
			}
			pool.Close()
			return pool
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv, err := relay.New(relay.Config{Pool: tc.pool(t), BaseURL: "http://127.0.0.1", Argon2: cheapArgon2})
			if err != nil {
				t.Fatal(err)
			}
			hs := httptest.NewServer(srv.Handler())
			t.Cleanup(func() {
				srv.Close()
				hs.Close()
			})
			c := relayclient.New(hs.URL)
			c.Origin = "http://127.0.0.1"
			start := time.Now()
			for _, req := range []func() error{
				func() error { _, err := c.Login(context.Background(), "alice", "password1"); return err },
				func() error { return c.Register(context.Background(), "alice", "password1", newKey(t)) },
			} {
				err := req()
				var e *relayclient.Error
				if !errorsAs(err, &e) || e.Status != http.StatusServiceUnavailable || e.Code != "unavailable" {
					t.Fatalf("with the database away: %v", err)
				}
			}
			if a := raw(t, c, "GET", "/readyz", nil, nil); a.Status != 503 || a.code() != "not_ready" {
				t.Fatalf("readyz: %d %s", a.Status, a.Raw)
			}
			if d := time.Since(start); d > 10*time.Second {
				t.Fatalf("the answers took %v", d)
			}
		})
	}
}

// exercise registers alice (two devices) and bob, sends bob a message, is
// refused one to an unknown name, and ACKs on alice's second device: so
// that the series counted only once something happened exist. It returns
// alice.
func exercise(t *testing.T, s *testServer) *user {
	t.Helper()
	alice := s.register(t, "alice", 2)
	s.register(t, "bob", 1)
	s.send(t, alice.device(0), "bob", "x")
	_, err := alice.device(0).Send(context.Background(), s.newID(), "nobody", []byte("x"))
	wantCode(t, err, "unknown_recipient")
	if err := alice.device(1).Ack(context.Background(), 1); err != nil {
		t.Fatal(err)
	}
	return alice
}
