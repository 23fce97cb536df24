package relay

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"math"
	"net"
	"net/http"
	"os"
	"strconv"
	"sync"
	"syscall"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"relay/epoch"
	"relay/hub"
	"relay/queue"
)

// replayBatch is how many queue rows one read fetches.
const replayBatch = 500

// The events of the stream (docs/protocol.md, "GET /api/events"). Their
// names and data are the protocol: they are defined here, where the stream
// is written, and nowhere else.
const (
	eventEpoch    = "epoch"    // first: the history the seq numbers belong to
	eventPurged   = "purged"   // envelopes the relay deleted unreceived
	eventEnvelope = "envelope" // one envelope, with id: <seq>
	eventReady    = "ready"    // the replay is done
	eventPing     = "ping"     // the link is alive
	// eventShutdown ends every stream when the relay closes; the events
	// below end single streams, for the hub's reasons (endEvent).
	eventShutdown  = "shutdown"
	eventReplaced  = "replaced"
	eventRevoked   = "revoked"
	eventDeleted   = "deleted"
	eventDisabled  = "disabled"
	eventLoggedOut = "logged_out"
	eventRewound   = "rewound"
)

// endEvent names the last event of a stream the hub ended for reason.
// Every reason of the hub has its event (TestEveryHubReasonHasAnEvent); one
// it did not know would end the stream as a shutdown does, so that the
// client comes back and is answered by what the relay knows then.
func endEvent(reason string) string {
	switch reason {
	case hub.ReasonReplaced:
		return eventReplaced
	case hub.ReasonRevoked:
		return eventRevoked
	case hub.ReasonDeleted:
		return eventDeleted
	case hub.ReasonDisabled:
		return eventDisabled
	case hub.ReasonLoggedOut:
		return eventLoggedOut
	case hub.ReasonRewound:
		return eventRewound
	}
	return eventShutdown
}

// envelopeEvent is the data of event: envelope. Its fields are those of a
// queue row; the JSON names are the protocol's.
type envelopeEvent struct {
	Seq        int64  `json:"seq"`
	ID         string `json:"id"`
	From       string `json:"from"`
	FromDevice string `json:"fromDevice"`
	To         string `json:"to"`
	TS         int64  `json:"ts"`
	Body       []byte `json:"body"` // base64, as encoding/json writes []byte
}

// newEnvelopeEvent is the data of event: envelope for queue row it. The
// queue page (GET /api/queue) encodes its envelopes with it too, so that
// both encode an envelope alike (ADR 0088).
func newEnvelopeEvent(it *queue.Item) envelopeEvent {
	return envelopeEvent{Seq: it.Seq, ID: it.ID, From: it.From, FromDevice: it.FromDevice, To: it.To, TS: it.TS, Body: it.Body}
}

// epochEvent is the data of event: epoch.
type epochEvent struct {
	Epoch string `json:"epoch"`
	Seq   int64  `json:"seq"`             // the device's last seq when the replay began
	Ahead bool   `json:"ahead,omitempty"` // Last-Event-ID was beyond Seq
}

// purgedEvent is the data of event: purged.
type purgedEvent struct {
	Reason string `json:"reason"` // queue.PurgeAge or queue.PurgeSize
	UpTo   int64  `json:"upTo"`
}

// readyEvent is the data of event: ready.
type readyEvent struct {
	Seq int64 `json:"seq"` // the device's last seq when the replay began
}

// pingEvent is the data of event: ping.
type pingEvent struct {
	TS int64 `json:"ts"` // the relay's clock, in Unix milliseconds
}

// noData is the data of the events that say nothing but their name: {}.
type noData struct{}

// errClosing stops a stream's reads once the relay is closing: it then
// gets event: shutdown instead of the rest of its replay.
var errClosing = errors.New("the relay is closing")

// GET /api/events: the device's queue as Server-Sent Events
// (docs/protocol.md, "Event stream"): replay of what is queued after
// Last-Event-ID, then "ready", then live envelopes as they commit, with
// pings in between.
//
// Once Close has begun no stream starts; Close waits for every stream the
// preamble counted (streamSlot), until its release.
func (s *Server) events(w http.ResponseWriter, r *http.Request, in *checked) error {
	ctx := r.Context()
	dev := in.device
	head, err := queue.Head(ctx, s.pool, dev)
	if err != nil {
		return err
	}
	last, ahead, err := parseLastEventID(r.Header.Get("Last-Event-ID"), head)
	if err != nil {
		return err
	}
	// Read before the stream is attached: if a new epoch begins after
	// this, the catch-up check sees the stream in the old one and ends it.
	ep, err := epoch.Read(ctx, s.pool)
	if err != nil {
		return err
	}
	gen, err := s.accounts.OpenStream(ctx, dev, s.hub.Instance())
	if err != nil {
		return err
	}

	// Attach before reading the head: an envelope committed from here on
	// either has a seq up to the head (and is in the replay) or wakes the
	// live loop.
	st := s.hub.OpenIn(dev, gen, ep.String())

	h := w.Header()
	h.Set("Content-Type", "text/event-stream")
	h.Set("Cache-Control", "no-store")
	h.Set("X-Accel-Buffering", "no") // tell proxies not to buffer the stream

	if conn, out := hijackStream(w, r, s.cfg.StreamWriteTimeout); conn != nil {
		// HTTP/1.x: the stream takes the connection over. The replay runs
		// here; the live part runs on one goroutine of its own
		// (liveConn) and the handler returns, so that net/http's buffers
		// and request state, and the stack the replay grew, are freed:
		// an idle stream keeps only what it needs (docs/performance.md,
		// idle streams).
		sctx, cancel := context.WithCancel(context.Background())
		sm := &streamer{s: s, st: st, device: dev, out: out, last: last, epoch: ep.String(), ahead: ahead, reqID: requestID(r)}
		done := func() {
			cancel()
			conn.Close()
			s.hub.Detach(st)
		}
		if !sm.replay(sctx) {
			done()
			return nil
		}
		cancel()             // the live part reads with contexts of its own
		release := in.keep() // the live goroutine owns the count
		go func() {
			defer release()
			defer done()
			sm.liveConn(conn)
		}()
		return nil
	}
	// HTTP/2 cannot hand its connection over: stream from the handler.
	defer s.hub.Detach(st)
	w.WriteHeader(http.StatusOK)
	rc := http.NewResponseController(w)
	out := &sseWriter{send: func(p []byte) error {
		// A client that stops reading is cut off then, instead of
		// pinning a goroutine and buffers.
		_ = rc.SetWriteDeadline(time.Now().Add(s.cfg.StreamWriteTimeout))
		if _, err := w.Write(p); err != nil {
			return err
		}
		return rc.Flush()
	}}
	sm := &streamer{s: s, st: st, device: dev, out: out, last: last, epoch: ep.String(), ahead: ahead, reqID: requestID(r)}
	if sm.replay(ctx) {
		sm.live(ctx)
	}
	return nil
}

// hijackStream takes an HTTP/1.x connection over for an event stream and
// writes the response head (status 200, w's headers, Connection: close;
// the body then lasts until the connection closes). It returns nil when
// the connection cannot be taken over.
func hijackStream(w http.ResponseWriter, r *http.Request, writeTimeout time.Duration) (net.Conn, *sseWriter) {
	if r.ProtoMajor != 1 {
		return nil, nil
	}
	conn, _, err := http.NewResponseController(w).Hijack()
	if err != nil {
		return nil, nil
	}
	if sw, ok := w.(*statusWriter); ok {
		sw.status = http.StatusOK // for the access log
	}
	out := &sseWriter{send: func(p []byte) error {
		_ = conn.SetWriteDeadline(time.Now().Add(writeTimeout))
		_, err := conn.Write(p)
		return err
	}}
	buf := out.buffer()
	buf.WriteString("HTTP/1.1 200 OK\r\n")
	w.Header().Set("Date", time.Now().UTC().Format(http.TimeFormat))
	w.Header().Set("Connection", "close")
	_ = w.Header().Write(buf)
	buf.WriteString("\r\n")
	return conn, out
}

// streamer writes one device's event stream.
type streamer struct {
	s      *Server
	st     *hub.Stream
	device string
	out    *sseWriter
	last   int64 // the last seq written
	ready  bool  // past ready: envelopes count for the delivery latency
	reqID  string
	epoch  string        // the history its seq numbers belong to (ADR 0086)
	ahead  bool          // Last-Event-ID was beyond the device's seq
	env    envelopeEvent // reused for every envelope, so framing one allocates no more
}

// write sends rows after last, in order; rows at or below last (handed
// over twice) are skipped.
func (m *streamer) write(items []queue.Item) error {
	for i := range items {
		if items[i].Seq <= m.last {
			continue
		}
		it := &items[i]
		m.env = newEnvelopeEvent(it)
		if err := m.out.event(eventEnvelope, it.Seq, &m.env); err != nil {
			return err
		}
		m.last = items[i].Seq
		if m.ready {
			m.s.metrics.delivery.Observe(time.Since(time.UnixMilli(items[i].TS)).Seconds())
		}
	}
	m.st.Wrote(m.last)
	return nil
}

// pump sends the queue rows with last < seq <= upTo, in order. While it
// writes one batch, the next is already being read. It stops with
// errClosing between batches once the relay is closing.
func (m *streamer) pump(ctx context.Context, upTo int64) error {
	next := m.read(ctx, m.last, upTo)
	for {
		res := <-next
		if res.err != nil {
			return res.err
		}
		select {
		case <-m.s.closing:
			return errClosing
		default:
		}
		full := len(res.items) == replayBatch
		if full {
			next = m.read(ctx, res.items[len(res.items)-1].Seq, upTo)
		}
		if err := m.write(res.items); err != nil {
			return err
		}
		if !full {
			return m.out.flush()
		}
	}
}

type readResult struct {
	items []queue.Item
	err   error
}

// read reads one batch of rows after seq after in the background.
func (m *streamer) read(ctx context.Context, after, upTo int64) <-chan readResult {
	c := make(chan readResult, 1) // the reader never waits for the writer
	go func() {
		items, err := queue.Read(ctx, m.s.pool, m.device, after, upTo, replayBatch)
		c <- readResult{items, err}
	}()
	return c
}

// end ends the stream for err: with event: shutdown when the relay is
// closing, else with a log line unless its client left.
func (m *streamer) end(ctx context.Context, err error) {
	if errors.Is(err, errClosing) {
		_ = m.out.event(eventShutdown, 0, noData{})
		err = m.out.flush()
	}
	if err != nil && ctx.Err() == nil && !clientWentAway(err) {
		m.s.log.Warn("stream ended", "request_id", m.reqID, "err", err)
	}
}

// clientWentAway reports whether a write failed because the client closed
// its end of the connection.
func clientWentAway(err error) bool {
	return errors.Is(err, syscall.EPIPE) || errors.Is(err, syscall.ECONNRESET) || errors.Is(err, net.ErrClosed)
}

// replay writes the device's queue after last, then ready. It reports
// whether the stream goes on.
func (m *streamer) replay(ctx context.Context) bool {
	// Every row with seq <= head is committed: seq is taken under the
	// device row's lock, which is held to commit (ADR 0002). So after the
	// replay the device has everything up to head, or ACKed it earlier.
	qs, err := queue.State(ctx, m.s.pool, m.device)
	head := qs.Seq
	if err == nil {
		// First, so that a client knows which history the seq numbers
		// of the replay belong to before it reads them
		// (docs/protocol.md, "epoch").
		ev := epochEvent{Epoch: m.epoch, Seq: head, Ahead: m.ahead}
		err = m.out.event(eventEpoch, 0, &ev)
	}
	if err == nil && m.last < qs.PurgedSeq {
		// The relay deleted envelopes this device had not received
		// (docs/protocol.md, "purged"): say so before the replay.
		err = m.out.event(eventPurged, 0, &purgedEvent{Reason: qs.PurgedReason, UpTo: qs.PurgedSeq})
	}
	if err == nil {
		err = m.pump(ctx, head)
	}
	if err == nil {
		m.last = head
		err = m.out.event(eventReady, 0, &readyEvent{Seq: head})
	}
	if err == nil {
		err = m.out.flush()
	}
	if err != nil {
		m.end(ctx, err)
		return false
	}
	m.ready = true
	m.st.Live(head)
	// Rows committed between the replay and now have woken the stream
	// directly (it was not live yet); its wake channel holds that.
	return true
}

// readEpoch reads the database's epoch, for the hub's catch-up check.
func readEpoch(pool *pgxpool.Pool) func(context.Context) (string, error) {
	return func(ctx context.Context) (string, error) {
		p, err := epoch.Read(ctx, pool)
		return p.String(), err
	}
}

// handOver writes rows handed over for the stream. A gap before them (an
// earlier hand-over that did not happen) is read first.
func (m *streamer) handOver(ctx context.Context, batch []queue.Item) error {
	if first := batch[0].Seq; first > m.last+1 {
		if err := m.pump(ctx, first-1); err != nil {
			return err
		}
	}
	if err := m.write(batch); err != nil {
		return err
	}
	return m.out.flush()
}

// live writes envelopes as they commit, and pings, until the client goes
// (ctx), the relay ends the stream, or a write fails.
func (m *streamer) live(ctx context.Context) {
	ping := time.NewTicker(m.s.cfg.PingInterval)
	defer ping.Stop()
	for {
		var err error
		select {
		case <-ctx.Done():
			return
		case <-m.st.Done():
			_ = m.out.event(endEvent(m.st.Reason()), 0, noData{})
			m.end(ctx, m.out.flush())
			return
		case <-m.s.closing:
			m.end(ctx, errClosing)
			return
		case <-m.st.Wake():
			err = m.pump(ctx, math.MaxInt64)
		case batch := <-m.st.Items():
			err = m.handOver(ctx, batch)
		case <-ping.C:
			err = m.out.ping(m.s.now().UnixMilli())
			if err == nil {
				err = m.out.flush()
			}
		}
		if err != nil {
			m.end(ctx, err)
			return
		}
	}
}

// liveConn is live for a stream that took its connection over, on one
// goroutine: it waits in a read of the connection, which ends when the
// client goes (clients send nothing on a stream), and whatever it must
// write ends that wait early by moving the read's deadline: the hub's
// signal (rows, a wake-up, the stream's end), the relay closing
// (Hub.SignalAll), and the next ping (the deadline itself). An idle stream
// thus costs one parked goroutine and no timer of its own.
func (m *streamer) liveConn(conn net.Conn) {
	m.st.OnSignal(func() { _ = conn.SetReadDeadline(aLongTimeAgo) })
	nextPing := time.Now().Add(m.s.cfg.PingInterval)
	var b [64]byte
	for {
		// The deadline first, then the channels: news that comes after
		// they were looked at moves the deadline after this, and the
		// read returns at once.
		_ = conn.SetReadDeadline(nextPing)
		if stop, err := m.news(); stop {
			if err != nil {
				m.end(context.Background(), err)
			}
			return
		}
		if _, err := conn.Read(b[:]); err != nil {
			if !errors.Is(err, os.ErrDeadlineExceeded) {
				return // the client went away
			}
			if now := time.Now(); !now.Before(nextPing) {
				nextPing = now.Add(m.s.cfg.PingInterval)
				err := m.out.ping(m.s.now().UnixMilli())
				if err == nil {
					err = m.out.flush()
				}
				if err != nil {
					m.end(context.Background(), err)
					return
				}
			}
		}
	}
}

// aLongTimeAgo is a read deadline that has passed: a read waiting on it
// returns at once.
var aLongTimeAgo = time.Unix(1, 0)

// news handles what the hub and the relay have for the stream without
// waiting: rows handed over, wake-ups, the stream's end, the relay
// closing. It reports whether the stream stops, and why when it failed.
func (m *streamer) news() (stop bool, err error) {
	ctx := context.Background()
	for {
		select {
		case <-m.st.Done():
			_ = m.out.event(endEvent(m.st.Reason()), 0, noData{})
			if err := m.out.flush(); err != nil {
				return true, err
			}
			return true, nil
		case <-m.s.closing:
			return true, errClosing
		case <-m.st.Wake():
			err = m.pump(ctx, math.MaxInt64)
		case batch := <-m.st.Items():
			err = m.handOver(ctx, batch)
		default:
			return false, nil
		}
		if err != nil {
			return true, err
		}
	}
}

// sseWriter frames events. Every event has a data line, because browsers
// drop events without one. Its buffer comes from a pool when an event is
// framed and goes back once it is sent, so that an idle stream holds none.
type sseWriter struct {
	buf  *bytes.Buffer        // nil between flushes
	send func(p []byte) error // writes p to the client under a deadline
}

// sseBuffers holds the buffers of streams between flushes.
var sseBuffers = sync.Pool{New: func() any { return new(bytes.Buffer) }}

// sseBufferKept is the largest buffer that goes back to the pool; one grown
// past it by a replay is dropped.
const sseBufferKept = 64 << 10

var errStreamWrite = errors.New("writing to the event stream")

// buffer is o's buffer, taken from the pool when o holds none.
func (o *sseWriter) buffer() *bytes.Buffer {
	if o.buf == nil {
		o.buf = sseBuffers.Get().(*bytes.Buffer)
	}
	return o.buf
}

// event buffers one event; id 0 means no id line. JSON never contains a raw
// newline, so data fits on one line.
func (o *sseWriter) event(name string, id int64, data any) error {
	buf := o.buffer()
	buf.WriteString("event: ")
	buf.WriteString(name)
	buf.WriteByte('\n')
	if id > 0 {
		buf.WriteString("id: ")
		buf.WriteString(strconv.FormatInt(id, 10))
		buf.WriteByte('\n')
	}
	buf.WriteString("data: ")
	b, err := json.Marshal(data)
	if err != nil {
		return err
	}
	buf.Write(b)
	buf.WriteString("\n\n")
	if buf.Len() >= 32<<10 {
		return o.flush()
	}
	return nil
}

// ping buffers a ping event, the same bytes as event(eventPing, 0,
// &pingEvent{TS: ts}) framed by hand: an idle stream's goroutine then never
// runs the JSON encoder, whose stack would stay with it.
func (o *sseWriter) ping(ts int64) error {
	buf := o.buffer()
	buf.WriteString("event: " + eventPing + "\ndata: {\"ts\":")
	var digits [20]byte
	buf.Write(strconv.AppendInt(digits[:0], ts, 10))
	buf.WriteString("}\n\n")
	return nil
}

// flush sends what is buffered and gives the buffer back.
func (o *sseWriter) flush() error {
	buf := o.buf
	if buf == nil || buf.Len() == 0 {
		return nil
	}
	if err := o.send(buf.Bytes()); err != nil {
		return errors.Join(errStreamWrite, err)
	}
	o.buf = nil
	if buf.Cap() <= sseBufferKept {
		buf.Reset()
		sseBuffers.Put(buf)
	}
	return nil
}
