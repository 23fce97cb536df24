package relay

import (
	"encoding/base64"
	"errors"
	"math"
	"net/http"
	"strconv"
	"strings"
	"time"

	"relay/attachments"
	"relay/canonical"
)

// The attachment endpoints (docs/protocol.md, "Attachments"; ADR 0107):
// a device uploads an attachment's ciphertext in parts, finishes it, and
// any device that knows its id downloads it, whole or by range. The bytes
// are opaque to the relay (package attachments).

// maxPartRequest bounds a part's body: a part is at most
// attachments.PartSize bytes, sent raw.
const maxPartRequest = attachments.PartSize

type attachmentJSON struct {
	ID       string `json:"id"`
	Size     int64  `json:"size"`
	PartSize int    `json:"partSize"`
	Parts    int    `json:"parts"`
	Finished bool   `json:"finished"`
	// ExpiresAt is when the relay deletes it: the end of the upload
	// window, or of the retention once finished (Unix milliseconds).
	ExpiresAt int64 `json:"expiresAt"`
	// Received lists the parts held, for an upload that resumes; only in
	// the answer of GET /api/attachments/:id/parts.
	Received []int `json:"received,omitempty"`
}

func toAttachmentJSON(a attachments.Attachment) attachmentJSON {
	return attachmentJSON{ID: formatAttachmentID(a.ID), Size: a.Size, PartSize: a.PartSize, Parts: a.Parts(),
		Finished: a.Finished, ExpiresAt: a.Expires.UnixMilli()}
}

// POST /api/attachments
func (s *Server) createAttachment(w http.ResponseWriter, r *http.Request, in *checked) error {
	size, err := parseAttachmentSize(in.body)
	if err != nil {
		return err
	}
	if size > s.cfg.AttachmentMaxSize {
		return codeAttachmentTooLarge.errorf("an attachment is at most %d bytes on this relay", s.cfg.AttachmentMaxSize)
	}
	if res, retry := s.uploadLimits.reserve(in.account.ID, s.now()); res == nil {
		return retryAfter(codeRateLimited.errorf("too many attachments started by this account; retry in %d s", retry), retry)
	}
	a, err := s.attachments.Create(r.Context(), in.account.ID, size, s.now())
	if err != nil {
		return attachmentError(err)
	}
	writeJSON(w, http.StatusCreated, toAttachmentJSON(a))
	return nil
}

// PUT /api/attachments/:id/parts/:n
func (s *Server) putAttachmentPart(w http.ResponseWriter, r *http.Request, in *checked) error {
	id, err := attachmentID(in)
	if err != nil {
		return err
	}
	n, err := parsePartIndex(in.params.ByName("n"))
	if err != nil {
		return err
	}
	if err := s.attachments.PutPart(r.Context(), in.account.ID, id, n, in.body, s.now()); err != nil {
		return attachmentError(err)
	}
	w.WriteHeader(http.StatusNoContent)
	return nil
}

// GET /api/attachments/:id/parts
func (s *Server) attachmentParts(w http.ResponseWriter, r *http.Request, in *checked) error {
	id, err := attachmentID(in)
	if err != nil {
		return err
	}
	a, got, err := s.attachments.Received(r.Context(), in.account.ID, id, s.now())
	if err != nil {
		return attachmentError(err)
	}
	out := toAttachmentJSON(a)
	out.Received = got
	if out.Received == nil {
		out.Received = []int{}
	}
	writeJSON(w, http.StatusOK, out)
	return nil
}

// POST /api/attachments/:id/finish
func (s *Server) finishAttachment(w http.ResponseWriter, r *http.Request, in *checked) error {
	id, err := attachmentID(in)
	if err != nil {
		return err
	}
	to, device, err := parseFinish(in.body, s.cfg.MaxRecipients)
	if err != nil {
		return err
	}
	a, err := s.attachments.Finish(r.Context(), in.account.ID, id, attachments.Fetchers{To: to, Device: in.device, For: device}, s.now())
	if err != nil {
		return attachmentError(err)
	}
	writeJSON(w, http.StatusOK, toAttachmentJSON(a))
	return nil
}

// DELETE /api/attachments/:id
func (s *Server) deleteAttachment(w http.ResponseWriter, r *http.Request, in *checked) error {
	id, err := attachmentID(in)
	if err != nil {
		return err
	}
	if err := s.attachments.Delete(r.Context(), in.account.ID, id); err != nil {
		return attachmentError(err)
	}
	w.WriteHeader(http.StatusNoContent)
	return nil
}

// GET /api/attachments/:id: the ciphertext, whole (200) or the one range
// asked (206), as application/octet-stream.
func (s *Server) getAttachment(w http.ResponseWriter, r *http.Request, in *checked) error {
	id, err := attachmentID(in)
	if err != nil {
		return err
	}
	a, err := s.attachments.Get(r.Context(), in.account.ID, id, s.now())
	if err != nil {
		return attachmentError(err)
	}
	off, n, partial, err := parseRange(r.Header.Values("Range"), a.Size)
	if err != nil {
		return err
	}
	h := w.Header()
	h.Set("Content-Type", "application/octet-stream")
	// Never shown by a browser that opens the URL: saved, as bytes.
	h.Set("Content-Disposition", "attachment")
	h.Set("Accept-Ranges", "bytes")
	h.Set("Content-Length", strconv.FormatInt(n, 10))
	status := http.StatusOK
	if partial {
		h.Set("Content-Range", "bytes "+strconv.FormatInt(off, 10)+"-"+strconv.FormatInt(off+n-1, 10)+"/"+strconv.FormatInt(a.Size, 10))
		status = http.StatusPartialContent
	}
	w.WriteHeader(status)
	// A write deadline per part, as for a stream's writes: a reader that
	// stopped reading is cut off instead of holding a connection.
	rc := http.NewResponseController(w)
	if err := s.attachments.Read(r.Context(), a, off, n, deadlineWriter{w: w, rc: rc, d: s.cfg.StreamWriteTimeout}); err != nil {
		// The headers are sent: the short body, against its
		// Content-Length, tells the client, whose download resumes by
		// range or fails.
		if r.Context().Err() == nil && !errors.Is(err, attachments.ErrUnknown) {
			s.log.Warn("reading an attachment", "request_id", requestID(r), "err", err)
		}
		return nil
	}
	return nil
}

// POST /api/attachments/:id/received: the device speaking has the
// attachment and checked it; once every device it waits for said so, it
// goes. The relay cannot tell from a download that a device has it: bytes
// written may never arrive, and bytes that arrive may fail their digest.
func (s *Server) attachmentReceived(w http.ResponseWriter, r *http.Request, in *checked) error {
	id, err := attachmentID(in)
	if err != nil {
		return err
	}
	if _, err := s.attachments.Fetched(r.Context(), id, in.device, s.now()); err != nil {
		return attachmentError(err)
	}
	w.WriteHeader(http.StatusNoContent)
	return nil
}

// deadlineWriter sets a write deadline before each write.
type deadlineWriter struct {
	w  http.ResponseWriter
	rc *http.ResponseController
	d  time.Duration
}

func (dw deadlineWriter) Write(p []byte) (int, error) {
	_ = dw.rc.SetWriteDeadline(time.Now().Add(dw.d))
	n, err := dw.w.Write(p)
	if err == nil {
		err = dw.rc.Flush()
	}
	return n, err
}

// attachmentError is the API error of an error of package attachments.
func attachmentError(err error) error {
	var tooLarge *attachments.TooLargeError
	var quota *attachments.QuotaError
	var part *attachments.PartError
	var incomplete *attachments.IncompleteError
	var unknownAccount *attachments.UnknownAccountError
	switch {
	case errors.Is(err, attachments.ErrUnknown):
		return errUnknownAttachment
	case errors.Is(err, attachments.ErrFinished):
		return codeAttachmentFinished.err()
	case errors.Is(err, attachments.ErrAccountGone):
		return errAccountDeleted
	case errors.Is(err, attachments.ErrUnknownDevice):
		return errUnknownDevice
	case errors.As(err, &tooLarge):
		return codeAttachmentTooLarge.errorf("an attachment is at most %d bytes on this relay", tooLarge.Max)
	case errors.As(err, &quota):
		ae := codeAttachmentQuota.errorf("this account stores %d bytes of attachments, and may store %d: delete some, or wait for them to expire", quota.Used, quota.Quota)
		ae.extra = map[string]any{"used": quota.Used, "quota": quota.Quota}
		return ae
	case errors.As(err, &part):
		if part.N >= part.Parts {
			return codeBadPart.errorf("the attachment has parts 0 to %d", part.Parts-1)
		}
		return codeBadPart.errorf("part %d must be %d bytes", part.N, part.Want)
	case errors.As(err, &unknownAccount):
		return unknownRecipient(unknownAccount.Username)
	case errors.As(err, &incomplete):
		ae := codeAttachmentIncomplete.errorf("%d parts of the attachment have not arrived; send them, then finish it", len(incomplete.Missing))
		ae.extra = map[string]any{"missing": incomplete.Missing}
		return ae
	}
	return err
}

// attachmentID reads the attachment id in the path.
func attachmentID(in *checked) ([]byte, error) {
	id, ok := parseAttachmentID(in.params.ByName("id"))
	if !ok {
		return nil, errBadAttachment
	}
	return id, nil
}

var attachmentIDLen = base64.RawURLEncoding.EncodedLen(attachments.IDSize)

// parseAttachmentID reads an attachment id as the API spells it: exactly
// 22 characters of unpadded base64url, trailing bits zero, so that one
// attachment has one spelling.
func parseAttachmentID(s string) ([]byte, bool) {
	// The length first: the decoder skips line breaks.
	if len(s) != attachmentIDLen {
		return nil, false
	}
	b, err := base64.RawURLEncoding.Strict().DecodeString(s)
	if err != nil || len(b) != attachments.IDSize {
		return nil, false
	}
	return b, true
}

func formatAttachmentID(id []byte) string { return base64.RawURLEncoding.EncodeToString(id) }

// parseAttachmentSize reads the body of POST /api/attachments:
// {"size": n}, n an integer of 1 or more; the relay's limit is checked
// after.
func parseAttachmentSize(data []byte) (int64, error) {
	var body struct {
		Size *int64 `json:"size"`
	}
	if err := decodeJSON(data, &body); err != nil {
		return 0, err
	}
	if body.Size == nil || *body.Size < 1 {
		return 0, codeBadAttachmentSize.err()
	}
	return *body.Size, nil
}

// parseFinish reads the body of a finish: none (nil lists, no device),
// {"to": [usernames]}, at most max of them, each a valid username (a
// list, even empty, makes the attachment wait for the devices it names,
// attachments.Fetchers), or {"device": a device id}, for a transfer to
// that one device; not both.
func parseFinish(data []byte, max int) ([]string, string, error) {
	if len(data) == 0 {
		return nil, "", nil
	}
	var body struct {
		To     *[]string `json:"to"`
		Device *string   `json:"device"`
	}
	if err := decodeJSON(data, &body); err != nil {
		return nil, "", err
	}
	if body.Device != nil {
		if body.To != nil {
			return nil, "", codeBadFinish.err()
		}
		if _, err := canonical.ParseULID(*body.Device); err != nil {
			return nil, "", codeBadFinish.err()
		}
		return nil, *body.Device, nil
	}
	if body.To == nil {
		return nil, "", nil
	}
	if len(*body.To) > max {
		return nil, "", codeTooManyRecipients.errorf("a list in \"to\" names at most %d usernames on this relay", max)
	}
	for _, u := range *body.To {
		if !canonical.ValidUsername(u) {
			return nil, "", errBadUsername
		}
	}
	return append([]string{}, *body.To...), "", nil
}

// parsePartIndex reads a part's index in the path: plain decimal, no sign,
// no leading zero, below 2^31.
func parsePartIndex(s string) (int, error) {
	if s == "" || len(s) > 10 || (len(s) > 1 && s[0] == '0') || strings.TrimLeft(s, "0123456789") != "" {
		return 0, codeBadPart.errorf("a part index is a plain decimal number from 0")
	}
	n, err := strconv.ParseInt(s, 10, 32)
	if err != nil {
		return 0, codeBadPart.errorf("a part index is a plain decimal number from 0")
	}
	return int(n), nil
}

// parseRange reads the Range header of a download of size bytes: none is
// the whole (partial false); one range of bytes, "a-b", "a-" or "-n",
// is that range, clipped to the size (RFC 9110, section 14.1.2). Several
// ranges, another unit, or a range that does not parse or starts past the
// end is 416 bad_range, which names the size.
func parseRange(values []string, size int64) (off, n int64, partial bool, err error) {
	if len(values) == 0 {
		return 0, size, false, nil
	}
	bad := func() (int64, int64, bool, error) {
		ae := codeBadRange.errorf("a download takes one range, bytes=first-last, bytes=first- or bytes=-suffix, within the %d bytes of the attachment", size)
		ae.header = map[string]string{"Content-Range": "bytes */" + strconv.FormatInt(size, 10)}
		return 0, 0, false, ae
	}
	spec, ok := strings.CutPrefix(values[0], "bytes=")
	if len(values) > 1 || !ok {
		return bad()
	}
	first, last, ok := strings.Cut(spec, "-")
	if !ok {
		return bad()
	}
	num := func(s string) (int64, bool) {
		if s == "" || len(s) > 19 || strings.TrimLeft(s, "0123456789") != "" {
			return 0, false
		}
		v, err := strconv.ParseInt(s, 10, 64)
		return v, err == nil
	}
	if first == "" {
		k, ok := num(last)
		if !ok || k == 0 {
			return bad()
		}
		k = min(k, size)
		return size - k, k, true, nil
	}
	a, ok := num(first)
	if !ok || a >= size {
		return bad()
	}
	b := int64(math.MaxInt64)
	if last != "" {
		if b, ok = num(last); !ok || b < a {
			return bad()
		}
	}
	b = min(b, size-1)
	return a, b - a + 1, true, nil
}
