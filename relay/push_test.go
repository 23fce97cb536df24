package relay_test

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"relay/internal/pushtest"
	"relay/push"
	"relay/relay"
	"relay/relayclient"
)

const pushContact = "mailto:ops@relay.test"

// withPush turns push on against the tests' own push service, on loopback
// (so private addresses are allowed), with short retry waits.
func withPush(svc *pushtest.Service) option {
	return func(c *relay.Config) {
		c.PushContact = pushContact
		c.PushRootCAs = svc.Roots()
		c.PushAllowPrivate = true
		c.PushBackoff = 10 * time.Millisecond
	}
}

func subscribe(t *testing.T, c *relayclient.Client, sub *pushtest.Subscription) {
	t.Helper()
	if err := c.Do(context.Background(), http.MethodPut, "/api/push",
		map[string]string{"endpoint": sub.Endpoint, "p256dh": sub.P256dh, "auth": sub.Auth}, nil); err != nil {
		t.Fatalf("PUT /api/push: %v", err)
	}
}

// waitFor polls cond every few milliseconds for up to 20 seconds.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("waited 20 s for %s", what)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// settled waits until the pusher has considered every signal so far and
// every push it decided on has ended, and returns its counters.
func settled(t *testing.T, s *testServer) push.Stats {
	t.Helper()
	var st push.Stats
	waitFor(t, "the pusher to catch up", func() bool {
		st = s.Relay.PushStats()
		return st.Settled == st.Signalled && st.Claimed == st.Sent+st.Failed
	})
	return st
}

// pushedAt reports whether a push to device was ever claimed.
func (s *testServer) pushed(t *testing.T, device string) bool {
	t.Helper()
	return s.count(t, `SELECT count(*) FROM push_subscriptions WHERE device_id = $1 AND pushed_at IS NOT NULL`, device) == 1
}

// TestPushOnlyToDevicesWithoutAStream: an envelope pushes to the
// recipient's device that streams nowhere, and not to the one whose
// stream is open, nor to the sender's own other device that got a copy.
// The push carries an empty payload with TTL and Urgency, under the key
// GET /api/push/key gives. Once the stream closes its device is pushed;
// a device marked as streaming on an instance gone silent is pushed, one
// on an instance that beats is not (ADR 0055).
func TestPushOnlyToDevicesWithoutAStream(t *testing.T) {
	svc := pushtest.New(t, pushContact)
	s := newTestServer(t, withPush(svc))
	ctx := context.Background()
	alice := s.register(t, "alice", 2)
	bob := s.register(t, "bob", 4)
	bobLive, bobOff, aliceOther := svc.Subscribe(t), svc.Subscribe(t), svc.Subscribe(t)
	bobElsewhere, bobDeadInstance := svc.Subscribe(t), svc.Subscribe(t)
	subscribe(t, bob.device(0), bobLive)
	subscribe(t, bob.device(1), bobOff)
	subscribe(t, bob.device(2), bobElsewhere)
	subscribe(t, bob.device(3), bobDeadInstance)
	subscribe(t, alice.device(1), aliceOther)
	// Device 2 streams on another instance that is alive, device 3 on
	// one whose last heartbeat is an hour old (it crashed).
	if _, err := s.Pool.Exec(ctx, `INSERT INTO relay_instances (id, seen_at) VALUES ('other', now()), ('dead', now() - interval '1 hour');
		UPDATE devices SET stream_instance = 'other' WHERE id = '`+bob.Devices[2]+`';
		UPDATE devices SET stream_instance = 'dead' WHERE id = '`+bob.Devices[3]+`'`); err != nil {
		t.Fatal(err)
	}
	f := follow(t, bob.device(0), "")
	f.expectReady(t, 0)

	s.send(t, alice.device(0), "bob", "meet at the harbour")
	svc.WaitFor(t, "a push to bob's offline device", func() bool { return len(svc.Pushes(bobOff)) == 1 })
	svc.WaitFor(t, "a push to the device of the dead instance", func() bool { return len(svc.Pushes(bobDeadInstance)) == 1 })
	st := settled(t, s)
	if st.Claimed != 2 || st.Sent != 2 {
		t.Fatalf("claimed %d, sent %d pushes, want 2", st.Claimed, st.Sent)
	}
	for name, c := range map[string]struct {
		sub    *pushtest.Subscription
		device string
	}{"the streaming device": {bobLive, bob.Devices[0]}, "the device streaming elsewhere": {bobElsewhere, bob.Devices[2]}, "the sender's own device": {aliceOther, alice.Devices[1]}} {
		if svc.Tries(c.sub) != 0 || s.pushed(t, c.device) {
			t.Errorf("%s was pushed", name)
		}
	}
	var key struct{ PublicKey string }
	if err := bob.Client.Do(ctx, http.MethodGet, "/api/push/key", nil, &key); err != nil {
		t.Fatal(err)
	}
	p := svc.Pushes(bobOff)[0]
	if len(p.Payload) != 0 || p.TTL != "86400" || p.Urgency != "high" || p.Topic == "" || p.VAPIDKey != key.PublicKey || key.PublicKey == "" {
		t.Fatalf("push %+v under key %q: want an empty payload, TTL 86400, Urgency high, a Topic, the relay's key", p, key.PublicKey)
	}

	// The stream ends: its device streams nowhere and is pushed next.
	f.cancel()
	f.expectEnd(t)
	waitFor(t, "the ended stream to be cleared", func() bool {
		return s.count(t, `SELECT count(*) FROM devices WHERE id = $1 AND stream_instance IS NULL`, bob.Devices[0]) == 1
	})
	s.send(t, alice.device(0), "bob", "second")
	svc.WaitFor(t, "a push to the device whose stream ended", func() bool { return len(svc.Pushes(bobLive)) == 1 })
	settled(t, s)
	if n := len(svc.Pushes(bobOff)); n != 1 {
		t.Fatalf("the offline device got %d pushes within the interval, want 1", n)
	}
}

// TestPushCoalescesBursts: a burst of envelopes to an offline device makes
// one push; once the device has read them, a receipt after the interval
// makes none, even swept, and the next message makes another.
func TestPushCoalescesBursts(t *testing.T) {
	svc := pushtest.New(t, pushContact)
	s := newTestServer(t, withPush(svc))
	ctx := context.Background()
	alice := s.register(t, "alice", 1)
	bob := s.register(t, "bob", 1)
	sub := svc.Subscribe(t)
	subscribe(t, bob.device(0), sub)
	for range 10 {
		s.send(t, alice.device(0), "bob", "burst")
	}
	st := settled(t, s)
	if st.Signalled != 10 || st.Claimed != 1 || st.Sent != 1 || svc.Tries(sub) != 1 {
		t.Fatalf("10 envelopes: %+v, %d requests; want one push", st, svc.Tries(sub))
	}
	// Woken, the device reads the burst.
	if err := bob.device(0).Ack(ctx, 10); err != nil {
		t.Fatal(err)
	}
	// Receipts (ADR 0051) never push, even after the interval. Signal
	// runs before the 202, so a receipt that signalled would be counted.
	s.Clock.Advance(relay.DefaultConfig().PushInterval)
	if _, err := alice.device(0).SendReceipt(ctx, s.newID(), "bob", []byte("read")); err != nil {
		t.Fatal(err)
	}
	s.Relay.SweepPush(ctx)
	if st := settled(t, s); st.Claimed != 1 || st.Signalled != 10 || svc.Tries(sub) != 1 {
		t.Fatalf("a receipt: %+v, %d requests; want no push", st, svc.Tries(sub))
	}
	s.send(t, alice.device(0), "bob", "after the interval")
	svc.WaitFor(t, "the second push", func() bool { return len(svc.Pushes(sub)) == 2 })
}

// TestPushGoneDeletesTheSubscription: 410 from the push service deletes
// the subscription (RFC 8030, section 7.3), and so does 404.
func TestPushGoneDeletesTheSubscription(t *testing.T) {
	for _, status := range []int{http.StatusGone, http.StatusNotFound} {
		t.Run(http.StatusText(status), func(t *testing.T) {
			svc := pushtest.New(t, pushContact)
			s := newTestServer(t, withPush(svc))
			alice := s.register(t, "alice", 1)
			bob := s.register(t, "bob", 2)
			gone, kept := svc.Subscribe(t), svc.Subscribe(t)
			subscribe(t, bob.device(0), gone)
			subscribe(t, bob.device(1), kept)
			svc.Answer(gone, status)
			s.send(t, alice.device(0), "bob", "x")
			waitFor(t, "the subscription to be deleted", func() bool {
				return s.count(t, `SELECT count(*) FROM push_subscriptions WHERE device_id = $1`, bob.Devices[0]) == 0
			})
			if st := settled(t, s); st.Failed != 1 || st.Sent != 1 {
				t.Fatalf("%+v: want one failed, one sent", st)
			}
			var got struct{ Endpoint *string }
			if err := bob.device(0).Do(context.Background(), http.MethodGet, "/api/push", nil, &got); err != nil || got.Endpoint != nil {
				t.Fatalf("GET /api/push after %d: %v, %v", status, got.Endpoint, err)
			}
			if s.count(t, `SELECT count(*) FROM push_subscriptions`) != 1 {
				t.Fatal("the other device's subscription went too")
			}
		})
	}
}

// TestPushRetriesWithBackoff: 429 and 503 are retried until the push
// service accepts; a push service that keeps refusing is given up after
// the retries.
func TestPushRetriesWithBackoff(t *testing.T) {
	svc := pushtest.New(t, pushContact)
	s := newTestServer(t, withPush(svc))
	alice := s.register(t, "alice", 1)
	bob := s.register(t, "bob", 2)
	retried, refused := svc.Subscribe(t), svc.Subscribe(t)
	subscribe(t, bob.device(0), retried)
	subscribe(t, bob.device(1), refused)
	svc.Answer(retried, http.StatusTooManyRequests, http.StatusServiceUnavailable)
	svc.Answer(refused, 429, 429, 429, 429, 429)
	s.send(t, alice.device(0), "bob", "x")
	svc.WaitFor(t, "the push after two retries", func() bool { return len(svc.Pushes(retried)) == 1 })
	st := settled(t, s)
	if svc.Tries(retried) != 3 || st.Sent != 1 || st.Failed != 1 || svc.Tries(refused) != 4 {
		t.Fatalf("%+v; %d and %d requests: want 3 to succeed, 4 to give up", st, svc.Tries(retried), svc.Tries(refused))
	}
}

// TestPushServiceHangs: while the push service never answers, sends still
// get their 202 and the stream its envelopes; no more pushes are claimed
// than the bounded queue holds, and the others wait in the database, due,
// instead of being dropped; Close still ends the hung requests (goleak
// checks that nothing is left).
func TestPushServiceHangs(t *testing.T) {
	svc := pushtest.New(t, pushContact)
	s := newTestServer(t, withPush(svc), func(c *relay.Config) { c.PushWorkers, c.PushQueue = 1, 1 })
	alice := s.register(t, "alice", 1)
	bob := s.register(t, "bob", 4)
	for i := range bob.Devices {
		subscribe(t, bob.device(i), svc.Subscribe(t))
	}
	svc.HangAll()
	for i := range 3 {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		_, err := alice.device(0).Send(ctx, s.newID(), "bob", []byte("x"))
		cancel()
		if err != nil {
			t.Fatalf("send %d while the push service hangs: %v", i, err)
		}
	}
	// One push hangs in the worker, one waits in the queue of one.
	var st push.Stats
	waitFor(t, "the worker and the queue to be full", func() bool {
		st = s.Relay.PushStats()
		return st.Settled == st.Signalled && st.Claimed == 2
	})
	s.Relay.SweepPush(context.Background())
	if st = s.Relay.PushStats(); st.Claimed != 2 || st.Dropped != 0 || st.Sent != 0 {
		t.Fatalf("%+v: want 2 claimed, none dropped, none sent", st)
	}
	if n := s.count(t, `SELECT count(*) FROM push_subscriptions WHERE pushed_at IS NULL AND wake_seq > pushed_seq`); n != 2 {
		t.Fatalf("%d devices wait in the database for their push, want 2", n)
	}
	f := follow(t, bob.device(0), "")
	f.expectEnvelopes(t, 1, 3)
	f.expectReady(t, 3)
}

// TestPushAddressGuard: without --push-allow-private, an endpoint whose
// address is loopback is refused at registration, and one whose name
// resolves to loopback is refused when dialled (as after DNS rebinding):
// the push service gets nothing. With the flag both are pushed.
func TestPushAddressGuard(t *testing.T) {
	svc := pushtest.New(t, pushContact)
	byName := func(sub *pushtest.Subscription) *pushtest.Subscription {
		c := *sub
		c.Endpoint = strings.Replace(sub.Endpoint, "127.0.0.1", "localhost", 1)
		return &c
	}
	t.Run("refused", func(t *testing.T) {
		s := newTestServer(t, withPush(svc), func(c *relay.Config) { c.PushAllowPrivate = false })
		alice := s.register(t, "alice", 1)
		bob := s.register(t, "bob", 1)
		sub := svc.Subscribe(t)
		err := bob.device(0).Do(context.Background(), http.MethodPut, "/api/push",
			map[string]string{"endpoint": sub.Endpoint, "p256dh": sub.P256dh, "auth": sub.Auth}, nil)
		wantCode(t, err, "bad_push_subscription")
		subscribe(t, bob.device(0), byName(sub))
		s.send(t, alice.device(0), "bob", "x")
		if st := settled(t, s); st.Failed != 1 || st.Sent != 0 || svc.Tries(sub) != 0 {
			t.Fatalf("%+v, %d requests: the name that resolves to loopback was dialled", st, svc.Tries(sub))
		}
	})
	t.Run("allowed", func(t *testing.T) {
		s := newTestServer(t, withPush(svc))
		alice := s.register(t, "alice", 1)
		bob := s.register(t, "bob", 2)
		literal, named := svc.Subscribe(t), svc.Subscribe(t)
		subscribe(t, bob.device(0), literal)
		subscribe(t, bob.device(1), byName(named))
		s.send(t, alice.device(0), "bob", "x")
		svc.WaitFor(t, "the push to the loopback address", func() bool { return len(svc.Pushes(literal)) == 1 })
		// localhost may resolve to ::1, which the test certificate also names.
		svc.WaitFor(t, "the push to the loopback name", func() bool { return len(svc.Pushes(named)) == 1 })
	})
}

// TestPushSubscriptionAPI: PUT, GET and DELETE /api/push with their
// checks, and the 404 push_disabled of a relay without a contact.
func TestPushSubscriptionAPI(t *testing.T) {
	svc := pushtest.New(t, pushContact)
	s := newTestServer(t, withPush(svc))
	bob := s.register(t, "bob", 1)
	dev := bob.Devices[0]
	sub := svc.Subscribe(t)
	good := `{"endpoint":"` + sub.Endpoint + `","p256dh":"` + sub.P256dh + `","auth":"` + sub.Auth + `"}`
	hdr := func(kv ...string) map[string]string {
		m := map[string]string{"Content-Type": "application/json"}
		for i := 0; i < len(kv); i += 2 {
			m[kv[i]] = kv[i+1]
		}
		return m
	}
	anon := relayclient.New(s.URL)
	for _, c := range []struct {
		name   string
		client *relayclient.Client
		method string
		header map[string]string
		body   string
		status int
		code   string
	}{
		{"no session", anon, "PUT", hdr("X-Device", dev, "Origin", s.URL), good, 401, "unauthenticated"},
		{"no device", bob.Client, "PUT", hdr("Origin", s.URL), good, 400, "device_required"},
		{"no Origin", bob.Client, "PUT", hdr("X-Device", dev), good, 403, "origin_required"},
		{"http endpoint", bob.Client, "PUT", hdr("X-Device", dev, "Origin", s.URL), strings.Replace(good, "https:", "http:", 1), 400, "bad_push_subscription"},
		{"short key", bob.Client, "PUT", hdr("X-Device", dev, "Origin", s.URL), strings.Replace(good, sub.P256dh, sub.P256dh[:40], 1), 400, "bad_push_subscription"},
		{"padded auth", bob.Client, "PUT", hdr("X-Device", dev, "Origin", s.URL), strings.Replace(good, sub.Auth, sub.Auth+"==", 1), 400, "bad_push_subscription"},
		{"missing auth", bob.Client, "PUT", hdr("X-Device", dev, "Origin", s.URL), `{"endpoint":"` + sub.Endpoint + `","p256dh":"` + sub.P256dh + `"}`, 400, "bad_push_subscription"},
		{"twice a name", bob.Client, "PUT", hdr("X-Device", dev, "Origin", s.URL), strings.Replace(good, `{`, `{"auth":"x",`, 1), 400, "bad_json"},
		{"too large", bob.Client, "PUT", hdr("X-Device", dev, "Origin", s.URL), `{"endpoint":"https://p.example/` + strings.Repeat("a", 5000) + `"}`, 413, "too_large"},
		{"no device on GET", bob.Client, "GET", nil, "", 400, "device_required"},
		{"no session for the key", anon, "GET /key", nil, "", 401, "unauthenticated"},
	} {
		t.Run(c.name, func(t *testing.T) {
			path := "/api/push"
			method := c.method
			if method == "GET /key" {
				method, path = "GET", "/api/push/key"
			}
			var body any
			if c.body != "" {
				body = c.body
			}
			a := raw(t, c.client, method, path, c.header, body)
			if a.Status != c.status || a.code() != c.code {
				t.Fatalf("%d %s, want %d %s", a.Status, a.Raw, c.status, c.code)
			}
		})
	}
	if n := s.count(t, `SELECT count(*) FROM push_subscriptions`); n != 0 {
		t.Fatalf("%d subscriptions stored by refused requests", n)
	}
	ctx := context.Background()
	endpoint := func() *string {
		var got struct{ Endpoint *string }
		if err := bob.device(0).Do(ctx, http.MethodGet, "/api/push", nil, &got); err != nil {
			t.Fatal(err)
		}
		return got.Endpoint
	}
	subscribe(t, bob.device(0), sub)
	if e := endpoint(); e == nil || *e != sub.Endpoint {
		t.Fatalf("after PUT: endpoint %v", e)
	}
	other := svc.Subscribe(t)
	subscribe(t, bob.device(0), other)
	if e := endpoint(); e == nil || *e != other.Endpoint || s.count(t, `SELECT count(*) FROM push_subscriptions`) != 1 {
		t.Fatalf("a second PUT did not replace the first: %v", e)
	}
	if err := bob.device(0).Do(ctx, http.MethodDelete, "/api/push", nil, nil); err != nil {
		t.Fatal(err)
	}
	if e := endpoint(); e != nil {
		t.Fatalf("after DELETE: endpoint %q", *e)
	}

	off := newTestServer(t)
	carol := off.register(t, "carol", 1)
	wantCode(t, carol.device(0).Do(ctx, http.MethodGet, "/api/push/key", nil, nil), "push_disabled")
	wantCode(t, carol.device(0).Do(ctx, http.MethodPut, "/api/push", map[string]string{"endpoint": sub.Endpoint, "p256dh": sub.P256dh, "auth": sub.Auth}, nil), "push_disabled")
	if err := carol.device(0).Do(ctx, http.MethodDelete, "/api/push", nil, nil); err != nil {
		t.Fatalf("DELETE /api/push on a relay without push: %v", err)
	}
}

// TestRevokingDeletesThePushSubscription: revoking a device, and a key
// replacement that revokes devices, delete their subscriptions; the
// devices left keep theirs.
func TestRevokingDeletesThePushSubscription(t *testing.T) {
	svc := pushtest.New(t, pushContact)
	s := newTestServer(t, withPush(svc))
	ctx := context.Background()
	alice := s.register(t, "alice", 3)
	for i := range alice.Devices {
		subscribe(t, alice.device(i), svc.Subscribe(t))
	}
	subs := func(i int) int {
		return s.count(t, `SELECT count(*) FROM push_subscriptions WHERE device_id = $1`, alice.Devices[i])
	}
	if err := alice.device(0).Revoke(ctx, alice.Devices[1]); err != nil {
		t.Fatal(err)
	}
	if subs(1) != 0 || subs(0) != 1 || subs(2) != 1 {
		t.Fatalf("after revoking device 1: %d %d %d subscriptions", subs(0), subs(1), subs(2))
	}
	if _, err := alice.device(0).ReplaceKey(ctx, password, newKey(t), []string{alice.Devices[2]}, nil); err != nil {
		t.Fatal(err)
	}
	if subs(2) != 0 || subs(0) != 1 {
		t.Fatalf("after a key replacement that revoked device 2: %d %d subscriptions", subs(0), subs(2))
	}
}

// TestVAPIDKeyKept: the VAPID key pair is made once and kept in the
// database: another relay on the same database serves the same key.
func TestVAPIDKeyKept(t *testing.T) {
	svc := pushtest.New(t, pushContact)
	s := newTestServer(t, withPush(svc))
	bob := s.register(t, "bob", 1)
	var first, second struct{ PublicKey string }
	if err := bob.Client.Do(context.Background(), http.MethodGet, "/api/push/key", nil, &first); err != nil {
		t.Fatal(err)
	}
	again, err := relay.New(relay.Config{Pool: s.Pool, BaseURL: s.URL, PushContact: pushContact, Argon2: cheapArgon2})
	if err != nil {
		t.Fatal(err)
	}
	defer again.Close()
	h := httptestServer(t, again.Handler())
	c := *bob.Client
	c.BaseURL = h
	if err := c.Do(context.Background(), http.MethodGet, "/api/push/key", nil, &second); err != nil {
		t.Fatal(err)
	}
	if first.PublicKey == "" || first.PublicKey != second.PublicKey || s.count(t, `SELECT count(*) FROM push_vapid`) != 1 {
		t.Fatalf("keys %q and %q", first.PublicKey, second.PublicKey)
	}
}

// TestPushContactChecked: a contact that is neither mailto: nor https: is
// refused by New.
func TestPushContactChecked(t *testing.T) {
	s := newTestServerWithoutRun(t)
	for _, c := range []string{"ops@relay.test", "mailto:", "http://relay.test", "https://"} {
		if _, err := relay.New(relay.Config{Pool: s.Pool, BaseURL: s.URL, PushContact: c}); err == nil {
			t.Errorf("contact %q accepted", c)
		}
	}
	for _, c := range []string{"mailto:ops@relay.test", "https://relay.test/contact"} {
		srv, err := relay.New(relay.Config{Pool: s.Pool, BaseURL: s.URL, PushContact: c})
		if err != nil {
			t.Errorf("contact %q refused: %v", c, err)
			continue
		}
		if err := srv.Close(); err != nil && !errors.Is(err, relay.ErrClosed) {
			t.Error(err)
		}
	}
}

func httptestServer(t *testing.T, h http.Handler) string {
	t.Helper()
	hs := httptest.NewServer(h)
	t.Cleanup(hs.Close)
	return hs.URL
}
