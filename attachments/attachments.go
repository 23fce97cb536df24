// Package attachments keeps the attachments clients upload: ciphertext
// the relay cannot read, stored in parts, readable by whoever knows its id
// once its upload is finished, and deleted when it expires, when its
// uploader deletes it, or with its uploader's account (docs/protocol.md,
// "Attachments"; ADR 0107).
//
// An attachment is opaque to the relay: a size and bytes. The relay never
// parses, logs or transforms them. Store is the interface the relay uses,
// so that a store other than PostgreSQL (an S3-compatible one,
// docs/scaling.md) can take its place; Postgres is the one there is.
package attachments

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"io"
	"time"
)

const (
	// IDSize is the length of an attachment id: 128 random bits, which
	// nobody guesses (ADR 0107).
	IDSize = 16
	// PartSize is the length of every part but the last. Small enough to
	// arrive within the relay's body timeout on a slow link (512 KiB in
	// 30 s is 140 kbit/s) and to be held in memory once per request,
	// large enough that a 100 MiB attachment takes 200 requests.
	PartSize = 512 << 10
	// UploadWindow is how long an upload may take from its start to its
	// finish; an attachment not finished by then is deleted.
	UploadWindow = 24 * time.Hour

	// DefaultMaxSize bounds one attachment's ciphertext: a file of
	// 100 MiB, padded and with its authentication tags, fits.
	DefaultMaxSize = 128 << 20
	// DefaultQuota bounds what one account stores at once.
	DefaultQuota = 1 << 30
	// DefaultMaxAge is how long a finished attachment is kept: longer than
	// the queue keeps the message that names it (30 days), so a device
	// that receives the message late can still fetch it. Signal keeps
	// media 45 days.
	DefaultMaxAge = 45 * 24 * time.Hour
	// TransferMaxAge is how long an attachment finished for one device
	// (Fetchers.For) is kept, if that device does not confirm it sooner.
	TransferMaxAge = time.Hour
)

// Limits are what a Store enforces.
type Limits struct {
	MaxSize int64         // bytes of one attachment
	Quota   int64         // bytes one account stores at once, unfinished included
	MaxAge  time.Duration // a finished attachment's life
}

// Attachment is one stored attachment, as its row says.
type Attachment struct {
	ID       []byte
	Account  int64
	Size     int64
	PartSize int
	Finished bool
	Expires  time.Time
}

// Parts is the number of parts of a.
func (a Attachment) Parts() int {
	return int((a.Size + int64(a.PartSize) - 1) / int64(a.PartSize))
}

// PartLen is the length part n must have: PartSize, or what is left for
// the last part.
func (a Attachment) PartLen(n int) int {
	if n == a.Parts()-1 {
		return int(a.Size - int64(n)*int64(a.PartSize))
	}
	return a.PartSize
}

var (
	// ErrUnknown is an id no attachment has, one that expired, one the
	// account asking does not own where ownership counts, or one not
	// finished yet asked by another account: the same answer for all, so
	// that nobody learns more than that there is nothing for them.
	ErrUnknown = errors.New("no such attachment")
	// ErrFinished is a part sent after its attachment was finished.
	ErrFinished = errors.New("the attachment is finished")
	// ErrAccountGone is an upload started by an account deleted meanwhile.
	ErrAccountGone = errors.New("the account was deleted")
)

// TooLargeError refuses an attachment over Limits.MaxSize.
type TooLargeError struct{ Max int64 }

func (e *TooLargeError) Error() string {
	return fmt.Sprintf("an attachment is at most %d bytes", e.Max)
}

// QuotaError refuses an attachment that would take its account past
// Limits.Quota.
type QuotaError struct{ Used, Quota int64 }

func (e *QuotaError) Error() string {
	return fmt.Sprintf("the account stores %d bytes of attachments; at most %d", e.Used, e.Quota)
}

// PartError refuses a part whose index or length is not one the
// attachment has.
type PartError struct {
	N, Parts, Len, Want int
}

func (e *PartError) Error() string {
	if e.N >= e.Parts {
		return fmt.Sprintf("part %d of an attachment of %d parts", e.N, e.Parts)
	}
	return fmt.Sprintf("part %d is %d bytes; it must be %d", e.N, e.Len, e.Want)
}

// Fetchers are the devices a finished attachment waits for: every live
// device of the accounts named in To and the uploader's own but Device,
// the one that uploaded it and holds it. A nil To waits for nobody: the
// attachment lives until its age limit.
type Fetchers struct {
	To     []string
	Device string
	// For is another device of the uploader's account that alone is
	// waited for: a history handed to a new device. Such an attachment
	// expires TransferMaxAge after its finish.
	For string
}

// ErrUnknownDevice is a Fetchers.For that is not a live device of the
// uploader's account other than the one finishing.
var ErrUnknownDevice = errors.New("attachments: the device is no live device of this account")

// UnknownAccountError is a name in Fetchers.To that is no account's.
type UnknownAccountError struct{ Username string }

func (e *UnknownAccountError) Error() string { return "an account named in the list does not exist" }

// IncompleteError is a finish, or a read by the uploader, of an
// attachment whose parts have not all arrived.
type IncompleteError struct{ Missing []int }

func (e *IncompleteError) Error() string {
	return fmt.Sprintf("%d parts of the attachment are missing", len(e.Missing))
}

// Store keeps attachments. Every method takes the time now from the
// caller, so that tests move the clock.
type Store interface {
	// Create starts an attachment of size bytes for account.
	Create(ctx context.Context, account int64, size int64, now time.Time) (Attachment, error)
	// PutPart stores part n of account's unfinished attachment id; a part
	// sent again replaces the first (a retry after a lost answer).
	PutPart(ctx context.Context, account int64, id []byte, n int, data []byte, now time.Time) error
	// Received is account's attachment id and the parts it has, in order.
	Received(ctx context.Context, account int64, id []byte, now time.Time) (Attachment, []int, error)
	// Finish makes account's attachment id readable once every part has
	// arrived; finishing a finished one changes nothing. With f.To not
	// nil, the attachment goes once every device it lists has fetched it
	// (Fetched).
	Finish(ctx context.Context, account int64, id []byte, f Fetchers, now time.Time) (Attachment, error)
	// Fetched notes that device has attachment id (its client said so),
	// and deletes the attachment when that was the last device it waited
	// for; it says whether it did. An attachment that is not finished or
	// has expired is ErrUnknown.
	Fetched(ctx context.Context, id []byte, device string, now time.Time) (bool, error)
	// Get is a finished attachment, for any account; for its uploader, an
	// unfinished one is an IncompleteError.
	Get(ctx context.Context, account int64, id []byte, now time.Time) (Attachment, error)
	// Read writes n bytes of a from byte off, a part at a time.
	Read(ctx context.Context, a Attachment, off, n int64, w io.Writer) error
	// Delete deletes account's attachment id.
	Delete(ctx context.Context, account int64, id []byte) error
	// Purge deletes the attachments expired by now and returns how many.
	Purge(ctx context.Context, now time.Time) (int64, error)
}

// newID draws an attachment id.
func newID() ([]byte, error) {
	id := make([]byte, IDSize)
	if _, err := rand.Read(id); err != nil {
		return nil, err
	}
	return id, nil
}

// missing lists the parts of a that received does not hold; received is
// in order.
func missing(a Attachment, received []int) []int {
	var out []int
	i := 0
	for n := range a.Parts() {
		if i < len(received) && received[i] == n {
			i++
			continue
		}
		out = append(out, n)
	}
	return out
}
