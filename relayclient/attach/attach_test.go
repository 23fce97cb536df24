package attach

import (
	"bytes"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"flag"
	"os"
	"testing"
)

// The known-answer vectors live in testdata/vectors.json, read by these
// tests and by the browser test of webclient/static/attachcrypto.js. They
// are made from fixed inputs by `go test ./relayclient/attach -update`;
// the tests below fail if the code and the file disagree.
var update = flag.Bool("update", false, "rewrite testdata/vectors.json from the Go implementation")

const vectorsFile = "testdata/vectors.json"

type vectors struct {
	Comment string `json:"comment"`
	Padding []struct {
		N      int64 `json:"n"`
		Padded int64 `json:"padded"`
		Sealed int64 `json:"sealed"`
	} `json:"padding"`
	Sealed []struct {
		Key    string `json:"key"`    // hex
		N      int64  `json:"n"`      // plaintext: byte i is i % 251
		SHA256 string `json:"sha256"` // hex, of the whole ciphertext
		Digest string `json:"digest"` // hex
		Head   string `json:"head"`   // base64 of the first 64 bytes of the ciphertext
	} `json:"sealed"`
}

func pattern(n int64) []byte {
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(i % 251)
	}
	return b
}

func fixedKey() []byte {
	k := make([]byte, KeySize)
	for i := range k {
		k[i] = byte(i)
	}
	return k
}

func makeVectors(t *testing.T) vectors {
	t.Helper()
	v := vectors{Comment: "docs/crypto.md, Attachments; made by go test ./relayclient/attach -update"}
	for _, n := range []int64{1, 2, 255, 256, 257, 1000, 65535, 65536, 65537, 100000, 1 << 20, 104857600, 104857601} {
		v.Padding = append(v.Padding, struct {
			N      int64 `json:"n"`
			Padded int64 `json:"padded"`
			Sealed int64 `json:"sealed"`
		}{n, PaddedSize(n), SealedSize(n)})
	}
	for _, n := range []int64{1, 100, 65536, 65537, 200000} {
		ct, digest, err := Seal(fixedKey(), pattern(n))
		if err != nil {
			t.Fatal(err)
		}
		sum := sha256.Sum256(ct)
		v.Sealed = append(v.Sealed, struct {
			Key    string `json:"key"`
			N      int64  `json:"n"`
			SHA256 string `json:"sha256"`
			Digest string `json:"digest"`
			Head   string `json:"head"`
		}{hex.EncodeToString(fixedKey()), n, hex.EncodeToString(sum[:]), hex.EncodeToString(digest[:]), base64.StdEncoding.EncodeToString(ct[:min(64, len(ct))])})
	}
	return v
}

// TestVectors: the Go implementation makes exactly the vectors on file.
func TestVectors(t *testing.T) {
	v := makeVectors(t)
	got, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	got = append(got, '\n')
	if *update {
		if err := os.WriteFile(vectorsFile, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(vectorsFile)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Fatal("the code and testdata/vectors.json disagree: run go test ./relayclient/attach -update if the format changed on purpose")
	}
}

// TestPadme: padding never shrinks, adds at most 12 %, and keeps at most
// about log2(log2 n) + 1 significant bits, so that a padded length says
// little more than its order of magnitude.
func TestPadme(t *testing.T) {
	for n := int64(1); n < 1<<22; n = n*3/2 + 1 {
		p := PaddedSize(n)
		if p < n || (n > MinPadded && float64(p-n) > 0.12*float64(n)+1) {
			t.Fatalf("PaddedSize(%d) = %d", n, p)
		}
		if PaddedSize(p) != p {
			t.Fatalf("PaddedSize(%d) = %d, but that pads again to %d", n, p, PaddedSize(p))
		}
	}
	if SealedSize(100<<20) > 128<<20 {
		t.Fatalf("a 100 MiB file seals to %d bytes, over the relay's default limit", SealedSize(100<<20))
	}
}

// TestRoundTrip: what Seal makes, Open gives back, at sizes around the
// chunk boundaries.
func TestRoundTrip(t *testing.T) {
	key := NewKey()
	for _, n := range []int64{1, 15, 16, 17, ChunkSize - 1, ChunkSize, ChunkSize + 1, 3*ChunkSize + 5} {
		pt := pattern(n)
		ct, digest, err := Seal(key, pt)
		if err != nil {
			t.Fatal(err)
		}
		if int64(len(ct)) != SealedSize(n) {
			t.Fatalf("%d bytes sealed to %d, want %d", n, len(ct), SealedSize(n))
		}
		got, err := Open(key, ct, n, digest)
		if err != nil || !bytes.Equal(got, pt) {
			t.Fatalf("%d bytes: %v", n, err)
		}
	}
}

// TestOpenRefuses: a changed byte, two chunks swapped, a dropped last
// chunk, another key, a wrong size, non-zero padding: each is refused with
// its error. Where the digest would catch it first, the digest is made
// over the tampered bytes, as a lying sender would, so that the chunk's
// own binding is what refuses it.
func TestOpenRefuses(t *testing.T) {
	key := fixedKey()
	n := int64(2*ChunkSize + 100)
	ct, digest, err := Seal(key, pattern(n))
	if err != nil {
		t.Fatal(err)
	}
	redigest := func(b []byte) [32]byte {
		d := sha256.New()
		d.Write([]byte(digestLabel))
		for i := 0; i < len(b); i += ChunkSize + Overhead {
			h := sha256.Sum256(b[i:min(len(b), i+ChunkSize+Overhead)])
			d.Write(h[:])
		}
		var out [32]byte
		d.Sum(out[:0])
		return out
	}
	flipped := bytes.Clone(ct)
	flipped[ChunkSize+Overhead+7] ^= 1
	if _, err := Open(key, flipped, n, digest); !errors.Is(err, ErrDigest) {
		t.Errorf("a changed byte: %v", err)
	}
	if _, err := Open(key, flipped, n, redigest(flipped)); !errors.Is(err, ErrChunk) {
		t.Errorf("a changed byte under its own digest: %v", err)
	}
	swapped := bytes.Clone(ct)
	c := ChunkSize + Overhead
	copy(swapped[:c], ct[c:2*c])
	copy(swapped[c:2*c], ct[:c])
	if _, err := Open(key, swapped, n, redigest(swapped)); !errors.Is(err, ErrChunk) {
		t.Errorf("two chunks swapped: %v", err)
	}
	// The first two chunks alone, as if the attachment ended there: the
	// second was not sealed as the last.
	short := ct[:2*c]
	if _, err := Open(key, short, 2*ChunkSize, redigest(short)); !errors.Is(err, ErrChunk) && !errors.Is(err, ErrSize) {
		t.Errorf("the last chunk dropped: %v", err)
	}
	// A size that pads to another length. (One that pads to the same
	// length opens, its padding read as content: the size comes from the
	// encrypted message, as the key does.)
	if _, err := Open(key, ct, 2*n, digest); !errors.Is(err, ErrSize) {
		t.Errorf("a wrong size: %v", err)
	}
	if _, err := Open(NewKey(), ct, n, digest); !errors.Is(err, ErrChunk) {
		t.Errorf("another key: %v", err)
	}
	// Non-zero padding: sealed by hand, as a modified client would.
	m := int64(1000) // pads to 1024
	padded := pattern(PaddedSize(m))
	aead, _ := gcm(key)
	bad := aead.Seal(nil, nonce(0), padded, aad(0, true))
	if _, err := Open(key, bad, m, redigest(bad)); !errors.Is(err, ErrPadding) {
		t.Errorf("non-zero padding: %v", err)
	}
	// The control: the untouched ciphertext opens.
	if _, err := Open(key, ct, n, digest); err != nil {
		t.Fatalf("the control: %v", err)
	}
}
