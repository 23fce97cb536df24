package relay_test

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"relay/attachments"
	"relay/relay"
	"relay/relayclient"
)

func withAttachmentLimits(maxSize, quota int64, perMinute int) option {
	return func(c *relay.Config) {
		c.AttachmentMaxSize, c.AttachmentQuota, c.AttachmentsPerMinute = maxSize, quota, perMinute
	}
}

// download reads attachment id with rangeHeader, and returns the answer's
// status, its Content-Range and its body.
func download(t *testing.T, c *relayclient.Client, id, rangeHeader string) (int, string, []byte) {
	t.Helper()
	resp, err := c.DownloadAttachment(context.Background(), id, rangeHeader)
	if err != nil {
		t.Fatalf("download %q: %v", rangeHeader, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	if ct := resp.Header.Get("Content-Type"); ct != "application/octet-stream" {
		t.Fatalf("Content-Type %q", ct)
	}
	if cd := resp.Header.Get("Content-Disposition"); cd != "attachment" {
		t.Fatalf("Content-Disposition %q", cd)
	}
	return resp.StatusCode, resp.Header.Get("Content-Range"), b
}

// TestAttachmentRoundTrip: alice uploads an attachment of three parts;
// bob, another account that knows its id, downloads it whole and by
// ranges, within a part, across two parts, to the end and from the end.
// A range that cannot be served is 416 bad_range and names the size; a
// range the relay ignores never happens silently.
func TestAttachmentRoundTrip(t *testing.T) {
	s := newTestServer(t)
	ctx := context.Background()
	alice := s.register(t, "alice", 1)
	bob := s.register(t, "bob", 1)
	data := randomBytes(t, 2*attachments.PartSize+1000)
	a, err := alice.device(0).UploadAttachment(ctx, data)
	if err != nil {
		t.Fatal(err)
	}
	if !a.Finished || a.Parts != 3 || a.Size != int64(len(data)) || a.PartSize != attachments.PartSize || len(a.ID) != 22 {
		t.Fatalf("finished attachment %+v", a)
	}
	if got := time.UnixMilli(a.ExpiresAt); got.Sub(s.Clock.Now()) < 44*24*time.Hour {
		t.Fatalf("expires at %v, want 45 days on", got)
	}
	status, _, body := download(t, bob.device(0), a.ID, "")
	if status != http.StatusOK || !bytes.Equal(body, data) {
		t.Fatalf("whole: %d, %d bytes, equal %v", status, len(body), bytes.Equal(body, data))
	}
	size := int64(len(data))
	p := int64(attachments.PartSize)
	for _, tc := range []struct {
		rng      string
		from, to int64 // inclusive
	}{
		{"bytes=0-9", 0, 9},
		{"bytes=100-100", 100, 100},
		{"bytes=" + itoa(p-5) + "-" + itoa(p+4), p - 5, p + 4}, // across parts 0 and 1
		{"bytes=" + itoa(p) + "-", p, size - 1},                // to the end, over two parts
		{"bytes=-7", size - 7, size - 1},
		{"bytes=-999999999", 0, size - 1}, // a suffix longer than the whole
		{"bytes=10-999999999", 10, size - 1},
	} {
		status, cr, body := download(t, bob.device(0), a.ID, tc.rng)
		want := data[tc.from : tc.to+1]
		if status != http.StatusPartialContent || !bytes.Equal(body, want) || cr != "bytes "+itoa(tc.from)+"-"+itoa(tc.to)+"/"+itoa(size) {
			t.Errorf("%s: %d %q, %d bytes, equal %v", tc.rng, status, cr, len(body), bytes.Equal(body, want))
		}
	}
	for _, rng := range []string{"bytes=" + itoa(size) + "-", "bytes=5-2", "bytes=0-1,5-6", "items=0-1", "bytes=-0", "bytes=x-", "bytes=+1-2", "bytes= 1-2"} {
		_, err := bob.device(0).DownloadAttachment(ctx, a.ID, rng)
		var e *relayclient.Error
		if !errors.As(err, &e) || e.Status != http.StatusRequestedRangeNotSatisfiable || e.Code != "bad_range" {
			t.Errorf("%s: %v, want 416 bad_range", rng, err)
		}
	}
	// The 416's Content-Range names the size, as RFC 9110 asks.
	req, _ := http.NewRequest(http.MethodGet, s.URL+"/api/attachments/"+a.ID, nil)
	req.Header.Set("Range", "bytes=99999999-")
	req.Header.Set("X-Device", bob.Devices[0])
	resp, err := bob.Client.HTTP.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if got := resp.Header.Get("Content-Range"); got != "bytes */"+itoa(size) {
		t.Fatalf("416 Content-Range %q", got)
	}
}

func itoa(n int64) string { return strconv.FormatInt(n, 10) }

// TestAttachmentUploadResumes: an upload whose parts arrive out of order
// and with gaps says which it holds; finishing it early is 409
// attachment_incomplete with the missing parts, and nobody can read it
// (bob: unknown_attachment; alice: attachment_incomplete). A part sent
// again replaces the first; once every part is there it finishes, twice
// without harm, and a part after that is 409 attachment_finished.
func TestAttachmentUploadResumes(t *testing.T) {
	s := newTestServer(t)
	ctx := context.Background()
	alice := s.register(t, "alice", 2)
	bob := s.register(t, "bob", 1)
	data := randomBytes(t, 3*attachments.PartSize)
	part := func(n int) []byte { return data[n*attachments.PartSize : (n+1)*attachments.PartSize] }
	a, err := alice.device(0).CreateAttachment(ctx, int64(len(data)))
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range []int{2, 0} {
		if err := alice.device(0).PutAttachmentPart(ctx, a.ID, n, part(n)); err != nil {
			t.Fatal(err)
		}
	}
	// Another device of alice's resumes the upload: it asks what is there.
	got, err := alice.device(1).AttachmentParts(ctx, a.ID)
	if err != nil || !slices.Equal(got.Received, []int{0, 2}) || got.Finished || got.Parts != 3 {
		t.Fatalf("parts %+v (%v), want 0 and 2 of 3", got, err)
	}
	_, err = alice.device(1).FinishAttachment(ctx, a.ID)
	var e *relayclient.Error
	if !errors.As(err, &e) || e.Code != "attachment_incomplete" || e.Status != http.StatusConflict || !slices.Equal(e.Missing, []int{1}) {
		t.Fatalf("early finish: %v (%+v), want 409 attachment_incomplete missing [1]", err, e)
	}
	_, err = bob.device(0).DownloadAttachment(ctx, a.ID, "")
	wantCode(t, err, "unknown_attachment")
	_, err = alice.device(0).DownloadAttachment(ctx, a.ID, "")
	wantCode(t, err, "attachment_incomplete")
	_, err = bob.device(0).AttachmentParts(ctx, a.ID)
	wantCode(t, err, "unknown_attachment")

	// Part 0 again, first with other bytes and then with its own: the
	// last one sent is kept.
	if err := alice.device(1).PutAttachmentPart(ctx, a.ID, 0, part(1)); err != nil {
		t.Fatal(err)
	}
	for _, n := range []int{0, 1} {
		if err := alice.device(1).PutAttachmentPart(ctx, a.ID, n, part(n)); err != nil {
			t.Fatal(err)
		}
	}
	for range 2 {
		if f, err := alice.device(1).FinishAttachment(ctx, a.ID); err != nil || !f.Finished {
			t.Fatalf("finish: %+v, %v", f, err)
		}
	}
	if b, err := bob.device(0).ReadAttachment(ctx, a.ID); err != nil || !bytes.Equal(b, data) {
		t.Fatalf("read after resuming: %v, equal %v", err, bytes.Equal(b, data))
	}
	err = alice.device(0).PutAttachmentPart(ctx, a.ID, 0, part(0))
	wantCode(t, err, "attachment_finished")
	if n := s.count(t, `SELECT count(*) FROM attachment_parts`); n != 3 {
		t.Fatalf("%d part rows, want 3", n)
	}
}

// TestAttachmentPartChecks: a part of the wrong length, an index past the
// last or not in plain decimal, an id that is not one, another account's
// attachment, and a body over a part's size are each refused with their
// code, and store nothing; the controls are accepted.
func TestAttachmentPartChecks(t *testing.T) {
	s := newTestServer(t)
	ctx := context.Background()
	alice := s.register(t, "alice", 1)
	bob := s.register(t, "bob", 1)
	a, err := alice.device(0).CreateAttachment(ctx, attachments.PartSize+10)
	if err != nil {
		t.Fatal(err)
	}
	put := func(c *relayclient.Client, id, n string, body []byte) error {
		req, _ := http.NewRequest(http.MethodPut, s.URL+"/api/attachments/"+id+"/parts/"+n, bytes.NewReader(body))
		req.Header.Set("Origin", s.URL)
		req.Header.Set("X-Device", c.Device)
		resp, err := c.HTTP.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		if resp.StatusCode == http.StatusNoContent {
			return nil
		}
		b, _ := io.ReadAll(resp.Body)
		return errors.New(resp.Status + " " + string(b))
	}
	full, last := make([]byte, attachments.PartSize), make([]byte, 10)
	for _, tc := range []struct {
		c    *relayclient.Client
		id   string
		n    string
		body []byte
		code string
	}{
		{alice.device(0), a.ID, "1", make([]byte, 11), "bad_part"},
		{alice.device(0), a.ID, "0", make([]byte, 10), "bad_part"},
		{alice.device(0), a.ID, "2", last, "bad_part"},
		{alice.device(0), a.ID, "01", last, "bad_part"},
		{alice.device(0), a.ID, "-1", last, "bad_part"},
		{alice.device(0), a.ID, "1x", last, "bad_part"},
		{alice.device(0), a.ID, "99999999999", last, "bad_part"},
		{alice.device(0), a.ID[:21], "1", last, "bad_attachment"},
		{alice.device(0), a.ID + "A", "1", last, "bad_attachment"},
		{alice.device(0), strings.Repeat("A", 22), "1", last, "unknown_attachment"},
		{bob.device(0), a.ID, "1", last, "unknown_attachment"},
		{alice.device(0), a.ID, "0", make([]byte, attachments.PartSize+1), "too_large"},
	} {
		err := put(tc.c, tc.id, tc.n, tc.body)
		if err == nil || !strings.Contains(err.Error(), `"error":"`+tc.code+`"`) {
			t.Errorf("part %q of %q (%d bytes): %v, want %s", tc.n, tc.id, len(tc.body), err, tc.code)
		}
	}
	if n := s.count(t, `SELECT count(*) FROM attachment_parts`); n != 0 {
		t.Fatalf("%d parts stored by refused requests", n)
	}
	// The controls.
	if err := put(alice.device(0), a.ID, "1", last); err != nil {
		t.Fatal(err)
	}
	if err := put(alice.device(0), a.ID, "0", full); err != nil {
		t.Fatal(err)
	}
	// An id spelled with its trailing bits set is not the same id.
	const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"
	id := []byte(a.ID)
	id[21] = alphabet[strings.IndexByte(alphabet, id[21])+1]
	if err := put(alice.device(0), string(id), "1", last); err == nil || !strings.Contains(err.Error(), "bad_attachment") {
		t.Fatalf("an id with trailing bits: %v", err)
	}
}

// TestAttachmentLimits: an attachment over the size limit is 413
// attachment_too_large; one that would take the account past its quota
// is 403 attachment_quota_exceeded, until the account deletes one (the
// control); starting more uploads a minute than allowed is 429
// rate_limited with Retry-After. Another account's quota is its own.
func TestAttachmentLimits(t *testing.T) {
	s := newTestServer(t, withAttachmentLimits(1000, 2500, 4))
	ctx := context.Background()
	alice := s.register(t, "alice", 1)
	bob := s.register(t, "bob", 1)
	_, err := alice.device(0).CreateAttachment(ctx, 1001)
	var e *relayclient.Error
	if !errors.As(err, &e) || e.Status != http.StatusRequestEntityTooLarge || e.Code != "attachment_too_large" {
		t.Fatalf("over the size: %v", err)
	}
	first, err := alice.device(0).UploadAttachment(ctx, randomBytes(t, 1000))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := alice.device(0).CreateAttachment(ctx, 1000); err != nil { // unfinished counts too
		t.Fatal(err)
	}
	_, err = alice.device(0).CreateAttachment(ctx, 501)
	if !errors.As(err, &e) || e.Status != http.StatusForbidden || e.Code != "attachment_quota_exceeded" {
		t.Fatalf("over the quota: %v", err)
	}
	if _, err := bob.device(0).CreateAttachment(ctx, 1000); err != nil {
		t.Fatalf("bob's quota is his own: %v", err)
	}
	if err := alice.device(0).DeleteAttachment(ctx, first.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := alice.device(0).CreateAttachment(ctx, 1000); err != nil {
		t.Fatalf("after a deletion: %v", err)
	}
	// Five starts for alice so far with the one refused for its size, the
	// budget is four a minute: two were refused before it was taken.
	_, err = alice.device(0).CreateAttachment(ctx, 1)
	if !errors.As(err, &e) || e.Status != http.StatusTooManyRequests || e.Code != "rate_limited" || e.RetryAfter <= 0 {
		t.Fatalf("over the rate: %v", err)
	}
	s.Clock.Advance(time.Minute)
	if _, err := alice.device(0).CreateAttachment(ctx, 1); err != nil {
		t.Fatalf("a minute later: %v", err)
	}
}

// TestAttachmentExpiry: an upload not finished within its window goes,
// parts and all; a finished attachment is readable until its age limit
// and then goes; the purge deletes the rows. The controls read each one
// just before its time.
func TestAttachmentExpiry(t *testing.T) {
	s := newTestServer(t)
	ctx := context.Background()
	alice := s.register(t, "alice", 1)
	bob := s.register(t, "bob", 1)
	open, err := alice.device(0).CreateAttachment(ctx, 20)
	if err != nil {
		t.Fatal(err)
	}
	if err := alice.device(0).PutAttachmentPart(ctx, open.ID, 0, randomBytes(t, 20)); err != nil {
		t.Fatal(err)
	}
	done, err := alice.device(0).UploadAttachment(ctx, []byte("the ciphertext of a photo"))
	if err != nil {
		t.Fatal(err)
	}
	s.Clock.Advance(attachments.UploadWindow - time.Second)
	if _, err := alice.device(0).AttachmentParts(ctx, open.ID); err != nil {
		t.Fatalf("within the window: %v", err)
	}
	s.Clock.Advance(time.Second)
	_, err = alice.device(0).FinishAttachment(ctx, open.ID)
	wantCode(t, err, "unknown_attachment")
	s.Clock.Advance(attachments.DefaultMaxAge - attachments.UploadWindow - time.Second)
	if _, err := bob.Client.Login(ctx, "bob", password); err != nil { // his session expired
		t.Fatal(err)
	}
	if b, err := bob.device(0).ReadAttachment(ctx, done.ID); err != nil || string(b) != "the ciphertext of a photo" {
		t.Fatalf("before its age limit: %q, %v", b, err)
	}
	s.Clock.Advance(time.Second)
	_, err = bob.device(0).DownloadAttachment(ctx, done.ID, "")
	wantCode(t, err, "unknown_attachment")
	if n := s.count(t, `SELECT count(*) FROM attachments`); n != 2 {
		t.Fatalf("%d attachment rows before the purge, want 2", n)
	}
	s.Relay.PurgeQueues(ctx)
	if n := s.count(t, `SELECT count(*) FROM attachments`) + s.count(t, `SELECT count(*) FROM attachment_parts`); n != 0 {
		t.Fatalf("%d rows left after the purge", n)
	}
}

// TestAttachmentDelete: only a device of the uploading account deletes an
// attachment (bob's attempt is unknown_attachment and changes nothing);
// then nobody reads it, and no part is left.
func TestAttachmentDelete(t *testing.T) {
	s := newTestServer(t)
	ctx := context.Background()
	alice := s.register(t, "alice", 2)
	bob := s.register(t, "bob", 1)
	a, err := alice.device(0).UploadAttachment(ctx, randomBytes(t, attachments.PartSize+1))
	if err != nil {
		t.Fatal(err)
	}
	wantCode(t, bob.device(0).DeleteAttachment(ctx, a.ID), "unknown_attachment")
	if _, err := bob.device(0).ReadAttachment(ctx, a.ID); err != nil {
		t.Fatalf("after bob's attempt: %v", err)
	}
	if err := alice.device(1).DeleteAttachment(ctx, a.ID); err != nil {
		t.Fatal(err)
	}
	_, err = bob.device(0).DownloadAttachment(ctx, a.ID, "")
	wantCode(t, err, "unknown_attachment")
	wantCode(t, alice.device(0).DeleteAttachment(ctx, a.ID), "unknown_attachment")
	if n := s.count(t, `SELECT count(*) FROM attachment_parts`); n != 0 {
		t.Fatalf("%d parts left", n)
	}
}

// TestAttachmentsOutliveTheQueue: a relay whose attachments would go
// before the queue's envelopes that name them does not start.
func TestAttachmentsOutliveTheQueue(t *testing.T) {
	s := newTestServer(t)
	cfg := relay.Config{Pool: s.Pool, BaseURL: "http://127.0.0.1:1", QueueMaxAge: 30 * 24 * time.Hour, AttachmentMaxAge: 29 * 24 * time.Hour}
	if _, err := relay.New(cfg); err == nil || !strings.Contains(err.Error(), "attachments must be kept") {
		t.Fatalf("New: %v", err)
	}
	cfg.AttachmentMaxAge = cfg.QueueMaxAge
	srv, err := relay.New(cfg)
	if err != nil {
		t.Fatalf("the control: %v", err)
	}
	if err := srv.Close(); err != nil {
		t.Fatal(err)
	}
}

// TestAttachmentGoneOnceFetched: an attachment finished for bob goes once
// each device it waits for has said it has it (POST …/received): bob's
// two devices and alice's other device, not the one that uploaded it. A
// download alone, even to the last byte, does not count: bytes written
// may never arrive, and bytes that arrive may fail their digest. The
// control: one finished with no list stays after every confirmation. A
// revoked device is not waited for: the purge deletes what waited only
// for it.
func TestAttachmentGoneOnceFetched(t *testing.T) {
	s := newTestServer(t)
	ctx := context.Background()
	alice := s.register(t, "alice", 2)
	bob := s.register(t, "bob", 2)
	data := randomBytes(t, attachments.PartSize+100)
	upload := func(to []string) string {
		t.Helper()
		a, err := alice.device(0).CreateAttachment(ctx, int64(len(data)))
		if err != nil {
			t.Fatal(err)
		}
		for n := range a.Parts {
			if err := alice.device(0).PutAttachmentPart(ctx, a.ID, n, data[n*a.PartSize:min(len(data), (n+1)*a.PartSize)]); err != nil {
				t.Fatal(err)
			}
		}
		if to == nil {
			_, err = alice.device(0).FinishAttachment(ctx, a.ID)
		} else {
			_, err = alice.device(0).FinishAttachmentFor(ctx, a.ID, to)
		}
		if err != nil {
			t.Fatal(err)
		}
		return a.ID
	}
	got := func(c *relayclient.Client, id string) {
		t.Helper()
		if _, err := c.ReadAttachment(ctx, id); err != nil {
			t.Fatalf("download: %v", err)
		}
		if err := c.AttachmentReceived(ctx, id); err != nil {
			t.Fatalf("received: %v", err)
		}
	}
	listed, unlisted := upload([]string{"bob"}), upload(nil)
	if n := s.count(t, `SELECT count(*) FROM attachment_fetches`); n != 3 {
		t.Fatalf("%d devices waited for, want bob's two and alice's other one", n)
	}
	// Downloaded whole by every device, confirmed by none: it stays.
	for _, c := range []*relayclient.Client{bob.device(0), bob.device(1), alice.device(1)} {
		if _, err := c.ReadAttachment(ctx, listed); err != nil {
			t.Fatal(err)
		}
	}
	if n := s.count(t, `SELECT count(*) FROM attachment_fetches`); n != 3 {
		t.Fatalf("downloads alone crossed off devices: %d left of 3", n)
	}
	for _, id := range []string{listed, unlisted} {
		got(bob.device(0), id)
		got(alice.device(1), id)
		got(alice.device(0), id) // the uploader's own device is not waited for
	}
	got(bob.device(0), listed) // again: counted once
	if _, err := bob.device(1).ReadAttachment(ctx, listed); err != nil {
		t.Fatalf("before bob's second device said it has it: %v", err)
	}
	if err := bob.device(1).AttachmentReceived(ctx, listed); err != nil {
		t.Fatal(err)
	}
	// That was the last device waited for.
	_, err := bob.device(0).DownloadAttachment(ctx, listed, "")
	wantCode(t, err, "unknown_attachment")
	wantCode(t, bob.device(0).AttachmentReceived(ctx, listed), "unknown_attachment")
	if _, err := bob.device(0).ReadAttachment(ctx, unlisted); err != nil {
		t.Fatalf("the control, finished with no list: %v", err)
	}

	// Waiting for bob's device 1 only, which is then revoked.
	last := upload([]string{"bob"})
	got(bob.device(0), last)
	got(alice.device(1), last)
	if err := bob.device(0).Revoke(ctx, bob.Devices[1]); err != nil {
		t.Fatal(err)
	}
	if _, err := bob.device(0).ReadAttachment(ctx, last); err != nil {
		t.Fatalf("before the purge: %v", err)
	}
	s.Relay.PurgeQueues(ctx)
	_, err = bob.device(0).DownloadAttachment(ctx, last, "")
	wantCode(t, err, "unknown_attachment")
	if _, err := bob.device(0).ReadAttachment(ctx, unlisted); err != nil {
		t.Fatalf("the control after the purge: %v", err)
	}

	// An unfinished attachment cannot be confirmed: it is unknown.
	a, err := alice.device(0).CreateAttachment(ctx, 5)
	if err != nil {
		t.Fatal(err)
	}
	wantCode(t, bob.device(0).AttachmentReceived(ctx, a.ID), "unknown_attachment")
}

// TestAttachmentFinishList: the list is checked before anything changes:
// a name no account has is 404 unknown_recipient naming it, a malformed
// one 400 bad_username, too many 400 too_many_recipients; the control, a
// good list, finishes it.
func TestAttachmentFinishList(t *testing.T) {
	s := newTestServer(t, func(c *relay.Config) { c.MaxRecipients, c.FanoutRatePerMinute = 2, 100 })
	ctx := context.Background()
	alice := s.register(t, "alice", 1)
	s.register(t, "bob", 1)
	a, err := alice.device(0).CreateAttachment(ctx, 5)
	if err != nil {
		t.Fatal(err)
	}
	if err := alice.device(0).PutAttachmentPart(ctx, a.ID, 0, []byte("12345")); err != nil {
		t.Fatal(err)
	}
	_, err = alice.device(0).FinishAttachmentFor(ctx, a.ID, []string{"bob", "nobody"})
	var e *relayclient.Error
	if !errors.As(err, &e) || e.Code != "unknown_recipient" || e.Username != "nobody" {
		t.Fatalf("an unknown name: %v", err)
	}
	_, err = alice.device(0).FinishAttachmentFor(ctx, a.ID, []string{"Bob"})
	wantCode(t, err, "bad_username")
	_, err = alice.device(0).FinishAttachmentFor(ctx, a.ID, []string{"bob", "bob", "bob"})
	wantCode(t, err, "too_many_recipients")
	if n := s.count(t, `SELECT count(*) FROM attachments WHERE finished_at IS NOT NULL`) + s.count(t, `SELECT count(*) FROM attachment_fetches`); n != 0 {
		t.Fatalf("refused finishes changed %d rows", n)
	}
	if f, err := alice.device(0).FinishAttachmentFor(ctx, a.ID, []string{"bob", "bob"}); err != nil || !f.Finished {
		t.Fatalf("the control: %+v, %v", f, err)
	}
	if n := s.count(t, `SELECT count(*) FROM attachment_fetches`); n != 1 {
		t.Fatalf("%d devices waited for, want bob's one", n)
	}
}

// TestAttachmentForOneDevice: an attachment finished for one other device
// of the account (a history handed to a new device) waits for that device
// alone and expires an hour after its finish; another device's
// confirmation does not count, that device's deletes it. The device must
// be a live one of the account and not the one finishing (404
// unknown_device), and well formed (400 bad_finish); a refusal finishes
// nothing.
func TestAttachmentForOneDevice(t *testing.T) {
	s := newTestServer(t)
	ctx := context.Background()
	alice := s.register(t, "alice", 3)
	bob := s.register(t, "bob", 1)
	data := randomBytes(t, 1000)
	a, err := alice.device(0).CreateAttachment(ctx, int64(len(data)))
	if err != nil {
		t.Fatal(err)
	}
	if err := alice.device(0).PutAttachmentPart(ctx, a.ID, 0, data); err != nil {
		t.Fatal(err)
	}
	if err := alice.device(0).Revoke(ctx, alice.device(1).Device); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ device, code string }{
		{alice.device(0).Device, "unknown_device"},
		{alice.device(1).Device, "unknown_device"},
		{bob.device(0).Device, "unknown_device"},
		{strings.ToLower(alice.device(2).Device), "bad_finish"},
	} {
		_, err := alice.device(0).FinishAttachmentForDevice(ctx, a.ID, c.device)
		wantCode(t, err, c.code)
	}
	if n := s.count(t, `SELECT count(*) FROM attachments WHERE finished_at IS NOT NULL`) + s.count(t, `SELECT count(*) FROM attachment_fetches`); n != 0 {
		t.Fatalf("refused finishes changed %d rows", n)
	}
	f, err := alice.device(0).FinishAttachmentForDevice(ctx, a.ID, alice.device(2).Device)
	if err != nil || !f.Finished {
		t.Fatalf("%+v, %v", f, err)
	}
	if n := s.count(t, `SELECT count(*) FROM attachment_fetches WHERE device_id = $1`, alice.device(2).Device); n != 1 || s.count(t, `SELECT count(*) FROM attachment_fetches`) != 1 {
		t.Fatal("the attachment does not wait for the new device alone")
	}
	if n := s.count(t, `SELECT count(*) FROM attachments WHERE expires_at = finished_at + interval '1 hour'`); n != 1 {
		t.Fatal("the attachment does not expire an hour after its finish")
	}
	// bob knows the id: he may read it (the id is the capability), but
	// his confirmation, like alice's first device's, crosses nobody off.
	for _, c := range []*relayclient.Client{bob.device(0), alice.device(0)} {
		if _, err := c.ReadAttachment(ctx, a.ID); err != nil {
			t.Fatal(err)
		}
		if err := c.AttachmentReceived(ctx, a.ID); err != nil {
			t.Fatal(err)
		}
	}
	got, err := alice.device(2).ReadAttachment(ctx, a.ID)
	if err != nil || !bytes.Equal(got, data) {
		t.Fatalf("the new device's download: %v", err)
	}
	if err := alice.device(2).AttachmentReceived(ctx, a.ID); err != nil {
		t.Fatal(err)
	}
	_, err = alice.device(2).ReadAttachment(ctx, a.ID)
	wantCode(t, err, "unknown_attachment")
}
