package relayclient

import (
	"context"
	"net/http"
)

// Report is the body of POST /api/reports (docs/protocol.md): a report to
// the relay's operator about the account About, holding the chosen
// messages in the chosen order.
type Report struct {
	ID       string          `json:"id"`
	About    string          `json:"about"`
	Reason   string          `json:"reason"`
	Comment  string          `json:"comment,omitempty"`
	Messages []ReportMessage `json:"messages"`
}

// ReportMessage is one message of a report, as the reporter saw it.
type ReportMessage struct {
	ID   string `json:"id"`
	From string `json:"from"`
	At   int64  `json:"at"`
	Text string `json:"text"`
}

// FileReport sends r, speaking as the client's device; a retry with the
// same r is answered as the first was.
func (c *Client) FileReport(ctx context.Context, r Report) error {
	var out struct {
		ID string `json:"id"`
	}
	return c.Do(ctx, http.MethodPost, "/api/reports", r, &out)
}
