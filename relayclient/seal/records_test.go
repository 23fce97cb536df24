package seal

import (
	"bytes"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"
)

// recordVectors are those of docs/crypto.md "Records", shared with
// records.js: records that parse, with what they parse to in the shape
// parseRecord gives; records that are refused, with the field it names; and
// sealed records, with the bucket each is padded to.
type recordVectors struct {
	Valid   []recordValid   `json:"valid"`
	Invalid []recordInvalid `json:"invalid"`
	Sealed  []recordSealed  `json:"sealed"`
}

type recordValid struct {
	Why    string          `json:"why"`
	Record string          `json:"record"`
	Result json.RawMessage `json:"result"` // parseRecord's output
}

type recordInvalid struct {
	Why    string `json:"why"`
	Record string `json:"record,omitempty"`
	Bytes  string `json:"bytes,omitempty"` // base64, for bytes that are not UTF-8
	Reason string `json:"reason"`          // parseRecord's reason
}

type recordSealed struct {
	What   string `json:"what"`
	Key    string `json:"key"`
	IV     string `json:"iv"`
	ID     string `json:"id"`
	From   string `json:"from"`
	To     string `json:"to"`
	Record string `json:"record"`
	Body   string `json:"body"`
	Padded int    `json:"padded"` // the plaintext's bucket
}

// idList is ids as a JSON array.
func idList(ids ...string) string {
	b, err := json.Marshal(ids)
	if err != nil {
		panic(err)
	}
	return string(b)
}

// vectorID is the n-th id of the vectors, a canonical ULID.
func vectorID(n int) string { return fmt.Sprintf("01JQ%022d", n) }

func vectorIDs(from, n int) []string {
	var ids []string
	for i := range n {
		ids = append(ids, vectorID(from+i))
	}
	return ids
}

// normal is a record in the shape records.js's parseRecord gives it.
func normal(r Record) json.RawMessage {
	var v any
	switch r.Type {
	case TypeText:
		var reply *string
		if r.ReplyTo != "" {
			reply = &r.ReplyTo
		}
		v = struct {
			Type    string  `json:"type"`
			Text    string  `json:"text"`
			ReplyTo *string `json:"replyTo"`
			Expires *int64  `json:"expires,omitempty"`
		}{r.Type, r.Text, reply, expiresOf(r)}
	case TypeFiles:
		var text, reply *string
		if r.Text != "" {
			text = &r.Text
		}
		if r.ReplyTo != "" {
			reply = &r.ReplyTo
		}
		// records.js gives every field of a file, null when not given.
		type file struct {
			ID       string  `json:"id"`
			Key      string  `json:"key"`
			Digest   string  `json:"digest"`
			Size     int64   `json:"size"`
			Type     string  `json:"type"`
			Name     string  `json:"name"`
			Kind     string  `json:"kind"`
			Width    *int64  `json:"width"`
			Height   *int64  `json:"height"`
			Duration *int64  `json:"duration"`
			Thumb    *string `json:"thumb"`
		}
		files := make([]file, len(r.Files))
		for i, f := range r.Files {
			var thumb *string
			if f.Thumb != "" {
				thumb = &f.Thumb
			}
			files[i] = file{f.ID, f.Key, f.Digest, f.Size, f.Type, f.Name, f.Kind, f.Width, f.Height, f.Duration, thumb}
		}
		v = struct {
			Type    string  `json:"type"`
			Text    *string `json:"text"`
			ReplyTo *string `json:"replyTo"`
			Files   []file  `json:"files"`
			Expires *int64  `json:"expires,omitempty"`
		}{r.Type, text, reply, files, expiresOf(r)}
	case TypeEdit:
		v = struct {
			Type   string `json:"type"`
			Target string `json:"target"`
			Text   string `json:"text"`
		}{r.Type, r.Target, r.Text}
	case TypeDelete:
		v = struct {
			Type   string `json:"type"`
			Target string `json:"target"`
		}{r.Type, r.Target}
	case TypeLeave:
		v = struct {
			Type string `json:"type"`
		}{r.Type}
	case TypeReaction:
		v = struct {
			Type   string `json:"type"`
			Target string `json:"target"`
			Emoji  string `json:"emoji"`
			On     bool   `json:"on"`
		}{r.Type, r.Target, r.Emoji, r.On}
	case TypeReceipt:
		v = struct {
			Type   string   `json:"type"`
			Status string   `json:"status"`
			IDs    []string `json:"ids"`
		}{r.Type, r.Status, r.IDs}
	case TypeRead:
		// records.js gives base and ids only when the record does: ids
		// given empty are there, empty.
		var sort *int64
		if r.HasSort {
			sort = &r.Sort
		}
		var ids *[]string
		if r.IDs != nil {
			ids = &r.IDs
		}
		var at *int64
		if r.HasAt {
			at = &r.At
		}
		v = struct {
			Type string    `json:"type"`
			Chat string    `json:"chat"`
			UpTo string    `json:"upTo"`
			Sort *int64    `json:"sort"`
			V    int64     `json:"v"`
			Base *ReadBase `json:"base,omitempty"`
			IDs  *[]string `json:"ids,omitempty"`
			At   *int64    `json:"at,omitempty"`
		}{r.Type, r.Chat, r.UpTo, sort, r.V, r.Base, ids, at}
	case TypeTimer:
		v = struct {
			Type    string `json:"type"`
			Seconds int64  `json:"seconds"`
		}{r.Type, r.Seconds}
	case TypeBlock:
		v = struct {
			Type string `json:"type"`
			Chat string `json:"chat"`
			On   bool   `json:"on"`
			At   int64  `json:"at"`
		}{r.Type, r.Chat, r.On, r.At}
	case TypeUnknown:
		v = struct {
			Type string `json:"type"`
			Name string `json:"name"`
		}{r.Type, r.Name}
	default:
		panic("normal: record of type " + r.Type)
	}
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return b
}

// expiresOf is a message's lifetime as records.js gives it: only when it
// has one.
func expiresOf(r Record) *int64 {
	if r.Expires == 0 {
		return nil
	}
	return &r.Expires
}

// generateRecords makes the records part of the vectors. The results are
// written by hand, not by ParseRecord, so TestRecordVectors checks the
// parser against them; ab is the key of alice and bob, aa alice's own.
func generateRecords(t testing.TB, ab, aa []byte) recordVectors {
	t.Helper()
	var v recordVectors
	rec := func(b []byte, err error) string {
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	id1, id2 := vectorID(1), vectorID(2)
	id3, id4, id5, id6 := vectorID(3), vectorID(4), vectorID(5), vectorID(6)
	// readRec is a read position of sort 1767225600123 and v 3 with more
	// members, and read what it parses to.
	readRec := func(more string) string {
		return `{"type":"read","chat":"bob","upTo":"` + id2 + `","sort":1767225600123,"v":3` + more + `}`
	}
	read := func(base *ReadBase, ids ...string) Record {
		return Record{Type: TypeRead, Chat: "bob", UpTo: id2, Sort: 1767225600123, HasSort: true, V: 3, Base: base, IDs: ids}
	}
	emoji8 := strings.Repeat("😀", 8) // 32 bytes of UTF-8, 16 UTF-16 code units
	// 16,000 UTF-16 code units in 8,000 characters and 32,000 bytes: a
	// parser that counts bytes refuses it, one that counts characters takes
	// one more.
	longText := strings.Repeat("😀", MaxText/2)
	// The record object is the first level: 31 more are the deepest allowed.
	deepest := strings.Repeat("[", MaxRecordDepth-1) + strings.Repeat("]", MaxRecordDepth-1)
	tooDeep := "[" + deepest + "]"

	// A files record, its members before files given by head.
	filesRec := func(head string, files ...string) string {
		return `{"type":"files",` + head + `"files":[` + strings.Join(files, ",") + `]}`
	}
	n64 := func(n int64) *int64 { return &n }
	attID := func(n int) string { return strings.Repeat("A", 19) + fmt.Sprintf("%02d", n) + "A" }
	key32, digest32 := strings.Repeat("k", 42)+"w", strings.Repeat("d", 42)+"g"
	fileOf := func(id, kind, typ, name string, size int64) (File, string) {
		f := File{ID: id, Key: key32, Digest: digest32, Size: size, Type: typ, Name: name, Kind: kind}
		return f, `{"id":"` + id + `","key":"` + key32 + `","digest":"` + digest32 + `","size":` + strconv.FormatInt(size, 10) + `,"type":"` + typ + `","name":"` + name + `","kind":"` + kind + `"`
	}
	photo, photoJSON := fileOf(attID(1), KindPhoto, "image/jpeg", "IMG_0001.jpg", 123456)
	photo.Width, photo.Height, photo.Thumb = n64(1600), n64(1200), "_9j_4AAQSkZJRg"
	photoJSON += `,"width":1600,"height":1200,"thumb":"_9j_4AAQSkZJRg","extra":{"a":1}}`
	plain, fileJSON := fileOf(attID(2), KindFile, "application/pdf", "Report (final).pdf", 1)
	fileJSON += `,"width":null,"thumb":null}`
	voice, voiceJSON := fileOf(attID(3), KindVoice, "audio/webm", "Voice message.webm", 4242)
	voice.Duration = n64(0)
	voiceJSON += `,"duration":0}`
	longName, longType := strings.Repeat("😀", 127)+"x", "a/"+strings.Repeat("b", 98)
	longest, longestJSON := fileOf(attID(4), KindFile, longType, longName, 1<<53-1)
	longest.Thumb = strings.Repeat("A", MaxThumb)
	longestJSON += `,"thumb":"` + longest.Thumb + `"}`
	tenFiles := func(n int) []string {
		var out []string
		for i := range n {
			_, j := fileOf(attID(10+i), KindFile, "text/plain", "f.txt", 10)
			out = append(out, j+"}")
		}
		return out
	}
	tenFileList := func(n int) []File {
		var out []File
		for i := range n {
			f, _ := fileOf(attID(10+i), KindFile, "text/plain", "f.txt", 10)
			out = append(out, f)
		}
		return out
	}
	// withFile is the plain file with one member given again, later: the
	// last counts.
	withFile := func(member string) string { return strings.TrimSuffix(fileJSON, "}") + "," + member + "}" }

	for _, c := range []struct {
		why, record string
		want        Record
	}{
		{"a message", `{"type":"text","text":"Hello, Bob!"}`, Record{Type: TypeText, Text: "Hello, Bob!"}},
		{"unicode text", `{"type":"text","text":"Grüße, 日本 👩‍👩‍👧"}`, Record{Type: TypeText, Text: "Grüße, 日本 👩‍👩‍👧"}},
		{"escapes, a surrogate pair among them", `{"type":"text","text":"a\u00e9\ud83d\ude00\n\"\/\\<&>"}`, Record{Type: TypeText, Text: "aé😀\n\"/\\<&>"}},
		{"a text of one character", `{"type":"text","text":"x"}`, Record{Type: TypeText, Text: "x"}},
		{"a text of 16,000 UTF-16 code units in 8,000 characters", `{"type":"text","text":"` + longText + `"}`, Record{Type: TypeText, Text: longText}},
		{"a reply", `{"type":"text","text":"Yes","replyTo":"` + id1 + `"}`, Record{Type: TypeText, Text: "Yes", ReplyTo: id1}},
		{"replyTo null is no reply", `{"type":"text","text":"Yes","replyTo":null}`, Record{Type: TypeText, Text: "Yes"}},
		{"a photo with a caption, a reply", filesRec(`"text":"Look","replyTo":"`+id1+`",`, photoJSON), Record{Type: TypeFiles, Text: "Look", ReplyTo: id1, Files: []File{photo}}},
		{"a file, its optional fields left out or null", filesRec("", fileJSON), Record{Type: TypeFiles, Files: []File{plain}}},
		{"a voice message of duration 0 and a text null", filesRec(`"text":null,`, voiceJSON), Record{Type: TypeFiles, Files: []File{voice}}},
		{"ten files", filesRec("", tenFiles(10)...), Record{Type: TypeFiles, Files: tenFileList(10)}},
		{"a file's name of 255 UTF-16 code units, a type of 100 characters, a placeholder of 4096", filesRec("", longestJSON), Record{Type: TypeFiles, Files: []File{longest}}},
		{"an edit", `{"type":"edit","target":"` + id1 + `","text":"Hello, Bob."}`, Record{Type: TypeEdit, Target: id1, Text: "Hello, Bob."}},
		{"a deletion", `{"type":"delete","target":"` + id1 + `"}`, Record{Type: TypeDelete, Target: id1}},
		{"a reaction added", `{"type":"reaction","target":"` + id1 + `","emoji":"👍","on":true}`, Record{Type: TypeReaction, Target: id1, Emoji: "👍", On: true}},
		{"a reaction removed", `{"type":"reaction","target":"` + id1 + `","emoji":"👩‍👩‍👧","on":false}`, Record{Type: TypeReaction, Target: id1, Emoji: "👩‍👩‍👧"}},
		{"an emoji of 32 bytes", `{"type":"reaction","target":"` + id1 + `","emoji":"` + emoji8 + `","on":true}`, Record{Type: TypeReaction, Target: id1, Emoji: emoji8, On: true}},
		{"a delivery receipt of one id", `{"type":"receipt","status":"delivered","ids":["` + id1 + `"]}`, Record{Type: TypeReceipt, Status: StatusDelivered, IDs: []string{id1}}},
		{"a read receipt of 100 ids", rec(ReceiptRecord(StatusRead, vectorIDs(100, 100))), Record{Type: TypeReceipt, Status: StatusRead, IDs: vectorIDs(100, 100)}},
		{"a read position", `{"type":"read","chat":"bob","upTo":"` + id2 + `","sort":1767225600123,"v":2}`, Record{Type: TypeRead, Chat: "bob", UpTo: id2, Sort: 1767225600123, HasSort: true, V: 2}},
		{"a leave, whose fields are none", `{"type":"leave","extra":1}`, Record{Type: TypeLeave}},
		{"a message that disappears 5 minutes after it is read", `{"type":"text","text":"Soon gone","expires":300}`, Record{Type: TypeText, Text: "Soon gone", Expires: 300}},
		{"a message's expires of null is none", `{"type":"text","text":"Kept","expires":null}`, Record{Type: TypeText, Text: "Kept"}},
		{"a message that lasts a year, the longest", `{"type":"text","text":"x","expires":31536000}`, Record{Type: TypeText, Text: "x", Expires: MaxTimer}},
		{"expires written as 6e2", `{"type":"text","text":"x","expires":6e2}`, Record{Type: TypeText, Text: "x", Expires: 600}},
		{"a photo that disappears after a week", filesRec(`"expires":604800,`, fileJSON), Record{Type: TypeFiles, Files: []File{plain}, Expires: 604800}},
		{"a timer of a day", `{"type":"timer","seconds":86400}`, Record{Type: TypeTimer, Seconds: 86400}},
		{"a timer turned off", `{"type":"timer","seconds":0}`, Record{Type: TypeTimer}},
		{"a timer of any length up to a year", `{"type":"timer","seconds":31536000,"extra":"x"}`, Record{Type: TypeTimer, Seconds: MaxTimer}},
		{"a read position with the time it was read", readRec(`,"at":1767225660000`), Record{Type: TypeRead, Chat: "bob", UpTo: id2, Sort: 1767225600123, HasSort: true, V: 3, At: 1767225660000, HasAt: true}},
		{"an at that is not a non-negative safe integer counts as not given", readRec(`,"at":"1767225660000"`), read(nil)},
		{"a read position of an older client: no sort, no v", `{"type":"read","chat":"bob","upTo":"` + id2 + `"}`, Record{Type: TypeRead, Chat: "bob", UpTo: id2}},
		{"sort and v that are not non-negative safe integers count as not given", `{"type":"read","chat":"bob","upTo":"` + id2 + `","sort":-1,"v":1.5}`, Record{Type: TypeRead, Chat: "bob", UpTo: id2}},
		{"sort above 2^53-1 is not given, v as a string is 0", `{"type":"read","chat":"bob","upTo":"` + id2 + `","sort":9007199254740992,"v":"3"}`, Record{Type: TypeRead, Chat: "bob", UpTo: id2}},
		{"the largest safe integer, written as JSON allows", `{"type":"read","chat":"bob","upTo":"` + id2 + `","sort":9007199254740991,"v":1e2}`, Record{Type: TypeRead, Chat: "bob", UpTo: id2, Sort: 1<<53 - 1, HasSort: true, V: 100}},
		{"a read position with the reading a mark-unread undid, and late messages seen", readRec(`,"base":{"sort":1767225600456,"id":"` + id3 + `"},"ids":["` + id4 + `","` + id5 + `"]`), read(&ReadBase{1767225600456, id3}, id4, id5)},
		{"late ids given twice are kept once, where they first appear", readRec(`,"ids":["` + id5 + `","` + id4 + `","` + id5 + `","` + id6 + `","` + id4 + `"]`), read(nil, id5, id4, id6)},
		{"ids given empty are there, empty", readRec(`,"ids":[]`), read(nil, []string{}...)},
		{"100 late ids", readRec(`,"ids":` + idList(vectorIDs(100, 100)...)), read(nil, vectorIDs(100, 100)...)},
		{"100 late ids, each twice: 100 ids are counted as given", readRec(`,"ids":` + idList(append(vectorIDs(100, 50), vectorIDs(100, 50)...)...)), read(nil, vectorIDs(100, 50)...)},
		{"a base at the start of the chat: sort 0, an empty id", readRec(`,"base":{"sort":0,"id":""}`), read(&ReadBase{0, ""})},
		{"a base's id need not be an id; names it does not use are ignored", readRec(`,"base":{"id":"x","sort":1e3,"extra":[1]}`), read(&ReadBase{1000, "x"})},
		{"a name given twice in base: the last counts", readRec(`,"base":{"sort":-1,"id":"` + id3 + `","sort":7}`), read(&ReadBase{7, id3})},
		{"a contact blocked", `{"type":"block","chat":"bob","on":true,"at":1767225600123}`, Record{Type: TypeBlock, Chat: "bob", On: true, At: 1767225600123, HasAt: true}},
		{"a contact unblocked, at 0, a name of 64 UTF-16 code units", `{"type":"block","chat":"` + strings.Repeat("😀", 32) + `","on":false,"at":0,"extra":1}`, Record{Type: TypeBlock, Chat: strings.Repeat("😀", 32), HasAt: true}},
		{"a type this client does not know", `{"type":"poll","question":"Lunch?"}`, Record{Type: TypeUnknown, Name: "poll"}},
		{"types are case-sensitive", `{"type":"Text","text":"hi"}`, Record{Type: TypeUnknown, Name: "Text"}},
		{"names a type does not use are ignored", `{"type":"delete","target":"` + id1 + `","text":5,"extra":{"nested":[1,{"a":null}]},"on":"x"}`, Record{Type: TypeDelete, Target: id1}},
		{"a name given twice: the last counts", `{"type":"text","text":"first","text":"second"}`, Record{Type: TypeText, Text: "second"}},
		{"the type given twice: the last counts", `{"type":"poll","target":"` + id1 + `","type":"delete"}`, Record{Type: TypeDelete, Target: id1}},
		{"JSON whitespace around and inside", " \r\n\t{ \"type\" : \"delete\" ,\n \"target\" : \"" + id1 + "\" }\n", Record{Type: TypeDelete, Target: id1}},
		{"a byte order mark before the object is dropped, as TextDecoder drops it", "\ufeff" + `{"type":"delete","target":"` + id1 + `"}`, Record{Type: TypeDelete, Target: id1}},
		{"an ignored value nested as deep as allowed", `{"type":"delete","target":"` + id1 + `","x":` + deepest + `}`, Record{Type: TypeDelete, Target: id1}},
	} {
		v.Valid = append(v.Valid, recordValid{c.why, c.record, normal(c.want)})
	}

	receipt := func(ids ...string) string {
		return `{"type":"receipt","status":"read","ids":` + idList(ids...) + `}`
	}
	for _, c := range []struct {
		why, record, reason string
	}{
		{"not JSON", `{"type":"text","text":"hi"`, NotARecord},
		{"an array", `[{"type":"text","text":"hi"}]`, NotARecord},
		{"a string", `"text"`, NotARecord},
		{"null", `null`, NotARecord},
		{"no type", `{"text":"hi"}`, NotARecord},
		{"a type that is not a string", `{"type":1,"text":"hi"}`, NotARecord},
		{"names are case-sensitive: TYPE is not type", `{"TYPE":"text","text":"hi"}`, NotARecord},
		{"a trailing comma", `{"type":"delete","target":"` + id1 + `",}`, NotARecord},
		{"a second value after the object", `{"type":"delete","target":"` + id1 + `"}{}`, NotARecord},
		{"a raw tab inside a string", "{\"type\":\"text\",\"text\":\"a\tb\"}", NotARecord},
		{"a bad escape", `{"type":"text","text":"\x41"}`, NotARecord},
		{"a number with a leading zero", `{"type":"delete","target":"` + id1 + `","x":01}`, NotARecord},
		{"an ignored value nested one level too deep", `{"type":"delete","target":"` + id1 + `","x":` + tooDeep + `}`, NotARecord},
		{"two byte order marks", "\ufeff\ufeff" + `{"type":"delete","target":"` + id1 + `"}`, NotARecord},
		{"an empty text", `{"type":"text","text":""}`, "text"},
		{"no text", `{"type":"text"}`, "text"},
		{"a text that is a number", `{"type":"text","text":5}`, "text"},
		{"names are case-sensitive: Text is not text", `{"type":"text","Text":"hi"}`, "text"},
		{"a text of 16,001 UTF-16 code units in 8,001 characters", `{"type":"text","text":"` + longText + `x"}`, "text"},
		{"a name given twice: the last, empty, counts", `{"type":"text","text":"ok","text":""}`, "text"},
		{"a replyTo in lower case", `{"type":"text","text":"hi","replyTo":"` + strings.ToLower(id1) + `"}`, "replyTo"},
		{"a replyTo above the largest ULID", `{"type":"text","text":"hi","replyTo":"8` + id1[1:] + `"}`, "replyTo"},
		{"a replyTo with a letter ULIDs leave out", `{"type":"text","text":"hi","replyTo":"` + id1[:25] + `U"}`, "replyTo"},
		{"a replyTo of 25 characters", `{"type":"text","text":"hi","replyTo":"` + id1[:25] + `"}`, "replyTo"},
		{"an empty replyTo", `{"type":"text","text":"hi","replyTo":""}`, "replyTo"},
		{"files with an empty caption", filesRec(`"text":"",`, fileJSON), "text"},
		{"files with a bad replyTo", filesRec(`"replyTo":"x",`, fileJSON), "replyTo"},
		{"no files", `{"type":"files","text":"hi"}`, "files"},
		{"files that are an empty array", filesRec(""), "files"},
		{"eleven files", filesRec("", tenFiles(11)...), "files"},
		{"the same attachment twice", filesRec("", fileJSON, fileJSON), "files"},
		{"a file that is a string", filesRec("", `"x"`), "files"},
		{"an attachment id of 21 characters", filesRec("", withFile(`"id":"AAAAAAAAAAAAAAAAAAAAA"`)), "files"},
		{"an attachment id whose last character has bits past 128", filesRec("", withFile(`"id":"AAAAAAAAAAAAAAAAAAAAAB"`)), "files"},
		{"a key of 31 bytes", filesRec("", withFile(`"key":"`+strings.Repeat("A", 41)+`E"`)), "files"},
		{"a digest in standard base64", filesRec("", withFile(`"digest":"`+strings.Repeat("+", 42)+`A"`)), "files"},
		{"a size of 0", filesRec("", withFile(`"size":0`)), "files"},
		{"a size of 1.5", filesRec("", withFile(`"size":1.5`)), "files"},
		{"a size as a string", filesRec("", withFile(`"size":"5"`)), "files"},
		{"a type in upper case", filesRec("", withFile(`"type":"Image/JPEG"`)), "files"},
		{"a type with parameters", filesRec("", withFile(`"type":"audio/webm;codecs=opus"`)), "files"},
		{"a type of 101 characters", filesRec("", withFile(`"type":"a/`+strings.Repeat("b", 99)+`"`)), "files"},
		{"an empty name", filesRec("", withFile(`"name":""`)), "files"},
		{"a name with a line break", filesRec("", withFile(`"name":"a\nb.txt"`)), "files"},
		{"a name of 256 UTF-16 code units", filesRec("", withFile(`"name":"`+strings.Repeat("😀", 128)+`"`)), "files"},
		{"a kind this client does not know", filesRec("", withFile(`"kind":"sticker"`)), "files"},
		{"a width of 0", filesRec("", withFile(`"width":0`)), "files"},
		{"a height of 65536", filesRec("", withFile(`"height":65536`)), "files"},
		{"a negative duration", filesRec("", withFile(`"duration":-1`)), "files"},
		{"a duration past a day", filesRec("", withFile(`"duration":86400001`)), "files"},
		{"a placeholder with padding", filesRec("", withFile(`"thumb":"AAAA="`)), "files"},
		{"an empty placeholder", filesRec("", withFile(`"thumb":""`)), "files"},
		{"a placeholder of 4097 characters", filesRec("", withFile(`"thumb":"`+strings.Repeat("A", 4097)+`"`)), "files"},
		{"a placeholder that is a number", filesRec("", withFile(`"thumb":5`)), "files"},
		{"an expires of 0", `{"type":"text","text":"hi","expires":0}`, "expires"},
		{"an expires past a year", `{"type":"text","text":"hi","expires":31536001}`, "expires"},
		{"an expires of 1.5", `{"type":"text","text":"hi","expires":1.5}`, "expires"},
		{"an expires as a string", `{"type":"text","text":"hi","expires":"300"}`, "expires"},
		{"a files record's negative expires", filesRec(`"expires":-300,`, fileJSON), "expires"},
		{"a block without chat", `{"type":"block","on":true,"at":1}`, "chat"},
		{"a block of an empty chat", `{"type":"block","chat":"","on":true,"at":1}`, "chat"},
		{"a block of a name of 65 UTF-16 code units", `{"type":"block","chat":"` + strings.Repeat("😀", 32) + `x","on":true,"at":1}`, "chat"},
		{"a block whose chat is a number", `{"type":"block","chat":5,"on":true,"at":1}`, "chat"},
		{"a block whose on is a string", `{"type":"block","chat":"bob","on":"true","at":1}`, "on"},
		{"a block without on", `{"type":"block","chat":"bob","at":1}`, "on"},
		{"a block without at", `{"type":"block","chat":"bob","on":true}`, "at"},
		{"a block at a negative time", `{"type":"block","chat":"bob","on":true,"at":-1}`, "at"},
		{"a block at 1.5", `{"type":"block","chat":"bob","on":true,"at":1.5}`, "at"},
		{"a timer without seconds", `{"type":"timer"}`, "seconds"},
		{"a timer of null seconds", `{"type":"timer","seconds":null}`, "seconds"},
		{"a timer of negative seconds", `{"type":"timer","seconds":-1}`, "seconds"},
		{"a timer past a year", `{"type":"timer","seconds":31536001}`, "seconds"},
		{"a timer's seconds as a string", `{"type":"timer","seconds":"300"}`, "seconds"},
		{"a timer of 1.5 seconds", `{"type":"timer","seconds":1.5}`, "seconds"},
		{"an edit without a target", `{"type":"edit","text":"hi"}`, "target"},
		{"an edit to an empty text", `{"type":"edit","target":"` + id1 + `","text":""}`, "text"},
		{"a deletion whose target is not a string", `{"type":"delete","target":1}`, "target"},
		{"a reaction without a target", `{"type":"reaction","emoji":"👍","on":true}`, "target"},
		{"an empty emoji", `{"type":"reaction","target":"` + id1 + `","emoji":"","on":true}`, "emoji"},
		{"an emoji of 33 bytes", `{"type":"reaction","target":"` + id1 + `","emoji":"` + emoji8 + `x","on":true}`, "emoji"},
		{"an emoji with NUL", `{"type":"reaction","target":"` + id1 + `","emoji":"👍\u0000","on":true}`, "emoji"},
		{"an emoji with DEL", `{"type":"reaction","target":"` + id1 + `","emoji":"👍\u007f","on":true}`, "emoji"},
		{"an emoji with a C1 control character", `{"type":"reaction","target":"` + id1 + `","emoji":"👍\u0085","on":true}`, "emoji"},
		{"an emoji of 11 unpaired surrogates: 33 bytes as U+FFFD", `{"type":"reaction","target":"` + id1 + `","emoji":"` + strings.Repeat(`\ud83d`, 11) + `","on":true}`, "emoji"},
		{"on as a string", `{"type":"reaction","target":"` + id1 + `","emoji":"👍","on":"true"}`, "on"},
		{"no on", `{"type":"reaction","target":"` + id1 + `","emoji":"👍"}`, "on"},
		{"a receipt status that is not delivered or read", `{"type":"receipt","status":"seen","ids":["` + id1 + `"]}`, "status"},
		{"a receipt of no ids", receipt(), "ids"},
		{"a receipt of 101 ids", receipt(vectorIDs(100, 101)...), "ids"},
		{"a receipt naming an id twice", receipt(id1, id2, id1), "ids"},
		{"a receipt whose ids are a string", `{"type":"receipt","status":"read","ids":"` + id1 + `"}`, "ids"},
		{"a receipt with a number among its ids", `{"type":"receipt","status":"read","ids":["` + id1 + `",2]}`, "ids"},
		{"a read position without chat", `{"type":"read","upTo":"` + id2 + `"}`, "chat or upTo"},
		{"a read position whose upTo is a number", `{"type":"read","chat":"bob","upTo":2}`, "chat or upTo"},
		{"a base that is a string", readRec(`,"base":"` + id3 + `"`), "base"},
		{"a base without id", readRec(`,"base":{"sort":1767225600456}`), "base"},
		{"a base without sort", readRec(`,"base":{"id":"` + id3 + `"}`), "base"},
		{"a base of negative sort", readRec(`,"base":{"sort":-1,"id":"` + id3 + `"}`), "base"},
		{"a base whose sort is not an integer", readRec(`,"base":{"sort":1.5,"id":"` + id3 + `"}`), "base"},
		{"a base whose sort is above 2^53-1", readRec(`,"base":{"sort":9007199254740992,"id":"` + id3 + `"}`), "base"},
		{"a base whose sort is a string", readRec(`,"base":{"sort":"1","id":"` + id3 + `"}`), "base"},
		{"a base whose id is a number", readRec(`,"base":{"sort":1,"id":3}`), "base"},
		{"a base that is null", readRec(`,"base":null`), "base"},
		{"a base that is an array", readRec(`,"base":[1767225600456,"` + id3 + `"]`), "base"},
		{"ids that are not an array", readRec(`,"ids":"` + id4 + `"`), "ids"},
		{"ids that are null", readRec(`,"ids":null`), "ids"},
		{"a late id in lower case", readRec(`,"ids":["` + id4 + `","` + strings.ToLower(id5) + `"]`), "ids"},
		{"a number among the late ids", readRec(`,"ids":["` + id4 + `",5]`), "ids"},
		{"101 late ids", readRec(`,"ids":` + idList(vectorIDs(100, 101)...)), "ids"},
		{"101 late ids, one given twice: counted as given", readRec(`,"ids":` + idList(append(vectorIDs(100, 100), vectorID(100))...)), "ids"},
		{"a bad base and bad ids: base is named", readRec(`,"ids":5,"base":5`), "base"},
		{"no chat and a bad base: chat or upTo is named", `{"type":"read","upTo":"` + id2 + `","base":5}`, "chat or upTo"},
	} {
		v.Invalid = append(v.Invalid, recordInvalid{Why: c.why, Record: c.record, Reason: c.reason})
	}
	for _, c := range []struct {
		why string
		b   []byte
	}{
		{"a byte that is not UTF-8", []byte("{\"type\":\"text\",\"text\":\"\xff\"}")},
		{"a surrogate encoded in UTF-8", []byte("{\"type\":\"text\",\"text\":\"\xed\xa0\x80\"}")},
		{"an overlong encoding", []byte("{\"type\":\"text\",\"text\":\"\xc0\xaf\"}")},
	} {
		v.Invalid = append(v.Invalid, recordInvalid{Why: c.why, Bytes: base64.StdEncoding.EncodeToString(c.b), Reason: NotARecord})
	}

	n := 0
	seal := func(what string, key []byte, from, to, record string) {
		n++
		iv, id := fixedIV("record "+what), vectorID(50+n)
		body, err := Seal(key, iv, id, from, to, []byte(record))
		if err != nil {
			t.Fatal(err)
		}
		p, _ := Pad([]byte(record))
		v.Sealed = append(v.Sealed, recordSealed{what, hex.EncodeToString(key), hex.EncodeToString(iv), id, from, to, record,
			base64.StdEncoding.EncodeToString(body), len(p)})
	}
	seal("short text", ab, "alice", "bob", rec(TextRecord("Hi", "")))
	seal("reply", ab, "bob", "alice", rec(TextRecord("Yes, see you then", id1)))
	seal("edit", ab, "alice", "bob", rec(EditRecord(id1, "Hi!")))
	seal("delete", ab, "alice", "bob", rec(DeleteRecord(id1)))
	seal("reaction", ab, "bob", "alice", rec(ReactionRecord(id1, "👍", true)))
	seal("reaction removed", ab, "bob", "alice", rec(ReactionRecord(id1, "👍", false)))
	seal("timer", ab, "alice", "bob", rec(TimerRecord(3600)))
	withExpiry, _ := Record{Type: TypeText, Text: "Gone in 5 minutes", Expires: 300}.MarshalJSON()
	seal("disappearing text", ab, "alice", "bob", string(withExpiry))
	seal("receipt of 1 id", ab, "bob", "alice", rec(ReceiptRecord(StatusDelivered, []string{id1})))
	seal("receipt of 100 ids", ab, "bob", "alice", rec(ReceiptRecord(StatusRead, vectorIDs(100, 100))))
	readPos, _ := Record{Type: TypeRead, Chat: "bob", UpTo: id2, Sort: 1767225600123, HasSort: true, V: 1}.MarshalJSON()
	seal("read position", aa, "alice", "alice", string(readPos))
	readPos, _ = read(&ReadBase{1767225600456, id3}, id4, id5).MarshalJSON()
	seal("read position after a mark-unread, with late messages", aa, "alice", "alice", string(readPos))
	return v
}

// recordBytes is a vector's record as bytes.
func recordBytes(t *testing.T, record, b64 string) []byte {
	t.Helper()
	if b64 != "" {
		return unb64(t, b64)
	}
	return []byte(record)
}

// TestRecordVectors holds ParseRecord to the answers written in the file.
func TestRecordVectors(t *testing.T) {
	v := load(t).Records
	if len(v.Valid) == 0 || len(v.Invalid) == 0 || len(v.Sealed) == 0 {
		t.Fatal("no record vectors")
	}
	for _, c := range v.Valid {
		r, err := ParseRecord([]byte(c.Record))
		if err != nil && !(r.Type == TypeUnknown && errors.Is(err, ErrUnknownType)) {
			t.Errorf("%s: %v", c.Why, err)
			continue
		}
		var want bytes.Buffer
		if err := json.Compact(&want, c.Result); err != nil {
			t.Fatal(err)
		}
		if got := normal(r); !bytes.Equal(got, want.Bytes()) {
			t.Errorf("%s: parsed to %s, want %s", c.Why, got, want.Bytes())
		}
	}
	for _, c := range v.Invalid {
		r, err := ParseRecord(recordBytes(t, c.Record, c.Bytes))
		var re *RecordError
		if !errors.As(err, &re) || !errors.Is(err, ErrInvalidRecord) || re.Field != c.Reason || !reflect.DeepEqual(r, Record{}) {
			t.Errorf("%s: read as a %s record (%v); want a refusal naming %q", c.Why, r.Type, err, c.Reason)
		}
	}
}

// TestRecordBuckets: a reaction, a receipt and a short message cannot be
// told apart by their size (docs/crypto.md "Records").
func TestRecordBuckets(t *testing.T) {
	v := load(t).Records
	padded := map[string]int{}
	for _, s := range v.Sealed {
		body := unb64(t, s.Body)
		rec, err := Open(unhex(t, s.Key), s.ID, s.From, s.To, body)
		if err != nil || string(rec) != s.Record {
			t.Fatalf("%s: opened to %q, %v", s.What, rec, err)
		}
		if _, err := ParseRecord(rec); err != nil {
			t.Fatalf("%s: %v", s.What, err)
		}
		if len(body) != s.Padded+IVSize+TagSize {
			t.Fatalf("%s: body of %d bytes for a plaintext of %d", s.What, len(body), s.Padded)
		}
		padded[s.What] = s.Padded
	}
	for _, c := range []struct {
		what string
		want int
	}{
		{"short text", 256},
		{"reaction", 256},
		{"reaction removed", 256},
		{"receipt of 1 id", 256},
		{"edit", 256},
		{"delete", 256},
		{"read position", 256},
		{"read position after a mark-unread, with late messages", 256},
		{"receipt of 100 ids", 4096},
	} {
		if padded[c.what] != c.want {
			t.Errorf("%s: padded to %d bytes, want %d", c.what, padded[c.what], c.want)
		}
	}
	// 284 bytes: the smallest conversation body, and the one of all three.
	if want := 256 + IVSize + TagSize; want != 284 {
		t.Fatalf("the smallest body is %d bytes", want)
	}
}

func TestRecordBuilders(t *testing.T) {
	id := vectorID(1)
	build := func(b []byte, err error) func() ([]byte, error) { return func() ([]byte, error) { return b, err } }
	for _, c := range []struct {
		what  string
		build func() ([]byte, error)
		want  string // the record, or
		field string // the field it is refused for
	}{
		{"text, not HTML-escaped", build(TextRecord("<b>&</b>", "")), `{"type":"text","text":"<b>&</b>"}`, ""},
		{"reply", build(TextRecord("yes", id)), `{"type":"text","text":"yes","replyTo":"` + id + `"}`, ""},
		{"edit", build(EditRecord(id, "hi")), `{"type":"edit","target":"` + id + `","text":"hi"}`, ""},
		{"delete", build(DeleteRecord(id)), `{"type":"delete","target":"` + id + `"}`, ""},
		{"reaction", build(ReactionRecord(id, "👍", false)), `{"type":"reaction","target":"` + id + `","emoji":"👍","on":false}`, ""},
		{"receipt", build(ReceiptRecord(StatusDelivered, []string{id})), `{"type":"receipt","status":"delivered","ids":["` + id + `"]}`, ""},
		{"timer", build(TimerRecord(300)), `{"type":"timer","seconds":300}`, ""},
		{"block", build(BlockRecord("bob", true, 1767225600123)), `{"type":"block","chat":"bob","on":true,"at":1767225600123}`, ""},
		{"unblock", build(BlockRecord("bob", false, 5)), `{"type":"block","chat":"bob","on":false,"at":5}`, ""},
		{"block of no one", build(BlockRecord("", true, 5)), "", "chat"},
		{"timer off", build(TimerRecord(0)), `{"type":"timer","seconds":0}`, ""},
		{"timer past a year", build(TimerRecord(MaxTimer + 1)), "", "seconds"},
		{"empty text", build(TextRecord("", "")), "", "text"},
		{"bad reply", build(TextRecord("yes", "x")), "", "replyTo"},
		{"bad target", build(EditRecord(strings.ToLower(id), "hi")), "", "target"},
		{"control character in an emoji", build(ReactionRecord(id, "\n", true)), "", "emoji"},
		{"bad status", build(ReceiptRecord("seen", []string{id})), "", "status"},
		{"101 ids", build(ReceiptRecord(StatusRead, vectorIDs(1, MaxIDs+1))), "", "ids"},
	} {
		b, err := c.build()
		var re *RecordError
		switch {
		case c.field == "" && (err != nil || string(b) != c.want):
			t.Errorf("%s: %s, %v; want %s", c.what, b, err, c.want)
		case c.field != "" && (!errors.As(err, &re) || re.Field != c.field || b != nil):
			t.Errorf("%s: %s, %v; want a refusal naming %s", c.what, b, err, c.field)
		}
	}
}

// TestReadRecordJSON: a read position is written as records.js's recordOf
// writes it, base then ids after v, each only when there.
func TestReadRecordJSON(t *testing.T) {
	id := vectorID(1)
	pos := func(base *ReadBase, ids []string) Record {
		return Record{Type: TypeRead, Chat: "bob", UpTo: id, Sort: 5, HasSort: true, V: 2, Base: base, IDs: ids}
	}
	const head = `{"type":"read","chat":"bob","upTo":"01JQ0000000000000000000001","sort":5,"v":2`
	for _, c := range []struct {
		what string
		r    Record
		want string
	}{
		{"no base, no ids", pos(nil, nil), head + `}`},
		{"an older client's: no sort", Record{Type: TypeRead, Chat: "bob", UpTo: id}, `{"type":"read","chat":"bob","upTo":"` + id + `","v":0}`},
		{"base", pos(&ReadBase{0, ""}, nil), head + `,"base":{"sort":0,"id":""}}`},
		{"ids", pos(nil, []string{id}), head + `,"ids":["` + id + `"]}`},
		{"ids given empty", pos(nil, []string{}), head + `,"ids":[]}`},
		{"base and ids, not HTML-escaped", pos(&ReadBase{7, "<&>"}, []string{id}), head + `,"base":{"sort":7,"id":"<&>"},"ids":["` + id + `"]}`},
	} {
		b, err := c.r.MarshalJSON()
		if err != nil || string(b) != c.want {
			t.Errorf("%s: %s, %v; want %s", c.what, b, err, c.want)
			continue
		}
		if r, err := ParseRecord(b); err != nil || !reflect.DeepEqual(r, c.r) {
			t.Errorf("%s: %s read back as %+v, %v", c.what, b, r, err)
		}
	}
}

// recordReasons are the reasons records.js gives.
var recordReasons = map[string]bool{NotARecord: true, "text": true, "replyTo": true, "target": true, "emoji": true, "on": true, "status": true, "ids": true, "chat or upTo": true, "base": true, "files": true, "expires": true, "seconds": true, "chat": true, "at": true}

// FuzzParseRecord: no input crashes the parser, every refusal is one of
// its errors, every record it returns is written and read back the same,
// and its JSON reads as encoding/json reads it (UTF-8, within
// MaxRecordDepth).
func FuzzParseRecord(f *testing.F) {
	v := load(f).Records
	for _, c := range v.Valid {
		f.Add([]byte(c.Record))
	}
	for _, c := range v.Invalid {
		if c.Bytes != "" {
			b, _ := base64.StdEncoding.DecodeString(c.Bytes)
			f.Add(b)
		} else {
			f.Add([]byte(c.Record))
		}
	}
	for _, s := range v.Sealed {
		f.Add([]byte(s.Record))
	}
	f.Add([]byte(`{"type":"text","text":"\ud800","replyTo":null}`))
	f.Add([]byte(`{"type":"text","text":"\ud83d\u0041\udc00"}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		r, err := ParseRecord(b)
		var re *RecordError
		switch {
		case err == nil:
			again(t, r, nil)
		case errors.Is(err, ErrUnknownType):
			if r.Type != TypeUnknown {
				t.Fatalf("unknown type as %+v", r)
			}
			again(t, r, ErrUnknownType)
		case errors.As(err, &re) && errors.Is(err, ErrInvalidRecord):
			if !recordReasons[re.Field] || !reflect.DeepEqual(r, Record{}) {
				t.Fatalf("refusal %q with %+v", re.Field, r)
			}
		default:
			t.Fatalf("undocumented error %v", err)
		}
		sameAsEncodingJSON(t, b)
	})
}

// again writes r and reads it back.
func again(t *testing.T, r Record, wantErr error) {
	t.Helper()
	b, err := r.MarshalJSON()
	if err != nil {
		t.Fatal(err)
	}
	r2, err := ParseRecord(b)
	if !errors.Is(err, wantErr) || (err == nil) != (wantErr == nil) || !reflect.DeepEqual(r, r2) {
		t.Fatalf("%+v written as %s read back as %+v, %v", r, b, r2, err)
	}
}

// sameAsEncodingJSON checks the record JSON reader against encoding/json:
// the same bytes are an object or not, and each member has the same value
// (the last of a name given twice, in both).
func sameAsEncodingJSON(t *testing.T, b []byte) {
	t.Helper()
	b = bytes.TrimPrefix(b, []byte("\ufeff"))
	if !utf8.Valid(b) || !withinDepth(b) {
		return
	}
	m, ok := parseObject(b)
	var want map[string]any
	d := json.NewDecoder(bytes.NewReader(b))
	d.UseNumber()
	isObject := json.Valid(b) && d.Decode(&want) == nil && want != nil
	if ok != isObject {
		t.Fatalf("%q: an object to the record reader: %v; to encoding/json: %v", b, ok, isObject)
	}
	if !ok {
		return
	}
	if len(m) != len(want) {
		t.Fatalf("%q: %d members, encoding/json has %d", b, len(m), len(want))
	}
	for name, v := range m {
		if !sameValue(v, want[name], 2) {
			t.Fatalf("%q: member %q is %+v, encoding/json reads %#v", b, name, v, want[name])
		}
	}
}

func sameValue(v jsonValue, w any, levels int) bool {
	inner := levels > 0
	switch w := w.(type) {
	case string:
		return v.kind == jsonString && v.str == w
	case json.Number:
		return v.kind == jsonNumber && v.str == string(w)
	case bool:
		return v.kind == jsonTrue && w || v.kind == jsonFalse && !w
	case nil:
		return v.kind == jsonNull
	case map[string]any:
		if v.kind != jsonObject {
			return false
		}
		if !inner {
			return v.members == nil
		}
		if len(v.members) != len(w) {
			return false
		}
		for name, m := range v.members {
			if wm, ok := w[name]; !ok || !sameValue(m, wm, levels-1) {
				return false
			}
		}
		return true
	case []any:
		if v.kind != jsonArray {
			return false
		}
		if !inner {
			return v.elems == nil
		}
		if len(v.elems) != len(w) {
			return false
		}
		for i := range w {
			if !sameValue(v.elems[i], w[i], levels-1) {
				return false
			}
		}
		return true
	}
	return false
}
