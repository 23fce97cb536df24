package webclient_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"
	"github.com/jackc/pgx/v5/pgxpool"

	"relay/devices"
	"relay/internal/browser"
	"relay/internal/testdb"
	"relay/relay"
)

// liveRelay is a relay on a real PostgreSQL database, served on a fixed
// loopback port so that it can be stopped and started again at the same
// address, as a browser would see a relay restart.
type liveRelay struct {
	t    *testing.T
	URL  string
	addr string
	Pool *pgxpool.Pool

	opts []func(*relay.Config)
	wrap func(http.Handler) http.Handler // around the relay's handler, if set

	mu  sync.Mutex // guards srv, hs
	srv *relay.Server
	hs  *http.Server
}

func startRelay(t *testing.T, opts ...func(*relay.Config)) *liveRelay {
	t.Helper()
	return startWrapped(t, nil, opts...)
}

// startWrapped starts a relay whose handler is wrap(the relay's handler).
func startWrapped(t *testing.T, wrap func(http.Handler) http.Handler, opts ...func(*relay.Config)) *liveRelay {
	t.Helper()
	pool, _ := testdb.Pool(t)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	r := &liveRelay{t: t, URL: "http://" + ln.Addr().String(), addr: ln.Addr().String(), Pool: pool, opts: opts, wrap: wrap}
	r.serve(ln)
	t.Cleanup(r.Stop)
	return r
}

func (r *liveRelay) serve(ln net.Listener) {
	cfg := relay.Config{
		Pool: r.Pool, BaseURL: r.URL, RatePerMinute: 1000,
		AuthPerMinute: 10000, AuthPerUserPerMinute: 10000,
		Argon2: devices.Argon2Params{Memory: 64, Time: 1, Threads: 1},
	}
	for _, o := range r.opts {
		o(&cfg)
	}
	srv, err := relay.New(cfg)
	if err != nil {
		r.t.Fatal(err)
	}
	hs := srv.HTTPServer()
	if r.wrap != nil {
		hs.Handler = r.wrap(hs.Handler)
	}
	go hs.Serve(ln)
	go srv.Run(context.Background()) //nolint:errcheck // Stop's Close ends it and waits
	r.mu.Lock()
	r.srv, r.hs = srv, hs
	r.mu.Unlock()
}

// Stop takes the relay down: streams end and the port stops answering.
func (r *liveRelay) Stop() {
	r.mu.Lock()
	srv, hs := r.srv, r.hs
	r.srv, r.hs = nil, nil
	r.mu.Unlock()
	if srv == nil {
		return
	}
	hs.Close() // drops every connection, streams included, like a crash
	if err := srv.Close(); err != nil {
		r.t.Errorf("closing the relay: %v", err)
	}
}

// Start brings the relay back at the same address.
func (r *liveRelay) Start() {
	var ln net.Listener
	var err error
	for i := 0; i < 50; i++ {
		if ln, err = net.Listen("tcp", r.addr); err == nil {
			break
		}
		time.Sleep(100 * time.Millisecond)
	}
	if err != nil {
		r.t.Fatalf("restarting the relay on %s: %v", r.addr, err)
	}
	r.serve(ln)
}

func (r *liveRelay) count(query string, args ...any) int {
	r.t.Helper()
	var n int
	if err := r.Pool.QueryRow(context.Background(), query, args...).Scan(&n); err != nil {
		r.t.Fatal(err)
	}
	return n
}

// tab is one browser tab on the relay's page.
type tab struct {
	t   *testing.T
	ctx context.Context
}

func (r *liveRelay) openTab(t *testing.T, ctx context.Context) *tab {
	t.Helper()
	tb := &tab{t: t, ctx: ctx}
	tb.do(chromedp.Navigate(r.URL + "/"))
	return tb
}

// newProfile opens a fresh browser profile (a new device) on the relay.
func (r *liveRelay) newProfile(t *testing.T) (*browser.Profile, *tab) {
	t.Helper()
	p := browser.New(t)
	return p, r.openTab(t, p.Ctx)
}

func (tb *tab) do(steps ...chromedp.Action[chromedp.Void]) {
	tb.t.Helper()
	ctx, cancel := context.WithTimeout(tb.ctx, 30*time.Second)
	defer cancel()
	if err := chromedp.Do(ctx, steps...); err != nil {
		tb.t.Fatalf("browser: %v", err)
	}
}

// eval runs a script and decodes its JSON result into T.
func eval[T any](tb *tab, script string) T {
	tb.t.Helper()
	ctx, cancel := context.WithTimeout(tb.ctx, 30*time.Second)
	defer cancel()
	v, err := chromedp.Run(ctx, chromedp.Evaluate[T](script, chromedp.EvalAwaitPromise))
	if err != nil {
		tb.t.Fatalf("browser: %s: %v", script, err)
	}
	return v
}

// waitFor polls a JavaScript condition until it is truthy, for up to
// 20 seconds, and fails the test with what describes it otherwise.
func (tb *tab) waitFor(what, cond string) {
	tb.t.Helper()
	ctx, cancel := context.WithTimeout(tb.ctx, 25*time.Second)
	defer cancel()
	_, err := chromedp.Run(ctx, chromedp.Poll[chromedp.Void](cond, chromedp.WithPollingInterval(50*time.Millisecond), chromedp.WithPollingTimeout(20*time.Second)))
	if err != nil {
		tb.screenshot(strings.ReplaceAll(what, " ", "-"))
		// Bounded: a client stuck in IndexedDB would hang the dump too.
		// The state, read without opening the database where there is
		// none: a read would create it.
		sctx, scancel := context.WithTimeout(tb.ctx, 5*time.Second)
		defer scancel()
		state, _ := chromedp.Run(sctx, chromedp.Evaluate[string](`(async () => { const s = await import('/sync.js'); const store = await import('/store.js'); const dbs = (await indexedDB.databases()).map(d => d.name); return JSON.stringify({conn: s.connection(), owner: s.isOwner(), linked: s.isLinked(), me: !!s.me(), streaming: s.streaming(), dbs, cursor: dbs.includes('relay') ? await store.getMeta('cursor') : null, bar: document.getElementById('conn-bar').textContent}); })()`, chromedp.EvalAwaitPromise))
		tb.t.Logf("client state: %s", state)
		tb.t.Fatalf("waiting for %s (%s): %v", what, cond, err)
	}
}

func js(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

const password = "correct horse battery"

func (tb *tab) fillAuth(user string) {
	tb.t.Helper()
	tb.waitFor("the auth form", `document.getElementById('auth-username')`)
	// Before login there is nothing to navigate to: the main navigation
	// and the connection bar are not shown.
	if !eval[bool](tb, `getComputedStyle(document.getElementById('nav')).display === 'none' && getComputedStyle(document.getElementById('me-box')).display === 'none' && getComputedStyle(document.getElementById('conn-bar')).display === 'none'`) {
		tb.t.Fatal("the navigation or the connection bar shows on the login screen")
	}
	tb.do(chromedp.SetValue(chromedp.ID("auth-username"), user), chromedp.SetValue(chromedp.ID("auth-password"), password))
	if eval[bool](tb, `(() => { const p = document.getElementById('auth-password2'); return !!p && !p.closest('[hidden]'); })()`) {
		tb.do(chromedp.SetValue(chromedp.ID("auth-password2"), password))
	}
}

// register creates an account in this tab and waits for the chat list.
func (tb *tab) register(user string) {
	tb.t.Helper()
	tb.waitFor("the auth form", `document.getElementById('tab-register')`)
	tb.do(chromedp.Click(chromedp.ID("tab-register")))
	tb.fillAuth(user)
	tb.do(chromedp.Click(chromedp.ID("register-btn")))
	tb.waitFor("the chat list", `document.getElementById('new-chat-username')`)
	tb.waitFor("the stream", `document.getElementById('conn-bar').hidden`)
}

// login logs in on a new device: it waits to be linked and shows the code.
func (tb *tab) login(user string) string {
	tb.t.Helper()
	// A browser that never held an account opens on Create account.
	tb.waitFor("the auth form", `document.getElementById('tab-login')`)
	tb.do(chromedp.Click(chromedp.ID("tab-login")))
	tb.fillAuth(user)
	tb.do(chromedp.Click(chromedp.ID("login-btn")))
	tb.waitFor("the link code", `document.getElementById('link-code')`)
	return eval[string](tb, `document.getElementById('link-code').textContent`)
}

// headerSettled is a condition: the connection bar above the header no
// longer says "Connecting…". Until the stream is open it does, and its
// going moves the header, Log out with it, up by its height: a click
// aimed before lands below the button.
const headerSettled = `(() => { const b = document.getElementById('conn-bar'); return b.hidden || b.dataset.state !== 'connecting'; })()`

// logout presses Log out and confirms in the dialog, whatever it warns.
func (tb *tab) logout() {
	tb.t.Helper()
	tb.waitFor("the header to stand still", headerSettled)
	tb.do(chromedp.Click(chromedp.ID("logout")))
	tb.waitFor("the logout dialog", `document.getElementById('leave-dialog') && document.getElementById('leave-dialog').open`)
	tb.do(chromedp.Click(chromedp.ID("leave-confirm")))
}

func (tb *tab) openChat(peer string) {
	tb.t.Helper()
	eval[chromedp.Void](tb, `location.hash = '#/chat/' + `+js(peer))
	// The chat shown before may still be on screen: wait for this one's.
	tb.waitFor("the chat with "+peer, `document.querySelector('.chat[data-chat=`+js(peer)+`] #chat-title') && document.getElementById('composer')`)
}

// waitKeyRecorded waits until this tab's client has recorded peer's key.
// A chat renders before its key lookup ends: a test that changes the key
// in the directory waits for the old one first, or the changed key could
// be the first the client sees, and nothing would have changed for it.
func (tb *tab) waitKeyRecorded(peer string) {
	tb.t.Helper()
	tb.waitFor(peer+"'s key recorded", `import('/store.js').then((s) => s.getChat(`+js(peer)+`)).then((c) => !!(c && c.publicKey))`)
}

// send types a message and presses Enter.
func (tb *tab) send(text string) {
	tb.t.Helper()
	tb.do(chromedp.SendKeys(chromedp.ID("composer"), text+kb.Enter))
}

// messages returns the texts shown in the open chat, in order.
func (tb *tab) messages() []string {
	tb.t.Helper()
	return eval[[]string](tb, `[...document.querySelectorAll('#messages .msg')].map(e => e.querySelector('.text').textContent)`)
}

func (tb *tab) waitMessage(text string) {
	tb.t.Helper()
	tb.waitFor("message "+js(text), `[...document.querySelectorAll('#messages .msg')].some(e => e.querySelector('.text').textContent === `+js(text)+`)`)
}

// screenshot saves the page as a PNG artefact in $RELAY_ARTIFACTS (default
// .artifacts/screens/ at the top of the checkout) and returns its path.
func (tb *tab) screenshot(name string) string {
	dir := os.Getenv("RELAY_ARTIFACTS")
	if dir == "" {
		dir = filepath.Join("..", ".artifacts", "screens")
	}
	_ = os.MkdirAll(dir, 0o755)
	ctx, cancel := context.WithTimeout(tb.ctx, 15*time.Second)
	defer cancel()
	png, err := chromedp.Run(ctx, chromedp.FullScreenshot(100))
	if err != nil {
		tb.t.Logf("screenshot %s: %v", name, err)
		return ""
	}
	path := filepath.Join(dir, fmt.Sprintf("%s-%s.png", tb.t.Name(), name))
	path = strings.ReplaceAll(path, "/", string(filepath.Separator))
	_ = os.MkdirAll(filepath.Dir(path), 0o755) // a subtest's name holds a slash
	if err := os.WriteFile(filepath.Clean(path), png, 0o644); err != nil {
		tb.t.Logf("screenshot %s: %v", name, err)
	}
	tb.t.Logf("screenshot: %s", path)
	return path
}

func sleep() { time.Sleep(50 * time.Millisecond) }

// deviceID returns the device id of the profile this tab belongs to.
func (tb *tab) deviceID() string {
	tb.t.Helper()
	return eval[string](tb, `import('/sync.js').then(s => s.currentDevice().id)`)
}

func (tb *tab) hasMessage(text string) bool {
	tb.t.Helper()
	return eval[bool](tb, `[...document.querySelectorAll('#messages .msg')].some(e => e.querySelector('.text').textContent === `+js(text)+`)`)
}

// receiptsSettled is a condition: the tab has no delivery or read receipt
// left to send. A test that counts queue rows or seqs waits for it on every
// tab first: receipts are envelopes too.
const receiptsSettled = `import('/store.js').then(s => s.receiptsToSend()).then(q => Object.keys(q).length === 0)`

// outboxSettled is a condition: the tab has nothing left to send: no
// message, record, read record or receipt.
const outboxSettled = `import('/store.js').then(async (s) => Object.keys(await s.receiptsToSend()).length === 0 && (await s.readRecordsToSend()).length === 0 && (await s.pendingMessages()).length === 0)`

// waitQueueEmpty waits until every device has ACKed everything.
func waitQueueEmpty(t *testing.T, r *liveRelay) {
	t.Helper()
	for i := 0; i < 200; i++ {
		if r.count(`SELECT count(*) FROM queue`) == 0 {
			return
		}
		sleep()
	}
	t.Fatalf("%d envelopes still queued: a client did not ACK", r.count(`SELECT count(*) FROM queue`))
}

// uncachedDirectory is a relay option for tests that change an account's
// key in SQL, behind the relay's API: such a change sends no notice, so a
// relay with the session cache would answer the old key from memory for up
// to 30 s (ADR 0080); without it every lookup reads the table.
func uncachedDirectory(c *relay.Config) { c.DisableSessionCache = true }

// aliceAndBob starts a relay and registers alice and bob, each in a browser
// profile of their own.
func aliceAndBob(t *testing.T, opts ...func(*relay.Config)) (*liveRelay, *tab, *tab) {
	t.Helper()
	r := startRelay(t, opts...)
	_, alice := r.newProfile(t)
	_, bob := r.newProfile(t)
	alice.register("alice")
	bob.register("bob")
	return r, alice, bob
}
