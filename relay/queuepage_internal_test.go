package relay

import (
	"bytes"
	"encoding/json"
	"errors"
	"math"
	"net/http/httptest"
	"net/url"
	"strconv"
	"strings"
	"testing"

	"relay/envelope"
	"relay/queue"
)

func TestParseQueueQuery(t *testing.T) {
	for _, tc := range []struct {
		in           string
		after        int64
		limit        int
		ok           bool
		mentionParam string // the parameter a refusal names
	}{
		{"", 0, defaultPageLimit, true, ""},
		{"after=0", 0, defaultPageLimit, true, ""},
		{"after=42&limit=7", 42, 7, true, ""},
		{"limit=500", 0, 500, true, ""},
		{"limit=1", 0, 1, true, ""},
		{"after=9223372036854775807", math.MaxInt64, defaultPageLimit, true, ""},
		{"after=%31%32", 12, defaultPageLimit, true, ""}, // escaping is the URL's, not the value's
		{"after=3&device=01J0000000000000000000000&_=1", 3, defaultPageLimit, true, ""},
		{"after=-1", 0, 0, false, "after"},
		{"after=", 0, 0, false, "after"},
		{"after", 0, 0, false, "after"},
		{"after=03", 0, 0, false, "after"},
		{"after=+3", 0, 0, false, "after"},
		{"after=3.0", 0, 0, false, "after"},
		{"after=1e3", 0, 0, false, "after"},
		{"after=9223372036854775808", 0, 0, false, "after"},
		{"after=1&after=1", 0, 0, false, "after"},
		{"limit=0", 0, 0, false, "limit"},
		{"limit=501", 0, 0, false, "limit"},
		{"limit=-5", 0, 0, false, "limit"},
		{"limit=ten", 0, 0, false, "limit"},
		{"limit=5&limit=6", 0, 0, false, "limit"},
		{"after=%zz", 0, 0, false, ""},
		{"after=1;limit=2", 0, 0, false, ""},
	} {
		after, limit, err := parseQueueQuery(tc.in)
		if (err == nil) != tc.ok || after != tc.after || limit != tc.limit {
			t.Errorf("parseQueueQuery(%q) = %d, %d, %v; want %d, %d, ok %v", tc.in, after, limit, err, tc.after, tc.limit, tc.ok)
			continue
		}
		if err == nil {
			continue
		}
		var ae *apiError
		if !errors.As(err, &ae) || ae.status != 400 || ae.code != "bad_query" {
			t.Errorf("parseQueueQuery(%q): error %v is not a 400 bad_query", tc.in, err)
		} else if !strings.Contains(ae.message, tc.mentionParam) {
			t.Errorf("parseQueueQuery(%q): message %q does not name %q", tc.in, ae.message, tc.mentionParam)
		}
	}
}

// FuzzParseQueueQuery: every refusal is a 400 bad_query, and whatever is
// accepted is what the query says in its one spelling: after and limit
// each given at most once, in plain decimal, within their bounds.
func FuzzParseQueueQuery(f *testing.F) {
	for _, s := range []string{"", "after=0", "after=42&limit=7", "limit=500", "limit=501", "after=-1", "after=03",
		"after=1&after=2", "after=%zz", "after=1;limit=2", "after=9223372036854775808", "after=%31", "x=y&after=5"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		after, limit, err := parseQueueQuery(raw)
		if err != nil {
			var ae *apiError
			if !errors.As(err, &ae) || ae.status != 400 || ae.code != "bad_query" {
				t.Fatalf("%q: error %v is not a 400 bad_query", raw, err)
			}
			return
		}
		if after < 0 || limit < 1 || limit > maxPageLimit {
			t.Fatalf("%q: accepted after %d, limit %d", raw, after, limit)
		}
		q, err := url.ParseQuery(raw)
		if err != nil {
			t.Fatalf("%q: accepted a query that does not parse: %v", raw, err)
		}
		for name, want := range map[string]string{"after": strconv.FormatInt(after, 10), "limit": strconv.Itoa(limit)} {
			switch vs := q[name]; {
			case len(vs) > 1:
				t.Fatalf("%q: accepted %s given %d times", raw, name, len(vs))
			case len(vs) == 1 && vs[0] != want:
				t.Fatalf("%q: %s %q read as %s", raw, name, vs[0], want)
			}
		}
		if _, ok := q["limit"]; !ok && limit != defaultPageLimit {
			t.Fatalf("%q: no limit given, yet limit %d", raw, limit)
		}
	})
}

// largestItem is a queue row as large as the relay lets one be: the
// largest body, and the longest username and seqs.
func largestItem(seq int64) queue.Item {
	name := strings.Repeat("z", 32)
	id := strings.Repeat("7", 26)
	return queue.Item{Seq: seq, ID: id, From: name, FromDevice: id, To: name, TS: math.MaxInt64, Body: make([]byte, envelope.MaxBody)}
}

// TestPageBytesBound: a page of the largest envelopes, with the longest
// numbers and a purge notice, still fits in maxPageBytes once written as
// the handler writes it, and holds as many envelopes as fit. The control:
// with one envelope more the answer would be over the bound, so the bound
// is what cut the page.
func TestPageBytesBound(t *testing.T) {
	const head = math.MaxInt64 - 1
	p := queue.Page{State: queue.QueueState{Seq: head, PurgedSeq: head, PurgedReason: queue.PurgeSize}}
	for i := range 20 {
		p.Items = append(p.Items, largestItem(head-20+int64(i)))
	}
	page, err := buildPage(0, p, maxPageBytes)
	if err != nil {
		t.Fatal(err)
	}
	body := written(t, page)
	if len(body) > maxPageBytes {
		t.Fatalf("the answer is %d bytes, over the bound of %d", len(body), maxPageBytes)
	}
	n := len(page.Envelopes)
	if n < 1 || n == len(p.Items) {
		t.Fatalf("%d of %d envelopes in the page; want the bound to cut it", n, len(p.Items))
	}
	if page.Next != p.Items[n-1].Seq || page.Head != head || page.Purged == nil {
		t.Fatalf("next %d, head %d, purged %v; want next %d, head %d and the notice", page.Next, page.Head, page.Purged, p.Items[n-1].Seq, int64(head))
	}
	// The control: one envelope more does not fit.
	more := *page
	more.Envelopes = append(more.Envelopes[:n:n], page.Envelopes[0])
	if over := written(t, &more); len(over) <= maxPageBytes {
		t.Fatalf("with %d envelopes the answer is %d bytes, within the bound: the page was cut short", n+1, len(over))
	}
	// Each envelope is the stream's encoding of its row.
	for i, b := range page.Envelopes {
		want, _ := json.Marshal(&p.Items[i])
		if !bytes.Equal(b, want) {
			t.Fatalf("envelope %d is not encoded as the stream encodes it", i)
		}
	}
}

// TestPageBytesBoundExact: around the bound, byte by byte, a second
// envelope is in the page exactly when the answer with it is within the
// bound: the page is cut neither early nor late (a mistake in the frame's
// size or a comma shows here, not in TestPageBytesBound). The bound is
// small, so that the sweep is quick; the arithmetic is the same.
func TestPageBytesBoundExact(t *testing.T) {
	const head, bound = 99, 4096
	second := func(idLen int) queue.Item {
		return queue.Item{Seq: head, ID: strings.Repeat("I", idLen), From: "a", To: "b", Body: []byte("x")}
	}
	frame := len(written(t, &pageJSON{Envelopes: []json.RawMessage{}, Next: head, Head: head}))
	probe, _ := json.Marshal(&queue.Item{Seq: head - 1, From: "a", To: "b"})
	mid, _ := json.Marshal(ptr(second(100)))
	// The first envelope's body makes the answer with both end near the
	// bound when the second's id is 100 characters long.
	base64Room := bound - frame - len(probe) - 1 - len(mid)
	first := queue.Item{Seq: head - 1, From: "a", To: "b", Body: make([]byte, base64Room/4*3)}
	in, out := 0, 0
	for idLen := 0; idLen <= 200; idLen++ {
		p := queue.Page{State: queue.QueueState{Seq: head}, Items: []queue.Item{first, second(idLen)}}
		page, err := buildPage(0, p, bound)
		if err != nil {
			t.Fatal(err)
		}
		if n := len(written(t, page)); n > bound {
			t.Fatalf("id of %d: the answer is %d bytes", idLen, n)
		}
		both := &pageJSON{Envelopes: []json.RawMessage{mustMarshal(t, &p.Items[0]), mustMarshal(t, &p.Items[1])}, Next: head, Head: head}
		fits := len(written(t, both)) <= bound
		if got := len(page.Envelopes) == 2; got != fits {
			t.Fatalf("id of %d: the second envelope is in the page: %v; the answer with it is %d bytes", idLen, got, len(written(t, both)))
		}
		if fits {
			in++
		} else {
			out++
		}
	}
	if in == 0 || out == 0 {
		t.Fatalf("%d sizes fit, %d did not: the sweep missed the bound", in, out)
	}
}

func ptr[T any](v T) *T { return &v }

func mustMarshal(t *testing.T, v any) json.RawMessage {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestPageMoreAndNext: next is the head when the page holds everything up
// to it, and the last envelope's seq when the page was cut, by the
// database's limits (More) or by the answer's bound.
func TestPageMoreAndNext(t *testing.T) {
	small := func(seq int64) queue.Item { it := largestItem(seq); it.Body = []byte("x"); return it }
	for _, tc := range []struct {
		name string
		p    queue.Page
		next int64
	}{
		{"empty", queue.Page{State: queue.QueueState{Seq: 9}}, 9},
		{"all", queue.Page{State: queue.QueueState{Seq: 9}, Items: []queue.Item{small(4), small(7)}}, 9},
		{"cut by the database", queue.Page{State: queue.QueueState{Seq: 9}, Items: []queue.Item{small(4), small(7)}, More: true}, 7},
	} {
		page, err := buildPage(3, tc.p, maxPageBytes)
		if err != nil {
			t.Fatal(err)
		}
		if page.Next != tc.next || page.Head != 9 || len(page.Envelopes) != len(tc.p.Items) || page.Purged != nil {
			t.Errorf("%s: next %d, head %d, %d envelopes, purged %v; want next %d", tc.name, page.Next, page.Head, len(page.Envelopes), page.Purged, tc.next)
		}
	}
	// The purge notice is the stream's: only for a cursor below the mark.
	p := queue.Page{State: queue.QueueState{Seq: 9, PurgedSeq: 5, PurgedReason: queue.PurgeAge}}
	for after, want := range map[int64]bool{0: true, 4: true, 5: false, 9: false} {
		page, err := buildPage(after, p, maxPageBytes)
		if err != nil {
			t.Fatal(err)
		}
		if got := page.Purged != nil; got != want || (got && (page.Purged.UpTo != 5 || page.Purged.Reason != "age")) {
			t.Errorf("after %d: purged %+v, want a notice: %v", after, page.Purged, want)
		}
	}
}

// written is the answer body writeJSON gives for page.
func written(t *testing.T, page *pageJSON) []byte {
	t.Helper()
	rec := httptest.NewRecorder()
	writeJSON(rec, 200, page)
	return rec.Body.Bytes()
}
