// Command mls-bench measures what MLS costs the web client, in headless
// Chromium, through the client's own mls.js (docs/performance.md, "MLS in
// the browser"): the size of key packages, of the commits and welcomes
// that add devices to groups of 2, 4 and 10, of each record's body once
// MLS seals it, and of a saved group; and the time and the renderer's CPU
// per message sealed and opened and per commit made and processed.
//
// It serves the client's files and a page of its own on a loopback port,
// starts Chromium with a throw-away profile, prints a table and writes
// JSON. It needs no relay and no database. `make bench` runs it after
// relay-bench; its test (make test) runs every step with a few
// operations, so that the page cannot fall behind mls.js unnoticed.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"runtime"
	"time"

	"relay/internal/benchpage"
)

func main() {
	cfg := config{}
	flag.IntVar(&cfg.messages, "messages", 1000, "application messages sealed and opened per case")
	flag.IntVar(&cfg.large, "large", 100, "messages of the largest bucket sealed and opened")
	flag.IntVar(&cfg.commits, "commits", 100, "leaf updates committed and processed per group")
	flag.IntVar(&cfg.warmup, "warmup", 20, "operations of each kind run first and not counted")
	flag.IntVar(&cfg.bodies, "bodies", 16, "times each record is sealed for its body's size (it varies with the signature's length)")
	flag.IntVar(&cfg.scaleUpdates, "scale-updates", 8, "leaf updates the creator of a group of 30 and of 100 commits before its state is measured")
	out := flag.String("json", ".artifacts/mls-bench.json", "where to write the results as JSON")
	flag.Parse()
	if cfg.messages < 1 || cfg.large < 1 || cfg.commits < 1 || cfg.warmup < 1 || cfg.bodies < 1 || cfg.scaleUpdates < 1 {
		fmt.Fprintln(os.Stderr, "mls-bench: every count must be at least 1")
		os.Exit(2)
	}
	if err := run(cfg, *out); err != nil {
		fmt.Fprintln(os.Stderr, "mls-bench:", err)
		os.Exit(1)
	}
}

func run(cfg config, out string) error {
	started := time.Now()
	var env map[string]any
	var results []result
	// A bound on the whole run, so that a page that hangs ends the bench;
	// the default counts take a few minutes on two loaded cores.
	err := benchpage.Run(page(), 30*time.Minute, func(ctx context.Context, base string) (err error) {
		env, results, err = measure(ctx, base, cfg)
		return err
	})
	if err != nil {
		return err
	}
	fmt.Printf("%-72s  %10s  %s\n", "metric", "value", "unit")
	for _, r := range results {
		fmt.Printf("%-72s  %10.2f  %-2s  %s\n", r.Metric, r.Value, r.Unit, r.Note)
	}
	env["date"] = time.Now().UTC().Format(time.RFC3339)
	env["cpus"] = runtime.NumCPU()
	env["seconds"] = time.Since(started).Seconds()
	env["messages"], env["large"], env["commits"], env["warmup"], env["bodies"], env["scale_updates"] = cfg.messages, cfg.large, cfg.commits, cfg.warmup, cfg.bodies, cfg.scaleUpdates
	env["results"] = results
	fmt.Printf("(browser %v, cross-origin isolated %v)\n", env["browser"], env["cross_origin_isolated"])
	return benchpage.WriteJSON(out, env)
}
