package relay

import (
	"testing"

	"github.com/oklog/ulid/v2"
)

// BenchmarkSSEEncode frames one 1 KiB envelope as an SSE event, the work a
// stream does per envelope before writing.
func BenchmarkSSEEncode(b *testing.B) {
	o := &sseWriter{send: func([]byte) error { return nil }}
	it := &envelopeEvent{Seq: 42, ID: ulid.Make().String(), From: "sender", FromDevice: ulid.Make().String(), To: "recipient", TS: 1767225600000, Body: make([]byte, 1024)}
	b.ReportAllocs()
	for b.Loop() {
		if err := o.event(eventEnvelope, it.Seq, it); err != nil {
			b.Fatal(err)
		}
		o.buf.Reset()
	}
}
