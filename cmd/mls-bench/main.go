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
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"runtime"
	"time"

	"relay/internal/browser"
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
	path, err := browser.Find()
	if err != nil {
		return err
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return err
	}
	// Loopback, one client: no timeouts needed beyond the header's.
	srv := &http.Server{Handler: handler(), ReadHeaderTimeout: 10 * time.Second}
	served := make(chan error, 1)
	go func() { served <- srv.Serve(ln) }()
	defer func() {
		_ = srv.Close()
		if err := <-served; !errors.Is(err, http.ErrServerClosed) {
			fmt.Fprintln(os.Stderr, "mls-bench: serving the page:", err)
		}
	}()

	dir, err := os.MkdirTemp("", "mls-bench-profile-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	p, err := browser.Start(path, dir)
	if err != nil {
		return err
	}
	defer p.Close()
	// A bound on the whole run, so that a page that hangs ends the bench;
	// the default counts take a few minutes on two loaded cores.
	ctx, cancel := context.WithTimeout(p.Ctx, 30*time.Minute)
	defer cancel()

	started := time.Now()
	env, results, err := measure(ctx, "http://"+ln.Addr().String(), cfg)
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
	if err := os.MkdirAll(filepath.Dir(out), 0o755); err != nil {
		return err
	}
	data, err := json.MarshalIndent(env, "", "  ")
	if err != nil {
		return err
	}
	if err := os.WriteFile(out, append(data, '\n'), 0o644); err != nil {
		return err
	}
	fmt.Printf("(JSON in %s)\n", out)
	return nil
}
