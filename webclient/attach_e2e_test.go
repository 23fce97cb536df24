package webclient_test

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"image"
	"image/color"
	"image/jpeg"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"

	"relay/audit"
)

// gpsNeedle is written into the EXIF segment of the test's photo: the
// place a phone writes where it was taken. The photo that arrives must
// not hold it.
const gpsNeedle = "GPS 48.8584N 2.2945E relay-test-needle"

// photoWithEXIF writes a 640×480 JPEG whose APP1 (EXIF) segment holds
// gpsNeedle, as a camera's file would, and returns its path.
func photoWithEXIF(t *testing.T, dir string) string {
	t.Helper()
	// A gradient with a random shade per 8×8 block: every run's photo,
	// and so its encoded bytes past the headers, is its own.
	img := image.NewRGBA(image.Rect(0, 0, 640, 480))
	shade := make([]byte, (640/8)*(480/8))
	_, _ = rand.Read(shade)
	for y := range 480 {
		for x := range 640 {
			img.Set(x, y, color.RGBA{uint8(x / 3), uint8(y / 2), 120 + shade[(y/8)*(640/8)+x/8]/3, 255})
		}
	}
	var buf bytes.Buffer
	if err := jpeg.Encode(&buf, img, &jpeg.Options{Quality: 90}); err != nil {
		t.Fatal(err)
	}
	b := buf.Bytes()
	exif := append([]byte("Exif\x00\x00"), []byte(gpsNeedle)...)
	seg := []byte{0xFF, 0xE1, 0, 0}
	binary.BigEndian.PutUint16(seg[2:], uint16(len(exif)+2))
	out := append(append(append([]byte{}, b[:2]...), append(seg, exif...)...), b[2:]...)
	if !bytes.Contains(out, []byte(gpsNeedle)) {
		t.Fatal("the photo does not hold its needle")
	}
	p := filepath.Join(dir, "IMG_0001.jpg")
	if err := os.WriteFile(p, out, 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// randomFile writes n random bytes as name and returns its path and the
// SHA-256 of its bytes in hex.
func randomFile(t *testing.T, dir, name string, n int) (string, string) {
	t.Helper()
	b := make([]byte, n)
	_, _ = rand.Read(b)
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, b, 0o644); err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(b)
	return p, hex.EncodeToString(sum[:])
}

// keptFile is a script: what this device keeps of the file of kind of
// the last message of files in chat, as {sha256: hex, head: the first
// bytes in hex, latin1: its bytes as Latin-1 text}, or null. The page's
// own blob: URLs cannot be fetched (its Content-Security-Policy allows
// connections to the relay only): the store gives the same Blob.
func keptFile(chat, kind string) string {
	return `import('/store.js').then(async (s) => { const m = (await s.getMessages(` + js(chat) + `)).filter((x) => x.files).pop(); const f = m && m.files.find((x) => x.kind === ` + js(kind) + `); const b = f && await s.getFile(f.ref); if (!b) return null; const u = new Uint8Array(await b.arrayBuffer()); const d = new Uint8Array(await crypto.subtle.digest('SHA-256', u)); const hex = (a) => [...a].map((x) => x.toString(16).padStart(2, '0')).join(''); return { sha256: hex(d), head: hex(u.subarray(0, 2)), latin1: new TextDecoder('latin1').decode(u) }; })`
}

type kept struct {
	SHA256 string `json:"sha256"`
	Head   string `json:"head"`
	Latin1 string `json:"latin1"`
}

// photoShown and fileShown are conditions: the open chat shows the photo
// decrypted (not its placeholder) and the file ready to save.
const (
	photoShown = `(() => { const i = document.querySelector('#messages .msg .photo-img'); return !!i && i.src.startsWith('blob:') && !i.classList.contains('placeholder') && i.complete && i.naturalWidth > 0; })()`
	fileShown  = `(() => { const a = document.querySelector('#messages .msg .file-save'); return !!a && !a.hidden && a.href.startsWith('blob:'); })()`
)

// TestPhotoAndFileReachBothDevices: alice attaches a photo (with GPS in
// its EXIF) and a file from the picker and sends them with a caption.
// bob and alice's second device see the photo inline and can save the
// file: the file's bytes are the very ones sent, the photo is a JPEG of
// the same size without the EXIF. The relay held only ciphertext, and
// deleted it once every device fetched it.
func TestPhotoAndFileReachBothDevices(t *testing.T) {
	r, alice, bob := aliceAndBob(t)
	phone := linkedDevice(t, r, alice, "alice")
	published(t, r, bob)
	dir := t.TempDir()
	photo := photoWithEXIF(t, dir)
	doc, docSum := randomFile(t, dir, "Report (final).pdf", 300_000)

	alice.openChat("bob")
	alice.do(chromedp.SetUploadFiles(chromedp.ID("attach-input"), []string{photo, doc}))
	alice.waitFor("both files ready in the tray", `document.querySelectorAll('#attach-tray .tray-item').length === 2 && ![...document.querySelectorAll('#attach-tray .tray-size')].some((e) => e.textContent === 'preparing…')`)
	if !eval[bool](alice, `!document.querySelector('#attach-tray .tray-note').hidden`) {
		t.Fatal("the tray does not say that photos are re-encoded")
	}
	checkScreen(alice, "attach-tray")
	alice.do(chromedp.SendKeys(chromedp.ID("composer"), "Holiday"+kb.Enter))
	alice.waitFor("the message sent", `document.querySelector('#messages .msg.out[data-status="sent"] .files')`)

	peerOf := map[string]string{"bob": "alice", "phone": "bob"}
	for name, tb := range map[string]*tab{"bob": bob, "phone": phone} {
		tb.openChat(peerOf[name])
		tb.waitMessage("Holiday")
		tb.waitFor(name+"'s photo", photoShown)
		tb.waitFor(name+"'s file", fileShown)
		if got := eval[kept](tb, keptFile(peerOf[name], "file")); got.SHA256 != docSum {
			t.Fatalf("%s keeps a file of SHA-256 %s, sent %s", name, got.SHA256, docSum)
		}
		// The photo arrives re-encoded: a JPEG of the same size, without
		// the EXIF that said where it was taken.
		p := eval[kept](tb, keptFile(peerOf[name], "photo"))
		if p.Head != "ffd8" || strings.Contains(p.Latin1, gpsNeedle) || strings.Contains(p.Latin1, "Exif") {
			t.Fatalf("%s's photo starts %s, needle %v, Exif %v: want a JPEG without EXIF", name, p.Head, strings.Contains(p.Latin1, gpsNeedle), strings.Contains(p.Latin1, "Exif"))
		}
		if wh := eval[string](tb, `(() => { const i = document.querySelector('#messages .msg .photo-img'); return i.naturalWidth + 'x' + i.naturalHeight; })()`); wh != "640x480" {
			t.Fatalf("%s's photo is %s, want 640x480", name, wh)
		}
	}
	checkScreen(bob, "photo-in-chat")

	// By keyboard: the message, then Tab to the photo, Enter opens it full
	// size, with Save; Escape goes back.
	eval[chromedp.Void](bob, `document.querySelector('#messages .msg').focus()`)
	bob.do(chromedp.KeyEvent(kb.Tab))
	if !eval[bool](bob, `document.activeElement.classList.contains('photo')`) {
		t.Fatalf("Tab from the message goes to %s, not its photo", eval[string](bob, `document.activeElement.outerHTML.slice(0, 80)`))
	}
	bob.do(chromedp.KeyEvent(kb.Enter))
	bob.waitFor("the photo full size", `document.getElementById('photo-view') && document.getElementById('photo-view').open && document.querySelector('#photo-view .photo-full').complete`)
	if !eval[bool](bob, `document.getElementById('photo-save').href.startsWith('blob:') && document.getElementById('photo-save').download === 'IMG_0001.jpg'`) {
		t.Fatal("the full-size photo has no Save")
	}
	checkScreen(bob, "photo-full")
	bob.do(chromedp.KeyEvent(kb.Escape))
	bob.waitFor("the viewer closed", `!document.getElementById('photo-view')`)

	// The relay never held the file's bytes as they are, and deleted both
	// attachments once bob's device and alice's phone fetched them.
	for i := 0; r.count(`SELECT count(*) FROM attachments`) != 0; i++ {
		if i > 400 {
			t.Fatalf("%d attachments still on the relay after every device fetched them", r.count(`SELECT count(*) FROM attachments`))
		}
		sleep()
	}
	waitQueueEmpty(t, r)
}

// TestAttachmentOverTheLimit: a file over the size a message may carry
// is not added; the composer says which and why, and nothing is sent.
func TestAttachmentOverTheLimit(t *testing.T) {
	r, alice, _ := aliceAndBob(t)
	dir := t.TempDir()
	big := filepath.Join(dir, "film.mkv")
	f, err := os.Create(big)
	if err != nil {
		t.Fatal(err)
	}
	// Sparse: 101 MiB that take no room on the disk.
	if err := f.Truncate(101 << 20); err != nil {
		t.Fatal(err)
	}
	f.Close()
	alice.openChat("bob")
	alice.do(chromedp.SetUploadFiles(chromedp.ID("attach-input"), []string{big}))
	alice.waitFor("the refusal", `!document.getElementById('attach-note').hidden`)
	note := eval[string](alice, `document.getElementById('attach-note').textContent`)
	if !strings.Contains(note, "film.mkv") || !strings.Contains(note, "largest file you can send") {
		t.Fatalf("the composer says %q", note)
	}
	if eval[int](alice, `document.querySelectorAll('#attach-tray .tray-item').length`) != 0 {
		t.Fatal("the file over the limit is in the tray")
	}
	checkScreen(alice, "attach-over-limit")
	if n := r.count(`SELECT count(*) FROM attachments`); n != 0 {
		t.Fatalf("%d attachments started", n)
	}
}

// TestNoPhotoAtRest sends a photo through the real client to bob while
// bob is offline, so that its attachment waits at the relay, and searches
// the whole PostgreSQL data directory, WAL included, for pieces of the
// photo as alice's device sent it (re-encoded, before encryption). A
// positive control stores the same bytes in plain, and must be found.
func TestNoPhotoAtRest(t *testing.T) {
	conn, dir := cluster(t)
	r, alice, bob := aliceAndBob(t)
	published(t, r, bob)
	bob.do(chromedp.Navigate("about:blank")) // offline: the attachment waits

	photo := photoWithEXIF(t, t.TempDir())
	alice.openChat("bob")
	alice.do(chromedp.SetUploadFiles(chromedp.ID("attach-input"), []string{photo}))
	alice.waitFor("the photo ready in the tray", `document.querySelectorAll('#attach-tray .tray-item').length === 1 && document.querySelector('#attach-tray .tray-size').textContent !== 'preparing…'`)
	alice.do(chromedp.Click(chromedp.ID("send-btn")))
	alice.waitFor("the photo sent", `document.querySelector('#messages .msg.out[data-status="sent"] .files')`)
	if n := r.count(`SELECT count(*) FROM attachments WHERE finished_at IS NOT NULL`); n != 1 {
		t.Fatalf("%d finished attachments at the relay, want the photo's", n)
	}
	// What alice's device encrypted: the re-encoded photo, from its store.
	sent := eval[string](alice, `import('/store.js').then(async (s) => { const m = (await s.getMessages('bob')).find((x) => x.files); const b = await s.getFile(m.files[0].ref); const u = new Uint8Array(await b.arrayBuffer()); return [...u].map((x) => x.toString(16).padStart(2, '0')).join(''); })`)
	plain, err := hex.DecodeString(sent)
	if err != nil || len(plain) < 4096 {
		t.Fatalf("the photo sent is %d bytes (%v)", len(plain), err)
	}
	// Pieces of the photo, as `relay audit --needle-file` searches for
	// them: a plaintext photo is stored in pages of about 2 kB, so the
	// whole would never match.
	needles, err := audit.FilePieces(plain)
	if err != nil {
		t.Fatal(err)
	}
	if hits := auditHits(t, conn, dir, needles...); len(hits) != 0 {
		t.Fatalf("the photo's bytes are on disk: %d hits, first %+v", len(hits), hits[0])
	}

	// Positive control: the same search finds the photo stored in plain.
	ctx := context.Background()
	if _, err := r.Pool.Exec(ctx, `CREATE TABLE scratch (b bytea); ALTER TABLE scratch ALTER b SET STORAGE EXTERNAL`); err != nil {
		t.Fatal(err)
	}
	if _, err := r.Pool.Exec(ctx, `INSERT INTO scratch VALUES ($1)`, plain); err != nil {
		t.Fatal(err)
	}
	if hits := auditHits(t, conn, dir, needles...); len(hits) == 0 {
		t.Fatal("the audit did not find the photo stored in plain: it cannot prove anything")
	}
}

// TestVoiceMessage records a voice message from the fake microphone: the
// bar shows its length running, Send sends it; bob's device plays it back
// to its end with a seek bar, and it lasts what was recorded.
func TestVoiceMessage(t *testing.T) {
	r, alice, bob := aliceAndBob(t)
	published(t, r, bob)
	alice.openChat("bob")
	// Cancel drops a recording: nothing is sent.
	alice.do(chromedp.Click(chromedp.ID("mic-btn")))
	alice.waitFor("the recorder", `!document.getElementById('rec-bar').hidden`)
	alice.do(chromedp.Click(chromedp.ID("rec-cancel")))
	alice.waitFor("the recorder closed", `document.getElementById('rec-bar').hidden && !document.getElementById('mic-btn').hidden`)

	alice.do(chromedp.Click(chromedp.ID("mic-btn")))
	alice.waitFor("the recorder", `!document.getElementById('rec-bar').hidden`)
	alice.waitFor("its length running past a second", `document.querySelector('#rec-bar .rec-clock').textContent >= '0:02'`)
	checkScreen(alice, "voice-recording")
	alice.do(chromedp.Click(chromedp.ID("rec-send")))
	alice.waitFor("the voice message sent", `document.querySelector('#messages .msg.out[data-status="sent"] .voice-box')`)
	if n := eval[int](alice, `import('/store.js').then(async (s) => (await s.getMessages('bob')).filter((m) => m.files).length)`); n != 1 {
		t.Fatalf("%d messages of files, want the one voice message", n)
	}
	alice.waitFor("the mic button back", `!document.getElementById('mic-btn').hidden`)

	bob.openChat("alice")
	bob.waitFor("the voice message", `(() => { const a = document.querySelector('#messages .msg .voice-box audio'); return !!a && a.src.startsWith('blob:'); })()`)
	// Played back: its duration is what was recorded, and it plays to its
	// end.
	bob.waitFor("its duration known", `(() => { const a = document.querySelector('#messages .msg .voice-box audio'); if (a.readyState < 1) return false; if (a.duration === Infinity) { a.currentTime = 1e9; return false; } return a.duration > 1.5; })()`)
	eval[chromedp.Void](bob, `(() => { const a = document.querySelector('#messages .msg .voice-box audio'); a.currentTime = 0; a.muted = true; a.play(); })()`)
	bob.waitFor("it played to its end", `document.querySelector('#messages .msg .voice-box audio').ended`)
	checkScreen(bob, "voice-received")
}

// partGate is a relay wrapper for the tests of attachments: it counts
// each part PUT by its index, holds the PUTs of parts from holdFrom on
// until released (or their client goes), and can change one byte of
// every download.
type partGate struct {
	mu       sync.Mutex
	puts     map[int]int
	holdFrom int
	release  chan struct{}
	corrupt  atomic.Bool
	// downloads, when not nil, holds every download until it is closed
	// (or its client goes).
	downloads chan struct{}
}

func newPartGate(holdFrom int) *partGate {
	return &partGate{puts: map[int]int{}, holdFrom: holdFrom, release: make(chan struct{})}
}

var partPath = regexp.MustCompile(`^/api/attachments/[A-Za-z0-9_-]{22}/parts/([0-9]+)$`)
var downloadPath = regexp.MustCompile(`^/api/attachments/[A-Za-z0-9_-]{22}$`)

func (g *partGate) wrap(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		if m := partPath.FindStringSubmatch(req.URL.Path); m != nil && req.Method == http.MethodPut {
			n, _ := strconv.Atoi(m[1])
			if n >= g.holdFrom {
				select {
				case <-g.release:
				case <-req.Context().Done():
					return
				}
			}
			g.mu.Lock()
			g.puts[n]++
			g.mu.Unlock()
		}
		if downloadPath.MatchString(req.URL.Path) && req.Method == http.MethodGet {
			if g.downloads != nil {
				select {
				case <-g.downloads:
				case <-req.Context().Done():
					return
				}
			}
			if g.corrupt.Load() {
				w = &flipWriter{ResponseWriter: w, at: 1000}
			}
		}
		h.ServeHTTP(w, req)
	})
}

// aliceAndBob starts a relay behind the gate and registers alice and bob,
// bob's key packages published.
func (g *partGate) aliceAndBob(t *testing.T) (*liveRelay, *tab, *tab) {
	t.Helper()
	r := startWrapped(t, g.wrap)
	_, alice := r.newProfile(t)
	_, bob := r.newProfile(t)
	alice.register("alice")
	bob.register("bob")
	published(t, r, bob)
	return r, alice, bob
}

func (g *partGate) putsOf(n int) int {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.puts[n]
}

// flipWriter changes the byte at offset at of what it writes.
type flipWriter struct {
	http.ResponseWriter
	at, off int
}

func (f *flipWriter) Write(b []byte) (int, error) {
	if f.at >= f.off && f.at < f.off+len(b) {
		c := append([]byte{}, b...)
		c[f.at-f.off] ^= 0x55
		b = c
	}
	f.off += len(b)
	return f.ResponseWriter.Write(b)
}

func (f *flipWriter) Flush() {
	if fl, ok := f.ResponseWriter.(http.Flusher); ok {
		fl.Flush()
	}
}

// TestUploadResumesAfterAReload: alice sends a file of several parts; the
// page is reloaded while the relay holds its first two. The message waits
// in the outbox in its place, the upload goes on from the third part (the
// first two are never sent again, the attachment is the same), and bob
// gets the very bytes.
func TestUploadResumesAfterAReload(t *testing.T) {
	gate := newPartGate(2)
	r, alice, bob := gate.aliceAndBob(t)
	doc, sum := randomFile(t, t.TempDir(), "archive.zip", 5<<20/2) // 5 parts
	alice.openChat("bob")
	alice.do(chromedp.SetUploadFiles(chromedp.ID("attach-input"), []string{doc}))
	alice.waitFor("the file in the tray", `document.querySelectorAll('#attach-tray .tray-item').length === 1 && document.querySelector('#attach-tray .tray-size').textContent !== 'preparing…'`)
	alice.do(chromedp.SendKeys(chromedp.ID("composer"), "the archive"+kb.Enter))
	alice.waitFor("the upload's progress", `(() => { const s = document.querySelector('#messages .msg .transfer'); return !!s && !s.hidden && s.querySelector('progress').value > 0; })()`)
	for i := 0; r.count(`SELECT count(*) FROM attachment_parts`) < 2; i++ {
		if i > 400 {
			t.Fatal("the relay never held the first two parts")
		}
		sleep()
	}
	alice.screenshot("uploading")
	alice.do(chromedp.Reload())
	// After the reload, nothing is sent until the relay lets it: the
	// message waits in its place.
	alice.openChat("bob")
	alice.waitFor("the message waiting", `document.querySelector('#messages .msg.out[data-status="pending"] .files')`)
	close(gate.release)
	alice.waitFor("the message sent", `document.querySelector('#messages .msg.out[data-status="sent"] .files')`)
	if a, b := gate.putsOf(0), gate.putsOf(1); a != 1 || b != 1 {
		t.Fatalf("parts 0 and 1 were sent %d and %d times, want once each", a, b)
	}
	if n := r.count(`SELECT count(*) FROM attachments`); n != 1 {
		t.Fatalf("%d attachments at the relay, want the one resumed", n)
	}
	bob.openChat("alice")
	bob.waitMessage("the archive")
	bob.waitFor("the file", fileShown)
	if got := eval[kept](bob, keptFile("alice", "file")); got.SHA256 != sum {
		t.Fatalf("bob keeps a file of SHA-256 %s, sent %s", got.SHA256, sum)
	}
}

// TestDownloadThatFailsItsDigest: the relay changes one byte of what bob
// downloads. bob's device refuses the file and says why, keeps nothing,
// and once the relay serves the right bytes, Retry shows it.
func TestDownloadThatFailsItsDigest(t *testing.T) {
	gate := newPartGate(1 << 30)
	gate.corrupt.Store(true)
	r, alice, bob := gate.aliceAndBob(t)
	doc, sum := randomFile(t, t.TempDir(), "notes.txt", 100_000)
	alice.openChat("bob")
	alice.do(chromedp.SetUploadFiles(chromedp.ID("attach-input"), []string{doc}))
	alice.waitFor("the file in the tray", `document.querySelectorAll('#attach-tray .tray-item').length === 1 && document.querySelector('#attach-tray .tray-size').textContent !== 'preparing…'`)
	alice.do(chromedp.Click(chromedp.ID("send-btn")))
	alice.waitFor("the message sent", `document.querySelector('#messages .msg.out[data-status="sent"] .files')`)

	bob.openChat("alice")
	bob.waitFor("the refusal", `(() => { const e = document.querySelector('#messages .msg .file-error'); return !!e && e.textContent.includes('does not match what the sender sent'); })()`)
	if eval[bool](bob, `(() => { const a = document.querySelector('#messages .msg .file-save'); return !!a && !a.hidden; })()`) {
		t.Fatal("a file that failed its digest can be saved")
	}
	if eval[bool](bob, `import('/store.js').then(async (s) => { const m = (await s.getMessages('alice')).find((x) => x.files); return !!(await s.getFile(m.files[0].ref)); })`) {
		t.Fatal("a file that failed its digest is kept")
	}
	// Not confirmed, so the relay keeps it for another try.
	if n := r.count(`SELECT count(*) FROM attachments`); n != 1 {
		t.Fatalf("%d attachments at the relay after a refused download, want 1", n)
	}
	checkScreen(bob, "download-digest")
	gate.corrupt.Store(false)
	bob.do(chromedp.Click(chromedp.CSS(`#messages .msg .file-error .retry`)))
	bob.waitFor("the file", fileShown)
	if got := eval[kept](bob, keptFile("alice", "file")); got.SHA256 != sum {
		t.Fatalf("bob keeps a file of SHA-256 %s, sent %s", got.SHA256, sum)
	}
}

// TestDeleteForEveryoneTakesTheAttachment: alice sends a photo with a
// caption while bob is offline, edits the caption, then deletes the
// message for everyone. Its attachment goes from the relay and its bytes
// from alice's device; bob, back online, sees the tombstone, never the
// photo.
func TestDeleteForEveryoneTakesTheAttachment(t *testing.T) {
	r, alice, bob := aliceAndBob(t)
	published(t, r, bob)
	bob.do(chromedp.Navigate("about:blank"))
	photo := photoWithEXIF(t, t.TempDir())
	alice.openChat("bob")
	alice.do(chromedp.SetUploadFiles(chromedp.ID("attach-input"), []string{photo}))
	alice.waitFor("the photo ready in the tray", `document.querySelectorAll('#attach-tray .tray-item').length === 1 && document.querySelector('#attach-tray .tray-size').textContent !== 'preparing…'`)
	alice.do(chromedp.SendKeys(chromedp.ID("composer"), "the view"+kb.Enter))
	alice.waitFor("the photo sent", `document.querySelector('#messages .msg.out[data-status="sent"] .files')`)
	// The caption is the message's text: it can be edited.
	alice.menuAction("the view", "edit-btn")
	alice.typeEdit("the view from the top")
	alice.waitMessage("the view from the top")
	if n := r.count(`SELECT count(*) FROM attachments`); n != 1 {
		t.Fatalf("%d attachments at the relay, want the photo's", n)
	}
	alice.menuAction("the view from the top", "delete-all-btn")
	alice.confirmDelete()
	alice.waitMessage("This message was deleted")
	for i := 0; r.count(`SELECT count(*) FROM attachments`) != 0; i++ {
		if i > 400 {
			t.Fatal("the attachment of a message deleted for everyone is still at the relay")
		}
		sleep()
	}
	if n := r.count(`SELECT count(*) FROM attachment_parts`); n != 0 {
		t.Fatalf("%d parts left at the relay", n)
	}
	if eval[int](alice, `import('/store.js').then(async (s) => { const m = (await s.getMessages('bob')).find((x) => x.deleted); return m && !m.files ? 0 : 1; })`) != 0 {
		t.Fatal("the deleted message still lists its files")
	}

	bob.do(chromedp.Navigate(r.URL + "/#/chat/alice"))
	bob.waitMessage("This message was deleted")
	if eval[bool](bob, `!!document.querySelector('#messages .msg .files')`) {
		t.Fatal("bob's device shows the files of a deleted message")
	}
	if eval[bool](bob, `import('/store.js').then(async (s) => { const m = (await s.getMessages('alice')).find((x) => x.deleted); return !m || !!m.files; })`) {
		t.Fatal("bob's device keeps the files of a deleted message")
	}
}

// TestDatabaseOfVersion1IsUpgraded: a browser whose database was made by
// a client before attachments (version 1: no files store, no index of the
// messages that disappear, no store of what arrives while locked) keeps
// every row when the client opens it, now at version 4, and can send a
// photo. The database is
// made again as version 1 from what the client stored, as the older
// client left it.
func TestDatabaseOfVersion1IsUpgraded(t *testing.T) {
	r, alice, bob := aliceAndBob(t)
	published(t, r, bob)
	alice.openChat("bob")
	alice.send("before the upgrade")
	bob.openChat("alice")
	bob.waitMessage("before the upgrade")
	alice.waitFor("the message sent", outboxSettled)
	eval[chromedp.Void](alice, `(async () => {
	  const read = () => new Promise((ok, no) => { const q = indexedDB.open('relay'); q.onsuccess = () => ok(q.result); q.onerror = () => no(q.error); });
	  const db = await read();
	  const dump = {};
	  for (const name of ['meta', 'messages', 'chats']) {
	    dump[name] = await new Promise((ok) => { const q = db.transaction(name).objectStore(name).getAll(); q.onsuccess = () => ok(q.result); });
	  }
	  db.close();
	  await new Promise((ok, no) => { const q = indexedDB.deleteDatabase('relay'); q.onsuccess = ok; q.onerror = () => no(q.error); });
	  const v1 = await new Promise((ok, no) => {
	    const q = indexedDB.open('relay', 1);
	    q.onupgradeneeded = () => {
	      const d = q.result;
	      d.createObjectStore('meta', { keyPath: 'k' });
	      d.createObjectStore('messages', { keyPath: 'id' }).createIndex('chat', ['chat', 'sort']);
	      d.createObjectStore('chats', { keyPath: 'username' });
	    };
	    q.onsuccess = () => ok(q.result);
	    q.onerror = () => no(q.error);
	  });
	  const t = v1.transaction(['meta', 'messages', 'chats'], 'readwrite');
	  for (const name of ['meta', 'messages', 'chats']) for (const row of dump[name]) t.objectStore(name).put(row);
	  await new Promise((ok) => { t.oncomplete = ok; });
	  v1.close();
	})()`)
	alice.do(chromedp.Reload())
	alice.openChat("bob")
	alice.waitMessage("before the upgrade")
	if v := eval[int](alice, `indexedDB.databases().then((l) => l.find((d) => d.name === 'relay').version)`); v != 4 {
		t.Fatalf("the client left the database at version %d", v)
	}
	// Version 3's index of the messages that disappear is there, and
	// holds none of the old rows.
	if n := eval[int](alice, `new Promise((ok, no) => { const q = indexedDB.open('relay'); q.onsuccess = () => { const d = q.result; const c = d.transaction('messages').objectStore('messages').index('expireAt').count(); c.onsuccess = () => { d.close(); ok(c.result); }; c.onerror = () => no(c.error); }; q.onerror = () => no(q.error); })`); n != 0 {
		t.Fatalf("the expireAt index holds %d rows, want 0", n)
	}
	// Version 4's store of what arrives while locked is there, empty.
	if n := eval[int](alice, `new Promise((ok, no) => { const q = indexedDB.open('relay'); q.onsuccess = () => { const d = q.result; const c = d.transaction('held').objectStore('held').count(); c.onsuccess = () => { d.close(); ok(c.result); }; c.onerror = () => no(c.error); }; q.onerror = () => no(q.error); })`); n != 0 {
		t.Fatalf("the held store holds %d rows, want 0", n)
	}
	photo := photoWithEXIF(t, t.TempDir())
	alice.do(chromedp.SetUploadFiles(chromedp.ID("attach-input"), []string{photo}))
	alice.waitFor("the photo ready in the tray", `document.querySelectorAll('#attach-tray .tray-item').length === 1 && document.querySelector('#attach-tray .tray-size').textContent !== 'preparing…'`)
	alice.do(chromedp.SendKeys(chromedp.ID("composer"), "after the upgrade"+kb.Enter))
	bob.waitMessage("after the upgrade")
	bob.waitFor("the photo", photoShown)
	if got := alice.messages(); strings.Join(got, "|") != "before the upgrade|after the upgrade" {
		t.Fatalf("alice's chat after the upgrade: %q", got)
	}
}

// TestPhotoInAGroup: in a group of alice (laptop and phone), bob and
// carol, bob sends a photo; every other device shows it, carol reacts to
// it and replies to it (her quote shows its placeholder), and the relay
// lets the attachment go once the three other devices have it.
func TestPhotoInAGroup(t *testing.T) {
	r := startRelay(t)
	laptop, phone, bob, carol := threeAccounts(t, r)
	chat := makeGroup(laptop, "Trip", "bob, carol")
	for _, tb := range []*tab{phone, bob, carol} {
		waitGroup(tb, "Trip")
		tb.openChat(chat)
	}
	bob.do(chromedp.SetUploadFiles(chromedp.ID("attach-input"), []string{photoWithEXIF(t, t.TempDir())}))
	bob.waitFor("the photo ready in the tray", `document.querySelectorAll('#attach-tray .tray-item').length === 1 && document.querySelector('#attach-tray .tray-size').textContent !== 'preparing…'`)
	bob.do(chromedp.SendKeys(chromedp.ID("composer"), "from the top"+kb.Enter))
	for _, tb := range []*tab{laptop, phone, carol} {
		tb.waitMessage("from the top")
		tb.waitFor("the photo", photoShown)
	}
	// A reaction and a reply, as to any message.
	carol.menuAction("from the top", "react-pick")
	// Her own bubble drawn again with it before its menu opens again.
	carol.waitFor("carol's reaction shown to her", bubble("from the top")+`?.querySelector('.reaction[data-emoji="👍"] .count')?.textContent === '1' && `+bubble("from the top")+`?.dataset.status !== undefined`)
	for _, tb := range []*tab{laptop, bob} {
		tb.waitFor("carol's reaction on the photo", bubble("from the top")+`?.querySelector('.reaction[data-emoji="👍"] .count')?.textContent === '1'`)
	}
	carol.menuAction("from the top", "reply-btn")
	carol.waitFor("the reply bar", `!document.getElementById('compose-mode').hidden`)
	carol.do(chromedp.SendKeys(chromedp.ID("composer"), "wonderful"+kb.Enter))
	for _, tb := range []*tab{laptop, bob} {
		tb.waitMessage("wonderful")
		tb.waitFor("the quote with the photo's placeholder", bubble("wonderful")+`?.querySelector('.quote .quote-thumb')?.src.startsWith('blob:')`)
	}
	checkScreen(laptop, "photo-in-group")
	for i := 0; r.count(`SELECT count(*) FROM attachments`) != 0; i++ {
		if i > 400 {
			t.Fatalf("the group's photo is still at the relay after every device has it (%d devices waited for)", r.count(`SELECT count(*) FROM attachment_fetches`))
		}
		sleep()
	}
}

// TestCancelAnUpload: alice cancels a message while its file is uploading
// (the relay holds its first two parts). The message goes from her chat
// and from this device, it never reaches bob, and its attachment goes
// from the relay.
func TestCancelAnUpload(t *testing.T) {
	gate := newPartGate(2)
	r, alice, bob := gate.aliceAndBob(t)
	doc, _ := randomFile(t, t.TempDir(), "video.mp4", 5<<20/2)
	alice.openChat("bob")
	alice.do(chromedp.SetUploadFiles(chromedp.ID("attach-input"), []string{doc}))
	alice.waitFor("the file in the tray", `document.querySelectorAll('#attach-tray .tray-item').length === 1 && document.querySelector('#attach-tray .tray-size').textContent !== 'preparing…'`)
	alice.do(chromedp.SendKeys(chromedp.ID("composer"), "too big after all"+kb.Enter))
	for i := 0; r.count(`SELECT count(*) FROM attachment_parts`) < 2; i++ {
		if i > 400 {
			t.Fatal("the relay never held the first two parts")
		}
		sleep()
	}
	alice.menuAction("too big after all", "cancel-send-btn")
	alice.waitFor("the cancel dialog", `document.getElementById('cancel-dialog')?.open`)
	alice.do(chromedp.Click(chromedp.ID("cancel-confirm")))
	alice.waitFor("the message gone", `!`+bubble("too big after all"))
	close(gate.release) // the part held goes on, and finds the message gone
	for i := 0; r.count(`SELECT count(*) FROM attachments`) != 0; i++ {
		if i > 400 {
			t.Fatal("the attachment of a cancelled message is still at the relay")
		}
		sleep()
	}
	if eval[int](alice, `import('/store.js').then(async (s) => (await s.getMessages('bob')).length)`) != 0 {
		t.Fatal("the cancelled message is still stored")
	}
	alice.send("the next one")
	bob.openChat("alice")
	bob.waitMessage("the next one")
	if got := bob.messages(); len(got) != 1 {
		t.Fatalf("bob's chat: %q, want only the next message", got)
	}
}

// TestCancelADownload: bob's device starts downloading a photo by itself
// (the relay holds the download); bob cancels it. The photo then waits
// for his Download, as nothing downloads it by itself again, and shows
// once he presses it.
func TestCancelADownload(t *testing.T) {
	gate := newPartGate(1 << 30)
	gate.downloads = make(chan struct{})
	_, alice, bob := gate.aliceAndBob(t)
	alice.openChat("bob")
	alice.do(chromedp.SetUploadFiles(chromedp.ID("attach-input"), []string{photoWithEXIF(t, t.TempDir())}))
	alice.waitFor("the photo ready in the tray", `document.querySelectorAll('#attach-tray .tray-item').length === 1 && document.querySelector('#attach-tray .tray-size').textContent !== 'preparing…'`)
	alice.do(chromedp.SendKeys(chromedp.ID("composer"), "a photo"+kb.Enter))
	alice.waitFor("the photo sent", `document.querySelector('#messages .msg.out[data-status="sent"] .files')`)
	bob.openChat("alice")
	bob.waitFor("the download under way, with Cancel", `(() => { const s = document.querySelector('#messages .msg .transfer'); return !!s && !s.hidden && !!s.querySelector('.transfer-cancel'); })()`)
	checkScreen(bob, "downloading")
	eval[chromedp.Void](bob, `document.querySelector('#messages .msg .transfer-cancel').click()`)
	bob.waitFor("Download offered", `(() => { const b = document.querySelector('#messages .msg .file-get'); return !!b && !b.hidden; })()`)
	// Drawn again after the cancel, the photo did not start downloading.
	if st := eval[string](bob, `import('/store.js').then(async (s) => { const m = (await s.getMessages('alice')).find((x) => x.files); const t = await import('/transfer.js'); return m.files[0].state + ' ' + (t.progress(m.files[0].ref) ? 'downloading' : 'idle'); })`); st != "cancelled idle" {
		t.Fatalf("after the cancel, the photo is %q", st)
	}
	close(gate.downloads)
	if eval[bool](bob, `!!document.querySelector('#messages .msg .file-error')`) {
		t.Fatal("a cancelled download is shown as failed")
	}
	eval[chromedp.Void](bob, `document.querySelector('#messages .msg .file-get').click()`)
	bob.waitFor("the photo", photoShown)
}

// TestDropAndPaste: a file dropped on the chat and a picture pasted into
// the composer go to the tray, as from the picker, and are sent together.
func TestDropAndPaste(t *testing.T) {
	r, alice, bob := aliceAndBob(t)
	published(t, r, bob)
	alice.openChat("bob")
	eval[chromedp.Void](alice, `(() => {
	  const dt = new DataTransfer();
	  dt.items.add(new File(['a list of things to bring'], 'list.txt', { type: 'text/plain' }));
	  const chat = document.querySelector('.chat');
	  chat.dispatchEvent(new DragEvent('dragover', { bubbles: true, cancelable: true, dataTransfer: dt }));
	  chat.dispatchEvent(new DragEvent('drop', { bubbles: true, cancelable: true, dataTransfer: dt }));
	})()`)
	alice.waitFor("the dropped file in the tray", `document.querySelectorAll('#attach-tray .tray-item').length === 1`)
	eval[chromedp.Void](alice, `(async () => {
	  const c = new OffscreenCanvas(64, 48);
	  const g = c.getContext('2d');
	  g.fillStyle = '#3a7'; g.fillRect(0, 0, 64, 48);
	  const png = await c.convertToBlob({ type: 'image/png' });
	  const dt = new DataTransfer();
	  dt.items.add(new File([png], 'image.png', { type: 'image/png' }));
	  document.getElementById('composer').dispatchEvent(new ClipboardEvent('paste', { bubbles: true, cancelable: true, clipboardData: dt }));
	})()`)
	alice.waitFor("both in the tray, ready", `document.querySelectorAll('#attach-tray .tray-item').length === 2 && ![...document.querySelectorAll('#attach-tray .tray-size')].some((e) => e.textContent === 'preparing…') && !document.querySelector('#attach-tray .tray-note').hidden`)
	alice.do(chromedp.Click(chromedp.ID("send-btn")))
	bob.openChat("alice")
	bob.waitFor("the pasted picture", photoShown)
	bob.waitFor("the dropped file", fileShown)
	if got := eval[string](bob, `document.querySelector('#messages .msg .file-name').textContent`); !strings.Contains(got, "list.txt") {
		t.Fatalf("the file is shown as %q", got)
	}
}

// sendDroppedFile drops a text file named name holding text on the open
// chat, as a drag from the desktop would, waits until the tray has it
// ready, and sends it.
func sendDroppedFile(tb *tab, name, text string) {
	tb.t.Helper()
	eval[chromedp.Void](tb, `(() => {
	  const dt = new DataTransfer();
	  dt.items.add(new File([`+js(text)+`], `+js(name)+`, { type: 'text/plain' }));
	  const chat = document.querySelector('.chat');
	  chat.dispatchEvent(new DragEvent('dragover', { bubbles: true, cancelable: true, dataTransfer: dt }));
	  chat.dispatchEvent(new DragEvent('drop', { bubbles: true, cancelable: true, dataTransfer: dt }));
	})()`)
	tb.waitFor("the file in the tray, ready", `document.querySelectorAll('#attach-tray .tray-item').length === 1 && ![...document.querySelectorAll('#attach-tray .tray-size')].some((e) => e.textContent === 'preparing…')`)
	tb.do(chromedp.Click(chromedp.ID("send-btn")))
}
