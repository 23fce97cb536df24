// Package browser starts headless Chromium for the web client's tests, one
// fresh profile per call, so that separate profiles are separate devices.
//
// A missing browser fails the test with a clear message; it never skips.
// `make test` installs Debian's chromium package when it is missing.
package browser

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"testing"

	"github.com/chromedp/chromedp"
)

// Path returns the Chromium binary: $CHROMIUM, or chromium on the PATH.
func Path(t testing.TB) string {
	t.Helper()
	p, err := Find()
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// Find is [Path] for a program: the Chromium binary, or an error that
// says how to install it.
func Find() (string, error) {
	if p := os.Getenv("CHROMIUM"); p != "" {
		return p, nil
	}
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			return p, nil
		}
	}
	return "", errors.New("browser: Chromium is not installed; run `make test` (it installs Debian's chromium package) or set CHROMIUM")
}

// Profile is one browser with its own profile directory.
type Profile struct {
	Ctx    context.Context // the first tab
	cancel context.CancelFunc
	alloc  context.Context
}

// New starts a browser with a fresh profile, closed when the test ends.
func New(t testing.TB) *Profile {
	t.Helper()
	p, err := Start(Path(t), t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(p.cancel)
	return p
}

// Start is [New] for a program: a browser at path with its profile in
// dir, which the caller removes after [Profile.Close].
func Start(path, dir string) (*Profile, error) {
	opts := []chromedp.ExecAllocatorOption{
		chromedp.ExecPath(path),
		chromedp.UserDataDir(dir),
		chromedp.Headless,
		chromedp.NoSandbox, // the tests run as root
		chromedp.DisableGPU,
		chromedp.NoFirstRun,
		chromedp.NoDefaultBrowserCheck,
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.Flag("disable-quic", true),
		chromedp.Flag("disable-dev-shm-usage", true),
		// A fake microphone and camera, granted without asking: voice
		// messages are recorded from a test tone.
		chromedp.Flag("use-fake-device-for-media-stream", true),
		chromedp.Flag("use-fake-ui-for-media-stream", true),
		chromedp.WindowSize(1100, 800),
	}
	alloc, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancel := chromedp.NewContext(alloc)
	// The first action starts the browser; no timeout on it, because a
	// timeout on the first call would stop the whole browser later.
	if err := chromedp.Do(ctx); err != nil {
		cancel()
		cancelAlloc()
		return nil, fmt.Errorf("browser: starting Chromium: %w", err)
	}
	return &Profile{Ctx: ctx, cancel: func() { cancel(); cancelAlloc() }, alloc: alloc}, nil
}

// NewTab opens another tab of the same profile. Calling close closes the
// tab, as a person closing it would.
func (p *Profile) NewTab(t testing.TB) (ctx context.Context, close func()) {
	t.Helper()
	ctx, cancel := chromedp.NewContext(p.Ctx)
	t.Cleanup(cancel)
	if err := chromedp.Do(ctx); err != nil {
		t.Fatalf("browser: new tab: %v", err)
	}
	return ctx, cancel
}

// Close ends the browser now.
func (p *Profile) Close() { p.cancel() }
