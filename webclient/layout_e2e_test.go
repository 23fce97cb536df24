package webclient_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/cdproto/fetch"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"

	"relay/internal/browser"
)

// Worst cases for the layout: usernames of the longest length allowed, a
// text with no place to break and a preview longer than any row.
const (
	longPeer  = "zelda_has_the_longest_name_32chr"
	longOwn   = "oscar_owns_a_very_long_name_1234"
	longWord  = "Supercalifragilisticexpialidocious-and-then-some-more-without-any-space-to-break-at-all-0123456789-0123456789-0123456789"
	longLine  = "A preview longer than any chat-list row can show, so that it must end in an ellipsis instead of widening the page for everyone"
	shortText = "ok"
)

// rect is an element's box in CSS pixels.
type rect struct {
	Top, Bottom, Left, Right, Width, Height float64
	Shown                                   bool
}

func boxOf(tb *tab, selector string) rect {
	tb.t.Helper()
	return eval[rect](tb, `(() => { const e = document.querySelector(`+js(selector)+`); if (!e) return {Shown: false}; const r = e.getBoundingClientRect(); return {Top: r.top, Bottom: r.bottom, Left: r.left, Right: r.right, Width: r.width, Height: r.height, Shown: r.width > 0 && r.height > 0}; })()`)
}

func viewportHeight(tb *tab) float64 {
	tb.t.Helper()
	return eval[float64](tb, `innerHeight`)
}

// TestScreensAtEveryWidth walks through every screen with the longest
// names and texts, at 320, 390 and 1280 px: nothing sticks out sideways,
// axe-core finds nothing serious, and screenshots of each are saved.
// In the chat, the header and the composer are on screen, the messages
// scroll between them, and a short message's bubble fits its text on both
// sides. From 900 px the chat list and the chat are side by side.
func TestScreensAtEveryWidth(t *testing.T) {
	r := startRelay(t)
	_, own := r.newProfile(t)
	_, peer := r.newProfile(t)
	own.waitFor("the first screen", `document.getElementById('auth-username')`)
	checkScreen(own, "register")
	own.do(chromedp.Click(chromedp.ID("tab-login")))
	checkScreen(own, "login")
	own.register(longOwn)
	peer.register(longPeer)

	peer.openChat(longOwn)
	peer.send(longWord)
	peer.send(shortText)
	peer.send(longLine)
	own.waitFor("the long preview in the list", `[...document.querySelectorAll('.chat-item .preview')].some(p => p.textContent.startsWith('A preview longer'))`)
	checkScreen(own, "chats", func(w int64) {
		// The header holds the longest own name in at most two rows.
		if h := boxOf(own, "header.top").Height; h > 100 || (w >= 900 && h > 60) {
			own.screenshot(fmt.Sprintf("header-%d", w))
			t.Fatalf("at %d px the header is %.0f px high", w, h)
		}
	})

	own.openChat(longPeer)
	own.waitMessage(longLine)
	own.send(shortText)
	own.waitFor("own ok sent", `document.querySelector('#messages .msg.out[data-status="sent"]')`)
	chatLayout := func(w int64) {
		t.Helper()
		vh := viewportHeight(own)
		head, composer, list := boxOf(own, ".chat-head"), boxOf(own, ".composer"), boxOf(own, "#messages")
		if !head.Shown || head.Top < 0 || !composer.Shown || composer.Bottom > vh+0.5 || composer.Top < head.Bottom {
			own.screenshot(fmt.Sprintf("chat-%d-off-screen", w))
			t.Fatalf("at %d px: chat header %+v, composer %+v, viewport %.0f px high", w, head, composer, vh)
		}
		if list.Top < head.Bottom-0.5 || list.Bottom > composer.Top+0.5 {
			t.Fatalf("at %d px the messages (%+v) are not between the header and the composer", w, list)
		}
		// The page itself does not scroll: the messages do.
		if eval[bool](own, `document.scrollingElement.scrollHeight > innerHeight + 1`) {
			t.Fatalf("at %d px the page scrolls, not the messages", w)
		}
		// A bubble is as wide as what it holds, plus its padding.
		for _, dir := range []string{"in", "out"} {
			fit := eval[[]float64](own, `(() => { const e = [...document.querySelectorAll('#messages .msg.`+dir+`')].find(m => m.firstChild.textContent === `+js(shortText)+`); const widths = [...e.children].map(c => { const rg = document.createRange(); rg.selectNodeContents(c); return rg.getBoundingClientRect().width; }); return [e.getBoundingClientRect().width, Math.max(...widths)]; })()`)
			if fit[0] > fit[1]+40 {
				t.Fatalf("at %d px the %s bubble of %q is %.0f px wide for %.0f px of content: it should fit", w, dir, shortText, fit[0], fit[1])
			}
		}
		listPane, chatPane := boxOf(own, "#list-pane"), boxOf(own, "#chat-pane")
		if w >= 900 && !(listPane.Shown && chatPane.Shown && listPane.Right <= chatPane.Left+0.5) {
			t.Fatalf("at %d px the chat list (%+v) is not beside the chat (%+v)", w, listPane, chatPane)
		}
		if w < 900 && listPane.Shown {
			t.Fatalf("at %d px the chat list shows beside the chat", w)
		}
	}
	checkScreen(own, "chat", chatLayout)
	// What an ellipsis cuts is in the tooltip.
	if !eval[bool](own, `document.getElementById('chat-title').title === `+js(longPeer)+` && document.querySelector('#chat-list .chat-item .name').title === `+js(longPeer)+` && document.getElementById('whoami').title === `+js(longOwn)) {
		t.Fatal("a cut name has no tooltip with its full form")
	}
	if !eval[bool](own, `getComputedStyle(document.querySelector('#messages .msg.in')).backgroundColor !== getComputedStyle(document.getElementById('chat-pane')).backgroundColor`) {
		t.Fatal("incoming bubbles have the colour of the chat behind them")
	}

	own.do(chromedp.Click(chromedp.ID("safety-btn")))
	own.waitFor("the safety code in the panel", `/^\d{5}( \d{5}){5}$/.test(document.getElementById('safety-code').textContent)`)
	checkScreen(own, "chat-info", chatLayout)

	eval[chromedp.Void](own, `location.hash = '#/devices'`)
	own.waitFor("the device list", `document.querySelector('#device-list .device')`)
	checkScreen(own, "devices")
	eval[chromedp.Void](own, `location.hash = '#/settings'`)
	own.waitFor("the settings", `document.getElementById('recovery-create')`)
	checkScreen(own, "settings")

	own.do(chromedp.Click(chromedp.ID("logout")))
	own.waitFor("the logout dialog", `document.getElementById('leave-dialog') && document.getElementById('leave-dialog').open`)
	checkScreen(own, "logout-dialog")
	own.do(chromedp.Click(chromedp.CSS("#leave-dialog .dialog-cancel")))

	_, second := r.newProfile(t)
	second.login(longOwn)
	checkScreen(second, "waiting")
	if got := eval[string](second, `document.title`); !strings.HasPrefix(got, "relay") {
		t.Fatalf("title %q", got)
	}
}

// sendMany has tb send n messages to peer, named prefix 0 … prefix n-1,
// through the client's outbox, without typing each.
func sendMany(tb *tab, peer, prefix string, n int) {
	tb.t.Helper()
	eval[chromedp.Void](tb, fmt.Sprintf(`import('/sync.js').then(async (s) => { for (let i = 0; i < %d; i++) await s.sendText(%s, %s + i); })`, n, js(peer), js(prefix)))
}

// inList is a condition: the element is inside the visible part of the
// messages list.
func inList(selector string) string {
	return `(() => { const e = document.querySelector(` + js(selector) + `); const l = document.getElementById('messages'); if (!e || !l) return false; const r = e.getBoundingClientRect(), lr = l.getBoundingClientRect(); return r.top >= lr.top - 1 && r.bottom <= lr.bottom + 1; })()`
}

func msgSelector(tb *tab, text string) string {
	tb.t.Helper()
	id := eval[string](tb, `(() => { const m = [...document.querySelectorAll('#messages .msg')].find(e => e.firstChild.textContent === `+js(text)+`); return m ? m.dataset.id : ''; })()`)
	if id == "" {
		tb.t.Fatalf("no message %q on screen", text)
	}
	return fmt.Sprintf(`#messages .msg[data-id=%q]`, id)
}

// TestChatScrolling: opening a chat with 40 unread messages lands at the
// "New messages" divider (before, at the bottom, 40 messages below it).
// Scrolled up, new messages wait behind a "New messages ↓" button with
// their count, the rows already shown stay the same nodes, and the live
// region reads out only the new messages. The button goes to the bottom.
// A message sent while scrolled up is scrolled into view.
func TestChatScrolling(t *testing.T) {
	_, alice, bob := aliceAndBob(t)
	alice.do(chromedp.EmulateViewport(390, 700))
	bob.openChat("alice")
	sendMany(bob, "alice", "read ", 10)
	alice.openChat("bob")
	alice.waitMessage("read 9")
	eval[chromedp.Void](alice, `location.hash = '#/chats'`)
	alice.waitFor("all read", unreadIs("bob", 0))
	sendMany(bob, "alice", "unread ", 40)
	alice.waitFor("40 unread", unreadIs("bob", 40))

	alice.openChat("bob")
	alice.waitMessage("unread 39")
	alice.waitFor("the divider in view on open", inList("#messages .new-divider"))
	if !eval[bool](alice, inList(msgSelector(alice, "unread 0"))) {
		t.Fatal("the first unread message is not in view on open")
	}
	if eval[bool](alice, inList(msgSelector(alice, "unread 39"))) {
		t.Fatal("the newest message is in view too: the test needs more messages to tell the divider from the bottom")
	}
	alice.screenshot("divider-on-open")
	// Read to the end: the button counts the unread messages below the view.
	eval[chromedp.Void](alice, `document.getElementById('messages').scrollTop = document.getElementById('messages').scrollHeight`)
	alice.waitFor("all read at the bottom", `import('/store.js').then(s => s.getChat('bob')).then(c => c.unread === 0)`)

	// Scrolled up: new messages wait behind the button.
	eval[chromedp.Void](alice, `(() => { const l = document.getElementById('messages'); l.scrollTop = 0; window.probe = l.querySelector('.msg'); })()`)
	if eval[bool](alice, `document.getElementById('messages').hasAttribute('aria-live')`) {
		t.Fatal("the whole message list is a live region: every update would be read out")
	}
	bob.send("while you were up 1")
	bob.send("while you were up 2")
	alice.waitFor("the New messages button with 2", `(() => { const b = document.getElementById('jump-new'); return b && !b.hidden && b.querySelector('.count').textContent === '2'; })()`)
	alice.screenshot("new-messages-button")
	if !eval[bool](alice, `window.probe.isConnected && window.probe === document.querySelector('#messages .msg')`) {
		t.Fatal("a row that did not change was replaced")
	}
	said := eval[string](alice, `document.getElementById('announce').textContent`)
	if !strings.Contains(said, "while you were up 2") || strings.Contains(said, "unread 0") || strings.Contains(said, "read 9") {
		t.Fatalf("the live region says %q: it should hold the new message only", said)
	}
	if eval[float64](alice, `document.getElementById('messages').scrollTop`) > 1 {
		t.Fatal("the chat jumped away from where it was scrolled to")
	}
	alice.do(chromedp.Click(chromedp.ID("jump-new")))
	alice.waitFor("the newest in view and the button gone", inList(msgSelector(alice, "while you were up 2"))+` && document.getElementById('jump-new').hidden`)

	// Scrolled up again, a message of one's own comes into view.
	eval[chromedp.Void](alice, `document.getElementById('messages').scrollTop = 0`)
	alice.send("mine, from up there")
	alice.waitMessage("mine, from up there")
	alice.waitFor("the own message in view", inList(`#messages .msg.out:last-of-type`))
}

// chatListOrder is the chat list's users, top to bottom.
func chatListOrder(tb *tab) string {
	tb.t.Helper()
	return strings.Join(eval[[]string](tb, `[...document.querySelectorAll('#chat-list .chat-item')].map(e => e.dataset.user)`), " ")
}

// TestChatListRows: each row shows the last message's time, "You:" when
// it was one's own, bold and a count when unread, and a marker while a
// message is not sent; the rows are by last activity, the tab's title
// counts what is unread, and an update leaves the rows it does not
// change alone.
func TestChatListRows(t *testing.T) {
	r, alice, bob := aliceAndBob(t)
	_, carol := r.newProfile(t)
	carol.register("carol")
	bob.openChat("alice")
	bob.send("from bob")
	carol.openChat("alice")
	carol.send("from carol 1")
	carol.send("from carol 2")
	alice.waitFor("carol's two unread", unreadIs("carol", 2))
	alice.waitFor("bob's one unread", unreadIs("bob", 1))
	if got := chatListOrder(alice); got != "carol bob" {
		t.Fatalf("chat list %q, want carol (newest) first", got)
	}
	if got := eval[string](alice, `document.title`); got != "(3) relay" {
		t.Fatalf("title %q, want (3) relay", got)
	}
	row := `#chat-list .chat-item[data-user="carol"]`
	if !eval[bool](alice, `(() => { const r = document.querySelector(`+js(row)+`); return r.classList.contains('has-unread') && Number(getComputedStyle(r.querySelector('.name')).fontWeight) >= 700 && /\d/.test(r.querySelector('.chat-time').textContent) && !r.querySelector('.you'); })()`) {
		t.Fatal("carol's unread row is not bold, or shows no time, or says You:")
	}
	if eval[bool](alice, `Number(getComputedStyle(document.querySelector('#chat-list .chat-item[data-user="bob"] .name')).fontWeight) < 700`) {
		t.Fatal("bob's unread row is not bold")
	}
	eval[chromedp.Void](alice, `window.probe = document.querySelector('#chat-list .chat-item[data-user="carol"]')`)

	// alice answers bob: bob's chat goes to the top, with "You:", read.
	alice.openChat("bob")
	alice.send("answer to bob")
	alice.waitFor("the answer sent", `document.querySelector('#messages .msg.out[data-status="sent"]')`)
	eval[chromedp.Void](alice, `location.hash = '#/chats'`)
	alice.waitFor("bob's row with You:", `(() => { const r = document.querySelector('#chat-list .chat-item[data-user="bob"]'); return r && r.querySelector('.you') && r.querySelector('.you').textContent.trim() === 'You:' && r.querySelector('.preview').textContent === 'answer to bob' && !r.classList.contains('has-unread'); })()`)
	if got := chatListOrder(alice); got != "bob carol" {
		t.Fatalf("chat list %q, want bob (newest) first", got)
	}
	if got := eval[string](alice, `document.title`); got != "(2) relay" {
		t.Fatalf("title %q, want (2) relay", got)
	}
	if !eval[bool](alice, `window.probe.isConnected && window.probe === document.querySelector('#chat-list .chat-item[data-user="carol"]')`) {
		t.Fatal("carol's row was rebuilt though nothing of it changed")
	}

	// A message the relay cannot take yet: marked in the list.
	r.Stop()
	alice.openChat("carol")
	alice.send("while the relay is down")
	alice.waitFor("the message waiting", `document.querySelector('#messages .msg.out[data-status="pending"]')`)
	eval[chromedp.Void](alice, `location.hash = '#/chats'`)
	alice.waitFor("the waiting marker on carol's row", `(() => { const m = document.querySelector('#chat-list .chat-item[data-user="carol"] .pending-marker'); return m && m.textContent === 'Waiting to send'; })()`)
	checkScreen(alice, "chat-list-rows")
	r.Start()
	alice.waitFor("the marker gone once sent", `document.querySelector('#chat-list .chat-item[data-user="carol"]') && !document.querySelector('#chat-list .chat-item[data-user="carol"] .marker')`)

	// A message the relay refuses: Not sent, until it is retried.
	fctx, cancel := context.WithCancel(alice.ctx)
	defer cancel()
	// Subscribed here, not in the goroutine: a request paused before
	// it would be lost, and hang.
	paused := chromedp.Events(fctx, fetch.RequestPaused)
	go func() {
		for ev, err := range paused {
			if err != nil {
				return
			}
			_, _ = chromedp.Call(fctx, fetch.FulfillRequest, fetch.FulfillRequestParams{
				RequestID: ev.RequestID, ResponseCode: 400,
				ResponseHeaders: []*fetch.HeaderEntry{{Name: "Content-Type", Value: "application/json"}},
				Body:            []byte(`{"error":"bad_request","message":"refused for the test"}`),
			})
		}
	}()
	if _, err := chromedp.Call(fctx, fetch.Enable, fetch.EnableParams{Patterns: []*fetch.RequestPattern{{URLPattern: "*/api/messages", RequestStage: fetch.RequestStageRequest}}}); err != nil {
		t.Fatal(err)
	}
	alice.openChat("bob")
	alice.send("refused")
	alice.waitFor("the refusal", `document.querySelector('#messages .msg.failed')`)
	eval[chromedp.Void](alice, `location.hash = '#/chats'`)
	alice.waitFor("the Not sent marker on bob's row", `(() => { const m = document.querySelector('#chat-list .chat-item[data-user="bob"] .failed-marker'); return m && m.textContent === 'Not sent'; })()`)
}

// TestChatInfoVerified: the safety code is in the chat-info panel, which
// the Safety code button opens (aria-expanded) and Esc closes, giving
// focus back. "Mark as verified" shows in the chat's header, stays over a
// reload, and is gone with the key-change warning. Notes to self has no
// safety code.
func TestChatInfoVerified(t *testing.T) {
	r, alice, bob := aliceAndBob(t, uncachedDirectory)
	bob.openChat("alice")
	bob.send("hi")
	alice.openChat("bob")
	alice.waitMessage("hi")
	if eval[bool](alice, `!!document.querySelector('#safety-code') && !document.getElementById('chat-info').hidden`) {
		t.Fatal("the safety code shows before it is asked for")
	}
	alice.do(chromedp.Click(chromedp.ID("safety-btn")))
	alice.waitFor("the open panel with the code", `document.getElementById('safety-btn').getAttribute('aria-expanded') === 'true' && /^\d{5}( \d{5}){5}$/.test(document.getElementById('safety-code').textContent)`)
	if !eval[bool](alice, `document.getElementById('verified-badge').hidden`) {
		t.Fatal("the chat says verified before anyone verified it")
	}
	alice.do(chromedp.Click(chromedp.ID("verify-btn")))
	alice.waitFor("the verified mark in the header", `!document.getElementById('verified-badge').hidden && document.getElementById('verify-btn').textContent === 'Remove verification'`)
	alice.screenshot("verified")
	alice.do(chromedp.KeyEvent(kb.Escape))
	alice.waitFor("Esc to close the panel and focus the button", `document.getElementById('chat-info').hidden && document.getElementById('safety-btn').getAttribute('aria-expanded') === 'false' && document.activeElement === document.getElementById('safety-btn')`)

	alice.do(chromedp.Reload())
	alice.waitFor("the verified mark after a reload", `document.getElementById('verified-badge') && !document.getElementById('verified-badge').hidden`)

	// bob's key changes: the warning comes, the mark goes.
	if _, err := r.Pool.Exec(t.Context(), `UPDATE accounts SET public_key = (SELECT public_key FROM accounts WHERE username = 'alice') WHERE username = 'bob'`); err != nil {
		t.Fatal(err)
	}
	eval[chromedp.Void](alice, `location.hash = '#/chats'`)
	alice.waitFor("the chat list", `document.getElementById('chat-list')`)
	alice.openChat("bob")
	alice.waitFor("the key-change warning without the mark", `document.getElementById('key-warning') && document.getElementById('verified-badge').hidden`)
	alice.do(chromedp.Click(chromedp.ID("safety-btn")))
	alice.waitFor("the panel: not verified", `document.getElementById('verify-btn').textContent === 'Mark as verified' && !document.getElementById('chat-info').hidden`)
	checkScreen(alice, "key-changed")

	alice.openChat("alice")
	alice.do(chromedp.Click(chromedp.ID("safety-btn")))
	alice.waitFor("the notes-to-self panel", `!document.getElementById('chat-info').hidden`)
	if eval[bool](alice, `!!document.getElementById('safety-code') || !!document.getElementById('verify-btn') || /safety code/i.test(document.getElementById('chat-info').textContent.replace('no one to compare a safety code with', ''))`) {
		t.Fatalf("Notes to self shows a safety code: %q", eval[string](alice, `document.getElementById('chat-info').textContent`))
	}
}

// TestFirstScreen: a browser that never held an account opens on Create
// account, one that did on Log in. Switching keeps what was typed; the
// username is lower-cased and its rule shown before any mistake; the
// password rule is shown and a confirmation asked; mistakes and the
// relay's refusals are sentences; progress is not in the error colour;
// a disabled button looks disabled. After registering, focus is in New
// chat.
func TestFirstScreen(t *testing.T) {
	r := startRelay(t)
	_, tb := r.newProfile(t)
	tb.waitFor("the first screen", `document.getElementById('auth-username')`)
	if !eval[bool](tb, `document.getElementById('tab-register').getAttribute('aria-selected') === 'true' && document.getElementById('register-btn') && document.querySelector('[role=tabpanel]').getAttribute('aria-labelledby') === 'tab-register'`) {
		t.Fatal("a new browser does not open on Create account")
	}
	if got := eval[int](tb, `(document.body.innerText.match(/Create account/g) || []).length`); got > 2 {
		t.Fatalf("Create account is written %d times", got)
	}
	user := `document.getElementById('auth-username')`
	if !eval[bool](tb, user+`.autocapitalize === 'none' && document.getElementById('auth-hint').textContent.includes('a–z') && `+user+`.getAttribute('aria-describedby').includes('auth-hint') && document.getElementById('auth-pass-hint').textContent.includes('8')`) {
		t.Fatal("the username's or the password's rule is not shown up front")
	}
	tb.do(chromedp.SendKeys(chromedp.ID("auth-username"), "Alice"))
	if got := eval[string](tb, user+`.value`); got != "alice" {
		t.Fatalf("the username field holds %q, want alice", got)
	}
	tb.do(chromedp.SetValue(chromedp.ID("auth-username"), "al ice"))
	tb.do(chromedp.SetValue(chromedp.ID("auth-password"), password))
	tb.do(chromedp.SetValue(chromedp.ID("auth-password2"), password))
	tb.do(chromedp.Click(chromedp.ID("register-btn")))
	tb.waitFor("the username mistake as a sentence", `document.getElementById('auth-error').textContent.includes('only a–z, 0–9 and _') && `+user+`.getAttribute('aria-invalid') === 'true'`)
	tb.do(chromedp.SetValue(chromedp.ID("auth-username"), "alice"))
	tb.do(chromedp.SetValue(chromedp.ID("auth-password2"), "something else"))
	tb.do(chromedp.Click(chromedp.ID("register-btn")))
	tb.waitFor("the confirmation mistake", `document.getElementById('auth-error').textContent.includes('two passwords differ')`)
	checkScreen(tb, "register-mistake")

	// Switching keeps what was typed.
	tb.do(chromedp.Click(chromedp.ID("tab-login")))
	if !eval[bool](tb, user+`.value === 'alice' && document.getElementById('auth-password').value === `+js(password)+` && !!document.getElementById('login-btn') && !!document.getElementById('auth-password2').closest('[hidden]')`) {
		t.Fatal("switching to Log in lost what was typed")
	}
	// The password rule is for a new password: Log in does not show it.
	passRuleShown := `document.getElementById('auth-pass-hint').checkVisibility() && document.getElementById('auth-password').getAttribute('aria-describedby') === 'auth-pass-hint'`
	if eval[bool](tb, `document.getElementById('auth-pass-hint').checkVisibility() || document.getElementById('auth-password').hasAttribute('aria-describedby')`) {
		t.Fatal("Log in shows the password rule meant for Create account")
	}
	// Arrow keys move along the tabs.
	tb.do(chromedp.Focus(chromedp.ID("tab-login")), chromedp.KeyEvent(kb.ArrowLeft))
	tb.waitFor("the arrow key to select Create account", `document.getElementById('tab-register').getAttribute('aria-selected') === 'true' && document.activeElement.id === 'tab-register'`)
	if !eval[bool](tb, passRuleShown) {
		t.Fatal("back on Create account, the password rule is not shown")
	}
	tb.do(chromedp.Click(chromedp.ID("tab-login")))

	// The relay's refusal, as a sentence; the progress text is not red.
	tb.do(chromedp.Click(chromedp.ID("login-btn")))
	tb.waitFor("the refusal as a sentence", `document.getElementById('auth-error').textContent === 'That username and password do not match. Check both, then try again.'`)
	if !eval[bool](tb, `(() => { const p = document.getElementById('auth-progress'); p.textContent = 'x'; const c = getComputedStyle(p).color; p.textContent = ''; return c !== getComputedStyle(document.getElementById('auth-error')).color && !p.classList.contains('error'); })()`) {
		t.Fatal("the progress text is in the error colour")
	}
	if !eval[bool](tb, `(() => { const b = document.getElementById('login-btn'); const on = getComputedStyle(b).backgroundColor; b.disabled = true; const off = getComputedStyle(b); const res = off.backgroundColor !== on && off.cursor === 'not-allowed'; b.disabled = false; return res; })()`) {
		t.Fatal("a disabled button looks like an enabled one")
	}

	tb.do(chromedp.Click(chromedp.ID("tab-register")))
	tb.do(chromedp.SetValue(chromedp.ID("auth-password2"), password))
	tb.do(chromedp.Click(chromedp.ID("register-btn")))
	tb.waitFor("focus in New chat after registering", `document.activeElement && document.activeElement.id === 'new-chat-username'`)

	// Having had an account, the browser opens on Log in.
	tb.logout()
	tb.waitFor("the Log in tab after the logout", `document.getElementById('tab-login') && document.getElementById('tab-login').getAttribute('aria-selected') === 'true' && document.getElementById('login-btn')`)
	tb.do(chromedp.Reload())
	tb.waitFor("the Log in tab after a reload", `document.getElementById('tab-login') && document.getElementById('tab-login').getAttribute('aria-selected') === 'true'`)
	if eval[bool](tb, `Object.keys(localStorage).some(k => localStorage.getItem(k).includes('alice'))`) {
		t.Fatal("localStorage holds the username")
	}
}

// fixedClockJS stops the page's clock at Thursday 12 March 2026, 10:00
// in the page's time zone, before any of its scripts runs.
const fixedClockJS = `(() => {
  const RealDate = Date;
  const now = new RealDate(2026, 2, 12, 10, 0, 0).getTime();
  class FixedDate extends RealDate {
    constructor(...a) { if (a.length === 0) super(now); else super(...a); }
    static now() { return now; }
  }
  globalThis.Date = FixedDate;
})();`

// TestTimes: with the page's clock fixed and its locale and time zone
// set, a date separator says Today, Yesterday, the weekday within the
// week, then the date, the year only when it is another year's; the time
// of day and the chat list's short times follow the locale.
func TestTimes(t *testing.T) {
	r := startRelay(t)
	p := browser.New(t)
	if _, err := chromedp.Call(p.Ctx, page.AddScriptToEvaluateOnNewDocument, page.AddScriptToEvaluateOnNewDocumentParams{Source: fixedClockJS}); err != nil {
		t.Fatal(err)
	}
	if _, err := chromedp.Call(p.Ctx, emulation.SetTimezoneOverride, emulation.SetTimezoneOverrideParams{TimezoneID: "Europe/Berlin"}); err != nil {
		t.Fatal(err)
	}
	labels := func(tb *tab) map[string]string {
		t.Helper()
		return eval[map[string]string](tb, `import('/time.js').then((tm) => {
  const at = (d, h, m) => new Date(2026, 2, d, h, m).getTime();
  const now = Date.now();
  return {
    today: tm.day(at(12, 0, 5), now), yesterday: tm.day(at(11, 23, 59), now), monday: tm.day(at(9, 8, 0), now),
    lastWeek: tm.day(at(5, 8, 0), now), lastYear: tm.day(new Date(2025, 11, 24, 8, 0).getTime(), now),
    clock: tm.clock(at(12, 14, 5)), shortToday: tm.short(at(12, 9, 30), now), shortYesterday: tm.short(at(11, 9, 30), now),
    shortMonday: tm.short(at(9, 9, 30), now), shortOld: tm.short(at(1, 9, 30), now), defaultNow: tm.day(Date.now()),
  };
})`)
	}
	for _, c := range []struct {
		locale string
		want   map[string]string
	}{
		{"en-US", map[string]string{
			"today": "Today", "yesterday": "Yesterday", "monday": "Monday", "lastWeek": "Thursday, March 5",
			"lastYear": "December 24, 2025", "clock": "2:05 PM", "shortToday": "9:30 AM", "shortYesterday": "Yesterday",
			"shortMonday": "Mon", "shortOld": "3/1/26", "defaultNow": "Today",
		}},
		{"de-DE", map[string]string{
			"today": "Today", "yesterday": "Yesterday", "monday": "Montag", "lastWeek": "Donnerstag, 5. März",
			"lastYear": "24. Dezember 2025", "clock": "14:05", "shortToday": "9:30", "shortYesterday": "Yesterday",
			"shortMonday": "Mo", "shortOld": "1.3.26", "defaultNow": "Today",
		}},
	} {
		if _, err := chromedp.Call(p.Ctx, emulation.SetLocaleOverride, emulation.SetLocaleOverrideParams{Locale: c.locale}); err != nil {
			t.Fatal(err)
		}
		tb := r.openTab(t, p.Ctx)
		tb.waitFor("the page", `document.getElementById('auth-username')`)
		got := labels(tb)
		for k, want := range c.want {
			if got[k] != want {
				t.Errorf("%s: %s is %q, want %q", c.locale, k, got[k], want)
			}
		}
		if _, err := chromedp.Call(p.Ctx, emulation.SetLocaleOverride, emulation.SetLocaleOverrideParams{}); err != nil {
			t.Fatal(err)
		}
	}
}

// TestOfflineStates: with the relay down, the red bar sits above the
// chat and never covers the composer, at a phone's and a desktop's
// width; a message that waits says so once, without "sending…" beside a
// red error; the Devices screen says it is offline and loads by itself
// once the relay is back.
func TestOfflineStates(t *testing.T) {
	r, alice, _ := aliceAndBob(t)
	alice.openChat("bob")
	alice.send("before")
	alice.waitFor("sent", `document.querySelector('#messages .msg.out[data-status="sent"]')`)
	r.Stop()
	alice.waitFor("the no-connection bar", `!document.getElementById('conn-bar').hidden`)
	alice.send("during the outage")
	alice.waitFor("the waiting message with its reason", `(() => { const m = [...document.querySelectorAll('#messages .msg')].pop(); return m && m.firstChild.textContent === 'during the outage' && m.textContent.includes('cannot be reached'); })()`)
	if eval[bool](alice, `[...document.querySelectorAll('#messages .msg')].some(m => m.textContent.includes('sending…') && m.querySelector('.error'))`) {
		t.Fatal("a message shows sending… and a red error at once")
	}
	if eval[bool](alice, `!!document.querySelector('#messages .msg[data-status="pending"] .error')`) {
		t.Fatal("a message that only waits for the relay shows a red error")
	}
	checkScreen(alice, "offline-chat", func(w int64) {
		bar, composer := boxOf(alice, "#conn-bar"), boxOf(alice, ".composer")
		if !bar.Shown || composer.Bottom > viewportHeight(alice)+0.5 || (composer.Top < bar.Bottom && composer.Bottom > bar.Top) {
			alice.screenshot(fmt.Sprintf("offline-covered-%d", w))
			t.Fatalf("at %d px the bar %+v and the composer %+v overlap or the composer is off screen", w, bar, composer)
		}
	})

	eval[chromedp.Void](alice, `location.hash = '#/devices'`)
	alice.waitFor("the Devices screen to say it is offline", `document.getElementById('devices-offline') && document.getElementById('devices-offline').textContent.includes('offline')`)
	checkScreen(alice, "offline-devices")
	r.Start()
	alice.waitFor("the device list, by itself", `document.querySelector('#device-list .device')`)
}

// TestEnterSends: Enter sends and leaves no line break behind, whether
// it comes as a key (a keyboard) or only as a line break to insert (many
// on-screen keyboards); Shift+Enter and an Enter that ends a composition
// do not send.
func TestEnterSends(t *testing.T) {
	_, alice, _ := aliceAndBob(t)
	alice.openChat("bob")
	alice.send("by the Enter key")
	alice.waitMessage("by the Enter key")
	if got := eval[string](alice, `document.getElementById('composer').value`); got != "" {
		t.Fatalf("the composer holds %q after Enter", got)
	}
	alice.do(chromedp.SendKeys(chromedp.ID("composer"), "two"), chromedp.KeyEvent(kb.Enter, chromedp.KeyModifiers(chromedp.ModifierShift)), chromedp.SendKeys(chromedp.ID("composer"), "lines"))
	if got := eval[string](alice, `document.getElementById('composer').value`); got != "two\nlines" {
		t.Fatalf("Shift+Enter: the composer holds %q", got)
	}
	// An IME's Enter confirms the composition: nothing is sent.
	eval[chromedp.Void](alice, `document.getElementById('composer').dispatchEvent(new KeyboardEvent('keydown', { key: 'Enter', isComposing: true, bubbles: true, cancelable: true }))`)
	// An on-screen keyboard: no Enter key event, a line break to insert.
	sent := eval[bool](alice, `(() => { const c = document.getElementById('composer'); const e = new InputEvent('beforeinput', { inputType: 'insertLineBreak', bubbles: true, cancelable: true }); c.dispatchEvent(e); return e.defaultPrevented; })()`)
	if !sent {
		t.Fatal("the line break of an on-screen keyboard was not taken as send")
	}
	alice.waitMessage("two\nlines")
	if got := alice.messages(); len(got) != 2 {
		t.Fatalf("alice's chat shows %q: the composition's Enter sent", got)
	}
	if got := eval[string](alice, `document.getElementById('composer').value`); got != "" {
		t.Fatalf("the composer holds %q after sending", got)
	}
}

// contrastJS defines contrast(a, b), the WCAG contrast ratio of two CSS
// colours as getComputedStyle writes them (opaque), and bgOf(e), the
// first background that is not transparent from e up.
const contrastJS = `const contrast = (a, b) => {
  const lum = (c) => { const [r, g, b] = c.match(/[\d.]+/g).slice(0, 3).map((v) => { v = v / 255; return v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4; }); return 0.2126 * r + 0.7152 * g + 0.0722 * b; };
  const [x, y] = [lum(a), lum(b)].sort((p, q) => q - p);
  return (x + 0.05) / (y + 0.05);
};
const bgOf = (e) => {
  for (; e; e = e.parentElement) { const c = getComputedStyle(e).backgroundColor; if (!/rgba\(.*, 0\)$/.test(c)) return c; }
  return 'rgb(255, 255, 255)';
};`

// TestContrast measures what axe-core does not: the focus ring and the
// borders of fields against what they sit on (3:1), and the time on an
// outgoing bubble (4.5:1). Before, they were 2.14, 1.78 and 4.44.
func TestContrast(t *testing.T) {
	_, alice, _ := aliceAndBob(t)
	alice.openChat("bob")
	alice.send("a time to read")
	alice.waitFor("sent", `document.querySelector('#messages .msg.out[data-status="sent"]')`)
	alice.do(chromedp.Focus(chromedp.ID("composer")))
	got := eval[map[string]float64](alice, `(() => { `+contrastJS+`
  const c = getComputedStyle(document.getElementById('composer'));
  const behind = bgOf(document.getElementById('composer').parentElement);
  const out = document.querySelector('#messages .msg.out');
  return {
    ring: contrast(c.outlineColor, behind),
    field: contrast(c.borderTopColor, behind),
    outTime: contrast(getComputedStyle(out.querySelector('.meta')).color, bgOf(out)),
  };
})()`)
	for k, min := range map[string]float64{"ring": 3, "field": 3, "outTime": 4.5} {
		if got[k] < min {
			t.Errorf("%s contrast %.2f:1, want at least %.1f:1", k, got[k], min)
		}
	}
	if !eval[bool](alice, `document.getElementById('composer').matches(':focus-visible') && getComputedStyle(document.getElementById('composer')).outlineStyle !== 'none'`) {
		t.Fatal("the focused composer shows no focus ring")
	}
}
