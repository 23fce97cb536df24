// Command lock-bench measures what the web client's app lock costs
// (ADR 0113; docs/performance.md, "App lock"), in headless Chromium,
// through the client's own store.js on a history written into its
// IndexedDB: reading every chat and a write with the lock off and on,
// turning the lock on (the passphrase's key, then sealing every row in
// the store's steps) and off; and, measured apart in the same tab, scrypt
// alone and one message row sealed and opened by lockcrypto.js.
//
// It serves the client's files and a page of its own on a loopback port,
// starts Chromium with a throw-away profile, prints a table and writes
// JSON. It needs no relay and no database. `make bench` runs it; its test
// (make test) runs it on a small history, so that the page cannot fall
// behind the store unnoticed.
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

	"github.com/chromedp/chromedp"

	"relay/internal/benchpage"
)

//go:embed page
var pageFiles embed.FS

// config is the history locked and how often each step runs.
type config struct {
	messages int
	chats    int
	writes   int // store.setVerified calls timed, lock off and on
	runs     int // reads of every chat, and scrypt alone
}

type result = benchpage.Result

func main() {
	cfg := config{}
	flag.IntVar(&cfg.messages, "messages", 20000, "messages in the history locked")
	flag.IntVar(&cfg.chats, "chats", 50, "chats they are spread over")
	flag.IntVar(&cfg.writes, "writes", 200, "writes timed with the lock off and on")
	flag.IntVar(&cfg.runs, "runs", 3, "times every chat is read, and scrypt run alone")
	out := flag.String("json", ".artifacts/lock-bench.json", "where to write the results as JSON")
	flag.Parse()
	if cfg.messages < 100 || cfg.chats < 1 || cfg.chats > cfg.messages || cfg.writes < 1 || cfg.runs < 1 {
		fmt.Fprintln(os.Stderr, "lock-bench: at least 100 messages, 1 chat (no more than messages), 1 write and 1 run")
		os.Exit(2)
	}
	if err := run(cfg, *out); err != nil {
		fmt.Fprintln(os.Stderr, "lock-bench:", err)
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
		fmt.Printf("%-56s  %10.2f  %-6s  %s\n", r.Metric, r.Value, r.Unit, r.Note)
	}
	return benchpage.WriteJSON(out, map[string]any{
		"date": time.Now().UTC().Format(time.RFC3339), "cpus": runtime.NumCPU(), "seconds": time.Since(started).Seconds(),
		"messages": cfg.messages, "chats": cfg.chats, "writes": cfg.writes, "runs": cfg.runs, "results": results,
	})
}

// conversion is what the page reports of turning the lock on or off: the
// whole, the passphrase's key within it, and the rows as stored after.
type conversion struct {
	MS, KeyMS    float64
	Rows, Sealed int
	State        string
}

// readAll reads every chat through the store runs times, and checks that
// every message came back each time.
func readAll(ctx context.Context, cfg config) ([]float64, error) {
	var ms []float64
	for range cfg.runs {
		r, err := benchpage.Call[struct {
			MS   float64
			Rows int
		}](ctx, fmt.Sprintf(`B.readChats(%d)`, cfg.chats))
		if err != nil {
			return nil, err
		}
		if r.Rows != cfg.messages {
			return nil, fmt.Errorf("read %d messages of %d", r.Rows, cfg.messages)
		}
		ms = append(ms, r.MS)
	}
	return ms, nil
}

func measure(ctx context.Context, base string, cfg config) ([]result, error) {
	var out []result
	add := func(metric string, v float64, unit, note string) {
		out = append(out, result{Scenario: "lock", Metric: metric, Value: v, Unit: unit, Note: note})
	}
	med, p90 := benchpage.Median, func(xs []float64) float64 { return benchpage.Percentile(xs, 0.9) }
	if err := chromedp.Do(ctx, chromedp.Navigate(base+"/bench/index.html")); err != nil {
		return nil, err
	}
	if _, err := benchpage.Call[bool](ctx, `(async () => { window.B = await import('/bench/lockcost.js'); return true; })()`); err != nil {
		return nil, fmt.Errorf("loading the page's module: %w", err)
	}
	filled, err := benchpage.Call[struct {
		Rows  int
		Chars float64
	}](ctx, fmt.Sprintf(`B.fill(%d, %d)`, cfg.messages, cfg.chats))
	if err != nil {
		return nil, err
	}
	add("history", float64(cfg.messages), "msgs", fmt.Sprintf("over %d chats, %.0f characters a text on average; %d rows in all", cfg.chats, filled.Chars, filled.Rows))

	readsOff, err := readAll(ctx, cfg)
	if err != nil {
		return nil, err
	}
	writesOff, err := benchpage.Call[[]float64](ctx, fmt.Sprintf(`B.writes(%d, %d)`, cfg.chats, cfg.writes))
	if err != nil {
		return nil, err
	}
	rc, err := benchpage.Call[struct {
		Seal, Open []float64
		Rows       int
		Bytes      float64
	}](ctx, fmt.Sprintf(`B.rowCrypto(%d, %d)`, cfg.chats, min(2000, cfg.messages)))
	if err != nil {
		return nil, err
	}

	on, err := benchpage.Call[conversion](ctx, `B.enable()`)
	if err != nil {
		return nil, err
	}
	if on.State != "unlocked" || on.Rows != filled.Rows || on.Sealed != on.Rows {
		return nil, fmt.Errorf("after enableLock: %s, %d rows of %d sealed (%d before)", on.State, on.Sealed, on.Rows, filled.Rows)
	}
	readsOn, err := readAll(ctx, cfg)
	if err != nil {
		return nil, err
	}
	writesOn, err := benchpage.Call[[]float64](ctx, fmt.Sprintf(`B.writes(%d, %d)`, cfg.chats, cfg.writes))
	if err != nil {
		return nil, err
	}
	off, err := benchpage.Call[conversion](ctx, `B.disable()`)
	if err != nil {
		return nil, err
	}
	if off.State != "off" || off.Rows != filled.Rows || off.Sealed != 0 {
		return nil, fmt.Errorf("after disableLock: %s, %d rows of %d still sealed", off.State, off.Sealed, off.Rows)
	}
	scrypt, err := benchpage.Call[[]float64](ctx, fmt.Sprintf(`B.scrypt(%d)`, cfg.runs))
	if err != nil {
		return nil, err
	}

	runs := fmt.Sprintf("%d runs", cfg.runs)
	add("reading every chat, lock off, median", med(readsOff), "ms", runs+"; store.getMessages of each chat")
	add("reading every chat, lock on, median", med(readsOn), "ms", fmt.Sprintf("%s; %.2f× the lock off", runs, med(readsOn)/med(readsOff)))
	sealMS := on.MS - on.KeyMS
	add("turning the lock on", on.MS, "ms", fmt.Sprintf("enableLock: the key %.0f ms, then %d rows sealed in %.0f ms", on.KeyMS, on.Rows, sealMS))
	add("turning the lock on: the passphrase's key", on.KeyMS, "ms", "until scrypt's last progress")
	add("turning the lock on: sealing the rows", sealMS, "ms", "the rest, in steps of 200 rows")
	add("rows sealed a second", float64(on.Rows)/(sealMS/1000), "rows/s", "the rows over the sealing part")
	add("turning the lock off", off.MS, "ms", fmt.Sprintf("disableLock: the key %.0f ms, then %d rows opened in %.0f ms", off.KeyMS, off.Rows, off.MS-off.KeyMS))
	note := func(xs []float64) string { return fmt.Sprintf("p90 %.2f ms, %d writes", p90(xs), len(xs)) }
	add("a write (store.setVerified), lock off, median", med(writesOff), "ms", note(writesOff))
	add("a write (store.setVerified), lock on, median", med(writesOn), "ms", fmt.Sprintf("%s; %.2f× the lock off", note(writesOn), med(writesOn)/med(writesOff)))
	rows := fmt.Sprintf("%d rows in batches of 100, %.0f bytes a row packed", rc.Rows, rc.Bytes)
	add("a message row sealed (lockcrypto.sealRow), median", med(rc.Seal), "µs", rows)
	add("a message row opened (lockcrypto.openRow), median", med(rc.Open), "µs", rows)
	add("scrypt alone (lockcrypto.passphraseKey), median", med(scrypt), "ms", fmt.Sprintf("%s; N=2^17, r=8, p=1", runs))
	return out, nil
}
