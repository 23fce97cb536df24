package relay_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"relay/relayclient"
)

// pageLimit is the bound of GET /api/queue's answer (docs/protocol.md).
const pageLimit = 1 << 20

// fetchRaw asks for one page as given, checks the answer's size and
// decodes it.
func fetchRaw(t *testing.T, c *relayclient.Client, query string) relayclient.Page {
	t.Helper()
	a := raw(t, c, http.MethodGet, "/api/queue"+query, map[string]string{"X-Device": c.Device}, nil)
	if a.Status != http.StatusOK {
		t.Fatalf("GET /api/queue%s: %d %s", query, a.Status, a.Raw)
	}
	if len(a.Raw) > pageLimit {
		t.Fatalf("GET /api/queue%s: the answer is %d bytes, over %d", query, len(a.Raw), pageLimit)
	}
	var p relayclient.Page
	if err := json.Unmarshal(a.Raw, &p); err != nil {
		t.Fatal(err)
	}
	return p
}

// replay is what c's stream replays after lastEventID, up to its ready.
func replay(t *testing.T, c *relayclient.Client, lastEventID string) (purged relayclient.Event, envs []relayclient.Envelope, ready int64) {
	t.Helper()
	f := follow(t, c, lastEventID)
	defer f.cancel()
	for {
		switch e := f.next(t); e.Name {
		case "purged":
			purged = e
		case "envelope":
			envs = append(envs, *e.Envelope)
		case "ready":
			return purged, envs, e.Seq
		default:
			t.Fatalf("unexpected event %q in a replay", e.Name)
		}
	}
}

// sameEnvelopes fails unless got and want hold the same envelopes, field
// for field, in the same order.
func sameEnvelopes(t *testing.T, got, want []relayclient.Envelope) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%d envelopes, want %d", len(got), len(want))
	}
	for i := range got {
		g, w := got[i], want[i]
		if g.Seq != w.Seq || g.ID != w.ID || g.From != w.From || g.FromDevice != w.FromDevice || g.To != w.To || g.TS != w.TS || string(g.Body) != string(w.Body) {
			t.Fatalf("envelope %d: got seq %d id %s, want seq %d id %s (or another field differs)", i, g.Seq, g.ID, w.Seq, w.ID)
		}
	}
}

// TestQueueFetchIsTheStreamsReplay: the pages of GET /api/queue, read to
// the end, hold exactly the envelopes the stream replays (seq, id,
// sender, ts and body), in the same order, and end at the stream's ready;
// from a cursor in the middle too. The queue mixes the largest envelopes
// (15, more than 1 MiB) with small ones, so that pages are cut both by
// their limit and by their size bound (asserted: the controls that the paging was exercised), and
// every answer stays within the bound.
func TestQueueFetchIsTheStreamsReplay(t *testing.T) {
	s := newTestServer(t)
	alice := s.register(t, "alice", 2) // her second device gets copies too
	bob := s.register(t, "bob", 1)
	for i := range 40 {
		body := fmt.Sprintf("small %d", i)
		if i < 15 {
			body = strings.Repeat(string(rune('a'+i)), 64<<10)
		}
		s.send(t, alice.device(0), "bob", body)
	}
	s.send(t, bob.device(0), "alice", "a reply, for alice's second device")
	const limit = 20
	for _, dev := range []*relayclient.Client{bob.device(0), alice.device(1)} {
		var got []relayclient.Envelope
		var cutByLimit, cutBySize bool
		after, pages := int64(0), 0
		for {
			p := fetchRaw(t, dev, fmt.Sprintf("?after=%d&limit=%d", after, limit))
			pages++
			got = append(got, p.Envelopes...)
			if p.Next == p.Head {
				after = p.Next
				break
			}
			if len(p.Envelopes) == 0 || p.Next != p.Envelopes[len(p.Envelopes)-1].Seq {
				t.Fatalf("page %d: next %d, head %d, with %d envelopes: a cut page ends at its last envelope", pages, p.Next, p.Head, len(p.Envelopes))
			}
			cutByLimit = cutByLimit || len(p.Envelopes) == limit
			cutBySize = cutBySize || len(p.Envelopes) < limit
			after = p.Next
		}
		_, want, ready := replay(t, dev, "")
		sameEnvelopes(t, got, want)
		if last := fetchRaw(t, dev, fmt.Sprintf("?after=%d", after)); last.Head != ready || last.Next != ready || len(last.Envelopes) != 0 {
			t.Fatalf("the last page: next %d, head %d, %d envelopes; want the stream's ready %d and none", last.Next, last.Head, len(last.Envelopes), ready)
		}
		if len(want) < 40 || !cutByLimit || !cutBySize {
			t.Fatalf("%d envelopes in %d pages, a page cut by its limit: %v, by its size: %v; the test no longer exercises the paging",
				len(want), pages, cutByLimit, cutBySize)
		}
		// From a cursor past the first envelopes: the stream resumed
		// there.
		mid := want[1].Seq
		p := fetchRaw(t, dev, fmt.Sprintf("?after=%d&limit=500", mid))
		_, rest, _ := replay(t, dev, fmt.Sprint(mid))
		if p.Next == p.Head {
			t.Fatal("the rest of the queue fit one page; it should be over the size bound")
		}
		sameEnvelopes(t, p.Envelopes, rest[:len(p.Envelopes)])
	}
}

// TestQueueFetchPolling: a client that is up to date polls with
// after=head and gets an empty page until an envelope arrives, then that
// envelope with the next seq; without limit the page holds up to 100.
// ACKing up to next deletes what the pages delivered.
func TestQueueFetchPolling(t *testing.T) {
	s := newTestServer(t)
	ctx := context.Background()
	alice := s.register(t, "alice", 1)
	bob := s.register(t, "bob", 1)
	for range 120 {
		s.send(t, alice.device(0), "bob", "x")
	}
	dev := bob.device(0)
	p, err := dev.Fetch(ctx, 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Envelopes) != 100 || p.Next != 100 || p.Head != 120 {
		t.Fatalf("default page: %d envelopes, next %d, head %d; want 100, 100, 120", len(p.Envelopes), p.Next, p.Head)
	}
	if err := dev.Ack(ctx, p.Next); err != nil {
		t.Fatal(err)
	}
	if n := s.count(t, `SELECT count(*) FROM queue WHERE device_id = $1`, dev.Device); n != 20 {
		t.Fatalf("%d envelopes queued after the ACK, want 20", n)
	}
	if p, err = dev.Fetch(ctx, 0, 0); err != nil || len(p.Envelopes) != 20 || p.Envelopes[0].Seq != 101 || p.Next != 120 {
		t.Fatalf("from 0 after the ACK: %+v, %v; want 101..120", p, err)
	}
	idle, err := dev.Fetch(ctx, 120, 0)
	if err != nil || len(idle.Envelopes) != 0 || idle.Next != 120 || idle.Head != 120 || idle.Purged != nil {
		t.Fatalf("polling at the head: %+v, %v; want an empty page at 120", idle, err)
	}
	a := s.send(t, alice.device(0), "bob", "new")
	p, err = dev.Fetch(ctx, 120, 0)
	if err != nil || len(p.Envelopes) != 1 || p.Envelopes[0].Seq != 121 || string(p.Envelopes[0].Body) != "new" || p.Envelopes[0].TS != a.TS || p.Next != 121 {
		t.Fatalf("polling after a send: %+v, %v", p, err)
	}
}

// TestQueueFetchCursorAhead: an after beyond the device's head, as a
// client's cursor is after the relay's database went back (here its seq
// is set back in SQL, as a restore would), is 409 cursor_ahead carrying
// the relay's head, not a page that looks up to date. The control: after
// at the head is an ordinary page.
func TestQueueFetchCursorAhead(t *testing.T) {
	s := newTestServer(t)
	ctx := context.Background()
	alice := s.register(t, "alice", 1)
	bob := s.register(t, "bob", 1)
	for range 5 {
		s.send(t, alice.device(0), "bob", "x")
	}
	dev := bob.device(0)
	if _, err := dev.Fetch(ctx, 5, 0); err != nil {
		t.Fatalf("after at the head: %v", err)
	}
	_, err := dev.Fetch(ctx, 6, 0)
	var re *relayclient.Error
	if !errors.As(err, &re) || re.Status != http.StatusConflict || re.Code != "cursor_ahead" || re.Head != 5 {
		t.Fatalf("after beyond the head: %v (head %d), want 409 cursor_ahead with head 5", err, headOf(re))
	}
	if _, err := s.Pool.Exec(ctx, `UPDATE devices SET seq = 2 WHERE id = $1`, dev.Device); err != nil {
		t.Fatal(err)
	}
	_, err = dev.Fetch(ctx, 5, 0)
	if !errors.As(err, &re) || re.Code != "cursor_ahead" || re.Head != 2 {
		t.Fatalf("a cursor past a head set back: %v (head %d), want cursor_ahead with head 2", err, headOf(re))
	}
}

func headOf(e *relayclient.Error) int64 {
	if e == nil {
		return 0
	}
	return e.Head
}

// TestQueueFetchChecks: the checks of docs/protocol.md in their order,
// each with an accepted request that differs from the refused one only
// in what is checked (the control).
func TestQueueFetchChecks(t *testing.T) {
	s := newTestServer(t)
	ctx := context.Background()
	alice := s.register(t, "alice", 2)
	bob := s.register(t, "bob", 1)
	s.send(t, bob.device(0), "alice", "x")
	get := func(c *relayclient.Client, query string, header map[string]string) answer {
		t.Helper()
		return raw(t, c, http.MethodGet, "/api/queue"+query, header, nil)
	}
	dev0 := map[string]string{"X-Device": alice.Devices[0]}
	for _, tc := range []struct {
		name   string
		c      *relayclient.Client
		query  string
		header map[string]string
		status int
		code   string
	}{
		{"accepted", alice.Client, "?after=0", dev0, 200, ""},
		{"no session", relayclient.New(s.URL), "?after=x", dev0, 401, "unauthenticated"},
		{"no X-Device", alice.Client, "?after=x", nil, 400, "device_required"},
		// ?device= serves EventSource on the stream only.
		{"device in the query", alice.Client, "?device=" + alice.Devices[0], nil, 400, "device_required"},
		{"device in the header and the query", alice.Client, "?device=" + bob.Devices[0], dev0, 200, ""},
		{"another account's device", alice.Client, "?after=x", map[string]string{"X-Device": bob.Devices[0]}, 403, "device_forbidden"},
		{"a malformed device id", alice.Client, "", map[string]string{"X-Device": "not a device"}, 403, "device_forbidden"},
		{"bad after", alice.Client, "?after=x", dev0, 400, "bad_query"},
		{"limit over the most", alice.Client, "?limit=501", dev0, 400, "bad_query"},
		{"after twice", alice.Client, "?after=0&after=0", dev0, 400, "bad_query"},
		{"after beyond the head", alice.Client, "?after=2", dev0, 409, "cursor_ahead"},
		{"a foreign Origin on a GET", alice.Client, "", map[string]string{"X-Device": alice.Devices[0], "Origin": "https://elsewhere.example"}, 200, ""},
	} {
		a := get(tc.c, tc.query, tc.header)
		if a.Status != tc.status || a.code() != tc.code {
			t.Errorf("%s: %d %s, want %d %q", tc.name, a.Status, a.Raw, tc.status, tc.code)
		}
		if a.Header.Get("Cache-Control") != "no-store" {
			t.Errorf("%s: Cache-Control %q, want no-store", tc.name, a.Header.Get("Cache-Control"))
		}
	}
	// A revoked device: refused, though its row is kept; before the
	// revocation the same request was a page.
	if p := fetchRaw(t, alice.device(1), ""); len(p.Envelopes) != 1 {
		t.Fatalf("before the revocation: %d envelopes, want 1", len(p.Envelopes))
	}
	if err := alice.device(0).Revoke(ctx, alice.Devices[1]); err != nil {
		t.Fatal(err)
	}
	_, err := alice.device(1).Fetch(ctx, 0, 0)
	wantCode(t, err, "device_forbidden")
	if n := s.count(t, `SELECT count(*) FROM devices WHERE id = $1`, alice.Devices[1]); n != 1 {
		t.Fatal("the revoked device's row is gone; the test wants the row kept")
	}
	// A fetch is a read: nothing changed.
	if n := s.count(t, `SELECT count(*) FROM queue WHERE device_id = $1`, alice.Devices[0]); n != 1 {
		t.Fatalf("%d envelopes queued, want 1: a fetch deleted something", n)
	}
}

// TestQueueFetchTellsThePurge: a page from before the purge mark carries
// the stream's purge notice; from past the mark it does not (the
// control), and the stream and the fetch agree. Once the device ACKs past
// the mark, neither tells it again.
func TestQueueFetchTellsThePurge(t *testing.T) {
	s := newTestServer(t, withQueueMaxBytes(3000))
	ctx := context.Background()
	alice := s.register(t, "alice", 1)
	bob := s.register(t, "bob", 1)
	for range 5 {
		s.send(t, alice.device(0), "bob", strings.Repeat("y", 1000))
	}
	s.Relay.PurgeQueues(ctx)
	dev := bob.device(0)
	p := fetchRaw(t, dev, "")
	if p.Purged == nil || p.Purged.UpTo != 2 || p.Purged.Reason != "size" || len(p.Envelopes) != 3 || p.Envelopes[0].Seq != 3 {
		t.Fatalf("page from 0: purged %+v, %d envelopes; want purged up to 2 for size, then 3..5", p.Purged, len(p.Envelopes))
	}
	purged, envs, _ := replay(t, dev, "")
	if purged.Seq != p.Purged.UpTo || purged.Reason != p.Purged.Reason {
		t.Fatalf("the stream said purged %+v, the page %+v", purged, p.Purged)
	}
	sameEnvelopes(t, p.Envelopes, envs)
	if past := fetchRaw(t, dev, "?after=2"); past.Purged != nil || len(past.Envelopes) != 3 {
		t.Fatalf("page from the mark: purged %+v, %d envelopes; want no notice and 3..5", past.Purged, len(past.Envelopes))
	}
	if err := dev.Ack(ctx, p.Next); err != nil {
		t.Fatal(err)
	}
	if again := fetchRaw(t, dev, ""); again.Purged != nil {
		t.Fatalf("after the ACK past the mark: purged %+v", again.Purged)
	}
	if purged, _, _ := replay(t, dev, ""); purged.Name != "" {
		t.Fatalf("after the ACK past the mark the stream still says %+v", purged)
	}
}

// TestQueueDrainWithoutStream: the Go client reads and ACKs a device's
// queue by fetching alone: every envelope once, in order, across pages,
// and the queue is empty afterwards; the device never opened a stream.
// The control: when storing a page fails, Drain stops without ACKing it,
// and the envelopes of that page are still queued.
func TestQueueDrainWithoutStream(t *testing.T) {
	s := newTestServer(t)
	ctx := context.Background()
	alice := s.register(t, "alice", 1)
	bob := s.register(t, "bob", 1)
	for i := range 25 {
		s.send(t, alice.device(0), "bob", fmt.Sprint("m", i))
	}
	dev := bob.device(0)
	errFull := errors.New("the disk is full")
	var stored []relayclient.Envelope
	cursor, err := dev.Drain(ctx, 0, 10, func(p relayclient.Page) error {
		if len(stored) == 10 {
			return errFull
		}
		stored = append(stored, p.Envelopes...)
		return nil
	})
	if !errors.Is(err, errFull) || cursor != 10 {
		t.Fatalf("a store that fails on the second page: cursor %d, %v; want 10 and its error", cursor, err)
	}
	if n := s.count(t, `SELECT count(*) FROM queue WHERE device_id = $1`, dev.Device); n != 15 {
		t.Fatalf("%d envelopes queued, want the 15 not stored", n)
	}
	pages := 0
	cursor, err = dev.Drain(ctx, cursor, 10, func(p relayclient.Page) error {
		pages++
		stored = append(stored, p.Envelopes...)
		return nil
	})
	if err != nil || cursor != 25 || pages != 2 {
		t.Fatalf("drain: cursor %d in %d pages, %v; want 25 in 2", cursor, pages, err)
	}
	for i, e := range stored {
		if e.Seq != int64(i+1) || string(e.Body) != fmt.Sprint("m", i) || e.From != "alice" {
			t.Fatalf("stored envelope %d: seq %d body %q from %s", i, e.Seq, e.Body, e.From)
		}
	}
	if len(stored) != 25 {
		t.Fatalf("%d envelopes stored, want 25", len(stored))
	}
	if n := s.count(t, `SELECT count(*) FROM queue WHERE device_id = $1`, dev.Device); n != 0 {
		t.Fatalf("%d envelopes still queued after the drain", n)
	}
	if n := s.count(t, `SELECT count(*) FROM devices WHERE id = $1 AND stream_gen = 0 AND last_seen_at IS NULL`, dev.Device); n != 1 {
		t.Fatal("the device opened a stream, or was marked seen, while it only fetched")
	}
	// Up to date: one empty page, no ACK needed.
	cursor, err = dev.Drain(ctx, cursor, 10, func(p relayclient.Page) error {
		if len(p.Envelopes) != 0 {
			t.Errorf("%d envelopes after the drain", len(p.Envelopes))
		}
		return nil
	})
	if err != nil || cursor != 25 {
		t.Fatalf("a drain when up to date: cursor %d, %v", cursor, err)
	}
}

// TestQueueFetchLeavesTheStreamAlone: a fetch neither replaces nor stops
// the device's open stream, which goes on delivering live. The control:
// a second stream of the device does replace it.
func TestQueueFetchLeavesTheStreamAlone(t *testing.T) {
	s := newTestServer(t)
	alice := s.register(t, "alice", 1)
	bob := s.register(t, "bob", 1)
	s.send(t, alice.device(0), "bob", "one")
	f := follow(t, bob.device(0), "")
	f.expectEnvelopes(t, 1, 1)
	f.expectReady(t, 1)
	if p := fetchRaw(t, bob.device(0), ""); len(p.Envelopes) != 1 {
		t.Fatalf("fetch beside a stream: %d envelopes, want 1", len(p.Envelopes))
	}
	s.send(t, alice.device(0), "bob", "two")
	f.expectEnvelopes(t, 2, 1)
	other := follow(t, bob.device(0), "2")
	other.expectReady(t, 2)
	if e := f.next(t); e.Name != "replaced" {
		t.Fatalf("the first stream got %q after a second stream opened, want replaced", e.Name)
	}
}

// TestQueueFetchTellsTheEpoch: a page names the history its seq numbers
// belong to, the epoch the stream tells, and a new epoch (relay admin
// new-epoch after a restore) shows on the next page, so that a client
// that only fetches can see its cursor is no longer to be trusted.
func TestQueueFetchTellsTheEpoch(t *testing.T) {
	s := newTestServer(t)
	ctx := context.Background()
	alice := s.register(t, "alice", 1)
	bob := s.register(t, "bob", 1)
	s.send(t, alice.device(0), "bob", "x")
	dev := bob.device(0)
	f := follow(t, dev, "")
	streamed := f.nextEpoch(t).Epoch
	f.cancel()
	p, err := dev.Fetch(ctx, 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	if p.Epoch == "" || p.Epoch != streamed {
		t.Fatalf("the page told epoch %q, the stream %q", p.Epoch, streamed)
	}
	s.newEpoch(t)
	q, err := dev.Fetch(ctx, 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	if q.Epoch == p.Epoch || q.Epoch != s.epoch(t) {
		t.Fatalf("after a new epoch the page told %q (before %q, now %q)", q.Epoch, p.Epoch, s.epoch(t))
	}
}
