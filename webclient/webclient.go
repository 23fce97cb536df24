// Package webclient is the browser client the relay serves, embedded in the
// binary. Every file is static: no template, no inline script or style, so a
// strict Content-Security-Policy holds. The one file changed when served is
// the service worker, sw.js, which is given the version and the list of the
// app shell it caches for offline use (ADR 0065). The client does all
// cryptography in the browser; nothing here ever sees a key or a plaintext.
package webclient

import (
	"bytes"
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"path"
	"slices"
	"strings"
	"time"
)

// all: because vendored libraries have files whose names start with an
// underscore (@noble/hashes/_md.js), which a plain pattern leaves out.
//
//go:embed all:static
var files embed.FS

// static is the client's files as the file server sees them.
var static fs.FS = mustClient(mustSub(files, "static"))

// mustClient is fsys as the relay serves it, sw.js given its shell.
func mustClient(fsys fs.FS) fs.FS {
	c, err := newClientFiles(fsys)
	if err != nil {
		panic(err) // the embedded files are known when the binary is built
	}
	return c
}

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
type clientFiles struct {
	fs.FS
	worker []byte // sw.js with its shell filled in
}

func (c clientFiles) Open(name string) (fs.File, error) {
	if !fs.ValidPath(name) {
		return nil, &fs.PathError{Op: "open", Path: name, Err: fs.ErrNotExist}
	}
	if name == workerFile {
		return &memFile{name: name, Reader: bytes.NewReader(c.worker), size: int64(len(c.worker))}, nil
	}
	return c.FS.Open(name)
}

// workerFile is the service worker. It is served from the root, so that
// its scope is the whole app.
const workerFile = "sw.js"

// shellMarker is the line of sw.js that the relay replaces with the shell
// it serves: an empty shell caches nothing, so sw.js read as a plain file
// (or served by anything else) only does push.
var shellMarker = []byte(`const SHELL = { version: '', files: [] }; // filled in by the relay`)

// Shell is what the service worker caches for offline use: the page ("/")
// and every file of the client but the worker itself and what the browser
// never loads (the vendored libraries' licences and type declarations,
// ADR 0098), under a version that
// is a hash of all the client's files. A relay whose client changed serves
// a different sw.js, so the browser installs the new worker, which caches
// the new shell and deletes the old one (ADR 0065).
type Shell struct {
	Version string   `json:"version"`
	Files   []string `json:"files"`
}

// shellOf reads the shell of fsys: the files in lexical order, and the
// hash of every name and content.
func shellOf(fsys fs.FS) (Shell, error) {
	h := sha256.New()
	sh := Shell{Files: []string{"/"}}
	err := fs.WalkDir(fsys, ".", func(name string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := fs.ReadFile(fsys, name)
		if err != nil {
			return err
		}
		fmt.Fprintf(h, "%d:%s\n%d:", len(name), name, len(b))
		h.Write(b)
		if name != workerFile && name != "index.html" && loaded(name) {
			sh.Files = append(sh.Files, "/"+name)
		}
		return nil
	})
	if err != nil {
		return Shell{}, fmt.Errorf("webclient: reading the shell: %w", err)
	}
	sh.Version = hex.EncodeToString(h.Sum(nil))[:16]
	return sh, nil
}

// loaded says whether the browser may load the file: of the vendored
// libraries (vendor/), only the modules.
func loaded(name string) bool {
	return !strings.HasPrefix(name, vendorDir+"/") || strings.HasSuffix(name, ".js")
}

// vendorDir holds the third-party modules the client imports, as
// scripts/vendor-clientlibs.sh copies them (ADR 0098).
const vendorDir = "vendor"

// newClientFiles is fsys with sw.js given the shell of fsys.
func newClientFiles(fsys fs.FS) (clientFiles, error) {
	sh, err := shellOf(fsys)
	if err != nil {
		return clientFiles{}, err
	}
	src, err := fs.ReadFile(fsys, workerFile)
	if err != nil {
		return clientFiles{}, fmt.Errorf("webclient: reading %s: %w", workerFile, err)
	}
	if bytes.Count(src, shellMarker) != 1 {
		return clientFiles{}, fmt.Errorf("webclient: %s does not hold the shell's line once", workerFile)
	}
	js, err := json.Marshal(sh)
	if err != nil {
		return clientFiles{}, fmt.Errorf("webclient: the shell: %w", err)
	}
	line := slices.Concat([]byte("const SHELL = "), js, []byte("; // filled in by the relay"))
	return clientFiles{FS: fsys, worker: bytes.Replace(src, shellMarker, line, 1)}, nil
}

// memFile is sw.js as served: its bytes, seekable as the file server needs.
type memFile struct {
	*bytes.Reader
	name string
	size int64
}

func (f *memFile) Stat() (fs.FileInfo, error) { return memInfo{f.name, f.size}, nil }
func (f *memFile) Close() error               { return nil }

var _ io.ReadSeeker = (*memFile)(nil)

type memInfo struct {
	name string
	size int64
}

func (i memInfo) Name() string       { return i.name }
func (i memInfo) Size() int64        { return i.size }
func (i memInfo) Mode() fs.FileMode  { return 0o444 }
func (i memInfo) ModTime() time.Time { return time.Time{} }
func (i memInfo) IsDir() bool        { return false }
func (i memInfo) Sys() any           { return nil }

// CSP is the Content-Security-Policy of every page: scripts, styles,
// connections and the web app manifest only from the relay's own origin,
// no framing; images from it and from blob: URLs, and sound only from
// blob: URLs, which is how the client shows the attachments it decrypted.
const CSP = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' blob:; media-src blob:; connect-src 'self'; " +
	"manifest-src 'self'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'"

// contentTypes are the types of the client's files that Go's mime package
// does not know by itself: without them the file server would take the
// type from the system's mime.types, which a slim container lacks.
var contentTypes = map[string]string{
	".webmanifest": "application/manifest+json",
}

// Handler serves the static client with its Content-Security-Policy. The
// headers every answer of the relay carries (nosniff, no referrer, no
// framing, the Permissions-Policy) are set by the relay's handler.
func Handler() http.Handler {
	return handlerFor(static)
}

func handlerFor(static fs.FS) http.Handler {
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
		if ct, ok := contentTypes[path.Ext(r.URL.Path)]; ok {
			h.Set("Content-Type", ct) // an error answer sets its own
		}
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
