// Command search-bench measures the web client's search of messages
// (docs/performance.md, "Search"), in headless Chromium, through the
// client's own search.js on a history written into its IndexedDB: the
// index built at the first search, each query, a search just after a
// chat changed, and the heap the index takes; beside them, measured in
// the same tab, reading the same rows from IndexedDB alone and a bare
// loop over the same texts.
//
// It serves the client's files and a page of its own on a loopback port,
// starts Chromium with a throw-away profile, prints a table and writes
// JSON. It needs no relay and no database. `make bench` runs it; its test
// (make test) runs it on a small history, so that the page cannot fall
// behind search.js unnoticed.
package main

import (
	"context"
	"embed"
	"flag"
	"fmt"
	"io/fs"
	"net/http"
	"os"
	"runtime"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/heapprofiler"
	cdpruntime "github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"

	"relay/internal/benchpage"
)

//go:embed page
var pageFiles embed.FS

// config is the history searched and how often each query runs.
type config struct {
	messages int
	chats    int
	needles  int // messages holding the rare word
	runs     int
}

type result = benchpage.Result

func main() {
	cfg := config{}
	flag.IntVar(&cfg.messages, "messages", 100000, "messages in the history searched")
	flag.IntVar(&cfg.chats, "chats", 100, "chats they are spread over")
	flag.IntVar(&cfg.needles, "needles", 10, "messages holding the rare word")
	flag.IntVar(&cfg.runs, "runs", 20, "times each query is timed")
	out := flag.String("json", ".artifacts/search-bench.json", "where to write the results as JSON")
	flag.Parse()
	if cfg.messages < 1000 || cfg.chats < 1 || cfg.needles < 1 || cfg.runs < 3 || cfg.needles > cfg.messages {
		fmt.Fprintln(os.Stderr, "search-bench: at least 1000 messages, 1 chat, 1 needle and 3 runs")
		os.Exit(2)
	}
	if err := run(cfg, *out); err != nil {
		fmt.Fprintln(os.Stderr, "search-bench:", err)
		os.Exit(1)
	}
}

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

func run(cfg config, out string) error {
	started := time.Now()
	var results []result
	err := benchpage.Run(page(), 20*time.Minute, func(ctx context.Context, base string) (err error) {
		results, err = measure(ctx, base, cfg)
		return err
	})
	if err != nil {
		return err
	}
	fmt.Printf("%-56s  %10s  %s\n", "metric", "value", "unit")
	for _, r := range results {
		fmt.Printf("%-56s  %10.2f  %-5s  %s\n", r.Metric, r.Value, r.Unit, r.Note)
	}
	return benchpage.WriteJSON(out, map[string]any{
		"date": time.Now().UTC().Format(time.RFC3339), "cpus": runtime.NumCPU(), "seconds": time.Since(started).Seconds(),
		"messages": cfg.messages, "chats": cfg.chats, "needles": cfg.needles, "runs": cfg.runs, "results": results,
	})
}

// heap is the renderer's JavaScript heap in use after a full collection.
func heap(ctx context.Context) (float64, error) {
	if _, err := chromedp.Call(ctx, heapprofiler.CollectGarbage, cdp.Empty{}); err != nil {
		return 0, err
	}
	used, err := chromedp.Call(ctx, cdpruntime.GetHeapUsage, cdp.Empty{})
	if err != nil {
		return 0, err
	}
	return used.UsedSize, nil
}

// The queries timed: a word in needles messages, a word in about a
// quarter of them, two words together, a word in none, and one letter, in
// nearly every message (the most results to order).
var queries = []struct{ name, q string }{
	{"a rare word", "ZURICH"},
	{"a common word", "tomorrow"},
	{"two words", "tomorrow thanks"},
	{"no match", "xylophone"},
	{"one letter", "e"},
}

func measure(ctx context.Context, base string, cfg config) ([]result, error) {
	var out []result
	add := func(metric string, v float64, unit, note string) {
		out = append(out, result{Scenario: "search", Metric: metric, Value: v, Unit: unit, Note: note})
	}
	if err := chromedp.Do(ctx, chromedp.Navigate(base+"/bench/index.html")); err != nil {
		return nil, err
	}
	if _, err := benchpage.Call[bool](ctx, `(async () => { window.B = await import('/bench/searchcost.js'); return true; })()`); err != nil {
		return nil, fmt.Errorf("loading the page's module: %w", err)
	}
	filled, err := benchpage.Call[struct{ Chars float64 }](ctx, fmt.Sprintf(`B.fill(%d, %d, %d)`, cfg.messages, cfg.chats, cfg.needles))
	if err != nil {
		return nil, err
	}
	add("history", float64(cfg.messages), "msgs", fmt.Sprintf("over %d chats, %.0f characters a text on average", cfg.chats, filled.Chars))

	var reads, builds []float64
	for range 3 {
		r, err := benchpage.Call[struct {
			MS   float64
			Rows int
		}](ctx, `B.readAll()`)
		if err != nil {
			return nil, err
		}
		if r.Rows != cfg.messages {
			return nil, fmt.Errorf("read %d rows of %d", r.Rows, cfg.messages)
		}
		reads = append(reads, r.MS)
	}
	before, err := heap(ctx)
	if err != nil {
		return nil, err
	}
	for range 3 {
		ms, err := benchpage.Call[float64](ctx, `B.build()`)
		if err != nil {
			return nil, err
		}
		builds = append(builds, ms)
	}
	after, err := heap(ctx)
	if err != nil {
		return nil, err
	}
	add("reference: reading every row from IndexedDB, median", benchpage.Median(reads), "ms", "3 runs, pieces of 5,000 rows")
	add("first search: building the index, median", benchpage.Median(builds), "ms", fmt.Sprintf("3 runs; %.2f× the reference", benchpage.Median(builds)/benchpage.Median(reads)))
	add("the index in the heap", (after-before)/float64(cfg.messages), "B", "per message, after a collection")

	for _, q := range queries {
		r, err := benchpage.Call[struct {
			MS    []float64
			Total int
		}](ctx, fmt.Sprintf(`B.query(%q, %d)`, q.q, cfg.runs))
		if err != nil {
			return nil, err
		}
		add(fmt.Sprintf("query, %s, median", q.name), benchpage.Median(r.MS), "ms", fmt.Sprintf("p90 %.2f ms, %d runs, %d found", benchpage.Percentile(r.MS, 0.9), len(r.MS), r.Total))
		if q.name == "a rare word" {
			if r.Total != cfg.needles {
				return nil, fmt.Errorf("the rare word was found in %d messages, not %d", r.Total, cfg.needles)
			}
			ref, err := benchpage.Call[struct {
				MS    []float64
				Total int
			}](ctx, fmt.Sprintf(`B.reference(%q, %d)`, q.q, cfg.runs))
			if err != nil {
				return nil, err
			}
			if ref.Total != r.Total {
				return nil, fmt.Errorf("the reference found %d, search.js %d", ref.Total, r.Total)
			}
			add("reference: a bare loop over the same texts, median", benchpage.Median(ref.MS), "ms", fmt.Sprintf("the rare word; search.js takes %.2f× it", benchpage.Median(r.MS)/benchpage.Median(ref.MS)))
		}
	}
	ms, err := benchpage.Call[[]float64](ctx, fmt.Sprintf(`B.changed(%d)`, min(cfg.runs, cfg.chats)))
	if err != nil {
		return nil, err
	}
	add("query just after a chat changed, median", benchpage.Median(ms), "ms", fmt.Sprintf("p90 %.2f ms; the chat's %d messages read again first", benchpage.Percentile(ms, 0.9), cfg.messages/cfg.chats))
	return out, nil
}
