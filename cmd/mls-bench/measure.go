package main

import (
	"context"
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"net/http"
	"slices"
	"strconv"

	cdpbrowser "github.com/chromedp/cdproto/browser"
	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/performance"
	"github.com/chromedp/chromedp"

	"relay/internal/benchpage"
)

//go:embed page
var pageFiles embed.FS

// page is the bench's page, served under /bench/.
func page() fs.FS {
	sub, err := fs.Sub(pageFiles, "page")
	if err != nil {
		panic(err) // the embedded folder is there at build time
	}
	return sub
}

// handler serves the client and the page, for the test.
func handler() http.Handler { return benchpage.Handler(page()) }

// config is how many operations each timed case runs.
type config struct {
	messages int // application messages sealed, then opened, per case
	large    int // the same for the largest bucket
	commits  int // leaf updates committed, then processed, per group
	warmup   int // operations run first and not counted, so that the JIT has compiled the code
	bodies   int // times each record is sealed for its size
	// scaleUpdates is how many leaf updates the creator of each larger
	// group commits before its state is saved: more than the epochs
	// a state keeps (ts-mls's default, 4), so that the state is as large
	// as it stays
	scaleUpdates int
}

type result = benchpage.Result

// The record length of the timed messages: a short text lands in the
// first bucket; largeRecord lands in the largest (65,508 bytes).
const (
	shortRecord = 50
	largeRecord = 48000
)

// The group sizes of docs/performance.md: 2, 4 and 10 devices, made by a
// group of one adding the rest in one commit; 3 and 9 to add one device to.
var (
	groupSizes = []int{2, 4, 10}
	addOneTo   = []int{3, 9}
	timedSizes = []int{2, 10}
	// larger groups, measured in size only, for the groups to come
	scaleSizes = []int{30, 100}
)

type timedStep struct {
	MS    []float64 `json:"ms"`
	Sizes []int     `json:"sizes"`
}

// bench is one run of the page's steps: the tab, the counts, and the
// results so far.
type bench struct {
	ctx context.Context
	cfg config
	out []result
}

func (b *bench) add(metric string, v float64, unit, note string) {
	b.out = append(b.out, result{Scenario: "mls", Metric: metric, Value: v, Unit: unit, Note: note})
}

// addTimes adds a timed operation's median (with its 90th percentile in
// the note) and, when cpu is not negative, the renderer's CPU per
// operation.
func (b *bench) addTimes(what string, ms []float64, cpu float64) {
	b.add(what+", median", benchpage.Median(ms), "ms", fmt.Sprintf("p90 %.2f ms, %d runs", benchpage.Percentile(ms, 0.9), len(ms)))
	if cpu >= 0 {
		b.add(what+", renderer CPU", cpu, "ms", "per operation, all the renderer's threads")
	}
}

// measure runs every step in the browser tab of ctx, served from base.
func measure(ctx context.Context, base string, cfg config) (env map[string]any, out []result, err error) {
	if err := chromedp.Do(ctx, chromedp.Navigate(base+"/bench/index.html")); err != nil {
		return nil, nil, err
	}
	if _, err := chromedp.Call(ctx, performance.Enable, performance.EnableParams{}); err != nil {
		return nil, nil, err
	}
	if _, err := benchpage.Call[bool](ctx, `(async () => { window.B = await import('/bench/mlscost.js'); return true; })()`); err != nil {
		return nil, nil, fmt.Errorf("loading the page's module: %w", err)
	}
	isolated, err := benchpage.Call[bool](ctx, `B.isolated()`)
	if err != nil {
		return nil, nil, err
	}
	env = map[string]any{"cross_origin_isolated": isolated}
	if v, err := chromedp.CallBrowser(ctx, cdpbrowser.GetVersion, cdp.Empty{}); err == nil {
		env["browser"] = v.Product
	}
	b := &bench{ctx: ctx, cfg: cfg}
	for _, step := range []func() error{b.groups, b.larger, b.bodies, b.messages, b.commits, b.states} {
		if err := step(); err != nil {
			return nil, nil, err
		}
	}
	return env, b.out, nil
}

// groups: key packages, and the groups of 2 to 10 devices the later
// steps use, with the commits and welcomes that made them.
func (b *bench) groups() error {
	kp, err := benchpage.Call[struct{ OneTime, LastResort int }](b.ctx, `B.keyPackages()`)
	if err != nil {
		return err
	}
	b.add("key package, one-time", float64(kp.OneTime), "B", "")
	b.add("key package, last resort", float64(kp.LastResort), "B", "")

	type built struct {
		Commit, Welcome int
		AddMS           float64
		JoinMS          []float64
	}
	for _, n := range []int{2, 3, 4, 9, 10} {
		g, err := benchpage.Call[built](b.ctx, `B.build(`+strconv.Itoa(n)+`)`)
		if err != nil {
			return fmt.Errorf("a group of %d: %w", n, err)
		}
		if slices.Contains(groupSizes, n) {
			what := fmt.Sprintf("group of %d: 1 adds %d in one commit", n, n-1)
			b.add(what+", commit", float64(g.Commit), "B", "")
			b.add(what+", welcome", float64(g.Welcome), "B", "with the ratchet tree")
		}
		if n == 10 {
			b.add("group of 10: 1 adds 9, making the commit and welcome", g.AddMS, "ms", "one run, credential checks included")
			b.add("group of 10: joining from the welcome, median", benchpage.Median(g.JoinMS), "ms", fmt.Sprintf("%d joins, credential checks of the 10 members included", len(g.JoinMS)))
		}
	}
	for _, n := range addOneTo {
		g, err := benchpage.Call[struct{ Commit, Welcome int }](b.ctx, `B.addOne(`+strconv.Itoa(n)+`)`)
		if err != nil {
			return err
		}
		what := fmt.Sprintf("group of %d: adding 1 to %d", n+1, n)
		b.add(what+", commit", float64(g.Commit), "B", "")
		b.add(what+", welcome", float64(g.Welcome), "B", "with the ratchet tree")
	}
	for _, n := range timedSizes {
		s, err := benchpage.Call[struct{ Bytes int }](b.ctx, `B.saved(`+strconv.Itoa(n)+`)`)
		if err != nil {
			return err
		}
		b.add(fmt.Sprintf("saved group of %d, just joined", n), float64(s.Bytes), "B", "saveGroup of a member")
	}
	return nil
}

// larger: the groups of 30 and 100, from their creator alone.
func (b *bench) larger() error {
	type scaled struct {
		Commit, Welcome, AddOneCommit, AddOneWelcome, Update, Joined, Saved int
		UpdateMS, Save, Load                                                []float64
	}
	for _, n := range scaleSizes {
		s, err := benchpage.Call[scaled](b.ctx, fmt.Sprintf(`B.scale(%d, %d)`, n, b.cfg.scaleUpdates))
		if err != nil {
			return fmt.Errorf("a group of %d: %w", n, err)
		}
		what := fmt.Sprintf("group of %d: 1 adds %d in one commit", n, n-1)
		b.add(what+", commit", float64(s.Commit), "B", "")
		b.add(what+", welcome", float64(s.Welcome), "B", "with the ratchet tree")
		what = fmt.Sprintf("group of %d: adding 1 to %d", n+1, n)
		b.add(what+", commit", float64(s.AddOneCommit), "B", "")
		b.add(what+", welcome", float64(s.AddOneWelcome), "B", "with the ratchet tree")
		b.add(fmt.Sprintf("group of %d: commit updating a leaf", n), float64(s.Update), "B", "the creator's")
		b.addTimes(fmt.Sprintf("group of %d: commit updating a leaf, made", n), s.UpdateMS, -1)
		b.add(fmt.Sprintf("saved group of %d, just made", n), float64(s.Joined), "B", "its creator's")
		what = fmt.Sprintf("saved group of %d, after %d commits", n, b.cfg.scaleUpdates)
		b.add(what, float64(s.Saved), "B", "its creator's")
		b.addTimes(what+", saveGroup", s.Save, -1)
		b.addTimes(what+", loadGroup", s.Load, -1)
	}
	return nil
}

// v1Overhead is what version 1 adds to a padded record: crypto.js's
// IV_SIZE and TAG_SIZE.
const v1Overhead = 12 + 16

// bodies: each record's body once MLS seals it.
func (b *bench) bodies() error {
	type body struct {
		Name                     string
		Record, Bucket, Min, Max int
	}
	bodies, err := benchpage.Call[[]body](b.ctx, fmt.Sprintf(`B.bodies(2, %d)`, b.cfg.bodies))
	if err != nil {
		return err
	}
	for _, x := range bodies {
		b.add("body: "+x.Name, float64(x.Max), "B", fmt.Sprintf("largest of %d; record %d B, bucket %d B, overhead %d–%d B, version 1 body %d B",
			b.cfg.bodies, x.Record, x.Bucket, x.Min-x.Bucket, x.Max-x.Bucket, x.Bucket+v1Overhead))
	}
	return nil
}

// messages: application messages sealed by one device and opened by
// another, in groups of 2 and 10, and of the largest bucket.
func (b *bench) messages() error {
	// The JIT's first runs are not what a client pays for each message.
	if _, err := benchpage.Call[timedStep](b.ctx, fmt.Sprintf(`B.encrypt(2, %d, %d)`, b.cfg.warmup, shortRecord)); err != nil {
		return err
	}
	if _, err := benchpage.Call[timedStep](b.ctx, `B.decrypt(2)`); err != nil {
		return err
	}
	cases := []struct {
		n, count, record int
		what             string
	}{
		{2, b.cfg.messages, shortRecord, "first bucket"},
		{10, b.cfg.messages, shortRecord, "first bucket"},
		{2, b.cfg.large, largeRecord, "largest bucket"},
	}
	for _, c := range cases {
		enc, encCPU, err := timed(b.ctx, fmt.Sprintf(`B.encrypt(%d, %d, %d)`, c.n, c.count, c.record))
		if err != nil {
			return err
		}
		dec, decCPU, err := timed(b.ctx, fmt.Sprintf(`B.decrypt(%d)`, c.n))
		if err != nil {
			return err
		}
		b.addTimes(fmt.Sprintf("group of %d, %s: encrypt", c.n, c.what), enc.MS, encCPU)
		b.addTimes(fmt.Sprintf("group of %d, %s: decrypt", c.n, c.what), dec.MS, decCPU)
	}
	return nil
}

// commits: updates of a leaf committed by one device and processed by
// another, in groups of 2 and 10.
func (b *bench) commits() error {
	for _, n := range timedSizes {
		if _, err := benchpage.Call[timedStep](b.ctx, fmt.Sprintf(`B.commit(%d, %d)`, n, b.cfg.warmup)); err != nil {
			return err
		}
		if _, err := benchpage.Call[timedStep](b.ctx, fmt.Sprintf(`B.processCommits(%d)`, n)); err != nil {
			return err
		}
		made, madeCPU, err := timed(b.ctx, fmt.Sprintf(`B.commit(%d, %d)`, n, b.cfg.commits))
		if err != nil {
			return err
		}
		done, doneCPU, err := timed(b.ctx, fmt.Sprintf(`B.processCommits(%d)`, n))
		if err != nil {
			return err
		}
		sizes := make([]float64, len(made.Sizes))
		for i, s := range made.Sizes {
			sizes[i] = float64(s)
		}
		b.add(fmt.Sprintf("group of %d: commit updating a leaf", n), benchpage.Median(sizes), "B", "median")
		b.addTimes(fmt.Sprintf("group of %d: commit updating a leaf, made", n), made.MS, madeCPU)
		b.addTimes(fmt.Sprintf("group of %d: commit updating a leaf, processed", n), done.MS, doneCPU)
	}
	return nil
}

// states: the receiving device's state after all that, its size and
// what saving and loading it take.
func (b *bench) states() error {
	for _, n := range timedSizes {
		s, err := benchpage.Call[struct{ Bytes, Epoch int }](b.ctx, `B.saved(`+strconv.Itoa(n)+`)`)
		if err != nil {
			return err
		}
		b.add(fmt.Sprintf("saved group of %d, after the run", n), float64(s.Bytes), "B", fmt.Sprintf("epoch %d", s.Epoch))
		sv, err := benchpage.Call[struct{ Save, Load []float64 }](b.ctx, fmt.Sprintf(`B.saving(%d, %d)`, n, b.cfg.commits))
		if err != nil {
			return err
		}
		b.addTimes(fmt.Sprintf("group of %d: saveGroup of that state", n), sv.Save, -1)
		b.addTimes(fmt.Sprintf("group of %d: loadGroup of that state", n), sv.Load, -1)
	}
	return nil
}

// timed runs a step and reads the renderer's CPU time around it: the
// step's operations divided among its timed runs.
func timed(ctx context.Context, expr string) (timedStep, float64, error) {
	before, err := processTime(ctx)
	if err != nil {
		return timedStep{}, 0, err
	}
	s, err := benchpage.Call[timedStep](ctx, expr)
	if err != nil {
		return s, 0, err
	}
	after, err := processTime(ctx)
	if err != nil {
		return s, 0, err
	}
	if len(s.MS) == 0 {
		return s, 0, fmt.Errorf("%s timed nothing", expr)
	}
	return s, (after - before) * 1000 / float64(len(s.MS)), nil
}

// processTime is the CPU time, in seconds, of the renderer process that
// runs the page: its main thread and the threads WebCrypto works on.
func processTime(ctx context.Context) (float64, error) {
	m, err := chromedp.Call(ctx, performance.GetMetrics, cdp.Empty{})
	if err != nil {
		return 0, err
	}
	for _, x := range m.Metrics {
		if x.Name == "ProcessTime" {
			return x.Value, nil
		}
	}
	return 0, errors.New("the browser reports no ProcessTime metric")
}

// call evaluates a page expression, awaiting it, into T.
