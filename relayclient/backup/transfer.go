package backup

import (
	"crypto/aes"
	"crypto/cipher"
	"crypto/ecdh"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"
	"io"

	"golang.org/x/crypto/hkdf"

	"relay/relayclient/attach"
	"relay/relayclient/seal"
)

// A history transfer (docs/crypto.md, "History transfer") passes between
// two devices of one account in envelopes to the account's own name,
// sealed under a key of the two devices, as a link body is. Every body is
// TransferBodySize bytes, a size no link body (125) and no padded
// conversation body (at least 284) has.
const (
	TransferBodySize  = seal.IVSize + transferPlain + seal.TagSize
	transferPlain     = 100
	transferInfoLabel = "relay/v1 history\x00"
)

// The kinds of a transfer body.
const (
	// Coming: the approving device is making the archive.
	Coming byte = 1
	// Ready: the archive is on the relay; the body says how to open it.
	Ready byte = 2
	// Stopped: the approving device could not finish.
	Stopped byte = 3
	// Ask: the new device asks for the history again.
	Ask byte = 4
)

// ErrTransfer is a transfer body that does not open, or opens to a kind
// or a padding that is not of this version.
var ErrTransfer = errors.New("backup: not a history transfer body of version 1")

// Offer is what a transfer body says. Coming has Estimate and Since;
// Ready has ID, Key, Size, Digest and Since; Stopped and Ask nothing.
type Offer struct {
	Kind     byte
	Estimate int64 // bytes, about
	Since    int64 // ms since the epoch; 0 for the whole history
	ID       [16]byte
	Key      [attach.KeySize]byte
	Size     int64
	Digest   [32]byte
}

// TransferKey derives the key of the bodies from device fromDevice to
// device toDevice: ECDH of one's device key and the other's public key.
func TransferKey(priv *ecdh.PrivateKey, theirDevicePub []byte, fromDevice, toDevice string) ([]byte, error) {
	pub, err := ecdh.P256().NewPublicKey(theirDevicePub)
	if err != nil {
		return nil, fmt.Errorf("backup: bad public key: %w", err)
	}
	shared, err := priv.ECDH(pub)
	if err != nil {
		return nil, err
	}
	key := make([]byte, 32)
	if _, err := io.ReadFull(hkdf.New(sha256.New, shared, seal.Salt, []byte(transferInfoLabel+fromDevice+"\x00"+toDevice)), key); err != nil {
		panic(err) // 32 bytes from HKDF-SHA-256 cannot fail
	}
	return key, nil
}

// transferAAD binds a body to its envelope: "relay/v1 history" 0 id 0
// username.
func transferAAD(id, username string) []byte {
	return []byte(transferInfoLabel + id + "\x00" + username)
}

func (o Offer) plain() []byte {
	p := make([]byte, transferPlain)
	p[0] = o.Kind
	switch o.Kind {
	case Coming:
		binary.BigEndian.PutUint64(p[1:], uint64(o.Estimate))
		binary.BigEndian.PutUint64(p[9:], uint64(o.Since))
	case Ready:
		copy(p[1:], o.ID[:])
		copy(p[17:], o.Key[:])
		binary.BigEndian.PutUint64(p[49:], uint64(o.Size))
		copy(p[57:], o.Digest[:])
		binary.BigEndian.PutUint64(p[89:], uint64(o.Since))
	}
	return p
}

// used is how many bytes of the plaintext a kind uses.
func used(kind byte) int {
	switch kind {
	case Coming:
		return 17
	case Ready:
		return 97
	case Stopped, Ask:
		return 1
	}
	return -1
}

// SealTransfer seals o for the envelope id of username.
func SealTransfer(key, iv []byte, id, username string, o Offer) ([]byte, error) {
	if used(o.Kind) < 0 {
		return nil, ErrTransfer
	}
	aead, err := gcm(key)
	if err != nil {
		return nil, err
	}
	return aead.Seal(append([]byte{}, iv...), iv, o.plain(), transferAAD(id, username)), nil
}

// OpenTransfer opens a transfer body: its size, its tag, a known kind and
// zeros past what the kind uses, else ErrTransfer.
func OpenTransfer(key []byte, id, username string, body []byte) (Offer, error) {
	var o Offer
	if len(body) != TransferBodySize {
		return o, ErrTransfer
	}
	b, err := aes.NewCipher(key)
	if err != nil {
		return o, err
	}
	aead, err := cipher.NewGCM(b)
	if err != nil {
		return o, err
	}
	p, err := aead.Open(nil, body[:seal.IVSize], body[seal.IVSize:], transferAAD(id, username))
	if err != nil {
		return o, ErrTransfer
	}
	n := used(p[0])
	if n < 0 {
		return o, ErrTransfer
	}
	for _, x := range p[n:] {
		if x != 0 {
			return o, ErrTransfer
		}
	}
	o.Kind = p[0]
	switch o.Kind {
	case Coming:
		o.Estimate = int64(binary.BigEndian.Uint64(p[1:]))
		o.Since = int64(binary.BigEndian.Uint64(p[9:]))
	case Ready:
		copy(o.ID[:], p[1:17])
		copy(o.Key[:], p[17:49])
		o.Size = int64(binary.BigEndian.Uint64(p[49:]))
		copy(o.Digest[:], p[57:89])
		o.Since = int64(binary.BigEndian.Uint64(p[89:]))
	}
	// Numbers past 2^53 - 1 are refused, as JavaScript's are.
	const maxSafe = 1<<53 - 1
	if o.Estimate < 0 || o.Since < 0 || o.Size < 0 || o.Estimate > maxSafe || o.Since > maxSafe || o.Size > maxSafe {
		return Offer{}, ErrTransfer
	}
	return o, nil
}
