package main

import (
	"fmt"
	"slices"
	"sort"
	"sync"
	"time"
)

// The web client's policies that the client-like scenario mirrors. A test
// reads the client's files and fails when these differ from them.
const (
	// clientAckInterval is ACK_INTERVAL_MS of webclient/static/stream.js:
	// a device ACKs at once when it sent no ACK in the last interval, and
	// otherwise once at the end of it.
	clientAckInterval = 150 * time.Millisecond
	// receiptWindow is WINDOW of webclient/static/receipts.js: a device
	// sends at most one receipt per chat and status in each window.
	receiptWindow = 2000 * time.Millisecond
	// receiptMaxIDs is MAX_IDS of webclient/static/records.js: the
	// message ids one receipt names at most.
	receiptMaxIDs = 100
	// receiptBodySize is a sealed delivery receipt's body: the 256-byte
	// bucket of a short message sealed in the chat's MLS group
	// (docs/crypto.md, "Version 2: chats in MLS groups").
	receiptBodySize = 256 + 222
)

// ackPolicy is stream.js's ACK policy for one device, without a clock of
// its own: the caller says when things happen, so that the same code
// drives the live scenario and the simulation its test runs.
//
// After a batch is written the highest seq written since the last ACK is
// ACKed at once if no ACK was sent in the last interval; otherwise one ACK
// is scheduled for the last ACK's time plus the interval, and it covers
// whatever was written by then (one timer at a time). Hiding or closing
// the page sends a pending ACK at once (stream.js's ackWritten, sendAck
// and flushAck; ADR 0074).
type ackPolicy struct {
	interval  time.Duration
	lastAckAt time.Time // zero until the first ACK
	written   int64     // the highest seq written since the last ACK
	pending   bool      // a timer is armed
}

// wrote records a batch written up to seq at now. It returns the seq to
// ACK at once (0 for none) and, when a timer is to be armed, when it fires.
func (p *ackPolicy) wrote(now time.Time, seq int64) (ack int64, timer time.Time) {
	p.written = max(p.written, seq)
	if p.pending {
		return 0, time.Time{}
	}
	if p.lastAckAt.IsZero() || now.Sub(p.lastAckAt) >= p.interval {
		return p.send(now), time.Time{}
	}
	p.pending = true
	return 0, p.lastAckAt.Add(p.interval)
}

// fire is the timer firing, or the page being hidden or closed, at now:
// it returns the seq to ACK (0 when nothing is pending).
func (p *ackPolicy) fire(now time.Time) int64 {
	if !p.pending {
		return 0
	}
	p.pending = false
	return p.send(now)
}

// send is stream.js's sendAck: what was written since the last ACK, which
// then starts again from nothing.
func (p *ackPolicy) send(now time.Time) int64 {
	seq := p.written
	if seq == 0 {
		return 0
	}
	p.written = 0
	p.lastAckAt = now
	return seq
}

// arrival is a batch written up to seq at a time.
type arrival struct {
	at  time.Duration
	seq int64
}

// sentAck is an ACK request of a simulation.
type sentAck struct {
	at  time.Duration
	seq int64
}

// simulateAcks runs the policy over batches written at the given times
// (from a common origin) and returns the ACKs it sends. A timer due at the
// same instant as a write fires first. hideAt > 0 hides the page then;
// otherwise the last timer is let fire.
func simulateAcks(interval time.Duration, batches []arrival, hideAt time.Duration) []sentAck {
	batches = append([]arrival(nil), batches...)
	sort.SliceStable(batches, func(i, j int) bool { return batches[i].at < batches[j].at })
	var t0 time.Time
	at := func(d time.Duration) time.Time { return t0.Add(time.Hour + d) }
	p := ackPolicy{interval: interval}
	var out []sentAck
	var timer time.Duration
	armed := false
	fireUntil := func(until time.Duration) {
		if armed && timer <= until {
			armed = false
			if s := p.fire(at(timer)); s > 0 {
				out = append(out, sentAck{timer, s})
			}
		}
	}
	for _, b := range batches {
		fireUntil(b.at)
		ack, next := p.wrote(at(b.at), b.seq)
		if ack > 0 {
			out = append(out, sentAck{b.at, ack})
		}
		if !next.IsZero() {
			armed, timer = true, next.Sub(at(0))
		}
	}
	if hideAt > 0 {
		fireUntil(hideAt)
		armed = false
		if s := p.fire(at(hideAt)); s > 0 {
			out = append(out, sentAck{hideAt, s})
		}
	} else {
		fireUntil(timer)
	}
	return out
}

// tally counts deliveries by envelope id on each stream, to check at the
// end of a phase that every accepted envelope arrived exactly once on each
// of its target streams.
type tally struct {
	mu   sync.Mutex             // guards the following
	want map[string][]int       // envelope id → the streams it targets
	got  []map[string]int       // per stream: envelope id → arrivals
	at   []map[string]time.Time // per stream: envelope id → first arrival
	sent map[string]time.Time   // envelope id → POST start
	// firsts counts the expected deliveries that arrived, kept as they
	// come (an arrival can come before its expect: a stream may see an
	// envelope before its sender has read the 202)
	firsts int
}

func newTally(streams int) *tally {
	t := &tally{want: map[string][]int{}, sent: map[string]time.Time{}}
	for i := 0; i < streams; i++ {
		t.got = append(t.got, map[string]int{})
		t.at = append(t.at, map[string]time.Time{})
	}
	return t
}

// expect records an envelope posted at start for the given streams; the
// caller calls it once the envelope was accepted.
func (t *tally) expect(id string, start time.Time, streams []int) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.want[id] = streams
	t.sent[id] = start
	for _, s := range streams {
		if t.got[s][id] > 0 {
			t.firsts++
		}
	}
}

// arrived records one arrival of id on stream s.
func (t *tally) arrived(s int, id string, now time.Time) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.got[s][id] == 0 {
		t.at[s][id] = now
		if slices.Contains(t.want[id], s) {
			t.firsts++
		}
	}
	t.got[s][id]++
}

// check returns how many expected deliveries never arrived, how many
// arrived more than once (each extra arrival counted). Arrivals of envelopes not expected (receipts, envelopes
// of an earlier phase) are not counted.
func (t *tally) check() (lost, duplicated int) {
	t.mu.Lock()
	defer t.mu.Unlock()
	for id, streams := range t.want {
		for _, s := range streams {
			switch n := t.got[s][id]; {
			case n == 0:
				lost++
			case n > 1:
				duplicated += n - 1
			}
		}
	}
	return lost, duplicated
}

// delivered is the number of expected deliveries that arrived.
func (t *tally) delivered() int {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.firsts
}

// strays counts the arrivals of expected envelopes on streams they do not
// target: a copy delivered where it must not be, such as on the device
// that sent it or on a device of another group.
func (t *tally) strays() int {
	t.mu.Lock()
	defer t.mu.Unlock()
	n := 0
	for s, got := range t.got {
		for id, k := range got {
			if streams, ok := t.want[id]; ok && !slices.Contains(streams, s) {
				n += k
			}
		}
	}
	return n
}

// problems describes, sorted, up to limit of the deliveries that were not
// exactly once: missing, repeated, or on a stream the envelope does not
// target, each stream named by name.
func (t *tally) problems(limit int, name func(stream int) string) []string {
	t.mu.Lock()
	defer t.mu.Unlock()
	var out []string
	for id, streams := range t.want {
		for _, s := range streams {
			switch n := t.got[s][id]; {
			case n == 0:
				out = append(out, fmt.Sprintf("%s on %s: missing", id, name(s)))
			case n > 1:
				out = append(out, fmt.Sprintf("%s on %s: %d arrivals", id, name(s), n))
			}
		}
	}
	for s, got := range t.got {
		for id, n := range got {
			if streams, ok := t.want[id]; ok && !slices.Contains(streams, s) {
				out = append(out, fmt.Sprintf("%s on %s, which it does not target: %d arrivals", id, name(s), n))
			}
		}
	}
	sort.Strings(out)
	return out[:min(len(out), limit)]
}

// lastArrival is the latest first arrival of an expected delivery, zero
// when none arrived.
func (t *tally) lastArrival() time.Time {
	t.mu.Lock()
	defer t.mu.Unlock()
	var last time.Time
	for id, streams := range t.want {
		for _, s := range streams {
			if at, ok := t.at[s][id]; ok && at.After(last) {
				last = at
			}
		}
	}
	return last
}

// await waits until want expected deliveries arrived, or for at most d.
func (t *tally) await(want int, d time.Duration) {
	for end := time.Now().Add(d); t.delivered() < want && time.Now().Before(end); {
		time.Sleep(20 * time.Millisecond)
	}
}

// recipientStreams are the streams of recipient r's devices, numbered
// r*clientDevices on in both the relay's and ntfy's phases.
func recipientStreams(r int) []int {
	streams := make([]int, clientDevices)
	for i := range streams {
		streams[i] = r*clientDevices + i
	}
	return streams
}

// latencies returns POST start to first arrival, in milliseconds, for
// every expected delivery that arrived, sorted.
func (t *tally) latencies() []float64 {
	ds := t.deliveries()
	out := make([]float64, len(ds))
	for i, d := range ds {
		out[i] = float64(d.d.Microseconds()) / 1000
	}
	sort.Float64s(out)
	return out
}

// deliveries is every expected delivery that arrived, from its POST's
// start to its arrival.
func (t *tally) deliveries() []span {
	t.mu.Lock()
	defer t.mu.Unlock()
	var out []span
	for id, streams := range t.want {
		for _, s := range streams {
			if at, ok := t.at[s][id]; ok {
				out = append(out, span{t.sent[id], at.Sub(t.sent[id])})
			}
		}
	}
	return out
}

// copiesPerSecond is the expected deliveries that arrived per second, from
// start to the last of them.
func copiesPerSecond(t *tally, start time.Time) float64 {
	last := t.lastArrival()
	if !last.After(start) {
		return 0
	}
	return float64(t.delivered()) / last.Sub(start).Seconds()
}

// percentile of sorted values, 0 when there are none.
func percentile(sorted []float64, p float64) float64 {
	if len(sorted) == 0 {
		return 0
	}
	return sorted[min(len(sorted)-1, int(p*float64(len(sorted))))]
}

// The physical floor (ADR 0068): one durable 1 KiB insert and commit per
// envelope into a plain table, synchronous_commit on, with pgbench at the
// client-like scenario's concurrency.
const (
	floorTableSQL = `CREATE TABLE IF NOT EXISTS bench_floor (id bigserial PRIMARY KEY, body bytea NOT NULL)`
	floorScript   = "INSERT INTO bench_floor (body) VALUES (decode(repeat('ab', 1024), 'hex'));\n"
)

// floorEnv makes pgbench's sessions commit durably whatever the server's
// default is.
var floorEnv = []string{"PGOPTIONS=-c synchronous_commit=on"}

// refEnv makes pgbench's sessions plan the accept transaction as the
// relay's connections do: once per connection (ADR 0077).
var refEnv = []string{"PGOPTIONS=-c plan_cache_mode=force_generic_plan"}
