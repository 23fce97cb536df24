package webclient_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"

	"relay/webclient"
)

// workerControls is a condition: the service worker controls the page.
// Chromium checks installability only once the page is loaded; waiting
// for the worker, which the page registers at start, waits for that too.
const workerControls = `navigator.serviceWorker.controller !== null`

// appManifest is the manifest Chromium found for the tab's page, as it
// parsed it.
func appManifest(tb *tab) page.GetAppManifestResult {
	tb.t.Helper()
	res, err := chromedp.Call(tb.ctx, page.GetAppManifest, page.GetAppManifestParams{})
	if err != nil {
		tb.t.Fatalf("Page.getAppManifest: %v", err)
	}
	return res
}

// installabilityErrors are the reasons Chromium gives for not offering
// to install the tab's page, as "id(name=value, ...)".
func installabilityErrors(tb *tab) []string {
	tb.t.Helper()
	res, err := chromedp.Call(tb.ctx, page.GetInstallabilityErrors, struct{}{})
	if err != nil {
		tb.t.Fatalf("Page.getInstallabilityErrors: %v", err)
	}
	var out []string
	for _, e := range res.InstallabilityErrors {
		var args []string
		for _, a := range e.ErrorArguments {
			args = append(args, a.Name+"="+a.Value)
		}
		out = append(out, e.ErrorID+"("+strings.Join(args, ", ")+")")
	}
	return out
}

// withoutManifestLink is the client with index.html's link to the
// manifest taken out; the manifest itself is still served.
func withoutManifestLink(t *testing.T) http.Handler {
	t.Helper()
	link := []byte(`<link rel="manifest" href="/manifest.webmanifest">` + "\n")
	h, _ := changedClient(t, "index.html", func(b []byte) []byte {
		if !bytes.Contains(b, link) {
			t.Fatalf("index.html does not hold %q", link)
		}
		return bytes.Replace(b, link, nil, 1)
	})
	return h
}

// withoutManifestSrc is the client served with manifest-src taken out of
// its Content-Security-Policy, so that default-src 'none' governs the
// manifest.
func withoutManifestSrc(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h.ServeHTTP(&cspRewriter{ResponseWriter: w}, r)
	})
}

// cspRewriter takes manifest-src out of the CSP as the headers go out.
type cspRewriter struct {
	http.ResponseWriter
	wrote bool // the headers went out
}

func (w *cspRewriter) WriteHeader(code int) {
	if !w.wrote {
		w.wrote = true
		h := w.Header()
		h.Set("Content-Security-Policy", strings.Replace(h.Get("Content-Security-Policy"), "manifest-src 'self'; ", "", 1))
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *cspRewriter) Write(b []byte) (int, error) {
	if !w.wrote {
		w.WriteHeader(http.StatusOK)
	}
	return w.ResponseWriter.Write(b)
}

// rgba is a colour "#rrggbb" as the protocol writes it.
func rgba(t *testing.T, hex string) string {
	t.Helper()
	var r, g, b uint8
	if _, err := fmt.Sscanf(hex, "#%02x%02x%02x", &r, &g, &b); err != nil {
		t.Fatalf("colour %q: %v", hex, err)
	}
	return fmt.Sprintf("rgba(%d,%d,%d,1)", r, g, b)
}

// TestInstallable: Chromium finds the client's web app manifest, parses
// it without an error into what ADR 0111 says it holds, and has no
// reason not to offer to install the app once the page is loaded and its
// service worker controls it; the manifest's start_url, opened in a tab
// of the logged-in profile, shows the chat list. The controls, each in a
// fresh profile of the same relay: the page without its link to the
// manifest, and the page whose CSP lacks manifest-src, are reported not
// installable.
func TestInstallable(t *testing.T) {
	var served atomic.Pointer[http.Handler]
	r := startWrapped(t, clientFrom(&served))
	p, tb := r.newProfile(t)
	tb.register("alice")
	tb.waitFor("the service worker in control", workerControls)

	res := appManifest(tb)
	if res.URL != r.URL+"/manifest.webmanifest" || len(res.Errors) > 0 || res.Manifest == nil {
		t.Fatalf("Chromium's manifest: %q, errors %+v, parsed: %v", res.URL, res.Errors, res.Manifest != nil)
	}
	// Chromium names the display mode by its own enum ("kStandalone").
	m := res.Manifest
	if m.ID != r.URL+"/" || m.Name != "relay" || m.Description == "" || m.StartURL != r.URL+"/#/chats" ||
		m.Scope != r.URL+"/" || !strings.EqualFold(strings.TrimPrefix(m.Display, "k"), "standalone") {
		t.Fatalf("Chromium parsed the manifest as %+v", *m)
	}
	// What the protocol leaves out of its parsed manifest (short_name,
	// the icons' purposes), from the manifest as Chromium read it; the
	// colours as Chromium parsed them.
	var read struct {
		ShortName       string `json:"short_name"`
		ThemeColor      string `json:"theme_color"`
		BackgroundColor string `json:"background_color"`
		Icons           []struct{ Src, Purpose string }
	}
	if err := json.Unmarshal([]byte(res.Data), &read); err != nil || read.ShortName == "" {
		t.Fatalf("the manifest Chromium read: %v, %q", err, res.Data)
	}
	if m.ThemeColor != rgba(t, read.ThemeColor) || m.BackgroundColor != rgba(t, read.BackgroundColor) {
		t.Fatalf("Chromium's colours: theme %s, background %s; the manifest's %s and %s", m.ThemeColor, m.BackgroundColor, read.ThemeColor, read.BackgroundColor)
	}
	var purposes []string
	for _, ic := range read.Icons {
		purposes = append(purposes, ic.Purpose)
	}
	if want := []string{"any", "any", "maskable"}; !slices.Equal(purposes, want) {
		t.Fatalf("the icons' purposes %q, want %q", purposes, want)
	}
	var icons []string
	for _, ic := range m.Icons {
		icons = append(icons, strings.TrimPrefix(ic.URL, r.URL)+" "+ic.Sizes+" "+ic.Type)
	}
	if want := []string{"/icons/icon-192.png 192x192 image/png", "/icons/icon-512.png 512x512 image/png", "/icons/icon-maskable-512.png 512x512 image/png"}; !slices.Equal(icons, want) {
		t.Fatalf("Chromium's icons %q, want %q", icons, want)
	}
	if errs := installabilityErrors(tb); len(errs) > 0 {
		t.Fatalf("Chromium would not install the app: %q", errs)
	}

	// Launched from the home screen or the app list: the start_url, in
	// a tab of its own.
	ctx, _ := p.NewTab(t)
	st := &tab{t: t, ctx: ctx}
	st.do(chromedp.Navigate(m.StartURL))
	st.waitFor("the chat list at the start URL", `location.hash === '#/chats' && document.getElementById('new-chat-username') && document.getElementById('conn-bar').hidden`)
	st.screenshot("start-url")

	for _, c := range []struct {
		name    string
		handler http.Handler
		want    string // the error Chromium names
	}{
		{"without the manifest link", withoutManifestLink(t), "no-manifest("},
		{"without manifest-src", withoutManifestSrc(webclient.Handler()), "manifest-parsing-or-network-error("},
	} {
		served.Store(&c.handler)
		_, ct := r.newProfile(t)
		ct.waitFor("the first screen, "+c.name, `document.getElementById('auth-username')`)
		ct.waitFor("the service worker in control, "+c.name, workerControls)
		errs := installabilityErrors(ct)
		t.Logf("%s: %q", c.name, errs)
		if !slices.ContainsFunc(errs, func(e string) bool { return strings.HasPrefix(e, c.want) }) {
			t.Fatalf("the control %s: Chromium reports %q, want %s...)", c.name, errs, c.want)
		}
	}
}
