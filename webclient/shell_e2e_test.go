package webclient_test

import (
	"io/fs"
	"net/http"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"testing/fstest"

	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"

	"relay/webclient"
)

// shellCached is a condition: the page is controlled by the service
// worker and its shell cache is filled.
const shellCached = `navigator.serviceWorker.controller !== null && caches.keys().then(k => k.some(n => n.startsWith('shell-')))`

// cachedShell returns the names of the worker's caches and the paths the
// shell cache holds, sorted.
func cachedShell(tb *tab) (caches, paths []string) {
	tb.t.Helper()
	v := eval[struct{ Caches, Paths []string }](tb, `(async () => {
  const names = await caches.keys();
  const paths = [];
  for (const n of names) for (const r of await (await caches.open(n)).keys()) paths.push(new URL(r.url).pathname);
  return { Caches: names.sort(), Paths: paths.sort() };
})()`)
	return v.Caches, v.Paths
}

// TestOfflineReload: with the relay down, a reload opens the app from
// the worker's shell and shows the chat list and the history from
// IndexedDB, with the offline bar; a message written then waits, and is
// delivered exactly once when the relay is back at the same address.
// The shell cache holds the page and the client's files, never /api/.
// Without the worker's fetch handler, the reload shows Chrome's error page.
func TestOfflineReload(t *testing.T) {
	r, alice, bob := aliceAndBob(t)
	alice.openChat("bob")
	alice.send("hello bob")
	bob.openChat("alice")
	bob.waitMessage("hello bob")
	bob.send("hello alice")
	alice.waitMessage("hello alice")
	alice.waitFor("the shell cached", shellCached)
	alice.waitFor("alice's outbox settled", outboxSettled)
	bob.waitFor("bob's outbox settled", outboxSettled)

	_, sh, err := webclient.ClientFor(webclient.Embedded())
	if err != nil {
		t.Fatal(err)
	}
	caches, paths := cachedShell(alice)
	want := slices.Sorted(slices.Values(sh.Files))
	if !slices.Equal(caches, []string{"shell-" + sh.Version}) || !slices.Equal(paths, want) {
		t.Fatalf("the worker caches %q holding %q, want shell-%s holding %q", caches, paths, sh.Version, want)
	}

	r.Stop()
	alice.do(chromedp.Reload())
	alice.waitFor("the app, offline", `document.getElementById('composer') && document.querySelector('#chat-list .chat-item[data-user="bob"]')`)
	alice.waitFor("the history, offline", `(() => { const m = [...document.querySelectorAll('#messages .msg .text')].map(e => e.textContent); return m.includes('hello bob') && m.includes('hello alice'); })()`)
	alice.waitFor("the offline bar", `!document.getElementById('conn-bar').hidden && document.getElementById('conn-bar').dataset.state === 'down'`)
	// The key of the chat is known: being offline is said by the bar, not
	// by an error in the chat.
	if got := eval[string](alice, `document.getElementById('chat-error').textContent`); got != "" {
		t.Fatalf("the chat shows an error offline: %q", got)
	}
	checkScreen(alice, "offline-reload")

	alice.send("written offline")
	alice.waitFor("the message waiting", `(() => { const m = [...document.querySelectorAll('#messages .msg')].pop(); return m && m.querySelector('.text').textContent === 'written offline' && m.dataset.status === 'pending' && m.textContent.includes('cannot be reached'); })()`)

	r.Start()
	alice.waitFor("the stream back", `document.getElementById('conn-bar').hidden`)
	bob.waitMessage("written offline")
	alice.waitFor("sent", `(() => { const m = [...document.querySelectorAll('#messages .msg')].pop(); return m && m.querySelector('.text').textContent === 'written offline' && m.dataset.status === 'sent'; })()`)
	alice.waitFor("alice's outbox settled", outboxSettled)
	bob.waitFor("bob's outbox settled", outboxSettled)
	waitQueueEmpty(t, r)
	if n := eval[int](bob, `import('/store.js').then(s => s.getMessages('alice')).then(ms => ms.filter(m => m.text === 'written offline').length)`); n != 1 {
		t.Fatalf("bob holds the message written offline %d times, want once", n)
	}
	if n := r.count(`SELECT count(*) FROM sessions`); n == 0 {
		t.Fatal("no session to end")
	}

	// A 401 still means logged out: the relay is up and the session gone.
	// The notice is what the relay's own changes send, so that its session
	// cache forgets at once (ADR 0072).
	if _, err := r.Pool.Exec(t.Context(), `DELETE FROM sessions; SELECT pg_notify('relay_auth', 'all')`); err != nil {
		t.Fatal(err)
	}
	alice.do(chromedp.Reload())
	alice.waitFor("the session ended", `document.getElementById('conn-bar').dataset.state === 'loggedout'`)
}

// TestShellUpdate: a relay whose client changed serves a service worker
// with another version; the next load installs it, which caches the new
// shell and deletes the old cache.
func TestShellUpdate(t *testing.T) {
	var next atomic.Pointer[http.Handler]
	r := startWrapped(t, clientFrom(&next))
	_, old, err := webclient.ClientFor(webclient.Embedded())
	if err != nil {
		t.Fatal(err)
	}
	_, tb := r.newProfile(t)
	tb.waitFor("the first screen", `document.getElementById('auth-username')`)
	tb.waitFor("the shell cached", shellCached)
	if caches, _ := cachedShell(tb); !slices.Equal(caches, []string{"shell-" + old.Version}) {
		t.Fatalf("caches %q, want shell-%s", caches, old.Version)
	}

	// The next deploy: one byte more in the style sheet.
	h, sh := changedClient(t, "app.css", func(b []byte) []byte { return append(slices.Clip(b), "/* the next deploy */\n"...) })
	if sh.Version == old.Version {
		t.Fatal("a changed client has the same shell version")
	}
	next.Store(&h)
	tb.do(chromedp.Reload())
	tb.waitFor("the new shell alone", `caches.keys().then(k => k.length === 1 && k[0] === `+js("shell-"+sh.Version)+`)`)
	if !eval[bool](tb, `caches.open(`+js("shell-"+sh.Version)+`).then(c => c.match('/app.css')).then(r => r.text()).then(t => t.includes('the next deploy'))`) {
		t.Fatal("the new shell cache does not hold the new style sheet")
	}
}

// drawLog is run in every page of a tab before the app's scripts: it
// writes down each node a screen puts into the view, by id or class (the
// page's own loading text and noscript are not drawn by a screen).
const drawLog = `(() => {
  window.testDraws = [];
  new MutationObserver((recs) => {
    for (const r of recs) if (r.target.id === 'view') for (const n of r.addedNodes) {
      if (n.nodeType === 1 && n.id !== 'status' && n.tagName !== 'NOSCRIPT') window.testDraws.push(n.id || n.className);
    }
  }).observe(document, { childList: true, subtree: true });
  if (location.search === '?hash-while-loading') addEventListener('DOMContentLoaded', () => { location.hash = '#/settings'; }, { once: true });
})()`

// TestSettingsDrawnOnce: a page that starts on Settings draws it once and
// nothing before it, whether the hash was there at the load (a reload on
// Settings) or came while the session was read from IndexedDB. Before, the
// hash and the session both routed: the first route drew the login screen
// (the session not read yet) or Settings, and the second Settings again.
func TestSettingsDrawnOnce(t *testing.T) {
	r := startRelay(t)
	p, tb := r.newProfile(t)
	tb.register("alice")
	ctx, _ := p.NewTab(t)
	if _, err := chromedp.Call(ctx, page.AddScriptToEvaluateOnNewDocument, page.AddScriptToEvaluateOnNewDocumentParams{Source: drawLog}); err != nil {
		t.Fatal(err)
	}
	tb.do(chromedp.Navigate("about:blank")) // one tab of the profile on the app
	for _, c := range []struct{ name, url string }{
		{"reload on Settings", r.URL + "/#/settings"},
		{"the hash while loading", r.URL + "/?hash-while-loading"},
	} {
		st := &tab{t: t, ctx: ctx}
		st.do(chromedp.Navigate("about:blank"), chromedp.Navigate(c.url))
		st.waitFor("Settings, with the stream", `document.getElementById('notify-switch') && document.getElementById('recovery-status') && document.getElementById('conn-bar').hidden && window.testDraws.length > 0`)
		if draws := eval[[]string](st, `window.testDraws`); !slices.Equal(draws, []string{"settings", "history", "app-lock", "privacy", "delete-section"}) {
			t.Fatalf("%s: the view drew %q, want Settings once", c.name, draws)
		}
	}
}

// chatFocus is the username of the chat-list row that has the focus, or
// "" when the focus is elsewhere.
const chatFocus = `(() => { const a = document.activeElement; return a && a.matches('#chat-list a') ? a.closest('.chat-item').dataset.user : ''; })()`

// TestChatListKeys: the chat list is one Tab stop; with real key events,
// the arrows move between the rows (no wrap at the ends), Home and End go
// to the first and the last, Enter and Space open the chat focused; once a
// chat is open, Tab into the list lands on its row. axe-core finds nothing
// serious on the list.
func TestChatListKeys(t *testing.T) {
	r, alice, bob := aliceAndBob(t)
	_, carol := r.newProfile(t)
	carol.register("carol")
	bob.openChat("alice")
	bob.send("from bob")
	alice.waitFor("bob's row", `document.querySelector('#chat-list .chat-item[data-user="bob"]')`)
	carol.openChat("alice")
	carol.send("from carol")
	alice.waitFor("carol's row", `document.querySelector('#chat-list .chat-item[data-user="carol"]')`)
	alice.openChat("alice")
	alice.send("a note")
	alice.waitFor("the note sent", `document.querySelector('#messages .msg.out[data-status="sent"]')`)
	eval[chromedp.Void](alice, `location.hash = '#/chats'`)
	alice.waitFor("three rows", `document.querySelectorAll('#chat-list .chat-item').length === 3 && !document.getElementById('messages')`)
	if got := chatListOrder(alice); got != "alice carol bob" {
		t.Fatalf("chat list %q, want alice carol bob", got)
	}
	stops := func() int {
		return eval[int](alice, `[...document.querySelectorAll('#chat-list a')].filter(a => a.tabIndex === 0).length`)
	}
	key := func(k string, want string) {
		t.Helper()
		alice.do(chromedp.KeyEvent(k))
		if got := eval[string](alice, chatFocus); got != want {
			t.Fatalf("after %q the focus is on %q, want %q", k, got, want)
		}
	}
	if n := stops(); n != 1 {
		t.Fatalf("%d rows take a Tab stop, want 1", n)
	}
	alice.do(chromedp.Focus(chromedp.ID("new-group-link")))
	key(kb.Tab, "alice")
	key(kb.ArrowDown, "carol")
	key(kb.ArrowDown, "bob")
	key(kb.ArrowDown, "bob")
	key(kb.Home, "alice")
	key(kb.ArrowUp, "alice")
	key(kb.End, "bob")
	key(kb.ArrowUp, "carol")
	if n := stops(); n != 1 {
		t.Fatalf("%d rows take a Tab stop after moving, want 1", n)
	}
	// One Tab stop: Tab leaves the list, Shift+Tab comes back to the row.
	key(kb.Tab, "")
	alice.do(chromedp.KeyEvent(kb.Tab, chromedp.KeyModifiers(chromedp.ModifierShift)))
	if got := eval[string](alice, chatFocus); got != "carol" {
		t.Fatalf("Shift+Tab back into the list: the focus is on %q, want carol", got)
	}
	checkScreen(alice, "chat-list-keys")
	alice.do(chromedp.EmulateViewport(1280, 800))
	alice.do(chromedp.Focus(chromedp.CSS(`#chat-list .chat-item[data-user="carol"] a`)))
	alice.do(chromedp.KeyEvent(kb.Enter))
	alice.waitFor("carol's chat, by Enter", `location.hash === '#/chat/carol' && document.querySelector('.chat[data-chat="carol"]')`)

	// Side by side, the open chat's row is the Tab stop.
	alice.do(chromedp.Focus(chromedp.ID("new-group-link")))
	key(kb.Tab, "carol")
	key(kb.ArrowDown, "bob")
	alice.do(chromedp.KeyEvent(" "))
	alice.waitFor("bob's chat, by Space", `location.hash === '#/chat/bob' && document.querySelector('.chat[data-chat="bob"]')`)
	alice.do(chromedp.Focus(chromedp.ID("new-group-link")))
	key(kb.Tab, "bob")
}

// clientFrom is a relay's wrapper that serves the client's files from
// the handler in served when there is one, and everything else as the
// relay does.
func clientFrom(served *atomic.Pointer[http.Handler]) func(http.Handler) http.Handler {
	return func(h http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
			if c := served.Load(); c != nil && !strings.HasPrefix(req.URL.Path, "/api/") {
				(*c).ServeHTTP(w, req)
				return
			}
			h.ServeHTTP(w, req)
		})
	}
}

// changedClient is the client with its file name changed by change,
// served as the relay serves it, and its shell.
func changedClient(t *testing.T, name string, change func([]byte) []byte) (http.Handler, webclient.Shell) {
	t.Helper()
	changed := fstest.MapFS{}
	if err := fs.WalkDir(webclient.Embedded(), ".", func(file string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := fs.ReadFile(webclient.Embedded(), file)
		if file == name {
			b = change(b)
		}
		changed[file] = &fstest.MapFile{Data: b}
		return err
	}); err != nil {
		t.Fatal(err)
	}
	h, sh, err := webclient.ClientFor(changed)
	if err != nil {
		t.Fatal(err)
	}
	return h, sh
}
