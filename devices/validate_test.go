package devices

import (
	"crypto/ecdh"
	"crypto/rand"
	"encoding/base64"
	"errors"
	"testing"
)

func TestParsePublicKey(t *testing.T) {
	k, _ := ecdh.P256().GenerateKey(rand.Reader)
	raw := k.PublicKey().Bytes()
	got, err := ParsePublicKey(base64.StdEncoding.EncodeToString(raw))
	if err != nil || string(got) != string(raw) {
		t.Fatalf("valid key: %v", err)
	}
	std := base64.StdEncoding.EncodeToString(raw)
	compressed := append([]byte{2}, raw[1:33]...)
	offCurve := append([]byte{4}, make([]byte, 64)...)
	for name, s := range map[string]string{
		"empty":      "",
		"url-safe":   std[:10] + "-" + std[11:], // a character only the URL-safe alphabet has
		"unpadded":   base64.RawStdEncoding.EncodeToString(raw),
		"compressed": base64.StdEncoding.EncodeToString(compressed),
		"off curve":  base64.StdEncoding.EncodeToString(offCurve),
		"x25519":     base64.StdEncoding.EncodeToString(make([]byte, 32)),
	} {
		if _, err := ParsePublicKey(s); !errors.Is(err, ErrBadPublicKey) {
			t.Errorf("%s: %v", name, err)
		}
	}
}

func FuzzParsePublicKey(f *testing.F) {
	k, _ := ecdh.P256().GenerateKey(rand.Reader)
	f.Add(base64.StdEncoding.EncodeToString(k.PublicKey().Bytes()))
	f.Add("")
	f.Add("BA==")
	f.Add(base64.StdEncoding.EncodeToString(append([]byte{4}, make([]byte, 64)...)))
	f.Fuzz(func(t *testing.T, s string) {
		raw, err := ParsePublicKey(s)
		if err != nil {
			if !errors.Is(err, ErrBadPublicKey) {
				t.Fatalf("untyped error %v", err)
			}
			return
		}
		if len(raw) != PublicKeySize || base64.StdEncoding.EncodeToString(raw) != s {
			t.Fatalf("accepted %q, which is not the one spelling of a 65-byte point", s)
		}
	})
}
