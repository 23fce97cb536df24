package main

import (
	"context"
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"math"
	"net/http"
	"slices"
	"strconv"

	cdpbrowser "github.com/chromedp/cdproto/browser"
	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/performance"
	"github.com/chromedp/chromedp"

	"relay/webclient"
)

//go:embed page
var pageFiles embed.FS

// handler serves the web client as the relay does, and the bench's page
// under /bench/. The page is cross-origin isolated (COOP and COEP), which
// gives it Chromium's fine clock (5 µs instead of 100 µs), and keeps the
// client's Content-Security-Policy.
func handler() http.Handler {
	sub, err := fs.Sub(pageFiles, "page")
	if err != nil {
		panic(err) // the embedded folder is there at build time
	}
	files := http.StripPrefix("/bench/", http.FileServerFS(sub))
	mux := http.NewServeMux()
	mux.Handle("/bench/", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h := w.Header()
		h.Set("Content-Security-Policy", webclient.CSP)
		h.Set("Cross-Origin-Opener-Policy", "same-origin")
		h.Set("Cross-Origin-Embedder-Policy", "require-corp")
		h.Set("Cache-Control", "no-store")
		files.ServeHTTP(w, r)
	}))
	mux.Handle("/", webclient.Handler())
	return mux
}

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

// result is one line of the table; the same shape as relay-bench's.
type result struct {
	Scenario string  `json:"scenario"`
	Metric   string  `json:"metric"`
	Value    float64 `json:"value"`
	Unit     string  `json:"unit"`
	Note     string  `json:"note,omitempty"`
}

// The record length of the timed messages: a short text lands in the
// first bucket; largeRecord lands in the largest (65,508 bytes).
const (
	shortRecord = 50
	largeRecord = 48000
)

// The group sizes: the 2, 4 and 10 devices, made by a group of
// one adding the rest in one commit; 3 and 9 to add one device to.
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

// measure runs every step in the browser tab of ctx, served from base.
func measure(ctx context.Context, base string, cfg config) (env map[string]any, out []result, err error) {
	if err := chromedp.Do(ctx, chromedp.Navigate(base+"/bench/index.html")); err != nil {
		return nil, nil, err
	}
	if _, err := chromedp.Call(ctx, performance.Enable, performance.EnableParams{}); err != nil {
		return nil, nil, err
	}
	if _, err := call[bool](ctx, `(async () => { window.B = await import('/bench/mlscost.js'); return true; })()`); err != nil {
		return nil, nil, fmt.Errorf("loading the page's module: %w", err)
	}
	isolated, err := call[bool](ctx, `B.isolated()`)
	if err != nil {
		return nil, nil, err
	}
	env = map[string]any{"cross_origin_isolated": isolated}
	if v, err := chromedp.CallBrowser(ctx, cdpbrowser.GetVersion, cdp.Empty{}); err == nil {
		env["browser"] = v.Product
	}
	add := func(metric string, v float64, unit, note string) {
		out = append(out, result{"mls", metric, v, unit, note})
	}

	kp, err := call[struct{ OneTime, LastResort int }](ctx, `B.keyPackages()`)
	if err != nil {
		return nil, nil, err
	}
	add("key package, one-time", float64(kp.OneTime), "B", "")
	add("key package, last resort", float64(kp.LastResort), "B", "")

	type built struct {
		Commit, Welcome int
		AddMS           float64
		JoinMS          []float64
	}
	var joins []float64
	for _, n := range []int{2, 3, 4, 9, 10} {
		b, err := call[built](ctx, `B.build(`+strconv.Itoa(n)+`)`)
		if err != nil {
			return nil, nil, fmt.Errorf("a group of %d: %w", n, err)
		}
		if slices.Contains(groupSizes, n) {
			what := fmt.Sprintf("group of %d: 1 adds %d in one commit", n, n-1)
			add(what+", commit", float64(b.Commit), "B", "")
			add(what+", welcome", float64(b.Welcome), "B", "with the ratchet tree")
		}
		if n == 10 {
			add("group of 10: 1 adds 9, making the commit and welcome", b.AddMS, "ms", "one run, credential checks included")
			joins = b.JoinMS
		}
	}
	if len(joins) > 0 {
		add("group of 10: joining from the welcome, median", median(joins), "ms", fmt.Sprintf("%d joins, credential checks of the 10 members included", len(joins)))
	}
	for _, n := range addOneTo {
		b, err := call[struct{ Commit, Welcome int }](ctx, `B.addOne(`+strconv.Itoa(n)+`)`)
		if err != nil {
			return nil, nil, err
		}
		what := fmt.Sprintf("group of %d: adding 1 to %d", n+1, n)
		add(what+", commit", float64(b.Commit), "B", "")
		add(what+", welcome", float64(b.Welcome), "B", "with the ratchet tree")
	}
	for _, n := range timedSizes {
		s, err := call[struct{ Bytes int }](ctx, `B.saved(`+strconv.Itoa(n)+`)`)
		if err != nil {
			return nil, nil, err
		}
		add(fmt.Sprintf("saved group of %d, just joined", n), float64(s.Bytes), "B", "saveGroup of a member")
	}

	type scaled struct {
		Commit, Welcome, AddOneCommit, AddOneWelcome, Update, Joined, Saved int
		UpdateMS, Save, Load                                                []float64
	}
	for _, n := range scaleSizes {
		s, err := call[scaled](ctx, fmt.Sprintf(`B.scale(%d, %d)`, n, cfg.scaleUpdates))
		if err != nil {
			return nil, nil, fmt.Errorf("a group of %d: %w", n, err)
		}
		what := fmt.Sprintf("group of %d: 1 adds %d in one commit", n, n-1)
		add(what+", commit", float64(s.Commit), "B", "")
		add(what+", welcome", float64(s.Welcome), "B", "with the ratchet tree")
		what = fmt.Sprintf("group of %d: adding 1 to %d", n+1, n)
		add(what+", commit", float64(s.AddOneCommit), "B", "")
		add(what+", welcome", float64(s.AddOneWelcome), "B", "with the ratchet tree")
		add(fmt.Sprintf("group of %d: commit updating a leaf", n), float64(s.Update), "B", "the creator's")
		add(fmt.Sprintf("group of %d: commit updating a leaf, made, median", n), median(s.UpdateMS), "ms",
			fmt.Sprintf("p90 %.2f ms, %d runs", percentile(s.UpdateMS, 0.9), len(s.UpdateMS)))
		add(fmt.Sprintf("saved group of %d, just made", n), float64(s.Joined), "B", "its creator's")
		what = fmt.Sprintf("saved group of %d, after %d commits", n, cfg.scaleUpdates)
		add(what, float64(s.Saved), "B", "its creator's")
		add(what+", saveGroup, median", median(s.Save), "ms", fmt.Sprintf("p90 %.2f ms, %d runs", percentile(s.Save, 0.9), len(s.Save)))
		add(what+", loadGroup, median", median(s.Load), "ms", fmt.Sprintf("p90 %.2f ms, %d runs", percentile(s.Load, 0.9), len(s.Load)))
	}

	type body struct {
		Name                     string
		Record, Bucket, Min, Max int
	}
	bodies, err := call[[]body](ctx, fmt.Sprintf(`B.bodies(2, %d)`, cfg.bodies))
	if err != nil {
		return nil, nil, err
	}
	for _, b := range bodies {
		add("body: "+b.Name, float64(b.Max), "B", fmt.Sprintf("largest of %d; record %d B, bucket %d B, overhead %d–%d B, version 1 body %d B",
			cfg.bodies, b.Record, b.Bucket, b.Min-b.Bucket, b.Max-b.Bucket, b.Bucket+12+16))
	}

	// The JIT's first runs are not what a client pays for each message.
	if _, err := call[timedStep](ctx, fmt.Sprintf(`B.encrypt(2, %d, %d)`, cfg.warmup, shortRecord)); err != nil {
		return nil, nil, err
	}
	if _, err := call[timedStep](ctx, `B.decrypt(2)`); err != nil {
		return nil, nil, err
	}
	cases := []struct {
		n, count, record int
		what             string
	}{
		{2, cfg.messages, shortRecord, "first bucket"},
		{10, cfg.messages, shortRecord, "first bucket"},
		{2, cfg.large, largeRecord, "largest bucket"},
	}
	for _, c := range cases {
		enc, encCPU, err := timed(ctx, fmt.Sprintf(`B.encrypt(%d, %d, %d)`, c.n, c.count, c.record))
		if err != nil {
			return nil, nil, err
		}
		dec, decCPU, err := timed(ctx, fmt.Sprintf(`B.decrypt(%d)`, c.n))
		if err != nil {
			return nil, nil, err
		}
		addTimes(add, fmt.Sprintf("group of %d, %s: encrypt", c.n, c.what), enc.MS, encCPU)
		addTimes(add, fmt.Sprintf("group of %d, %s: decrypt", c.n, c.what), dec.MS, decCPU)
	}
	for _, n := range timedSizes {
		if _, err := call[timedStep](ctx, fmt.Sprintf(`B.commit(%d, %d)`, n, cfg.warmup)); err != nil {
			return nil, nil, err
		}
		if _, err := call[timedStep](ctx, fmt.Sprintf(`B.processCommits(%d)`, n)); err != nil {
			return nil, nil, err
		}
		made, madeCPU, err := timed(ctx, fmt.Sprintf(`B.commit(%d, %d)`, n, cfg.commits))
		if err != nil {
			return nil, nil, err
		}
		done, doneCPU, err := timed(ctx, fmt.Sprintf(`B.processCommits(%d)`, n))
		if err != nil {
			return nil, nil, err
		}
		sizes := make([]float64, len(made.Sizes))
		for i, s := range made.Sizes {
			sizes[i] = float64(s)
		}
		add(fmt.Sprintf("group of %d: commit updating a leaf", n), median(sizes), "B", "median")
		addTimes(add, fmt.Sprintf("group of %d: commit updating a leaf, made", n), made.MS, madeCPU)
		addTimes(add, fmt.Sprintf("group of %d: commit updating a leaf, processed", n), done.MS, doneCPU)
	}
	for _, n := range timedSizes {
		s, err := call[struct{ Bytes, Epoch int }](ctx, `B.saved(`+strconv.Itoa(n)+`)`)
		if err != nil {
			return nil, nil, err
		}
		add(fmt.Sprintf("saved group of %d, after the run", n), float64(s.Bytes), "B", fmt.Sprintf("epoch %d", s.Epoch))
		sv, err := call[struct{ Save, Load []float64 }](ctx, fmt.Sprintf(`B.saving(%d, %d)`, n, cfg.commits))
		if err != nil {
			return nil, nil, err
		}
		for _, x := range []struct {
			what string
			ms   []float64
		}{{"saveGroup", sv.Save}, {"loadGroup", sv.Load}} {
			add(fmt.Sprintf("group of %d: %s of that state, median", n, x.what), median(x.ms), "ms", fmt.Sprintf("p90 %.2f ms, %d runs", percentile(x.ms, 0.9), len(x.ms)))
		}
	}
	return env, out, nil
}

// addTimes adds a timed operation's median (with its 90th percentile in
// the note) and the renderer's CPU per operation.
func addTimes(add func(string, float64, string, string), what string, ms []float64, cpu float64) {
	add(what+", median", median(ms), "ms", fmt.Sprintf("p90 %.2f ms, %d runs", percentile(ms, 0.9), len(ms)))
	add(what+", renderer CPU", cpu, "ms", "per operation, all the renderer's threads")
}

// timed runs a step and reads the renderer's CPU time around it: the
// step's operations divided among its timed runs.
func timed(ctx context.Context, expr string) (timedStep, float64, error) {
	before, err := processTime(ctx)
	if err != nil {
		return timedStep{}, 0, err
	}
	s, err := call[timedStep](ctx, expr)
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
func call[T any](ctx context.Context, expr string) (T, error) {
	v, err := chromedp.Run(ctx, chromedp.Evaluate[T](expr, chromedp.EvalAwaitPromise))
	if err != nil {
		return v, fmt.Errorf("%s: %w", expr, err)
	}
	return v, nil
}

func median(xs []float64) float64 { return percentile(xs, 0.5) }

// percentile is the nearest-rank percentile of xs (NaN when empty).
func percentile(xs []float64, p float64) float64 {
	if len(xs) == 0 {
		return math.NaN()
	}
	s := slices.Clone(xs)
	slices.Sort(s)
	if p == 0.5 && len(s)%2 == 0 {
		return (s[len(s)/2-1] + s[len(s)/2]) / 2
	}
	i := int(math.Ceil(p*float64(len(s)))) - 1
	return s[max(0, min(i, len(s)-1))]
}
