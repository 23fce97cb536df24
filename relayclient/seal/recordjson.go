package seal

import (
	"unicode/utf16"
	"unicode/utf8"
)

// A JSON reader for records that reads what the browser's JSON.parse reads
// (RFC 8259, strictly) and keeps only what the record rules look at: the
// members of the top object and, of a member that is an array, its
// elements. Deeper values are checked and skipped without a stack of calls,
// so any nesting that fits a record is read. encoding/json is not used
// because it refuses nesting deeper than 10,000, which JSON.parse accepts.

type jsonKind byte

const (
	jsonNone jsonKind = iota // no such member
	jsonString
	jsonNumber
	jsonTrue
	jsonFalse
	jsonNull
	jsonArray
	jsonObject
)

type jsonValue struct {
	kind  jsonKind
	str   string      // a string's value, or a number as written
	elems []jsonValue // an array member's elements; their own arrays and objects are kinds only
}

type jsonReader struct {
	b []byte
	i int
}

// parseObject reads b, which must be valid UTF-8, as one JSON object and
// returns its members; a name given twice keeps its last value, as in
// JSON.parse. It reports false for anything else.
func parseObject(b []byte) (map[string]jsonValue, bool) {
	p := &jsonReader{b: b}
	p.space()
	if !p.eat('{') {
		return nil, false
	}
	m := map[string]jsonValue{}
	p.space()
	if !p.eat('}') {
		for {
			p.space()
			name, ok := p.string(true)
			if !ok {
				return nil, false
			}
			p.space()
			if !p.eat(':') {
				return nil, false
			}
			v, ok := p.value(true)
			if !ok {
				return nil, false
			}
			m[name] = v
			p.space()
			if p.eat('}') {
				break
			}
			if !p.eat(',') {
				return nil, false
			}
		}
	}
	p.space()
	return m, p.i == len(p.b)
}

func (p *jsonReader) space() {
	for p.i < len(p.b) {
		switch p.b[p.i] {
		case ' ', '\t', '\n', '\r':
			p.i++
		default:
			return
		}
	}
}

func (p *jsonReader) eat(c byte) bool {
	if p.i < len(p.b) && p.b[p.i] == c {
		p.i++
		return true
	}
	return false
}

func (p *jsonReader) peek() byte {
	if p.i < len(p.b) {
		return p.b[p.i]
	}
	return 0
}

// value reads one value after optional space. An array's elements are kept
// when elems is set; every other array and every object is skipped.
func (p *jsonReader) value(elems bool) (jsonValue, bool) {
	p.space()
	switch c := p.peek(); {
	case c == '"':
		s, ok := p.string(true)
		return jsonValue{kind: jsonString, str: s}, ok
	case c == '[' && elems:
		return p.array()
	case c == '[' || c == '{':
		kind := jsonArray
		if c == '{' {
			kind = jsonObject
		}
		return jsonValue{kind: kind}, p.skip()
	default:
		return p.scalar()
	}
}

// array reads an array whose elements are kept.
func (p *jsonReader) array() (jsonValue, bool) {
	p.i++ // '['
	v := jsonValue{kind: jsonArray}
	p.space()
	if p.eat(']') {
		return v, true
	}
	for {
		e, ok := p.value(false)
		if !ok {
			return v, false
		}
		v.elems = append(v.elems, e)
		p.space()
		if p.eat(']') {
			return v, true
		}
		if !p.eat(',') {
			return v, false
		}
	}
}

// scalar reads a number, true, false or null.
func (p *jsonReader) scalar() (jsonValue, bool) {
	for _, l := range []struct {
		word string
		kind jsonKind
	}{{"true", jsonTrue}, {"false", jsonFalse}, {"null", jsonNull}} {
		if len(p.b)-p.i >= len(l.word) && string(p.b[p.i:p.i+len(l.word)]) == l.word {
			p.i += len(l.word)
			return jsonValue{kind: l.kind}, true
		}
	}
	start := p.i
	if !p.number() {
		return jsonValue{}, false
	}
	return jsonValue{kind: jsonNumber, str: string(p.b[start:p.i])}, true
}

// number reads -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?.
func (p *jsonReader) number() bool {
	digits := func() bool {
		n := 0
		for p.i < len(p.b) && p.b[p.i] >= '0' && p.b[p.i] <= '9' {
			p.i++
			n++
		}
		return n > 0
	}
	p.eat('-')
	if !p.eat('0') && !digits() {
		return false
	}
	if p.eat('.') && !digits() {
		return false
	}
	if p.eat('e') || p.eat('E') {
		if !p.eat('+') {
			p.eat('-')
		}
		if !digits() {
			return false
		}
	}
	return true
}

// string reads a string and, when keep is set, returns its value. An escaped
// surrogate without its pair is read as U+FFFD: a Go string holds UTF-8, and
// U+FFFD has the same length in UTF-16 and in UTF-8 as JavaScript gives the
// lone surrogate there.
func (p *jsonReader) string(keep bool) (string, bool) {
	if !p.eat('"') {
		return "", false
	}
	var out []byte
	for p.i < len(p.b) {
		c := p.b[p.i]
		switch {
		case c == '"':
			p.i++
			return string(out), true
		case c < 0x20:
			return "", false
		case c != '\\':
			p.i++
			if keep {
				out = append(out, c)
			}
			continue
		}
		p.i++ // '\\'
		e := p.peek()
		p.i++
		var r rune
		switch e {
		case '"', '\\', '/':
			r = rune(e)
		case 'b':
			r = '\b'
		case 'f':
			r = '\f'
		case 'n':
			r = '\n'
		case 'r':
			r = '\r'
		case 't':
			r = '\t'
		case 'u':
			var ok bool
			if r, ok = p.hex4(); !ok {
				return "", false
			}
			if utf16.IsSurrogate(r) {
				// A high surrogate followed by an escaped low one is one
				// character; anything else leaves it alone.
				save := p.i
				if p.eat('\\') && p.eat('u') {
					if lo, ok := p.hex4(); ok {
						if pair := utf16.DecodeRune(r, lo); pair != utf8.RuneError {
							r = pair
							break
						}
					}
				}
				p.i = save
				r = utf8.RuneError
			}
		default:
			return "", false
		}
		if keep {
			out = utf8.AppendRune(out, r)
		}
	}
	return "", false
}

func (p *jsonReader) hex4() (rune, bool) {
	if len(p.b)-p.i < 4 {
		return 0, false
	}
	var r rune
	for _, c := range p.b[p.i : p.i+4] {
		switch {
		case c >= '0' && c <= '9':
			r = r<<4 | rune(c-'0')
		case c >= 'a' && c <= 'f':
			r = r<<4 | rune(c-'a'+10)
		case c >= 'A' && c <= 'F':
			r = r<<4 | rune(c-'A'+10)
		default:
			return 0, false
		}
	}
	p.i += 4
	return r, true
}

// skip checks and passes over one array or object of any depth. The open
// containers are a stack of bytes, not of calls.
func (p *jsonReader) skip() bool {
	var open []byte // '[' or '{' of each container not yet closed
	for {
		// A value is expected: the container's first, or one after a comma
		// or a colon.
		p.space()
		switch c := p.peek(); c {
		case '[', '{':
			p.i++
			p.space()
			if p.eat(closer(c)) {
				break // empty: a whole value, as a scalar is
			}
			open = append(open, c)
			if c == '{' && !p.name() {
				return false
			}
			continue
		case '"':
			if _, ok := p.string(false); !ok {
				return false
			}
		default:
			if _, ok := p.scalar(); !ok {
				return false
			}
		}
		// After a value: close containers until a comma asks for the next.
		for {
			if len(open) == 0 {
				return true
			}
			p.space()
			top := open[len(open)-1]
			if p.eat(closer(top)) {
				open = open[:len(open)-1]
				continue
			}
			if !p.eat(',') || top == '{' && !p.name() {
				return false
			}
			break
		}
	}
}

// name reads an object member's name and its colon, inside a skipped value.
func (p *jsonReader) name() bool {
	p.space()
	if _, ok := p.string(false); !ok {
		return false
	}
	p.space()
	return p.eat(':')
}

func closer(open byte) byte {
	if open == '[' {
		return ']'
	}
	return '}'
}
