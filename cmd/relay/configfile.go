package main

import (
	"errors"
	"flag"
	"fmt"
	"os"
	"sort"
	"strconv"
	"strings"

	"github.com/pelletier/go-toml/v2"
	"github.com/pelletier/go-toml/v2/unstable"
)

// The configuration file (ADR 0114): TOML, one key per flag, under the
// flag's name, at the top level. The file holds no setting of its own: its
// keys are derived from the flag set, and each value goes through its
// flag's parser, so the flags, the variables and the file cannot disagree.

// fileError is a configuration file the relay cannot take: each problem
// with its line and column.
type fileError struct {
	Path     string
	Problems []problem
}

// problem is one thing wrong in a file, at a 1-based line and column (0
// when the file could not be read at all).
type problem struct {
	Line, Column int
	Msg          string
}

func (e *fileError) Error() string {
	lines := make([]string, len(e.Problems))
	for i, p := range e.Problems {
		lines[i] = e.Path + ":" + strconv.Itoa(p.Line) + ":" + strconv.Itoa(p.Column) + ": " + p.Msg
	}
	if len(lines) == 1 {
		return lines[0]
	}
	return fmt.Sprintf("%s has %d problems:\n  %s", e.Path, len(lines), strings.Join(lines, "\n  "))
}

// readFile reads the configuration file at path and sets the flags it
// names, but those given on the command line.
func (fs *flags) readFile(path string, given map[string]bool) error {
	data, err := os.ReadFile(path)
	if err != nil {
		return fmt.Errorf("reading the configuration file: %w", err)
	}
	return fs.loadFile(path, data, given)
}

// loadFile sets the flags that the configuration file data names, each
// with its flag's parser, and records the line each came from. Every key
// is checked, also where the command line (given) overrides it or this
// command has no such flag, so that a file is right or wrong on its own.
// An unknown key, a value of the wrong type or one its flag refuses is a
// problem; it returns every problem of the file at once, as a *fileError.
// A string's value is never quoted in a problem: it may be the database
// URL, with its password.
func (fs *flags) loadFile(path string, data []byte, given map[string]bool) error {
	keys := fs.keys()
	ferr := &fileError{Path: path}
	add := func(line, col int, format string, args ...any) {
		ferr.Problems = append(ferr.Problems, problem{line, col, fmt.Sprintf(format, args...)})
	}
	// The decoder checks the file against the TOML specification (syntax,
	// keys set twice, numbers in range) and decodes the values; the parser
	// below gives the position of each key and value.
	var doc map[string]any
	if err := toml.Unmarshal(data, &doc); err != nil {
		var de *toml.DecodeError
		if !errors.As(err, &de) {
			return fmt.Errorf("%s: %w", path, err)
		}
		line, col := de.Position()
		add(line, col, "%s (relay config example prints a valid file to start from)", strings.TrimPrefix(de.Error(), "toml: "))
		return ferr
	}
	var p unstable.Parser
	p.Reset(data)
	at := func(n *unstable.Node) unstable.Position { return p.Shape(n.Raw).Start }
	for p.NextExpression() {
		e := p.Expression()
		if e.Kind == unstable.Table || e.Kind == unstable.ArrayTable {
			it := e.Key()
			it.Next()
			pos := at(it.Node())
			add(pos.Line, pos.Column, "the file has no tables: write every key at the top level, under its flag's name")
			break // the keys that follow are the table's, and all wrong
		}
		if e.Kind != unstable.KeyValue {
			continue
		}
		it := e.Key()
		it.Next()
		k := it.Node()
		name := string(k.Data)
		kpos := at(k)
		if !it.IsLast() {
			add(kpos.Line, kpos.Column, "dotted keys are not used: write every key at the top level, under its flag's name")
			continue
		}
		v := e.Value()
		vpos := at(v)
		if v.Raw.Length == 0 { // arrays have no range: the value starts after the =
			i := int(k.Raw.Offset + k.Raw.Length)
			data := p.Data()
			for i < len(data) && strings.IndexByte(" \t=", data[i]) >= 0 {
				i++
			}
			vpos = p.Shape(unstable.Range{Offset: uint32(i)}).Start
		}
		f := keys.Lookup(name)
		switch {
		case name == configFlag && fs.config != nil:
			add(kpos.Line, kpos.Column, "config cannot be set in the file: the file is named by --config or RELAY_CONFIG")
			continue
		case f == nil || !keys.fileKey(name):
			add(kpos.Line, kpos.Column, "unknown key %q%s (relay config example lists every key)", name, keys.suggest(name))
			continue
		}
		// A key this command has no flag for, or that the command line
		// set, is checked on the fresh set, and its value goes no further.
		own := fs.fileKey(name) && !given[name]
		if own {
			f = fs.Lookup(name)
		}
		text, ok := valueText(doc[name], kindOf(f.Value))
		if !ok {
			add(vpos.Line, vpos.Column, "%s wants %s, such as %s = %s; this is %s", name, fileWant(f.Value), name, exampleValue(f), kindName(v.Kind))
			continue
		}
		if err := f.Value.Set(text); err != nil {
			if kindOf(f.Value) == kindString {
				add(vpos.Line, vpos.Column, "%s: %v", name, err)
			} else {
				add(vpos.Line, vpos.Column, "%s wants %s, not %s", name, want(f.Value), strconv.Quote(text))
			}
			continue
		}
		if own {
			fs.from[name] = setting{file: fmt.Sprintf("%s:%d:%d", path, vpos.Line, vpos.Column)}
		}
	}
	if err := p.Error(); err != nil { // the decoder above has read the same bytes
		return fmt.Errorf("%s: %w", path, err)
	}
	if len(ferr.Problems) > 0 {
		return ferr
	}
	return nil
}

// valueText is a decoded TOML value as its flag's parser takes it, if it
// has the type the flag wants: an integer for a whole number, a boolean,
// a string for a duration and for a string.
func valueText(v any, k kind) (string, bool) {
	switch x := v.(type) {
	case int64:
		if k == kindInt || k == kindFloat {
			return strconv.FormatInt(x, 10), true
		}
	case float64:
		if k == kindFloat {
			return strconv.FormatFloat(x, 'g', -1, 64), true
		}
	case bool:
		if k == kindBool {
			return strconv.FormatBool(x), true
		}
	case string:
		if k == kindString || k == kindDuration {
			return x, true
		}
	}
	return "", false
}

// fileWant says what a key's value must look like in the file.
func fileWant(v flag.Value) string {
	switch kindOf(v) {
	case kindString:
		return "text in quotes"
	case kindDuration:
		return "a duration in quotes"
	}
	return want(v)
}

// kindName names a TOML value's type for a problem.
func kindName(k unstable.Kind) string {
	switch k {
	case unstable.String:
		return "a string"
	case unstable.Integer:
		return "a whole number"
	case unstable.Float:
		return "a number with a fraction"
	case unstable.Bool:
		return "a boolean"
	case unstable.Array:
		return "an array"
	case unstable.InlineTable:
		return "a table"
	}
	return "a date or time"
}

// suggest is ` (did you mean "rate"?)` for the key nearest to name, if
// one is near.
func (fs *flags) suggest(name string) string {
	best, bestD := "", 3 // more than two edits away is no suggestion
	fs.VisitAll(func(f *flag.Flag) {
		if !fs.fileKey(f.Name) {
			return
		}
		if d := editDistance(name, f.Name); d < bestD {
			best, bestD = f.Name, d
		}
	})
	if best == "" {
		return ""
	}
	return fmt.Sprintf("; did you mean %q?", best)
}

// editDistance is the Levenshtein distance between two keys.
func editDistance(a, b string) int {
	if len(a) > 64 || len(b) > 64 {
		return 64 // no key is that long: no suggestion
	}
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}

// exampleValue is the TOML of a flag's default value.
func exampleValue(f *flag.Flag) string {
	switch kindOf(f.Value) {
	case kindInt, kindBool, kindFloat:
		return f.DefValue
	case kindDuration:
		return tomlString(shortDuration(f.DefValue))
	}
	return tomlString(f.DefValue)
}

// shortDuration drops a duration's zero minutes and seconds: 720h, not
// 720h0m0s.
func shortDuration(s string) string {
	if strings.HasSuffix(s, "m0s") {
		s = strings.TrimSuffix(s, "0s")
	}
	if strings.HasSuffix(s, "h0m") {
		s = strings.TrimSuffix(s, "0m")
	}
	return s
}

// tomlString is s as a TOML basic string.
func tomlString(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range s {
		switch {
		case r == '"' || r == '\\':
			b.WriteByte('\\')
			b.WriteRune(r)
		case r < 0x20 || r == 0x7f:
			fmt.Fprintf(&b, "\\u%04X", r)
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte('"')
	return b.String()
}

// sortedKeys is every key of the file, in name order.
func (fs *flags) sortedKeys() []string {
	var keys []string
	for name := range fs.vars {
		if fs.fileKey(name) {
			keys = append(keys, name)
		}
	}
	sort.Strings(keys)
	return keys
}
