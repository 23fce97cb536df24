package seal

import (
	"bytes"
	"crypto/ecdh"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"strings"
	"testing"
)

// errCode names an error as the vectors do, so crypto.js can be held to
// the same answers.
func errCode(err error) string {
	var rke *RecoveryKeyError
	switch {
	case err == nil:
		return ""
	case errors.As(err, &rke) && errors.Is(err, ErrNotRecoveryKey):
		return "not_recovery_key"
	case errors.Is(err, ErrWrongRecoveryKey):
		return "wrong_recovery_key"
	case errors.Is(err, ErrRecoveryBlob):
		return "bad_recovery_blob"
	case errors.Is(err, ErrKeyMismatch):
		return "key_mismatch"
	}
	return "unexpected: " + err.Error()
}

// fixedRecoveryKey is the first key from the hashes of a label whose
// written form holds O, I and B, so the vectors can spell them 0, 1 and 8.
func fixedRecoveryKey() []byte {
	for i := 0; ; i++ {
		h := sha256.Sum256(fmt.Appendf(nil, "relay test recovery key %d", i))
		body := FormatRecoveryKey(h[:RecoveryKeySize])[:39]
		if strings.Contains(body, "O") && strings.Contains(body, "I") && strings.Contains(body, "B") {
			return h[:RecoveryKeySize]
		}
	}
}

func generateRecovery(t testing.TB, alice, bob *ecdh.PrivateKey) recoveryVectors {
	t.Helper()
	var r recoveryVectors
	k1 := fixedRecoveryKey()
	zero := make([]byte, RecoveryKeySize)
	ones := bytes.Repeat([]byte{0xff}, RecoveryKeySize)
	for _, k := range [][]byte{k1, zero, ones} {
		r.Keys = append(r.Keys, recoveryKeyVector{hex.EncodeToString(k), FormatRecoveryKey(k)})
	}

	f := FormatRecoveryKey(k1)
	plain := strings.ReplaceAll(f, "-", "")
	confused := strings.NewReplacer("O", "0", "I", "1", "B", "8").Replace(f)
	for _, p := range []struct{ why, input string }{
		{"as written", f},
		{"lower case", strings.ToLower(f)},
		{"no dashes", plain},
		{"spaces for dashes, around it and a line break", "  " + strings.ReplaceAll(f, "-", " ") + "\n"},
		{"groups of eight with a tab", plain[:8] + "\t" + plain[8:16] + " " + plain[16:24] + " " + plain[24:]},
		{"0, 1, 8 for O, I, B, lower case", strings.ToLower(confused)},
		{"0, 1, 8 for O, I, B", confused},
	} {
		r.Parse = append(r.Parse, recoveryParseVector{p.input, hex.EncodeToString(k1), p.why})
	}
	zf := FormatRecoveryKey(zero)
	r.Parse = append(r.Parse, recoveryParseVector{strings.ToLower(zf), hex.EncodeToString(zero), "all zero bytes, lower case"})

	last := f[len(f)-1]
	other := recoveryAlphabet[(strings.IndexByte(recoveryAlphabet, last)+1)%32]
	// A substituted character that the check character catches (a 5-bit
	// check misses 1 in 32 substitutions; this one is caught).
	sub := []byte(f)
	sub[0] = recoveryAlphabet[(strings.IndexByte(recoveryAlphabet, sub[0])+1)%32]
	dotless := strings.Replace(f, "I", "ı", 1) // U+0131, which upper-cases to I
	for _, n := range []struct{ why, input string }{
		{"wrong check character", f[:len(f)-1] + string(other)},
		{"one character changed", string(sub)},
		{"check character missing", f[:len(f)-2]},
		{"one character too many", f + "A"},
		{"one character missing", f[1:]},
		{"9 is not base32", strings.Replace(f, f[:1], "9", 1)},
		{"a non-ASCII letter", dotless},
		{"a non-breaking space", strings.Replace(f, "-", "\u00a0", 1)},
		{"empty", ""},
		{"only dashes", "----"},
	} {
		if _, err := ParseRecoveryKey(n.input); !errors.Is(err, ErrNotRecoveryKey) {
			t.Fatalf("%s: parsed (%v)", n.why, err)
		}
		r.NotKeys = append(r.NotKeys, recoveryNotKey{n.input, n.why})
	}

	wrap := func(key []byte, username string, acct *ecdh.PrivateKey, label string) []byte {
		iv := fixedIV(label)
		blob, err := wrapAccountKey(key, username, acct.Bytes(), acct.PublicKey().Bytes(), iv)
		if err != nil {
			t.Fatal(err)
		}
		wk, _ := RecoveryWrappingKey(key, username)
		r.Wrap = append(r.Wrap, recoveryWrapVector{
			Key: hex.EncodeToString(key), Username: username,
			D: hex.EncodeToString(acct.Bytes()), Public: base64.StdEncoding.EncodeToString(acct.PublicKey().Bytes()),
			IV: hex.EncodeToString(iv), WrappingKey: hex.EncodeToString(wk), Blob: base64.StdEncoding.EncodeToString(blob),
		})
		return blob
	}
	b1 := wrap(k1, "alice", alice, "recovery 1")
	wrap(ones, "bob", bob, "recovery 2")

	changed := func(i int, x byte) []byte {
		b := bytes.Clone(b1)
		b[i] ^= x
		return b
	}
	offByOne := bytes.Clone(k1)
	offByOne[RecoveryKeySize-1] ^= 1
	wk1, _ := RecoveryWrappingKey(k1, "alice")
	mismatched := wrapRaw(wk1, "alice", append(bytes.Clone(alice.Bytes()), bob.PublicKey().Bytes()...), fixedIV("recovery 3"))
	for _, c := range []struct {
		why      string
		key      []byte
		username string
		blob     []byte
		code     string
	}{
		{"wrong username", k1, "bob", b1, "wrong_recovery_key"},
		{"username differing in one letter", k1, "alicf", b1, "wrong_recovery_key"},
		{"wrong key", zero, "alice", b1, "wrong_recovery_key"},
		{"key one bit off", offByOne, "alice", b1, "wrong_recovery_key"},
		{"IV changed", k1, "alice", changed(1, 1), "wrong_recovery_key"},
		{"ciphertext changed", k1, "alice", changed(20, 0x80), "wrong_recovery_key"},
		{"tag changed", k1, "alice", changed(RecoveryBlobSize-1, 1), "wrong_recovery_key"},
		{"version 2", k1, "alice", changed(0, 3), "bad_recovery_blob"},
		{"one byte short", k1, "alice", b1[:RecoveryBlobSize-1], "bad_recovery_blob"},
		{"one byte more", k1, "alice", append(bytes.Clone(b1), 0), "bad_recovery_blob"},
		{"private key of alice, public key of bob", k1, "alice", mismatched, "key_mismatch"},
	} {
		if _, err := UnwrapAccountKey(c.key, c.username, c.blob); errCode(err) != c.code {
			t.Fatalf("%s: %v, want %s", c.why, err, c.code)
		}
		r.Fail = append(r.Fail, recoveryFailVector{hex.EncodeToString(c.key), c.username, base64.StdEncoding.EncodeToString(c.blob), c.code, c.why})
	}
	return r
}

// TestRecoveryVectors checks the file's recovery answers independently of
// generateRecovery.
func TestRecoveryVectors(t *testing.T) {
	r := load(t).Recovery
	if len(r.Keys) == 0 || len(r.Parse) == 0 || len(r.NotKeys) == 0 || len(r.Wrap) == 0 || len(r.Fail) == 0 {
		t.Fatal("recovery vectors missing")
	}
	for _, k := range r.Keys {
		if got := FormatRecoveryKey(unhex(t, k.Key)); got != k.Formatted {
			t.Errorf("format %s: %s, want %s", k.Key, got, k.Formatted)
		}
		if got, err := ParseRecoveryKey(k.Formatted); err != nil || hex.EncodeToString(got) != k.Key {
			t.Errorf("parse %s: %x, %v", k.Formatted, got, err)
		}
	}
	for _, p := range r.Parse {
		if got, err := ParseRecoveryKey(p.Input); err != nil || hex.EncodeToString(got) != p.Key {
			t.Errorf("%s: %x, %v", p.Why, got, err)
		}
	}
	for _, n := range r.NotKeys {
		_, err := ParseRecoveryKey(n.Input)
		var rke *RecoveryKeyError
		if !errors.Is(err, ErrNotRecoveryKey) || !errors.As(err, &rke) {
			t.Errorf("%s: %v", n.Why, err)
		}
	}
	for _, w := range r.Wrap {
		key := unhex(t, w.Key)
		wk, err := RecoveryWrappingKey(key, w.Username)
		if err != nil || hex.EncodeToString(wk) != w.WrappingKey {
			t.Errorf("wrapping key of %s: %x, %v", w.Username, wk, err)
		}
		blob, err := wrapAccountKey(key, w.Username, unhex(t, w.D), unb64(t, w.Public), unhex(t, w.IV))
		if err != nil || base64.StdEncoding.EncodeToString(blob) != w.Blob || len(blob) != RecoveryBlobSize {
			t.Errorf("wrap for %s: %v", w.Username, err)
		}
		priv, err := UnwrapAccountKey(key, w.Username, unb64(t, w.Blob))
		if err != nil || hex.EncodeToString(priv.Bytes()) != w.D || !bytes.Equal(priv.PublicKey().Bytes(), unb64(t, w.Public)) {
			t.Errorf("unwrap for %s: %v", w.Username, err)
		}
	}
	for _, f := range r.Fail {
		if _, err := UnwrapAccountKey(unhex(t, f.Key), f.Username, unb64(t, f.Blob)); errCode(err) != f.Error {
			t.Errorf("%s: %v, want %s", f.Why, err, f.Error)
		}
	}
}

func TestRecoveryKeyRoundTrip(t *testing.T) {
	key, text := NewRecoveryKey()
	key2, _ := NewRecoveryKey()
	if len(key) != RecoveryKeySize || bytes.Equal(key, key2) {
		t.Fatalf("new keys %x and %x", key, key2)
	}
	if len(text) != 8*5+1 || strings.Count(text, "-") != 8 {
		t.Fatalf("written form of %d characters", len(text))
	}
	got, err := ParseRecoveryKey(text)
	if err != nil || !bytes.Equal(got, key) {
		t.Fatalf("parse: %v", err)
	}
	if _, err := RecoveryWrappingKey(key[:19], "alice"); !errors.Is(err, ErrNotRecoveryKey) {
		t.Fatalf("a 19-byte key: %v", err)
	}
}

func TestWrapAccountKey(t *testing.T) {
	acct, other := fixedKey(t, "alice"), fixedKey(t, "bob")
	key, _ := NewRecoveryKey()
	b1, err := WrapAccountKey(key, "alice", acct.Bytes(), acct.PublicKey().Bytes())
	if err != nil {
		t.Fatal(err)
	}
	b2, _ := WrapAccountKey(key, "alice", acct.Bytes(), acct.PublicKey().Bytes())
	if len(b1) != RecoveryBlobSize || b1[0] != RecoveryVersion || bytes.Equal(b1[1:1+IVSize], b2[1:1+IVSize]) {
		t.Fatalf("blobs %x and %x: want 126 bytes, version 1, fresh IVs", b1, b2)
	}
	priv, err := UnwrapAccountKey(key, "alice", b1)
	if err != nil || !priv.Equal(acct) {
		t.Fatalf("unwrap: %v", err)
	}
	// Wrapping a private key with another account's public key is refused:
	// such a blob could never restore the account.
	if _, err := WrapAccountKey(key, "alice", acct.Bytes(), other.PublicKey().Bytes()); !errors.Is(err, ErrKeyMismatch) {
		t.Fatalf("mismatched pair: %v", err)
	}
	if _, err := WrapAccountKey(key, "alice", make([]byte, 32), acct.PublicKey().Bytes()); !errors.Is(err, ErrKeyMismatch) {
		t.Fatalf("zero scalar: %v", err)
	}
}

// FuzzParseRecoveryKey: whatever a person types, the parser answers a
// *RecoveryKeyError or the key whose written form it is.
func FuzzParseRecoveryKey(f *testing.F) {
	r := load(f).Recovery
	for _, p := range r.Parse {
		f.Add(p.Input)
	}
	for _, n := range r.NotKeys {
		f.Add(n.Input)
	}
	f.Fuzz(func(t *testing.T, text string) {
		key, err := ParseRecoveryKey(text)
		if err != nil {
			var rke *RecoveryKeyError
			if !errors.As(err, &rke) || !errors.Is(err, ErrNotRecoveryKey) || key != nil {
				t.Fatalf("error %v of type %T", err, err)
			}
			return
		}
		// What was typed, read by the rule of docs/crypto.md, is the
		// written form of the key: the check character included.
		typed := strings.NewReplacer("-", "", " ", "", "\t", "", "\n", "", "\r", "", "0", "O", "1", "I", "8", "B").Replace(text)
		typed = strings.Map(func(r rune) rune {
			if r >= 'a' && r <= 'z' {
				return r - 'a' + 'A'
			}
			return r
		}, typed)
		if len(key) != RecoveryKeySize || typed != strings.ReplaceAll(FormatRecoveryKey(key), "-", "") {
			t.Fatalf("%q parsed to %x, written %s", text, key, FormatRecoveryKey(key))
		}
	})
}

// FuzzUnwrapAccountKey: no blob but the one made with the key opens, and
// every refusal is one of the documented errors.
func FuzzUnwrapAccountKey(f *testing.F) {
	acct := fixedKey(f, "alice")
	key := fixedRecoveryKey()
	blob, err := wrapAccountKey(key, "alice", acct.Bytes(), acct.PublicKey().Bytes(), fixedIV("recovery 1"))
	if err != nil {
		f.Fatal(err)
	}
	f.Add(blob)
	f.Add([]byte{})
	f.Add([]byte{RecoveryVersion})
	f.Fuzz(func(t *testing.T, b []byte) {
		priv, err := UnwrapAccountKey(key, "alice", b)
		switch {
		case err == nil:
			if !bytes.Equal(b, blob) || !priv.Equal(acct) {
				t.Fatalf("forged blob %x opened", b)
			}
		case errors.Is(err, ErrWrongRecoveryKey), errors.Is(err, ErrRecoveryBlob), errors.Is(err, ErrKeyMismatch):
		default:
			t.Fatalf("undocumented error %v", err)
		}
	})
}
