package main

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/oklog/ulid/v2"

	"relay/relayclient"
)

// BenchmarkNotifyCost measures accepted envelopes per second through two
// relay instances on one database, with cross-instance wake-ups on and off,
// at 8 and 32 concurrent senders. Senders post 1 KiB envelopes to instance
// 1 between accounts of three devices (five target queues each); every
// device streams from instance 2, so every envelope needs a cross-instance
// wake-up. Run it with
//
//	go test -run '^$' -bench NotifyCost -benchtime 1x ./cmd/relay
//
// and compare notify=true with notify=false of the same run
// (docs/performance.md).
//
// With streams=false no device streams: the NOTIFYs are still sent, so the
// pair isolates the cost of NOTIFY itself from the work of delivering.
func BenchmarkNotifyCost(b *testing.B) {
	for _, streams := range []bool{false, true} {
		for _, senders := range []int{8, 32} {
			for _, notify := range []bool{false, true} {
				b.Run(fmt.Sprintf("streams=%v/senders=%d/notify=%v", streams, senders, notify), func(b *testing.B) {
					var total float64
					for i := 0; i < b.N; i++ {
						total += notifyRun(b, senders, notify, streams, 3*time.Second)
					}
					b.ReportMetric(total/float64(b.N), "envelopes/s")
				})
			}
		}
	}
}

func notifyRun(b *testing.B, senders int, notify, streams bool, d time.Duration) float64 {
	ps := instances(b, 2, fmt.Sprintf("--notify=%v", notify), "--log-level", "error")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	type pair struct {
		from *relayclient.Client
		to   string
	}
	var pairs []pair
	for i := 0; i < senders; i++ {
		from := account(b, ps[0].url(), fmt.Sprintf("sender%d", i), 3)
		to := account(b, ps[0].url(), fmt.Sprintf("recipient%d", i), 3)
		for _, c := range append(from, to...) {
			if streams {
				go at(c, ps[1]).Stream(ctx, "", true, func(relayclient.Event) error { return nil }) //nolint:errcheck // ends with ctx
			}
		}
		pairs = append(pairs, pair{from[0], fmt.Sprintf("recipient%d", i)})
	}
	time.Sleep(500 * time.Millisecond) // let the streams open
	var n atomic.Int64
	var wg sync.WaitGroup
	deadline := time.Now().Add(d)
	for _, p := range pairs {
		wg.Add(1)
		go func(p pair) {
			defer wg.Done()
			body := make([]byte, 1024)
			for time.Now().Before(deadline) {
				if _, err := p.from.Send(ctx, ulid.Make().String(), p.to, body); err != nil {
					b.Error(err)
					return
				}
				n.Add(1)
			}
		}(p)
	}
	wg.Wait()
	return float64(n.Load()) / d.Seconds()
}
