package relay

import "sync"

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
}

// stream is the hub's handle on one open event stream.
type stream struct {
	device string
	wake   chan struct{} // capacity 1: wake-ups coalesce
	done   chan struct{} // closed when the relay ends the stream
	reason string        // why done was closed; written before the close
	once   sync.Once
}

func newHub() *hub { return &hub{streams: make(map[string]*stream)} }

// attach registers a new stream for device, ending the one it replaces.
func (h *hub) attach(device string) *stream {
	s := &stream{device: device, wake: make(chan struct{}, 1), done: make(chan struct{})}
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

// wake tells device's stream, if any, to read its queue. It never blocks.
func (h *hub) wake(device string) {
	h.mu.Lock()
	s := h.streams[device]
	h.mu.Unlock()
	if s != nil {
		select {
		case s.wake <- struct{}{}:
		default: // a wake-up is already pending
		}
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
