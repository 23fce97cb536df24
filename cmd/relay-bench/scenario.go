package main

import (
	"context"
	"fmt"
	"sort"
	"strings"
)

// clientLikeScenario runs the client-like scenario (ADR 0068) and its
// references: the physical floor and the accept transaction with pgbench,
// then rounds of the relay without and with receipts and, with --ntfy,
// ntfy in between, then the relay at half of its 8-publisher peak.
func (b *bench) clientLikeScenario() ([]result, error) {
	counts := []int{8, 32}
	floor, ref := map[int]float64{}, map[int]float64{}
	for _, n := range counts {
		f, _, err := b.pgbenchFloor(n)
		if err != nil {
			return nil, err
		}
		r, err := b.reference(n)
		if err != nil {
			return nil, err
		}
		floor[n], ref[n] = f, r
	}
	stopExtras, err := b.startExtras(b.o.instances)
	if err != nil {
		return nil, err
	}
	defer stopExtras()
	top, err := b.clientTopology(counts[len(counts)-1])
	if err != nil {
		return nil, err
	}
	peer, stopPeer, err := b.startPeer()
	if err != nil {
		return nil, err
	}
	defer stopPeer()
	type key struct {
		who string // relay, receipts, ntfy
		n   int
	}
	runs := map[key][]phaseResult{}
	for round := 1; round <= b.o.rounds; round++ {
		for _, n := range counts {
			r, err := b.clientLike(top, n, false, 0)
			if err != nil {
				return nil, err
			}
			runs[key{"relay", n}] = append(runs[key{"relay", n}], r)
			if peer != nil {
				r, err := b.ntfyPhase(peer, clientNtfyLoad(n))
				if err != nil {
					return nil, err
				}
				runs[key{"ntfy", n}] = append(runs[key{"ntfy", n}], r)
			}
			r, err = b.clientLike(top, n, true, 0)
			if err != nil {
				return nil, err
			}
			runs[key{"receipts", n}] = append(runs[key{"receipts", n}], r)
		}
	}
	half := median(runs[key{"relay", 8}]).accepted / 2
	lat, err := b.clientLike(top, 8, false, half)
	if err != nil {
		return nil, err
	}

	var out []result
	add := func(metric string, v float64, unit, note string) {
		out = append(out, result{"client", metric, v, unit, note})
	}
	of := b.roundsNote()
	for _, n := range counts {
		rl, rc := median(runs[key{"relay", n}]), median(runs[key{"receipts", n}])
		add(fmt.Sprintf("relay, %d publishers", n), rl.accepted, "envelopes/s", "headline: no receipts, as ntfy carries none; "+of)
		b.phaseLines(&out, fmt.Sprintf("%d", n), rl)
		add(fmt.Sprintf("relay ÷ floor, %d", n), rl.accepted/floor[n], "ratio", fmt.Sprintf("floor %.0f commits/s", floor[n]))
		add(fmt.Sprintf("relay ÷ accept tx, %d", n), rl.accepted/ref[n], "ratio", fmt.Sprintf("pgbench of queue.AcceptSQL %.0f tx/s", ref[n]))
		if peer != nil {
			nt := median(runs[key{"ntfy", n}])
			note := "cache-file, 16 topics × 5 subscribers; " + of
			if b.o.tls {
				note += "; plain HTTP/1.1 whatever --tls and --http2 say (ntfy is not run with TLS)"
			}
			add(fmt.Sprintf("ntfy, %d publishers", n), nt.accepted, "envelopes/s", note)
			add(fmt.Sprintf("ntfy delivery p50, %d", n), nt.p50, "ms", "at saturation")
			add(fmt.Sprintf("ntfy delivery p99, %d", n), nt.p99, "ms", "")
			add(fmt.Sprintf("ntfy CPU per envelope, %d", n), nt.cpu.total(), "ms", fmt.Sprintf("ntfy %.2f, load %.2f", nt.cpu.peer, nt.cpu.load))
			add(fmt.Sprintf("ntfy lost + duplicated, %d", n), float64(nt.lost+nt.dup), "envelopes", fmt.Sprintf("lost %d, duplicated %d; must be 0", nt.lost, nt.dup))
			add(fmt.Sprintf("ntfy refused publishes, %d", n), float64(nt.refused), "publishes", "non-200 answers, not counted as accepted; summed over the rounds")
			b.check(nt, "ntfy", n)
			add(fmt.Sprintf("relay ÷ ntfy, %d", n), rl.accepted/nt.accepted, "ratio", "goal ≥ 3")
		}
		add(fmt.Sprintf("with receipts, %d: messages", n), rc.accepted, "envelopes/s", "the receipts the client sends")
		add(fmt.Sprintf("with receipts, %d: receipts", n), rc.receipts, "envelopes/s", fmt.Sprintf("%.2f receipt envelopes per message", rc.receiptPerMsg))
		b.phaseLines(&out, fmt.Sprintf("%d, receipts", n), rc)
	}
	if peer == nil {
		add("ntfy", 0, "", "not run: pass --ntfy /path/to/ntfy for the peer's lines")
	}
	add(fmt.Sprintf("half peak (%.0f/s): delivery p50", half), lat.p50, "ms", "goal ≤ 5")
	add(fmt.Sprintf("half peak (%.0f/s): delivery p99", half), lat.p99, "ms", "goal ≤ 50")
	add("half peak: ACKed rows held > 1 s", float64(lat.ackedOld), "rows", "goal 0")
	add("half peak: TCP connections opened", float64(lat.dials), "connections", b.connectionsNote(lat))
	add("half peak: lost + duplicated", float64(lat.lost+lat.dup), "envelopes", fmt.Sprintf("lost %d, duplicated %d; must be 0", lat.lost, lat.dup))
	b.check(lat, "relay at half peak", 8)
	out = append(out, lat.pauses...)
	for k, rs := range runs {
		if k.who != "ntfy" {
			for _, r := range rs {
				b.check(r, k.who, k.n)
			}
		}
	}
	return out, nil
}

// roundsNote says what a figure of alternating rounds is.
func (b *bench) roundsNote() string {
	if b.o.rounds == 1 {
		return "one round"
	}
	return fmt.Sprintf("median of %d rounds", b.o.rounds)
}

// phaseLines adds the lines every relay phase reports.
func (b *bench) phaseLines(out *[]result, what string, r phaseResult) {
	add := func(metric string, v float64, unit, note string) {
		*out = append(*out, result{"client", metric, v, unit, note})
	}
	add("ACK requests per envelope, "+what, r.acksPerEnv, "requests", "one per delivery would be 5")
	add("delivery p50, "+what, r.p50, "ms", "at saturation, POST start to each target stream")
	add("delivery p99, "+what, r.p99, "ms", "")
	note := fmt.Sprintf("relay %.2f, PostgreSQL %.2f, load %.2f", r.cpu.relay, r.cpu.postgres, r.cpu.load)
	if len(r.cpu.instances) > 1 {
		var per []string
		for i, x := range r.cpu.instances {
			per = append(per, fmt.Sprintf("#%d %.2f", i+1, x))
		}
		note += "; relay instances " + strings.Join(per, ", ")
	}
	add("CPU per envelope, "+what, r.cpu.total(), "ms", note)
	add("TCP connections opened, "+what, float64(r.dials), "connections", b.connectionsNote(r))
	add("ACKed rows held > 1 s, "+what, float64(r.ackedOld), "rows", "most in one sample; goal 0")
	add("lost + duplicated, "+what, float64(r.lost+r.dup), "envelopes", fmt.Sprintf("lost %d, duplicated %d; must be 0", r.lost, r.dup))
}

// connectionsNote says what a phase's clients spoke and how many of them
// there were, beside the TCP connections they opened.
func (b *bench) connectionsNote(r phaseResult) string {
	how := "a connection per stream, and a shared pool for ACKs, receipts and sends"
	if b.o.http2 {
		how = "each with a connection of its own"
	}
	return fmt.Sprintf("protocol %s; %d devices and publishers, %s", r.protocol, clientRecipients*clientDevices+r.publishers, how)
}

// check records a phase that lost or duplicated an envelope; the run then
// ends with an error.
func (b *bench) check(r phaseResult, who string, n int) {
	if r.lost > 0 || r.dup > 0 {
		b.violations = append(b.violations, fmt.Sprintf("%s, %d publishers: %d lost, %d duplicated", who, n, r.lost, r.dup))
	}
}

// median is the per-figure median of phases; lost, duplicated, stray
// and refused are summed and the ACKed rows held the most of any.
func median(rs []phaseResult) phaseResult {
	if len(rs) == 0 {
		return phaseResult{}
	}
	mid := func(f func(phaseResult) float64) float64 {
		v := make([]float64, len(rs))
		for i, r := range rs {
			v[i] = f(r)
		}
		sort.Float64s(v)
		return v[len(v)/2]
	}
	m := phaseResult{
		dials:         int(mid(func(r phaseResult) float64 { return float64(r.dials) })),
		protocol:      rs[0].protocol,
		publishers:    rs[0].publishers,
		accepted:      mid(func(r phaseResult) float64 { return r.accepted }),
		receipts:      mid(func(r phaseResult) float64 { return r.receipts }),
		acksPerEnv:    mid(func(r phaseResult) float64 { return r.acksPerEnv }),
		receiptPerMsg: mid(func(r phaseResult) float64 { return r.receiptPerMsg }),
		p50:           mid(func(r phaseResult) float64 { return r.p50 }),
		p99:           mid(func(r phaseResult) float64 { return r.p99 }),
		copies:        mid(func(r phaseResult) float64 { return r.copies }),
		walPerMsg:     mid(func(r phaseResult) float64 { return r.walPerMsg }),
	}
	// The CPU of the round with the median total, so that its parts add up.
	byCPU := append([]phaseResult(nil), rs...)
	sort.Slice(byCPU, func(i, j int) bool { return byCPU[i].cpu.total() < byCPU[j].cpu.total() })
	m.cpu = byCPU[len(byCPU)/2].cpu
	for _, r := range rs {
		m.lost += r.lost
		m.dup += r.dup
		m.stray += r.stray
		m.refused += r.refused
		m.ackedOld = max(m.ackedOld, r.ackedOld)
		if r.protocol != m.protocol {
			m.protocol = "varied by round"
		}
	}
	return m
}

// pgbenchFloor runs the physical floor at the given concurrency.
func (b *bench) pgbenchFloor(clients int) (float64, cpuUse, error) {
	say("pgbench floor with %d clients…", clients)
	if _, err := b.pool.Exec(context.Background(), floorTableSQL); err != nil {
		return 0, cpuUse{}, err
	}
	run, err := b.runPgbench(floorScript, clients, floorEnv, 0)
	return run.tps, run.cpu, err
}

// reference is the accept transaction's pgbench at the given concurrency,
// measured once a run: by the ingest scenario when it ran, else here.
func (b *bench) reference(clients int) (float64, error) {
	if tps, ok := b.refs[clients]; ok {
		return tps, nil
	}
	tps, _, err := b.pgbenchRef(clients)
	return tps, err
}
