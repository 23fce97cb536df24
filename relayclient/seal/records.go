package seal

import (
	"bytes"
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
	TypeText = "text"
	// TypeFiles is a message of attachments (photos, files, voice
	// messages), with an optional caption.
	TypeFiles    = "files"
	TypeEdit     = "edit"
	TypeDelete   = "delete"
	TypeReaction = "reaction"
	TypeReceipt  = "receipt"
	TypeRead     = "read"
	// TypeLeave asks a group chat's members to remove its sender's
	// account; it has no fields.
	TypeLeave = "leave"
	// TypeTimer sets how long the chat's messages sent after it last
	// (Seconds, 0 for ever).
	TypeTimer = "timer"
	// TypeBlock says, from an account to its own devices, that a contact
	// (Chat) is blocked (On) or not, from At, in Unix milliseconds.
	TypeBlock = "block"
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
	MaxFiles      = 10    // files of a files record
	MaxFileName   = 255   // UTF-16 code units of a file's name
	MaxFileType   = 100   // characters of a file's media type
	MaxThumb      = 4096  // characters of a placeholder in base64url
	MaxSide       = 65535 // pixels of a width or a height
	MaxDuration   = 86400000
	// MaxTimer is the longest a disappearing message may last, in
	// seconds: a year. The web client offers 5 minutes to 4 weeks.
	MaxTimer = 31536000
	// MaxBlockName is the longest username a block record names, in
	// UTF-16 code units.
	MaxBlockName = 64
)

// File kinds: how a file of a files record is shown.
const (
	KindPhoto = "photo"
	KindVoice = "voice"
	KindFile  = "file"
)

// File is one attachment of a files record (docs/crypto.md, "Records"):
// the relay's attachment ID, its Key and Digest (32 bytes each, in
// unpadded base64url), its Size in bytes before padding, its media Type,
// its file Name, its Kind, and optionally its Width and Height in pixels,
// its Duration in milliseconds and a Thumb, a small JPEG in base64url.
type File struct {
	ID       string `json:"id"`
	Key      string `json:"key"`
	Digest   string `json:"digest"`
	Size     int64  `json:"size"`
	Type     string `json:"type"`
	Name     string `json:"name"`
	Kind     string `json:"kind"`
	Width    *int64 `json:"width,omitempty"`
	Height   *int64 `json:"height,omitempty"`
	Duration *int64 `json:"duration,omitempty"`
	Thumb    string `json:"thumb,omitempty"`
}

// Record is a parsed record with the fields of its type only, the shape
// records.js gives:
//
//	text:     Text, ReplyTo ("" for none), Expires (0 for none)
//	files:    Text ("" for no caption), ReplyTo, Files, Expires
//	edit:     Target, Text
//	delete:   Target
//	reaction: Target, Emoji, On
//	receipt:  Status, IDs
//	read:     Chat, UpTo, Sort (when HasSort), V, Base (nil when not
//	          given), IDs (nil when not given, empty when given empty),
//	          At (when HasAt)
//	leave:    nothing
//	timer:    Seconds
//	block:    Chat, On, At
//	unknown:  Name
//
// Its author, id and chat are not in it: they come from the envelope. A
// read position's Base is the newest reading that a "Mark as unread"
// undid, and its IDs are the late messages seen: those that lay behind the
// position when they arrived, each once, in the order first given (ADR
// 0091). A message's Expires is how many seconds it lasts on a device once
// read there (on its sender's devices, once sent); a read position's At is
// when it was read, in Unix milliseconds, from which the messages it reads
// start to disappear.
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
	Files   []File
	Expires int64
	Seconds int64
	At      int64
	HasAt   bool
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
// records.js gives: [NotARecord], "text", "replyTo", "files", "expires",
// "target", "emoji", "on", "status", "ids", "chat or upTo", "base",
// "seconds", "chat" or "at". It never holds a value:
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
	n := utf16Len(s)
	return n >= 1 && n <= MaxText
}

// utf16Len is the length of s as JavaScript counts it, in UTF-16 code
// units.
func utf16Len(s string) int {
	n := 0
	for _, r := range s {
		n += utf16.RuneLen(r) // range gives valid runes only
	}
	return n
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
	boolean := func(v jsonValue) (on, ok bool) { return v.kind == jsonTrue, v.kind == jsonTrue || v.kind == jsonFalse }
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
		if r.Expires, ok = readExpires(m["expires"]); !ok {
			return bad("expires")
		}
	case TypeFiles:
		if v := m["text"]; v.kind != jsonNone && v.kind != jsonNull {
			if r.Text, ok = str("text"); !ok || !isText(r.Text) {
				return bad("text")
			}
		}
		if v, given := m["replyTo"]; given && v.kind != jsonNull {
			if r.ReplyTo, ok = id("replyTo"); !ok {
				return bad("replyTo")
			}
		}
		if r.Files, ok = readFiles(m["files"]); !ok {
			return bad("files")
		}
		if r.Expires, ok = readExpires(m["expires"]); !ok {
			return bad("expires")
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
		if r.On, ok = boolean(m["on"]); !ok {
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
		// at is newer than base: as sort, a value that is not a
		// non-negative safe integer counts as not given.
		r.At, r.HasAt = safeInteger(m["at"])
	case TypeLeave:
	case TypeTimer:
		n, ok := safeInteger(m["seconds"])
		if !ok || n > MaxTimer {
			return bad("seconds")
		}
		r.Seconds = n
	case TypeBlock:
		if r.Chat, ok = str("chat"); !ok || utf16Len(r.Chat) < 1 || utf16Len(r.Chat) > MaxBlockName {
			return bad("chat")
		}
		if r.On, ok = boolean(m["on"]); !ok {
			return bad("on")
		}
		if r.At, ok = safeInteger(m["at"]); !ok {
			return bad("at")
		}
		r.HasAt = true
	default:
		return Record{Type: TypeUnknown, Name: r.Type}, ErrUnknownType
	}
	return r, nil
}

var (
	attachmentIDPattern = regexp.MustCompile(`^[A-Za-z0-9_-]{21}[AQgw]$`)
	bytes32Pattern      = regexp.MustCompile(`^[A-Za-z0-9_-]{42}[AEIMQUYcgkosw048]$`)
	base64URLPattern    = regexp.MustCompile(`^[A-Za-z0-9_-]+$`)
	mediaTypePattern    = regexp.MustCompile(`^[a-z0-9][a-z0-9!#$&^_.+-]*/[a-z0-9][a-z0-9!#$&^_.+-]*$`)
)

// readFiles reads the files of a files record: 1 to MaxFiles entries, each
// right, no attachment id twice.
func readFiles(v jsonValue) ([]File, bool) {
	if v.kind != jsonArray || len(v.elems) < 1 || len(v.elems) > MaxFiles {
		return nil, false
	}
	files := make([]File, 0, len(v.elems))
	seen := make(map[string]bool, len(v.elems))
	for _, e := range v.elems {
		f, ok := readFile(e)
		if !ok || seen[f.ID] {
			return nil, false
		}
		seen[f.ID] = true
		files = append(files, f)
	}
	return files, true
}

// readFile reads one entry of a files record's files, as parseFile in
// records.js does.
func readFile(v jsonValue) (File, bool) {
	if v.kind != jsonObject {
		return File{}, false
	}
	str := func(name string, re *regexp.Regexp) (string, bool) {
		m := v.members[name]
		return m.str, m.kind == jsonString && (re == nil || re.MatchString(m.str))
	}
	var f File
	var ok [7]bool
	f.ID, ok[0] = str("id", attachmentIDPattern)
	f.Key, ok[1] = str("key", bytes32Pattern)
	f.Digest, ok[2] = str("digest", bytes32Pattern)
	f.Size, ok[3] = safeInteger(v.members["size"])
	f.Type, ok[4] = str("type", mediaTypePattern)
	f.Name, ok[5] = str("name", nil)
	f.Kind, ok[6] = str("kind", nil)
	for _, o := range ok {
		if !o {
			return File{}, false
		}
	}
	if f.Size < 1 || len(f.Type) > MaxFileType || !isFileName(f.Name) || f.Kind != KindPhoto && f.Kind != KindVoice && f.Kind != KindFile {
		return File{}, false
	}
	// optional reads a number that may be left out or null, and must
	// else lie in [min, max].
	optional := func(name string, min, max int64) (*int64, bool) {
		m := v.members[name]
		if m.kind == jsonNone || m.kind == jsonNull {
			return nil, true
		}
		n, ok := safeInteger(m)
		return &n, ok && n >= min && n <= max
	}
	var okW, okH, okD bool
	f.Width, okW = optional("width", 1, MaxSide)
	f.Height, okH = optional("height", 1, MaxSide)
	f.Duration, okD = optional("duration", 0, MaxDuration)
	if !okW || !okH || !okD {
		return File{}, false
	}
	switch t := v.members["thumb"]; t.kind {
	case jsonNone, jsonNull:
	case jsonString:
		if len(t.str) > MaxThumb || !base64URLPattern.MatchString(t.str) {
			return File{}, false
		}
		f.Thumb = t.str
	default:
		return File{}, false
	}
	return f, true
}

// isFileName reports whether s has 1 to MaxFileName UTF-16 code units and
// no C0 or C1 control character or DEL.
func isFileName(s string) bool {
	n := 0
	for _, r := range s {
		if r <= 0x1f || r >= 0x7f && r <= 0x9f {
			return false
		}
		n += utf16.RuneLen(r)
	}
	return n >= 1 && n <= MaxFileName
}

// readExpires reads a message's lifetime: left out or null is none (0),
// else 1 to MaxTimer seconds.
func readExpires(v jsonValue) (int64, bool) {
	if v.kind == jsonNone || v.kind == jsonNull {
		return 0, true
	}
	n, ok := safeInteger(v)
	return n, ok && n >= 1 && n <= MaxTimer
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
