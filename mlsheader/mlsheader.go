// Package mlsheader reads the clear header of an MLS message (RFC 9420,
// section 6): the protocol version, the wire format, the group id, the
// epoch and, where it is in the clear, the content type. It is what the
// relay needs to accept one commit per group and epoch (docs/protocol.md,
// "POST /api/messages", and ADR 0099) and nothing more. Of a Welcome it
// checks only the framing, version and wire format (ADR 0105).
//
// The package holds no keys and never decrypts, verifies or interprets
// anything beyond that header: a message that parses here may still be
// garbage to its recipients, who alone can tell. It is strict: every
// length is checked against what is left, vector lengths must use the
// shortest encoding (RFC 9420, section 2.1.2), and a private message must
// end where its last field ends.
package mlsheader

import (
	"errors"
	"fmt"
)

// Wire formats (RFC 9420, section 6).
const (
	WirePublic  = 1 // mls_public_message
	WirePrivate = 2 // mls_private_message
	WireWelcome = 3 // mls_welcome
)

// Content types (RFC 9420, section 6).
const (
	ContentApplication = 1
	ContentProposal    = 2
	ContentCommit      = 3
)

// mls10 is the only protocol version there is (RFC 9420, section 6).
const mls10 = 1

// MaxGroupID bounds the group id the relay keeps. RFC 9420 sets no bound;
// clients draw 32 random bytes (section 8), and 256 leaves room for any
// other choice without letting one row grow large.
const MaxGroupID = 256

// ErrMalformed is every refusal of Parse; the wrapping error says which
// field.
var ErrMalformed = errors.New("not an MLS message header the relay accepts")

// Header is what the relay reads of an MLS message.
type Header struct {
	WireFormat uint16 // WirePublic or WirePrivate
	GroupID    []byte // 1 to MaxGroupID bytes; aliases the parsed bytes
	Epoch      uint64
	// ContentType is in the clear in both wire formats RFC 9420 frames:
	// PublicMessage's FramedContent and PrivateMessage's header both carry
	// it.
	ContentType uint8
}

// Parse reads the header of msg, an MLSMessage of wire format
// mls_public_message or mls_private_message. For a private message it
// also checks the lengths of the fields that follow (authenticated data,
// encrypted sender data, ciphertext) and that nothing follows them; for a
// public message it stops after the content type, because what follows is
// the content itself (proposals, a commit), which the relay does not read.
// Errors wrap ErrMalformed.
func Parse(msg []byte) (Header, error) {
	r := reader{b: msg}
	version, ok := r.uint16()
	if !ok {
		return Header{}, malformed("the message is shorter than its version")
	}
	if version != mls10 {
		return Header{}, malformed("version is not mls10")
	}
	var h Header
	if h.WireFormat, ok = r.uint16(); !ok {
		return Header{}, malformed("the message is shorter than its wire format")
	}
	if h.WireFormat != WirePublic && h.WireFormat != WirePrivate {
		return Header{}, malformed("wire format is neither mls_public_message nor mls_private_message")
	}
	if h.GroupID, ok = r.vector(); !ok {
		return Header{}, malformed("group_id is not a well-formed vector")
	}
	if len(h.GroupID) == 0 || len(h.GroupID) > MaxGroupID {
		return Header{}, malformed(fmt.Sprintf("group_id must be 1 to %d bytes", MaxGroupID))
	}
	if h.Epoch, ok = r.uint64(); !ok {
		return Header{}, malformed("the message is shorter than its epoch")
	}
	if h.WireFormat == WirePublic {
		// FramedContent: sender, authenticated_data, content_type.
		if !r.sender() {
			return Header{}, malformed("sender is not a well-formed Sender")
		}
		if _, ok := r.vector(); !ok {
			return Header{}, malformed("authenticated_data is not a well-formed vector")
		}
		if h.ContentType, ok = r.uint8(); !ok {
			return Header{}, malformed("the message is shorter than its content type")
		}
	} else {
		if h.ContentType, ok = r.uint8(); !ok {
			return Header{}, malformed("the message is shorter than its content type")
		}
		for _, field := range []string{"authenticated_data", "encrypted_sender_data", "ciphertext"} {
			if _, ok := r.vector(); !ok {
				return Header{}, malformed(field + " is not a well-formed vector")
			}
		}
		if len(r.b) != 0 {
			return Header{}, malformed("bytes follow the private message")
		}
	}
	if h.ContentType < ContentApplication || h.ContentType > ContentCommit {
		return Header{}, malformed("content_type is not application, proposal or commit")
	}
	return h, nil
}

// CheckWelcome checks that msg is framed as an MLSMessage carrying a
// Welcome: version mls10, then wire format mls_welcome. That is all the
// relay can see of a Welcome without keys (its secrets are encrypted to
// the new members' key packages), so nothing after those 4 bytes is read.
// Errors wrap ErrMalformed.
func CheckWelcome(msg []byte) error {
	r := reader{b: msg}
	version, ok := r.uint16()
	if !ok {
		return malformed("the message is shorter than its version")
	}
	if version != mls10 {
		return malformed("version is not mls10")
	}
	wire, ok := r.uint16()
	if !ok {
		return malformed("the message is shorter than its wire format")
	}
	if wire != WireWelcome {
		return malformed("wire format is not mls_welcome")
	}
	return nil
}

func malformed(why string) error { return fmt.Errorf("%w: %s", ErrMalformed, why) }

// reader consumes b from the front; every read checks what is left.
type reader struct{ b []byte }

func (r *reader) take(n int) ([]byte, bool) {
	if n < 0 || n > len(r.b) {
		return nil, false
	}
	v := r.b[:n:n]
	r.b = r.b[n:]
	return v, true
}

func (r *reader) uint8() (uint8, bool) {
	v, ok := r.take(1)
	if !ok {
		return 0, false
	}
	return v[0], true
}

func (r *reader) uint16() (uint16, bool) {
	v, ok := r.take(2)
	if !ok {
		return 0, false
	}
	return uint16(v[0])<<8 | uint16(v[1]), true
}

func (r *reader) uint32() (uint32, bool) {
	v, ok := r.take(4)
	if !ok {
		return 0, false
	}
	return uint32(v[0])<<24 | uint32(v[1])<<16 | uint32(v[2])<<8 | uint32(v[3]), true
}

func (r *reader) uint64() (uint64, bool) {
	hi, ok := r.uint32()
	if !ok {
		return 0, false
	}
	lo, ok := r.uint32()
	return uint64(hi)<<32 | uint64(lo), ok
}

// vector reads an opaque<V>: a variable-length length (RFC 9420, section
// 2.1.2: QUIC's encoding in 1, 2 or 4 bytes, the 8-byte form invalid, and
// always the shortest form), then that many bytes.
func (r *reader) vector() ([]byte, bool) {
	first, ok := r.uint8()
	if !ok {
		return nil, false
	}
	var n uint32
	switch first >> 6 {
	case 0:
		n = uint32(first)
	case 1:
		b, ok := r.uint8()
		if !ok {
			return nil, false
		}
		n = uint32(first&0x3f)<<8 | uint32(b)
		if n < 1<<6 {
			return nil, false // not the shortest form
		}
	case 2:
		b, ok := r.take(3)
		if !ok {
			return nil, false
		}
		n = uint32(first&0x3f)<<24 | uint32(b[0])<<16 | uint32(b[1])<<8 | uint32(b[2])
		if n < 1<<14 {
			return nil, false // not the shortest form
		}
	default:
		return nil, false
	}
	if uint64(n) > uint64(len(r.b)) {
		return nil, false
	}
	return r.take(int(n))
}

// sender reads a Sender (RFC 9420, section 6): its type, then a leaf or
// sender index for the types that have one.
func (r *reader) sender() bool {
	t, ok := r.uint8()
	if !ok {
		return false
	}
	switch t {
	case 1, 2: // member: leaf_index; external: sender_index
		_, ok := r.uint32()
		return ok
	case 3, 4: // new_member_proposal, new_member_commit: nothing
		return true
	}
	return false
}
