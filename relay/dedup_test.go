package relay_test

import (
	"context"
	"errors"
	"net/http"
	"sync/atomic"
	"testing"
	"time"

	"relay/queue"
	"relay/relay"
	"relay/relayclient"
)

func withDedupWindow(d time.Duration) option { return func(c *relay.Config) { c.DedupWindow = d } }

// errAnswerLost is the error of a request whose answer loseFirstAnswer
// threw away.
var errAnswerLost = errors.New("the answer was lost on the way back")

// loseFirstAnswer makes c's first POST /api/messages reach the relay and
// its answer never reach c, as a dropped mobile link does after the relay
// committed.
func loseFirstAnswer(c *relayclient.Client) {
	var lost atomic.Bool
	next := c.HTTP.Transport
	if next == nil {
		next = http.DefaultTransport
	}
	hc := *c.HTTP
	hc.Transport = roundTripper(func(r *http.Request) (*http.Response, error) {
		resp, err := next.RoundTrip(r)
		if err == nil && r.Method == http.MethodPost && r.URL.Path == "/api/messages" && lost.CompareAndSwap(false, true) {
			resp.Body.Close()
			return nil, errAnswerLost
		}
		return resp, err
	})
	c.HTTP = &hc
}

type roundTripper func(*http.Request) (*http.Response, error)

func (f roundTripper) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

// perDevice counts the queue rows of envelope id, by device.
func (s *testServer) perDevice(t *testing.T, id string) map[string]int {
	t.Helper()
	rows, err := s.Pool.Query(context.Background(), `SELECT device_id, count(*) FROM queue WHERE envelope_id = $1 GROUP BY device_id`, id)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	got := map[string]int{}
	for rows.Next() {
		var dev string
		var n int
		if err := rows.Scan(&dev, &n); err != nil {
			t.Fatal(err)
		}
		got[dev] = n
	}
	return got
}

// TestSlowClockRetryAfterALostAnswer: alice's device clock is 3 minutes
// behind the relay's. Her send is committed and its 202 lost; the client
// retries with the same id 2.5 minutes later, within its own rule, when
// the id is 5.5 minutes old to the relay. The relay knows the id: 202
// with the original ts, and still one queue row per device. The control
// is the code before ADR 0084, which checked the clock first and answered
// clock_skew, so that the client sent the message again under a new id.
func TestSlowClockRetryAfterALostAnswer(t *testing.T) {
	s := newTestServer(t)
	ctx := context.Background()
	alice := s.register(t, "alice", 2)
	bob := s.register(t, "bob", 1)
	sender := alice.device(0)
	loseFirstAnswer(sender)

	id := s.idAt(-3 * time.Minute)
	accepted := s.Clock.Now().UnixMilli()
	if _, err := sender.Send(ctx, id, "bob", []byte("once")); !errors.Is(err, errAnswerLost) {
		t.Fatalf("the first attempt: %v, want its answer lost", err)
	}
	s.Clock.Advance(150 * time.Second)
	again, err := sender.Send(ctx, id, "bob", []byte("once"))
	if err != nil {
		t.Fatalf("the retry of a committed envelope whose id is 5.5 minutes old: %v", err)
	}
	if again.ID != id || again.TS != accepted {
		t.Fatalf("the retry answered %+v, want id %s and the original ts %d", again, id, accepted)
	}
	want := map[string]int{bob.Devices[0]: 1, alice.Devices[1]: 1}
	got := s.perDevice(t, id)
	if len(got) != len(want) || got[bob.Devices[0]] != 1 || got[alice.Devices[1]] != 1 {
		t.Fatalf("queue rows by device %v, want one for each of %v", got, want)
	}
}

// TestResendRecognisedAfterADayOffline: a client offline for a day
// retries with its old id and is answered 202 with the original ts, even
// after housekeeping ran; once the dedup window has passed, housekeeping
// deletes the record and the old id is unknown and skewed: clock_skew,
// which is when the client makes a new id. The control is a window of a
// minute, the records' life before ADR 0084 (the id's time plus 6
// minutes): the same retry is refused.
func TestResendRecognisedAfterADayOffline(t *testing.T) {
	for _, tc := range []struct {
		name   string
		window time.Duration
		known  bool
	}{
		{"default window", 0, true},
		{"control: records only as long as the skew check", time.Minute, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := newTestServer(t, withDedupWindow(tc.window))
			ctx := context.Background()
			alice := s.register(t, "alice", 1)
			s.register(t, "bob", 1)
			id := s.newID()
			first, err := alice.device(0).Send(ctx, id, "bob", []byte("sent before the flight"))
			if err != nil {
				t.Fatal(err)
			}
			s.Clock.Advance(25 * time.Hour)
			if _, err := queue.PurgeSent(ctx, s.Pool, s.Clock.Now()); err != nil {
				t.Fatal(err)
			}
			again, err := alice.device(0).Send(ctx, id, "bob", []byte("sent before the flight"))
			if !tc.known {
				wantCode(t, err, "clock_skew")
				return
			}
			if err != nil || again != first {
				t.Fatalf("a day later: %+v %v, want %+v", again, err, first)
			}
			if n := s.count(t, `SELECT count(*) FROM queue WHERE envelope_id = $1`, id); n != 1 {
				t.Fatalf("%d queue rows for the envelope, want 1", n)
			}
			s.Clock.Advance(relay.DefaultConfig().DedupWindow - 25*time.Hour + time.Second)
			if n, err := queue.PurgeSent(ctx, s.Pool, s.Clock.Now()); err != nil || n != 1 {
				t.Fatalf("housekeeping after the window deleted %d records (%v), want 1", n, err)
			}
			_, err = alice.device(0).Send(ctx, id, "bob", []byte("sent before the flight"))
			wantCode(t, err, "clock_skew")
		})
	}
}

// TestKnownIDAnsweredBeforeTheOtherChecks: an id the account has sent is
// answered from its record (docs/protocol.md, check 4) before the clock
// skew, the rate limit and the recipient checks, and after Origin: a
// resend during a rate-limit stall is a 202 and takes no token, and the
// same id with another body or recipient is id_conflict however old the
// id. An unknown id is still refused by each check. The control is the
// unknown id in each case, and the code before ADR 0084, which answered
// clock_skew, rate_limited and unknown_recipient.
func TestKnownIDAnsweredBeforeTheOtherChecks(t *testing.T) {
	s := newTestServer(t, withRate(2))
	ctx := context.Background()
	alice := s.register(t, "alice", 1)
	s.register(t, "bob", 1)
	dev := alice.device(0)
	hdr := map[string]string{"X-Device": alice.Devices[0], "Origin": s.URL}
	post := func(id, to, body string, header map[string]string) answer {
		t.Helper()
		return raw(t, alice.Client, "POST", "/api/messages", header, map[string]string{"id": id, "to": to, "body": b64([]byte(body))})
	}

	known := s.newID()
	first, err := dev.Send(ctx, known, "bob", []byte("hello"))
	if err != nil {
		t.Fatal(err)
	}
	// The bucket of 2 holds one token: three resends take none of it.
	for range 3 {
		if a, err := dev.Send(ctx, known, "bob", []byte("hello")); err != nil || a != first {
			t.Fatalf("a resend: %+v %v", a, err)
		}
	}
	s.send(t, dev, "bob", "takes the last token")
	// A stall: a new id is refused, a known one is not.
	if a := post(s.newID(), "bob", "x", hdr); a.code() != "rate_limited" {
		t.Fatalf("a new id in the stall: %d %s", a.Status, a.Raw)
	}
	if a, err := dev.Send(ctx, known, "bob", []byte("hello")); err != nil || a != first {
		t.Fatalf("a resend in the stall: %+v %v, want %+v", a, err, first)
	}

	s.Clock.Advance(10 * time.Minute) // the id is skewed now; the bucket is full again
	recent := s.newID()
	if _, err := dev.Send(ctx, recent, "bob", []byte("recent")); err != nil {
		t.Fatal(err)
	}
	before := s.state(t)
	for _, tc := range []struct {
		name, id, to, body string
		header             map[string]string
		code               string
	}{
		{"known, skewed, same envelope", known, "bob", "hello", hdr, ""},
		{"known, skewed, another body", known, "bob", "other", hdr, "id_conflict"},
		{"known, skewed, another recipient", known, "alice", "hello", hdr, "id_conflict"},
		{"known, skewed, unknown recipient", known, "carol", "hello", hdr, "id_conflict"},
		{"known, without Origin", known, "bob", "hello", map[string]string{"X-Device": alice.Devices[0]}, "origin_required"},
		{"known, in the window, unknown recipient", recent, "carol", "recent", hdr, "id_conflict"},
		{"unknown, in the window, unknown recipient", s.newID(), "carol", "hello", hdr, "unknown_recipient"},
		{"unknown, skewed", s.idAt(-10 * time.Minute), "bob", "hello", hdr, "clock_skew"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a := post(tc.id, tc.to, tc.body, tc.header)
			if a.code() != tc.code {
				t.Fatalf("got %d %s, want %q", a.Status, a.Raw, tc.code)
			}
			if tc.code == "" && (a.Status != http.StatusAccepted || int64(a.Body["ts"].(float64)) != first.TS) {
				t.Fatalf("got %d %s, want 202 with the original ts %d", a.Status, a.Raw, first.TS)
			}
			if st := s.state(t); st != before {
				t.Fatalf("queue, sent, contacts went from %v to %v", before, st)
			}
		})
	}
}
