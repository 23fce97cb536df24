// Package canonical checks the one spelling the relay accepts for the plain
// values clients send: usernames, ULIDs and standard base64. It is a leaf:
// it knows no accounts, no envelopes and no database, so that parsing an
// envelope needs no accounts and the packages that own accounts and
// envelopes check these values the same way. Each value has exactly one
// accepted spelling, because clients bind some of them (an envelope id) into
// authenticated data byte for byte, and two spellings of one value would be
// two values to anyone comparing bytes.
package canonical

import (
	"encoding/base64"
	"errors"

	"github.com/oklog/ulid/v2"
)

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

// ErrNotCanonicalULID reports a string that is not a ULID in its canonical
// form.
var ErrNotCanonicalULID = errors.New("not a ULID in canonical form (26 characters, Crockford base32, upper case)")

// ParseULID parses a ULID in its canonical 26-character, upper-case form.
// Other spellings of the same ULID (lower case, the letters Crockford
// base32 reads as digits) are refused with ErrNotCanonicalULID.
func ParseULID(s string) (ulid.ULID, error) {
	id, err := ulid.ParseStrict(s)
	if err != nil || id.String() != s {
		return ulid.ULID{}, ErrNotCanonicalULID
	}
	return id, nil
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
