package reports

import (
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"
	"unicode/utf8"
)

const (
	idA = "01JBZ5GQ7N0000000000000000"
	idB = "01JBZ5GQ7N0000000000000001"
	idC = "01JBZ5GQ7N0000000000000002"
)

// valid is a report from alice about bob; each case below changes one
// thing in it.
func valid() map[string]any {
	return map[string]any{
		"id": idA, "about": "bob", "reason": "spam", "comment": "he keeps at it",
		"messages": []any{
			map[string]any{"id": idB, "from": "bob", "at": 1764806400000, "text": "buy now"},
			map[string]any{"id": idC, "from": "alice", "at": 1764806460000, "text": "stop"},
		},
	}
}

func encode(t testing.TB, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestParseValid: a well-formed report reads as it was written, messages
// in their order, and nothing is added; without a comment, or with null,
// the comment is "".
func TestParseValid(t *testing.T) {
	r, err := Parse(encode(t, valid()), "alice")
	if err != nil {
		t.Fatal(err)
	}
	want := Report{ID: idA, Reporter: "alice", About: "bob", Reason: "spam", Comment: "he keeps at it", Messages: []Message{
		{ID: idB, From: "bob", At: 1764806400000, Text: "buy now"},
		{ID: idC, From: "alice", At: 1764806460000, Text: "stop"},
	}}
	if !reflect.DeepEqual(r, want) {
		t.Fatalf("got %+v\nwant %+v", r, want)
	}
	for _, comment := range []any{nil, "absent"} {
		v := valid()
		if comment == "absent" {
			delete(v, "comment")
		} else {
			v["comment"] = comment
		}
		if r, err := Parse(encode(t, v), "alice"); err != nil || r.Comment != "" {
			t.Errorf("comment %v: %q, %v", comment, r.Comment, err)
		}
	}
	// The bounds themselves: 50 messages of 16,000 characters, four bytes
	// each in UTF-8 (one code point each), and a comment of 1,000.
	v := valid()
	var msgs []any
	for i := range MaxMessages {
		msgs = append(msgs, map[string]any{"id": fmt.Sprintf("01JBZ5GQ7N%016d", i), "from": "bob", "at": 1<<53 - 1, "text": strings.Repeat("😀", MaxText)})
	}
	v["messages"], v["comment"] = msgs, strings.Repeat("é", MaxComment)
	if r, err := Parse(encode(t, v), "alice"); err != nil || len(r.Messages) != MaxMessages {
		t.Fatalf("a report at every bound: %v", err)
	}
}

// TestParseRefusals: each fault is a *FieldError naming its field, and
// only a body that is not I-JSON is ErrNotJSON. The control is valid(),
// accepted above.
func TestParseRefusals(t *testing.T) {
	msg := func(f func(m map[string]any)) func(v map[string]any) {
		return func(v map[string]any) { f(v["messages"].([]any)[1].(map[string]any)) }
	}
	for _, tc := range []struct {
		name, field string
		change      func(v map[string]any)
	}{
		{"no id", "id", func(v map[string]any) { delete(v, "id") }},
		{"id lower case", "id", func(v map[string]any) { v["id"] = strings.ToLower(idA) }},
		{"id a number", "id", func(v map[string]any) { v["id"] = 7 }},
		{"id too long", "id", func(v map[string]any) { v["id"] = idA + "0" }},
		{"id overflows", "id", func(v map[string]any) { v["id"] = "8" + idA[1:] }},
		{"id with a NUL", "id", func(v map[string]any) { v["id"] = idA[:25] + "\x00" }},
		{"no about", "about", func(v map[string]any) { delete(v, "about") }},
		{"about upper case", "about", func(v map[string]any) { v["about"] = "Bob" }},
		{"about null", "about", func(v map[string]any) { v["about"] = nil }},
		{"about an array", "about", func(v map[string]any) { v["about"] = []any{"bob"} }},
		{"no reason", "reason", func(v map[string]any) { delete(v, "reason") }},
		{"unknown reason", "reason", func(v map[string]any) { v["reason"] = "rude" }},
		{"reason upper case", "reason", func(v map[string]any) { v["reason"] = "SPAM" }},
		{"comment too long", "comment", func(v map[string]any) { v["comment"] = strings.Repeat("x", MaxComment+1) }},
		{"comment a number", "comment", func(v map[string]any) { v["comment"] = 3 }},
		{"comment with a NUL", "comment", func(v map[string]any) { v["comment"] = "a\x00b" }},
		{"no messages", "messages", func(v map[string]any) { delete(v, "messages") }},
		{"messages empty", "messages", func(v map[string]any) { v["messages"] = []any{} }},
		{"messages null", "messages", func(v map[string]any) { v["messages"] = nil }},
		{"messages an object", "messages", func(v map[string]any) { v["messages"] = map[string]any{"0": v["messages"].([]any)[0]} }},
		{"51 messages", "messages", func(v map[string]any) {
			var l []any
			for i := range MaxMessages + 1 {
				l = append(l, map[string]any{"id": fmt.Sprintf("01JBZ5GQ7N%016d", i), "from": "bob", "at": 1, "text": "x"})
			}
			v["messages"] = l
		}},
		{"a message a string", "messages[1]", func(v map[string]any) { v["messages"].([]any)[1] = "stop" }},
		{"a message null", "messages[1]", func(v map[string]any) { v["messages"].([]any)[1] = nil }},
		{"a message with more", "messages[1]", msg(func(m map[string]any) { m["fromDevice"] = "x" })},
		{"message id twice", "messages[1].id", msg(func(m map[string]any) { m["id"] = idB })},
		{"message id missing", "messages[1].id", msg(func(m map[string]any) { delete(m, "id") })},
		{"message id bad", "messages[1].id", msg(func(m map[string]any) { m["id"] = "x" })},
		{"from a third account", "messages[1].from", msg(func(m map[string]any) { m["from"] = "carol" })},
		{"from missing", "messages[1].from", msg(func(m map[string]any) { delete(m, "from") })},
		{"at missing", "messages[1].at", msg(func(m map[string]any) { delete(m, "at") })},
		{"at zero", "messages[1].at", msg(func(m map[string]any) { m["at"] = 0 })},
		{"at negative", "messages[1].at", msg(func(m map[string]any) { m["at"] = -5 })},
		{"at a fraction", "messages[1].at", msg(func(m map[string]any) { m["at"] = 1.5 })},
		{"at past safe", "messages[1].at", msg(func(m map[string]any) { m["at"] = int64(1 << 53) })},
		{"at a string", "messages[1].at", msg(func(m map[string]any) { m["at"] = "1764806400000" })},
		{"text missing", "messages[1].text", msg(func(m map[string]any) { delete(m, "text") })},
		{"text empty", "messages[1].text", msg(func(m map[string]any) { m["text"] = "" })},
		{"text too long", "messages[1].text", msg(func(m map[string]any) { m["text"] = strings.Repeat("😀", MaxText+1) })},
		{"text a number", "messages[1].text", msg(func(m map[string]any) { m["text"] = 5 })},
		{"text with a NUL", "messages[1].text", msg(func(m map[string]any) { m["text"] = "a\x00" })},
		{"a member more", "", func(v map[string]any) { v["device"] = "x" }},
	} {
		v := valid()
		tc.change(v)
		_, err := Parse(encode(t, v), "alice")
		var fe *FieldError
		if !errors.As(err, &fe) || fe.Field != tc.field {
			t.Errorf("%s: %v, want a fault of %q", tc.name, err, tc.field)
		}
	}
	for name, body := range map[string]string{
		"malformed": `{"id":`, "a name twice": `{"id":"` + idA + `","id":"` + idB + `"}`, "invalid UTF-8": "{\"about\":\"b\xffb\"}",
		"a lone surrogate": `{"comment":"\ud800"}`, "two values": `{} {}`, "empty": ``,
	} {
		if _, err := Parse([]byte(body), "alice"); !errors.Is(err, ErrNotJSON) {
			t.Errorf("%s: %v, want ErrNotJSON", name, err)
		}
	}
	for name, body := range map[string]string{"null": `null`, "an array": `[]`, "a string": `"x"`, "a number": `1`} {
		var fe *FieldError
		if _, err := Parse([]byte(body), "alice"); !errors.As(err, &fe) || fe.Field != "" {
			t.Errorf("%s: %v, want the report's own fault", name, err)
		}
	}
}

// TestParseTextCountsCodePoints: the bound on a text is in code points, so
// a text that a client cut at 16,000 UTF-16 units always fits, whatever
// it holds; the control is one code point more.
func TestParseTextCountsCodePoints(t *testing.T) {
	for _, tc := range []struct {
		text string
		ok   bool
	}{
		{strings.Repeat("😀", MaxText/2), true},     // 16,000 UTF-16 units, 8,000 code points
		{strings.Repeat("😀", MaxText), true},       // 16,000 code points, 64,000 bytes
		{strings.Repeat("a", MaxText), true},       //
		{strings.Repeat("\x01", MaxText), true},    // escaped: 96,000 bytes of JSON
		{strings.Repeat("a", MaxText+1), false},    // the control
		{strings.Repeat("😀", MaxText+1), false},    //
		{strings.Repeat("\x01", MaxText+1), false}, //
	} {
		v := valid()
		v["messages"].([]any)[0].(map[string]any)["text"] = tc.text
		_, err := Parse(encode(t, v), "alice")
		if (err == nil) != tc.ok {
			t.Errorf("%d code points: %v", utf8.RuneCountInString(tc.text), err)
		}
	}
}

// TestMaxRequestFitsTheLargestReport: the largest report a client can
// write, every text and the comment of characters that JSON escapes as
// \u00XX, fits MaxRequest and parses.
func TestMaxRequestFitsTheLargestReport(t *testing.T) {
	v := valid()
	var msgs []any
	for i := range MaxMessages {
		msgs = append(msgs, map[string]any{"id": fmt.Sprintf("01JBZ5GQ7N%016d", i), "from": "abcdefghijklmnopqrstuvwxyz012345", "at": 1<<53 - 1, "text": strings.Repeat("\x1f", MaxText)})
	}
	v["messages"], v["comment"], v["reason"], v["about"] = msgs, strings.Repeat("\x1f", MaxComment), "harassment", "abcdefghijklmnopqrstuvwxyz012345"
	b := encode(t, v)
	if len(b) > MaxRequest {
		t.Fatalf("the largest report is %d bytes, over MaxRequest (%d)", len(b), MaxRequest)
	}
	if len(b) < MaxRequest*9/10 {
		t.Errorf("the largest report is %d bytes, far under MaxRequest (%d): lower it", len(b), MaxRequest)
	}
	if _, err := Parse(b, "alice"); err != nil {
		t.Fatal(err)
	}
}

// FuzzParse: Parse never panics; it refuses with ErrNotJSON or a
// *FieldError alone; a report it accepts is within every bound, and reads
// back the same from its own encoding, as the relay stores it.
func FuzzParse(f *testing.F) {
	f.Add(string(encode(f, valid())), "alice")
	v := valid()
	delete(v, "comment")
	f.Add(string(encode(f, v)), "bob")
	f.Add(`{"id":"`+idA+`","about":"bob","reason":"other","messages":[{"id":"`+idB+`","from":"bob","at":1,"text":"x"}]}`, "alice")
	f.Add(`{"id":"`+idA+`","about":"bob","reason":"other","messages":[{"id":"`+idB+`","from":"bob","at":1e3,"text":"\u0000"}]}`, "alice")
	f.Add(`{"messages":[{},{}],"x":1}`, "alice")
	f.Add(`[`, "alice")
	f.Fuzz(func(t *testing.T, body, reporter string) {
		r, err := Parse([]byte(body), reporter)
		if err != nil {
			var fe *FieldError
			if !errors.Is(err, ErrNotJSON) && !errors.As(err, &fe) {
				t.Fatalf("Parse: %v (%T)", err, err)
			}
			return
		}
		if n := len(r.Messages); n < 1 || n > MaxMessages || utf8.RuneCountInString(r.Comment) > MaxComment || r.About == "" || r.ID == "" {
			t.Fatalf("accepted out of bounds: %+v", r)
		}
		ids := map[string]bool{}
		for _, m := range r.Messages {
			if n := utf8.RuneCountInString(m.Text); n < 1 || n > MaxText || m.At < 1 || m.At > maxAt || ids[m.ID] ||
				(m.From != reporter && m.From != r.About) || strings.ContainsRune(m.Text, 0) {
				t.Fatalf("accepted a message out of bounds: %+v", m)
			}
			ids[m.ID] = true
		}
		again, err := Parse(encode(t, map[string]any{"id": r.ID, "about": r.About, "reason": r.Reason, "comment": r.Comment, "messages": r.Messages}), reporter)
		if err != nil || !reflect.DeepEqual(again, r) {
			t.Fatalf("re-encoded: %+v, %v; want %+v", again, err, r)
		}
	})
}
