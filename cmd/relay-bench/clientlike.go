package main

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"net/http"
	"sort"
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
	for i := 0; i < clientRecipients; i++ {
		cs, name, err := b.account(clientDevices)
		if err != nil {
			return nil, err
		}
		t.recipients, t.names = append(t.recipients, cs), append(t.names, name)
	}
	for i := 0; i < publishers; i++ {
		cs, name, err := b.account(1)
		if err != nil {
			return nil, err
		}
		t.publishers, t.pubNames = append(t.publishers, cs[0]), append(t.pubNames, name)
	}
	return t, nil
}

// spread points client i at relay instance i mod N, with its own HTTP
// client and its session cookie. The HTTP client is on the shared
// transport, or with --http2 on a transport of its own, which the phase
// closes at its end; either way its responses count in the phase's
// traffic.
func (b *bench) spread(c *relayclient.Client, i int, ph *clientPhase) *relayclient.Client {
	bases := []string{b.base}
	for _, in := range b.extra {
		bases = append(bases, in.base)
	}
	d := *c
	d.BaseURL = bases[i%len(bases)]
	d.Origin = d.BaseURL
	t := b.transport
	if b.o.http2 {
		t = b.net.transport(true, nil)
		ph.mu.Lock()
		ph.own = append(ph.own, t)
		ph.mu.Unlock()
	}
	d.HTTP = &http.Client{Jar: c.HTTP.Jar, Transport: observed{t, &ph.traffic}}
	return &d
}

// phaseResult is what one client-like phase measured.
type phaseResult struct {
	accepted      float64 // messages accepted per second
	receipts      float64 // receipts accepted per second
	acksPerEnv    float64 // ACK requests per accepted envelope (messages and receipts)
	receiptPerMsg float64
	p50, p99      float64 // POST start to arrival on each target stream, ms
	lost, dup     int
	ackedOld      int // the most rows of ACKed envelopes older than 1 s seen in one sample
	refused       int // publishes the peer refused (ntfy only; the relay's phase fails instead)
	cpu           cpuUse
	dials         int    // TCP connections the clients opened (the relay's phases)
	protocol      string // what the responses came in, "h2, tls" or "http/1.1, plain"
	publishers    int
}

// device is one streaming device of a phase: its stream, the web client's
// ACK policy (stream.js) and receipt batching (receipts.js).
type device struct {
	c      *relayclient.Client
	stream int // index in the phase's tally
	ph     *clientPhase

	mu      sync.Mutex // guards the following
	policy  ackPolicy
	timer   *time.Timer // the pending ACK's
	acked   []ackDone   // ACKs answered, in order of seq
	waiting map[string][]string
	rtimer  *time.Timer // the receipt window's
	busy    bool        // a receipt pass runs
	again   bool        // a window ended while a pass ran
	closed  bool
}

// ackDone is an ACK request the relay answered.
type ackDone struct {
	seq int64
	at  time.Time
}

// clientPhase is the shared state of one phase.
type clientPhase struct {
	ctx      context.Context
	wg       sync.WaitGroup // the ACKs, timers and receipt passes in flight
	tally    *tally
	receipts bool
	from     map[string]bool // the publishers: envelopes from them are messages from another person
	acks     atomic.Int64
	sentRcpt atomic.Int64
	failed   atomic.Value
	traffic  traffic

	mu  sync.Mutex        // guards own
	own []*http.Transport // the clients' own transports (--http2), closed at the end
}

func (ph *clientPhase) fail(err error) {
	if ph.ctx.Err() == nil {
		ph.failed.CompareAndSwap(nil, err)
	}
}

// envelope handles one live envelope as the web client does once it has
// written it: the ACK policy, and a delivery receipt queued when it is a
// message from another person.
func (d *device) envelope(e *relayclient.Envelope) {
	d.ph.tally.arrived(d.stream, e.ID, time.Now())
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.closed {
		return
	}
	ack, at := d.policy.wrote(time.Now(), e.Seq)
	if ack > 0 {
		d.sendAck(ack)
	}
	if !at.IsZero() {
		d.ph.wg.Add(1)
		d.timer = time.AfterFunc(time.Until(at), func() {
			defer d.ph.wg.Done()
			d.mu.Lock()
			defer d.mu.Unlock()
			if s := d.policy.fire(time.Now()); s > 0 && !d.closed {
				d.sendAck(s)
			}
		})
	}
	if d.ph.receipts && d.ph.from[e.From] {
		d.waiting[e.From] = append(d.waiting[e.From], e.ID)
		d.armReceipts()
	}
}

// sendAck posts an ACK without waiting, as the client's fetch does. d.mu
// is held.
func (d *device) sendAck(seq int64) {
	d.ph.wg.Add(1)
	d.ph.acks.Add(1)
	go func() {
		defer d.ph.wg.Done()
		if err := d.c.Ack(context.Background(), seq); err != nil {
			d.ph.fail(fmt.Errorf("ACK: %w", err))
			return
		}
		d.mu.Lock()
		d.acked = append(d.acked, ackDone{seq, time.Now()})
		d.mu.Unlock()
	}()
}

// armReceipts starts a receipt window unless one runs. d.mu is held.
func (d *device) armReceipts() {
	if d.rtimer != nil || d.closed {
		return
	}
	d.ph.wg.Add(1)
	d.rtimer = time.AfterFunc(receiptWindow, func() {
		defer d.ph.wg.Done()
		d.sendReceipts()
	})
}

// sendReceipts is receipts.js's pass at the end of a window: one receipt
// per chat naming up to receiptMaxIDs ids, one after the other; what is
// left, or came during a pass, waits for another window.
func (d *device) sendReceipts() {
	d.mu.Lock()
	d.rtimer = nil
	if d.busy {
		d.again = true
		d.mu.Unlock()
		return
	}
	d.busy = true
	batch := map[string][]string{}
	for chat, ids := range d.waiting {
		batch[chat] = ids[:min(len(ids), receiptMaxIDs)]
	}
	d.mu.Unlock()
	chats := make([]string, 0, len(batch))
	for chat := range batch {
		chats = append(chats, chat)
	}
	sort.Strings(chats)
	body := make([]byte, receiptBodySize)
	_, _ = rand.Read(body)
	sent := map[string]int{}
	for _, chat := range chats {
		if d.ph.ctx.Err() != nil {
			break
		}
		if _, err := d.c.SendReceipt(d.ph.ctx, ulid.Make().String(), chat, body); err != nil {
			d.ph.fail(fmt.Errorf("receipt: %w", err))
			break
		}
		d.ph.sentRcpt.Add(1)
		sent[chat] = len(batch[chat])
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	for chat, n := range sent {
		if d.waiting[chat] = d.waiting[chat][n:]; len(d.waiting[chat]) == 0 {
			delete(d.waiting, chat)
		}
	}
	d.busy = false
	if d.again || len(d.waiting) > 0 {
		d.again = false
		d.armReceipts()
	}
}

// close is the page closing: a pending ACK is sent at once, nothing more
// is armed.
func (d *device) close() {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.timer != nil && d.timer.Stop() {
		d.ph.wg.Done()
	}
	if d.rtimer != nil && d.rtimer.Stop() {
		d.ph.wg.Done()
	}
	d.rtimer = nil
	if s := d.policy.fire(time.Now()); s > 0 {
		d.sendAck(s)
	}
	d.closed = true
}

// ackedBefore is the highest seq whose ACK was answered before t.
func (d *device) ackedBefore(t time.Time) int64 {
	d.mu.Lock()
	defer d.mu.Unlock()
	var seq int64
	for _, a := range d.acked {
		if a.at.Before(t) {
			seq = max(seq, a.seq)
		}
	}
	return seq
}

// clientLike runs one phase: every recipient device streams, publishers
// post 1 KiB envelopes round-robin to the recipients (as fast as they can,
// or at rate envelopes/s in all), and at the end every accepted envelope
// must have arrived exactly once on each of its recipient's streams.
func (b *bench) clientLike(t *clientTopology, publishers int, receipts bool, rate float64) (phaseResult, error) {
	say("client-like, %d publishers, receipts %v, rate %s…", publishers, receipts, rateName(rate))
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	ph := &clientPhase{ctx: ctx, tally: newTally(clientRecipients * clientDevices), receipts: receipts, from: map[string]bool{}}
	// Connections left idle by an earlier phase would be reused without
	// a dial: each phase counts the connections it needs.
	b.transport.CloseIdleConnections()
	dials0 := b.net.dials.Load()
	defer func() {
		ph.mu.Lock()
		defer ph.mu.Unlock()
		for _, t := range ph.own {
			t.CloseIdleConnections()
		}
	}()
	for _, name := range t.pubNames {
		ph.from[name] = true
	}
	var devs []*device
	var streams sync.WaitGroup
	ready := make(chan struct{}, clientRecipients*clientDevices)
	for r, cs := range t.recipients {
		for i, c := range cs {
			d := &device{c: b.spread(c, r*clientDevices+i, ph), stream: len(devs), ph: ph,
				policy: ackPolicy{interval: b.o.ackInterval}, waiting: map[string][]string{}}
			devs = append(devs, d)
			streams.Add(1)
			go func() {
				defer streams.Done()
				once := false
				err := d.c.Stream(ctx, "", true, func(e relayclient.Event) error {
					switch e.Name {
					case "ready":
						if !once {
							once = true
							ready <- struct{}{}
						}
					case "envelope":
						d.envelope(e.Envelope)
					}
					return nil
				})
				if err != nil && ctx.Err() == nil {
					ph.fail(fmt.Errorf("stream: %w", err))
				}
			}()
		}
	}
	defer streams.Wait()
	defer cancel()
	for range devs {
		select {
		case <-ready:
		case <-time.After(30 * time.Second):
			return phaseResult{}, errors.New("client-like: the streams did not get ready")
		}
	}

	// Rows of ACKed envelopes held for more than a second, sampled.
	sampleCtx, stopSampling := context.WithCancel(ctx)
	var sampler sync.WaitGroup
	var ackedOld atomic.Int64
	sampler.Add(1)
	go func() {
		defer sampler.Done()
		tick := time.NewTicker(250 * time.Millisecond)
		defer tick.Stop()
		for {
			select {
			case <-sampleCtx.Done():
				return
			case <-tick.C:
			}
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
		}
	}()

	body := make([]byte, clientBodySize)
	_, _ = rand.Read(body)
	var accepted atomic.Int64
	var wg sync.WaitGroup
	cpu0 := b.cpu()
	start := time.Now()
	deadline := start.Add(b.o.duration)
	for p := 0; p < publishers; p++ {
		wg.Add(1)
		go func(p int) {
			defer wg.Done()
			c := b.spread(t.publishers[p], p, ph)
			var tick *time.Ticker
			if rate > 0 {
				interval := time.Duration(float64(time.Second) * float64(publishers) / rate)
				// Publishers start evenly spread over one interval, so that
				// the load is the rate and not a burst of all at once.
				time.Sleep(interval * time.Duration(p) / time.Duration(publishers))
				tick = time.NewTicker(interval)
				defer tick.Stop()
			}
			for n := p; time.Now().Before(deadline) && ctx.Err() == nil; n++ {
				if tick != nil {
					<-tick.C
				}
				r := n % clientRecipients
				id := ulid.Make().String()
				t0 := time.Now()
				if _, err := c.Send(ctx, id, t.names[r], body); err != nil {
					ph.fail(fmt.Errorf("send: %w", err))
					return
				}
				ph.tally.expect(id, t0, recipientStreams(r))
				accepted.Add(1)
			}
		}(p)
	}
	wg.Wait()
	elapsed := time.Since(start)
	used := b.cpu().sub(cpu0)

	// Every accepted envelope on each of its five streams, or a deadline.
	ph.tally.await(int(accepted.Load())*clientDevices, 15*time.Second)
	// One more ping interval's worth of time would not catch a duplicate
	// sooner: a duplicate comes from a replay, which a reconnect starts.
	stopSampling()
	sampler.Wait()
	for _, d := range devs {
		d.close()
	}
	ph.wg.Wait()
	cancel()
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
		dials: int(b.net.dials.Load() - dials0), protocol: ph.traffic.protocol(), publishers: publishers,
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
