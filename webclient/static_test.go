package webclient

import (
	"bufio"
	"bytes"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
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
