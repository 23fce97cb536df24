package hub

import (
	"context"
	"sync"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
)

// presence tells every instance which devices have an open stream
// somewhere, so that one of them can decide that a device has none and
// should get a push (ADR 0055). It lives in PostgreSQL:
//
//	devices.stream_instance  the instance holding the device's stream,
//	                         set by the stream's open (with stream_gen)
//	                         and cleared here when it ends
//	relay_instances.seen_at  each live instance's heartbeat, every
//	                         catch-up interval
//
// An instance that stopped without clearing (a crash) stops beating, and
// its devices count as holding no stream once its heartbeat is old. A
// clear that failed is kept and tried again, so a device is never left
// marked by a live instance for a stream that ended.
type presence struct {
	pool     *pgxpool.Pool
	states   States
	instance string
	every    time.Duration

	mu    sync.Mutex       // guards ended
	ended map[string]int64 // device → generation of a stream that ended here
	flush chan struct{}    // capacity 1
}

func newPresence(pool *pgxpool.Pool, states States, instance string, every time.Duration) *presence {
	return &presence{pool: pool, states: states, instance: instance, every: every,
		ended: map[string]int64{}, flush: make(chan struct{}, 1)}
}

// streamEnded records that device's stream of generation gen ended here.
// It never blocks; the clear is written by run. The map holds a device
// once, so it is bounded by the devices that streamed here.
func (p *presence) streamEnded(device string, gen int64) {
	p.mu.Lock()
	if p.ended[device] < gen {
		p.ended[device] = gen
	}
	p.mu.Unlock()
	select {
	case p.flush <- struct{}{}:
	default:
	}
}

// run beats and clears until ctx ends, then takes this instance's
// heartbeat away, so that its devices count as holding no stream at once.
func (p *presence) run(ctx context.Context) {
	if p.pool == nil || p.states == nil {
		<-ctx.Done()
		return
	}
	defer func() {
		cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), time.Second)
		defer cancel()
		p.clear(cctx)
		_, _ = p.pool.Exec(cctx, `DELETE FROM relay_instances WHERE id = $1`, p.instance)
	}()
	t := time.NewTicker(p.every)
	defer t.Stop()
	for {
		p.beat(ctx)
		p.clear(ctx)
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		case <-p.flush:
		}
	}
}

// beat records that this instance is alive, and forgets instances not
// seen for an hour (their streams counted as gone long before).
func (p *presence) beat(ctx context.Context) {
	_, _ = p.pool.Exec(ctx, `INSERT INTO relay_instances (id, seen_at) VALUES ($1, now())
		ON CONFLICT (id) DO UPDATE SET seen_at = now()`, p.instance)
	_, _ = p.pool.Exec(ctx, `DELETE FROM relay_instances WHERE seen_at < now() - interval '1 hour'`)
}

// clear writes the ends of streams recorded since the last clear; what
// fails is kept for the next.
func (p *presence) clear(ctx context.Context) {
	p.mu.Lock()
	ended := p.ended
	p.ended = map[string]int64{}
	p.mu.Unlock()
	if len(ended) == 0 {
		return
	}
	ids := make([]string, 0, len(ended))
	gens := make([]int64, 0, len(ended))
	for d, g := range ended {
		ids = append(ids, d)
		gens = append(gens, g)
	}
	if err := p.states.StreamsEnded(ctx, p.instance, ids, gens); err != nil {
		for i, d := range ids {
			p.streamEnded(d, gens[i])
		}
	}
}
