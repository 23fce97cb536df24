package mlsheader_test

import (
	"bytes"
	"errors"
	"go/build"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"relay/mlsheader"
)

// seedGroup is the group id testdata/gen.mjs gives its group: 1, 2, … 32.
func seedGroup() []byte {
	g := make([]byte, 32)
	for i := range g {
		g[i] = byte(i + 1)
	}
	return g
}

func read(t testing.TB, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", "messages", name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestParseRealMessages reads messages made by another implementation
// (ts-mls, testdata/gen.mjs): the headers are what it framed, and the
// wire formats the relay does not take are refused.
func TestParseRealMessages(t *testing.T) {
	cases := []struct {
		file    string
		wire    uint16
		epoch   uint64
		content uint8
	}{
		{"commit-public-epoch0.mls", mlsheader.WirePublic, 0, mlsheader.ContentCommit},
		{"commit-private-epoch1.mls", mlsheader.WirePrivate, 1, mlsheader.ContentCommit},
		{"commit-private-epoch2.mls", mlsheader.WirePrivate, 2, mlsheader.ContentCommit},
		{"application-private-epoch3.mls", mlsheader.WirePrivate, 3, mlsheader.ContentApplication},
		{"proposal-public-epoch3.mls", mlsheader.WirePublic, 3, mlsheader.ContentProposal},
		// An external join: sender new_member_commit, which has no index.
		{"commit-external-epoch3.mls", mlsheader.WirePublic, 3, mlsheader.ContentCommit},
	}
	for _, c := range cases {
		t.Run(c.file, func(t *testing.T) {
			h, err := mlsheader.Parse(read(t, c.file))
			if err != nil {
				t.Fatal(err)
			}
			if h.WireFormat != c.wire || h.Epoch != c.epoch || h.ContentType != c.content || !bytes.Equal(h.GroupID, seedGroup()) {
				t.Fatalf("got wire %d, epoch %d, content %d, group %x; want %d, %d, %d, %x",
					h.WireFormat, h.Epoch, h.ContentType, h.GroupID, c.wire, c.epoch, c.content, seedGroup())
			}
		})
	}
	for _, f := range []string{"welcome.mls", "keypackage.mls", "groupinfo.mls"} {
		if _, err := mlsheader.Parse(read(t, f)); !errors.Is(err, mlsheader.ErrMalformed) {
			t.Errorf("%s: %v, want ErrMalformed (not a framed message)", f, err)
		}
	}
}

// priv builds a private message header around a group id given as its
// encoded vector, with the three trailing vectors empty.
func priv(groupVector []byte, epoch byte, content byte, tail ...byte) []byte {
	b := []byte{0, 1, 0, 2}
	b = append(b, groupVector...)
	b = append(b, 0, 0, 0, 0, 0, 0, 0, epoch, content)
	b = append(b, 0, 0, 0)
	return append(b, tail...)
}

// TestParseRefuses: each case breaks one rule of the header; its control
// is the same bytes with the rule kept, which parse.
func TestParseRefuses(t *testing.T) {
	ok := priv([]byte{2, 0xaa, 0xbb}, 5, mlsheader.ContentCommit)
	if h, err := mlsheader.Parse(ok); err != nil || h.Epoch != 5 || !bytes.Equal(h.GroupID, []byte{0xaa, 0xbb}) {
		t.Fatalf("control: %+v, %v", h, err)
	}
	long := bytes.Repeat([]byte{9}, 64)
	if _, err := mlsheader.Parse(priv(append([]byte{0x40, 64}, long...), 1, 3)); err != nil {
		t.Fatalf("control: a 64-byte group id in the 2-byte form: %v", err)
	}
	big := bytes.Repeat([]byte{9}, mlsheader.MaxGroupID+1)
	cases := map[string][]byte{
		"empty":                        {},
		"version mls11":                append([]byte{0, 2}, ok[2:]...),
		"wire format welcome":          append([]byte{0, 1, 0, 3}, ok[4:]...),
		"empty group id":               priv([]byte{0}, 1, 3),
		"group id too long":            priv(append([]byte{0x41, 0x01}, big...), 1, 3),
		"length not shortest":          priv([]byte{0x40, 2, 0xaa, 0xbb}, 1, 3),
		"length in 8 bytes":            priv([]byte{0xc0, 0, 0, 0, 0, 0, 0, 2, 0xaa, 0xbb}, 1, 3),
		"group id past the end":        {0, 1, 0, 2, 9, 1, 2},
		"epoch cut":                    ok[:4+3+7],
		"content type 0":               priv([]byte{2, 0xaa, 0xbb}, 1, 0),
		"content type 4":               priv([]byte{2, 0xaa, 0xbb}, 1, 4),
		"trailing byte":                priv([]byte{2, 0xaa, 0xbb}, 1, 3, 0),
		"ciphertext missing":           ok[:len(ok)-1],
		"public: sender type 0":        {0, 1, 0, 1, 1, 0xaa, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 3},
		"public: member index cut":     {0, 1, 0, 1, 1, 0xaa, 0, 0, 0, 0, 0, 0, 0, 1, 1, 0, 0},
		"public: content type cut":     {0, 1, 0, 1, 1, 0xaa, 0, 0, 0, 0, 0, 0, 0, 1, 4, 0},
		"public: aad past the end":     {0, 1, 0, 1, 1, 0xaa, 0, 0, 0, 0, 0, 0, 0, 1, 4, 5, 3},
		"real commit cut in the aad":   read(t, "commit-private-epoch2.mls")[:4+33+8+1+50],
		"real commit with a byte more": append(read(t, "commit-private-epoch1.mls"), 0),
	}
	for name, b := range cases {
		if h, err := mlsheader.Parse(b); !errors.Is(err, mlsheader.ErrMalformed) {
			t.Errorf("%s: %+v, %v; want ErrMalformed", name, h, err)
		}
	}
	// The public control: a member sender, no aad, a commit.
	if h, err := mlsheader.Parse([]byte{0, 1, 0, 1, 1, 0xaa, 0, 0, 0, 0, 0, 0, 0, 1, 1, 0, 0, 0, 7, 0, 3}); err != nil || h.ContentType != 3 {
		t.Fatalf("public control: %+v, %v", h, err)
	}
}

// FuzzParse: Parse never panics, refuses only with ErrMalformed, and what
// it accepts is a framed message whose group id it found inside the
// input, within bounds; encoding the header back yields the input's
// prefix. Seeded with real messages (testdata/messages).
func FuzzParse(f *testing.F) {
	entries, err := os.ReadDir(filepath.Join("testdata", "messages"))
	if err != nil {
		f.Fatal(err)
	}
	for _, e := range entries {
		f.Add(read(f, e.Name()))
	}
	f.Add(priv([]byte{2, 0xaa, 0xbb}, 5, mlsheader.ContentCommit))
	f.Fuzz(func(t *testing.T, b []byte) {
		h, err := mlsheader.Parse(b)
		if err != nil {
			if !errors.Is(err, mlsheader.ErrMalformed) {
				t.Fatalf("error %v does not wrap ErrMalformed", err)
			}
			return
		}
		if h.WireFormat != mlsheader.WirePublic && h.WireFormat != mlsheader.WirePrivate {
			t.Fatalf("wire format %d accepted", h.WireFormat)
		}
		if n := len(h.GroupID); n == 0 || n > mlsheader.MaxGroupID {
			t.Fatalf("group id of %d bytes accepted", n)
		}
		if h.ContentType < mlsheader.ContentApplication || h.ContentType > mlsheader.ContentCommit {
			t.Fatalf("content type %d accepted", h.ContentType)
		}
		// The header re-encoded (version, wire format, group id in the
		// shortest form, epoch) is where Parse read it from.
		want := []byte{0, 1, byte(h.WireFormat >> 8), byte(h.WireFormat)}
		want = append(want, encodeLength(len(h.GroupID))...)
		want = append(want, h.GroupID...)
		for i := 7; i >= 0; i-- {
			want = append(want, byte(h.Epoch>>(8*i)))
		}
		if !bytes.HasPrefix(b, want) {
			t.Fatalf("the header %+v is not the input's prefix", h)
		}
	})
}

func encodeLength(n int) []byte {
	switch {
	case n < 1<<6:
		return []byte{byte(n)}
	case n < 1<<14:
		return []byte{0x40 | byte(n>>8), byte(n)}
	}
	return []byte{0x80 | byte(n>>24), byte(n >> 16), byte(n >> 8), byte(n)}
}

// TestLeaf: the parser imports nothing of this module, so it can hold no
// key and touch no table; only the standard library.
func TestLeaf(t *testing.T) {
	pkg, err := build.ImportDir(".", 0)
	if err != nil {
		t.Fatal(err)
	}
	for _, imp := range pkg.Imports {
		if strings.Contains(imp, ".") || strings.HasPrefix(imp, "relay/") {
			t.Errorf("mlsheader imports %s; it is a leaf of the standard library only", imp)
		}
	}
}

// TestCheckWelcome: a Welcome made by another implementation (ts-mls,
// testdata/gen.mjs) passes; the framed messages, key package and GroupInfo
// of the same run do not, nor does anything that breaks one of the 4
// bytes read.
func TestCheckWelcome(t *testing.T) {
	if err := mlsheader.CheckWelcome(read(t, "welcome.mls")); err != nil {
		t.Fatalf("real welcome: %v", err)
	}
	// Nothing after the framing is read: the 4 bytes alone pass.
	if err := mlsheader.CheckWelcome([]byte{0, 1, 0, 3}); err != nil {
		t.Fatalf("the framing alone: %v", err)
	}
	entries, err := os.ReadDir(filepath.Join("testdata", "messages"))
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if e.Name() == "welcome.mls" {
			continue
		}
		if err := mlsheader.CheckWelcome(read(t, e.Name())); !errors.Is(err, mlsheader.ErrMalformed) {
			t.Errorf("%s: %v, want ErrMalformed (not a welcome)", e.Name(), err)
		}
	}
	for name, b := range map[string][]byte{
		"empty":              {},
		"version cut":        {0},
		"wire format cut":    {0, 1, 0},
		"version mls11":      {0, 2, 0, 3},
		"version 0":          {0, 0, 0, 3},
		"wire format 4":      {0, 1, 0, 4},
		"wire format 0x0103": {0, 1, 1, 3},
		"text":               []byte("hello"),
	} {
		if err := mlsheader.CheckWelcome(b); !errors.Is(err, mlsheader.ErrMalformed) {
			t.Errorf("%s: %v, want ErrMalformed", name, err)
		}
	}
}

// FuzzCheckWelcome: CheckWelcome never panics, refuses only with
// ErrMalformed, and accepts exactly the inputs that begin with version
// mls10 and wire format mls_welcome. Seeded with real messages.
func FuzzCheckWelcome(f *testing.F) {
	entries, err := os.ReadDir(filepath.Join("testdata", "messages"))
	if err != nil {
		f.Fatal(err)
	}
	for _, e := range entries {
		f.Add(read(f, e.Name()))
	}
	f.Add([]byte{0, 1, 0, 3})
	f.Add([]byte{0, 1, 0})
	f.Fuzz(func(t *testing.T, b []byte) {
		err := mlsheader.CheckWelcome(b)
		if err != nil && !errors.Is(err, mlsheader.ErrMalformed) {
			t.Fatalf("error %v does not wrap ErrMalformed", err)
		}
		if want := bytes.HasPrefix(b, []byte{0, 1, 0, 3}); (err == nil) != want {
			t.Fatalf("CheckWelcome(%x) = %v; a welcome framing: %v", b, err, want)
		}
	})
}
