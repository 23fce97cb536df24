package queue

import (
	"context"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5/pgxpool"
)

// ErrNoDevice is a page asked for a device that is not live: revoked or
// deleted since the request's checks.
var ErrNoDevice = errors.New("no live device with this id")

// Page is one page of a device's queue and where the queue stood when it
// was read.
type Page struct {
	State QueueState
	// Items are the envelopes after the page's cursor, in seq order, up
	// to State.Seq: the rows a stream's replay from that cursor begins
	// with.
	Items []Item
	// More is set when rows up to State.Seq may follow Items: the page
	// was cut by its row or byte limit.
	More bool
}

// pageSQL reads a device's queue state and the page after $2 in one
// statement, and so from one snapshot: every row up to the head it reads
// is committed (ADR 0002), and a purge that commits meanwhile is either
// wholly seen (its rows gone and the mark set) or not at all, so that a
// page never misses envelopes without the mark that says so. It takes no
// lock: a read never waits for a fan-out.
//
// It returns the device row with each of the page's rows joined to it, or
// once with seq 0 when the page is empty (seqs start at 1). The page is up
// to $3 rows, and stops after the row whose body brings the page's bodies
// to $4 bytes: octet_length takes a stored body's size from its header,
// so the bodies left out are neither read nor sent.
//
// The head bounds the rows outside the LIMIT: inside, a bound taken from
// the device row makes PostgreSQL guess a few rows and sort the whole
// queue instead of walking its index (measured: 19,900 rows read for a
// page of 13). In one snapshot no row is above the head anyway, unless
// someone set the head back.
const pageSQL = `SELECT d.seq, d.purged_seq, d.purged_reason,
		coalesce(q.seq, 0), coalesce(q.envelope_id, ''), coalesce(q.from_username, ''), coalesce(q.from_device, ''),
		coalesce(q.to_username, ''), coalesce(q.ts, 0), coalesce(q.body, ''::bytea)
	FROM devices d
	LEFT JOIN LATERAL (
		SELECT seq, envelope_id, from_username, from_device, to_username, ts, body,
			sum(octet_length(body)) OVER (ORDER BY seq) - octet_length(body) AS before
		FROM queue WHERE device_id = d.id AND seq > $2
		ORDER BY seq LIMIT $3
	) q ON q.before < $4 AND q.seq <= d.seq
	WHERE d.id = $1 AND d.revoked_at IS NULL
	ORDER BY q.seq`

// ReadPage reads the envelopes of a device's queue with seq after after,
// in seq order, up to the head (the last seq handed out when it reads),
// with the queue's state at that moment. It returns at most limit
// envelopes, and stops after the first envelope that brings the bodies
// to maxBytes; so it returns at least one whenever one is queued past
// after. An after beyond the head is the caller's to refuse: the page is
// then empty. A device that is not live is ErrNoDevice.
func ReadPage(ctx context.Context, pool *pgxpool.Pool, deviceID string, after int64, limit int, maxBytes int64) (Page, error) {
	// One row more than asked tells whether more follow.
	rows, err := pool.Query(ctx, pageSQL, deviceID, after, limit+1, maxBytes)
	if err != nil {
		return Page{}, fmt.Errorf("reading a page of the queue: %w", err)
	}
	defer rows.Close()
	var p Page
	found := false
	var bytes int64
	for rows.Next() {
		var it Item
		if err := rows.Scan(&p.State.Seq, &p.State.PurgedSeq, &p.State.PurgedReason,
			&it.Seq, &it.ID, &it.From, &it.FromDevice, &it.To, &it.TS, &it.Body); err != nil {
			return Page{}, fmt.Errorf("reading a page of the queue: %w", err)
		}
		found = true
		if it.Seq == 0 {
			continue
		}
		p.Items = append(p.Items, it)
		bytes += int64(len(it.Body))
	}
	if err := rows.Err(); err != nil {
		return Page{}, fmt.Errorf("reading a page of the queue: %w", err)
	}
	if !found {
		return Page{}, ErrNoDevice
	}
	if len(p.Items) > limit {
		p.Items, p.More = p.Items[:limit], true
	}
	// The byte limit was reached: rows after the last may have been left
	// out.
	if bytes >= maxBytes {
		p.More = true
	}
	return p, nil
}
