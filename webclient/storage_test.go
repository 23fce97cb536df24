package webclient

import (
	"io/fs"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// writers are the modules of the client that may open IndexedDB and its
// readwrite transactions: the store's modules behind store.js
// (docs/storage.md, "Who writes").
var writers = []string{"storedb.js", "storebatch.js", "storeout.js", "storechat.js"}

// storageWrites are the marks of code that opens the database or writes
// it: the readwrite mode in any kind of quotes, and the indexedDB global
// (open, deleteDatabase).
var storageWrites = regexp.MustCompile("['\"`]readwrite['\"`]|\\bindexedDB\\b")

// storageViolations returns the lines of src that open IndexedDB or a
// readwrite transaction.
func storageViolations(src string) []string {
	var out []string
	for i, line := range strings.Split(src, "\n") {
		if storageWrites.MatchString(line) {
			out = append(out, strings.TrimSpace(line)+" (line "+strconv.Itoa(i+1)+")")
		}
	}
	return out
}

// TestOneWriterOfIndexedDB reads the client's modules as the relay serves
// them: only the writers open the database or a readwrite transaction.
func TestOneWriterOfIndexedDB(t *testing.T) {
	names, err := fs.Glob(static, "*.js")
	if err != nil {
		t.Fatal(err)
	}
	for _, w := range writers {
		if !slices.Contains(names, w) {
			t.Fatalf("the client has no %s: %v", w, names)
		}
	}
	for _, name := range names {
		src, err := fs.ReadFile(static, name)
		if err != nil {
			t.Fatal(err)
		}
		v := storageViolations(string(src))
		if slices.Contains(writers, name) {
			// The control on real code: the checker finds each writer's
			// own transactions, so it would find them anywhere else.
			if len(v) == 0 {
				t.Errorf("the checker finds no readwrite transaction in %s, a writer", name)
			}
			continue
		}
		for _, line := range v {
			t.Errorf("%s writes IndexedDB, which only %v may: %s", name, writers, line)
		}
	}
}

// TestStorageCheckerCatchesWrites is the control on synthetic modules:
// each of these must be caught, and ordinary reads must not.
func TestStorageCheckerCatchesWrites(t *testing.T) {
	for _, tc := range []struct {
		src    string
		caught bool
	}{
		{`const t = db.transaction(['chats'], 'readwrite');`, true},
		{`const t = await tx(["meta"], "readwrite");`, true},
		{"const mode = `readwrite`;", true},
		{`const r = indexedDB.open('relay', 1);`, true},
		{`indexedDB.deleteDatabase('relay');`, true},
		{`const ch = await store.getChat(username);`, false},
		{`// reads IndexedDB through store.js`, false},
		{`const t = db.transaction(['chats'], 'readonly');`, false},
	} {
		if got := len(storageViolations(tc.src)) > 0; got != tc.caught {
			t.Errorf("%q: caught %v, want %v", tc.src, got, tc.caught)
		}
	}
}

// screenAPICalls are the relay calls a screen may make itself: reads. A
// change of state (a send, a revoke, an ACK) goes through sync.js.
var screenAPICalls = []string{"devices", "lookup"}

var apiCall = regexp.MustCompile(`\bapi\.(\w+)\s*\(`)

// TestScreensChangeStateThroughModules checks that app.js calls the
// relay's API only to read.
func TestScreensChangeStateThroughModules(t *testing.T) {
	src, err := fs.ReadFile(static, "app.js")
	if err != nil {
		t.Fatal(err)
	}
	if bad := stateChangingCalls(string(src)); len(bad) > 0 {
		t.Errorf("app.js calls the API to change state: %v; go through sync.js", bad)
	}
	// Control: a screen that revokes by itself is caught.
	if bad := stateChangingCalls(`await api.revoke(d.id); await api.lookup(u);`); !slices.Equal(bad, []string{"revoke"}) {
		t.Errorf("the control finds %v, want [revoke]", bad)
	}
}

func stateChangingCalls(src string) []string {
	var bad []string
	for _, m := range apiCall.FindAllStringSubmatch(src, -1) {
		if !slices.Contains(screenAPICalls, m[1]) && !slices.Contains(bad, m[1]) {
			bad = append(bad, m[1])
		}
	}
	return bad
}
