package relay_test

import (
	"context"
	"sync/atomic"
	"testing"

	"relay/relayclient"
)

// BenchmarkAckRequest is one POST /api/ack through the handler, deleting
// one queued envelope, on the real database: the session and device
// check, the Origin check, the body and the DELETE. Serial is one device
// ACKing one envelope at a time; parallel is 16 devices at once, whose
// DELETEs the Acker groups (ADR 0070). "lookup" checks the session with
// a query each time (the session cache off), "cached" from memory (ADR
// 0072). BenchmarkAuthenticateDevice in package devices is the query
// alone. "epoch" sends the cursor's epoch with each ACK, which the
// relay checks with one more read (ADR 0090). Run it with a fixed count, say -benchtime=2000x: every ACK needs
// an envelope queued before the clock starts.
func BenchmarkAckRequest(b *testing.B) {
	for _, bc := range []struct {
		name    string
		devices int
	}{{"serial", 1}, {"parallel", 16}} {
		for _, cache := range []bool{false, true} {
			name := bc.name + "/lookup"
			opts := []option{withRate(1_000_000)}
			if cache {
				name = bc.name + "/cached"
			} else {
				opts = append(opts, withoutSessionCache())
			}
			b.Run(name, func(b *testing.B) { benchmarkAck(b, bc.devices, opts, false) })
		}
		b.Run(bc.name+"/cached/epoch", func(b *testing.B) { benchmarkAck(b, bc.devices, []option{withRate(1_000_000)}, true) })
	}
}

func benchmarkAck(b *testing.B, devices int, opts []option, withEpoch bool) {
	s := newTestServer(b, opts...)
	alice := s.register(b, "alice", 1)
	bob := s.register(b, "bob", devices)
	from := alice.device(0)
	for range b.N {
		s.send(b, from, "bob", "x")
	}
	ctx := context.Background()
	ack := func(c *relayclient.Client, upTo int64) error { return c.Ack(ctx, upTo) }
	if withEpoch {
		ep := s.epoch(b)
		ack = func(c *relayclient.Client, upTo int64) error { return c.AckEpoch(ctx, upTo, ep) }
	}
	b.ReportAllocs()
	b.ResetTimer()
	if devices == 1 {
		c := bob.device(0)
		for i := range b.N {
			if err := ack(c, int64(i+1)); err != nil {
				b.Fatal(err)
			}
		}
		return
	}
	b.SetParallelism(devices / 2) // 16 goroutines on 2 cores
	var next atomic.Int64
	b.RunParallel(func(pb *testing.PB) {
		c := bob.device(int(next.Add(1)-1) % devices)
		var seq int64
		for pb.Next() {
			seq++
			if err := ack(c, seq); err != nil {
				b.Error(err)
				return
			}
		}
	})
}
