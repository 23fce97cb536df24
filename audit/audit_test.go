package audit

import (
	"bytes"
	"crypto/rand"
	"encoding/base64"
	"encoding/hex"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf16"
)

func write(t *testing.T, dir, name string, data []byte) {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, data, 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestFormsRefuseShortNeedles(t *testing.T) {
	if _, err := Forms("short"); err == nil {
		t.Fatal("a 5-byte needle was accepted")
	}
}

// TestScanFindsEveryForm hides the needle in each form, inside longer
// content and at each base64 alignment, and expects each to be found.
func TestScanFindsEveryForm(t *testing.T) {
	const needle = "marker-Zq7Käse"
	dir := t.TempDir()
	noise := []byte(strings.Repeat("\x00\x17noise", 50))
	u16 := utf16.Encode([]rune(needle))
	le := make([]byte, 0)
	for _, c := range u16 {
		le = append(le, byte(c), byte(c>>8))
	}
	write(t, dir, "base/1/16384", append(append(append([]byte{}, noise...), needle...), noise...))
	write(t, dir, "pg_wal/000000010000000000000001", append(append([]byte{}, noise...), le...))
	write(t, dir, "base/1/hex", []byte("x"+strings.ToUpper(hex.EncodeToString([]byte(needle)))+"y"))
	for k := 0; k < 3; k++ {
		text := strings.Repeat("a", k) + needle + "tail"
		write(t, dir, "b64/"+string(rune('0'+k)), []byte("{\"body\":\""+base64.StdEncoding.EncodeToString([]byte(text))+"\"}"))
	}
	write(t, dir, "clean", []byte(strings.Repeat("ciphertext only ", 1000)))

	forms, err := Forms(needle)
	if err != nil {
		t.Fatal(err)
	}
	rep, err := Scan(dir, forms, nil)
	if err != nil {
		t.Fatal(err)
	}
	found := map[string]string{}
	for _, h := range rep.Hits {
		found[h.Path] = h.Form.Name
	}
	want := map[string]string{"base/1/16384": "utf-8", "pg_wal/000000010000000000000001": "utf-16le", "base/1/hex": "HEX", "b64/0": "base64", "b64/1": "base64", "b64/2": "base64"}
	for p, form := range want {
		if found[p] != form {
			t.Errorf("%s: found %q, want %s", p, found[p], form)
		}
	}
	if _, ok := found["clean"]; ok || rep.Files != 7 {
		t.Fatalf("hits %v in %d files", rep.Hits, rep.Files)
	}
	if rep.Hits[0].Path != "b64/0" {
		t.Fatalf("hits not sorted: %v", rep.Hits)
	}
}

// TestScanAcrossChunks puts the needle across the boundary of two reads and
// checks it is found exactly once.
func TestScanAcrossChunks(t *testing.T) {
	const needle = "boundary-needle"
	dir := t.TempDir()
	for _, at := range []int{chunk - 5, chunk - len(needle), chunk, 2*chunk - 1} {
		data := make([]byte, 3*chunk)
		copy(data[at:], needle)
		write(t, dir, "f", data)
		forms, _ := Forms(needle)
		rep, err := Scan(dir, forms, nil)
		if err != nil {
			t.Fatal(err)
		}
		if len(rep.Hits) != 1 || rep.Hits[0].Offset != int64(at) {
			t.Fatalf("needle at %d: hits %+v", at, rep.Hits)
		}
		if rep.Bytes != 3*chunk {
			t.Fatalf("read %d bytes, want %d", rep.Bytes, 3*chunk)
		}
	}
}

// TestScanMissingDirectory: a data directory that is not there is an error,
// not an empty, clean audit.
func TestScanMissingDirectory(t *testing.T) {
	forms, _ := Forms("needle-needle")
	if rep, err := Scan(filepath.Join(t.TempDir(), "missing"), forms, nil); err == nil || rep != nil {
		t.Fatalf("a missing data directory: %v", err)
	}
}

// TestFilePieces: a file's needles are 16 pieces of 48 bytes past its
// first quarter (at most 1 KiB), each a run of the file; a short file is
// one needle, whole; a file under MinNeedle is refused.
func TestFilePieces(t *testing.T) {
	data := make([]byte, 10000)
	_, _ = rand.Read(data)
	p, err := FilePieces(data)
	if err != nil || len(p) != 16 {
		t.Fatalf("%d pieces, %v", len(p), err)
	}
	for i, s := range p {
		at := bytes.Index(data, []byte(s))
		if len(s) != 48 || at < 1024 {
			t.Fatalf("piece %d: %d bytes at %d", i, len(s), at)
		}
	}
	if last := bytes.LastIndex(data, []byte(p[15])); last+48 < len(data)-64 {
		t.Fatalf("the last piece ends at %d of %d: the file's end is not searched", last+48, len(data))
	}
	if p, err := FilePieces(data[:500]); err != nil || len(p) != 1 || p[0] != string(data[:500]) {
		t.Fatalf("a short file: %d pieces, %v", len(p), err)
	}
	if _, err := FilePieces(data[:7]); err == nil {
		t.Fatal("a file of 7 bytes is a needle")
	}
}
