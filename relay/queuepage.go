package relay

import (
	"encoding/json"
	"errors"
	"math"
	"net/http"
	"net/url"
	"strconv"

	"relay/epoch"
	"relay/queue"
)

// The paging of GET /api/queue (docs/protocol.md, "GET /api/queue").
const (
	defaultPageLimit = 100
	// maxPageLimit is the stream's replay batch: a page reads no more
	// rows than a stream does at once.
	maxPageLimit = replayBatch
	// maxPageBytes bounds a page's answer body. It must hold the largest
	// envelope (a 64 KiB body is about 87 KiB of JSON); at 1 MiB a page is
	// a dozen of those or hundreds of ordinary ones, and takes about a
	// second on a slow mobile link, which a page woken by a push can
	// afford.
	maxPageBytes = 1 << 20
	// maxPageBodies is the ciphertext a page reads from the database.
	// Bodies of this many bytes take more than maxPageBytes once in
	// base64, so the database stops only where the answer would have
	// stopped anyway, and a page never reads much more than it sends.
	maxPageBodies = maxPageBytes*3/4 + 1
)

// pageJSON is the answer of GET /api/queue.
type pageJSON struct {
	Envelopes []json.RawMessage `json:"envelopes"`
	// Next is the after of the next page; Next == Head: the page holds
	// everything up to Head.
	Next int64 `json:"next"`
	Head int64 `json:"head"`
	// Epoch is the history the page's seq numbers belong to, as the
	// stream's event: epoch tells it (ADR 0086).
	Epoch  string      `json:"epoch"`
	Purged *purgedJSON `json:"purged,omitempty"`
}

// purgedJSON is the stream's event: purged, as a member of a page.
type purgedJSON struct {
	UpTo   int64  `json:"upTo"`
	Reason string `json:"reason"`
}

// GET /api/queue: a page of the device's queue, for a client that holds
// no stream (docs/protocol.md, "GET /api/queue"). It reads and changes
// nothing else: the device's stream, if open, goes on, and the client
// ACKs what it stored with POST /api/ack.
func (s *Server) queuePage(w http.ResponseWriter, r *http.Request, in *checked) error {
	dev := in.device
	after, limit, err := parseQueueQuery(r.URL.RawQuery)
	if err != nil {
		return err
	}
	// Read before the page, as a stream reads it before it replays: a
	// history that begins in between is told by the next page.
	ep, err := epoch.Read(r.Context(), s.pool)
	if err != nil {
		return err
	}
	p, err := queue.ReadPage(r.Context(), s.pool, dev, after, limit, maxPageBodies)
	if errors.Is(err, queue.ErrNoDevice) {
		return errDeviceForbidden // revoked or deleted since the check
	}
	if err != nil {
		return err
	}
	if after > p.State.Seq {
		return cursorAhead(p.State.Seq)
	}
	page, err := buildPage(after, p, maxPageBytes)
	if err != nil {
		return err
	}
	page.Epoch = ep.String()
	writeJSON(w, http.StatusOK, page)
	return nil
}

// buildPage is the answer for page p read after after: as many of its
// envelopes as fit in an answer of maxBytes, and at least one, each
// encoded as the stream encodes it.
func buildPage(after int64, p queue.Page, maxBytes int) (*pageJSON, error) {
	page := &pageJSON{Envelopes: []json.RawMessage{}, Next: p.State.Seq, Head: p.State.Seq}
	if after < p.State.PurgedSeq {
		// As the stream's event: purged (docs/protocol.md): envelopes
		// after the cursor were deleted undelivered.
		page.Purged = &purgedJSON{UpTo: p.State.PurgedSeq, Reason: p.State.PurgedReason}
	}
	// What the answer takes besides its envelopes, with Next at its
	// longest (Next <= Head) and writeJSON's newline.
	frame, err := json.Marshal(page)
	if err != nil {
		return nil, err
	}
	room := maxBytes - len(frame) - 1
	more := p.More
	var ev envelopeEvent // one for the page: each is marshalled at once
	for i := range p.Items {
		ev = newEnvelopeEvent(&p.Items[i])
		b, err := json.Marshal(&ev)
		if err != nil {
			return nil, err
		}
		need := len(b)
		if i > 0 {
			need++ // the comma
		}
		if i > 0 && need > room {
			more = true
			break
		}
		room -= need
		page.Envelopes = append(page.Envelopes, b)
	}
	if more && len(page.Envelopes) > 0 {
		page.Next = p.Items[len(page.Envelopes)-1].Seq
	}
	return page, nil
}

// parseQueueQuery reads the query of GET /api/queue: after, a seq in plain
// decimal (0, the whole queue, when absent), and limit, 1 to maxPageLimit
// envelopes (defaultPageLimit when absent). Other parameters are ignored,
// as unknown members of a JSON body are. A query that does not parse, or
// gives after or limit twice, is bad_query.
func parseQueueQuery(raw string) (after int64, limit int, err error) {
	q, err := url.ParseQuery(raw)
	if err != nil {
		return 0, 0, codeBadQuery.errorf("the query is not of the form after=SEQ&limit=N")
	}
	after, err = queryInt(q, "after", 0, 0, math.MaxInt64)
	if err != nil {
		return 0, 0, err
	}
	n, err := queryInt(q, "limit", defaultPageLimit, 1, maxPageLimit)
	if err != nil {
		return 0, 0, err
	}
	return after, int(n), nil
}

// queryInt reads the query parameter name: absent is def, else exactly
// one plain decimal integer from lo to hi.
func queryInt(q url.Values, name string, def, lo, hi int64) (int64, error) {
	vs, ok := q[name]
	if !ok {
		return def, nil
	}
	if len(vs) != 1 {
		return 0, codeBadQuery.errorf("%s is given more than once", name)
	}
	n, err := strconv.ParseInt(vs[0], 10, 64)
	if err != nil || n < lo || n > hi || strconv.FormatInt(n, 10) != vs[0] {
		return 0, codeBadQuery.errorf("%s must be an integer from %d to %d in plain decimal", name, lo, hi)
	}
	return n, nil
}

// cursorAhead refuses an after beyond the device's head, which it carries:
// the client's cursor comes from another history of this queue than the
// relay's, such as before a database was restored from a backup.
func cursorAhead(head int64) *apiError {
	ae := codeCursorAhead.errorf("after is beyond %d, the last seq this relay has given this device: "+
		"the relay's history of this queue is not the one the cursor comes from (its database may have been restored). "+
		"Fetch again from after=0, recognise by envelope id what is already stored, "+
		"and tell the user that messages sent meanwhile may be missing", head)
	ae.extra = map[string]any{"head": head}
	return ae
}
