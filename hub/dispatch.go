package relay

import (
	"context"
	"log/slog"
	"sync"

	"github.com/jackc/pgx/v5/pgxpool"

	"relay/queue"
)

// dispatcher reads the new queue rows of every woken live stream of this
// instance in one query and hands each stream its rows, so that an envelope
// fanned out to five devices costs one read, not five (docs/performance.md).
// It is only a shortcut: a stream that gets nothing from it (the query
// failed, its hand-over channel was full) reads its queue itself, and a
// stream writes only rows after the last seq it wrote, reading any rows in
// between itself, so the dispatcher can neither duplicate nor skip.
type dispatcher struct {
	pool *pgxpool.Pool
	log  *slog.Logger

	mu     sync.Mutex // guards woken
	woken  map[*stream]bool
	signal chan struct{} // capacity 1
}

func newDispatcher(pool *pgxpool.Pool, log *slog.Logger) *dispatcher {
	return &dispatcher{pool: pool, log: log, woken: map[*stream]bool{}, signal: make(chan struct{}, 1)}
}

// mark asks for s's new rows. It never blocks.
func (d *dispatcher) mark(s *stream) {
	d.mu.Lock()
	d.woken[s] = true
	d.mu.Unlock()
	select {
	case d.signal <- struct{}{}:
	default:
	}
}

func (d *dispatcher) run(ctx context.Context) {
	for {
		select {
		case <-ctx.Done():
			return
		case <-d.signal:
		}
		d.mu.Lock()
		woken := d.woken
		d.woken = map[*stream]bool{}
		d.mu.Unlock()
		d.round(ctx, woken)
	}
}

func (d *dispatcher) round(ctx context.Context, woken map[*stream]bool) {
	devs := make([]string, 0, len(woken))
	after := make([]int64, 0, len(woken))
	byDev := make(map[string]*stream, len(woken))
	for s := range woken {
		devs = append(devs, s.device)
		after = append(after, s.queued.Load())
		byDev[s.device] = s
	}
	items, err := queue.ReadMany(ctx, d.pool, devs, after, replayBatch)
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
			if len(batch) == replayBatch {
				d.mark(s) // there may be more
			}
		default:
			s.selfRead() // the stream is behind: it reads for itself
		}
	}
}
