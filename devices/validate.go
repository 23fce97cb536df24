package devices

import (
	"crypto/ecdh"
	"encoding/base64"
	"errors"
	"fmt"
)

// ErrBadPublicKey reports a public key that is not standard padded base64 of
// an uncompressed P-256 point on the curve.
var ErrBadPublicKey = errors.New("bad public key")

// PublicKeySize is the length of an uncompressed P-256 point, as WebCrypto's
// exportKey("raw") returns it.
const PublicKeySize = 65

// ValidUsername reports whether s matches ^[a-z0-9_]{3,32}$.
func ValidUsername(s string) bool {
	if len(s) < 3 || len(s) > 32 {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if (c < 'a' || c > 'z') && (c < '0' || c > '9') && c != '_' {
			return false
		}
	}
	return true
}

// ParsePublicKey decodes and checks a public key from the wire. It returns
// the raw 65 bytes.
func ParsePublicKey(s string) ([]byte, error) {
	raw, err := DecodeStdBase64(s)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrBadPublicKey, err)
	}
	if len(raw) != PublicKeySize || raw[0] != 4 {
		return nil, fmt.Errorf("%w: want an uncompressed P-256 point (65 bytes starting with 0x04), got %d bytes", ErrBadPublicKey, len(raw))
	}
	if _, err := ecdh.P256().NewPublicKey(raw); err != nil {
		return nil, fmt.Errorf("%w: the point is not on the P-256 curve", ErrBadPublicKey)
	}
	return raw, nil
}

// DecodeStdBase64 decodes standard, padded base64 (RFC 4648 §4) and nothing
// else: the URL-safe alphabet, missing padding, non-zero trailing bits and
// line breaks (which encoding/base64 would otherwise skip) are all refused,
// so one value has exactly one spelling on the wire.
func DecodeStdBase64(s string) ([]byte, error) {
	for i := 0; i < len(s); i++ {
		if s[i] == '\r' || s[i] == '\n' {
			return nil, errors.New("base64 must not contain line breaks")
		}
	}
	b, err := base64.StdEncoding.Strict().DecodeString(s)
	if err != nil {
		return nil, errors.New("not standard padded base64")
	}
	return b, nil
}
