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

// newPhase starts a phase of devices that behave as the web client, with
// a tally of the given number of streams. Its clients' idle connections
// are closed first: connections left by an earlier phase would be reused
// without a dial, and each phase counts the connections it needs. The
// caller defers release.
func (b *bench) newPhase(streams int, receipts bool) *clientPhase {
	ctx, cancel := context.WithCancel(context.Background())
	b.transport.CloseIdleConnections()
	return &clientPhase{ctx: ctx, cancel: cancel, tally: newTally(streams), receipts: receipts,
		from: map[string]bool{}, dials0: b.net.dials.Load()}
}

// openDevices opens a stream for each device of the accounts, in order,
// device i being stream i of the phase's tally, and waits until every
// stream is ready.
func (b *bench) openDevices(ph *clientPhase, accounts [][]*relayclient.Client) ([]*device, error) {
	var cs []*relayclient.Client
	for _, a := range accounts {
		cs = append(cs, a...)
	}
	devs := make([]*device, len(cs))
	ready := make(chan struct{}, len(cs))
	for i, c := range cs {
		d := &device{c: b.spread(c, i, ph), stream: i, ph: ph,
			policy: ackPolicy{interval: b.o.ackInterval}, waiting: map[string][]string{}}
		devs[i] = d
		ph.streams.Add(1)
		go func() {
			defer ph.streams.Done()
			once := false
			err := d.c.Stream(ph.ctx, "", true, func(e relayclient.Event) error {
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
			if err != nil && ph.ctx.Err() == nil {
				ph.fail(fmt.Errorf("stream: %w", err))
			}
		}()
	}
	for range devs {
		select {
		case <-ready:
		case <-time.After(30 * time.Second):
			return nil, errors.New("the streams did not get ready")
		}
	}
	return devs, nil
}

// finish is the pages closing at the end of a phase: each device sends
// its pending ACK, and finish waits for every ACK and receipt in flight.
func (ph *clientPhase) finish(devs []*device) {
	for _, d := range devs {
		d.close()
	}
	ph.wg.Wait()
	ph.cancel()
}

// release ends the phase's streams and waits for them, and closes the
// clients' own transports.
func (ph *clientPhase) release() {
	ph.cancel()
	ph.streams.Wait()
	ph.mu.Lock()
	defer ph.mu.Unlock()
	for _, t := range ph.own {
		t.CloseIdleConnections()
	}
}

// publish runs n publishers until deadline or the end of ctx, as fast as
// they can or, when rate > 0, at rate envelopes per second in all. send
// sends publisher p's i-th envelope (i from 0) and says whether p goes
// on.
func publish(ctx context.Context, n int, rate float64, deadline time.Time, send func(p, i int) bool) {
	var wg sync.WaitGroup
	for p := 0; p < n; p++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var tick *time.Ticker
			if rate > 0 {
				interval := time.Duration(float64(time.Second) * float64(n) / rate)
				// Publishers start evenly spread over one interval, so that
				// the load is the rate and not a burst of all at once.
				time.Sleep(interval * time.Duration(p) / time.Duration(n))
				tick = time.NewTicker(interval)
				defer tick.Stop()
			}
			for i := 0; time.Now().Before(deadline) && ctx.Err() == nil; i++ {
				if tick != nil {
					<-tick.C
				}
				if !send(p, i) {
					return
				}
			}
		}()
	}
	wg.Wait()
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

// clientPhase is the shared state of one phase of devices that behave as
// the web client (the client-like and groups scenarios).
type clientPhase struct {
	ctx      context.Context
	cancel   context.CancelFunc
	wg       sync.WaitGroup // the ACKs, timers and receipt passes in flight
	streams  sync.WaitGroup // the devices' streams
	dials0   int64          // the clients' TCP connections before the phase
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
