package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
)

// Pauses (--pauses): at half peak most envelopes arrive within a few
// milliseconds, and the p99 is set by stretches in which every envelope
// in flight waits at once. A pauseWatch samples, during the half-peak
// phase, what could hold them all: a small write and fdatasync beside
// PostgreSQL's data directory (the disk a commit waits for), PostgreSQL's
// wait events, the load generator's own timer (its scheduler and
// garbage collector stamp the arrivals), and the CPU time the machine's
// hypervisor gave to others (steal, in /proc/stat). Afterwards each
// pause, the union of the late deliveries' send-to-arrival spans, is set
// against what the samplers saw in it, and against the same windows
// moved through the phase (what lines up by chance).

const (
	pauseLate     = 30 * time.Millisecond // a delivery later than this is part of a pause
	pauseSyncSlow = 20 * time.Millisecond // an fdatasync this slow can hold a commit as long
	pauseStall    = 10 * time.Millisecond // the load generator's timer this late
)

// span is something that began at at and lasted d.
type span struct {
	at time.Time
	d  time.Duration
}

func (s span) end() time.Time { return s.at.Add(s.d) }

// overlaps reports whether s and [from, to] share a moment.
func (s span) overlaps(from, to time.Time) bool { return !s.at.After(to) && !s.end().Before(from) }

// waitSample is what PostgreSQL's processes were waiting on at one moment:
// "type:event" (or "CPU" for a backend running) → how many processes.
type waitSample struct {
	at     time.Time
	events map[string]int
}

type pauseWatch struct {
	cancel context.CancelFunc
	wg     sync.WaitGroup

	mu     sync.Mutex // guards the following
	syncs  []span     // every probe fdatasync
	stalls []span     // the load generator's timer, each time it woke pauseStall late or more
	steals []span     // every 10 ms in which the hypervisor took CPU time: d is how much
	waits  []waitSample
	err    error // why the disk probe did not run, if it did not
}

// watchPauses starts the samplers; stop them with stop before reading.
func (b *bench) watchPauses() *pauseWatch {
	ctx, cancel := context.WithCancel(context.Background())
	w := &pauseWatch{cancel: cancel}
	w.wg.Add(4)
	go func() { defer w.wg.Done(); w.probeSteal(ctx) }()
	go func() { defer w.wg.Done(); w.probeDisk(ctx, b) }()
	go func() { defer w.wg.Done(); w.probeTimer(ctx) }()
	go func() { defer w.wg.Done(); w.sampleWaits(ctx, b) }()
	return w
}

func (w *pauseWatch) stop() {
	w.cancel()
	w.wg.Wait()
}

// probeDisk writes 8 KiB at the start of a file beside PostgreSQL's data
// directory and fdatasyncs it every 20 ms, as the WAL writer overwrites a
// segment and flushes it; a stall of the disk that long is never missed.
func (w *pauseWatch) probeDisk(ctx context.Context, b *bench) {
	var data string
	if err := b.pool.QueryRow(ctx, `SHOW data_directory`).Scan(&data); err != nil {
		w.setErr(fmt.Errorf("data directory: %w", err))
		return
	}
	f, err := os.CreateTemp(filepath.Dir(data), "relay-bench-fsync-*.tmp")
	if err != nil {
		w.setErr(err)
		return
	}
	defer os.Remove(f.Name())
	defer f.Close()
	buf := make([]byte, 8192)
	every(ctx, 20*time.Millisecond, func() bool {
		t0 := time.Now()
		if _, err := f.WriteAt(buf, 0); err != nil {
			w.setErr(err)
			return false
		}
		if err := syscall.Fdatasync(int(f.Fd())); err != nil {
			w.setErr(err)
			return false
		}
		w.mu.Lock()
		w.syncs = append(w.syncs, span{t0, time.Since(t0)})
		w.mu.Unlock()
		return true
	})
}

// every calls f every d until ctx ends or f returns false.
func every(ctx context.Context, d time.Duration, f func() bool) {
	tick := time.NewTicker(d)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
		if !f() {
			return
		}
	}
}

func (w *pauseWatch) setErr(err error) {
	w.mu.Lock()
	w.err = err
	w.mu.Unlock()
}

// probeTimer sleeps 1 ms at a time and keeps each wake-up that came
// pauseStall or more after it was due.
func (w *pauseWatch) probeTimer(ctx context.Context) {
	for ctx.Err() == nil {
		t0 := time.Now()
		time.Sleep(time.Millisecond)
		if late := time.Since(t0) - time.Millisecond; late >= pauseStall {
			w.mu.Lock()
			w.stalls = append(w.stalls, span{t0, late})
			w.mu.Unlock()
		}
	}
}

// probeSteal reads the machine's steal time every 10 ms and keeps each
// interval in which it grew (USER_HZ ticks of 10 ms, summed over the
// CPUs). Without /proc/stat it keeps nothing.
func (w *pauseWatch) probeSteal(ctx context.Context) {
	last, ok := stealTicks()
	if !ok {
		return
	}
	at := time.Now()
	every(ctx, 10*time.Millisecond, func() bool {
		n, _ := stealTicks()
		now := time.Now()
		if n > last {
			w.mu.Lock()
			w.steals = append(w.steals, span{at, time.Duration(n-last) * time.Second / clockTicks})
			w.mu.Unlock()
		}
		last, at = n, now
		return true
	})
}

// stealTicks is the steal column of /proc/stat's first line.
func stealTicks() (int64, bool) {
	data, err := os.ReadFile("/proc/stat")
	if err != nil {
		return 0, false
	}
	line, _, _ := strings.Cut(string(data), "\n")
	f := strings.Fields(line)
	if len(f) < 9 || f[0] != "cpu" {
		return 0, false
	}
	n, err := strconv.ParseInt(f[8], 10, 64)
	return n, err == nil
}

// sampleWaits reads, every 10 ms, what the processes of the bench's
// database and PostgreSQL's background processes wait on. Idle waits
// (a client's next statement, a background process's sleep) are left out.
func (w *pauseWatch) sampleWaits(ctx context.Context, b *bench) {
	every(ctx, 10*time.Millisecond, func() bool {
		at := time.Now()
		rows, err := b.pool.Query(ctx, `SELECT coalesce(wait_event_type || ':' || wait_event, 'CPU')
			FROM pg_stat_activity
			WHERE pid <> pg_backend_pid() AND (datname = current_database() OR datname IS NULL)
			  AND (state IS NULL OR state = 'active')
			  AND coalesce(wait_event_type, '') NOT IN ('Activity', 'Client')`)
		if err != nil {
			return true
		}
		s := waitSample{at: at, events: map[string]int{}}
		for rows.Next() {
			var ev string
			if rows.Scan(&ev) == nil {
				s.events[ev]++
			}
		}
		rows.Close()
		w.mu.Lock()
		w.waits = append(w.waits, s)
		w.mu.Unlock()
		return true
	})
}

// pause is one stretch in which deliveries were late.
type pause struct {
	from, to time.Time
	late     int           // late deliveries in it
	sync     time.Duration // the slowest probe fdatasync overlapping it
	stall    time.Duration // the load generator's longest late wake-up in it
	steal    time.Duration // CPU time the hypervisor took in it, both cores
	waits    map[string]int
}

// pauses merges the spans from each late delivery's send to its arrival
// into stretches, in time order.
func pauses(deliveries []span, late time.Duration) []pause {
	var ls []span
	for _, d := range deliveries {
		if d.d > late {
			ls = append(ls, d)
		}
	}
	sort.Slice(ls, func(i, j int) bool { return ls[i].at.Before(ls[j].at) })
	var out []pause
	for _, d := range ls {
		if n := len(out); n > 0 && !d.at.After(out[n-1].to) {
			out[n-1].late++
			if d.end().After(out[n-1].to) {
				out[n-1].to = d.end()
			}
			continue
		}
		out = append(out, pause{from: d.at, to: d.end(), late: 1})
	}
	return out
}

// explain sets what the samplers saw against each pause.
func (w *pauseWatch) explain(ps []pause) {
	w.mu.Lock()
	defer w.mu.Unlock()
	for i := range ps {
		w.window(&ps[i])
	}
}

// window sets what the samplers saw from p.from to p.to; w.mu is held.
func (w *pauseWatch) window(p *pause) {
	p.waits, p.sync, p.stall, p.steal = map[string]int{}, 0, 0, 0
	for _, s := range w.syncs {
		if s.overlaps(p.from, p.to) && s.d > p.sync {
			p.sync = s.d
		}
	}
	for _, s := range w.stalls {
		if s.overlaps(p.from, p.to) && s.d > p.stall {
			p.stall = s.d
		}
	}
	for _, s := range w.steals {
		// a sample's interval ends when it was read
		if (span{s.at, 10 * time.Millisecond}).overlaps(p.from, p.to) {
			p.steal += s.d
		}
	}
	for _, s := range w.waits {
		if !s.at.Before(p.from) && !s.at.After(p.to) {
			for ev, n := range s.events {
				p.waits[ev] += n
			}
		}
	}
}

// pauseShifts is how many times each pause is moved in time for the
// chance baseline, and by how much each time.
const (
	pauseShifts = 4
	pauseShift  = 1370 * time.Millisecond
)

// shifted is the control for explain: each pause's window moved by 1, 2,
// 3 and 4 × pauseShift, wrapped within [from, to), and what the samplers
// saw there. What lines up with the pauses no more often than with these
// windows lines up by chance.
func (w *pauseWatch) shifted(ps []pause, from, to time.Time) []pause {
	length := to.Sub(from)
	if length <= 0 {
		return nil
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	var out []pause
	for _, p := range ps {
		for k := 1; k <= pauseShifts; k++ {
			off := (p.from.Sub(from) + time.Duration(k)*pauseShift) % length
			q := pause{from: from.Add(off), late: p.late}
			q.to = q.from.Add(p.to.Sub(p.from))
			w.window(&q)
			out = append(out, q)
		}
	}
	return out
}

// lineUp is, weighted by late deliveries, the share of windows with a
// slow fdatasync and with the load generator late, and the CPU time stolen
// per 100 ms of window.
func lineUp(ps []pause) (sync, stall, stolen float64) {
	var late, s, t int
	var dur, st time.Duration
	for _, p := range ps {
		late += p.late
		if p.sync >= pauseSyncSlow {
			s += p.late
		}
		if p.stall >= pauseStall {
			t += p.late
		}
		dur += p.to.Sub(p.from)
		st += p.steal
	}
	if late > 0 {
		sync, stall = 100*float64(s)/float64(late), 100*float64(t)/float64(late)
	}
	if dur > 0 {
		stolen = 100 * float64(st) / float64(dur)
	}
	return sync, stall, stolen
}

// syncLatencies is the probe's fdatasync times in ms, sorted.
func (w *pauseWatch) syncLatencies() []float64 {
	w.mu.Lock()
	defer w.mu.Unlock()
	out := make([]float64, len(w.syncs))
	for i, s := range w.syncs {
		out[i] = float64(s.d.Microseconds()) / 1000
	}
	sort.Float64s(out)
	return out
}

// topWaits names the most frequent wait events of a pause, "CPU" among
// them, most frequent first (ties by name, so the order is stable).
func topWaits(m map[string]int, n int) string {
	evs := make([]string, 0, len(m))
	for ev := range m {
		evs = append(evs, ev)
	}
	slices.SortFunc(evs, func(a, b string) int {
		if m[a] != m[b] {
			return m[b] - m[a]
		}
		return strings.Compare(a, b)
	})
	var parts []string
	for _, ev := range evs[:min(n, len(evs))] {
		parts = append(parts, fmt.Sprintf("%s ×%d", ev, m[ev]))
	}
	if len(parts) == 0 {
		return "none sampled"
	}
	return strings.Join(parts, ", ")
}

// pauseLines reports the pauses of a phase: how many, how many lined up
// with a slow fdatasync or a late timer of the load generator, the
// probe's own fdatasync times, and each pause on the log.
func (w *pauseWatch) pauseLines(add func(metric string, v float64, unit, note string), deliveries []span, start time.Time) {
	ps := pauses(deliveries, pauseLate)
	w.explain(ps)
	late := 0
	end := start
	for _, d := range deliveries {
		if d.end().After(end) {
			end = d.end()
		}
	}
	for i, p := range ps {
		late += p.late
		say("pause %d at +%.3f s, %.0f ms, %d late deliveries: slowest fdatasync %.1f ms, load generator late %.1f ms, CPU stolen %.0f ms; PostgreSQL: %s",
			i+1, p.from.Sub(start).Seconds(), float64(p.to.Sub(p.from).Microseconds())/1000, p.late,
			float64(p.sync.Microseconds())/1000, float64(p.stall.Microseconds())/1000, float64(p.steal.Milliseconds()), topWaits(p.waits, 4))
	}
	sync, stall, stolen := lineUp(ps)
	csync, cstall, cstolen := lineUp(w.shifted(ps, start, end))
	add("half peak: pauses", float64(len(ps)), "pauses", fmt.Sprintf("stretches of deliveries over %v, merged, holding %d late deliveries; each on the log", pauseLate, late))
	add("half peak: late in a pause with a slow fdatasync", sync, "%", fmt.Sprintf("a probe fdatasync of 8 KiB beside PostgreSQL's data of %v or more; %.1f %% in the same windows moved by %v steps", pauseSyncSlow, csync, pauseShift))
	add("half peak: late in a pause with the load generator late", stall, "%", fmt.Sprintf("its 1 ms timer woke %v or more late; %.1f %% in the windows moved", pauseStall, cstall))
	add("half peak: CPU stolen in the pauses", stolen, "ms per 100 ms", fmt.Sprintf("the hypervisor's steal, both cores (/proc/stat); %.1f in the windows moved", cstolen))
	var total time.Duration
	w.mu.Lock()
	for _, s := range w.steals {
		total += s.d
	}
	w.mu.Unlock()
	add("half peak: CPU stolen over the phase", float64(total.Milliseconds()), "ms", fmt.Sprintf("both cores, in %.1f s", end.Sub(start).Seconds()))
	w.mu.Lock()
	err := w.err
	w.mu.Unlock()
	if err != nil {
		add("half peak: fdatasync probe", 0, "", "not run: "+err.Error())
		return
	}
	lats := w.syncLatencies()
	add("half peak: probe fdatasync p50", percentile(lats, 0.5), "ms", fmt.Sprintf("%d probes, 8 KiB each, every 20 ms", len(lats)))
	add("half peak: probe fdatasync p99", percentile(lats, 0.99), "ms", "")
	if len(lats) > 0 {
		add("half peak: probe fdatasync max", lats[len(lats)-1], "ms", "")
	}
}
