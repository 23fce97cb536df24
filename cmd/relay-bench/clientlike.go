package main

import (
	"context"
	"crypto/rand"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/oklog/ulid/v2"

	"relay/relayclient"
)

// The client-like topology (ADR 0068): recipients with five streaming
// devices each, publishers posting to them round-robin.
const (
	clientRecipients = 16
	clientDevices    = 5
	// clientBodySize is a message of the web client's second bucket
	// (1,024 bytes of padded record) as it seals it in its chat's MLS
	// group: the bucket plus 222 bytes of MLS framing, signature, tag
	// and authenticated data (docs/performance.md, "MLS in the browser").
	clientBodySize = 1024 + 222
)

// clientTopology is the accounts of the client-like scenario, made once and
// used by every phase (each phase opens fresh streams).
type clientTopology struct {
	publishers []*relayclient.Client // one device each, not streaming
	pubNames   []string
	recipients [][]*relayclient.Client // clientDevices each, streaming
	names      []string
}

func (b *bench) clientTopology(publishers int) (*clientTopology, error) {
	say("client-like: %d recipients × %d devices, %d publishers…", clientRecipients, clientDevices, publishers)
	t := &clientTopology{}
	var err error
	if t.recipients, t.names, err = b.accounts(clientRecipients, clientDevices); err != nil {
		return nil, err
	}
	pubs, pubNames, err := b.accounts(publishers, 1)
	if err != nil {
		return nil, err
	}
	for _, p := range pubs {
		t.publishers = append(t.publishers, p[0])
	}
	t.pubNames = pubNames
	return t, nil
}

// accounts registers n accounts of the given number of devices each, and
// returns their devices' clients and their names.
func (b *bench) accounts(n, devices int) ([][]*relayclient.Client, []string, error) {
	var cs [][]*relayclient.Client
	var names []string
	for i := 0; i < n; i++ {
		c, name, err := b.account(devices)
		if err != nil {
			return nil, nil, err
		}
		cs, names = append(cs, c), append(names, name)
	}
	return cs, names, nil
}

// phaseResult is what one phase measured: of the client-like scenario,
// of the groups scenario, or of ntfy.
type phaseResult struct {
	accepted      float64 // messages accepted per second
	receipts      float64 // receipts accepted per second
	acksPerEnv    float64 // ACK requests per accepted envelope (messages and receipts); per copy delivered in a groups phase
	receiptPerMsg float64
	p50, p99      float64 // POST start to arrival on each target stream, ms
	lost, dup     int
	stray         int     // arrivals on streams the envelope does not target (groups, ntfy)
	copies        float64 // deliveries per second, from the first send to the last arrival (groups, ntfy)
	walPerMsg     float64 // WAL bytes per accepted message, the ACKs' included (groups)
	ackedOld      int     // the most rows of ACKed envelopes older than 1 s seen in one sample
	refused       int     // publishes the peer refused (ntfy only; the relay's phase fails instead)
	cpu           cpuUse
	dials         int    // TCP connections the clients opened (the relay's phases)
	protocol      string // what the responses came in, "h2, tls" or "http/1.1, plain"
	publishers    int
	pauses        []result // what --pauses found in a paced phase
}

// clientLike runs one phase: every recipient device streams, publishers
// post 1 KiB envelopes round-robin to the recipients (as fast as they can,
// or at rate envelopes/s in all), and at the end every accepted envelope
// must have arrived exactly once on each of its recipient's streams.
func (b *bench) clientLike(t *clientTopology, publishers int, receipts bool, rate float64) (phaseResult, error) {
	say("client-like, %d publishers, receipts %v, rate %s…", publishers, receipts, rateName(rate))
	ph := b.newPhase(clientRecipients*clientDevices, receipts)
	defer ph.release()
	for _, name := range t.pubNames {
		ph.from[name] = true
	}
	devs, err := b.openDevices(ph, t.recipients)
	if err != nil {
		return phaseResult{}, fmt.Errorf("client-like: %w", err)
	}

	// Rows of ACKed envelopes held for more than a second, sampled.
	sampleCtx, stopSampling := context.WithCancel(ph.ctx)
	var sampler sync.WaitGroup
	var ackedOld atomic.Int64
	sampler.Add(1)
	go func() {
		defer sampler.Done()
		every(sampleCtx, 250*time.Millisecond, func() bool {
			ids, seqs := make([]string, len(devs)), make([]int64, len(devs))
			before := time.Now().Add(-time.Second)
			for i, d := range devs {
				ids[i], seqs[i] = d.c.Device, d.ackedBefore(before)
			}
			var n int64
			if err := b.pool.QueryRow(sampleCtx, `SELECT count(*) FROM queue q
				JOIN unnest($1::text[], $2::bigint[]) AS a(device_id, seq) ON q.device_id = a.device_id AND q.seq <= a.seq`,
				ids, seqs).Scan(&n); err == nil && n > ackedOld.Load() {
				ackedOld.Store(n)
			}
			return true
		})
	}()

	body := make([]byte, clientBodySize)
	_, _ = rand.Read(body)
	pubs := make([]*relayclient.Client, publishers)
	for p := range pubs {
		pubs[p] = b.spread(t.publishers[p], p, ph)
	}
	var accepted atomic.Int64
	// A paced phase watched for pauses runs five phases long, to see more
	// of them.
	var watch *pauseWatch
	dur := b.o.duration
	if rate > 0 && b.o.pauses {
		watch, dur = b.watchPauses(), 5*dur
	}
	cpu0 := b.cpu()
	start := time.Now()
	publish(ph.ctx, publishers, rate, start.Add(dur), func(p, i int) bool {
		r := (p + i) % clientRecipients
		id := ulid.Make().String()
		t0 := time.Now()
		if _, err := pubs[p].Send(ph.ctx, id, t.names[r], body); err != nil {
			ph.fail(fmt.Errorf("send: %w", err))
			return false
		}
		ph.tally.expect(id, t0, recipientStreams(r))
		accepted.Add(1)
		return true
	})
	elapsed := time.Since(start)
	used := b.cpu().sub(cpu0)

	// Every accepted envelope on each of its five streams, or a deadline.
	ph.tally.await(int(accepted.Load())*clientDevices, b.o.settle)
	var found []result
	if watch != nil {
		watch.stop()
		watch.pauseLines(func(metric string, v float64, unit, note string) {
			found = append(found, result{"client", metric, v, unit, note})
		}, ph.tally.deliveries(), start)
	}
	// One more ping interval's worth of time would not catch a duplicate
	// sooner: a duplicate comes from a replay, which a reconnect starts.
	stopSampling()
	sampler.Wait()
	ph.finish(devs)
	if err, ok := ph.failed.Load().(error); ok {
		return phaseResult{}, err
	}
	lost, dup := ph.tally.check()
	lats := ph.tally.latencies()
	msgs := float64(accepted.Load())
	rcpts := float64(ph.sentRcpt.Load())
	res := phaseResult{
		accepted: msgs / elapsed.Seconds(), receipts: rcpts / elapsed.Seconds(),
		p50: percentile(lats, 0.50), p99: percentile(lats, 0.99), lost: lost, dup: dup,
		ackedOld: int(ackedOld.Load()), cpu: used.per(msgs + rcpts),
		dials: int(b.net.dials.Load() - ph.dials0), protocol: ph.traffic.protocol(), publishers: publishers,
		pauses: found,
	}
	if msgs+rcpts > 0 {
		res.acksPerEnv = float64(ph.acks.Load()) / (msgs + rcpts)
	}
	if msgs > 0 {
		res.receiptPerMsg = rcpts / msgs
	}
	return res, nil
}

func rateName(rate float64) string {
	if rate == 0 {
		return "as fast as they can"
	}
	return fmt.Sprintf("%.0f/s", rate)
}
