package webclient

import (
	"bytes"
	"encoding/json"
	"fmt"
	"image/png"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// webManifest is what the client's manifest must hold (ADR 0111).
type webManifest struct {
	ID              string `json:"id"`
	Name            string `json:"name"`
	ShortName       string `json:"short_name"`
	Description     string `json:"description"`
	StartURL        string `json:"start_url"`
	Scope           string `json:"scope"`
	Display         string `json:"display"`
	ThemeColor      string `json:"theme_color"`
	BackgroundColor string `json:"background_color"`
	Icons           []struct {
		Src, Sizes, Type, Purpose string
	} `json:"icons"`
}

// get asks the client's handler for urlPath.
func get(t *testing.T, urlPath string) *httptest.ResponseRecorder {
	t.Helper()
	w := httptest.NewRecorder()
	Handler().ServeHTTP(w, httptest.NewRequest(http.MethodGet, urlPath, nil))
	return w
}

// cssColour is the value of a custom property of app.css's :root.
func cssColour(t *testing.T, name string) string {
	t.Helper()
	css, err := fs.ReadFile(static, "app.css")
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`(?:^|[\s;{])` + regexp.QuoteMeta(name) + `:\s*(#[0-9a-fA-F]{6})\b`).FindSubmatch(css)
	if m == nil {
		t.Fatalf("app.css has no colour %s", name)
	}
	return strings.ToLower(string(m[1]))
}

// checkPNG asserts that urlPath is served as a PNG of size×size.
func checkPNG(t *testing.T, urlPath string, size int) {
	t.Helper()
	w := get(t, urlPath)
	if w.Code != http.StatusOK || w.Header().Get("Content-Type") != "image/png" {
		t.Fatalf("GET %s: %d %q", urlPath, w.Code, w.Header().Get("Content-Type"))
	}
	cfg, err := png.DecodeConfig(bytes.NewReader(w.Body.Bytes()))
	if err != nil || cfg.Width != size || cfg.Height != size {
		t.Fatalf("%s: %dx%d (%v), want %dx%d", urlPath, cfg.Width, cfg.Height, err, size, size)
	}
}

// TestManifest: the web app manifest is served as
// application/manifest+json under the page's CSP, holds what installing
// the app needs, in the colours of app.css, and names icons that are
// served at the sizes it says; the page links it, its theme colour and
// the icons browsers look for in the page; the service worker's shell
// caches them all.
func TestManifest(t *testing.T) {
	w := get(t, "/manifest.webmanifest")
	if w.Code != http.StatusOK || w.Header().Get("Content-Type") != "application/manifest+json" || w.Header().Get("Content-Security-Policy") != CSP {
		t.Fatalf("GET /manifest.webmanifest: %d, %q, CSP %q", w.Code, w.Header().Get("Content-Type"), w.Header().Get("Content-Security-Policy"))
	}
	var m webManifest
	dec := json.NewDecoder(bytes.NewReader(w.Body.Bytes()))
	if err := dec.Decode(&m); err != nil {
		t.Fatal(err)
	}
	if m.ID != "/" || m.Name != "relay" || m.ShortName == "" || len(m.ShortName) > 12 || m.Description == "" ||
		m.StartURL != "/#/chats" || m.Scope != "/" || m.Display != "standalone" {
		t.Fatalf("manifest %+v", m)
	}
	if accent := cssColour(t, "--accent"); m.ThemeColor != accent {
		t.Errorf("theme_color %s, want app.css's --accent %s", m.ThemeColor, accent)
	}
	if bg := cssColour(t, "--bg"); m.BackgroundColor != bg {
		t.Errorf("background_color %s, want app.css's --bg %s", m.BackgroundColor, bg)
	}

	var icons []string
	for _, ic := range m.Icons {
		icons = append(icons, ic.Purpose+" "+ic.Sizes)
		var size, height int
		if _, err := fmt.Sscanf(ic.Sizes, "%dx%d", &size, &height); err != nil || height != size || ic.Type != "image/png" {
			t.Fatalf("icon %+v", ic)
		}
		checkPNG(t, ic.Src, size)
	}
	slices.Sort(icons)
	if want := []string{"any 192x192", "any 512x512", "maskable 512x512"}; !slices.Equal(icons, want) {
		t.Errorf("icons %q, want %q", icons, want)
	}

	page, err := fs.ReadFile(static, "index.html")
	if err != nil {
		t.Fatal(err)
	}
	links := map[string]string{}
	for _, l := range regexp.MustCompile(`<link rel="([^"]+)" href="([^"]+)"`).FindAllSubmatch(page, -1) {
		links[string(l[1])] = string(l[2])
	}
	if links["manifest"] != "/manifest.webmanifest" {
		t.Errorf("index.html links the manifest as %q", links["manifest"])
	}
	checkPNG(t, links["apple-touch-icon"], 180)
	checkPNG(t, links["icon"], 32)
	themes := regexp.MustCompile(`<meta name="theme-color"( media="[^"]+")? content="([^"]+)">`).FindAllSubmatch(page, -1)
	if len(themes) != 1 || string(themes[0][2]) != m.ThemeColor {
		t.Errorf("index.html's theme-color: %q, want one, %s", themes, m.ThemeColor)
	}
	// One colour scheme: a dark one in app.css would want its own
	// theme-color, for its media.
	if css, _ := fs.ReadFile(static, "app.css"); bytes.Contains(css, []byte("prefers-color-scheme")) {
		t.Error("app.css has a colour scheme of its own: give index.html a theme-color for each")
	}

	sh, err := shellOf(Embedded())
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"/manifest.webmanifest", links["apple-touch-icon"], links["icon"]} {
		if !slices.Contains(sh.Files, f) {
			t.Errorf("the shell lacks %s", f)
		}
	}
	for _, ic := range m.Icons {
		if !slices.Contains(sh.Files, ic.Src) {
			t.Errorf("the shell lacks %s", ic.Src)
		}
	}
}
