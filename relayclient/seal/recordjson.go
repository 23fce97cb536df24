package seal

import (
	"bytes"
	"encoding/json"
	"io"
)

// MaxRecordDepth bounds the nesting of a record's JSON: the record object
// counts as one level, each object or array in it as one more. The browser
// checks the same bound on what JSON.parse returns (records.js), so that
// both read the same records from the same bytes; encoding/json alone
// would refuse only beyond 10,000 levels, and JSON.parse never.
const MaxRecordDepth = 32

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

// jsonValue is what the record rules look at of a member: its kind, a
// string's value or a number as written, and an array's elements or an
// object's members (kinds and values only, one level down).
type jsonValue struct {
	kind    jsonKind
	str     string
	elems   []jsonValue
	members map[string]jsonValue
}

// parseObject reads b, which must be valid UTF-8, as one JSON object of at
// most MaxRecordDepth levels, with encoding/json, and returns its members;
// a name given twice keeps its last value, as in JSON.parse. It reports
// false for anything else.
func parseObject(b []byte) (map[string]jsonValue, bool) {
	if !withinDepth(b) {
		return nil, false
	}
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(b, &raw); err != nil || raw == nil {
		return nil, false
	}
	m := make(map[string]jsonValue, len(raw))
	for name, v := range raw {
		m[name] = valueOf(v, 2)
	}
	return m, true
}

// withinDepth reports whether b's tokens nest at most MaxRecordDepth deep.
// Bad syntax is left to json.Unmarshal.
func withinDepth(b []byte) bool {
	d := json.NewDecoder(bytes.NewReader(b))
	depth := 0
	for {
		t, err := d.Token()
		if err == io.EOF {
			return true
		}
		if err != nil {
			return false
		}
		switch t {
		case json.Delim('{'), json.Delim('['):
			if depth++; depth > MaxRecordDepth {
				return false
			}
		case json.Delim('}'), json.Delim(']'):
			depth--
		}
	}
}

// valueOf reads one value that json.Unmarshal has checked; an array's
// elements or an object's members are read too, levels deep (the files of
// a files record are objects in an array), an object's as parseObject
// reads the record's (the last of a name given twice).
func valueOf(r json.RawMessage, levels int) jsonValue {
	inner := levels > 0
	r = bytes.TrimSpace(r)
	switch r[0] {
	case '"':
		var s string
		_ = json.Unmarshal(r, &s) // checked: an escaped lone surrogate reads as U+FFFD
		return jsonValue{kind: jsonString, str: s}
	case 't':
		return jsonValue{kind: jsonTrue}
	case 'f':
		return jsonValue{kind: jsonFalse}
	case 'n':
		return jsonValue{kind: jsonNull}
	case '{':
		v := jsonValue{kind: jsonObject}
		if inner {
			var o map[string]json.RawMessage
			_ = json.Unmarshal(r, &o)
			v.members = make(map[string]jsonValue, len(o))
			for name, m := range o {
				v.members[name] = valueOf(m, levels-1)
			}
		}
		return v
	case '[':
		v := jsonValue{kind: jsonArray}
		if inner {
			var a []json.RawMessage
			_ = json.Unmarshal(r, &a)
			for _, e := range a {
				v.elems = append(v.elems, valueOf(e, levels-1))
			}
		}
		return v
	default:
		return jsonValue{kind: jsonNumber, str: string(r)}
	}
}
