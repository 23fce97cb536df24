// Package envelope parses and checks the envelopes clients post to the relay
// (docs/protocol.md, "POST /api/messages"). An envelope is an id, a
// recipient and an opaque body; this package checks their shape and the
// clock skew of the id, and never looks inside the body: it is ciphertext
// that only the clients can read.
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
)

// Errors of Parse and CheckSkew, mapped by the API to its stable codes.
var (
	ErrBadEnvelope = errors.New("bad envelope")
	ErrTooLarge    = errors.New("envelope too large")
	ErrClockSkew   = errors.New("clock skew")
)

// Envelope is a checked envelope as posted by a sender.
type Envelope struct {
	ID   ulid.ULID
	To   string
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
	ID   *string `json:"id"`
	To   *string `json:"to"`
	Body *string `json:"body"`
	Kind *string `json:"kind"`
}

// Parse decodes and checks a posted envelope. maxBody bounds the decoded
// body (MaxBody when 0). Errors wrap ErrBadEnvelope or ErrTooLarge and say
// which field is wrong.
func Parse(data []byte, maxBody int) (Envelope, error) {
	if maxBody <= 0 {
		maxBody = MaxBody
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
	if w.ID == nil || w.To == nil || w.Body == nil {
		return Envelope{}, fmt.Errorf("%w: id, to and body are all required", ErrBadEnvelope)
	}
	id, err := ParseID(*w.ID)
	if err != nil {
		return Envelope{}, err
	}
	if !canonical.ValidUsername(*w.To) {
		return Envelope{}, fmt.Errorf("%w: to must match ^[a-z0-9_]{3,32}$", ErrBadEnvelope)
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
	env := Envelope{ID: id, To: *w.To, Body: body}
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
