// Package attach is the encryption of an attachment (docs/crypto.md,
// "Attachments"), the Go twin of webclient/static/attachcrypto.js: both
// are held to the known-answer vectors in testdata/vectors.json.
//
// An attachment is padded to a bucket (Padmé), cut into chunks of
// ChunkSize bytes, and each chunk sealed with AES-256-GCM under a fresh
// key, with the chunk's index as the nonce and the index and whether it is
// the last chunk bound in as associated data: chunks cannot be reordered,
// dropped from the end or moved to another attachment. The digest is a
// SHA-256 over the SHA-256 of each sealed chunk, computed as the chunks
// come, never over the whole attachment at once.
package attach

import (
	"bytes"
	"crypto/aes"
	"crypto/cipher"
	"crypto/rand"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"math/bits"
)

const (
	// KeySize is an attachment key's length: AES-256.
	KeySize = 32
	// ChunkSize is the plaintext of every chunk but the last.
	ChunkSize = 64 << 10
	// Overhead is what sealing adds to a chunk: the GCM tag.
	Overhead = 16

	aadLabel    = "relay/v1 attachment\x00"
	digestLabel = "relay/v1 attachment digest\x00"
)

var (
	// ErrDigest is an attachment whose sealed chunks do not hash to the
	// digest its message gave.
	ErrDigest = errors.New("attach: the attachment does not match its digest")
	// ErrSize is a ciphertext whose length is not the one its size makes.
	ErrSize = errors.New("attach: the attachment is not the length its message gives")
	// ErrChunk is a chunk that does not open: tampered with, out of place,
	// or sealed under another key.
	ErrChunk = errors.New("attach: a chunk of the attachment does not open")
	// ErrPadding is padding that is not zeros.
	ErrPadding = errors.New("attach: the attachment's padding is not zeros")
)

// NewKey draws an attachment key.
func NewKey() []byte {
	k := make([]byte, KeySize)
	if _, err := rand.Read(k); err != nil {
		panic(err) // crypto/rand does not fail (Go 1.24)
	}
	return k
}

// MinPadded is the least an attachment is padded to: below it, every
// length looks the same.
const MinPadded = 256

// PaddedSize is the length an attachment of n bytes is padded to:
// MinPadded, or Padmé above it (at most 12 % more, and a padded length
// tells little more than the order of magnitude). n is at least 1.
func PaddedSize(n int64) int64 {
	if n <= MinPadded {
		return MinPadded
	}
	e := int64(bits.Len64(uint64(n))) - 1 // floor(log2 n)
	s := int64(bits.Len64(uint64(e)))     // floor(log2 e) + 1
	mask := int64(1)<<(e-s) - 1
	return (n + mask) &^ mask
}

// Chunks is the number of chunks of an attachment of n bytes.
func Chunks(n int64) int64 {
	return (PaddedSize(n) + ChunkSize - 1) / ChunkSize
}

// SealedSize is the length of the ciphertext of an attachment of n bytes,
// the size uploaded to the relay.
func SealedSize(n int64) int64 {
	return PaddedSize(n) + Chunks(n)*Overhead
}

func nonce(i int64) []byte {
	n := make([]byte, 12)
	binary.BigEndian.PutUint64(n[4:], uint64(i))
	return n
}

func aad(i int64, last bool) []byte {
	a := make([]byte, 0, len(aadLabel)+5)
	a = append(a, aadLabel...)
	a = binary.BigEndian.AppendUint32(a, uint32(i))
	if last {
		return append(a, 1)
	}
	return append(a, 0)
}

func gcm(key []byte) (cipher.AEAD, error) {
	b, err := aes.NewCipher(key)
	if err != nil {
		return nil, err
	}
	return cipher.NewGCM(b)
}

// Seal encrypts plaintext (at least one byte) under key and returns the
// ciphertext to upload and its digest.
func Seal(key, plaintext []byte) ([]byte, [32]byte, error) {
	if len(plaintext) == 0 {
		return nil, [32]byte{}, errors.New("attach: an attachment has at least one byte")
	}
	aead, err := gcm(key)
	if err != nil {
		return nil, [32]byte{}, err
	}
	n := int64(len(plaintext))
	padded := make([]byte, PaddedSize(n))
	copy(padded, plaintext)
	k := Chunks(n)
	out := make([]byte, 0, SealedSize(n))
	d := sha256.New()
	d.Write([]byte(digestLabel))
	for i := range k {
		chunk := padded[i*ChunkSize : min(int64(len(padded)), (i+1)*ChunkSize)]
		start := len(out)
		out = aead.Seal(out, nonce(i), chunk, aad(i, i == k-1))
		h := sha256.Sum256(out[start:])
		d.Write(h[:])
	}
	var digest [32]byte
	d.Sum(digest[:0])
	return out, digest, nil
}

// Open checks sealed against digest and the size n its message gives, and
// returns the plaintext.
func Open(key, sealed []byte, n int64, digest [32]byte) ([]byte, error) {
	if n < 1 || int64(len(sealed)) != SealedSize(n) {
		return nil, ErrSize
	}
	aead, err := gcm(key)
	if err != nil {
		return nil, err
	}
	k := Chunks(n)
	d := sha256.New()
	d.Write([]byte(digestLabel))
	for i := range k {
		c := sealed[i*(ChunkSize+Overhead) : min(int64(len(sealed)), (i+1)*(ChunkSize+Overhead))]
		h := sha256.Sum256(c)
		d.Write(h[:])
	}
	var got [32]byte
	d.Sum(got[:0])
	if got != digest {
		return nil, ErrDigest
	}
	out := make([]byte, 0, PaddedSize(n))
	for i := range k {
		c := sealed[i*(ChunkSize+Overhead) : min(int64(len(sealed)), (i+1)*(ChunkSize+Overhead))]
		if out, err = aead.Open(out, nonce(i), c, aad(i, i == k-1)); err != nil {
			return nil, ErrChunk
		}
	}
	if !bytes.Equal(out[n:], make([]byte, len(out)-int(n))) {
		return nil, ErrPadding
	}
	return out[:n], nil
}
