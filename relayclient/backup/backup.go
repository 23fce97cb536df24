// Package backup is a backup of a browser's history (docs/crypto.md,
// "History archive" and "Backup file"), the Go twin of
// webclient/static/archive.js: both are held to the known-answer vectors
// in testdata/vectors.json.
//
// A backup file is a history archive sealed as an attachment under a
// fresh archive key, after a header that holds that key, the archive's
// size and its digest, sealed under a key derived from the account's
// recovery key and username. Only someone who holds the recovery key
// opens it.
package backup

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"crypto/aes"
	"crypto/cipher"
	"crypto/rand"
	"crypto/sha256"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"

	"golang.org/x/crypto/hkdf"

	"relay/relayclient/attach"
	"relay/relayclient/seal"
)

const (
	// Magic opens every backup file.
	Magic = "RELAYBAK"
	// Version is the format's version byte, after Magic.
	Version = 1
	// HeaderSize is the bytes before the sealed archive: the magic, the
	// version, the IV and the sealed header (archive key, size, digest
	// and the GCM tag).
	HeaderSize = len(Magic) + 1 + ivSize + plainHeader + 16

	ivSize      = 12
	plainHeader = attach.KeySize + 8 + 32
	infoLabel   = "relay/v1 backup\x00"
)

var (
	// ErrNotBackup is a file that does not begin as a backup of this
	// version does.
	ErrNotBackup = errors.New("backup: not a relay backup of version 1")
	// ErrWrongKey is a header that does not open with the recovery key
	// and username given: another account's backup, or another key.
	ErrWrongKey = errors.New("backup: the backup does not open with this recovery key")
	// ErrDamaged is a backup whose header opened and whose archive does
	// not: cut short, changed, or not an archive.
	ErrDamaged = errors.New("backup: the backup is damaged")
)

// Key derives the AES-256-GCM key that seals the header of username's
// backups from the recovery key.
func Key(recoveryKey []byte, username string) ([]byte, error) {
	if len(recoveryKey) != seal.RecoveryKeySize {
		return nil, fmt.Errorf("backup: a recovery key has %d bytes, not %d", seal.RecoveryKeySize, len(recoveryKey))
	}
	key := make([]byte, 32)
	if _, err := io.ReadFull(hkdf.New(sha256.New, recoveryKey, seal.Salt, []byte(infoLabel+username)), key); err != nil {
		panic(err) // 32 bytes from HKDF-SHA-256 cannot fail
	}
	return key, nil
}

// aad binds the header to the format: "relay/v1 backup" 0 ‖ magic ‖
// version.
func aad() []byte { return append([]byte(infoLabel+Magic), Version) }

func gcm(key []byte) (cipher.AEAD, error) {
	b, err := aes.NewCipher(key)
	if err != nil {
		return nil, err
	}
	return cipher.NewGCM(b)
}

// Seal makes username's backup file of archive (its bytes as
// ReadArchive reads them) with a fresh archive key and IV.
func Seal(recoveryKey []byte, username string, archive []byte) ([]byte, error) {
	iv := make([]byte, ivSize)
	_, _ = rand.Read(iv)
	return seal1(recoveryKey, username, attach.NewKey(), iv, archive)
}

// seal1 is Seal with the archive key and the IV given, for the vectors.
func seal1(recoveryKey []byte, username string, archiveKey, iv, archive []byte) ([]byte, error) {
	key, err := Key(recoveryKey, username)
	if err != nil {
		return nil, err
	}
	sealed, digest, err := attach.Seal(archiveKey, archive)
	if err != nil {
		return nil, err
	}
	plain := make([]byte, 0, plainHeader)
	plain = append(plain, archiveKey...)
	plain = binary.BigEndian.AppendUint64(plain, uint64(len(archive)))
	plain = append(plain, digest[:]...)
	aead, err := gcm(key)
	if err != nil {
		return nil, err
	}
	out := append([]byte(Magic), Version)
	out = append(out, iv...)
	out = aead.Seal(out, iv, plain, aad())
	return append(out, sealed...), nil
}

// Open checks username's backup file with the recovery key and returns
// its archive, in the order of docs/crypto.md: the magic and version
// ([ErrNotBackup]), the header ([ErrWrongKey]), then the archive's
// length, digest, chunks and padding ([ErrDamaged]).
func Open(recoveryKey []byte, username string, file []byte) ([]byte, error) {
	if len(file) < HeaderSize || string(file[:len(Magic)]) != Magic || file[len(Magic)] != Version {
		return nil, ErrNotBackup
	}
	key, err := Key(recoveryKey, username)
	if err != nil {
		return nil, err
	}
	aead, err := gcm(key)
	if err != nil {
		return nil, err
	}
	at := len(Magic) + 1
	plain, err := aead.Open(nil, file[at:at+ivSize], file[at+ivSize:HeaderSize], aad())
	if err != nil {
		return nil, ErrWrongKey
	}
	n := int64(binary.BigEndian.Uint64(plain[attach.KeySize:]))
	var digest [32]byte
	copy(digest[:], plain[attach.KeySize+8:])
	archive, err := attach.Open(plain[:attach.KeySize], file[HeaderSize:], n, digest)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrDamaged, err)
	}
	return archive, nil
}

// Head is the first line of an archive.
type Head struct {
	Relay    string `json:"relay"` // "history"
	V        int    `json:"v"`     // 1
	Account  string `json:"account"`
	Made     int64  `json:"made"`  // ms since the epoch
	Since    int64  `json:"since"` // the oldest message's ts it may hold, 0 for all
	Chats    int    `json:"chats"`
	Messages int    `json:"messages"`
	Files    int    `json:"files"`
}

// Line is one line after the head: a chat, a message or a file's bytes.
type Line struct {
	Chat map[string]any `json:"chat,omitempty"`
	Msg  map[string]any `json:"msg,omitempty"`
	File map[string]any `json:"file,omitempty"`
	Data []byte         `json:"data,omitempty"` // a file's bytes, base64 in JSON
}

// ReadArchive reads an archive (gzip of JSON lines): its head, then its
// lines, each exactly one of chat, msg or file (a file with its data),
// and the counts of the head must match them.
func ReadArchive(archive []byte) (Head, []Line, error) {
	var h Head
	zr, err := gzip.NewReader(bytes.NewReader(archive))
	if err != nil {
		return h, nil, fmt.Errorf("%w: not gzip: %w", ErrDamaged, err)
	}
	sc := bufio.NewScanner(zr)
	sc.Buffer(make([]byte, 64<<10), 256<<20)
	if !sc.Scan() {
		return h, nil, fmt.Errorf("%w: no head", ErrDamaged)
	}
	if err := json.Unmarshal(sc.Bytes(), &h); err != nil || h.Relay != "history" || h.V != 1 || h.Account == "" {
		return h, nil, fmt.Errorf("%w: not a history archive of version 1", ErrDamaged)
	}
	var lines []Line
	var chats, msgs, files int
	for sc.Scan() {
		var l Line
		if err := json.Unmarshal(sc.Bytes(), &l); err != nil {
			return h, nil, fmt.Errorf("%w: line %d: %w", ErrDamaged, len(lines)+2, err)
		}
		switch {
		case l.Chat != nil && l.Msg == nil && l.File == nil:
			chats++
		case l.Msg != nil && l.Chat == nil && l.File == nil:
			msgs++
		case l.File != nil && l.Chat == nil && l.Msg == nil && l.Data != nil:
			files++
		default:
			return h, nil, fmt.Errorf("%w: line %d is not one chat, message or file", ErrDamaged, len(lines)+2)
		}
		lines = append(lines, l)
	}
	if err := sc.Err(); err != nil {
		return h, nil, fmt.Errorf("%w: %w", ErrDamaged, err)
	}
	if chats != h.Chats || msgs != h.Messages || files != h.Files {
		return h, nil, fmt.Errorf("%w: %d chats, %d messages and %d files, the head says %d, %d and %d", ErrDamaged, chats, msgs, files, h.Chats, h.Messages, h.Files)
	}
	return h, lines, nil
}

// WriteArchive makes an archive of h and lines (the counts of h are set
// from lines).
func WriteArchive(h Head, lines []Line) ([]byte, error) {
	h.Relay, h.V = "history", 1
	h.Chats, h.Messages, h.Files = 0, 0, 0
	for _, l := range lines {
		switch {
		case l.Chat != nil:
			h.Chats++
		case l.Msg != nil:
			h.Messages++
		case l.File != nil:
			h.Files++
		}
	}
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	enc := json.NewEncoder(zw)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(h); err != nil {
		return nil, err
	}
	for _, l := range lines {
		if err := enc.Encode(l); err != nil {
			return nil, err
		}
	}
	if err := zw.Close(); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}
