package canonical

import (
	"encoding/base64"
	"errors"
	"strings"
	"testing"

	"github.com/oklog/ulid/v2"
)

func TestValidUsername(t *testing.T) {
	for _, ok := range []string{"abc", "a_1", strings.Repeat("z", 32), "___"} {
		if !ValidUsername(ok) {
			t.Errorf("%q refused", ok)
		}
	}
	for _, bad := range []string{"", "ab", strings.Repeat("z", 33), "Abc", "ab-c", "ab c", "abç", "abc\n"} {
		if ValidUsername(bad) {
			t.Errorf("%q accepted", bad)
		}
	}
}

func FuzzValidUsername(f *testing.F) {
	for _, s := range []string{"alice", "ab", "Alice", "a_b_c", "ünï"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if !ValidUsername(s) {
			return
		}
		if len(s) < 3 || len(s) > 32 || strings.Trim(s, "abcdefghijklmnopqrstuvwxyz0123456789_") != "" {
			t.Fatalf("accepted %q", s)
		}
	})
}

func FuzzDecodeStdBase64(f *testing.F) {
	for _, s := range []string{"", "eA==", "eA", "eB==", "-_8=", "YWJj\nZGVm", "AAAA"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		b, err := DecodeStdBase64(s)
		if err != nil {
			return
		}
		if base64.StdEncoding.EncodeToString(b) != s {
			t.Fatalf("accepted %q, which is not the canonical spelling of its bytes", s)
		}
	})
}

// FuzzParseULID: whatever is accepted is the canonical spelling of its ULID,
// and every refusal is ErrNotCanonicalULID.
func FuzzParseULID(f *testing.F) {
	for _, s := range []string{ulid.Make().String(), "", "01ARZ3NDEKTSV4RRFFQ69G5FAV", "01arz3ndektsv4rrffq69g5fav", "8ZZZZZZZZZZZZZZZZZZZZZZZZZ", "ILOU0000000000000000000000"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		id, err := ParseULID(s)
		if err != nil {
			if !errors.Is(err, ErrNotCanonicalULID) {
				t.Fatalf("untyped error %v", err)
			}
			return
		}
		if id.String() != s {
			t.Fatalf("accepted %q, which is not canonical (%s)", s, id)
		}
	})
}
