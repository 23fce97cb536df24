// Package hub knows who is streaming where: the one open event stream of
// each device on this relay instance, and the news about streams and
// queues that instances sharing one PostgreSQL exchange (ADR 0016).
//
// It owns the streams' handles ([Stream]), the dispatcher that reads the
// new queue rows of every woken stream in one query, the bus that carries
// wake-ups and stream news between instances through LISTEN/NOTIFY, the
// catch-up check that makes up for lost notifications, and the record in
// PostgreSQL of which instance holds each device's stream (table
// relay_instances, ADR 0055), from which the relay tells a device that
// streams nowhere. [Hub.Run] owns
// every goroutine of the hub and returns only when all of them have ended.
//
// A wake-up carries no data: a stream reads its queue from PostgreSQL, so a
// wake-up that is lost or doubled cannot lose or duplicate an envelope.
// What the hub sends to other instances is device ids and stream
// generations, never an envelope; an envelope body passes through it only
// to the local stream of the device it was queued for, and it logs neither
// bodies nor ids.
//
// The hub never speaks HTTP and never decides who may read what: package
// relay checks the session and the device before it opens a stream here.
package hub

import (
	"context"
	"fmt"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"relay/devices"
	"relay/queue"
)

// Reasons the hub ends a stream. The stream's writer (package relay) names
// the last event the client receives for each (docs/protocol.md, "GET
// /api/events").
const (
	ReasonReplaced = "replaced" // another stream opened for the same device
	ReasonRevoked  = "revoked"  // the device was revoked
	ReasonDeleted  = "deleted"  // the device's account was deleted
	ReasonDisabled = "disabled" // an operator disabled the device's account
	// ReasonLoggedOut: an operator ended every session of the account.
	ReasonLoggedOut = "logged_out"
	// ReasonRewound: the device's seq numbers may have gone back (a
	// restore, a failover, relay admin new-epoch: ADR 0086), so the seq
	// the stream would go on from may name other envelopes now.
	ReasonRewound = "rewound"
)

// endReasons are the reasons NotifyEnded carries between instances.
var endReasons = map[string]bool{ReasonRevoked: true, ReasonDeleted: true, ReasonDisabled: true, ReasonLoggedOut: true}

// States reads what the catch-up check compares each open stream with: the
// device's last seq, its newest stream generation, whether it is revoked.
// A device missing from the answer does not exist. *devices.Store is one.
// StreamsEnded records that streams ended on this instance (ADR 0055).
type States interface {
	StreamStates(ctx context.Context, deviceIDs []string) (map[string]devices.StreamState, error)
	StreamsEnded(ctx context.Context, instance string, deviceIDs []string, gens []int64) error
}

// Config is what a Hub needs.
type Config struct {
	Pool   *pgxpool.Pool
	Logger *slog.Logger // nil: discard
	States States
	// Notify turns on cross-instance wake-ups through LISTEN/NOTIFY;
	// without it, streams fed by other instances are caught up only by
	// the interval check.
	Notify bool
	// CatchUp is the interval of the catch-up check (ADR 0016); 0: 5 s.
	CatchUp time.Duration
	// Sessions, when not nil, is a session cache that the bus keeps
	// told: the notices on devices.AuthChannel, and whether they are
	// being received (ADR 0072). *devices.Store is one.
	Sessions Sessions
	// Epoch, when not nil, reads the database's epoch (package epoch):
	// the catch-up check ends with ReasonRewound every stream opened in
	// another one.
	Epoch func(ctx context.Context) (string, error)
}

// Sessions is the session cache the bus keeps up to date.
type Sessions interface {
	ForgetNotice(payload string)
	SetListening(on bool)
}

// Hub knows the one open stream of each device on this process and wakes
// it when its queue grew. Create it with New; call Run for the background
// work. Without Run (before it starts, after it returns) every stream reads
// its queue for itself and nothing reaches other instances.
type Hub struct {
	log     *slog.Logger
	states  States
	catchUp time.Duration
	epoch   func(ctx context.Context) (string, error) // nil: not checked

	mu      sync.Mutex // guards streams
	streams map[string]*Stream

	dispatch *dispatcher // takes the wake-ups of live streams while Run runs
	bus      *bus
	presence *presence // which devices stream somewhere, in PostgreSQL
}

// New returns a Hub. It starts nothing.
func New(cfg Config) *Hub {
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	if cfg.CatchUp == 0 {
		cfg.CatchUp = 5 * time.Second
	}
	h := &Hub{log: cfg.Logger, states: cfg.States, catchUp: cfg.CatchUp, epoch: cfg.Epoch, streams: make(map[string]*Stream)}
	h.dispatch = newDispatcher(cfg.Pool, cfg.Logger)
	h.bus = newBus(cfg.Pool, h, cfg.Logger, cfg.Notify)
	h.bus.sessions = cfg.Sessions
	h.presence = newPresence(cfg.Pool, cfg.States, h.bus.instance, cfg.CatchUp)
	return h
}

// Run does the hub's background work until ctx ends: the dispatcher, the
// bus's sender and listener, the catch-up check and the presence record. It returns only when
// every goroutine it started has ended. Call it once.
func (h *Hub) Run(ctx context.Context) {
	var wg sync.WaitGroup
	wg.Go(func() { h.dispatch.run(ctx) })
	wg.Go(func() { h.catchUpLoop(ctx) })
	wg.Go(func() { h.presence.run(ctx) })
	if h.bus.enabled {
		wg.Go(func() { h.bus.send(ctx) })
		wg.Go(func() { h.bus.listen(ctx) })
	}
	wg.Wait()
}

// Stream is the hub's handle on one open event stream. Its writer (package
// relay) reads Wake, Items and Done, and reports what it wrote.
type Stream struct {
	device string
	gen    int64        // the stream's generation (ADR 0016)
	epoch  string       // the epoch it was opened in; "": not checked
	sent   atomic.Int64 // the last seq written to the client
	queued atomic.Int64 // the last seq written or handed over by the dispatcher
	live   atomic.Bool  // past ready: new rows come through the dispatcher
	items  chan []queue.Item
	wake   chan struct{} // capacity 1: wake-ups coalesce; read for yourself
	done   chan struct{} // closed when the hub ends the stream
	reason string        // why done was closed; written before the close
	once   sync.Once
	signal atomic.Pointer[func()] // OnSignal's function, or nil
}

// OnSignal makes the hub call f each time it gives s rows, wakes it or ends
// it, after the channel it used holds the news; f must not block. A
// writer that waits for something other than s's channels (a read of its
// connection) uses it to stop waiting and look at them.
func (s *Stream) OnSignal(f func()) { s.signal.Store(&f) }

// signalled calls OnSignal's function, if any.
func (s *Stream) signalled() {
	if f := s.signal.Load(); f != nil {
		(*f)()
	}
}

// SignalAll calls the OnSignal function of every open stream here: for
// news that is not in their channels, such as the relay closing.
func (h *Hub) SignalAll() {
	for _, s := range h.snapshot() {
		s.signalled()
	}
}

// Wake receives when the stream must read its queue itself.
func (s *Stream) Wake() <-chan struct{} { return s.wake }

// Items receives rows handed over for the stream, in seq order within a
// batch; a gap before a batch is for the stream to read.
func (s *Stream) Items() <-chan []queue.Item { return s.items }

// Done is closed when the hub ends the stream; Reason then says why.
func (s *Stream) Done() <-chan struct{} { return s.done }

// Reason is one of the Reason constants once Done is closed.
func (s *Stream) Reason() string { return s.reason }

// Wrote records that every row up to seq has been written to the client.
func (s *Stream) Wrote(seq int64) {
	s.sent.Store(seq)
	s.advanceQueued(seq)
}

// Live records that the replay up to head is written, ready included: from
// now on new rows may be handed over.
func (s *Stream) Live(head int64) {
	s.sent.Store(head)
	s.advanceQueued(head)
	s.live.Store(true)
}

// Open registers a new stream of device with generation gen, ends the one
// it replaces here, and tells other instances to end theirs.
func (h *Hub) Open(device string, gen int64) *Stream {
	return h.OpenIn(device, gen, "")
}

// OpenIn is Open for a stream that told its client epoch: the catch-up
// check ends it once the database is in another.
func (h *Hub) OpenIn(device string, gen int64, epoch string) *Stream {
	s := &Stream{device: device, gen: gen, epoch: epoch, wake: make(chan struct{}, 1), done: make(chan struct{}), items: make(chan []queue.Item, 8)}
	h.mu.Lock()
	old := h.streams[device]
	h.streams[device] = s
	h.mu.Unlock()
	if old != nil {
		old.end(ReasonReplaced)
	}
	h.bus.announce(device, gen)
	return s
}

// Detach forgets s unless a newer stream already took its place. The
// stream's writer calls it when the stream ends.
func (h *Hub) Detach(s *Stream) {
	h.mu.Lock()
	current := h.streams[s.device] == s
	if current {
		delete(h.streams, s.device)
	}
	h.mu.Unlock()
	if current {
		h.presence.streamEnded(s.device, s.gen)
	}
}

// Instance names this relay instance in what it records about streams:
// the stream's open records it with the generation (ADR 0055).
func (h *Hub) Instance() string { return h.bus.instance }

// PresenceTTL is how long an instance's heartbeat counts: past it, the
// instance holds no stream (ADR 0055). Three beats may be missed.
func (h *Hub) PresenceTTL() time.Duration { return 3 * h.catchUp }

// Revoked ends device's stream here with ReasonRevoked and tells other
// instances to end theirs. Call it once the revocation has committed.
func (h *Hub) Revoked(device string) {
	h.stop(device, ReasonRevoked)
	h.bus.revoked(device)
}

// Ended ends these devices' streams here with reason, one of
// ReasonRevoked, ReasonDeleted, ReasonDisabled and ReasonLoggedOut. Call
// it once the change has committed; the change's transaction told the
// other instances with NotifyEnded.
func (h *Hub) Ended(reason string, devices []string) {
	for _, d := range devices {
		h.stop(d, reason)
	}
}

// NotifyEnded is NotifyEnded from this hub, or nothing when notifications
// are off.
func (h *Hub) NotifyEnded(ctx context.Context, tx pgx.Tx, reason string, devices []string) error {
	if !h.bus.enabled {
		return nil
	}
	return NotifyEnded(ctx, tx, reason, devices)
}

// Committed hands the rows just committed for e to their devices' live
// streams here, and wakes the streams of those devices on other instances.
// Each row carries its own "to" (a list's copies differ, ADR 0106). It
// never blocks.
func (h *Hub) Committed(e *queue.Envelope, ds []queue.Delivery) {
	ids := make([]string, len(ds))
	for i, d := range ds {
		ids[i] = d.DeviceID
		h.deliver(d.DeviceID, queue.Item{Seq: d.Seq, ID: e.ID, From: e.FromUsername,
			FromDevice: e.FromDevice, To: d.To, TS: e.TS, Body: e.Body})
	}
	h.bus.wake(ids)
}

// Streams is the number of open streams.
func (h *Hub) Streams() int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return len(h.streams)
}

// NotifyReceived counts the notifications received from other instances.
func (h *Hub) NotifyReceived() int64 { return h.bus.received.Load() }

// NotifyDropped counts the wake-ups not sent to other instances because
// the bus's queue was full; the catch-up check delivers them.
func (h *Hub) NotifyDropped() int64 { return h.bus.dropped.Load() }

// stream returns device's open stream on this instance, or nil.
func (h *Hub) stream(device string) *Stream {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.streams[device]
}

// wake tells device's stream, if any, to read its queue. It never blocks.
func (h *Hub) wake(device string) {
	if s := h.stream(device); s != nil {
		h.wakeStream(s)
	}
}

// wakeStream has s read its queue: through the dispatcher when live and the
// dispatcher runs, by itself otherwise.
func (h *Hub) wakeStream(s *Stream) {
	if s.live.Load() && h.dispatch.mark(s) {
		return
	}
	s.selfRead()
}

// deliver hands a row just committed by this instance to its device's live
// stream here, if there is one and it has been given every row before it:
// the stream writes it without reading PostgreSQL. Otherwise it wakes the
// stream as wake does. It never blocks.
func (h *Hub) deliver(device string, it queue.Item) {
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
		s.signalled()
	default:
		// The stream is behind. queued has moved past a row it was not
		// given, so it will find the gap and read it.
		s.selfRead()
	}
}

// advanceQueued moves queued up to seq; it never moves it back.
func (s *Stream) advanceQueued(seq int64) {
	for {
		q := s.queued.Load()
		if q >= seq || s.queued.CompareAndSwap(q, seq) {
			return
		}
	}
}

// selfRead tells the stream to read its queue itself. It never blocks.
func (s *Stream) selfRead() {
	select {
	case s.wake <- struct{}{}:
		s.signalled()
	default: // a wake-up is already pending
	}
}

// newer is told that another instance opened a stream of device with
// generation gen: an older local stream is replaced.
func (h *Hub) newer(device string, gen int64) {
	h.mu.Lock()
	s := h.streams[device]
	if s != nil && s.gen < gen {
		delete(h.streams, device)
	} else {
		s = nil
	}
	h.mu.Unlock()
	if s != nil {
		s.end(ReasonReplaced)
	}
}

// snapshot returns the open streams.
func (h *Hub) snapshot() []*Stream {
	h.mu.Lock()
	defer h.mu.Unlock()
	out := make([]*Stream, 0, len(h.streams))
	for _, s := range h.streams {
		out = append(out, s)
	}
	return out
}

// rewindAll ends every stream here with ReasonRewound: a new epoch began.
func (h *Hub) rewindAll() {
	for _, s := range h.snapshot() {
		h.stop(s.device, ReasonRewound)
	}
}

// wakeAll wakes every stream, after wake-ups may have been lost.
func (h *Hub) wakeAll() {
	for _, s := range h.snapshot() {
		h.wake(s.device)
	}
}

// stop ends device's stream, if any, for reason.
func (h *Hub) stop(device, reason string) {
	h.mu.Lock()
	s := h.streams[device]
	delete(h.streams, device)
	h.mu.Unlock()
	if s != nil {
		s.end(reason)
	}
}

func (s *Stream) end(reason string) {
	s.once.Do(func() {
		s.reason = reason
		close(s.done)
		s.signalled()
	})
}

// catchUpLoop runs the catch-up check every interval until ctx ends.
func (h *Hub) catchUpLoop(ctx context.Context) {
	t := time.NewTicker(h.catchUp)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		if err := h.catchUpOnce(ctx); err != nil && ctx.Err() == nil {
			h.log.Warn("catch-up check failed", "err", err)
		}
	}
}

// catchUpOnce compares every local stream with its device row: a stream
// behind the device's seq is woken, a stream of an older generation is
// replaced, a revoked device's stream is ended, and so is the stream of a
// device whose account was deleted or disabled. A stream whose device's
// seq is now below what it wrote, or that was opened in another epoch, is
// ended with ReasonRewound. One query for all local streams, and one for
// the epoch.
func (h *Hub) catchUpOnce(ctx context.Context) error {
	streams := h.snapshot()
	if len(streams) == 0 {
		return nil
	}
	ids := make([]string, len(streams))
	sent := make([]int64, len(streams))
	for i, st := range streams {
		ids[i] = st.device
		// Read before the device rows: a row written after it has a
		// higher seq, so a device seq below this one went back.
		sent[i] = st.sent.Load()
	}
	state, err := h.states.StreamStates(ctx, ids)
	if err != nil {
		return fmt.Errorf("reading the devices of the open streams: %w", err)
	}
	epoch := ""
	if h.epoch != nil {
		if epoch, err = h.epoch(ctx); err != nil {
			// The other checks still run; the next round checks the epoch.
			h.log.Warn("catch-up check could not read the epoch", "err", err)
			epoch = ""
		}
	}
	for i, st := range streams {
		r, ok := state[st.device]
		switch {
		case !ok:
			// A revoked device's row is kept for days (RevokedKeep), so a
			// row gone under an open stream went with its account.
			h.stop(st.device, ReasonDeleted)
		case r.Revoked:
			h.stop(st.device, ReasonRevoked)
		case r.Disabled:
			h.stop(st.device, ReasonDisabled)
		case r.Seq < sent[i], epoch != "" && st.epoch != "" && st.epoch != epoch:
			h.stop(st.device, ReasonRewound)
		case r.Gen > st.gen:
			h.newer(st.device, r.Gen)
		case r.Seq > st.sent.Load():
			h.wake(st.device)
		}
	}
	return nil
}
