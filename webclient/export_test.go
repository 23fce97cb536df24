package webclient

import (
	"io/fs"
	"net/http"
	"slices"
)

// Embedded is the client's files as they are built into the binary, before
// sw.js is given its shell.
func Embedded() fs.FS { return mustSub(files, "static") }

// ClientFor serves fsys as the relay serves its own client, and returns the
// shell the worker is given: the browser tests use it to play a new
// deploy of the client.
func ClientFor(fsys fs.FS) (http.Handler, Shell, error) {
	c, err := newClientFiles(fsys)
	if err != nil {
		return nil, Shell{}, err
	}
	sh, err := shellOf(fsys)
	return handlerFor(c), sh, err
}

// StoreWriters are the modules that may write IndexedDB, as
// TestOneWriterOfIndexedDB reads them: the browser test watches for them.
func StoreWriters() []string { return slices.Clone(writers) }
