package devices

import (
	"crypto/ecdh"
	"crypto/rand"
	"encoding/base64"
	"errors"
	"strings"
	"testing"
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
