// Package webclient is the browser client the relay serves, embedded in the
// binary. Every file is static: no template, no inline script or style, so a
// strict Content-Security-Policy holds. The client does all cryptography in
// the browser; nothing here ever sees a key or a plaintext.
package webclient

import (
	"embed"
	"io/fs"
	"net/http"
	"path"
)

//go:embed static
var files embed.FS

// static is the client's files as the file server sees them.
var static fs.FS = clientFiles{mustSub(files, "static")}

func mustSub(f fs.FS, dir string) fs.FS {
	sub, err := fs.Sub(f, dir)
	if err != nil {
		panic(err) // the embed directive guarantees the folder
	}
	return sub
}

// clientFiles answers a name that cannot be a file, such as one that is
// not valid UTF-8, with fs.ErrNotExist. fs.Sub calls such a name
// fs.ErrInvalid, which http.FileServerFS answers with a 500; every path
// that names no file must be a 404 (docs/protocol.md, "Other paths").
type clientFiles struct{ fs.FS }

func (c clientFiles) Open(name string) (fs.File, error) {
	if !fs.ValidPath(name) {
		return nil, &fs.PathError{Op: "open", Path: name, Err: fs.ErrNotExist}
	}
	return c.FS.Open(name)
}

// CSP is the Content-Security-Policy of every page: scripts, styles and
// connections only from the relay's own origin, no framing.
const CSP = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; connect-src 'self'; " +
	"base-uri 'none'; form-action 'self'; frame-ancestors 'none'"

// Handler serves the static client with its Content-Security-Policy. The
// headers every answer of the relay carries (nosniff, no referrer, no
// framing, the Permissions-Policy) are set by the relay's handler.
func Handler() http.Handler {
	fsrv := http.FileServerFS(static)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodGet && r.Method != http.MethodHead {
			w.Header().Set("Allow", "GET, HEAD")
			http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
			return
		}
		h := w.Header()
		h.Set("Content-Security-Policy", CSP)
		h.Set("Cache-Control", "no-cache")
		fsrv.ServeHTTP(w, r)
	})
}

// File returns the name of the client's file that a request path asks
// for, cleaned ("/app.js", or "/" for the page), and whether there is
// one. These names are public, so the relay's access log may hold them;
// a path that names no file could carry anything, a username say.
func File(urlPath string) (string, bool) {
	name := path.Clean("/" + urlPath)
	if name == "/" {
		return name, true
	}
	fi, err := fs.Stat(static, name[1:])
	if err != nil || fi.IsDir() {
		return "", false
	}
	return name, true
}
