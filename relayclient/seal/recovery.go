package seal

import (
	"crypto/ecdh"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base32"
	"errors"
	"fmt"
	"strings"
)

// The recovery key and its blob, docs/crypto.md "Recovery key".
const (
	// RecoveryKeySize is the length of a recovery key: 160 random bits.
	RecoveryKeySize = 20
	// RecoveryVersion is the first byte of every blob this package makes.
	RecoveryVersion = 1
	// RecoveryBlobSize is the length of a version 1 blob: version ‖ IV ‖
	// AES-GCM(d ‖ account public key).
	RecoveryBlobSize = 1 + IVSize + LinkPlaintextSize + TagSize

	recoveryChars = 32 // base32 characters of the 20 key bytes
)

var recoveryEncoding = base32.StdEncoding.WithPadding(base32.NoPadding)

// Errors of the recovery key. A person who mistypes the key gets
// [ErrNotRecoveryKey] (wrapped in a [*RecoveryKeyError] that says why)
// before anything is decrypted; a well-formed key that is not the one the
// blob was made with gets [ErrWrongRecoveryKey].
var (
	ErrNotRecoveryKey   = errors.New("seal: not a recovery key")
	ErrWrongRecoveryKey = errors.New("seal: this recovery key does not fit this account")
	ErrRecoveryBlob     = errors.New("seal: not a version 1 recovery blob")
)

// RecoveryKeyError says why a text is not a recovery key. It never holds
// the text: that is the key, or close to it.
type RecoveryKeyError struct {
	Reason string
}

func (e *RecoveryKeyError) Error() string { return ErrNotRecoveryKey.Error() + ": " + e.Reason }

// Unwrap makes errors.Is(err, ErrNotRecoveryKey) hold.
func (e *RecoveryKeyError) Unwrap() error { return ErrNotRecoveryKey }

// NewRecoveryKey makes a recovery key and returns it with its written form.
func NewRecoveryKey() ([]byte, string) {
	key := make([]byte, RecoveryKeySize)
	_, _ = rand.Read(key) // crypto/rand.Read never fails
	return key, FormatRecoveryKey(key)
}

// checkChar is the base32 character of the top 5 bits of
// SHA-256("relay/v1 recovery check" 0 ‖ key).
func checkChar(key []byte) byte {
	h := sha256.New()
	h.Write([]byte("relay/v1 recovery check\x00"))
	h.Write(key)
	return recoveryAlphabet[h.Sum(nil)[0]>>3]
}

const recoveryAlphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567"

// FormatRecoveryKey writes a 20-byte key as 8 groups of 4 base32
// characters and the check character, joined by dashes. It panics on a key
// of another length, which is a programming error.
func FormatRecoveryKey(key []byte) string {
	if len(key) != RecoveryKeySize {
		panic(fmt.Sprintf("seal: a recovery key has %d bytes, not %d", RecoveryKeySize, len(key)))
	}
	s := recoveryEncoding.EncodeToString(key)
	var b strings.Builder
	for i := 0; i < recoveryChars; i += 4 {
		b.WriteString(s[i : i+4])
		b.WriteByte('-')
	}
	b.WriteByte(checkChar(key))
	return b.String()
}

// ParseRecoveryKey reads a recovery key as a person typed it: case does not
// matter, spaces, tabs, line breaks and dashes are ignored, and 0, 1 and 8
// are read as O, I and B. Anything that is not 33 base32 characters whose
// last is the check character of the others is a [*RecoveryKeyError].
func ParseRecoveryKey(text string) ([]byte, error) {
	norm := make([]byte, 0, recoveryChars+1)
	for i := 0; i < len(text); i++ {
		c := text[i]
		switch {
		case c == ' ' || c == '-' || c == '\t' || c == '\n' || c == '\r':
			continue
		case c >= 'a' && c <= 'z':
			c -= 'a' - 'A'
		case c == '0':
			c = 'O'
		case c == '1':
			c = 'I'
		case c == '8':
			c = 'B'
		}
		if !(c >= 'A' && c <= 'Z' || c >= '2' && c <= '7') {
			// Bytes, not runes: a non-ASCII character is refused here
			// whatever its encoding, so the Go and browser parsers agree.
			return nil, &RecoveryKeyError{Reason: "a character that is not a letter or a digit 2 to 7"}
		}
		if len(norm) == recoveryChars+1 {
			return nil, &RecoveryKeyError{Reason: "too long"}
		}
		norm = append(norm, c)
	}
	if len(norm) != recoveryChars+1 {
		return nil, &RecoveryKeyError{Reason: "too short"}
	}
	key, err := recoveryEncoding.DecodeString(string(norm[:recoveryChars]))
	if err != nil {
		// Unreachable: every character is in the alphabet and 32
		// characters are exactly 20 bytes.
		return nil, &RecoveryKeyError{Reason: "not base32"}
	}
	if checkChar(key) != norm[recoveryChars] {
		return nil, &RecoveryKeyError{Reason: "the check character does not match"}
	}
	return key, nil
}

// recoveryInfo is both the HKDF info of the wrapping key and the AAD of the
// blob: "relay/v1 recovery" 0 username.
func recoveryInfo(username string) string { return "relay/v1 recovery\x00" + username }

// RecoveryWrappingKey derives the AES-256-GCM key that wraps the account
// key of username under a recovery key.
func RecoveryWrappingKey(recoveryKey []byte, username string) ([]byte, error) {
	if len(recoveryKey) != RecoveryKeySize {
		return nil, &RecoveryKeyError{Reason: fmt.Sprintf("%d bytes, not %d", len(recoveryKey), RecoveryKeySize)}
	}
	return derive(recoveryKey, recoveryInfo(username)), nil
}

// WrapAccountKey makes the recovery blob of username's account key pair:
// the private scalar d and the uncompressed public key, which must belong
// together ([ErrKeyMismatch] if not).
func WrapAccountKey(recoveryKey []byte, username string, d, accountPublic []byte) ([]byte, error) {
	iv := make([]byte, IVSize)
	_, _ = rand.Read(iv)
	return wrapAccountKey(recoveryKey, username, d, accountPublic, iv)
}

// wrapAccountKey is WrapAccountKey with a given IV, for the vectors.
func wrapAccountKey(recoveryKey []byte, username string, d, accountPublic, iv []byte) ([]byte, error) {
	if _, err := accountKeyPair(d, accountPublic); err != nil {
		return nil, err
	}
	key, err := RecoveryWrappingKey(recoveryKey, username)
	if err != nil {
		return nil, err
	}
	plain := append(append(make([]byte, 0, LinkPlaintextSize), d...), accountPublic...)
	return wrapRaw(key, username, plain, iv), nil
}

// wrapRaw seals any plaintext, so the vectors can hold a blob whose pair
// does not match.
func wrapRaw(key []byte, username string, plain, iv []byte) []byte {
	return append([]byte{RecoveryVersion}, sealRaw(key, iv, []byte(recoveryInfo(username)), plain)...)
}

// UnwrapAccountKey opens username's recovery blob and returns the account
// key pair inside, after checking that its private and public halves
// belong together. The caller must still check that the public key is the
// account's key in the directory (docs/crypto.md "Recovery key").
func UnwrapAccountKey(recoveryKey []byte, username string, blob []byte) (*ecdh.PrivateKey, error) {
	key, err := RecoveryWrappingKey(recoveryKey, username)
	if err != nil {
		return nil, err
	}
	if len(blob) != RecoveryBlobSize || blob[0] != RecoveryVersion {
		return nil, ErrRecoveryBlob
	}
	p, err := openRaw(key, []byte(recoveryInfo(username)), blob[1:])
	if err != nil {
		return nil, ErrWrongRecoveryKey
	}
	return accountKeyPair(p[:32], p[32:])
}

// accountKeyPair checks that the scalar d is the private half of the
// uncompressed public key pub.
func accountKeyPair(d, pub []byte) (*ecdh.PrivateKey, error) {
	if len(d) != 32 || len(pub) != 65 {
		return nil, ErrKeyMismatch
	}
	priv, err := ecdh.P256().NewPrivateKey(d)
	if err != nil {
		return nil, ErrKeyMismatch
	}
	if string(priv.PublicKey().Bytes()) != string(pub) {
		return nil, ErrKeyMismatch
	}
	return priv, nil
}
