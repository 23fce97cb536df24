package webclient

import (
	"io/fs"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// maxClientLines is the most lines a module of the client may have: past
// it, a module holds more than one role (ADR 0097).
const maxClientLines = 500

// TestClientModulesStaySmall reads the client's modules as the relay
// serves them: none is over maxClientLines lines.
func TestClientModulesStaySmall(t *testing.T) {
	names, err := fs.Glob(static, "*.js")
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range names {
		src, err := fs.ReadFile(static, name)
		if err != nil {
			t.Fatal(err)
		}
		if n := strings.Count(string(src), "\n"); n > maxClientLines {
			t.Errorf("%s has %d lines, more than %d: split it by role", name, n, maxClientLines)
		}
	}
}

// staticImport matches the static imports of a module: `import ... from
// './x.js'`, `export ... from './x.js'` and `import './x.js'`.
var staticImport = regexp.MustCompile(`(?m)^\s*(?:import|export)\b[^'"]*?(?:from\s*)?['"]\./([\w-]+\.js)['"]`)

// importsOf returns each module's static imports of other modules.
func importsOf(srcs map[string]string) map[string][]string {
	graph := map[string][]string{}
	for name, src := range srcs {
		for _, m := range staticImport.FindAllStringSubmatch(src, -1) {
			graph[name] = append(graph[name], m[1])
		}
	}
	return graph
}

// importLoop returns a loop of imports in graph, from a module back to
// itself, or nil. Modules are visited in name order, so the loop found is
// always the same one.
func importLoop(graph map[string][]string) []string {
	const (
		unseen = iota
		open
		done
	)
	state := map[string]int{}
	var path []string
	var visit func(string) []string
	visit = func(n string) []string {
		switch state[n] {
		case open:
			return append(slices.Clone(path[slices.Index(path, n):]), n)
		case done:
			return nil
		}
		state[n] = open
		path = append(path, n)
		for _, next := range graph[n] {
			if loop := visit(next); loop != nil {
				return loop
			}
		}
		path = path[:len(path)-1]
		state[n] = done
		return nil
	}
	names := make([]string, 0, len(graph))
	for n := range graph {
		names = append(names, n)
	}
	slices.Sort(names)
	for _, n := range names {
		if loop := visit(n); loop != nil {
			return loop
		}
	}
	return nil
}

// TestNoImportLoops checks that the client's modules import each other
// with no loop, and that nothing can call the router: app.js exports
// nothing, so a screen reaches it only by the address or an event.
func TestNoImportLoops(t *testing.T) {
	names, err := fs.Glob(static, "*.js")
	if err != nil {
		t.Fatal(err)
	}
	srcs := map[string]string{}
	for _, name := range names {
		src, err := fs.ReadFile(static, name)
		if err != nil {
			t.Fatal(err)
		}
		srcs[name] = string(src)
	}
	graph := importsOf(srcs)
	if len(graph["app.js"]) == 0 || len(graph["sync.js"]) == 0 {
		t.Fatalf("the import reader finds no imports in app.js or sync.js: %v", graph)
	}
	if loop := importLoop(graph); loop != nil {
		t.Errorf("the client's modules import in a loop: %s", strings.Join(loop, " → "))
	}
	if regexp.MustCompile(`(?m)^\s*export\b`).MatchString(srcs["app.js"]) {
		t.Error("app.js exports something: the router is reached by the address or an event (ui.request), never by a call")
	}
	// Controls: a screen that imports the router is a loop, and so is a
	// longer one; the real graph less that is not.
	for _, tc := range []struct {
		srcs map[string]string
		loop string
	}{
		{map[string]string{
			"app.js":         "import { chatScreen } from './screen-chat.js';",
			"screen-chat.js": "import * as sync from './sync.js';\nimport { route } from './app.js';",
			"sync.js":        "export { me } from './account.js';",
		}, "app.js → screen-chat.js → app.js"},
		{map[string]string{
			"a.js": "import './b.js';",
			"b.js": "import { x } from \"./c.js\";",
			"c.js": "export { y } from './a.js';",
		}, "a.js → b.js → c.js → a.js"},
		{map[string]string{
			"app.js":         "import { chatScreen } from './screen-chat.js';",
			"screen-chat.js": "import * as sync from './sync.js';",
		}, ""},
	} {
		if got := strings.Join(importLoop(importsOf(tc.srcs)), " → "); got != tc.loop {
			t.Errorf("control %v: found loop %q, want %q", tc.srcs, got, tc.loop)
		}
	}
}
