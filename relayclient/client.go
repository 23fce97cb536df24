// Package relayclient is the Go reference client of the relay's HTTP API
// (docs/protocol.md). Tests and tools use it to speak to a relay exactly as
// a client author would; it knows nothing about the server's internals.
//
// It moves opaque bytes: encrypting and decrypting envelope bodies is the
// caller's business.
package relayclient

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/cookiejar"
	"strconv"
	"strings"
	"time"
)

// Error is an error answer of the relay: the HTTP status, the stable code
// and the message, plus the fields some codes carry.
type Error struct {
	Status     int
	Code       string
	Message    string
	RetryAfter time.Duration // rate_limited, too_many_attempts
	ServerTime int64         // clock_skew: the server's Unix milliseconds
	Head       int64         // cursor_ahead: the device's last seq on the relay
	Epoch      string        // epoch_changed: the relay's epoch now
	// CurrentEpoch is stale_epoch's: the epoch the group's next commit
	// must name, or, from PutGroupInfo, the epoch of the GroupInfo stored.
	CurrentEpoch uint64
	// GroupEpoch is epoch_ahead's: the group's epoch on the relay, the
	// latest a GroupInfo may be stored for.
	GroupEpoch uint64
	// Username is unknown_recipient's for a list: the first name in it
	// that is no account's.
	Username string
	// Missing is attachment_incomplete's: the parts not received yet.
	Missing []int
}

func (e *Error) Error() string {
	return fmt.Sprintf("relay: %d %s: %s", e.Status, e.Code, e.Message)
}

// Code returns the relay's error code of err, or "" when err is not an
// answer of the relay.
func Code(err error) string {
	var e *Error
	if errors.As(err, &e) {
		return e.Code
	}
	return ""
}

// Client speaks to one relay as one account and, once Device is set, as one
// of its devices. Its cookie jar holds the session.
type Client struct {
	BaseURL string
	// Origin is sent on every non-GET request; NewClient sets it to the
	// base URL, as a browser on the relay's own page would.
	Origin string
	// Device is the X-Device id used by Send, Ack, Stream and Fetch.
	Device string
	HTTP   *http.Client
}

// New returns a client for the relay at baseURL with an empty cookie jar.
func New(baseURL string) *Client {
	jar, _ := cookiejar.New(nil)
	baseURL = strings.TrimSuffix(baseURL, "/")
	return &Client{BaseURL: baseURL, Origin: baseURL, HTTP: &http.Client{Jar: jar}}
}

// Account is an entry of the key directory.
type Account struct {
	Username  string `json:"username"`
	PublicKey []byte `json:"publicKey"`
}

// Device is an entry of GET /api/devices.
type Device struct {
	ID         string `json:"id"`
	Name       string `json:"name"`
	PublicKey  []byte `json:"publicKey"`
	CreatedAt  int64  `json:"createdAt"`
	LastSeenAt *int64 `json:"lastSeenAt"`
	Linked     bool   `json:"linked"` // the device holds the account key
}

// Recovery is the answer of GET /api/recovery.
type Recovery struct {
	Blob      []byte    `json:"blob"`
	UpdatedAt time.Time `json:"updatedAt"`
}

// Contact is an entry of GET /api/contacts.
type Contact struct {
	Username  string `json:"username"`
	PublicKey []byte `json:"publicKey"`
	Since     int64  `json:"since"`
}

// Accepted is the answer to a send.
type Accepted struct {
	ID string `json:"id"`
	TS int64  `json:"ts"`
}

// Envelope is what a device receives.
type Envelope struct {
	Seq        int64  `json:"seq"`
	ID         string `json:"id"`
	From       string `json:"from"`
	FromDevice string `json:"fromDevice"`
	To         string `json:"to"`
	TS         int64  `json:"ts"`
	Body       []byte `json:"body"`
}

// Do sends one request with the client's cookies, Origin and X-Device and
// decodes a JSON answer into out (when not nil). A non-2xx answer is *Error.
func (c *Client) Do(ctx context.Context, method, path string, in, out any) error {
	var body io.Reader
	if in != nil {
		b, err := json.Marshal(in)
		if err != nil {
			return err
		}
		body = bytes.NewReader(b)
	}
	req, err := http.NewRequestWithContext(ctx, method, c.BaseURL+path, body)
	if err != nil {
		return err
	}
	if in != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if method != http.MethodGet && c.Origin != "" {
		req.Header.Set("Origin", c.Origin)
	}
	if c.Device != "" {
		req.Header.Set("X-Device", c.Device)
	}
	resp, err := c.HTTP.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode >= 300 {
		return readError(resp)
	}
	if out != nil {
		return json.NewDecoder(resp.Body).Decode(out)
	}
	return nil
}

func readError(resp *http.Response) error {
	e := &Error{Status: resp.StatusCode}
	var body struct {
		Error      string `json:"error"`
		Message    string `json:"message"`
		ServerTime int64  `json:"serverTime"`
		Head       int64  `json:"head"`
		Epoch      string `json:"epoch"`
		Current    uint64 `json:"currentEpoch"`
		Group      uint64 `json:"groupEpoch"`
		Username   string `json:"username"`
		Missing    []int  `json:"missing"`
	}
	if err := json.NewDecoder(io.LimitReader(resp.Body, 64<<10)).Decode(&body); err != nil {
		e.Code, e.Message = "http_error", resp.Status
		return e
	}
	e.Code, e.Message, e.ServerTime, e.Head, e.Epoch = body.Error, body.Message, body.ServerTime, body.Head, body.Epoch
	e.CurrentEpoch, e.GroupEpoch, e.Username, e.Missing = body.Current, body.Group, body.Username, body.Missing
	if s, err := strconv.Atoi(resp.Header.Get("Retry-After")); err == nil {
		e.RetryAfter = time.Duration(s) * time.Second
	}
	return e
}

// Register creates an account and logs this client in.
func (c *Client) Register(ctx context.Context, username, password string, publicKey []byte) error {
	return c.Do(ctx, http.MethodPost, "/api/accounts", map[string]string{
		"username": username, "password": password, "publicKey": base64.StdEncoding.EncodeToString(publicKey),
	}, nil)
}

// RegisterWithInvite creates an account on a relay whose registration is
// by invite, spending a use of code.
func (c *Client) RegisterWithInvite(ctx context.Context, username, password string, publicKey []byte, code string) error {
	return c.Do(ctx, http.MethodPost, "/api/accounts", map[string]string{
		"username": username, "password": password, "publicKey": base64.StdEncoding.EncodeToString(publicKey), "invite": code,
	}, nil)
}

// Registration says who may create an account on the relay: "open",
// "invite" or "closed".
func (c *Client) Registration(ctx context.Context) (string, error) {
	var r struct {
		Mode string `json:"mode"`
	}
	err := c.Do(ctx, http.MethodGet, "/api/registration", nil, &r)
	return r.Mode, err
}

// Login opens a session and returns the account's public key.
func (c *Client) Login(ctx context.Context, username, password string) (Account, error) {
	var a Account
	err := c.Do(ctx, http.MethodPost, "/api/sessions", map[string]string{"username": username, "password": password}, &a)
	return a, err
}

// Logout ends this client's session.
func (c *Client) Logout(ctx context.Context) error {
	return c.Do(ctx, http.MethodDelete, "/api/sessions", nil, nil)
}

// Lookup reads an account's public key from the directory.
func (c *Client) Lookup(ctx context.Context, username string) (Account, error) {
	var a Account
	err := c.Do(ctx, http.MethodGet, "/api/accounts/"+username, nil, &a)
	return a, err
}

// AccountDevices lists the ids of username's live devices, in id order,
// speaking as c.Device.
func (c *Client) AccountDevices(ctx context.Context, username string) ([]string, error) {
	var out struct {
		Devices []string `json:"devices"`
	}
	err := c.Do(ctx, http.MethodGet, "/api/accounts/"+username+"/devices", nil, &out)
	return out.Devices, err
}

// AddDevice registers a device and returns its id. It does not set Device.
func (c *Client) AddDevice(ctx context.Context, name string, publicKey []byte) (string, error) {
	var out struct {
		ID string `json:"id"`
	}
	err := c.Do(ctx, http.MethodPost, "/api/devices", map[string]string{
		"name": name, "publicKey": base64.StdEncoding.EncodeToString(publicKey),
	}, &out)
	return out.ID, err
}

// Devices lists the account's live devices.
func (c *Client) Devices(ctx context.Context) ([]Device, error) {
	var out []Device
	err := c.Do(ctx, http.MethodGet, "/api/devices", nil, &out)
	return out, err
}

// Revoke revokes one of the account's devices.
func (c *Client) Revoke(ctx context.Context, id string) error {
	return c.Do(ctx, http.MethodDelete, "/api/devices/"+id, nil, nil)
}

// DeleteAccount deletes the account, with its password asked again
// (docs/protocol.md, "DELETE /api/account"). c must speak as a device.
func (c *Client) DeleteAccount(ctx context.Context, password string) error {
	return c.Do(ctx, http.MethodDelete, "/api/account", map[string]string{"password": password}, nil)
}

// RenameDevice gives one of the account's devices a new name.
func (c *Client) RenameDevice(ctx context.Context, id, name string) error {
	return c.Do(ctx, http.MethodPatch, "/api/devices/"+id, map[string]string{"name": name}, nil)
}

// MarkLinked reports that c.Device holds the account key.
func (c *Client) MarkLinked(ctx context.Context) error {
	return c.Do(ctx, http.MethodPatch, "/api/devices/"+c.Device, map[string]bool{"linked": true}, nil)
}

// PutRecovery stores or replaces the account's recovery blob.
func (c *Client) PutRecovery(ctx context.Context, blob []byte) error {
	return c.Do(ctx, http.MethodPut, "/api/recovery", map[string]string{"blob": base64.StdEncoding.EncodeToString(blob)}, nil)
}

// GetRecovery fetches the account's recovery blob.
func (c *Client) GetRecovery(ctx context.Context) (Recovery, error) {
	var out Recovery
	err := c.Do(ctx, http.MethodGet, "/api/recovery", nil, &out)
	return out, err
}

// DeleteRecovery deletes the account's recovery blob.
func (c *Client) DeleteRecovery(ctx context.Context) error {
	return c.Do(ctx, http.MethodDelete, "/api/recovery", nil, nil)
}

// ReplaceKey replaces the account's public key as c.Device, revoking the
// listed devices; the account's password is asked again; recovery is the blob that wraps the new key, or nil to
// leave the account without one. It returns the key the relay now serves.
func (c *Client) ReplaceKey(ctx context.Context, password string, publicKey []byte, revoke []string, recovery []byte) ([]byte, error) {
	in := map[string]any{"publicKey": base64.StdEncoding.EncodeToString(publicKey), "revoke": revoke, "password": password}
	if revoke == nil {
		in["revoke"] = []string{}
	}
	if recovery != nil {
		in["recovery"] = base64.StdEncoding.EncodeToString(recovery)
	}
	var out struct {
		PublicKey []byte `json:"publicKey"`
	}
	err := c.Do(ctx, http.MethodPut, "/api/account/key", in, &out)
	return out.PublicKey, err
}

// Contacts lists the account's contacts.
func (c *Client) Contacts(ctx context.Context) ([]Contact, error) {
	var out []Contact
	err := c.Do(ctx, http.MethodGet, "/api/contacts", nil, &out)
	return out, err
}

// Send posts an envelope as c.Device. id is a canonical ULID; body is the
// ciphertext.
func (c *Client) Send(ctx context.Context, id, to string, body []byte) (Accepted, error) {
	var a Accepted
	err := c.Do(ctx, http.MethodPost, "/api/messages", map[string]string{
		"id": id, "to": to, "body": base64.StdEncoding.EncodeToString(body),
	}, &a)
	return a, err
}

// SendReceipt posts an envelope marked as a receipt ("kind": "receipt"):
// the relay takes its rate-limit token from the bucket for receipts, not
// from the one for messages (docs/protocol.md, "Rate limit").
func (c *Client) SendReceipt(ctx context.Context, id, to string, body []byte) (Accepted, error) {
	var a Accepted
	err := c.Do(ctx, http.MethodPost, "/api/messages", map[string]string{
		"id": id, "to": to, "body": base64.StdEncoding.EncodeToString(body), "kind": "receipt",
	}, &a)
	return a, err
}

// SendCommit posts an envelope marked as an MLS commit ("kind":
// "commit"): body is one MLSMessage, and the relay accepts it only at its
// group's current epoch; otherwise the Error is stale_epoch with the
// epoch in CurrentEpoch (docs/protocol.md, "POST /api/messages").
func (c *Client) SendCommit(ctx context.Context, id, to string, body []byte) (Accepted, error) {
	var a Accepted
	err := c.Do(ctx, http.MethodPost, "/api/messages", map[string]string{
		"id": id, "to": to, "body": base64.StdEncoding.EncodeToString(body), "kind": "commit",
	}, &a)
	return a, err
}

// SendWelcome posts an envelope marked as an MLS Welcome ("kind":
// "welcome"): body is one MLSMessage of wire format mls_welcome, or the
// Error is bad_welcome. Commits and welcomes take their rate-limit token
// from the bucket for group upkeep (docs/protocol.md, "Rate limit").
func (c *Client) SendWelcome(ctx context.Context, id, to string, body []byte) (Accepted, error) {
	var a Accepted
	err := c.Do(ctx, http.MethodPost, "/api/messages", map[string]string{
		"id": id, "to": to, "body": base64.StdEncoding.EncodeToString(body), "kind": "welcome",
	}, &a)
	return a, err
}

// SentTo is the answer to a send to a list of accounts: Deleted names
// the listed accounts that were deleted, which the envelope skipped
// (empty when none was, and in the answer to a resend).
type SentTo struct {
	Accepted
	Deleted []string `json:"deleted"`
}

// SendTo posts one envelope to a list of accounts, a group's members
// (docs/protocol.md, "POST /api/messages"; ADR 0106): the relay queues a
// copy for every device of each, and for c's account's other devices.
// kind is "" for a message, or "receipt", "commit" or "welcome". The
// list's order is part of the envelope: a resend must list the names in
// the same order.
func (c *Client) SendTo(ctx context.Context, id string, to []string, body []byte, kind string) (SentTo, error) {
	req := map[string]any{"id": id, "to": to, "body": base64.StdEncoding.EncodeToString(body)}
	if kind != "" {
		req["kind"] = kind
	}
	var a SentTo
	err := c.Do(ctx, http.MethodPost, "/api/messages", req, &a)
	return a, err
}

// Ack deletes c.Device's queued envelopes up to and including seq upTo.
func (c *Client) Ack(ctx context.Context, upTo int64) error {
	return c.Do(ctx, http.MethodPost, "/api/ack", map[string]int64{"upTo": upTo}, nil)
}

// AckEpoch is Ack for a cursor of the given epoch (the one the stream or
// the queue page told): when the relay's epoch is another, it deletes
// nothing and answers epoch_changed, whose Error carries the epoch now
// (docs/protocol.md, "A history that went back").
func (c *Client) AckEpoch(ctx context.Context, upTo int64, epoch string) error {
	return c.Do(ctx, http.MethodPost, "/api/ack", map[string]any{"upTo": upTo, "epoch": epoch}, nil)
}
