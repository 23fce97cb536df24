package main

// The first scenarios: ingest (accepting, then with every device
// streaming), latency at a fixed rate, replay of a backlog and the ACK
// path's cleanup, with the consumer they share.

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"sort"
	"sync"
	"sync/atomic"
	"time"

	"github.com/oklog/ulid/v2"

	"relay/relayclient"
)

// consumer streams a device, ACKs every 50 envelopes, and records when
// each envelope arrived.
type consumer struct {
	mu      sync.Mutex // guards arrived
	arrived map[string]time.Time
	count   atomic.Int64
}

func (b *bench) consume(ctx context.Context, c *relayclient.Client, record bool) *consumer {
	k := &consumer{arrived: map[string]time.Time{}}
	go c.Stream(ctx, "", true, func(e relayclient.Event) error { //nolint:errcheck // ends with ctx
		if e.Name != "envelope" {
			return nil
		}
		if record {
			k.mu.Lock()
			k.arrived[e.Envelope.ID] = time.Now()
			k.mu.Unlock()
		}
		if k.count.Add(1)%50 == 0 {
			go c.Ack(context.Background(), e.Envelope.Seq) //nolint:errcheck // a lost ACK is replayed
		}
		return nil
	})
	return k
}

type pair struct {
	from []*relayclient.Client
	to   []*relayclient.Client
	name string
}

func (b *bench) pairs(n int) ([]pair, error) {
	var ps []pair
	for i := 0; i < n; i++ {
		from, _, err := b.account(3)
		if err != nil {
			return nil, err
		}
		to, name, err := b.account(3)
		if err != nil {
			return nil, err
		}
		ps = append(ps, pair{from, to, name})
	}
	return ps, nil
}

// ingest measures accepted envelopes per second, with every target device
// streaming and ACKing when streams is true.
func (b *bench) ingest(senders int, streams bool) (float64, cpuUse, error) {
	say("ingest with %d senders (streams: %v)…", senders, streams)
	ps, err := b.pairs(senders)
	if err != nil {
		return 0, cpuUse{}, err
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	for _, p := range ps {
		for _, c := range append(append([]*relayclient.Client{}, p.from[1:]...), p.to...) {
			if streams {
				b.consume(ctx, c, false)
			}
		}
	}
	time.Sleep(300 * time.Millisecond)
	if b.o.profile && senders == 8 && streams {
		go b.saveProfile(fmt.Sprintf("profile?seconds=%d", max(int(b.o.duration.Seconds())-1, 1)), "ingest.cpu.pprof")
	}
	var n atomic.Int64
	var wg sync.WaitGroup
	cpu0 := b.cpu()
	var failed atomic.Value
	deadline := time.Now().Add(b.o.duration)
	body := make([]byte, 1024)
	_, _ = rand.Read(body)
	for _, p := range ps {
		wg.Add(1)
		go func(p pair) {
			defer wg.Done()
			for time.Now().Before(deadline) {
				if _, err := p.from[0].Send(ctx, ulid.Make().String(), p.name, body); err != nil {
					failed.Store(err)
					return
				}
				n.Add(1)
			}
		}(p)
	}
	wg.Wait()
	used := b.cpu().sub(cpu0)
	if err, ok := failed.Load().(error); ok {
		return 0, cpuUse{}, err
	}
	return float64(n.Load()) / b.o.duration.Seconds(), used.per(float64(n.Load())), nil
}

// latency paces envelopes at rate per second for the phase and measures
// POST start to arrival at each target stream.
func (b *bench) latency(rate float64) ([]result, error) {
	say("latency at %.0f envelopes/s…", rate)
	ps, err := b.pairs(8)
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var cons []*consumer
	for _, p := range ps {
		for _, c := range append(append([]*relayclient.Client{}, p.from[1:]...), p.to...) {
			cons = append(cons, b.consume(ctx, c, true))
		}
	}
	time.Sleep(300 * time.Millisecond)
	var mu sync.Mutex
	started := map[string]time.Time{}
	var posts []float64 // POST start to 202
	interval := time.Duration(float64(time.Second) * float64(len(ps)) / rate)
	deadline := time.Now().Add(b.o.duration)
	var wg sync.WaitGroup
	body := make([]byte, 1024)
	for i, p := range ps {
		wg.Add(1)
		go func(p pair) {
			defer wg.Done()
			// Senders start evenly spread over one interval, so that the
			// load is the rate and not a burst of every sender at once.
			time.Sleep(interval * time.Duration(i) / time.Duration(len(ps)))
			tick := time.NewTicker(interval)
			defer tick.Stop()
			for time.Now().Before(deadline) {
				<-tick.C
				id := ulid.Make().String()
				t0 := time.Now()
				mu.Lock()
				started[id] = t0
				mu.Unlock()
				if _, err := p.from[0].Send(ctx, id, p.name, body); err != nil {
					say("latency send: %v", err)
					return
				}
				mu.Lock()
				posts = append(posts, float64(time.Since(t0).Microseconds())/1000)
				mu.Unlock()
			}
		}(p)
	}
	wg.Wait()
	time.Sleep(500 * time.Millisecond) // the last arrivals
	var lats []float64
	for _, k := range cons {
		k.mu.Lock()
		for id, at := range k.arrived {
			if t0, ok := started[id]; ok {
				lats = append(lats, float64(at.Sub(t0).Microseconds())/1000)
			}
		}
		k.mu.Unlock()
	}
	if len(lats) == 0 {
		return nil, errors.New("latency: nothing arrived")
	}
	sort.Float64s(lats)
	sort.Float64s(posts)
	pct := func(p float64) float64 { return lats[min(len(lats)-1, int(p*float64(len(lats))))] }
	postPct := func(p float64) float64 { return posts[min(len(posts)-1, int(p*float64(len(posts))))] }
	return []result{
		{"latency", "p50 POST start to 202", postPct(0.50), "ms", "the accepting part"},
		{"latency", "p99 POST start to 202", postPct(0.99), "ms", ""},
		{"latency", "p50 POST start to stream", pct(0.50), "ms", "target ≤ 5"},
		{"latency", "p99 POST start to stream", pct(0.99), "ms", "target ≤ 50"},
		{"latency", "max POST start to stream", lats[len(lats)-1], "ms", fmt.Sprintf("%d deliveries", len(lats))},
	}, nil
}

// replay queues n envelopes for one device and times its stream from
// connect to ready.
func (b *bench) replay(n int) ([]result, error) {
	say("replay of %d envelopes…", n)
	cs, _, err := b.account(1)
	if err != nil {
		return nil, err
	}
	dev := cs[0].Device
	ctx := context.Background()
	if _, err := b.pool.Exec(ctx, `INSERT INTO queue (device_id, seq, envelope_id, from_username, from_device, to_username, ts, body)
		SELECT $1, g, 'E' || g, 'bench', $1, 'bench', 0, decode(repeat('ab', 1024), 'hex') FROM generate_series(1, $2) g`, dev, n); err != nil {
		return nil, err
	}
	if _, err := b.pool.Exec(ctx, `UPDATE devices SET seq = $2 WHERE id = $1`, dev, n); err != nil {
		return nil, err
	}
	sctx, cancel := context.WithTimeout(ctx, 2*time.Minute)
	defer cancel()
	got := 0
	start := time.Now()
	var took time.Duration
	_ = cs[0].Stream(sctx, "", false, func(e relayclient.Event) error {
		switch e.Name {
		case "envelope":
			got++
		case "ready":
			took = time.Since(start)
			cancel()
		}
		return nil
	})
	if got != n {
		return nil, fmt.Errorf("replay: %d of %d envelopes arrived", got, n)
	}
	return []result{
		{"replay", "connect to ready", float64(took.Milliseconds()), "ms", ""},
		{"replay", "replay rate", float64(n) / took.Seconds(), "envelopes/s", "target ≥ 20,000"},
	}, nil
}

// ackCleanup runs steady traffic with every device ACKing for three
// phases and reports the ACK rate (envelopes deleted per second) and the
// queue table's total size (heap, TOAST and indexes) after each phase: a
// size that levels off shows vacuum keeps up with the churn.
func (b *bench) ackCleanup() ([]result, error) {
	phases := b.o.ackPhases
	say("ACK and cleanup over %d phases…", phases)
	ctx := context.Background()
	// The scenarios before leave rows no device will ever ACK (the
	// pgbench reference's, the replay's): start from an empty table, so
	// that its size shows this scenario's churn only.
	if _, err := b.pool.Exec(ctx, `TRUNCATE queue`); err != nil {
		return nil, err
	}
	size := func() (float64, error) {
		var n int64
		err := b.pool.QueryRow(ctx, `SELECT pg_total_relation_size('queue')`).Scan(&n)
		return float64(n) / (1 << 20), err
	}
	deleted := func() (int64, error) {
		var n int64
		err := b.pool.QueryRow(ctx, `SELECT n_tup_del FROM pg_stat_user_tables WHERE relname = 'queue'`).Scan(&n)
		return n, err
	}
	var out []result
	d0, err := deleted()
	if err != nil {
		return nil, err
	}
	start := time.Now()
	vacuums := func() (int64, error) {
		var n int64
		err := b.pool.QueryRow(ctx, `SELECT autovacuum_count FROM pg_stat_user_tables WHERE relname = 'queue'`).Scan(&n)
		return n, err
	}
	v0, err := vacuums()
	if err != nil {
		return nil, err
	}
	for phase := 1; phase <= phases; phase++ {
		if _, _, err := b.ingest(8, true); err != nil {
			return nil, err
		}
		mb, err := size()
		if err != nil {
			return nil, err
		}
		out = append(out, result{"ack", fmt.Sprintf("queue table size after phase %d", phase), mb, "MiB", "should level off"})
	}
	time.Sleep(time.Second) // the last ACKs
	d1, err := deleted()
	if err != nil {
		return nil, err
	}
	v1, err := vacuums()
	if err != nil {
		return nil, err
	}
	return append(out, result{"ack", "envelopes deleted by ACK", float64(d1-d0) / time.Since(start).Seconds(), "per s",
		"pg_stat counters, which lag by up to a second"},
		result{"ack", "autovacuum runs on the queue table", float64(v1 - v0), "runs",
			fmt.Sprintf("in %.0f s", time.Since(start).Seconds())}), nil
}
