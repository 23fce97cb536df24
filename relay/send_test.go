package relay_test

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"errors"
	"math"
	"net/http"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/oklog/ulid/v2"

	"relay/relay"
	"relay/relayclient"
)

// idAt returns an envelope id whose time is the server clock plus d.
func (s *testServer) idAt(d time.Duration) string {
	return ulid.MustNew(ulid.Timestamp(s.Clock.Now().Add(d)), rand.Reader).String()
}

func TestSendRefusals(t *testing.T) {
	s := newTestServer(t, withMaxBody(1000))
	alice := s.register(t, "alice", 1)
	s.register(t, "bob", 1)
	dev := alice.Devices[0]
	hdr := func(kv ...string) map[string]string {
		m := map[string]string{"X-Device": dev, "Origin": s.URL}
		for i := 0; i < len(kv); i += 2 {
			if kv[i+1] == "" {
				delete(m, kv[i])
			} else {
				m[kv[i]] = kv[i+1]
			}
		}
		return m
	}
	env := func(id, to, body string) map[string]string {
		return map[string]string{"id": id, "to": to, "body": body}
	}
	okBody := b64([]byte("ciphertext"))

	cases := []struct {
		name   string
		client *relayclient.Client
		header map[string]string
		body   any
		status int
		code   string
	}{
		{"no session", relayclient.New(s.URL), hdr(), env(s.newID(), "bob", okBody), 401, "unauthenticated"},
		{"no device", alice.Client, hdr("X-Device", ""), env(s.newID(), "bob", okBody), 400, "device_required"},
		{"not json", alice.Client, hdr(), "not json", 400, "bad_envelope"},
		{"array", alice.Client, hdr(), "[]", 400, "bad_envelope"},
		{"null", alice.Client, hdr(), "null", 400, "bad_envelope"},
		{"missing id", alice.Client, hdr(), map[string]string{"to": "bob", "body": okBody}, 400, "bad_envelope"},
		{"numeric id", alice.Client, hdr(), `{"id": 5, "to": "bob", "body": "` + okBody + `"}`, 400, "bad_envelope"},
		{"lower-case id", alice.Client, hdr(), env(strings.ToLower(s.newID()), "bob", okBody), 400, "bad_envelope"},
		{"short id", alice.Client, hdr(), env(s.newID()[:25], "bob", okBody), 400, "bad_envelope"},
		{"bad to", alice.Client, hdr(), env(s.newID(), "Bob!", okBody), 400, "bad_envelope"},
		{"url-safe body", alice.Client, hdr(), env(s.newID(), "bob", base64.URLEncoding.EncodeToString([]byte{0xfb, 0xff, 0xfe})), 400, "bad_envelope"},
		{"unpadded body", alice.Client, hdr(), env(s.newID(), "bob", base64.RawStdEncoding.EncodeToString([]byte("ab"))), 400, "bad_envelope"},
		{"body with newline", alice.Client, hdr(), env(s.newID(), "bob", "YWJj\nZGVm"), 400, "bad_envelope"},
		{"empty body", alice.Client, hdr(), env(s.newID(), "bob", ""), 400, "bad_envelope"},
		{"body over limit", alice.Client, hdr(), env(s.newID(), "bob", b64(make([]byte, 1001))), 413, "too_large"},
		{"request over 128 KiB", alice.Client, hdr(), env(s.newID(), "bob", strings.Repeat("A", 130<<10)), 413, "too_large"},
		{"id 6 min early", alice.Client, hdr(), env(s.idAt(-6*time.Minute), "bob", okBody), 400, "clock_skew"},
		{"id 6 min late", alice.Client, hdr(), env(s.idAt(6*time.Minute), "bob", okBody), 400, "clock_skew"},
		{"no origin", alice.Client, hdr("Origin", ""), env(s.newID(), "bob", okBody), 403, "origin_required"},
		{"foreign origin", alice.Client, hdr("Origin", "http://evil.example"), env(s.newID(), "bob", okBody), 403, "origin_forbidden"},
		{"origin with path", alice.Client, hdr("Origin", s.URL+"/x"), env(s.newID(), "bob", okBody), 403, "origin_forbidden"},
		{"unknown recipient", alice.Client, hdr(), env(s.newID(), "carol", okBody), 404, "unknown_recipient"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			a := raw(t, tc.client, "POST", "/api/messages", tc.header, tc.body)
			if a.Status != tc.status || a.code() != tc.code {
				t.Fatalf("got %d %s, want %d %s", a.Status, a.Raw, tc.status, tc.code)
			}
			if tc.code == "clock_skew" {
				st, ok := a.Body["serverTime"].(float64)
				if !ok || int64(st) != s.Clock.Now().UnixMilli() {
					t.Fatalf("clock_skew answer lacks the server time: %s", a.Raw)
				}
			}
			if st := s.state(t); st != [3]int{} {
				t.Fatalf("a refused send changed state: queue, sent, contacts = %v", st)
			}
		})
	}
	// Inside the window both ways is fine.
	for _, d := range []time.Duration{-299 * time.Second, 299 * time.Second} {
		if _, err := alice.device(0).Send(context.Background(), s.idAt(d), "bob", []byte("x")); err != nil {
			t.Fatalf("id %v from server time: %v", d, err)
		}
	}
}

// TestCheckOrder proves the documented order: a request that fails several
// checks gets the error of the earliest.
func TestCheckOrder(t *testing.T) {
	s := newTestServer(t, withRate(1))
	alice := s.register(t, "alice", 1)
	s.register(t, "bob", 1)
	dev := alice.Devices[0]
	skewed := s.idAt(time.Hour)
	bad := map[string]string{"id": "x", "to": "carol", "body": "!"}

	// Spend alice's only token so that the rate limit fails too.
	s.send(t, alice.device(0), "bob", "first")

	cases := []struct {
		name   string
		client *relayclient.Client
		header map[string]string
		body   any
		code   string
	}{
		// Fails 1-8 (no session, no device, bad shape, no origin).
		{"session first", relayclient.New(s.URL), nil, bad, "unauthenticated"},
		// Fails 2-8.
		{"device before shape", alice.Client, nil, bad, "device_required"},
		{"foreign device before shape", alice.Client, map[string]string{"X-Device": ulid.Make().String()}, bad, "device_forbidden"},
		// Fails 3-8.
		{"shape before skew", alice.Client, map[string]string{"X-Device": dev}, map[string]string{"id": skewed, "to": "carol", "body": "!"}, "bad_envelope"},
		// Fails 5-8: skewed, rate-limited, no origin, unknown recipient.
		{"skew before rate", alice.Client, map[string]string{"X-Device": dev}, map[string]string{"id": skewed, "to": "carol", "body": "eA=="}, "clock_skew"},
		// Fails 6-8.
		{"rate before origin", alice.Client, map[string]string{"X-Device": dev}, map[string]string{"id": s.newID(), "to": "carol", "body": "eA=="}, "rate_limited"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			a := raw(t, tc.client, "POST", "/api/messages", tc.header, tc.body)
			if a.code() != tc.code {
				t.Fatalf("got %d %s, want %s", a.Status, a.Raw, tc.code)
			}
		})
	}
	// Fails 7-8 once a token is back.
	s.Clock.Advance(2 * time.Minute)
	a := raw(t, alice.Client, "POST", "/api/messages", map[string]string{"X-Device": dev}, map[string]string{"id": s.newID(), "to": "carol", "body": "eA=="})
	if a.code() != "origin_required" {
		t.Fatalf("origin before recipient: got %d %s", a.Status, a.Raw)
	}
}

func TestRateLimit(t *testing.T) {
	s := newTestServer(t, withRate(3))
	ctx := context.Background()
	alice := s.register(t, "alice", 2)
	s.register(t, "bob", 1)

	// Refused sends take no token.
	for i := 0; i < 5; i++ {
		_, err := alice.device(0).Send(ctx, s.newID(), "carol", []byte("x"))
		wantCode(t, err, "unknown_recipient")
		noOrigin := alice.device(0)
		noOrigin.Origin = ""
		_, err = noOrigin.Send(ctx, s.newID(), "bob", []byte("x"))
		wantCode(t, err, "origin_required")
	}
	// The bucket is per account, whichever device sends.
	for i := 0; i < 3; i++ {
		s.send(t, alice.device(i%2), "bob", "x")
	}
	_, err := alice.device(1).Send(ctx, s.newID(), "bob", []byte("x"))
	var e *relayclient.Error
	if relayclient.Code(err) != "rate_limited" {
		t.Fatalf("4th send in a minute: %v", err)
	}
	if errorsAs(err, &e); e.Status != http.StatusTooManyRequests || e.RetryAfter != 20*time.Second {
		t.Fatalf("rate limit answer: %+v", e)
	}
	// A resend of an accepted envelope is harmless: it takes no token.
	// After a full minute the bucket holds 3 again: one for the first
	// send, none for the resends, two for new envelopes, and then none.
	s.Clock.Advance(time.Minute)
	first := s.newID()
	if _, err := alice.device(0).Send(ctx, first, "bob", []byte("y")); err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 3; i++ {
		if _, err := alice.device(0).Send(ctx, first, "bob", []byte("y")); err != nil {
			t.Fatalf("resend %d: %v", i, err)
		}
	}
	s.send(t, alice.device(0), "bob", "second")
	s.send(t, alice.device(0), "bob", "third")
	_, err = alice.device(0).Send(ctx, s.newID(), "bob", []byte("x"))
	wantCode(t, err, "rate_limited")
	s.Clock.Advance(20 * time.Second)
	s.send(t, alice.device(0), "bob", "one token came back in 20 s")
}

// TestReadingSpendsNoBudgetForOthers: envelopes to one's own account (read
// records, ADR 0015) have a bucket of their own (ADR 0035). With the
// default 30 a minute to others, an account that has sent more than 30 envelopes
// to itself still sends 30 to others within the minute, and the 31st is
// refused; the bucket to self is bounded too, and spending it does not
// hold up a reply. On the naive version, one shared bucket, the test
// fails at the 31st envelope to self, which is already refused.
func TestReadingSpendsNoBudgetForOthers(t *testing.T) {
	selfRate := relay.DefaultConfig().SelfRatePerMinute
	s := newTestServer(t, withRate(30), withSelfRate(selfRate))
	ctx := context.Background()
	alice := s.register(t, "alice", 2)
	s.register(t, "bob", 1)
	refused := func(to string, retry time.Duration) {
		t.Helper()
		_, err := alice.device(0).Send(ctx, s.newID(), to, []byte("x"))
		var e *relayclient.Error
		if !errorsAs(err, &e) || e.Code != "rate_limited" || e.Status != http.StatusTooManyRequests || e.RetryAfter != retry {
			t.Fatalf("to %s: got %v, want 429 rate_limited with Retry-After %v", to, err, retry)
		}
	}

	// A refused envelope to self gives its token back to its own bucket.
	noOrigin := alice.device(0)
	noOrigin.Origin = ""
	for i := 0; i < 5; i++ {
		_, err := noOrigin.Send(ctx, s.newID(), "alice", []byte("x"))
		wantCode(t, err, "origin_required")
	}
	// Reading: more envelopes to self than the whole budget for others.
	for i := 0; i < 40; i++ {
		s.send(t, alice.device(i%2), "alice", "read")
	}
	// Every reply of the minute's budget is still accepted, and not one more.
	for i := 0; i < 30; i++ {
		s.send(t, alice.device(i%2), "bob", "reply")
	}
	refused("bob", 2*time.Second) // 30 a minute: a token every 2 s
	// Reading goes on while replies wait, up to its own bound.
	var first relayclient.Accepted
	for i := 40; i < selfRate; i++ {
		first = s.send(t, alice.device(i%2), "alice", "read")
	}
	refused("alice", time.Duration(math.Ceil(60/float64(selfRate)))*time.Second)

	// Two seconds later one reply's token is back although the bucket to
	// self was empty; and a resend of an accepted envelope to self takes
	// no token: all the tokens two seconds gave the bucket to self are
	// left for new envelopes.
	s.Clock.Advance(2 * time.Second)
	s.send(t, alice.device(0), "bob", "reply")
	refused("bob", 2*time.Second)
	for i := 0; i < 3; i++ {
		a, err := alice.device(1).Send(ctx, first.ID, "alice", []byte("read"))
		if err != nil || a.TS != first.TS {
			t.Fatalf("resend %d of an envelope to self: %+v, %v; want the original ts %d", i, a, err, first.TS)
		}
	}
	for i := 0; i < selfRate/30; i++ {
		s.send(t, alice.device(0), "alice", "read")
	}
	refused("alice", time.Duration(math.Ceil(60/float64(selfRate)))*time.Second)
}

// TestReceiptsSpendNoBudgetForMessages: envelopes marked as receipts take
// their tokens from a bucket of their own (ADR 0051). A reader who has sent
// more receipts than the whole message budget still sends the minute's 30
// messages, the 31st message is refused, and the receipt bucket is bounded
// too. On the naive version (receipts in the message bucket) the 31st
// receipt is already refused.
func TestReceiptsSpendNoBudgetForMessages(t *testing.T) {
	receiptRate := relay.DefaultConfig().ReceiptRatePerMinute
	s := newTestServer(t, withRate(30), withReceiptRate(receiptRate))
	ctx := context.Background()
	alice := s.register(t, "alice", 2)
	s.register(t, "bob", 1)
	receipt := func() (relayclient.Accepted, error) {
		return alice.device(0).SendReceipt(ctx, s.newID(), "bob", []byte("r"))
	}
	for i := 0; i < 40; i++ {
		if _, err := receipt(); err != nil {
			t.Fatalf("receipt %d: %v", i+1, err)
		}
	}
	for i := 0; i < 30; i++ {
		s.send(t, alice.device(i%2), "bob", "reply")
	}
	_, err := alice.device(0).Send(ctx, s.newID(), "bob", []byte("x"))
	wantCode(t, err, "rate_limited")
	for i := 40; i < receiptRate; i++ {
		if _, err := receipt(); err != nil {
			t.Fatalf("receipt %d: %v", i+1, err)
		}
	}
	_, err = receipt()
	wantCode(t, err, "rate_limited")
	// A receipt to oneself is an envelope to self: the bucket to self.
	if _, err := alice.device(0).SendReceipt(ctx, s.newID(), "alice", []byte("r")); err != nil {
		t.Fatalf("a receipt to self: %v", err)
	}
	// The relay stores a receipt like any envelope: one row per device.
	if n := s.count(t, "SELECT count(*) FROM queue WHERE body = $1", []byte("r")); n != 2*receiptRate+1 {
		t.Fatalf("%d queue rows of receipts, want %d", n, 2*receiptRate+1)
	}
}

func errorsAs(err error, target **relayclient.Error) bool {
	e, ok := err.(*relayclient.Error)
	if ok {
		*target = e
	}
	return ok
}

func TestIdempotentSend(t *testing.T) {
	s := newTestServer(t)
	ctx := context.Background()
	alice := s.register(t, "alice", 2)
	bob := s.register(t, "bob", 1)

	id := s.newID()
	first, err := alice.device(0).Send(ctx, id, "bob", []byte("hello"))
	if err != nil {
		t.Fatal(err)
	}
	rows := s.count(t, "SELECT count(*) FROM queue")
	if rows != 2 { // bob's device and alice's other device
		t.Fatalf("%d queue rows, want 2", rows)
	}
	s.Clock.Advance(3 * time.Second)
	// Same envelope again, also from the account's other device.
	for _, c := range []*relayclient.Client{alice.device(0), alice.device(1)} {
		again, err := c.Send(ctx, id, "bob", []byte("hello"))
		if err != nil {
			t.Fatal(err)
		}
		if again != first {
			t.Fatalf("resend answered %+v, first answer was %+v", again, first)
		}
	}
	if n := s.count(t, "SELECT count(*) FROM queue"); n != rows {
		t.Fatalf("resend queued again: %d rows", n)
	}
	// Even after every recipient ACKed the first copy.
	for _, c := range []*relayclient.Client{bob.device(0), alice.device(1)} {
		if err := c.Ack(ctx, 1); err != nil {
			t.Fatal(err)
		}
	}
	again, err := alice.device(0).Send(ctx, id, "bob", []byte("hello"))
	if err != nil || again != first {
		t.Fatalf("resend after ACK: %+v %v", again, err)
	}
	if n := s.count(t, "SELECT count(*) FROM queue"); n != 0 {
		t.Fatalf("resend after ACK queued %d rows", n)
	}
	// Same id, different envelope.
	_, err = alice.device(0).Send(ctx, id, "bob", []byte("other"))
	wantCode(t, err, "id_conflict")
	_, err = alice.device(0).Send(ctx, id, "alice", []byte("hello"))
	wantCode(t, err, "id_conflict")
	// Another account may use the same id: dedup is per sender account.
	if _, err := bob.device(0).Send(ctx, id, "alice", []byte("hello")); err != nil {
		t.Fatalf("bob reusing alice's id: %v", err)
	}
}

// TestIdempotencyRecordsExpire: a record is kept while a resend could pass
// the skew check and for the dedup window after the accept, whichever
// ends later (ADR 0084); housekeeping, which Run starts, deletes records
// past their time. The envelopes are sent before Run starts, which works
// too: each is committed on its own.
func TestIdempotencyRecordsExpire(t *testing.T) {
	s := newTestServerWithoutRun(t, withDedupWindow(10*time.Minute))
	alice := s.register(t, "alice", 1)
	s.register(t, "bob", 0)
	ctx := context.Background()
	now := s.Clock.Now()
	ahead := s.idAt(299 * time.Second)
	for _, c := range []struct {
		id      string
		expires time.Time
	}{
		{s.newID(), now.Add(10 * time.Minute)}, // the dedup window's end
		// The skew window's end, plus a minute.
		{ahead, ulid.MustParse(ahead).Timestamp().Add(6 * time.Minute)},
	} {
		if _, err := alice.device(0).Send(ctx, c.id, "bob", []byte("x")); err != nil {
			t.Fatal(err)
		}
		var got time.Time
		if err := s.Pool.QueryRow(ctx, `SELECT expires_at FROM sent WHERE envelope_id = $1`, c.id).Scan(&got); err != nil {
			t.Fatal(err)
		}
		if d := got.Sub(c.expires).Abs(); d > time.Millisecond {
			t.Fatalf("the record of id %s expires at %v, want %v", c.id, got, c.expires)
		}
	}
	s.Clock.Advance(11 * time.Minute)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- s.Relay.Run(ctx) }()
	deadline := time.Now().Add(10 * time.Second)
	for s.count(t, "SELECT count(*) FROM sent") != 0 {
		if time.Now().After(deadline) {
			t.Fatal("housekeeping did not delete the expired idempotency record")
		}
		time.Sleep(10 * time.Millisecond)
	}
	cancel()
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Fatalf("Run returned %v after its context ended", err)
	}
}

func TestFanOut(t *testing.T) {
	s := newTestServer(t)
	ctx := context.Background()
	alice := s.register(t, "alice", 3)
	bob := s.register(t, "bob", 2)

	// A forged "from" in the body is ignored.
	a := raw(t, alice.device(1), "POST", "/api/messages", map[string]string{"X-Device": alice.Devices[1], "Origin": s.URL},
		map[string]string{"id": s.newID(), "to": "bob", "body": b64([]byte("c1")), "from": "bob", "fromDevice": bob.Devices[0]})
	if a.Status != http.StatusAccepted {
		t.Fatalf("send: %d %s", a.Status, a.Raw)
	}
	rows, err := s.Pool.Query(ctx, "SELECT device_id, seq, from_username, from_device, to_username, body FROM queue ORDER BY device_id")
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for rows.Next() {
		var dev, from, fromDev, to string
		var seq int64
		var body []byte
		if err := rows.Scan(&dev, &seq, &from, &fromDev, &to, &body); err != nil {
			t.Fatal(err)
		}
		if seq != 1 || from != "alice" || fromDev != alice.Devices[1] || to != "bob" || string(body) != "c1" {
			t.Errorf("queue row for %s: seq %d from %s/%s to %s body %q", dev, seq, from, fromDev, to, body)
		}
		got = append(got, dev)
	}
	want := []string{alice.Devices[0], alice.Devices[2], bob.Devices[0], bob.Devices[1]}
	sort.Strings(want)
	if strings.Join(got, ",") != strings.Join(want, ",") {
		t.Fatalf("fanned out to %v, want %v (never the sending device %s)", got, want, alice.Devices[1])
	}

	// Notes to self reach the account's other devices only.
	s.send(t, alice.device(0), "alice", "note")
	if n := s.count(t, "SELECT count(*) FROM queue WHERE envelope_id IN (SELECT envelope_id FROM sent WHERE to_username = 'alice')"); n != 2 {
		t.Fatalf("a note to self went to %d devices, want 2", n)
	}
	if n := s.count(t, "SELECT count(*) FROM queue WHERE device_id = $1", alice.Devices[0]); n != 1 {
		t.Fatalf("the sending device got its own note")
	}
	// seq counts per device: alice's device 2 has had two envelopes.
	if n := s.count(t, "SELECT max(seq) FROM queue WHERE device_id = $1", alice.Devices[2]); n != 2 {
		t.Fatalf("device seq %d, want 2", n)
	}
}

func TestContactsBothWays(t *testing.T) {
	s := newTestServer(t)
	ctx := context.Background()
	alice := s.register(t, "alice", 1)
	bob := s.register(t, "bob", 1)
	carol := s.register(t, "carol", 1)

	for _, u := range []*user{alice, bob} {
		if list, err := u.Client.Contacts(ctx); err != nil || len(list) != 0 {
			t.Fatalf("contacts before any envelope: %v %v", list, err)
		}
	}
	s.send(t, alice.device(0), "bob", "hi")
	s.send(t, alice.device(0), "bob", "again")
	s.send(t, alice.device(0), "alice", "note to self")
	la, _ := alice.Client.Contacts(ctx)
	lb, _ := bob.Client.Contacts(ctx)
	lc, _ := carol.Client.Contacts(ctx)
	if len(la) != 1 || la[0].Username != "bob" || len(la[0].PublicKey) != 65 || la[0].Since == 0 {
		t.Fatalf("alice's contacts: %+v", la)
	}
	if len(lb) != 1 || lb[0].Username != "alice" {
		t.Fatalf("bob's contacts: %+v", lb)
	}
	if len(lc) != 0 {
		t.Fatalf("carol's contacts: %+v", lc)
	}
	_, err := relayclient.New(s.URL).Contacts(ctx)
	wantCode(t, err, "unauthenticated")
}

func TestOriginAllowlist(t *testing.T) {
	s := newTestServer(t, withOrigins("https://chat.example", "HTTPS://Other.Example:8443"))
	ctx := context.Background()
	c := relayclient.New(s.URL)
	// The base URL is not on a configured list.
	wantCode(t, c.Register(ctx, "alice", password, newKey(t)), "origin_forbidden")
	c.Origin = "https://chat.example"
	if err := c.Register(ctx, "alice", password, newKey(t)); err != nil {
		t.Fatal(err)
	}
	c.Origin = "https://other.example:8443" // origins compare case-insensitively
	if _, err := c.AddDevice(ctx, "d", newKey(t)); err != nil {
		t.Fatal(err)
	}
	c.Origin = "https://chat.example.evil.example"
	_, err := c.AddDevice(ctx, "d", newKey(t))
	wantCode(t, err, "origin_forbidden")
}
