package seal

import (
	"bytes"
	"encoding/json"
)

// Writing records: as a client sends them, and the builders, which check
// what they write as a receiver reads it (records.go).

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
		if r.Expires != 0 {
			w.field("expires", r.Expires)
		}
	case TypeFiles:
		if r.Text != "" {
			w.field("text", r.Text)
		}
		if r.ReplyTo != "" {
			w.field("replyTo", r.ReplyTo)
		}
		w.field("files", r.Files)
		if r.Expires != 0 {
			w.field("expires", r.Expires)
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
		if r.HasAt {
			w.field("at", r.At)
		}
	case TypeTimer:
		w.field("seconds", r.Seconds)
	case TypeBlock:
		w.field("chat", r.Chat)
		w.field("on", r.On)
		w.field("at", r.At)
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
	// Strings, booleans, integers, string slices, files and a *ReadBase cannot
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

// FilesRecord is a message of attachments with an optional caption (""
// for none); replyTo is the id of the message it quotes, or "".
func FilesRecord(text, replyTo string, files []File) ([]byte, error) {
	return build(Record{Type: TypeFiles, Text: text, ReplyTo: replyTo, Files: files})
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

// TimerRecord sets how long the chat's messages sent after it last, in
// seconds: 0 for ever, at most [MaxTimer].
func TimerRecord(seconds int64) ([]byte, error) {
	return build(Record{Type: TypeTimer, Seconds: seconds})
}

// BlockRecord tells the account's own devices that the contact username
// is blocked (on) or not, from at, in Unix milliseconds.
func BlockRecord(username string, on bool, at int64) ([]byte, error) {
	return build(Record{Type: TypeBlock, Chat: username, On: on, At: at})
}

// ReceiptRecord says that the messages ids were delivered to or read by
// the author; status is [StatusDelivered] or [StatusRead].
func ReceiptRecord(status string, ids []string) ([]byte, error) {
	return build(Record{Type: TypeReceipt, Status: status, IDs: ids})
}
