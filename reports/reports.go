// Package reports owns the reports people send to their relay's operator
// about a message or a contact (docs/protocol.md, "POST /api/reports";
// ADR 0118): the parser of a report's body, the one place that decides
// what a report may hold, and the reports table, for the API that files
// them and `relay admin reports`, which lists, shows and resolves them.
//
// A report is the one thing the relay keeps in plain text: the messages
// the reporter chose, with their senders' usernames, exactly as the
// reporter's client sent them after Parse accepted them. The relay cannot
// check that they were ever sent (there is no message franking), so a
// report is a claim, not proof. The package keeps nothing about the
// request beyond the report (no address, no device), never logs a report's
// content, and its rows go with the account of either side.
package reports

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/go-json-experiment/json/jsontext"

	"relay/canonical"
)

// The bounds of a report (docs/protocol.md, "POST /api/reports").
const (
	// MaxMessages bounds the messages of one report; MaxText one
	// message's text and MaxComment the comment, in characters (Unicode
	// code points: a client that counts UTF-16 units is within them).
	MaxMessages = 50
	MaxText     = 16000
	MaxComment  = 1000
	// MaxRequest bounds the body of POST /api/reports. The largest
	// report JSON.stringify can write is 50 texts of 16,000 control
	// characters, each escaped as \u00XX (6 bytes), and a comment of
	// 1,000 of them: about 4.81 MB with the members' names and the other
	// values. 5 MiB holds it with room for whitespace.
	MaxRequest = 5 << 20
	// maxAt is the largest "at": 2^53 − 1, JavaScript's largest safe
	// integer, written as plain digits by JSON.stringify.
	maxAt = 1<<53 - 1
	// ResolvedKeep is how long a resolved report is kept after it was
	// resolved; an open one is kept until it is resolved (ADR 0118).
	ResolvedKeep = 90 * 24 * time.Hour
)

// Reasons are the reasons a report can give, in the order the client
// offers them.
var Reasons = []string{"spam", "harassment", "illegal", "other"}

// Message is one message of a report, as the reporter's client had it:
// its id, its sender's username, its time in milliseconds since the
// epoch, and its text (a message with files as its label, such as
// "Photo: cat.jpg").
type Message struct {
	ID   string `json:"id"`
	From string `json:"from"`
	At   int64  `json:"at"`
	Text string `json:"text"`
}

// Report is a report as filed, and as the table keeps it.
type Report struct {
	Number   int64  // the relay's, what the operator names it by; 0 until filed
	ID       string // the client's, a ULID
	Reporter string // the reporter's username
	About    string // the reported account's username
	Reason   string // one of Reasons
	Comment  string // "" when none
	Messages []Message

	CreatedAt  time.Time
	ResolvedAt time.Time // zero while open
	Note       string    // the operator's, given when resolving
}

// Open reports whether the report has not been resolved.
func (r *Report) Open() bool { return r.ResolvedAt.IsZero() }

// ErrNotJSON is a body that is not I-JSON (ADR 0022): malformed, invalid
// UTF-8, or a member name given twice.
var ErrNotJSON = errors.New("the report is not valid JSON (malformed, invalid UTF-8, or a name given twice)")

// FieldError is a report of the wrong shape: Field names the member, such
// as "messages[2].text" (indexes from 0), and Want says what it must be.
// Neither echoes the client's bytes.
type FieldError struct {
	Field, Want string
}

func (e *FieldError) Error() string {
	if e.Field == "" {
		return e.Want
	}
	return e.Field + ": " + e.Want
}

func bad(field, want string) error { return &FieldError{Field: field, Want: want} }

// What each member must be, as the errors say it.
const (
	wantReport   = `a report is a JSON object of "id", "about", "reason", "messages" and, optionally, "comment", nothing else`
	wantID       = "a ULID in canonical form (26 characters of Crockford base32, upper case)"
	wantAbout    = "the username of the account reported (3 to 32 characters from a-z, 0-9 and _), not your own"
	wantReason   = "one of spam, harassment, illegal, other"
	wantMessages = "an array of 1 to 50 messages"
	wantMessage  = `a message is a JSON object of "id", "from", "at" and "text", nothing else`
	wantFrom     = `the username of the reporter or of the account in "about"`
	wantAt       = "milliseconds since 1970-01-01 UTC, a whole number from 1 to 9007199254740991 written in plain digits"
	noNUL        = "U+0000 cannot be stored: leave it out"
)

var (
	reportMembers  = []string{"id", "about", "reason", "comment", "messages"}
	messageMembers = []string{"id", "from", "at", "text"}
)

// Parse reads the body of POST /api/reports from the account named
// reporter. It returns ErrNotJSON for a body that is not I-JSON and a
// *FieldError for every other fault, the first in the order of the
// members in docs/protocol.md, each message's in turn; a member it does
// not know is a fault, since a client that sends one expects the relay to
// keep something it would not. Whether "about" is reporter, or an
// account at all, is the caller's to check.
func Parse(data []byte, reporter string) (Report, error) {
	if !jsontext.Value(data).IsValid() {
		return Report{}, ErrNotJSON
	}
	top, err := object(data, reportMembers, "", wantReport)
	if err != nil {
		return Report{}, err
	}
	r := Report{Reporter: reporter}
	if r.ID, err = ulidOf(top, "id", "id"); err != nil {
		return Report{}, err
	}
	if r.About, err = str(top, "about", "about", wantAbout); err != nil {
		return Report{}, err
	}
	if !canonical.ValidUsername(r.About) {
		return Report{}, bad("about", wantAbout)
	}
	if r.Reason, err = str(top, "reason", "reason", wantReason); err != nil {
		return Report{}, err
	}
	if !slices.Contains(Reasons, r.Reason) {
		return Report{}, bad("reason", wantReason)
	}
	if raw, ok := top["comment"]; ok && string(raw) != "null" {
		if r.Comment, err = text(top, "comment", "comment", 0, MaxComment); err != nil {
			return Report{}, err
		}
	}
	raw, ok := top["messages"]
	var list []json.RawMessage
	if !ok || raw[0] != '[' || json.Unmarshal(raw, &list) != nil || len(list) < 1 || len(list) > MaxMessages {
		return Report{}, bad("messages", wantMessages)
	}
	r.Messages = make([]Message, len(list))
	seen := make(map[string]int, len(list))
	for i, raw := range list {
		field := "messages[" + strconv.Itoa(i) + "]"
		m, err := message(raw, field, reporter, r.About)
		if err != nil {
			return Report{}, err
		}
		if j, dup := seen[m.ID]; dup {
			return Report{}, bad(field+".id", fmt.Sprintf("the id of messages[%d] again: a message is in a report once", j))
		}
		seen[m.ID] = i
		r.Messages[i] = m
	}
	return r, nil
}

// message reads one element of "messages".
func message(raw json.RawMessage, field, reporter, about string) (Message, error) {
	members, err := object(raw, messageMembers, field, wantMessage)
	if err != nil {
		return Message{}, err
	}
	var m Message
	if m.ID, err = ulidOf(members, "id", field+".id"); err != nil {
		return Message{}, err
	}
	if m.From, err = str(members, "from", field+".from", wantFrom); err != nil {
		return Message{}, err
	}
	if m.From != reporter && m.From != about {
		return Message{}, bad(field+".from", wantFrom)
	}
	at, ok := members["at"]
	if !ok || !plainDigits(at) {
		return Message{}, bad(field+".at", wantAt)
	}
	if m.At, err = strconv.ParseInt(string(at), 10, 64); err != nil || m.At < 1 || m.At > maxAt {
		return Message{}, bad(field+".at", wantAt)
	}
	if m.Text, err = text(members, "text", field+".text", 1, MaxText); err != nil {
		return Message{}, err
	}
	return m, nil
}

// object decodes data as a JSON object whose members are among allowed.
func object(data []byte, allowed []string, field, want string) (map[string]json.RawMessage, error) {
	var members map[string]json.RawMessage
	if err := json.Unmarshal(data, &members); err != nil || members == nil {
		return nil, bad(field, want)
	}
	for k, v := range members {
		if !slices.Contains(allowed, k) {
			return nil, bad(field, want)
		}
		members[k] = bytes.TrimSpace(v)
	}
	return members, nil
}

// str reads the string member name; missing, or of another type, is
// field's fault.
func str(members map[string]json.RawMessage, name, field, want string) (string, error) {
	raw, ok := members[name]
	var s string
	if !ok || len(raw) == 0 || raw[0] != '"' || json.Unmarshal(raw, &s) != nil {
		return "", bad(field, want)
	}
	return s, nil
}

func ulidOf(members map[string]json.RawMessage, name, field string) (string, error) {
	s, err := str(members, name, field, wantID)
	if err != nil {
		return "", err
	}
	if _, err := canonical.ParseULID(s); err != nil {
		return "", bad(field, wantID)
	}
	return s, nil
}

// text reads a string member of min to max characters without U+0000,
// which PostgreSQL's jsonb and text cannot hold.
func text(members map[string]json.RawMessage, name, field string, min, max int) (string, error) {
	want := fmt.Sprintf("%d to %d characters", min, max)
	s, err := str(members, name, field, want)
	if err != nil {
		return "", err
	}
	if n := utf8.RuneCountInString(s); n < min || n > max {
		return "", bad(field, want)
	}
	if strings.IndexByte(s, 0) >= 0 {
		return "", bad(field, noNUL)
	}
	return s, nil
}

// plainDigits reports whether raw is a JSON number in plain digits, with
// no sign, fraction, exponent or leading zero.
func plainDigits(raw []byte) bool {
	if len(raw) == 0 || len(raw) > 16 || raw[0] == '0' {
		return false
	}
	for _, c := range raw {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}
