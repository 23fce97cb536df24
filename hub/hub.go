package relay

import (
	"sync"
	"sync/atomic"

	"relay/queue"
)

// Reasons a stream is ended by the relay; each is also the name of the last
// event the stream receives (docs/protocol.md, "Events").
const (
	eventReplaced = "replaced" // another stream opened for the same device
	eventRevoked  = "revoked"  // the device was revoked
	eventShutdown = "shutdown" // the relay is stopping; reconnect
)

// hub knows the one open stream of each device on this process and wakes it
// when its queue grew. A wake-up carries no data: the stream reads its queue
// from PostgreSQL, so a wake-up that is lost or doubled cannot lose or
// duplicate an envelope.
type hub struct {
	mu      sync.Mutex // guards streams
	streams map[string]*stream

	// dispatch, when set, takes the wake-ups of live streams (see
	// dispatcher); set once before the hub is used.
	dispatch *dispatcher
}

// stream is the hub's handle on one open event stream.
type stream struct {
	device string
	gen    int64        // the stream's generation (ADR 0016)
	sent   atomic.Int64 // the last seq written to the client
	queued atomic.Int64 // the last seq written or handed over by the dispatcher
	live   atomic.Bool  // past ready: new rows come through the dispatcher
	items  chan []queue.Item
	wake   chan struct{} // capacity 1: wake-ups coalesce; read for yourself
	done   chan struct{} // closed when the relay ends the stream
	reason string        // why done was closed; written before the close
	once   sync.Once
}

func newHub() *hub { return &hub{streams: make(map[string]*stream)} }

// attach registers a new stream for device, ending the one it replaces.
func (h *hub) attach(device string, gen int64) *stream {
	s := &stream{device: device, gen: gen, wake: make(chan struct{}, 1), done: make(chan struct{}), items: make(chan []queue.Item, 8)}
	h.mu.Lock()
	old := h.streams[device]
	h.streams[device] = s
	h.mu.Unlock()
	if old != nil {
		old.end(eventReplaced)
	}
	return s
}

// detach forgets s unless a newer stream already took its place.
func (h *hub) detach(s *stream) {
	h.mu.Lock()
	if h.streams[s.device] == s {
		delete(h.streams, s.device)
	}
	h.mu.Unlock()
}

// stream returns device's open stream on this instance, or nil.
func (h *hub) stream(device string) *stream {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.streams[device]
}

// wake tells device's stream, if any, to read its queue. It never blocks.
func (h *hub) wake(device string) {
	if s := h.stream(device); s != nil {
		h.wakeStream(s)
	}
}

// wakeStream has s read its queue: through the dispatcher when live, by
// itself otherwise.
func (h *hub) wakeStream(s *stream) {
	if s.live.Load() && h.dispatch != nil {
		h.dispatch.mark(s)
		return
	}
	s.selfRead()
}

// deliver hands a row just committed by this instance to its device's live
// stream here, if there is one and it has been given every row before it:
// the stream writes it without reading PostgreSQL. Otherwise it wakes the
// stream as wake does. It never blocks.
func (h *hub) deliver(device string, it queue.Item) {
	s := h.stream(device)
	if s == nil {
		return
	}
	if !s.live.Load() || !s.queued.CompareAndSwap(it.Seq-1, it.Seq) {
		h.wakeStream(s) // out of order, or not live yet: it reads
		return
	}
	select {
	case s.items <- []queue.Item{it}:
	default:
		// The stream is behind. queued has moved past a row it was not
		// given, so it will find the gap and read it.
		s.selfRead()
	}
}

// advanceQueued moves queued up to seq; it never moves it back.
func (s *stream) advanceQueued(seq int64) {
	for {
		q := s.queued.Load()
		if q >= seq || s.queued.CompareAndSwap(q, seq) {
			return
		}
	}
}

// selfRead tells the stream to read its queue itself. It never blocks.
func (s *stream) selfRead() {
	select {
	case s.wake <- struct{}{}:
	default: // a wake-up is already pending
	}
}

// newer is told that another instance opened a stream of device with
// generation gen: an older local stream is replaced.
func (h *hub) newer(device string, gen int64) {
	h.mu.Lock()
	s := h.streams[device]
	if s != nil && s.gen < gen {
		delete(h.streams, device)
	} else {
		s = nil
	}
	h.mu.Unlock()
	if s != nil {
		s.end(eventReplaced)
	}
}

// snapshot returns the open streams.
func (h *hub) snapshot() []*stream {
	h.mu.Lock()
	defer h.mu.Unlock()
	out := make([]*stream, 0, len(h.streams))
	for _, s := range h.streams {
		out = append(out, s)
	}
	return out
}

// wakeAll wakes every stream, after wake-ups may have been lost.
func (h *hub) wakeAll() {
	for _, s := range h.snapshot() {
		h.wake(s.device)
	}
}

// stop ends device's stream, if any, for reason.
func (h *hub) stop(device, reason string) {
	h.mu.Lock()
	s := h.streams[device]
	delete(h.streams, device)
	h.mu.Unlock()
	if s != nil {
		s.end(reason)
	}
}

func (s *stream) end(reason string) {
	s.once.Do(func() {
		s.reason = reason
		close(s.done)
	})
}
