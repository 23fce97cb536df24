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
var writers = []string{"storedb.js", "storebatch.js", "storeout.js", "storechat.js", "storefiles.js", "storeimport.js", "storeexpire.js", "storeblock.js", "storelock.js", "storesealed.js"}

// storeModules are store.js, the one import of the client for IndexedDB,
// and the modules behind it, which only store.js and each other import.
var storeModules = append([]string{"store.js", "storeread.js", "storerows.js"}, writers...)

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

// storeImport finds an import of a module by its name, static or dynamic,
// relative or from the root.
var storeImport = regexp.MustCompile(`\bimport\b[^'"]*?\(?\s*['"]\.?/(store\w+\.js)['"]|\bfrom\s*['"]\.?/(store\w+\.js)['"]`)

// storeImports returns the store's modules behind store.js that src
// imports.
func storeImports(src string) []string {
	var out []string
	for _, m := range storeImport.FindAllStringSubmatch(src, -1) {
		name := m[1] + m[2]
		if slices.Contains(storeModules, name) && name != "store.js" && !slices.Contains(out, name) {
			out = append(out, name)
		}
	}
	return out
}

// TestOnlyTheStoreImportsItsModules reads the client's modules: only the
// store's own import the modules behind store.js, which export the
// transactions and the helpers of its writes; everyone else imports
// store.js, which exports operations only (ADR 0033).
func TestOnlyTheStoreImportsItsModules(t *testing.T) {
	names, err := fs.Glob(static, "*.js")
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range storeModules {
		if !slices.Contains(names, m) {
			t.Fatalf("the client has no %s: %v", m, names)
		}
	}
	for _, name := range names {
		src, err := fs.ReadFile(static, name)
		if err != nil {
			t.Fatal(err)
		}
		got := storeImports(string(src))
		if name == "store.js" {
			// The control on real code: the checker finds store.js's
			// own imports of every module behind it that it re-exports.
			for _, m := range []string{"storedb.js", "storeread.js", "storebatch.js", "storeout.js", "storechat.js", "storefiles.js", "storeimport.js", "storeexpire.js", "storeblock.js", "storelock.js", "storesealed.js"} {
				if !slices.Contains(got, m) {
					t.Errorf("the checker does not find store.js's import of %s (it finds %v)", m, got)
				}
			}
			continue
		}
		if slices.Contains(storeModules, name) {
			continue
		}
		for _, m := range got {
			t.Errorf("%s imports %s; only the store's modules may, the others import store.js", name, m)
		}
	}
}

// TestStoreImportCheckerCatchesImports is the control on synthetic
// modules: each import of a module behind store.js is caught, store.js and
// other modules are not.
func TestStoreImportCheckerCatchesImports(t *testing.T) {
	for _, tc := range []struct {
		src  string
		want []string
	}{
		{`import { tx } from './storedb.js';`, []string{"storedb.js"}},
		{`import * as out from "./storeout.js";`, []string{"storeout.js"}},
		{`export { markSeen } from './storechat.js';`, []string{"storechat.js"}},
		{`import './storerows.js';`, []string{"storerows.js"}},
		{`const s = await import('/storebatch.js');`, []string{"storebatch.js"}},
		{"import {\n  getChats,\n} from './storeread.js';", []string{"storeread.js"}},
		{`import * as store from './store.js';`, nil},
		{`import('/store.js').then((s) => s.getChat('bob'));`, nil},
		{`import { after } from './order.js';`, nil},
		{`// the rows of storebatch.js`, nil},
	} {
		if got := storeImports(tc.src); !slices.Equal(got, tc.want) {
			t.Errorf("%q: caught %v, want %v", tc.src, got, tc.want)
		}
	}
}

// screenAPICalls are the relay calls a screen may make itself: reads. A
// change of state (a send, a revoke, an ACK) goes through sync.js.
var screenAPICalls = []string{"devices", "lookup"}

var apiCall = regexp.MustCompile(`\bapi\.(\w+)\s*\(`)

// screenFiles are the client's screens and their helpers: the router
// (app.js), what they share (ui.js), the DOM helpers, the password form
// and each screen's module (screen-*.js).
func screenFiles(t *testing.T) []string {
	t.Helper()
	screens, err := fs.Glob(static, "screen-*.js")
	if err != nil {
		t.Fatal(err)
	}
	if len(screens) == 0 {
		t.Fatal("the client has no screen-*.js: the check would read no screen")
	}
	return append([]string{"app.js", "ui.js", "dom.js", "passwordform.js"}, screens...)
}

// TestScreensChangeStateThroughModules checks that the screens call the
// relay's API only to read.
func TestScreensChangeStateThroughModules(t *testing.T) {
	for _, name := range screenFiles(t) {
		src, err := fs.ReadFile(static, name)
		if err != nil {
			t.Fatal(err)
		}
		if bad := stateChangingCalls(string(src)); len(bad) > 0 {
			t.Errorf("%s calls the API to change state: %v; go through sync.js", name, bad)
		}
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
