package seal

import (
	"crypto/ecdh"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"flag"
	"os"
	"strings"
	"testing"
)

// The known-answer vectors live in testdata/vectors.json and are read by
// these tests and by the browser test of webclient/static/crypto.js. They
// are made from fixed inputs by `go test ./relayclient/seal -update`; the
// tests below fail if the code and the file disagree.
var update = flag.Bool("update", false, "rewrite testdata/vectors.json from the Go implementation")

const vectorsFile = "testdata/vectors.json"

type keyPair struct {
	Private string `json:"private"` // hex scalar
	Public  string `json:"public"`  // base64 uncompressed point
}

type vectors struct {
	Comment      string `json:"comment"`
	Salt         string `json:"salt"`
	Conversation []struct {
		A    string  `json:"a"`
		AKey keyPair `json:"aKey"`
		B    string  `json:"b"`
		BKey keyPair `json:"bKey"`
		Key  string  `json:"key"` // hex
	} `json:"conversation"`
	Envelopes []struct {
		Key    string `json:"key"`
		IV     string `json:"iv"`
		ID     string `json:"id"`
		From   string `json:"from"`
		To     string `json:"to"`
		Record string `json:"record"`
		Body   string `json:"body"` // base64
	} `json:"envelopes"`
	Tampered []struct {
		Key  string `json:"key"`
		ID   string `json:"id"`
		From string `json:"from"`
		To   string `json:"to"`
		Body string `json:"body"`
		Why  string `json:"why"`
	} `json:"tampered"`
	Padding []struct {
		RecordLength int `json:"recordLength"`
		Padded       int `json:"padded"`
	} `json:"padding"`
	Link struct {
		Username   string  `json:"username"`
		Account    keyPair `json:"account"`
		FromDevice string  `json:"fromDevice"`
		FromKey    keyPair `json:"fromKey"`
		ToDevice   string  `json:"toDevice"`
		ToKey      keyPair `json:"toKey"`
		Key        string  `json:"key"`
		IV         string  `json:"iv"`
		ID         string  `json:"id"`
		Body       string  `json:"body"`
		LinkCode   string  `json:"linkCode"`
		BodyLength int     `json:"bodyLength"`
	} `json:"link"`
	Safety []struct {
		A    string `json:"a"`
		APub string `json:"aPub"`
		B    string `json:"b"`
		BPub string `json:"bPub"`
		Code string `json:"code"`
	} `json:"safety"`
	Recovery recoveryVectors `json:"recovery"`
	Records  recordVectors   `json:"records"`
}

// recoveryVectors are those of docs/crypto.md "Recovery key". Error codes
// are shared with crypto.js: not_recovery_key, wrong_recovery_key,
// bad_recovery_blob, key_mismatch.
type recoveryVectors struct {
	Keys    []recoveryKeyVector   `json:"keys"`
	Parse   []recoveryParseVector `json:"parse"`   // spellings a person may type
	NotKeys []recoveryNotKey      `json:"notKeys"` // refused as not_recovery_key
	Wrap    []recoveryWrapVector  `json:"wrap"`
	Fail    []recoveryFailVector  `json:"fail"` // must not unwrap
}

type recoveryKeyVector struct {
	Key       string `json:"key"` // hex, 20 bytes
	Formatted string `json:"formatted"`
}

type recoveryParseVector struct {
	Input string `json:"input"`
	Key   string `json:"key"`
	Why   string `json:"why"`
}

type recoveryNotKey struct {
	Input string `json:"input"`
	Why   string `json:"why"`
}

type recoveryWrapVector struct {
	Key         string `json:"key"`
	Username    string `json:"username"`
	D           string `json:"d"`      // hex scalar
	Public      string `json:"public"` // base64 uncompressed point
	IV          string `json:"iv"`
	WrappingKey string `json:"wrappingKey"` // hex
	Blob        string `json:"blob"`        // base64
}

type recoveryFailVector struct {
	Key      string `json:"key"`
	Username string `json:"username"`
	Blob     string `json:"blob"`
	Error    string `json:"error"`
	Why      string `json:"why"`
}

// fixedKey derives a P-256 private key from a label, for reproducible vectors.
func fixedKey(t testing.TB, label string) *ecdh.PrivateKey {
	t.Helper()
	d := sha256.Sum256([]byte("relay test key " + label))
	k, err := ecdh.P256().NewPrivateKey(d[:])
	if err != nil {
		t.Fatal(err)
	}
	return k
}

func pair(k *ecdh.PrivateKey) keyPair {
	return keyPair{Private: hex.EncodeToString(k.Bytes()), Public: base64.StdEncoding.EncodeToString(k.PublicKey().Bytes())}
}

func fixedIV(label string) []byte {
	h := sha256.Sum256([]byte("relay test iv " + label))
	return h[:IVSize]
}

func generate(t *testing.T) *vectors {
	t.Helper()
	v := &vectors{
		Comment: "Known-answer vectors for docs/crypto.md, shared by relayclient/seal (Go) and webclient/static/crypto.js (browser). Regenerate with: go test ./relayclient/seal -update",
		Salt:    string(Salt),
	}
	alice, bob, carol := fixedKey(t, "alice"), fixedKey(t, "bob"), fixedKey(t, "carol")
	conv := func(a string, ak *ecdh.PrivateKey, b string, bk *ecdh.PrivateKey) []byte {
		k, err := ConversationKey(ak, bk.PublicKey().Bytes(), a, b)
		if err != nil {
			t.Fatal(err)
		}
		v.Conversation = append(v.Conversation, struct {
			A    string  `json:"a"`
			AKey keyPair `json:"aKey"`
			B    string  `json:"b"`
			BKey keyPair `json:"bKey"`
			Key  string  `json:"key"`
		}{a, pair(ak), b, pair(bk), hex.EncodeToString(k)})
		return k
	}
	ab := conv("alice", alice, "bob", bob)
	conv("bob", bob, "alice", alice) // the same key from the other side
	conv("carol", carol, "alice", alice)
	aa := conv("alice", alice, "alice", alice)

	type env = struct {
		Key    string `json:"key"`
		IV     string `json:"iv"`
		ID     string `json:"id"`
		From   string `json:"from"`
		To     string `json:"to"`
		Record string `json:"record"`
		Body   string `json:"body"`
	}
	add := func(key []byte, label, id, from, to, record string) {
		iv := fixedIV(label)
		body, err := Seal(key, iv, id, from, to, []byte(record))
		if err != nil {
			t.Fatal(err)
		}
		v.Envelopes = append(v.Envelopes, env{hex.EncodeToString(key), hex.EncodeToString(iv), id, from, to, record, base64.StdEncoding.EncodeToString(body)})
	}
	add(ab, "1", "01JQ0000000000000000000001", "alice", "bob", `{"type":"text","text":"Hello, Bob!"}`)
	add(ab, "2", "01JQ0000000000000000000002", "bob", "alice", `{"type":"text","text":"Grüße, Alice 👋"}`)
	add(ab, "3", "01JQ0000000000000000000003", "alice", "bob", `{"type":"text","text":"`+strings.Repeat("x", 252-27)+`"}`)
	add(ab, "4", "01JQ0000000000000000000004", "alice", "bob", `{"type":"text","text":"`+strings.Repeat("y", 3000)+`"}`)
	add(aa, "5", "01JQ0000000000000000000005", "alice", "alice", `{"type":"read","chat":"bob","upTo":"01JQ0000000000000000000002"}`)

	first := v.Envelopes[0]
	for _, tc := range []struct{ why, id, from, to string }{
		{"swapped id", "01JQ0000000000000000000009", "alice", "bob"},
		{"swapped from", first.ID, "bob", "bob"},
		{"swapped to", first.ID, "alice", "carol"},
	} {
		v.Tampered = append(v.Tampered, struct {
			Key  string `json:"key"`
			ID   string `json:"id"`
			From string `json:"from"`
			To   string `json:"to"`
			Body string `json:"body"`
			Why  string `json:"why"`
		}{first.Key, tc.id, tc.from, tc.to, first.Body, tc.why})
	}
	for _, n := range []int{0, 1, 252, 253, 508, 509, 32764, 32765, MaxRecord} {
		p, err := Pad(make([]byte, n))
		if err != nil {
			t.Fatal(err)
		}
		v.Padding = append(v.Padding, struct {
			RecordLength int `json:"recordLength"`
			Padded       int `json:"padded"`
		}{n, len(p)})
	}

	dev1, dev2 := fixedKey(t, "alice laptop"), fixedKey(t, "alice phone")
	l := &v.Link
	l.Username, l.Account = "alice", pair(alice)
	l.FromDevice, l.FromKey = "01JQ00000000000000000DEV01", pair(dev1)
	l.ToDevice, l.ToKey = "01JQ00000000000000000DEV02", pair(dev2)
	lk, err := LinkKey(dev1, dev2.PublicKey().Bytes(), l.FromDevice, l.ToDevice)
	if err != nil {
		t.Fatal(err)
	}
	l.Key, l.IV, l.ID = hex.EncodeToString(lk), hex.EncodeToString(fixedIV("link")), "01JQ0000000000000000000006"
	body := SealLink(lk, fixedIV("link"), l.ID, "alice", alice)
	l.Body, l.BodyLength = base64.StdEncoding.EncodeToString(body), len(body)
	l.LinkCode = LinkCode(alice.PublicKey().Bytes(), dev2.PublicKey().Bytes())

	for _, p := range [][2]string{{"alice", "bob"}, {"bob", "alice"}, {"carol", "alice"}} {
		keys := map[string]*ecdh.PrivateKey{"alice": alice, "bob": bob, "carol": carol}
		pa, pb := keys[p[0]].PublicKey().Bytes(), keys[p[1]].PublicKey().Bytes()
		v.Safety = append(v.Safety, struct {
			A    string `json:"a"`
			APub string `json:"aPub"`
			B    string `json:"b"`
			BPub string `json:"bPub"`
			Code string `json:"code"`
		}{p[0], base64.StdEncoding.EncodeToString(pa), p[1], base64.StdEncoding.EncodeToString(pb), SafetyCode(p[0], pa, p[1], pb)})
	}
	v.Recovery = generateRecovery(t, alice, bob)
	v.Records = generateRecords(t, ab, aa)
	return v
}

func load(t testing.TB) *vectors {
	t.Helper()
	data, err := os.ReadFile(vectorsFile)
	if err != nil {
		t.Fatal(err)
	}
	var v vectors
	if err := json.Unmarshal(data, &v); err != nil {
		t.Fatal(err)
	}
	return &v
}

// TestVectorsMatchCode regenerates the vectors and compares them with the
// file, so the file cannot drift from the code.
func TestVectorsMatchCode(t *testing.T) {
	gen := generate(t)
	data, err := json.MarshalIndent(gen, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	data = append(data, '\n')
	if *update {
		if err := os.WriteFile(vectorsFile, data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	onDisk, err := os.ReadFile(vectorsFile)
	if err != nil {
		t.Fatal(err)
	}
	if string(onDisk) != string(data) {
		t.Fatal("testdata/vectors.json differs from what the code computes; if the change is intended, run go test ./relayclient/seal -update and update crypto.js to match")
	}
}

func unhex(t *testing.T, s string) []byte {
	t.Helper()
	b, err := hex.DecodeString(s)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func unb64(t *testing.T, s string) []byte {
	t.Helper()
	b, err := base64.StdEncoding.DecodeString(s)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestOpenVectors checks the file's answers independently of generate: each
// envelope opens to its record, and each tampered one fails.
func TestOpenVectors(t *testing.T) {
	v := load(t)
	for _, e := range v.Envelopes {
		rec, err := Open(unhex(t, e.Key), e.ID, e.From, e.To, unb64(t, e.Body))
		if err != nil || string(rec) != e.Record {
			t.Errorf("envelope %s: %q, %v", e.ID, rec, err)
		}
	}
	for _, e := range v.Tampered {
		if _, err := Open(unhex(t, e.Key), e.ID, e.From, e.To, unb64(t, e.Body)); !errors.Is(err, ErrOpen) {
			t.Errorf("%s: opened (%v)", e.Why, err)
		}
	}
	if v.Conversation[0].Key != v.Conversation[1].Key {
		t.Error("alice and bob derive different keys for their conversation")
	}
	l := v.Link
	to, _ := ecdh.P256().NewPrivateKey(unhex(t, l.ToKey.Private))
	k, err := LinkKey(to, unb64(t, l.FromKey.Public), l.FromDevice, l.ToDevice)
	if err != nil || hex.EncodeToString(k) != l.Key {
		t.Fatalf("the new device derives another link key: %v", err)
	}
	body := unb64(t, l.Body)
	if !IsLink(body) {
		t.Fatalf("link body of %d bytes is not recognised", len(body))
	}
	acc, err := OpenLink(k, l.ID, l.Username, body, unb64(t, l.Account.Public))
	if err != nil || hex.EncodeToString(acc.Bytes()) != l.Account.Private {
		t.Fatalf("link: %v", err)
	}
	// A key that is not the expected account key is refused.
	if _, err := OpenLink(k, l.ID, l.Username, body, unb64(t, v.Safety[0].BPub)); !errors.Is(err, ErrKeyMismatch) {
		t.Fatalf("link with an unexpected account key: %v", err)
	}
}

func TestPadding(t *testing.T) {
	for _, n := range []int{0, 1, 100, 252, 253, 1000, MaxRecord} {
		rec := []byte(strings.Repeat("r", n))
		p, err := Pad(rec)
		if err != nil {
			t.Fatal(err)
		}
		got, err := Unpad(p)
		if err != nil || string(got) != string(rec) {
			t.Fatalf("%d: %v", n, err)
		}
		// The smallest bucket that fits.
		for _, b := range Buckets {
			if b >= 4+n {
				if len(p) != b {
					t.Fatalf("%d bytes padded to %d, want %d", n, len(p), b)
				}
				break
			}
		}
		// Conversation bodies are never the size of a link body.
		if len(p)+IVSize+TagSize == LinkBodySize {
			t.Fatalf("a conversation body can be %d bytes", LinkBodySize)
		}
	}
	if _, err := Pad(make([]byte, MaxRecord+1)); !errors.Is(err, ErrRecordTooLong) {
		t.Fatalf("over-long record: %v", err)
	}
	bad, _ := Pad([]byte("x"))
	bad[len(bad)-1] = 1
	if _, err := Unpad(bad); !errors.Is(err, ErrPadding) {
		t.Fatal("non-zero padding accepted")
	}
}

func FuzzOpen(f *testing.F) {
	key := sha256.Sum256([]byte("k"))
	body, _ := Seal(key[:], make([]byte, 12), "01JQ0000000000000000000001", "a", "b", []byte("hi"))
	f.Add(body)
	f.Add([]byte{})
	f.Fuzz(func(t *testing.T, b []byte) {
		rec, err := Open(key[:], "01JQ0000000000000000000001", "a", "b", b)
		if err == nil && string(b) != string(body) {
			t.Fatalf("forged body opened to %q", rec)
		}
	})
}
