package relay

import (
	"bytes"
	"encoding/json"
	"errors"
	"math"
	"net/http"
	"strconv"
	"time"

	"github.com/julienschmidt/httprouter"

	"relay/queue"
)

const (
	// replayBatch is how many queue rows one read fetches.
	replayBatch = 500
	// writeTimeout bounds each write to a stream: a client that stops
	// reading is cut off then, instead of pinning a goroutine and buffers.
	writeTimeout = 15 * time.Second
)

// GET /api/events: the device's queue as Server-Sent Events
// (docs/protocol.md, "Event stream"): replay of what is queued after
// Last-Event-ID, then "ready", then live envelopes as they commit, with
// pings in between.
func (s *Server) events(w http.ResponseWriter, r *http.Request, _ httprouter.Params) error {
	ctx := r.Context()
	_, dev, err := s.speaker(r, true)
	if err != nil {
		return err
	}
	head, err := queue.Head(ctx, s.pool, dev)
	if err != nil {
		return err
	}
	last, err := parseLastEventID(r.Header.Get("Last-Event-ID"), head)
	if err != nil {
		return err
	}
	gen, err := s.accounts.OpenStream(ctx, dev)
	if err != nil {
		return err
	}

	// Attach before reading the head: an envelope committed from here on
	// either has a seq up to the head (and is in the replay) or wakes the
	// live loop.
	st := s.hub.attach(dev, gen)
	s.wakeups.announce(dev, gen)
	defer s.hub.detach(st)
	s.wg.Add(1)
	defer s.wg.Done()

	h := w.Header()
	h.Set("Content-Type", "text/event-stream")
	h.Set("Cache-Control", "no-store")
	h.Set("X-Accel-Buffering", "no") // tell proxies not to buffer the stream
	w.WriteHeader(http.StatusOK)

	out := &sseWriter{w: w, rc: http.NewResponseController(w)}
	live := false // after ready: envelopes count for the delivery latency
	// write sends rows after last, in order; rows at or below last (handed
	// over twice) are skipped.
	write := func(items []queue.Item) error {
		for i := range items {
			if items[i].Seq <= last {
				continue
			}
			if err := out.event("envelope", items[i].Seq, &items[i]); err != nil {
				return err
			}
			last = items[i].Seq
			if live {
				s.metrics.delivery.Observe(time.Since(time.UnixMilli(items[i].TS)).Seconds())
			}
		}
		st.sent.Store(last)
		st.advanceQueued(last)
		return nil
	}
	// pump sends the queue rows with last < seq <= upTo, in order.
	pump := func(upTo int64) error {
		for {
			items, err := queue.Read(ctx, s.pool, dev, last, upTo, replayBatch)
			if err != nil {
				return err
			}
			if err := write(items); err != nil {
				return err
			}
			if len(items) < replayBatch {
				return out.flush()
			}
		}
	}
	end := func(err error) error {
		if err != nil && ctx.Err() == nil {
			s.log.Warn("stream ended", "request_id", requestID(r), "err", err)
		}
		return nil // the status is sent; the stream simply ends
	}

	// Every row with seq <= head is committed: seq is taken under the
	// device row's lock, which is held to commit (ADR 0002). So after the
	// replay the device has everything up to head, or ACKed it earlier.
	head, err = queue.Head(ctx, s.pool, dev)
	if err != nil {
		return end(err)
	}
	if err := pump(head); err != nil {
		return end(err)
	}
	last = head
	st.sent.Store(last)
	st.queued.Store(last)
	if err := out.event("ready", 0, map[string]int64{"seq": head}); err != nil {
		return end(err)
	}
	if err := out.flush(); err != nil {
		return end(err)
	}
	live = true
	st.live.Store(true)
	// Rows committed between the replay and now have woken the stream
	// directly (it was not live yet); its wake channel holds that.

	ping := time.NewTicker(s.cfg.PingInterval)
	defer ping.Stop()
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-st.done:
			_ = out.event(st.reason, 0, struct{}{})
			return end(out.flush())
		case <-s.closing:
			_ = out.event(eventShutdown, 0, struct{}{})
			return end(out.flush())
		case <-st.wake:
			if err := pump(math.MaxInt64); err != nil {
				return end(err)
			}
		case batch := <-st.items:
			// Rows the dispatcher read for this stream. A gap before
			// them (an earlier hand-over that did not happen) is read
			// here first.
			if first := batch[0].Seq; first > last+1 {
				if err := pump(first - 1); err != nil {
					return end(err)
				}
			}
			if err := write(batch); err != nil {
				return end(err)
			}
			if err := out.flush(); err != nil {
				return end(err)
			}
		case <-ping.C:
			if err := out.event("ping", 0, map[string]int64{"ts": s.now().UnixMilli()}); err != nil {
				return end(err)
			}
			if err := out.flush(); err != nil {
				return end(err)
			}
		}
	}
}

// sseWriter frames events. Every event has a data line, because browsers
// drop events without one.
type sseWriter struct {
	w   http.ResponseWriter
	rc  *http.ResponseController
	buf bytes.Buffer
}

var errStreamWrite = errors.New("writing to the event stream")

// event buffers one event; id 0 means no id line. JSON never contains a raw
// newline, so data fits on one line.
func (o *sseWriter) event(name string, id int64, data any) error {
	o.buf.WriteString("event: ")
	o.buf.WriteString(name)
	o.buf.WriteByte('\n')
	if id > 0 {
		o.buf.WriteString("id: ")
		o.buf.WriteString(strconv.FormatInt(id, 10))
		o.buf.WriteByte('\n')
	}
	o.buf.WriteString("data: ")
	b, err := json.Marshal(data)
	if err != nil {
		return err
	}
	o.buf.Write(b)
	o.buf.WriteString("\n\n")
	if o.buf.Len() >= 32<<10 {
		return o.flush()
	}
	return nil
}

// flush writes what is buffered under a deadline and pushes it to the client.
func (o *sseWriter) flush() error {
	if o.buf.Len() == 0 {
		return nil
	}
	_ = o.rc.SetWriteDeadline(time.Now().Add(writeTimeout))
	if _, err := o.w.Write(o.buf.Bytes()); err != nil {
		return errors.Join(errStreamWrite, err)
	}
	o.buf.Reset()
	if err := o.rc.Flush(); err != nil {
		return errors.Join(errStreamWrite, err)
	}
	return nil
}
