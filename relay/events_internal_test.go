package relay

import (
	"go/ast"
	"go/parser"
	"go/token"
	"math"
	"strconv"
	"strings"
	"testing"
)

// TestStreamEventsAsDocumented: the bytes of each event are those of
// docs/protocol.md, "GET /api/events", whatever Go type carries the data.
func TestStreamEventsAsDocumented(t *testing.T) {
	env := envelopeEvent{Seq: 7, ID: "01JA", From: "alice", FromDevice: "01JB", To: "bob", TS: 1767225600000, Body: []byte("hi")}
	for _, c := range []struct {
		name string
		id   int64
		data any
		want string
	}{
		{eventEpoch, 0, &epochEvent{Epoch: "3f2a9c0d5e6b7a81", Seq: 7}, "event: epoch\ndata: {\"epoch\":\"3f2a9c0d5e6b7a81\",\"seq\":7}\n\n"},
		{eventEpoch, 0, &epochEvent{Epoch: "3f2a9c0d5e6b7a81", Seq: 7, Ahead: true}, "event: epoch\ndata: {\"epoch\":\"3f2a9c0d5e6b7a81\",\"seq\":7,\"ahead\":true}\n\n"},
		{eventPurged, 0, &purgedEvent{Reason: "age", UpTo: 5}, "event: purged\ndata: {\"reason\":\"age\",\"upTo\":5}\n\n"},
		{eventEnvelope, 7, &env, "event: envelope\nid: 7\ndata: {\"seq\":7,\"id\":\"01JA\",\"from\":\"alice\",\"fromDevice\":\"01JB\",\"to\":\"bob\",\"ts\":1767225600000,\"body\":\"aGk=\"}\n\n"},
		{eventReady, 0, &readyEvent{Seq: 7}, "event: ready\ndata: {\"seq\":7}\n\n"},
		{eventPing, 0, &pingEvent{TS: 1767225620000}, "event: ping\ndata: {\"ts\":1767225620000}\n\n"},
		{eventShutdown, 0, noData{}, "event: shutdown\ndata: {}\n\n"},
		{endEvent("replaced"), 0, noData{}, "event: replaced\ndata: {}\n\n"},
		{endEvent("revoked"), 0, noData{}, "event: revoked\ndata: {}\n\n"},
		{endEvent("deleted"), 0, noData{}, "event: deleted\ndata: {}\n\n"},
		{endEvent("disabled"), 0, noData{}, "event: disabled\ndata: {}\n\n"},
		{endEvent("logged_out"), 0, noData{}, "event: logged_out\ndata: {}\n\n"},
		{endEvent("rewound"), 0, noData{}, "event: rewound\ndata: {}\n\n"},
	} {
		var got []byte
		o := &sseWriter{send: func(p []byte) error { got = append(got, p...); return nil }}
		if err := o.event(c.name, c.id, c.data); err != nil {
			t.Fatal(err)
		}
		if err := o.flush(); err != nil {
			t.Fatal(err)
		}
		if string(got) != c.want {
			t.Errorf("%s:\n got %q\nwant %q", c.name, got, c.want)
		}
	}
}

// TestPingFramedByHand: the ping a live stream sends, framed without the
// JSON encoder, is byte for byte the documented event, and leaves the
// stream holding no buffer once sent.
func TestPingFramedByHand(t *testing.T) {
	for _, ts := range []int64{0, 7, 1767225620000, -1, math.MaxInt64} {
		var want, got []byte
		o := &sseWriter{send: func(p []byte) error { want = append(want, p...); return nil }}
		if err := o.event(eventPing, 0, &pingEvent{TS: ts}); err != nil {
			t.Fatal(err)
		}
		if err := o.flush(); err != nil {
			t.Fatal(err)
		}
		o = &sseWriter{send: func(p []byte) error { got = append(got, p...); return nil }}
		if err := o.ping(ts); err != nil {
			t.Fatal(err)
		}
		if err := o.flush(); err != nil {
			t.Fatal(err)
		}
		if string(got) != string(want) {
			t.Errorf("ping %d: got %q, want %q", ts, got, want)
		}
		if o.buf != nil {
			t.Errorf("ping %d: the stream still holds a buffer after the flush", ts)
		}
	}
}

// TestEveryHubReasonHasAnEvent: each reason the hub ends a stream for
// (its exported Reason constants, read from its source) has its own final
// event, so that no client is told "shutdown" and reconnects where it must
// stop.
func TestEveryHubReasonHasAnEvent(t *testing.T) {
	f, err := parser.ParseFile(token.NewFileSet(), "../hub/hub.go", nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]string{}
	for _, d := range f.Decls {
		g, ok := d.(*ast.GenDecl)
		if !ok || g.Tok != token.CONST {
			continue
		}
		for _, spec := range g.Specs {
			vs := spec.(*ast.ValueSpec)
			for i, n := range vs.Names {
				if !strings.HasPrefix(n.Name, "Reason") || i >= len(vs.Values) {
					continue
				}
				lit, ok := vs.Values[i].(*ast.BasicLit)
				if !ok {
					t.Fatalf("%s is not a string literal", n.Name)
				}
				reason, _ := strconv.Unquote(lit.Value)
				ev := endEvent(reason)
				if ev == eventShutdown {
					t.Errorf("hub.%s (%q) has no event of its own", n.Name, reason)
				}
				if other, dup := seen[ev]; dup {
					t.Errorf("hub.%s and hub.%s both end with event %s", n.Name, other, ev)
				}
				seen[ev] = n.Name
			}
		}
	}
	if len(seen) < 6 {
		t.Errorf("found %d reasons in hub/hub.go, want at least the 6 documented", len(seen))
	}
}
