package relayclient

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"strconv"
)

// Attachment is the relay's answer about an attachment (docs/protocol.md,
// "Attachments").
type Attachment struct {
	ID        string `json:"id"`
	Size      int64  `json:"size"`
	PartSize  int    `json:"partSize"`
	Parts     int    `json:"parts"`
	Finished  bool   `json:"finished"`
	ExpiresAt int64  `json:"expiresAt"`
	Received  []int  `json:"received"`
}

// CreateAttachment starts an attachment of size bytes.
func (c *Client) CreateAttachment(ctx context.Context, size int64) (Attachment, error) {
	var out Attachment
	err := c.Do(ctx, http.MethodPost, "/api/attachments", map[string]int64{"size": size}, &out)
	return out, err
}

// PutAttachmentPart sends part n of attachment id.
func (c *Client) PutAttachmentPart(ctx context.Context, id string, n int, data []byte) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodPut, c.BaseURL+"/api/attachments/"+id+"/parts/"+strconv.Itoa(n), bytes.NewReader(data))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/octet-stream")
	resp, err := c.raw(req)
	if err != nil {
		return err
	}
	resp.Body.Close()
	return nil
}

// AttachmentParts is attachment id with the parts the relay holds.
func (c *Client) AttachmentParts(ctx context.Context, id string) (Attachment, error) {
	var out Attachment
	err := c.Do(ctx, http.MethodGet, "/api/attachments/"+id+"/parts", nil, &out)
	return out, err
}

// FinishAttachment makes attachment id readable.
func (c *Client) FinishAttachment(ctx context.Context, id string) (Attachment, error) {
	var out Attachment
	err := c.Do(ctx, http.MethodPost, "/api/attachments/"+id+"/finish", nil, &out)
	return out, err
}

// FinishAttachmentFor makes attachment id readable until every device of
// the accounts in to, and of this account but c.Device, has fetched it.
func (c *Client) FinishAttachmentFor(ctx context.Context, id string, to []string) (Attachment, error) {
	var out Attachment
	err := c.Do(ctx, http.MethodPost, "/api/attachments/"+id+"/finish", map[string][]string{"to": to}, &out)
	return out, err
}

// FinishAttachmentForDevice makes attachment id readable for device, another
// device of this account, alone, for an hour at most: a history handed to
// a new device. It goes once that device said it has it.
func (c *Client) FinishAttachmentForDevice(ctx context.Context, id, device string) (Attachment, error) {
	var out Attachment
	err := c.Do(ctx, http.MethodPost, "/api/attachments/"+id+"/finish", map[string]string{"device": device}, &out)
	return out, err
}

// AttachmentReceived tells the relay that this device has attachment id
// and checked it: the relay deletes it once every device it waits for
// said so.
func (c *Client) AttachmentReceived(ctx context.Context, id string) error {
	return c.Do(ctx, http.MethodPost, "/api/attachments/"+id+"/received", nil, nil)
}

// DeleteAttachment deletes attachment id.
func (c *Client) DeleteAttachment(ctx context.Context, id string) error {
	return c.Do(ctx, http.MethodDelete, "/api/attachments/"+id, nil, nil)
}

// UploadAttachment uploads data as one attachment, part by part, and
// finishes it.
func (c *Client) UploadAttachment(ctx context.Context, data []byte) (Attachment, error) {
	a, err := c.CreateAttachment(ctx, int64(len(data)))
	if err != nil {
		return Attachment{}, err
	}
	for n := range a.Parts {
		end := min(len(data), (n+1)*a.PartSize)
		if err := c.PutAttachmentPart(ctx, a.ID, n, data[n*a.PartSize:end]); err != nil {
			return Attachment{}, fmt.Errorf("part %d: %w", n, err)
		}
	}
	return c.FinishAttachment(ctx, a.ID)
}

// DownloadAttachment opens attachment id, whole when rangeHeader is empty,
// else the range it names (such as "bytes=100-"). The caller closes the
// answer's body.
func (c *Client) DownloadAttachment(ctx context.Context, id, rangeHeader string) (*http.Response, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, c.BaseURL+"/api/attachments/"+id, nil)
	if err != nil {
		return nil, err
	}
	if rangeHeader != "" {
		req.Header.Set("Range", rangeHeader)
	}
	return c.raw(req)
}

// ReadAttachment downloads attachment id whole.
func (c *Client) ReadAttachment(ctx context.Context, id string) ([]byte, error) {
	resp, err := c.DownloadAttachment(ctx, id, "")
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	return io.ReadAll(resp.Body)
}

// raw sends req with the client's Origin and X-Device; an answer of 300 or
// more is *Error.
func (c *Client) raw(req *http.Request) (*http.Response, error) {
	if req.Method != http.MethodGet && c.Origin != "" {
		req.Header.Set("Origin", c.Origin)
	}
	if c.Device != "" {
		req.Header.Set("X-Device", c.Device)
	}
	resp, err := c.HTTP.Do(req)
	if err != nil {
		return nil, err
	}
	if resp.StatusCode >= 300 {
		defer resp.Body.Close()
		return nil, readError(resp)
	}
	return resp, nil
}
