package relay

import (
	"bytes"
	"encoding/base64"
	"errors"
	"strconv"
	"strings"
	"testing"

	"relay/attachments"
	"relay/canonical"
)

// TestParseAttachmentSize: each refusal has its control, which parses.
func TestParseAttachmentSize(t *testing.T) {
	for _, c := range []struct {
		body string
		want string
		size int64
	}{
		{`{"size": 1}`, "", 1},
		{`{"size": 9223372036854775807}`, "", 1<<63 - 1}, // the relay's limit comes after
		{`{"size": 0}`, "bad_attachment_size", 0},
		{`{"size": -5}`, "bad_attachment_size", 0},
		{`{}`, "bad_attachment_size", 0},
		{`{"size": null}`, "bad_attachment_size", 0},
		{`{"size": 1.5}`, "bad_json", 0},
		{`{"size": "1"}`, "bad_json", 0},
		{`{"size": 9223372036854775808}`, "bad_json", 0},
		{`{"size": 1, "size": 2}`, "bad_json", 0},
		{`{"size": 1, "name": "photo.jpg"}`, "", 1}, // other members are ignored, never stored
		{`[1]`, "bad_json", 0},
	} {
		size, err := parseAttachmentSize([]byte(c.body))
		if got := apiCode(t, err); got != c.want || size != c.size {
			t.Errorf("%s: %d, %q; want %d, %q", c.body, size, got, c.size, c.want)
		}
	}
}

// FuzzParseAttachmentSize: a body is refused with bad_json or
// bad_attachment_size, or gives a size of 1 or more.
func FuzzParseAttachmentSize(f *testing.F) {
	for _, s := range []string{`{"size": 1}`, `{"size": 0}`, `{"size": -1}`, `{"size": 1e3}`, `{}`, "{\"size\": \xff}", `[`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		size, err := parseAttachmentSize(data)
		if err != nil {
			if c := apiCode(t, err); c != "bad_json" && c != "bad_attachment_size" {
				t.Fatalf("%q: %s", data, c)
			}
			return
		}
		if size < 1 {
			t.Fatalf("%q: size %d accepted", data, size)
		}
	})
}

// TestAttachmentPath: an id is the one spelling of 16 bytes; a part index
// is plain decimal below 2^31.
func TestAttachmentPath(t *testing.T) {
	id := make([]byte, attachments.IDSize)
	id[15] = 0xff
	good := formatAttachmentID(id)
	for _, c := range []struct {
		s  string
		ok bool
	}{
		{good, true}, {"AAAAAAAAAAAAAAAAAAAAAA", true},
		{good[:21] + "_", false}, // trailing bits set
		{good + "A", false}, {good[:21], false}, {good[:20] + "=" + good[21:], false},
		{"AAAAAAAAAAAAAAAAAAAA\nAA", false}, {"AAAAAAAAAAAAAAAAAAAA+/", false}, {"", false},
	} {
		b, ok := parseAttachmentID(c.s)
		if ok != c.ok || (ok && formatAttachmentID(b) != c.s) {
			t.Errorf("parseAttachmentID(%q) = %x, %v", c.s, b, ok)
		}
	}
	for _, c := range []struct {
		s    string
		want int
		ok   bool
	}{
		{"0", 0, true}, {"7", 7, true}, {"199", 199, true}, {"2147483647", 1<<31 - 1, true},
		{"2147483648", 0, false}, {"00", 0, false}, {"07", 0, false}, {"-1", 0, false}, {"+1", 0, false},
		{"", 0, false}, {"1 ", 0, false}, {"1e2", 0, false}, {"٣", 0, false}, {"99999999999", 0, false},
	} {
		n, err := parsePartIndex(c.s)
		if (err == nil) != c.ok || n != c.want {
			t.Errorf("parsePartIndex(%q) = %d, %v", c.s, n, err)
		}
		if err != nil && apiCode(t, err) != "bad_part" {
			t.Errorf("parsePartIndex(%q): %v", c.s, err)
		}
	}
}

// FuzzAttachmentPath: an id that parses has exactly one spelling, 16
// bytes; a part index that parses is what it spells, from 0.
func FuzzAttachmentPath(f *testing.F) {
	for _, s := range []string{"AAAAAAAAAAAAAAAAAAAAAA", "AAAAAAAAAAAAAAAAAAAAA_", "0", "01", "-1", "2147483648"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if b, ok := parseAttachmentID(s); ok {
			if len(b) != attachments.IDSize || formatAttachmentID(b) != s {
				t.Fatalf("%q: parsed to %x", s, b)
			}
			if _, err := base64.RawURLEncoding.Strict().DecodeString(s); err != nil {
				t.Fatalf("%q: %v", s, err)
			}
		}
		n, err := parsePartIndex(s)
		if err != nil {
			if c := apiCode(t, err); c != "bad_part" {
				t.Fatalf("%q: %s", s, c)
			}
			return
		}
		if n < 0 || strconv.Itoa(n) != s {
			t.Fatalf("%q: parsed to %d", s, n)
		}
	})
}

// TestParseRange: what RFC 9110 allows for one range, clipped to the size;
// everything else is bad_range with the size in Content-Range.
func TestParseRange(t *testing.T) {
	for _, c := range []struct {
		h       []string
		off, n  int64
		partial bool
		ok      bool
	}{
		{nil, 0, 100, false, true},
		{[]string{"bytes=0-0"}, 0, 1, true, true},
		{[]string{"bytes=0-99"}, 0, 100, true, true},
		{[]string{"bytes=10-"}, 10, 90, true, true},
		{[]string{"bytes=99-"}, 99, 1, true, true},
		{[]string{"bytes=90-200"}, 90, 10, true, true},
		{[]string{"bytes=-10"}, 90, 10, true, true},
		{[]string{"bytes=-100"}, 0, 100, true, true},
		{[]string{"bytes=-1000"}, 0, 100, true, true},
		{[]string{"bytes=100-"}, 0, 0, false, false},
		{[]string{"bytes=-0"}, 0, 0, false, false},
		{[]string{"bytes=5-4"}, 0, 0, false, false},
		{[]string{"bytes=0-1,3-4"}, 0, 0, false, false},
		{[]string{"bytes=0-1", "bytes=3-4"}, 0, 0, false, false},
		{[]string{"bytes=-"}, 0, 0, false, false},
		{[]string{"bytes=1"}, 0, 0, false, false},
		{[]string{"Bytes=1-2"}, 0, 0, false, false},
		{[]string{"bytes=01-2"}, 1, 2, true, true}, // leading zeros are digits (RFC 9110)
		{[]string{"bytes=99999999999999999999-"}, 0, 0, false, false},
		{[]string{""}, 0, 0, false, false},
	} {
		off, n, partial, err := parseRange(c.h, 100)
		if (err == nil) != c.ok || off != c.off || n != c.n || partial != c.partial {
			t.Errorf("parseRange(%q) = %d, %d, %v, %v", c.h, off, n, partial, err)
		}
		if err != nil && !isBadRange(err, 100) {
			t.Errorf("parseRange(%q): %v", c.h, err)
		}
	}
}

// isBadRange says whether err is 416 bad_range naming size.
func isBadRange(err error, size int64) bool {
	var ae *apiError
	return errors.As(err, &ae) && ae.status == 416 && ae.code == "bad_range" &&
		ae.header["Content-Range"] == "bytes */"+strconv.FormatInt(size, 10)
}

// FuzzParseRange: a range that parses lies within the attachment and is
// not empty; any other is bad_range.
func FuzzParseRange(f *testing.F) {
	for _, s := range []string{"bytes=0-9", "bytes=-5", "bytes=5-", "bytes=9-5", "bytes=0-1,2-3", "bytes=--1", "bytes=1-\x00"} {
		f.Add(s, int64(100))
	}
	f.Fuzz(func(t *testing.T, h string, size int64) {
		if size < 1 {
			size = 1
		}
		off, n, partial, err := parseRange([]string{h}, size)
		if err != nil {
			if !isBadRange(err, size) {
				t.Fatalf("%q: %v", h, err)
			}
			return
		}
		if !partial || off < 0 || n < 1 || off+n > size || bytes.ContainsAny([]byte(h), ",\n") {
			t.Fatalf("%q of %d: %d, %d, %v", h, size, off, n, partial)
		}
	})
}

// TestParseFinish: no body and no "to" are no list; a list, even empty,
// is one; a device is a canonical ULID, alone; each refusal has its code.
func TestParseFinish(t *testing.T) {
	const dev = "01KDW6A0000000000000000001"
	for _, c := range []struct {
		body   string
		want   []string
		device string
		code   string
	}{
		{``, nil, "", ""},
		{`{}`, nil, "", ""},
		{`{"to": null}`, nil, "", ""},
		{`{"to": []}`, []string{}, "", ""},
		{`{"to": ["bob", "carol"]}`, []string{"bob", "carol"}, "", ""},
		{`{"to": ["bob", "carol", "dave"]}`, nil, "", "too_many_recipients"},
		{`{"to": ["Bob"]}`, nil, "", "bad_username"},
		{`{"to": "bob"}`, nil, "", "bad_json"},
		{`{"to": [1]}`, nil, "", "bad_json"},
		{`{"to": [], "to": []}`, nil, "", "bad_json"},
		{`[`, nil, "", "bad_json"},
		{`{"device": "` + dev + `"}`, nil, dev, ""},
		{`{"device": "` + strings.ToLower(dev) + `"}`, nil, "", "bad_finish"},
		{`{"device": ""}`, nil, "", "bad_finish"},
		{`{"device": "` + dev + `", "to": []}`, nil, "", "bad_finish"},
		{`{"device": 1}`, nil, "", "bad_json"},
	} {
		got, device, err := parseFinish([]byte(c.body), 2)
		if code := apiCode(t, err); code != c.code || (got == nil) != (c.want == nil) || len(got) != len(c.want) || device != c.device {
			t.Errorf("%s: %v, %q, %q; want %v, %q, %q", c.body, got, device, code, c.want, c.device, c.code)
		}
	}
}

// FuzzParseFinish: a body is refused with a stable code, or gives no list
// or a list of at most the limit of valid usernames.
func FuzzParseFinish(f *testing.F) {
	for _, s := range []string{``, `{}`, `{"to": []}`, `{"to": ["bob"]}`, `{"to": ["Bob"]}`, `{"to": [1]}`, "{\"to\": [\"\xff\"]}", `{"device": "01KDW6A0000000000000000001"}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		to, device, err := parseFinish(data, 3)
		if err != nil {
			if c := apiCode(t, err); c != "bad_json" && c != "bad_username" && c != "too_many_recipients" && c != "bad_finish" {
				t.Fatalf("%q: %s", data, c)
			}
			return
		}
		if device != "" {
			if _, err := canonical.ParseULID(device); err != nil || to != nil {
				t.Fatalf("%q: device %q with %v", data, device, to)
			}
		}
		if len(to) > 3 {
			t.Fatalf("%q: %d names", data, len(to))
		}
		for _, u := range to {
			if !canonical.ValidUsername(u) {
				t.Fatalf("%q: %q accepted", data, u)
			}
		}
	})
}
