package seal

import (
	"bytes"
	"encoding/json"
	"errors"
	"math"
	"regexp"
	"strconv"
	"unicode/utf16"
	"unicode/utf8"
)

// The records inside the ciphertext, docs/crypto.md "Records". ParseRecord
// is the Go twin of parseRecord in webclient/static/records.js: the two read
// the same bytes as the same record, which the "records" part of the
// known-answer vectors checks on both sides.
//
// A record is read as the browser's JSON.parse reads it, not as the relay
// reads request bodies (ADR 0022): a name given twice counts by its last
// value, and nesting has no depth limit. Otherwise a record the browser
// keeps could be refused here, or read as another record.

// Record types. A record whose type is none of these is a [TypeUnknown].
const (
	TypeText     = "text"
	TypeEdit     = "edit"
	TypeDelete   = "delete"
	TypeReaction = "reaction"
	TypeReceipt  = "receipt"
	TypeRead     = "read"
	// TypeLeave asks a group chat's members to remove its sender's
	// account; it has no fields.
	TypeLeave = "leave"
	// TypeUnknown is the Type of a record of a type this client does not
	// know; its Name is the type the record gives.
	TypeUnknown = "unknown"
)

// Receipt statuses.
const (
	StatusDelivered = "delivered"
	StatusRead      = "read"
)

// Limits of docs/crypto.md "Records", the same as records.js.
const (
	MaxText       = 16000 // UTF-16 code units of a text
	MaxIDs        = 100   // ids of a receipt or of a read position
	MaxEmojiBytes = 32    // UTF-8 bytes of a reaction's emoji
)

// Record is a parsed record with the fields of its type only, the shape
// records.js gives:
//
//	text:     Text, ReplyTo ("" for none)
//	edit:     Target, Text
//	delete:   Target
//	reaction: Target, Emoji, On
//	receipt:  Status, IDs
//	read:     Chat, UpTo, Sort (when HasSort), V, Base (nil when not
//	          given), IDs (nil when not given, empty when given empty)
//	leave:    nothing
//	unknown:  Name
//
// Its author, id and chat are not in it: they come from the envelope. A
// read position's Base is the newest reading that a "Mark as unread"
// undid, and its IDs are the late messages seen: those that lay behind the
// position when they arrived, each once, in the order first given (ADR
// 0091).
type Record struct {
	Type    string
	Name    string
	Text    string
	ReplyTo string
	Target  string
	Emoji   string
	On      bool
	Status  string
	IDs     []string
	Chat    string
	UpTo    string
	Sort    int64
	HasSort bool
	V       int64
	Base    *ReadBase
}

// ReadBase is the order key of a reading: the relay's ts of a message,
// and its id. Its ID is any string, as in records.js: the start of a chat
// is the key {0, ""}.
type ReadBase struct {
	Sort int64  `json:"sort"`
	ID   string `json:"id"`
}

var (
	// ErrUnknownType comes with a record of a type this client does not
	// know. The record is not invalid: the caller keeps its bytes for a
	// newer client to read.
	ErrUnknownType = errors.New("seal: a record type this client does not know")
	// ErrInvalidRecord is in the chain of every [*RecordError].
	ErrInvalidRecord = errors.New("seal: invalid record")
)

// NotARecord is the Field of a [*RecordError] for bytes that are not a JSON
// object with a string type.
const NotARecord = "not a record"

// RecordError says which field made a record invalid, with the reason
// records.js gives: [NotARecord], "text", "replyTo", "target", "emoji",
// "on", "status", "ids", "chat or upTo" or "base". It never holds a value:
// that is the content of a message.
type RecordError struct {
	Field string
}

func (e *RecordError) Error() string {
	if e.Field == NotARecord {
		return "seal: not a record"
	}
	return ErrInvalidRecord.Error() + ": bad " + e.Field
}

// Unwrap makes errors.Is(err, ErrInvalidRecord) hold.
func (e *RecordError) Unwrap() error { return ErrInvalidRecord }

var idPattern = regexp.MustCompile(`^[0-7][0-9A-HJKMNP-TV-Z]{25}$`)

// isID reports whether s is a canonical ULID, "Common rules".
func isID(s string) bool { return idPattern.MatchString(s) }

// isText reports whether s has 1 to MaxText UTF-16 code units, counted as
// JavaScript's length counts them.
func isText(s string) bool {
	n := 0
	for _, r := range s {
		n += utf16.RuneLen(r) // range gives valid runes only
	}
	return n >= 1 && n <= MaxText
}

// isEmoji reports whether s has 1 to MaxEmojiBytes bytes and no C0 or C1
// control character or DEL.
func isEmoji(s string) bool {
	for _, r := range s {
		if r <= 0x1f || r >= 0x7f && r <= 0x9f {
			return false
		}
	}
	return len(s) >= 1 && len(s) <= MaxEmojiBytes
}

// ParseRecord reads a decrypted record by docs/crypto.md "Records". A known
// type with every field right gives the record and no error. A type this
// client does not know gives a [TypeUnknown] record with its Name and
// [ErrUnknownType]. Anything else is a [*RecordError]: bytes longer than
// [MaxRecord], not UTF-8 or not a JSON object with a string type are
// [NotARecord]; a known type with a missing or bad field names the field.
// Names the type does not use are ignored. One byte order mark before the
// object is ignored, as in the browser.
func ParseRecord(b []byte) (Record, error) {
	if len(b) > MaxRecord || !utf8.Valid(b) {
		return Record{}, &RecordError{Field: NotARecord}
	}
	// The browser decodes the bytes with TextDecoder, which drops one
	// leading byte order mark.
	m, ok := parseObject(bytes.TrimPrefix(b, []byte("\uFEFF")))
	if !ok {
		return Record{}, &RecordError{Field: NotARecord}
	}
	typ, ok := m["type"]
	if !ok || typ.kind != jsonString {
		return Record{}, &RecordError{Field: NotARecord}
	}
	bad := func(field string) (Record, error) { return Record{}, &RecordError{Field: field} }
	str := func(name string) (string, bool) {
		v, ok := m[name]
		return v.str, ok && v.kind == jsonString
	}
	id := func(name string) (string, bool) {
		s, ok := str(name)
		return s, ok && isID(s)
	}
	r := Record{Type: typ.str}
	switch r.Type {
	case TypeText:
		if r.Text, ok = str("text"); !ok || !isText(r.Text) {
			return bad("text")
		}
		if v, given := m["replyTo"]; given && v.kind != jsonNull {
			if r.ReplyTo, ok = id("replyTo"); !ok {
				return bad("replyTo")
			}
		}
	case TypeEdit:
		if r.Target, ok = id("target"); !ok {
			return bad("target")
		}
		if r.Text, ok = str("text"); !ok || !isText(r.Text) {
			return bad("text")
		}
	case TypeDelete:
		if r.Target, ok = id("target"); !ok {
			return bad("target")
		}
	case TypeReaction:
		if r.Target, ok = id("target"); !ok {
			return bad("target")
		}
		if r.Emoji, ok = str("emoji"); !ok || !isEmoji(r.Emoji) {
			return bad("emoji")
		}
		switch m["on"].kind {
		case jsonTrue:
			r.On = true
		case jsonFalse:
		default:
			return bad("on")
		}
	case TypeReceipt:
		if r.Status, ok = str("status"); !ok || r.Status != StatusDelivered && r.Status != StatusRead {
			return bad("status")
		}
		ids := m["ids"]
		if ids.kind != jsonArray || len(ids.elems) < 1 || len(ids.elems) > MaxIDs {
			return bad("ids")
		}
		seen := make(map[string]bool, len(ids.elems))
		for _, e := range ids.elems {
			if e.kind != jsonString || !isID(e.str) || seen[e.str] {
				return bad("ids")
			}
			seen[e.str] = true
			r.IDs = append(r.IDs, e.str)
		}
	case TypeRead:
		chat, ok1 := str("chat")
		upTo, ok2 := str("upTo")
		if !ok1 || !ok2 {
			return bad("chat or upTo")
		}
		r.Chat, r.UpTo = chat, upTo
		// An older client sends neither sort nor v; a value that is not a
		// non-negative safe integer of JavaScript counts as not given.
		r.Sort, r.HasSort = safeInteger(m["sort"])
		r.V, _ = safeInteger(m["v"])
		// base and ids are newer still: a record without them undid
		// nothing and saw no late message. Given, they must be right.
		if b, given := m["base"]; given {
			sort, ok := safeInteger(b.members["sort"])
			id := b.members["id"]
			if b.kind != jsonObject || !ok || id.kind != jsonString {
				return bad("base")
			}
			r.Base = &ReadBase{Sort: sort, ID: id.str}
		}
		if ids, given := m["ids"]; given {
			if r.IDs, ok = readIDs(ids); !ok {
				return bad("ids")
			}
		}
	case TypeLeave:
	default:
		return Record{Type: TypeUnknown, Name: r.Type}, ErrUnknownType
	}
	return r, nil
}

// readIDs reads the ids of a read position: an array of at most MaxIDs
// ids, each kept once, where it first appears. The bound counts the array
// as given, before duplicates are dropped, as records.js counts it.
func readIDs(v jsonValue) ([]string, bool) {
	if v.kind != jsonArray || len(v.elems) > MaxIDs {
		return nil, false
	}
	ids := []string{} // given empty, they are there, empty, as in records.js
	seen := make(map[string]bool, len(v.elems))
	for _, e := range v.elems {
		if e.kind != jsonString || !isID(e.str) {
			return nil, false
		}
		if !seen[e.str] {
			seen[e.str] = true
			ids = append(ids, e.str)
		}
	}
	return ids, true
}

// safeInteger reads a number as JavaScript does (the nearest float64) and
// accepts it only if Number.isSafeInteger holds and it is not negative.
func safeInteger(v jsonValue) (int64, bool) {
	if v.kind != jsonNumber {
		return 0, false
	}
	// The syntax was checked; a range error still gives ±Inf or the
	// nearest value, as JavaScript reads it.
	f, _ := strconv.ParseFloat(v.str, 64)
	if f < 0 || f > 1<<53-1 || f != math.Trunc(f) {
		return 0, false
	}
	return int64(f), true
}

// MarshalJSON writes the record as a client sends it: type first, then the
// fields of its type in the order of [Record]'s documentation. A
// TypeUnknown record is written as {"type": Name}.
func (r Record) MarshalJSON() ([]byte, error) {
	var w recordWriter
	if r.Type == TypeUnknown {
		w.field("type", r.Name)
		return w.end(), nil
	}
	w.field("type", r.Type)
	switch r.Type {
	case TypeText:
		w.field("text", r.Text)
		if r.ReplyTo != "" {
			w.field("replyTo", r.ReplyTo)
		}
	case TypeEdit:
		w.field("target", r.Target)
		w.field("text", r.Text)
	case TypeDelete:
		w.field("target", r.Target)
	case TypeReaction:
		w.field("target", r.Target)
		w.field("emoji", r.Emoji)
		w.field("on", r.On)
	case TypeReceipt:
		w.field("status", r.Status)
		w.field("ids", r.IDs)
	case TypeRead:
		w.field("chat", r.Chat)
		w.field("upTo", r.UpTo)
		if r.HasSort {
			w.field("sort", r.Sort)
		}
		w.field("v", r.V)
		if r.Base != nil {
			w.field("base", r.Base)
		}
		if r.IDs != nil {
			w.field("ids", r.IDs)
		}
	}
	return w.end(), nil
}

// recordWriter writes a JSON object member by member, in order.
type recordWriter struct{ buf bytes.Buffer }

func (w *recordWriter) field(name string, v any) {
	if w.buf.Len() == 0 {
		w.buf.WriteByte('{')
	} else {
		w.buf.WriteByte(',')
	}
	w.value(name)
	w.buf.WriteByte(':')
	w.value(v)
}

func (w *recordWriter) value(v any) {
	// Strings, booleans, integers, string slices and a *ReadBase cannot
	// fail to encode.
	// HTML escaping is off, so a text reads as the person wrote it.
	e := json.NewEncoder(&w.buf)
	e.SetEscapeHTML(false)
	_ = e.Encode(v)
	w.buf.Truncate(w.buf.Len() - 1) // Encode ends with a newline
}

func (w *recordWriter) end() []byte {
	w.buf.WriteByte('}')
	return w.buf.Bytes()
}

// build writes r and checks it as a receiver will, so a builder never makes
// a record that ParseRecord refuses.
func build(r Record) ([]byte, error) {
	b, _ := r.MarshalJSON()
	if _, err := ParseRecord(b); err != nil {
		return nil, err
	}
	return b, nil
}

// TextRecord is a message; replyTo is the id of the message it quotes, or ""
// for none.
func TextRecord(text, replyTo string) ([]byte, error) {
	return build(Record{Type: TypeText, Text: text, ReplyTo: replyTo})
}

// EditRecord replaces the text of the message target.
func EditRecord(target, text string) ([]byte, error) {
	return build(Record{Type: TypeEdit, Target: target, Text: text})
}

// DeleteRecord deletes the message target for everyone.
func DeleteRecord(target string) ([]byte, error) {
	return build(Record{Type: TypeDelete, Target: target})
}

// ReactionRecord says that the author's reaction emoji to the message
// target is there (on) or not.
func ReactionRecord(target, emoji string, on bool) ([]byte, error) {
	return build(Record{Type: TypeReaction, Target: target, Emoji: emoji, On: on})
}

// ReceiptRecord says that the messages ids were delivered to or read by
// the author; status is [StatusDelivered] or [StatusRead].
func ReceiptRecord(status string, ids []string) ([]byte, error) {
	return build(Record{Type: TypeReceipt, Status: status, IDs: ids})
}
