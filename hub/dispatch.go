package hub

import (
	"context"
	"log/slog"
	"sync"

	"github.com/jackc/pgx/v5/pgxpool"

	"relay/queue"
)

// dispatchBatch bounds the rows one round reads per stream; a stream
// given a full batch is marked again for the rest.
const dispatchBatch = 500

// dispatcher reads the new queue rows of every woken live stream of this
// instance in one query and hands each stream its rows, so that an envelope
// fanned out to five devices costs one read, not five (docs/performance.md).
// It is only a shortcut: a stream that gets nothing from it (the query
// failed, its hand-over channel was full, the dispatcher is not running)
// reads its queue itself, and a stream writes only rows after the last seq
// it wrote, reading any rows in between itself, so the dispatcher can
// neither duplicate nor skip.
type dispatcher struct {
	pool *pgxpool.Pool
	log  *slog.Logger

	mu      sync.Mutex // guards the following
	running bool       // run takes wake-ups; mark refuses them otherwise
	woken   map[*Stream]bool
	signal  chan struct{} // capacity 1
}

func newDispatcher(pool *pgxpool.Pool, log *slog.Logger) *dispatcher {
	return &dispatcher{pool: pool, log: log, woken: map[*Stream]bool{}, signal: make(chan struct{}, 1)}
}

// mark asks for s's new rows and reports whether the dispatcher took the
// request; when it did not (run is not running), s must read for itself.
// It never blocks.
func (d *dispatcher) mark(s *Stream) bool {
	d.mu.Lock()
	ok := d.running
	if ok {
		d.woken[s] = true
	}
	d.mu.Unlock()
	if ok {
		select {
		case d.signal <- struct{}{}:
		default:
		}
	}
	return ok
}

// run takes wake-ups until ctx ends. Wake-ups it took and had not served
// by then are handed back to their streams, which read for themselves.
func (d *dispatcher) run(ctx context.Context) {
	d.mu.Lock()
	d.running = true
	d.mu.Unlock()
	defer func() {
		d.mu.Lock()
		d.running = false
		woken := d.woken
		d.woken = map[*Stream]bool{}
		d.mu.Unlock()
		for s := range woken {
			s.selfRead()
		}
	}()
	for {
		select {
		case <-ctx.Done():
			return
		case <-d.signal:
		}
		d.mu.Lock()
		woken := d.woken
		d.woken = map[*Stream]bool{}
		d.mu.Unlock()
		d.round(ctx, woken)
	}
}

func (d *dispatcher) round(ctx context.Context, woken map[*Stream]bool) {
	devs := make([]string, 0, len(woken))
	after := make([]int64, 0, len(woken))
	byDev := make(map[string]*Stream, len(woken))
	for s := range woken {
		devs = append(devs, s.device)
		after = append(after, s.queued.Load())
		byDev[s.device] = s
	}
	items, err := queue.ReadMany(ctx, d.pool, devs, after, dispatchBatch)
	if err != nil {
		if ctx.Err() == nil {
			d.log.Debug("dispatch failed; streams read for themselves", "err", err)
		}
		for s := range woken {
			s.selfRead()
		}
		return
	}
	for dev, batch := range items {
		s := byDev[dev]
		select {
		case s.items <- batch:
			s.advanceQueued(batch[len(batch)-1].Seq)
			s.signalled()
			if len(batch) == dispatchBatch && !d.mark(s) { // there may be more
				s.selfRead()
			}
		default:
			s.selfRead() // the stream is behind: it reads for itself
		}
	}
}
