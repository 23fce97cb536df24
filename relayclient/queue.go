package relayclient

import (
	"context"
	"errors"
	"net/http"
	"net/url"
	"strconv"
)

// Page is one answer of GET /api/queue: envelopes of c.Device's queue, in
// seq order, as its stream would replay them.
type Page struct {
	Envelopes []Envelope `json:"envelopes"`
	// Next is the after of the next page. When it equals Head the page
	// holds everything queued up to Head.
	Next int64 `json:"next"`
	// Head is the last seq the relay had given the device when it read
	// the page: the stream's resume point (its event: ready).
	Head int64 `json:"head"`
	// Epoch is the history the seq numbers belong to (the stream's event:
	// epoch). A page of another epoch than the client's cursor means the
	// cursor cannot be trusted: read again from 0.
	Epoch string `json:"epoch"`
	// Purged, when set, is the stream's event: purged: envelopes after
	// the cursor, up to Purged.UpTo, were deleted undelivered.
	Purged *Purged `json:"purged"`
}

// Purged says which envelopes of a device's queue the relay deleted before
// the device received them, and why: "age" or "size".
type Purged struct {
	UpTo   int64  `json:"upTo"`
	Reason string `json:"reason"`
}

// Fetch reads one page of c.Device's queue: the envelopes with seq greater
// than after, at most limit of them (0: the relay's default), within the
// relay's size bound for a page. It changes nothing on the relay; Ack
// deletes what the caller stored. An after beyond the device's head is an
// *Error with code cursor_ahead, whose Head is the relay's.
func (c *Client) Fetch(ctx context.Context, after int64, limit int) (Page, error) {
	q := url.Values{"after": {strconv.FormatInt(after, 10)}}
	if limit > 0 {
		q.Set("limit", strconv.Itoa(limit))
	}
	var p Page
	err := c.Do(ctx, http.MethodGet, "/api/queue?"+q.Encode(), nil, &p)
	return p, err
}

// Drain reads c.Device's queue without a stream, from after to the head:
// it fetches pages of up to limit envelopes (0: the relay's default),
// hands each to store, and ACKs the page once store has returned nil, so
// that nothing is deleted before the caller holds it. It returns the
// cursor to resume from (the head it reached), or the cursor of the last
// page ACKed and the first error.
func (c *Client) Drain(ctx context.Context, after int64, limit int, store func(Page) error) (int64, error) {
	for {
		p, err := c.Fetch(ctx, after, limit)
		if err != nil {
			return after, err
		}
		if p.Next < p.Head && p.Next <= after {
			// A relay that keeps to docs/protocol.md never does this;
			// without the check, Drain would ask for the same page forever.
			return after, errors.New("relayclient: a page of the queue did not move the cursor")
		}
		if err := store(p); err != nil {
			return after, err
		}
		// An ACK up to Next also covers a purge mark at or below it,
		// which store was just told of: the relay stops telling it.
		if p.Next > after {
			if err := c.Ack(ctx, p.Next); err != nil {
				return after, err
			}
			after = p.Next
		}
		if p.Next >= p.Head {
			return after, nil
		}
	}
}
