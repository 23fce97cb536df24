// Package seal is the client-side envelope cryptography of relay, the Go
// twin of webclient/static/crypto.js. The relay never runs it: only
// clients hold the keys. docs/crypto.md is the specification, and the
// known-answer vectors in testdata/vectors.json bind this package and the
// browser client to the same bytes.
//
// Conversations: the key between accounts A and B is
// HKDF-SHA-256(ECDH(A, B), Salt, "relay/v1 conversation" 0 a 0 b) with the
// usernames sorted, used with AES-256-GCM. An envelope body is IV ‖
// ciphertext, and the additional authenticated data binds the envelope id,
// the sender and the recipient ([AAD]), so a relay that swaps any of them
// makes decryption fail. The plaintext is a small JSON record padded to a
// size bucket ([Pad]), so the relay does not learn message lengths.
//
// Device linking: an approving device sends a new device of the same
// account the account's private key, sealed with
// HKDF(ECDH(approver device, new device), Salt, "relay/v1 link" 0 from 0 to).
// Its body is exactly [LinkBodySize] bytes, which no conversation body can
// be, so devices tell the two apart without trying keys.
//
// Recovery: a recovery key is 20 random bytes, written in base32 with a
// check character ([FormatRecoveryKey], [ParseRecoveryKey]). It wraps the
// account key pair into a blob the relay stores and cannot open
// ([WrapAccountKey], [UnwrapAccountKey]): version ‖ IV ‖ AES-256-GCM under
// HKDF(recovery key, Salt, "relay/v1 recovery" 0 username), with the same
// string as additional data.
//
// Records: the JSON inside a plaintext is a record of a conversation (a
// message, an edit, a deletion, a reaction, a receipt, a read position).
// [ParseRecord] reads one exactly as records.js reads it in the browser,
// and the builders ([TextRecord] and the others) write them.
package seal

import (
	"crypto/aes"
	"crypto/cipher"
	"crypto/ecdh"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math/big"
	"sort"
	"strings"

	"golang.org/x/crypto/hkdf"
)

// Salt is the HKDF salt of every key this package derives.
var Salt = []byte("relay/v1 hkdf salt")

const (
	// IVSize is the AES-GCM nonce length.
	IVSize = 12
	// TagSize is the AES-GCM tag length.
	TagSize = 16
	// MaxRecord is the largest record JSON that fits the relay's 65,536
	// byte body limit: 65,536 − IV − tag − the 4-byte length prefix.
	MaxRecord = 65536 - IVSize - TagSize - 4
	// LinkPlaintextSize is the account private scalar (32 bytes) followed
	// by the account public key (65 bytes).
	LinkPlaintextSize = 32 + 65
	// LinkBodySize is the body size of every link envelope.
	LinkBodySize = IVSize + LinkPlaintextSize + TagSize
)

// Buckets are the padded plaintext sizes, smallest first. A record of n
// bytes is padded to the first bucket that holds 4+n bytes.
var Buckets = []int{256, 512, 1024, 2048, 4096, 8192, 16384, 32768, 65536 - IVSize - TagSize}

// Errors.
var (
	ErrOpen          = errors.New("seal: the envelope does not decrypt with this key, id, sender and recipient")
	ErrPadding       = errors.New("seal: bad padding")
	ErrRecordTooLong = errors.New("seal: record too long")
	ErrKeyMismatch   = errors.New("seal: the private key does not belong to the expected public key")
)

func derive(shared []byte, info string) []byte {
	key := make([]byte, 32)
	if _, err := io.ReadFull(hkdf.New(sha256.New, shared, Salt, []byte(info)), key); err != nil {
		panic(err) // 32 bytes from HKDF-SHA-256 cannot fail
	}
	return key
}

// ConversationKey derives the AES-256 key of the conversation between me
// (holding priv) and them (with public key theirPub). Both sides get the same
// key; for notes to self, me == them and theirPub is the own public key.
func ConversationKey(priv *ecdh.PrivateKey, theirPub []byte, me, them string) ([]byte, error) {
	pub, err := ecdh.P256().NewPublicKey(theirPub)
	if err != nil {
		return nil, fmt.Errorf("seal: bad public key: %w", err)
	}
	shared, err := priv.ECDH(pub)
	if err != nil {
		return nil, err
	}
	names := []string{me, them}
	sort.Strings(names)
	return derive(shared, "relay/v1 conversation\x00"+names[0]+"\x00"+names[1]), nil
}

// LinkKey derives the key that seals the account key from device fromDevice
// to device toDevice.
func LinkKey(priv *ecdh.PrivateKey, theirDevicePub []byte, fromDevice, toDevice string) ([]byte, error) {
	pub, err := ecdh.P256().NewPublicKey(theirDevicePub)
	if err != nil {
		return nil, fmt.Errorf("seal: bad public key: %w", err)
	}
	shared, err := priv.ECDH(pub)
	if err != nil {
		return nil, err
	}
	return derive(shared, "relay/v1 link\x00"+fromDevice+"\x00"+toDevice), nil
}

// AAD is the additional authenticated data of an envelope.
func AAD(id, from, to string) []byte {
	return []byte("relay/v1 envelope\x00" + id + "\x00" + from + "\x00" + to)
}

// Pad frames a record as length ‖ record ‖ zeros, to the smallest bucket.
func Pad(record []byte) ([]byte, error) {
	n := 4 + len(record)
	for _, b := range Buckets {
		if n <= b {
			out := make([]byte, b)
			binary.BigEndian.PutUint32(out, uint32(len(record)))
			copy(out[4:], record)
			return out, nil
		}
	}
	return nil, ErrRecordTooLong
}

// Unpad reverses Pad. The padding must be a bucket size and all zeros.
func Unpad(p []byte) ([]byte, error) {
	ok := false
	for _, b := range Buckets {
		if len(p) == b {
			ok = true
		}
	}
	if !ok || len(p) < 4 {
		return nil, ErrPadding
	}
	n := int(binary.BigEndian.Uint32(p))
	if n > len(p)-4 {
		return nil, ErrPadding
	}
	for _, c := range p[4+n:] {
		if c != 0 {
			return nil, ErrPadding
		}
	}
	return p[4 : 4+n], nil
}

func gcm(key []byte) cipher.AEAD {
	block, err := aes.NewCipher(key)
	if err != nil {
		panic(err) // keys here are always 32 bytes
	}
	a, err := cipher.NewGCM(block)
	if err != nil {
		panic(err)
	}
	return a
}

// Seal encrypts a record into an envelope body: iv ‖ AES-GCM(pad(record)).
// iv must be 12 fresh random bytes.
func Seal(key, iv []byte, id, from, to string, record []byte) ([]byte, error) {
	p, err := Pad(record)
	if err != nil {
		return nil, err
	}
	return sealRaw(key, iv, AAD(id, from, to), p), nil
}

func sealRaw(key, iv, aad, plain []byte) []byte {
	out := make([]byte, 0, IVSize+len(plain)+TagSize)
	out = append(out, iv...)
	return gcm(key).Seal(out, iv, plain, aad)
}

func openRaw(key, aad, body []byte) ([]byte, error) {
	if len(body) < IVSize+TagSize {
		return nil, ErrOpen
	}
	p, err := gcm(key).Open(nil, body[:IVSize], body[IVSize:], aad)
	if err != nil {
		return nil, ErrOpen
	}
	return p, nil
}

// Open decrypts an envelope body and returns the record.
func Open(key []byte, id, from, to string, body []byte) ([]byte, error) {
	p, err := openRaw(key, AAD(id, from, to), body)
	if err != nil {
		return nil, err
	}
	return Unpad(p)
}

// IsLink reports whether a body has the size of a link envelope.
func IsLink(body []byte) bool { return len(body) == LinkBodySize }

// SealLink seals the account key pair for a new device.
func SealLink(key, iv []byte, id, username string, account *ecdh.PrivateKey) []byte {
	plain := append(append([]byte{}, account.Bytes()...), account.PublicKey().Bytes()...)
	return sealRaw(key, iv, AAD(id, username, username), plain)
}

// OpenLink opens a link envelope and checks that the key inside is the
// account key the new device expects (the one its link code covered).
func OpenLink(key []byte, id, username string, body []byte, accountPub []byte) (*ecdh.PrivateKey, error) {
	p, err := openRaw(key, AAD(id, username, username), body)
	if err != nil {
		return nil, err
	}
	if len(p) != LinkPlaintextSize {
		return nil, ErrOpen
	}
	priv, err := ecdh.P256().NewPrivateKey(p[:32])
	if err != nil {
		return nil, ErrKeyMismatch
	}
	if string(priv.PublicKey().Bytes()) != string(p[32:]) || string(p[32:]) != string(accountPub) {
		return nil, ErrKeyMismatch
	}
	return priv, nil
}

// digits renders the first bytes of a hash as n decimal digits in groups.
func digits(sum []byte, n, group int) string {
	v := new(big.Int).SetBytes(sum)
	mod := new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(n)), nil)
	s := fmt.Sprintf("%0*s", n, v.Mod(v, mod).String())
	var parts []string
	for i := 0; i < n; i += group {
		parts = append(parts, s[i:i+group])
	}
	return strings.Join(parts, " ")
}

// LinkCode is the verification code a new device shows and the approving
// device shows for it: 16 digits from the account public key and the new
// device's public key. A relay that swapped either key changes the code.
func LinkCode(accountPub, devicePub []byte) string {
	h := sha256.New()
	h.Write([]byte("relay/v1 link code\x00"))
	h.Write(accountPub)
	h.Write(devicePub)
	return digits(h.Sum(nil), 16, 4)
}

// SafetyCode is the code two people compare out of band to check they hold
// each other's real identity keys: 30 digits, the same on both sides.
func SafetyCode(userA string, pubA []byte, userB string, pubB []byte) string {
	if userA > userB {
		userA, pubA, userB, pubB = userB, pubB, userA, pubA
	}
	h := sha256.New()
	h.Write([]byte("relay/v1 safety code\x00" + userA + "\x00"))
	h.Write(pubA)
	h.Write([]byte("\x00" + userB + "\x00"))
	h.Write(pubB)
	return digits(h.Sum(nil), 30, 5)
}
