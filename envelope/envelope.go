// Package envelope parses and checks the envelopes clients post to the relay
// (docs/protocol.md, "POST /api/messages"). An envelope is an id, its
// recipients (one username, or a list of them for a group, ADR 0106) and an
// opaque body; this package checks their shape and the clock skew of the
// id, and never looks inside the body: it is ciphertext that only the
// clients can read.
package envelope

import (
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/go-json-experiment/json/jsontext"
	"github.com/oklog/ulid/v2"

	"relay/canonical"
)

const (
	// MaxBody is the largest decoded body, in bytes.
	MaxBody = 64 << 10
	// MaxRequest bounds the whole POST /api/messages request body.
	MaxRequest = 128 << 10
	// DefaultSkew is how far the time in an envelope id may stray from the
	// server's clock.
	DefaultSkew = 5 * time.Minute
	// DefaultMaxRecipients bounds a "to" list: more than a group of people
	// who read each other, few enough that one send stays one short
	// transaction (ADR 0106).
	DefaultMaxRecipients = 256
)

// Errors of Parse and CheckSkew, mapped by the API to its stable codes.
var (
	ErrBadEnvelope       = errors.New("bad envelope")
	ErrTooLarge          = errors.New("envelope too large")
	ErrTooManyRecipients = errors.New("too many recipients")
	ErrClockSkew         = errors.New("clock skew")
)

// Envelope is a checked envelope as posted by a sender.
type Envelope struct {
	ID ulid.ULID
	// To is the recipient of an envelope whose "to" is one username; it
	// is empty when "to" is a list.
	To string
	// List holds the usernames of a "to" that is a JSON array (ADR 0106),
	// in the order sent: at least one, at most the limit, each valid and
	// none twice. It is nil when "to" is one username.
	List []string
	Body []byte
	// Receipt: the client marked the envelope as a receipt ("kind":
	// "receipt"), which takes its rate-limit token from a bucket of its
	// own (ADR 0051). The relay stores nothing of it.
	Receipt bool
	// Commit: the client marked the envelope as an MLS commit ("kind":
	// "commit"), whose body's header the relay reads (package mlsheader)
	// to accept one commit per group and epoch (ADR 0099).
	Commit bool
	// Welcome: the client marked the envelope as an MLS Welcome ("kind":
	// "welcome"), whose body's framing the relay checks (package
	// mlsheader). Commits and welcomes take their rate-limit token from
	// the bucket for group upkeep (ADR 0105).
	Welcome bool
}

// wire is the JSON a client posts. Other fields (such as a "from") are
// ignored: the sender is who the session and X-Device say.
type wire struct {
	ID   *string         `json:"id"`
	To   json.RawMessage `json:"to"` // a username, or a list of them
	Body *string         `json:"body"`
	Kind *string         `json:"kind"`
}

// Parse decodes and checks a posted envelope. maxBody bounds the decoded
// body (MaxBody when 0), maxRecipients the length of a "to" list
// (DefaultMaxRecipients when 0). Errors wrap ErrBadEnvelope, ErrTooLarge
// or ErrTooManyRecipients and say which field is wrong.
func Parse(data []byte, maxBody, maxRecipients int) (Envelope, error) {
	if maxBody <= 0 {
		maxBody = MaxBody
	}
	if maxRecipients <= 0 {
		maxRecipients = DefaultMaxRecipients
	}
	var w wire
	// Strict JSON first (RFC 7493): valid UTF-8 and no name twice, so
	// that no two readers of the same bytes can see different envelopes.
	if !jsontext.Value(data).IsValid() {
		return Envelope{}, fmt.Errorf("%w: the request is not valid JSON (malformed, invalid UTF-8, or a name given twice)", ErrBadEnvelope)
	}
	if err := json.Unmarshal(data, &w); err != nil {
		return Envelope{}, fmt.Errorf("%w: the request is not a JSON object with string fields id, to and body", ErrBadEnvelope)
	}
	if w.ID == nil || len(w.To) == 0 || string(w.To) == "null" || w.Body == nil {
		return Envelope{}, fmt.Errorf("%w: id, to and body are all required", ErrBadEnvelope)
	}
	id, err := ParseID(*w.ID)
	if err != nil {
		return Envelope{}, err
	}
	env := Envelope{ID: id}
	if env.To, env.List, err = parseTo(w.To, maxRecipients); err != nil {
		return Envelope{}, err
	}
	// Bound the work before decoding: base64 of maxBody bytes is this long.
	if len(*w.Body) > (maxBody+2)/3*4 {
		return Envelope{}, fmt.Errorf("%w: body decodes to more than %d bytes", ErrTooLarge, maxBody)
	}
	body, err := canonical.DecodeStdBase64(*w.Body)
	if err != nil {
		return Envelope{}, fmt.Errorf("%w: body: %v", ErrBadEnvelope, err)
	}
	if len(body) == 0 {
		return Envelope{}, fmt.Errorf("%w: body is empty", ErrBadEnvelope)
	}
	if len(body) > maxBody {
		return Envelope{}, fmt.Errorf("%w: body decodes to more than %d bytes", ErrTooLarge, maxBody)
	}
	env.Body = body
	if w.Kind != nil {
		switch *w.Kind {
		case "message":
		case "receipt":
			env.Receipt = true
		case "commit":
			env.Commit = true
		case "welcome":
			env.Welcome = true
		default:
			return Envelope{}, fmt.Errorf("%w: kind must be \"message\", \"receipt\", \"commit\" or \"welcome\"", ErrBadEnvelope)
		}
	}
	return env, nil
}

// parseTo checks a "to": one username, or a JSON array of 1 to max
// distinct usernames (ADR 0106). A list's length is checked before its
// names, so that a list over the limit costs no more than decoding it.
func parseTo(raw json.RawMessage, max int) (string, []string, error) {
	if raw[0] != '[' {
		var to string
		if err := json.Unmarshal(raw, &to); err != nil {
			return "", nil, fmt.Errorf("%w: to must be a username or a list of usernames", ErrBadEnvelope)
		}
		if !canonical.ValidUsername(to) {
			return "", nil, fmt.Errorf("%w: to must match ^[a-z0-9_]{3,32}$", ErrBadEnvelope)
		}
		return to, nil, nil
	}
	var list []string
	if err := json.Unmarshal(raw, &list); err != nil {
		return "", nil, fmt.Errorf("%w: a list in to must hold usernames only", ErrBadEnvelope)
	}
	switch {
	case len(list) == 0:
		return "", nil, fmt.Errorf("%w: a list in to must name at least one username", ErrBadEnvelope)
	case len(list) > max:
		return "", nil, fmt.Errorf("%w: a list in to names at most %d usernames", ErrTooManyRecipients, max)
	}
	seen := make(map[string]struct{}, len(list))
	for _, name := range list {
		// A null entry decodes as "", which is no username either.
		if !canonical.ValidUsername(name) {
			return "", nil, fmt.Errorf("%w: every username in to must match ^[a-z0-9_]{3,32}$", ErrBadEnvelope)
		}
		if _, dup := seen[name]; dup {
			return "", nil, fmt.Errorf("%w: a list in to names each username once", ErrBadEnvelope)
		}
		seen[name] = struct{}{}
	}
	return "", list, nil
}

// Recipients returns the usernames the envelope names: To alone, or List.
func (e *Envelope) Recipients() []string {
	if e.List != nil {
		return e.List
	}
	return []string{e.To}
}

// Others counts the usernames the envelope names other than self, the
// sender's own: the accounts it reaches besides the sender's.
func (e *Envelope) Others(self string) int {
	n := 0
	for _, name := range e.Recipients() {
		if name != self {
			n++
		}
	}
	return n
}

// ParseID parses an envelope id: a ULID in its canonical 26-character,
// upper-case form. Other spellings of the same ULID are refused, because the
// id is bound into the ciphertext's authenticated data byte for byte.
func ParseID(s string) (ulid.ULID, error) {
	id, err := canonical.ParseULID(s)
	if err != nil {
		return ulid.ULID{}, fmt.Errorf("%w: id must be a ULID in canonical form (26 characters, Crockford base32, upper case)", ErrBadEnvelope)
	}
	return id, nil
}

// SkewError is a clock-skew refusal; it carries the server's time so the
// client can correct its clock.
type SkewError struct {
	IDTime     time.Time
	ServerTime time.Time
	Window     time.Duration
}

func (e *SkewError) Error() string {
	return fmt.Sprintf("the time in the envelope id (%s) is more than %s away from the server's time (%s); check the device clock",
		e.IDTime.UTC().Format(time.RFC3339), e.Window, e.ServerTime.UTC().Format(time.RFC3339))
}

func (e *SkewError) Unwrap() error { return ErrClockSkew }

// CheckSkew refuses an id whose embedded time is more than window away from
// now, either way. The window also bounds how long a resend of the id can be
// accepted, and so how long the relay must remember it (ADR 0003).
func CheckSkew(id ulid.ULID, now time.Time, window time.Duration) error {
	t := ulid.Time(id.Time())
	d := t.Sub(now)
	if d > window || d < -window {
		return &SkewError{IDTime: t, ServerTime: now, Window: window}
	}
	return nil
}
