package devices

import (
	"crypto/ecdh"
	"errors"
	"fmt"

	"relay/canonical"
)

// ErrBadPublicKey reports a public key that is not standard padded base64 of
// an uncompressed P-256 point on the curve.
var ErrBadPublicKey = errors.New("bad public key")

// PublicKeySize is the length of an uncompressed P-256 point, as WebCrypto's
// exportKey("raw") returns it.
const PublicKeySize = 65

// ParsePublicKey decodes and checks a public key from the wire. It returns
// the raw 65 bytes.
func ParsePublicKey(s string) ([]byte, error) {
	raw, err := canonical.DecodeStdBase64(s)
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
