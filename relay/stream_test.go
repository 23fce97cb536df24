package relay_test

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"relay/internal/testdb"
	"relay/relay"
	"relay/relayclient"
)

// follower reads one device's stream in the background.
type follower struct {
	epochs chan relayclient.Event // event: epoch, kept apart from the others
	events chan relayclient.Event
	done   chan error
	cancel context.CancelFunc
}

// follow opens c's stream, resuming after lastEventID ("" for all), without
// automatic reconnects, so each test sees exactly one connection.
func follow(t *testing.T, c *relayclient.Client, lastEventID string) *follower {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	f := &follower{epochs: make(chan relayclient.Event, 10), events: make(chan relayclient.Event, 10000), done: make(chan error, 1), cancel: cancel}
	go func() {
		f.done <- c.Stream(ctx, lastEventID, false, func(e relayclient.Event) error {
			if e.Name == "epoch" {
				f.epochs <- e
				return nil
			}
			f.events <- e
			return nil
		})
	}()
	t.Cleanup(cancel)
	return f
}

// next returns the next event other than a ping, failing the test if none
// comes within ten seconds.
func (f *follower) next(t *testing.T) relayclient.Event {
	t.Helper()
	for {
		select {
		case e := <-f.events:
			if e.Name == "ping" {
				continue
			}
			return e
		case err := <-f.done:
			// Events handled before the end are still in the channel.
			f.done <- err
			select {
			case e := <-f.events:
				if e.Name != "ping" {
					return e
				}
			default:
				t.Fatalf("stream ended: %v", err)
			}
		case <-time.After(10 * time.Second):
			t.Fatal("no event within 10 s")
		}
	}
}

// expectEnvelopes reads n envelope events and checks their seqs run from
// first, one by one.
func (f *follower) expectEnvelopes(t *testing.T, first int64, n int) []*relayclient.Envelope {
	t.Helper()
	var out []*relayclient.Envelope
	for i := 0; i < n; i++ {
		e := f.next(t)
		if e.Name != "envelope" {
			t.Fatalf("event %d: got %q, want envelope seq %d", i, e.Name, first+int64(i))
		}
		if e.Envelope.Seq != first+int64(i) {
			t.Fatalf("got seq %d, want %d", e.Envelope.Seq, first+int64(i))
		}
		out = append(out, e.Envelope)
	}
	return out
}

func (f *follower) expectReady(t *testing.T, seq int64) {
	t.Helper()
	if e := f.next(t); e.Name != "ready" || e.Seq != seq {
		t.Fatalf("got %+v, want ready with seq %d", e, seq)
	}
}

// expectEnd waits for the stream to end and returns why.
func (f *follower) expectEnd(t *testing.T) error {
	t.Helper()
	select {
	case err := <-f.done:
		return err
	case <-time.After(10 * time.Second):
		t.Fatal("the stream did not end within 10 s")
		return nil
	}
}

func TestStreamReplayReadyLive(t *testing.T) {
	s := newTestServer(t)
	alice := s.register(t, "alice", 1)
	bob := s.register(t, "bob", 1)
	for i := 1; i <= 3; i++ {
		s.send(t, alice.device(0), "bob", fmt.Sprintf("queued %d", i))
	}
	f := follow(t, bob.device(0), "")
	got := f.expectEnvelopes(t, 1, 3)
	if got[0].From != "alice" || got[0].FromDevice != alice.Devices[0] || got[0].To != "bob" || string(got[0].Body) != "queued 1" || got[0].TS == 0 {
		t.Fatalf("envelope: %+v", got[0])
	}
	f.expectReady(t, 3)
	s.send(t, alice.device(0), "bob", "live 4")
	live := f.expectEnvelopes(t, 4, 1)
	if string(live[0].Body) != "live 4" {
		t.Fatalf("live envelope %q", live[0].Body)
	}
}

// TestStreamNoGapNoDuplicate sends while the stream connects and replays,
// so that envelopes commit before, during and after the replay.
func TestStreamNoGapNoDuplicate(t *testing.T) {
	s := newTestServer(t)
	alice := s.register(t, "alice", 1)
	bob := s.register(t, "bob", 1)
	const total = 300
	for i := 0; i < 100; i++ {
		s.send(t, alice.device(0), "bob", "x")
	}
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		for i := 100; i < total; i++ {
			if _, err := alice.device(0).Send(context.Background(), s.newID(), "bob", []byte(fmt.Sprint(i))); err != nil {
				t.Errorf("send: %v", err)
				return
			}
		}
	}()
	f := follow(t, bob.device(0), "")
	var seqs []int64
	ready := false
	for len(seqs) < total {
		e := f.next(t)
		switch e.Name {
		case "envelope":
			seqs = append(seqs, e.Envelope.Seq)
		case "ready":
			if ready {
				t.Fatal("two ready events")
			}
			ready = true
			if e.Seq != int64(len(seqs)) {
				t.Fatalf("ready at seq %d after %d envelopes", e.Seq, len(seqs))
			}
		}
	}
	wg.Wait()
	for i, seq := range seqs {
		if seq != int64(i+1) {
			t.Fatalf("envelope %d has seq %d: gap or duplicate", i, seq)
		}
	}
	if !ready {
		t.Fatal("no ready event")
	}
}

func TestStreamLastEventID(t *testing.T) {
	s := newTestServer(t)
	alice := s.register(t, "alice", 1)
	bob := s.register(t, "bob", 1)
	for i := 0; i < 5; i++ {
		s.send(t, alice.device(0), "bob", "x")
	}
	f := follow(t, bob.device(0), "3")
	f.expectEnvelopes(t, 4, 2)
	f.expectReady(t, 5)
	f.cancel()

	// Nothing left to replay: ready says where the device stands.
	g := follow(t, bob.device(0), "5")
	g.expectReady(t, 5)
	g.cancel()

	// After an ACK of everything, a fresh connection still learns the
	// head, so the next live seq is no gap.
	if err := bob.device(0).Ack(context.Background(), 5); err != nil {
		t.Fatal(err)
	}
	h := follow(t, bob.device(0), "")
	h.expectReady(t, 5)
	s.send(t, alice.device(0), "bob", "x")
	h.expectEnvelopes(t, 6, 1)

	// A seq beyond the head is no error (TestLastEventIDAhead).
	for _, bad := range []string{"abc", "-1", "1.5", "03", "99999999999999999999"} {
		a := raw(t, bob.Client, "GET", "/api/events?device="+bob.Devices[0], map[string]string{"Last-Event-ID": bad}, nil)
		if a.Status != http.StatusBadRequest || a.code() != "bad_last_event_id" {
			t.Errorf("Last-Event-ID %q: %d %s, want 400 bad_last_event_id", bad, a.Status, a.Raw)
		}
	}
	// A refused stream request does not replace the open stream.
	s.send(t, alice.device(0), "bob", "x")
	h.expectEnvelopes(t, 7, 1)
}

func TestStreamReplacement(t *testing.T) {
	s := newTestServer(t)
	alice := s.register(t, "alice", 1)
	bob := s.register(t, "bob", 1)
	first := follow(t, bob.device(0), "")
	first.expectReady(t, 0)
	second := follow(t, bob.device(0), "")
	second.expectReady(t, 0)
	if e := first.next(t); e.Name != "replaced" {
		t.Fatalf("old stream got %+v, want replaced", e)
	}
	if err := first.expectEnd(t); !errors.Is(err, relayclient.ErrStreamEnded) {
		t.Fatalf("old stream ended with %v", err)
	}
	s.send(t, alice.device(0), "bob", "x")
	second.expectEnvelopes(t, 1, 1)
}

func TestStreamRevoked(t *testing.T) {
	s := newTestServer(t)
	bob := s.register(t, "bob", 2)
	f := follow(t, bob.device(1), "")
	f.expectReady(t, 0)
	if err := bob.Client.Revoke(context.Background(), bob.Devices[1]); err != nil {
		t.Fatal(err)
	}
	if e := f.next(t); e.Name != "revoked" {
		t.Fatalf("got %+v, want revoked", e)
	}
	f.expectEnd(t)
	a := raw(t, bob.Client, "GET", "/api/events?device="+bob.Devices[1], nil, nil)
	if a.Status != http.StatusForbidden || a.code() != "device_forbidden" {
		t.Fatalf("stream of a revoked device: %d %s", a.Status, a.Raw)
	}
}

func TestStreamPing(t *testing.T) {
	s := newTestServer(t, withPing(50*time.Millisecond), withRealClock())
	bob := s.register(t, "bob", 1)
	f := follow(t, bob.device(0), "")
	f.expectReady(t, 0)
	for i := 0; i < 2; i++ {
		select {
		case e := <-f.events:
			if e.Name != "ping" || e.TS == 0 {
				t.Fatalf("got %+v, want a ping", e)
			}
		case <-time.After(10 * time.Second):
			t.Fatal("no ping")
		}
	}
}

// TestStreamWireFormat reads the raw bytes: every event has a data line, and
// envelopes carry their seq as the SSE id.
func TestStreamWireFormat(t *testing.T) {
	s := newTestServer(t, withPing(20*time.Millisecond), withRealClock())
	alice := s.register(t, "alice", 1)
	bob := s.register(t, "bob", 1)
	s.send(t, alice.device(0), "bob", "x")
	req, _ := http.NewRequest("GET", s.URL+"/api/events", nil)
	req.Header.Set("X-Device", bob.Devices[0])
	resp, err := bob.Client.HTTP.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	for k, want := range map[string]string{"Content-Type": "text/event-stream", "Cache-Control": "no-store", "X-Accel-Buffering": "no"} {
		if got := resp.Header.Get(k); got != want {
			t.Errorf("%s: %q, want %q", k, got, want)
		}
	}
	if resp.StatusCode != http.StatusOK || resp.Header.Get("X-Request-Id") == "" {
		t.Errorf("status %d, request id %q", resp.StatusCode, resp.Header.Get("X-Request-Id"))
	}
	rd := bufio.NewReader(resp.Body)
	var frames []string
	var cur []string
	for len(frames) < 4 {
		line, err := rd.ReadString('\n')
		if err != nil {
			t.Fatal(err)
		}
		line = strings.TrimSuffix(line, "\n")
		if line == "" {
			frames = append(frames, strings.Join(cur, "|"))
			cur = nil
			continue
		}
		cur = append(cur, line)
	}
	if ep := s.epoch(t); frames[0] != `event: epoch|data: {"epoch":"`+ep+`","seq":1}` {
		t.Errorf("epoch frame %q", frames[0])
	}
	if !strings.HasPrefix(frames[1], "event: envelope|id: 1|data: {\"seq\":1,") {
		t.Errorf("envelope frame %q", frames[1])
	}
	if frames[2] != `event: ready|data: {"seq":1}` {
		t.Errorf("ready frame %q", frames[2])
	}
	if !strings.HasPrefix(frames[3], `event: ping|data: {"ts":`) {
		t.Errorf("ping frame %q", frames[3])
	}
}

func TestAck(t *testing.T) {
	s := newTestServer(t)
	ctx := context.Background()
	alice := s.register(t, "alice", 1)
	bob := s.register(t, "bob", 1)
	for i := 0; i < 4; i++ {
		s.send(t, alice.device(0), "bob", "x")
	}
	if err := bob.device(0).Ack(ctx, 2); err != nil {
		t.Fatal(err)
	}
	if n := s.count(t, "SELECT count(*) FROM queue WHERE device_id = $1", bob.Devices[0]); n != 2 {
		t.Fatalf("%d queued after ACK of 2 of 4", n)
	}
	if err := bob.device(0).Ack(ctx, 2); err != nil {
		t.Fatalf("repeated ACK: %v", err)
	}
	wantCode(t, bob.device(0).Ack(ctx, 5), "bad_ack")
	wantCode(t, bob.device(0).Ack(ctx, -1), "bad_ack")
	a := raw(t, bob.device(0), "POST", "/api/ack", map[string]string{"X-Device": bob.Devices[0], "Origin": s.URL}, `{}`)
	if a.code() != "bad_ack" {
		t.Fatalf("ACK without upTo: %d %s", a.Status, a.Raw)
	}
	a = raw(t, bob.device(0), "POST", "/api/ack", map[string]string{"X-Device": bob.Devices[0], "Origin": s.URL}, `{"upTo": "3"}`)
	if a.code() != "bad_json" {
		t.Fatalf("ACK with a string: %d %s", a.Status, a.Raw)
	}
	a = raw(t, bob.device(0), "POST", "/api/ack", map[string]string{"X-Device": bob.Devices[0]}, `{"upTo": 4}`)
	if a.code() != "origin_required" {
		t.Fatalf("ACK without Origin: %d %s", a.Status, a.Raw)
	}
	// The replay after an ACK starts after it.
	f := follow(t, bob.device(0), "")
	f.expectEnvelopes(t, 3, 2)
	f.expectReady(t, 4)
	if err := bob.device(0).Ack(ctx, 4); err != nil {
		t.Fatal(err)
	}
	if n := s.count(t, "SELECT count(*) FROM queue"); n != 0 {
		t.Fatalf("%d rows left after ACK of everything", n)
	}
}

// TestShutdownEndsStreams: once BeginClose is called every open stream
// ends with event: shutdown, and a new one is refused with 503
// shutting_down (the same request was a stream before: the control), while
// other requests are still served for the http.Server to drain, and
// /readyz tells load balancers to stop sending (it was ready before).
func TestShutdownEndsStreams(t *testing.T) {
	s := newTestServer(t)
	bob := s.register(t, "bob", 1)
	f := follow(t, bob.device(0), "")
	f.expectReady(t, 0)
	if a := raw(t, bob.Client, "GET", "/readyz", nil, nil); a.Status != http.StatusOK {
		t.Fatalf("readyz before closing: %d %s", a.Status, a.Raw)
	}
	s.Relay.BeginClose()
	if a := raw(t, bob.Client, "GET", "/readyz", nil, nil); a.Status != http.StatusServiceUnavailable || a.code() != "not_ready" {
		t.Fatalf("readyz while closing: %d %s", a.Status, a.Raw)
	}
	if e := f.next(t); e.Name != "shutdown" {
		t.Fatalf("got %+v, want shutdown", e)
	}
	a := raw(t, bob.device(0), "GET", "/api/events?device="+bob.Devices[0], nil, nil)
	if a.Status != http.StatusServiceUnavailable || a.code() != "shutting_down" {
		t.Fatalf("a stream opened while closing: %d %s", a.Status, a.Raw)
	}
	if _, err := bob.Client.Devices(context.Background()); err != nil {
		t.Fatalf("another request while closing: %v", err)
	}
	if err := s.Relay.Close(); err != nil {
		t.Fatal(err)
	}
}

// TestCatchUpRunsDuringPurge: a purge held up (here by a lock on the queue
// table) does not hold up the catch-up check. A row written behind the
// relay's back, as by an instance whose notification was lost, still
// reaches the open stream, while the purge Run started waits on the lock:
// when both shared one loop, the catch-up waited for the purge.
func TestCatchUpRunsDuringPurge(t *testing.T) {
	s := newTestServerWithoutRun(t, func(c *relay.Config) {
		c.CatchUp = 50 * time.Millisecond
		c.DisableNotify = true // else the listener's first wake-up reads the row
	})
	ctx := context.Background()
	alice := s.register(t, "alice", 1)
	bob := s.register(t, "bob", 1)
	f := follow(t, bob.device(0), "")
	f.expectReady(t, 0)
	for _, q := range []string{
		`UPDATE devices SET seq = 1 WHERE id = $1`,
		`INSERT INTO queue (device_id, seq, envelope_id, from_username, from_device, to_username, ts, body)
			VALUES ($1, 1, $2, 'alice', $3, 'bob', $4, '\x01')`,
	} {
		args := []any{bob.Devices[0]}
		if strings.HasPrefix(q, "INSERT") {
			args = append(args, s.newID(), alice.Devices[0], s.Clock.Now().UnixMilli())
		}
		if _, err := s.Pool.Exec(ctx, q, args...); err != nil {
			t.Fatal(err)
		}
	}
	// SHARE mode: reads go on, the purge's DELETE waits.
	tx, err := s.Pool.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback(ctx) //nolint:errcheck // a no-op once rolled back
	if _, err := tx.Exec(ctx, `LOCK TABLE queue IN SHARE MODE`); err != nil {
		t.Fatal(err)
	}
	runCtx, stop := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() { done <- s.Relay.Run(runCtx) }()
	deadline := time.Now().Add(10 * time.Second)
	for s.count(t, `SELECT count(*) FROM pg_locks WHERE relation = 'queue'::regclass AND NOT granted`) == 0 {
		if time.Now().After(deadline) {
			t.Fatal("the purge did not wait on the lock")
		}
		time.Sleep(10 * time.Millisecond)
	}
	f.expectEnvelopes(t, 1, 1)
	if n := s.count(t, `SELECT count(*) FROM pg_locks WHERE relation = 'queue'::regclass AND NOT granted`); n == 0 {
		t.Fatal("the purge was no longer waiting: the test proved nothing")
	}
	if err := tx.Rollback(ctx); err != nil {
		t.Fatal(err)
	}
	stop()
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Fatalf("Run: %v", err)
	}
}

// scrape reads the relay's metrics as Prometheus would, from
// MetricsHandler (the public listener does not serve them).
func (s *testServer) scrape(t *testing.T) string {
	t.Helper()
	rec := httptest.NewRecorder()
	s.Relay.MetricsHandler().ServeHTTP(rec, httptest.NewRequest("GET", "/metrics", nil))
	if rec.Code != http.StatusOK {
		t.Fatalf("metrics: %d %s", rec.Code, rec.Body)
	}
	return rec.Body.String()
}

// metric reads one unlabelled series from the relay's metrics.
func (s *testServer) metric(t *testing.T, name string) string {
	t.Helper()
	for line := range strings.Lines(s.scrape(t)) {
		if v, ok := strings.CutPrefix(strings.TrimSuffix(line, "\n"), name+" "); ok {
			return v
		}
	}
	t.Fatalf("no %s in the metrics", name)
	return ""
}

// TestStreamEndsWhenClientLeaves: a stream whose client closes the
// connection is ended and forgotten at once, not at its next ping (an hour
// here): the relay watches the connection it took over.
func TestStreamEndsWhenClientLeaves(t *testing.T) {
	s := newTestServer(t, withPing(time.Hour))
	bob := s.register(t, "bob", 1)
	f := follow(t, bob.device(0), "")
	f.expectReady(t, 0)
	if got := s.metric(t, "relay_streams_open"); got != "1" {
		t.Fatalf("streams open: %s, want 1", got)
	}
	f.cancel()
	deadline := time.Now().Add(5 * time.Second)
	for s.metric(t, "relay_streams_open") != "0" {
		if time.Now().After(deadline) {
			t.Fatal("the stream was still open 5 s after its client left")
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// TestStreamOverHTTP2: over TLS with HTTP/2 the connection cannot be taken
// over; the stream is served from the handler instead, with the same
// replay, ready and live envelopes.
func TestStreamOverHTTP2(t *testing.T) {
	pool, _ := testdb.Pool(t)
	hs := httptest.NewUnstartedServer(nil)
	hs.EnableHTTP2 = true
	hs.StartTLS()
	defer hs.Close()
	srv, err := relay.New(relay.Config{Pool: pool, BaseURL: hs.URL, RatePerMinute: 1000, Argon2: cheapArgon2})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	var protos sync.Map
	hs.Config.Handler = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		protos.Store(r.Proto, true)
		srv.Handler().ServeHTTP(w, r)
	})
	ts := &testServer{URL: hs.URL, Pool: pool, Clock: &clock{t: time.Now()}, Relay: srv}
	client := func() *relayclient.Client {
		c := relayclient.New(hs.URL)
		c.HTTP.Transport = hs.Client().Transport
		return c
	}
	ctx := context.Background()
	users := map[string]*relayclient.Client{}
	for _, name := range []string{"alice", "bob"} {
		c := client()
		if err := c.Register(ctx, name, password, newKey(t)); err != nil {
			t.Fatal(err)
		}
		id, err := c.AddDevice(ctx, "d", newKey(t))
		if err != nil {
			t.Fatal(err)
		}
		c.Device = id
		users[name] = c
	}
	ts.Clock = &clock{t: time.Now()}
	if _, err := users["alice"].Send(ctx, ts.newID(), "bob", []byte("queued")); err != nil {
		t.Fatal(err)
	}
	f := follow(t, users["bob"], "")
	f.expectEnvelopes(t, 1, 1)
	f.expectReady(t, 1)
	if _, err := users["alice"].Send(ctx, ts.newID(), "bob", []byte("live")); err != nil {
		t.Fatal(err)
	}
	if got := f.expectEnvelopes(t, 2, 1); string(got[0].Body) != "live" {
		t.Fatalf("live envelope %q", got[0].Body)
	}
	if _, ok := protos.Load("HTTP/2.0"); !ok {
		t.Fatal("the test did not speak HTTP/2")
	}
}
