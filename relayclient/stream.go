package relayclient

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"sync"

	"github.com/r3labs/sse/v2"
	"gopkg.in/cenkalti/backoff.v1"
)

// Event is one event of a device's stream.
type Event struct {
	Name     string    // epoch, envelope, ready, ping, purged, replaced, revoked, rewound, shutdown
	Envelope *Envelope // for "envelope"
	Seq      int64     // for "ready": the resume point; for "purged": upTo; for "epoch": the head
	TS       int64     // for "ping"
	Reason   string    // for "purged": "age" or "size"
	Epoch    string    // for "epoch": the history the stream's seq numbers belong to
	Ahead    bool      // for "epoch": Last-Event-ID was beyond the device's seq
}

// ErrStreamEnded is returned by Stream when the relay ended the stream for
// good: the device was replaced by another stream or revoked, or its
// account was deleted, disabled or logged out by the operator.
var ErrStreamEnded = errors.New("relay ended the stream")

// Stream follows c.Device's event stream and calls handle for every event,
// in order, until ctx ends, handle returns an error, or the relay sends
// "replaced", "revoked", "deleted", "disabled" or "logged_out". lastEventID is the seq to resume after; "" asks
// for the whole queue.
//
// If the connection drops, the relay answers 5xx, or it sends "shutdown"
// or "rewound",
// Stream reconnects by itself when reconnect is true, with backoff and the
// Last-Event-ID of the last envelope received, so nothing is missed or
// repeated. A 4xx answer ends it with the relay's error.
//
// It is built on github.com/r3labs/sse/v2's client (ADR 0004), with two
// workarounds: that client returns without reconnecting on a clean end of
// the stream, so Stream loops; and its retries ignore the context, so the
// backoff is bound to ctx.
func (c *Client) Stream(ctx context.Context, lastEventID string, reconnect bool, handle func(Event) error) error {
	u, err := url.Parse(c.BaseURL + "/api/events")
	if err != nil {
		return err
	}
	u.RawQuery = url.Values{"device": {c.Device}}.Encode()

	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var (
		mu       sync.Mutex // guards stop
		stop     error      // why the stream must not be resumed
		resumeID = lastEventID
	)
	halt := func(err error) {
		mu.Lock()
		if stop == nil {
			stop = err
		}
		mu.Unlock()
		cancel()
	}

	for {
		// Envelope events carry up to 64 KiB of ciphertext as base64;
		// the library's default line limit is 64 KiB.
		cl := sse.NewClient(u.String(), sse.ClientMaxBufferSize(1<<20))
		cl.Connection = c.HTTP
		if resumeID != "" {
			cl.LastEventID.Store([]byte(resumeID))
		}
		cl.ReconnectStrategy = backoff.WithContext(backoff.NewExponentialBackOff(), ctx)
		if !reconnect {
			cl.ReconnectStrategy = backoff.WithContext(&backoff.StopBackOff{}, ctx)
		}
		cl.ResponseValidator = func(_ *sse.Client, resp *http.Response) error {
			if resp.StatusCode == http.StatusOK {
				return nil
			}
			defer resp.Body.Close()
			err := readError(resp)
			if reconnect && resp.StatusCode >= 500 {
				return err // the relay or its database is away: retry
			}
			halt(err)
			return backoff.Permanent(err)
		}
		err := cl.SubscribeRawWithContext(ctx, func(m *sse.Event) {
			if ctx.Err() != nil {
				return
			}
			ev, err := decodeEvent(m)
			if err != nil {
				halt(err)
				return
			}
			if ev.Envelope != nil {
				resumeID = strconv.FormatInt(ev.Envelope.Seq, 10)
			}
			if err := handle(ev); err != nil {
				halt(err)
				return
			}
			switch ev.Name {
			case "replaced", "revoked", "deleted", "disabled", "logged_out":
				halt(fmt.Errorf("%w: %s", ErrStreamEnded, ev.Name))
			case "shutdown", "rewound":
				if !reconnect {
					halt(fmt.Errorf("%w: %s", ErrStreamEnded, ev.Name))
				}
			}
		})
		mu.Lock()
		s := stop
		mu.Unlock()
		if s != nil {
			return s
		}
		if ctx.Err() != nil {
			return ctx.Err()
		}
		if !reconnect {
			if err == nil {
				err = errors.New("relayclient: the relay closed the stream")
			}
			return err
		}
		// A clean end of the stream (err == nil) or retries given up:
		// start over from the last envelope seen.
	}
}

func decodeEvent(m *sse.Event) (Event, error) {
	ev := Event{Name: string(m.Event)}
	switch ev.Name {
	case "envelope":
		ev.Envelope = new(Envelope)
		if err := json.Unmarshal(m.Data, ev.Envelope); err != nil {
			return ev, fmt.Errorf("relayclient: bad envelope event: %w", err)
		}
	case "ready":
		var d struct{ Seq int64 }
		if err := json.Unmarshal(m.Data, &d); err != nil {
			return ev, fmt.Errorf("relayclient: bad ready event: %w", err)
		}
		ev.Seq = d.Seq
	case "epoch":
		var d struct {
			Epoch string
			Seq   int64
			Ahead bool
		}
		if err := json.Unmarshal(m.Data, &d); err != nil {
			return ev, fmt.Errorf("relayclient: bad epoch event: %w", err)
		}
		ev.Epoch, ev.Seq, ev.Ahead = d.Epoch, d.Seq, d.Ahead
	case "purged":
		var d struct {
			UpTo   int64
			Reason string
		}
		if err := json.Unmarshal(m.Data, &d); err != nil {
			return ev, fmt.Errorf("relayclient: bad purged event: %w", err)
		}
		ev.Seq, ev.Reason = d.UpTo, d.Reason
	case "ping":
		var d struct{ TS int64 }
		if err := json.Unmarshal(m.Data, &d); err != nil {
			return ev, fmt.Errorf("relayclient: bad ping event: %w", err)
		}
		ev.TS = d.TS
	}
	return ev, nil
}
