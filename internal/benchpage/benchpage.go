// Package benchpage is what the benchmarks of the web client in headless
// Chromium share (cmd/mls-bench, cmd/search-bench, cmd/lock-bench): the
// client's files and a bench's own page served on a loopback port, a
// throw-away browser profile with one tab, calls into the page, the
// statistics and the JSON they write.
package benchpage

import (
	"context"
	"embed"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"math"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/chromedp/chromedp"

	"relay/internal/browser"
	"relay/webclient"
)

// Result is one line of a bench's table; the same shape as relay-bench's.
type Result struct {
	Scenario string  `json:"scenario"`
	Metric   string  `json:"metric"`
	Value    float64 `json:"value"`
	Unit     string  `json:"unit"`
	Note     string  `json:"note,omitempty"`
}

//go:embed lib
var libFiles embed.FS

// Handler serves the web client as the relay does, page under /bench/,
// and what the pages share (lib/: the made-up texts of a history) under
// /bench/lib/. The page is cross-origin isolated (COOP and COEP), which gives
// it Chromium's fine clock (5 µs instead of 100 µs), and keeps the
// client's Content-Security-Policy.
func Handler(page fs.FS) http.Handler {
	files := http.StripPrefix("/bench/", http.FileServerFS(page))
	lib, err := fs.Sub(libFiles, "lib")
	if err != nil {
		panic(err) // the embedded folder is there at build time
	}
	shared := http.StripPrefix("/bench/lib/", http.FileServerFS(lib))
	mux := http.NewServeMux()
	mux.Handle("/bench/", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h := w.Header()
		h.Set("Content-Security-Policy", webclient.CSP)
		h.Set("Cross-Origin-Opener-Policy", "same-origin")
		h.Set("Cross-Origin-Embedder-Policy", "require-corp")
		h.Set("Cache-Control", "no-store")
		if strings.HasPrefix(r.URL.Path, "/bench/lib/") {
			shared.ServeHTTP(w, r)
			return
		}
		files.ServeHTTP(w, r)
	}))
	mux.Handle("/", webclient.Handler())
	return mux
}

// Run serves page on a loopback port, starts Chromium with a throw-away
// profile, and calls measure with its tab (bounded by timeout) and the
// address the page is served from.
func Run(page fs.FS, timeout time.Duration, measure func(ctx context.Context, base string) error) error {
	path, err := browser.Find()
	if err != nil {
		return err
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return err
	}
	// Loopback, one client: no timeouts needed beyond the header's.
	srv := &http.Server{Handler: Handler(page), ReadHeaderTimeout: 10 * time.Second}
	served := make(chan error, 1)
	go func() { served <- srv.Serve(ln) }()
	defer func() {
		_ = srv.Close()
		if err := <-served; !errors.Is(err, http.ErrServerClosed) {
			fmt.Fprintln(os.Stderr, "serving the page:", err)
		}
	}()
	dir, err := os.MkdirTemp("", "bench-profile-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	p, err := browser.Start(path, dir)
	if err != nil {
		return err
	}
	defer p.Close()
	// A bound on the whole run, so that a page that hangs ends the bench.
	ctx, cancel := context.WithTimeout(p.Ctx, timeout)
	defer cancel()
	return measure(ctx, "http://"+ln.Addr().String())
}

// Call evaluates expr in the tab, awaiting a promise, and decodes its
// JSON result into T.
func Call[T any](ctx context.Context, expr string) (T, error) {
	v, err := chromedp.Run(ctx, chromedp.Evaluate[T](expr, chromedp.EvalAwaitPromise))
	if err != nil {
		return v, fmt.Errorf("%s: %w", expr, err)
	}
	return v, nil
}

// Median is the median of xs (NaN when empty).
func Median(xs []float64) float64 { return Percentile(xs, 0.5) }

// Percentile is the nearest-rank percentile of xs (NaN when empty); the
// median of an even count is the mean of the middle two.
func Percentile(xs []float64, p float64) float64 {
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

// WriteJSON writes v as indented JSON to path, making its folder.
func WriteJSON(path string, v any) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	data, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	if err := os.WriteFile(path, append(data, '\n'), 0o644); err != nil {
		return err
	}
	fmt.Printf("(JSON in %s)\n", path)
	return nil
}
