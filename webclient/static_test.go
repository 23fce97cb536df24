package webclient

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"testing/fstest"
)

// FuzzStaticPath sends any request target to the client's handler, as the
// relay would parse it off the wire. Every answer is a 200 with the bytes
// of the client's file the path names, the file server's relative redirect
// to a file's canonical name (301), or a 404: never a 5xx, and never a 200
// for a path that names no file of the client (docs/protocol.md, "Other
// paths").
func FuzzStaticPath(f *testing.F) {
	for _, seed := range []string{
		"/%c0%ae%c0%ae/%c0%ae%c0%ae/etc/passwd", // overlong UTF-8 dots: was a 500
		"/%c0%af..%c0%afapp.js",
		"/%ff",
		"/app.js%00",
		"/",
		"/app.js",
		"/index.html",
		"/app.js/",
		"/../app.js",
		"/..%2f..%2fetc%2fpasswd",
		"/%2e%2e/%2e%2e/etc/passwd",
		"/.%2e/app.js",
		"/..%5c..%5capp.js",
		"//app.js",
		"/static/app.js",
		"/x/..",
		"/app.js?x=/../../etc/passwd",
		"http://relay.test/app.js",
	} {
		f.Add(seed)
	}
	h := Handler()
	f.Fuzz(func(t *testing.T, target string) {
		req, err := http.ReadRequest(bufio.NewReader(strings.NewReader("GET " + target + " HTTP/1.1\r\nHost: relay.test\r\n\r\n")))
		if err != nil {
			return // the server answers 400 before any handler runs
		}
		urlPath := req.URL.Path
		w := httptest.NewRecorder()
		h.ServeHTTP(w, req)
		name, isFile := File(urlPath)
		switch w.Code {
		case http.StatusOK:
			if !isFile {
				t.Fatalf("GET %q: 200 for a path that names no file", target)
			}
			file := strings.TrimPrefix(name, "/")
			if file == "" {
				file = "index.html"
			}
			want, err := fs.ReadFile(static, file)
			if err != nil || !bytes.Equal(w.Body.Bytes(), want) {
				t.Fatalf("GET %q: 200, but the body is not %s (%v)", target, file, err)
			}
		case http.StatusMovedPermanently:
			loc := w.Header().Get("Location")
			u, err := url.Parse(loc)
			if err != nil || u.Scheme != "" || u.Host != "" || strings.HasPrefix(loc, "/") || strings.HasPrefix(loc, `\`) {
				t.Fatalf("GET %q: redirected to %q, not a relative path on this relay", target, loc)
			}
		case http.StatusNotFound:
			// Also for a client file's path that would be redirected
			// but has an escaped slash ("/%2f."): the file server does
			// not redirect those.
		default:
			t.Fatalf("GET %q: %d %q", target, w.Code, w.Body.String())
		}
	})
}

// TestShell: the sw.js served holds the shell: the page and every file of
// the client but the worker, under a version that changes with any file
// (the control: one byte more in one file). The marker line must be in
// sw.js, or the relay would serve a worker that caches nothing.
func TestShell(t *testing.T) {
	sh, err := shellOf(Embedded())
	if err != nil {
		t.Fatal(err)
	}
	served, err := fs.ReadFile(static, workerFile)
	if err != nil {
		t.Fatal(err)
	}
	js, _ := json.Marshal(sh)
	if !bytes.Contains(served, []byte("const SHELL = "+string(js)+";")) || bytes.Contains(served, shellMarker) {
		t.Fatalf("the served sw.js does not hold the shell %s", js)
	}
	if !slices.Contains(sh.Files, "/") || !slices.Contains(sh.Files, "/app.js") || slices.Contains(sh.Files, "/sw.js") || slices.Contains(sh.Files, "/index.html") {
		t.Fatalf("shell files %q", sh.Files)
	}
	for _, f := range sh.Files {
		if strings.HasPrefix(f, "/api/") {
			t.Fatalf("the shell holds %s", f)
		}
	}
	// Every file, not only the shell's: the version covers them all.
	changed := fstest.MapFS{}
	err = fs.WalkDir(Embedded(), ".", func(name string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := fs.ReadFile(Embedded(), name)
		changed[name] = &fstest.MapFile{Data: b}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	same, err := shellOf(changed)
	if err != nil || same.Version != sh.Version {
		t.Fatalf("the same files: version %s, want %s (%v)", same.Version, sh.Version, err)
	}
	changed["app.css"].Data = append(slices.Clip(changed["app.css"].Data), ' ')
	if other, _ := shellOf(changed); other.Version == sh.Version {
		t.Fatal("a changed file keeps the shell's version")
	}
	delete(changed, workerFile)
	if _, err := newClientFiles(changed); err == nil {
		t.Fatal("a client without sw.js is served")
	}
	changed[workerFile] = &fstest.MapFile{Data: []byte("// no shell line")}
	if _, err := newClientFiles(changed); err == nil {
		t.Fatal("a sw.js without the shell's line is served")
	}
}

// TestCSPDocumented: docs/security.md gives the Content-Security-Policy
// as it is, on a line of its own.
func TestCSPDocumented(t *testing.T) {
	doc, err := os.ReadFile(filepath.Join("..", "docs", "security.md"))
	if err != nil {
		t.Fatal(err)
	}
	for line := range strings.Lines(string(doc)) {
		if strings.TrimSpace(line) == CSP {
			return
		}
	}
	t.Fatalf("docs/security.md does not give the CSP as it is:\n%s", CSP)
}
