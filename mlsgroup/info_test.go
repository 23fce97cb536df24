package mlsgroup

import (
	"bytes"
	"encoding/base64"
	"errors"
	"strings"
	"testing"
)

// TestParseID: a group id has one spelling, 43 characters of unpadded
// base64url of 32 bytes; each refusal has its control beside it.
func TestParseID(t *testing.T) {
	id := bytes.Repeat([]byte{0xfb}, IDSize) // encodes to '-' and '_'
	good := base64.RawURLEncoding.EncodeToString(id)
	for _, c := range []struct {
		s  string
		ok bool
	}{
		{good, true},
		{strings.Repeat("A", 43), true},
		{strings.Repeat("A", 42), false},                                    // 31.5 bytes
		{strings.Repeat("A", 44), false},                                    // 33 bytes
		{strings.Repeat("A", 42) + "=", false},                              // padding
		{strings.Repeat("A", 42) + "B", false},                              // trailing bits not zero
		{strings.Repeat("A", 42) + "E", true},                               // the next value with them zero
		{base64.StdEncoding.EncodeToString(id)[:43], false},                 // the standard alphabet
		{strings.Repeat("A", 21) + "\n" + strings.Repeat("A", 21), false},   // a line break the decoder would skip
		{strings.Repeat("A", 20) + "\r\n" + strings.Repeat("A", 21), false}, // the same at the right length
		{strings.Repeat("A", 43) + "\n", false},                             // 32 bytes, and a line break
		{"", false},
	} {
		b, err := ParseID(c.s)
		if c.ok != (err == nil) {
			t.Errorf("%q: %v, want ok %v", c.s, err, c.ok)
			continue
		}
		if err != nil && !errors.Is(err, ErrBadID) {
			t.Errorf("%q: %v, want ErrBadID", c.s, err)
		}
		if err == nil && (len(b) != IDSize || FormatID(b) != c.s) {
			t.Errorf("%q: parsed to %x, which spells %q", c.s, b, FormatID(b))
		}
	}
	if b, _ := ParseID(good); !bytes.Equal(b, id) {
		t.Fatalf("parsed %x, want %x", b, id)
	}
}

// FuzzParseID: whatever the path carries, an id is accepted only as
// IDSize bytes whose one spelling is exactly the input, and refused with
// ErrBadID otherwise.
func FuzzParseID(f *testing.F) {
	for _, s := range []string{strings.Repeat("A", 43), strings.Repeat("_", 42) + "w", strings.Repeat("A", 42) + "B",
		strings.Repeat("A", 42) + "=", strings.Repeat("A", 44), "", "\n", strings.Repeat("+", 43)} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		b, err := ParseID(s)
		if err != nil {
			if !errors.Is(err, ErrBadID) {
				t.Fatalf("%q: %v, want ErrBadID", s, err)
			}
			return
		}
		if len(b) != IDSize || FormatID(b) != s {
			t.Fatalf("%q accepted as %x, which spells %q", s, b, FormatID(b))
		}
	})
}
