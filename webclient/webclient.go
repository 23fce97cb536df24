// Package webclient is the browser client the relay serves, embedded in the
// binary. Every file is static: no template, no inline script or style, so a
// strict Content-Security-Policy holds. The client does all cryptography in
// the browser; nothing here ever sees a key or a plaintext.
package webclient

import (
	"embed"
	"io/fs"
	"net/http"
)

//go:embed static
var files embed.FS

// CSP is the Content-Security-Policy of every page: scripts, styles and
// connections only from the relay's own origin, no framing.
const CSP = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; connect-src 'self'; " +
	"base-uri 'none'; form-action 'self'; frame-ancestors 'none'"

// Handler serves the static client with its Content-Security-Policy. The
// headers every answer of the relay carries (nosniff, no referrer, no
// framing, the Permissions-Policy) are set by the relay's handler.
func Handler() http.Handler {
	sub, err := fs.Sub(files, "static")
	if err != nil {
		panic(err) // the embed directive guarantees the folder
	}
	fsrv := http.FileServerFS(sub)
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
