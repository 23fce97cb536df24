package backup

import (
	"bytes"
	"compress/gzip"
	"crypto/ecdh"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"testing"

	"relay/relayclient/attach"
)

// The known-answer vectors live in testdata/vectors.json, read by these
// tests and by the browser test of webclient/static/archive.js. They are
// made from fixed inputs by `go test ./relayclient/backup -update`; the
// archive's gzip bytes are kept as made, since another compressor may
// write the same archive otherwise.
var update = flag.Bool("update", false, "rewrite testdata/vectors.json from the Go implementation")

const vectorsFile = "testdata/vectors.json"

type vcase struct {
	Name        string `json:"name"`
	RecoveryKey string `json:"recoveryKey"` // hex
	Username    string `json:"username"`
	File        string `json:"file"`  // base64
	Error       string `json:"error"` // not_backup, wrong_backup_key, damaged_backup
}

type vectors struct {
	Comment     string  `json:"comment"`
	RecoveryKey string  `json:"recoveryKey"` // hex
	Username    string  `json:"username"`
	BackupKey   string  `json:"backupKey"`  // hex
	ArchiveKey  string  `json:"archiveKey"` // hex
	IV          string  `json:"iv"`         // hex
	Archive     string  `json:"archive"`    // base64: gzip of the JSON lines
	Miscounted  string  `json:"miscounted"` // base64: an archive whose head counts a message not there
	File        string  `json:"file"`       // base64: the backup file
	Head        Head    `json:"head"`
	Lines       int     `json:"lines"`
	Cases       []vcase `json:"cases"`
	Transfer    tvector `json:"transfer"`
}

// tvector is the vectors of the history transfer's bodies: two devices'
// keys (private scalars, hex), the key from the first to the second, and
// a body of each kind, with bodies that must not open.
type tvector struct {
	FromPriv   string  `json:"fromPriv"`
	FromPub    string  `json:"fromPub"`
	ToPriv     string  `json:"toPriv"`
	ToPub      string  `json:"toPub"`
	FromDevice string  `json:"fromDevice"`
	ToDevice   string  `json:"toDevice"`
	Key        string  `json:"key"`
	Username   string  `json:"username"`
	Bodies     []tbody `json:"bodies"`
	Bad        []tbody `json:"bad"`
}

type tbody struct {
	Name     string `json:"name"`
	ID       string `json:"id"`
	IV       string `json:"iv"`
	Kind     int    `json:"kind"`
	Estimate int64  `json:"estimate,omitempty"`
	Since    int64  `json:"since,omitempty"`
	Att      string `json:"attachment,omitempty"` // hex
	AttKey   string `json:"attachmentKey,omitempty"`
	Size     int64  `json:"size,omitempty"`
	Digest   string `json:"digest,omitempty"`
	Body     string `json:"body"` // base64
}

func fixed(n int, from byte) []byte {
	b := make([]byte, n)
	for i := range b {
		b[i] = from + byte(i)
	}
	return b
}

// sampleArchive is the vectors' history: a chat with its key, two
// messages (one with a photo and a reaction), and the photo's bytes.
func sampleArchive(t *testing.T) []byte {
	t.Helper()
	lines := []Line{
		{Chat: map[string]any{"username": "bob", "lastTs": 1767225600000, "preview": "Merci, à demain", "read": map[string]any{"sort": 1767225600000, "id": "01KDW6A0000000000000000002", "v": 1}, "publicKey": map[string]any{"$bytes": base64.StdEncoding.EncodeToString(fixed(65, 4))}, "verified": true}},
		{Msg: map[string]any{"id": "01KDW6A0000000000000000001", "chat": "bob", "from": "alice", "to": "bob", "dir": "out", "text": "La photo du lac", "ts": 1767225500000, "sort": 1767225500000, "status": "sent", "tick": "read",
			"files":     []any{map[string]any{"ref": "r1", "id": "att1", "key": base64.StdEncoding.EncodeToString(fixed(32, 9)), "digest": hex.EncodeToString(fixed(32, 1)), "size": 5, "type": "image/jpeg", "name": "lac.jpg", "kind": "photo", "got": true}},
			"reactions": map[string]any{"👍": map[string]any{"bob": map[string]any{"on": true, "sort": 1767225550000, "id": "01KDW6A0000000000000000003"}}}}},
		{Msg: map[string]any{"id": "01KDW6A0000000000000000002", "chat": "bob", "from": "bob", "to": "alice", "dir": "in", "text": "Merci, à demain", "ts": 1767225600000, "sort": 1767225600000, "status": "received"}},
		{File: map[string]any{"ref": "r1", "msg": "01KDW6A0000000000000000001", "chat": "bob", "type": "image/jpeg"}, Data: []byte{0xff, 0xd8, 0xff, 0xe0, 0x00}},
	}
	a, err := WriteArchive(Head{Account: "alice", Made: 1767225700000}, lines)
	if err != nil {
		t.Fatal(err)
	}
	return a
}

func b64(b []byte) string { return base64.StdEncoding.EncodeToString(b) }

func code(err error) string {
	switch {
	case err == nil:
		return ""
	case errors.Is(err, ErrNotBackup):
		return "not_backup"
	case errors.Is(err, ErrWrongKey):
		return "wrong_backup_key"
	case errors.Is(err, ErrDamaged):
		return "damaged_backup"
	}
	return err.Error()
}

func makeVectors(t *testing.T, archive, miscounted []byte) vectors {
	t.Helper()
	rk, ak, iv := fixed(20, 0), fixed(32, 100), fixed(12, 200)
	file, err := seal1(rk, "alice", ak, iv, archive)
	if err != nil {
		t.Fatal(err)
	}
	bk, _ := Key(rk, "alice")
	h, lines, err := ReadArchive(archive)
	if err != nil {
		t.Fatal(err)
	}
	v := vectors{Comment: "docs/crypto.md, History archive and Backup file; made by go test ./relayclient/backup -update",
		RecoveryKey: hex.EncodeToString(rk), Username: "alice", BackupKey: hex.EncodeToString(bk), ArchiveKey: hex.EncodeToString(ak), IV: hex.EncodeToString(iv),
		Archive: b64(archive), File: b64(file), Head: h, Lines: len(lines)}
	add := func(name string, rk []byte, user string, f []byte) {
		_, err := Open(rk, user, f)
		_, _, rerr := func() (Head, []Line, error) {
			if err != nil {
				return Head{}, nil, err
			}
			a, _ := Open(rk, user, f)
			return ReadArchive(a)
		}()
		v.Cases = append(v.Cases, vcase{name, hex.EncodeToString(rk), user, b64(f), code(rerr)})
	}
	flip := func(i int) []byte { f := bytes.Clone(file); f[i] ^= 1; return f }
	add("the file itself", rk, "alice", file)
	add("cut before its header ends", rk, "alice", file[:HeaderSize-1])
	add("another magic", rk, "alice", flip(0))
	add("a version 2", rk, "alice", append(append([]byte(Magic), 2), file[len(Magic)+1:]...))
	add("another recovery key", fixed(20, 1), "alice", file)
	add("another account's name", rk, "bob", file)
	add("a bit changed in the header", rk, "alice", flip(HeaderSize-1))
	add("a bit changed in the archive", rk, "alice", flip(HeaderSize+10))
	add("the archive cut short", rk, "alice", file[:len(file)-1])
	notGzip, err := seal1(rk, "alice", ak, iv, []byte("not a gzip stream"))
	if err != nil {
		t.Fatal(err)
	}
	add("an archive that is not gzip", rk, "alice", notGzip)
	wrongCount := miscounted
	if wrongCount == nil {
		// The head says one message; there is none. Made once with -update
		// and kept: another Go's gzip may write other bytes.
		h, _, _ := ReadArchive(mustWrite(t, Head{Account: "alice"}))
		h.Messages = 1
		var buf bytes.Buffer
		_ = json.NewEncoder(&buf).Encode(h)
		wrongCount = gzipOf(t, buf.Bytes())
	}
	v.Miscounted = b64(wrongCount)
	f, err := seal1(rk, "alice", ak, iv, wrongCount)
	if err != nil {
		t.Fatal(err)
	}
	add("a head that counts a message not there", rk, "alice", f)
	v.Transfer = makeTransfer(t)
	return v
}

func makeTransfer(t *testing.T) tvector {
	t.Helper()
	from, err := ecdh.P256().NewPrivateKey(fixed(32, 31))
	if err != nil {
		t.Fatal(err)
	}
	to, err := ecdh.P256().NewPrivateKey(fixed(32, 77))
	if err != nil {
		t.Fatal(err)
	}
	tv := tvector{FromPriv: hex.EncodeToString(from.Bytes()), ToPriv: hex.EncodeToString(to.Bytes()),
		FromPub: hex.EncodeToString(from.PublicKey().Bytes()), ToPub: hex.EncodeToString(to.PublicKey().Bytes()),
		FromDevice: "01KDW6A00000000000000000A1", ToDevice: "01KDW6A00000000000000000B2", Username: "alice"}
	key, err := TransferKey(from, to.PublicKey().Bytes(), tv.FromDevice, tv.ToDevice)
	if err != nil {
		t.Fatal(err)
	}
	back, _ := TransferKey(to, from.PublicKey().Bytes(), tv.FromDevice, tv.ToDevice)
	if !bytes.Equal(key, back) {
		t.Fatal("the two devices derive different keys")
	}
	tv.Key = hex.EncodeToString(key)
	ready := Offer{Kind: Ready, Size: 123456, Since: 1764633600000}
	copy(ready.ID[:], fixed(16, 3))
	copy(ready.Key[:], fixed(32, 60))
	copy(ready.Digest[:], fixed(32, 150))
	for i, o := range []struct {
		name string
		o    Offer
	}{
		{"coming", Offer{Kind: Coming, Estimate: 5 << 20, Since: 1764633600000}},
		{"ready", ready},
		{"stopped", Offer{Kind: Stopped}},
		{"ask", Offer{Kind: Ask}},
	} {
		id := fmt.Sprintf("01KDW6A000000000000000000%d", i)
		iv := fixed(12, byte(10*i))
		body, err := SealTransfer(key, iv, id, "alice", o.o)
		if err != nil {
			t.Fatal(err)
		}
		got, err := OpenTransfer(key, id, "alice", body)
		if err != nil || got != o.o {
			t.Fatalf("%s: %+v, %v", o.name, got, err)
		}
		b := tbody{Name: o.name, ID: id, IV: hex.EncodeToString(iv), Kind: int(o.o.Kind), Estimate: o.o.Estimate, Since: o.o.Since, Size: o.o.Size, Body: b64(body)}
		if o.o.Kind == Ready {
			b.Att, b.AttKey, b.Digest = hex.EncodeToString(o.o.ID[:]), hex.EncodeToString(o.o.Key[:]), hex.EncodeToString(o.o.Digest[:])
		}
		tv.Bodies = append(tv.Bodies, b)
	}
	// Bodies that must not open: another envelope id, a kind of no
	// version, bytes past the kind's, a changed bit, another size.
	id := tv.Bodies[2].ID
	aead, _ := gcm(key)
	raw := func(name string, p []byte) {
		iv := fixed(12, 99)
		tv.Bad = append(tv.Bad, tbody{Name: name, ID: id, IV: hex.EncodeToString(iv), Body: b64(aead.Seal(append([]byte{}, iv...), iv, p, transferAAD(id, "alice")))})
	}
	p := make([]byte, transferPlain)
	p[0] = 9
	raw("an unknown kind", p)
	p = make([]byte, transferPlain)
	p[0], p[50] = Stopped, 1
	raw("bytes past what the kind uses", p)
	raw("another length", append([]byte{Stopped}, make([]byte, transferPlain)...))
	good := unb64(t, tv.Bodies[2].Body)
	tv.Bad = append(tv.Bad, tbody{Name: "another envelope's id", ID: tv.Bodies[1].ID, Body: tv.Bodies[2].Body})
	flipped := bytes.Clone(good)
	flipped[40] ^= 1
	tv.Bad = append(tv.Bad, tbody{Name: "a bit changed", ID: id, Body: b64(flipped)})
	for _, b := range tv.Bad {
		if _, err := OpenTransfer(key, b.ID, "alice", unb64(t, b.Body)); !errors.Is(err, ErrTransfer) {
			t.Fatalf("%s: %v", b.Name, err)
		}
	}
	return tv
}

// loadVectors reads the vectors on record in testdata/vectors.json.
func loadVectors(tb testing.TB) vectors {
	tb.Helper()
	data, err := os.ReadFile(vectorsFile)
	if err != nil {
		tb.Fatal(err)
	}
	var v vectors
	if err := json.Unmarshal(data, &v); err != nil {
		tb.Fatal(err)
	}
	return v
}

func unb64(t *testing.T, s string) []byte {
	t.Helper()
	b, err := base64.StdEncoding.DecodeString(s)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestVectors: the Go implementation seals the vectors' archive into
// exactly the file on record, opens it, and gives each case its error.
func TestVectors(t *testing.T) {
	// The archives are gzip bytes made once with -update and kept:
	// another Go's compressor may write the same lines otherwise.
	var archive, miscounted []byte
	if *update {
		archive = sampleArchive(t)
	} else {
		old := loadVectors(t)
		archive, miscounted = unb64(t, old.Archive), unb64(t, old.Miscounted)
	}
	got, err := json.MarshalIndent(makeVectors(t, archive, miscounted), "", "  ")
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
		t.Fatal("the code and testdata/vectors.json disagree: run go test ./relayclient/backup -update if the format changed on purpose")
	}
	v := loadVectors(t)
	wantCodes := map[string]string{"the file itself": "", "another recovery key": "wrong_backup_key", "another account's name": "wrong_backup_key",
		"cut before its header ends": "not_backup", "another magic": "not_backup", "a version 2": "not_backup", "a bit changed in the header": "wrong_backup_key",
		"a bit changed in the archive": "damaged_backup", "the archive cut short": "damaged_backup", "an archive that is not gzip": "damaged_backup", "a head that counts a message not there": "damaged_backup"}
	for _, c := range v.Cases {
		if c.Error != wantCodes[c.Name] {
			t.Errorf("%s: %q, want %q", c.Name, c.Error, wantCodes[c.Name])
		}
	}
	if len(v.Cases) != len(wantCodes) || v.Head.Messages != 2 || v.Head.Files != 1 || v.Head.Chats != 1 || v.Lines != 4 {
		t.Errorf("%d cases, head %+v, %d lines", len(v.Cases), v.Head, v.Lines)
	}
}

// TestRoundTrip: Seal with a fresh key and IV opens again, and two seals
// of the same archive share nothing but the header's length.
func TestRoundTrip(t *testing.T) {
	rk := fixed(20, 7)
	a := sampleArchive(t)
	f1, err := Seal(rk, "alice", a)
	if err != nil {
		t.Fatal(err)
	}
	f2, _ := Seal(rk, "alice", a)
	if bytes.Equal(f1[HeaderSize:HeaderSize+32], f2[HeaderSize:HeaderSize+32]) {
		t.Fatal("two backups of one archive begin with the same ciphertext: the archive key was reused")
	}
	got, err := Open(rk, "alice", f1)
	if err != nil || !bytes.Equal(got, a) {
		t.Fatalf("open: %v", err)
	}
	if len(f1) != HeaderSize+int(attach.SealedSize(int64(len(a)))) {
		t.Fatalf("a backup of %d bytes is %d bytes long", len(a), len(f1))
	}
}

// FuzzOpen: any bytes as a backup file open with the vectors' key to an
// error or to an archive, never a panic; what opens reads to an error or
// to lines whose counts match the head.
func FuzzOpen(f *testing.F) {
	v := loadVectors(f)
	for _, c := range v.Cases {
		b, _ := base64.StdEncoding.DecodeString(c.File)
		f.Add(b)
	}
	rk, _ := hex.DecodeString(v.RecoveryKey)
	f.Fuzz(func(t *testing.T, file []byte) {
		a, err := Open(rk, "alice", file)
		if err != nil {
			return
		}
		h, lines, err := ReadArchive(a)
		if err == nil && h.Chats+h.Messages+h.Files != len(lines) {
			t.Fatalf("%d lines, the head counts %d", len(lines), h.Chats+h.Messages+h.Files)
		}
	})
}

// FuzzReadArchive: any bytes as an archive read to an error or to lines
// that are each one chat, message or file, as many as the head says.
func FuzzReadArchive(f *testing.F) {
	v := loadVectors(f)
	a, _ := base64.StdEncoding.DecodeString(v.Archive)
	f.Add(a)
	f.Add(gzipOf(f, []byte(`{"relay":"history","v":1,"account":"a","chats":1}`+"\n"+`{"chat":{"username":"b"},"msg":{}}`+"\n")))
	f.Fuzz(func(t *testing.T, archive []byte) {
		h, lines, err := ReadArchive(archive)
		if err != nil {
			return
		}
		for _, l := range lines {
			n := 0
			for _, set := range []bool{l.Chat != nil, l.Msg != nil, l.File != nil} {
				if set {
					n++
				}
			}
			if n != 1 {
				t.Fatalf("a line with %d of chat, msg and file", n)
			}
		}
		if h.Chats+h.Messages+h.Files != len(lines) {
			t.Fatalf("%d lines, the head counts %d", len(lines), h.Chats+h.Messages+h.Files)
		}
	})
}

func mustWrite(t *testing.T, h Head) []byte {
	t.Helper()
	a, err := WriteArchive(h, nil)
	if err != nil {
		t.Fatal(err)
	}
	return a
}

func gzipOf(tb testing.TB, b []byte) []byte {
	tb.Helper()
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	_, _ = zw.Write(b)
	if err := zw.Close(); err != nil {
		tb.Fatal(err)
	}
	return buf.Bytes()
}

// FuzzOpenTransfer: any bytes as a transfer body open to ErrTransfer or to
// an offer of a known kind whose numbers are not negative, never a panic.
func FuzzOpenTransfer(f *testing.F) {
	v := loadVectors(f)
	for _, b := range append(v.Transfer.Bodies, v.Transfer.Bad...) {
		raw, _ := base64.StdEncoding.DecodeString(b.Body)
		f.Add(raw)
	}
	key, _ := hex.DecodeString(v.Transfer.Key)
	id := v.Transfer.Bodies[0].ID
	f.Fuzz(func(t *testing.T, body []byte) {
		o, err := OpenTransfer(key, id, "alice", body)
		if err != nil {
			if !errors.Is(err, ErrTransfer) {
				t.Fatal(err)
			}
			return
		}
		if used(o.Kind) < 0 || o.Size < 0 || o.Since < 0 || o.Estimate < 0 {
			t.Fatalf("%+v", o)
		}
	})
}
