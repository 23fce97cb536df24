package webclient_test

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/chromedp/cdproto/fetch"
	"github.com/chromedp/cdproto/input"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"

	"relay/relay"
)

// TestContactDeletedWhileChatOpen: alice has her chat with bob open, his
// safety code marked verified, when bob deletes his account. The first
// message she sends after it is refused (410 account_deleted): from that
// moment the open chat says so, without being opened again: the composer
// is off with the reason, the verified mark is gone, and the refused
// message says why with no Retry, which could never work.
func TestContactDeletedWhileChatOpen(t *testing.T) {
	r, alice, bob := aliceAndBob(t)
	bob.openChat("alice")
	bob.send("hi alice")
	alice.openChat("bob")
	alice.waitMessage("hi alice")
	alice.waitKeyRecorded("bob")
	eval[bool](alice, `import('/sync.js').then((s) => s.setVerified('bob', true)).then(() => true)`)
	alice.waitFor("the verified mark", `!document.getElementById('verified-badge').hidden`)

	deleteInSettings(bob)
	bob.waitFor("bob logged out, his account deleted", deletedNotice)
	if n := r.count(`SELECT count(*) FROM accounts WHERE username = 'bob'`); n != 0 {
		t.Fatalf("bob's account is still on the relay (%d rows)", n)
	}

	alice.send("are you there?")
	alice.waitFor("the message refused", `document.querySelector('#messages .msg.out.failed')`)
	alice.waitFor("the open chat following the deletion",
		`document.querySelector('#messages .msg.out.failed .error').textContent.includes('deleted their account') && document.getElementById('composer').disabled && document.getElementById('send-btn').disabled && !document.getElementById('composer-note').hidden && document.getElementById('composer-note').textContent.includes('This account was deleted') && document.getElementById('verified-badge').hidden`)
	if eval[bool](alice, `!!document.querySelector('#messages .msg .retry')`) {
		t.Error("a message to the deleted account offers Retry, which can never work")
	}
	checkScreen(alice, "contact-deleted-open")
}

// linkCasesJS runs links.js on each text and returns what it built: a
// text node as {t}, a link as {a, href, target, rel}, anything else as
// {other: its name}.
const linkCasesJS = `(async (texts) => {
  const { linkified } = await import('/links.js');
  return texts.map((t) => linkified(t).map((n) => n.nodeType === Node.TEXT_NODE ? { t: n.textContent }
    : n.nodeName === 'A' && !n.children.length ? { a: n.textContent, href: n.getAttribute('href'), target: n.target, rel: n.rel }
    : { other: n.nodeName }));
})`

// linkNode is one node linkified built, as linkCasesJS describes it.
type linkNode struct {
	T      string `json:"t,omitempty"`
	A      string `json:"a,omitempty"`
	Href   string `json:"href,omitempty"`
	Target string `json:"target,omitempty"`
	Rel    string `json:"rel,omitempty"`
	Other  string `json:"other,omitempty"`
}

func txt(s string) linkNode { return linkNode{T: s} }

func link(shown, href string) linkNode {
	return linkNode{A: shown, Href: href, Target: "_blank", Rel: "noopener noreferrer"}
}

// TestLinksInMessages: http and https addresses in a message become links
// that open in a new tab with no opener and no referrer, built as nodes;
// other schemes, markup and the punctuation around an address stay text.
// Then the same in a chat: bob's message to alice shows the link, and
// alice's page fetched nothing from the linked site.
func TestLinksInMessages(t *testing.T) {
	_, alice, bob := aliceAndBob(t)
	cases := []struct {
		in   string
		want []linkNode
	}{
		{"see https://example.com/a?b=1.", []linkNode{txt("see "), link("https://example.com/a?b=1", "https://example.com/a?b=1"), txt(".")}},
		{"no link here", []linkNode{txt("no link here")}},
		{"javascript:alert(1)", []linkNode{txt("javascript:alert(1)")}},
		{"JavaScript:alert(document.cookie)//http", []linkNode{txt("JavaScript:alert(document.cookie)//http")}},
		{"data:text/html,<script>alert(1)</script>", []linkNode{txt("data:text/html,<script>alert(1)</script>")}},
		{"xhttps://evil.example/", []linkNode{txt("xhttps://evil.example/")}},
		{"https:// and http://", []linkNode{txt("https:// and http://")}},
		{"(https://en.wikipedia.org/wiki/Foo_(bar)), ok?", []linkNode{txt("("), link("https://en.wikipedia.org/wiki/Foo_(bar)", "https://en.wikipedia.org/wiki/Foo_(bar)"), txt("), ok?")}},
		{"HTTPS://Example.COM/x, and http://a.example:8080/p!", []linkNode{link("HTTPS://Example.COM/x", "https://example.com/x"), txt(", and "), link("http://a.example:8080/p", "http://a.example:8080/p"), txt("!")}},
		{`<img src=x onerror=alert(1)> https://x.example/"><script>alert(1)</script>`, []linkNode{txt("<img src=x onerror=alert(1)> "), link("https://x.example/", "https://x.example/"), txt(`"><script>alert(1)</script>`)}},
		{"'https://q.example/a'", []linkNode{txt("'"), link("https://q.example/a", "https://q.example/a"), txt("'")}},
		{"line one\nhttps://b.example\n", []linkNode{txt("line one\n"), link("https://b.example", "https://b.example/"), txt("\n")}},
	}
	var ins []string
	for _, c := range cases {
		ins = append(ins, c.in)
	}
	got := eval[[][]linkNode](alice, linkCasesJS+`(`+js(ins)+`)`)
	for i, c := range cases {
		if !slices.Equal(got[i], c.want) {
			t.Errorf("%q became %+v, want %+v", c.in, got[i], c.want)
		}
	}

	bob.openChat("alice")
	bob.send("javascript:alert(1)")
	bob.send("read https://example.com/x.")
	alice.openChat("bob")
	alice.waitMessage("read https://example.com/x.")
	a := eval[[]linkNode](alice, `[...document.querySelectorAll('#messages .msg .text a')].map((n) => ({ a: n.textContent, href: n.getAttribute('href'), target: n.target, rel: n.rel }))`)
	if want := []linkNode{link("https://example.com/x", "https://example.com/x")}; !slices.Equal(a, want) {
		t.Errorf("the links in alice's chat are %+v, want %+v", a, want)
	}
	if !alice.hasMessage("javascript:alert(1)") {
		t.Error("the javascript: message is not shown as text")
	}
	// No preview: the page asked the linked site for nothing.
	if n := eval[int](alice, `performance.getEntriesByType('resource').filter((e) => e.name.includes('example.com')).length`); n != 0 {
		t.Errorf("the page fetched %d resources from the linked site", n)
	}
	checkScreen(alice, "links")
}

// keyCommand presses a key with an editing command (copy, paste) as a
// person's Ctrl+C or Ctrl+V does, through the browser's own clipboard.
func keyCommand(tb *tab, key, command string) {
	tb.t.Helper()
	const ctrl = 2 // the protocol's bit for Ctrl
	for _, typ := range []input.DispatchKeyEventType{input.DispatchKeyEventTypeRawKeyDown, input.DispatchKeyEventTypeKeyUp} {
		ev := input.DispatchKeyEventParams{Type: typ, Key: key, Code: "Key" + strings.ToUpper(key), Modifiers: ctrl}
		if typ == input.DispatchKeyEventTypeRawKeyDown {
			ev.Commands = []string{command}
		}
		if _, err := chromedp.Call(tb.ctx, input.DispatchKeyEvent, ev); err != nil {
			tb.t.Fatalf("%s: %v", command, err)
		}
	}
}

// copyText puts text on the browser's clipboard the way a person does:
// selected in a field, then Ctrl+C.
func copyText(tb *tab, text string) {
	tb.t.Helper()
	eval[chromedp.Void](tb, `(() => { const t = document.createElement('textarea'); t.id = 'clip'; t.value = `+js(text)+`; document.body.append(t); t.focus(); t.select(); })()`)
	keyCommand(tb, "c", "copy")
	eval[chromedp.Void](tb, `document.getElementById('clip').remove()`)
}

// composerBox is the composer's height and whether it scrolls.
type composerBox struct {
	Height  float64 `json:"height"`
	Scrolls bool    `json:"scrolls"`
}

const composerBoxJS = `(() => { const t = document.getElementById('composer'); return { height: t.getBoundingClientRect().height, scrolls: t.scrollHeight > t.clientHeight + 1 }; })()`

// TestComposer: the composer grows with what is typed, line by line, up
// to a few lines, then scrolls, and stays on screen at 390 and 1280 px. A
// paste longer than a message may be is cut by the browser at the limit:
// the composer says how much of it was kept and why, and the note goes
// with the next edit.
func TestComposer(t *testing.T) {
	_, alice, _ := aliceAndBob(t)
	alice.openChat("bob")
	one := eval[composerBox](alice, composerBoxJS)
	shiftEnter := chromedp.KeyEvent(kb.Enter, chromedp.KeyModifiers(chromedp.ModifierShift))
	alice.do(chromedp.SendKeys(chromedp.ID("composer"), "one"), shiftEnter, chromedp.SendKeys(chromedp.ID("composer"), "two"), shiftEnter, chromedp.SendKeys(chromedp.ID("composer"), "three"))
	if got := eval[string](alice, `document.getElementById('composer').value`); got != "one\ntwo\nthree" {
		t.Fatalf("the composer holds %q", got)
	}
	three := eval[composerBox](alice, composerBoxJS)
	if three.Height < one.Height*2 || three.Scrolls {
		t.Errorf("three lines: the composer is %.0f px high (one line: %.0f px), scrolling %v: it does not grow with what is typed", three.Height, one.Height, three.Scrolls)
	}
	eval[chromedp.Void](alice, `(() => { const t = document.getElementById('composer'); t.value = Array.from({ length: 30 }, (_, i) => 'line ' + i).join('\n'); t.dispatchEvent(new Event('input')); })()`)
	many := eval[composerBox](alice, composerBoxJS)
	if many.Height < three.Height || many.Height > one.Height*5 || !many.Scrolls {
		t.Errorf("thirty lines: the composer is %.0f px high, scrolling %v: it should stop growing after a few lines and scroll", many.Height, many.Scrolls)
	}
	checkScreen(alice, "composer-grown")

	// A paste over the limit: 15,990 characters typed, 25 pasted, 10 kept.
	eval[chromedp.Void](alice, `(() => { const t = document.getElementById('composer'); t.value = 'x'.repeat(15990); t.dispatchEvent(new Event('input')); })()`)
	copyText(alice, strings.Repeat("y", 25))
	alice.do(chromedp.Focus(chromedp.ID("composer")))
	eval[chromedp.Void](alice, `(() => { const t = document.getElementById('composer'); t.setSelectionRange(t.value.length, t.value.length); })()`)
	keyCommand(alice, "v", "paste")
	alice.waitFor("the paste cut at the limit", `document.getElementById('composer').value.length === 16000`)
	alice.waitFor("the composer saying what it kept",
		`(() => { const n = document.getElementById('composer-limit'); return !!n && !n.hidden && n.textContent.includes('Only 10 of the 25 characters pasted were kept') && n.textContent.includes('16,000'); })()`)
	checkScreen(alice, "composer-paste-cut")
	alice.do(chromedp.SendKeys(chromedp.ID("composer"), kb.Backspace))
	alice.waitFor("the note gone with the next edit", `document.getElementById('composer-limit').hidden`)
}

// msgRow is the selector of the bubble of the message with this text.
func msgRow(text string) string {
	return `[...document.querySelectorAll('#messages .msg')].find((e) => e.querySelector('.text').textContent === ` + js(text) + `)`
}

// cancelFromMenu cancels a waiting message from its ⋯ menu, confirming in
// the dialog.
func cancelFromMenu(tb *tab, text string) {
	tb.t.Helper()
	tb.waitFor("the menu of "+text, `(() => { const m = `+msgRow(text)+`; return !!m && !!m.querySelector('.msg-actions'); })()`)
	eval[chromedp.Void](tb, msgRow(text)+`.querySelector('.msg-actions').click()`)
	tb.waitFor("Cancel sending in the menu of "+text, `!!`+msgRow(text)+`.querySelector('.menu .cancel-send-btn')`)
	tb.screenshot("menu-" + text)
	eval[chromedp.Void](tb, msgRow(text)+`.querySelector('.menu .cancel-send-btn').click()`)
	tb.waitFor("the cancel dialog", `document.getElementById('cancel-dialog') && document.getElementById('cancel-dialog').open`)
	tb.do(chromedp.Click(chromedp.ID("cancel-confirm")))
	tb.waitFor(text+" gone", `!`+msgRow(text))
}

// TestWaitingMessages: at 1 message a minute, alice sends four. The first
// goes; the second is refused (429) and waits with a countdown; the third
// and fourth wait behind it, and each says so and why, never "sending…".
// She cancels the third (never tried) and the second (refused, so not at
// the relay) from their menus: they go from her chat, the fourth says why
// it waits and goes by itself once the wait is over, and the relay never
// accepted the two cancelled. Then, with the relay out of reach, a message
// whose attempt got no answer may be at the relay: it offers no Cancel,
// and a cancel that raced the attempt says why it cannot.
func TestWaitingMessages(t *testing.T) {
	r, alice, bob := aliceAndBob(t, func(c *relay.Config) { c.RatePerMinute = 1 })
	alice.openChat("bob")
	bob.openChat("alice")
	texts := []string{"w1", "w2", "w3", "w4"}
	alice.send(strings.Join(texts, "\r"))
	alice.waitFor("w2 counting down", `(() => { const m = `+msgRow("w2")+`; return !!m && /^Waiting \d+ seconds to send/.test(m.querySelector('.wait') ? m.querySelector('.wait').textContent : ''); })()`)
	alice.waitFor("w1 sent", `document.querySelectorAll('#messages .msg.out[data-status="sent"]').length === 1`)
	for _, w := range []string{"w3", "w4"} {
		alice.waitFor(w+" saying it waits and why", `(() => { const m = `+msgRow(w)+`; const wait = m && m.querySelector('.wait'); return !!wait && wait.textContent.includes('too many messages') && m.dataset.tick === 'waiting to send'; })()`)
	}
	if n := eval[int](alice, `[...document.querySelectorAll('#messages .msg .status')].filter((s) => s.textContent.includes('sending…')).length`); n != 0 {
		t.Errorf("%d waiting messages say sending…", n)
	}
	alice.screenshot("waiting-messages")
	ids := eval[map[string]string](alice, `Object.fromEntries([...document.querySelectorAll('#messages .msg.out')].map((m) => [m.querySelector('.text').textContent, m.dataset.id]))`)

	// Within the minute w2 waits: a minute is the test's margin.
	cancelFromMenu(alice, "w3")
	cancelFromMenu(alice, "w2")
	alice.waitFor("w4 saying why it waits", `(() => { const m = `+msgRow("w4")+`; return !!m && (m.dataset.status === 'sent' || (!!m.querySelector('.wait') && m.dataset.tick === 'waiting to send')); })()`)
	checkScreen(alice, "waiting-after-cancel")
	waitPastBackoff(alice, "w4 sent by itself", `(() => { const m = `+msgRow("w4")+`; return !!m && m.dataset.status === 'sent'; })()`)
	bob.waitMessage("w4")
	if got, want := alice.messages(), []string{"w1", "w4"}; !slices.Equal(got, want) {
		t.Errorf("alice shows %q, want %q", got, want)
	}
	if got, want := bob.messages(), []string{"w1", "w4"}; !slices.Equal(got, want) {
		t.Errorf("bob shows %q, want %q", got, want)
	}
	if n := r.count(`SELECT count(*) FROM sent WHERE envelope_id = ANY($1)`, []string{ids["w2"], ids["w3"]}); n != 0 {
		t.Errorf("the relay accepted %d of the cancelled messages", n)
	}
	if n := eval[int](alice, `import('/store.js').then((s) => s.pendingMessages()).then((p) => p.length)`); n != 0 {
		t.Errorf("%d messages still in alice's outbox", n)
	}

	// The relay out of reach: the attempt gets no answer.
	ctx, cancel := context.WithCancel(alice.ctx)
	defer cancel()
	// Subscribed here, not in the goroutine: a request paused before
	// it would be lost, and hang.
	paused := chromedp.Events(ctx, fetch.RequestPaused)
	go func() {
		for ev, err := range paused {
			if err != nil {
				return
			}
			_, _ = chromedp.Call(ctx, fetch.FailRequest, fetch.FailRequestParams{RequestID: ev.RequestID, ErrorReason: network.ErrorReasonConnectionReset})
		}
	}()
	if _, err := chromedp.Call(ctx, fetch.Enable, fetch.EnableParams{Patterns: []*fetch.RequestPattern{{URLPattern: "*/api/messages"}}}); err != nil {
		t.Fatal(err)
	}
	alice.send("lost on the way")
	alice.waitFor("the message waiting for the relay", `(() => { const m = `+msgRow("lost on the way")+`; return !!m && !!m.querySelector('.wait') && m.querySelector('.wait').textContent.includes('cannot be reached'); })()`)
	if eval[bool](alice, `!!`+msgRow("lost on the way")+`.querySelector('.msg-actions')`) {
		t.Error("a message whose attempt got no answer offers Cancel: it may be at the relay already")
	}
	said := eval[string](alice, `import('/sync.js').then((s) => s.cancel(`+msgRow("lost on the way")+`.dataset.id)).then(() => 'cancelled', (e) => e.message)`)
	if !strings.Contains(said, "may already be at the relay") {
		t.Errorf("cancelling a message that may be at the relay: %q", said)
	}
	if !alice.hasMessage("lost on the way") {
		t.Error("the message that may be at the relay was deleted")
	}
}

// TestKeyChangeShowsTheCode: bob's key changes. The warning's button does
// not clear it: it opens the chat info with the new safety code, where
// alice confirms that the codes match; only then does the warning go.
func TestKeyChangeShowsTheCode(t *testing.T) {
	r, alice, bob := aliceAndBob(t, uncachedDirectory)
	bob.openChat("alice")
	bob.send("hi")
	alice.openChat("bob")
	alice.waitMessage("hi")
	alice.waitKeyRecorded("bob")
	if _, err := r.Pool.Exec(t.Context(), `UPDATE accounts SET public_key = (SELECT public_key FROM accounts WHERE username = 'alice') WHERE username = 'bob'`); err != nil {
		t.Fatal(err)
	}
	eval[chromedp.Void](alice, `location.hash = '#/chats'`)
	alice.waitFor("the chat list", `document.getElementById('chat-list')`)
	alice.openChat("bob")
	alice.waitFor("the key-change warning", `document.getElementById('key-warning')`)
	alice.do(chromedp.Click(`#key-warning button`))
	alice.waitFor("the new safety code, with the question beside it",
		`!document.getElementById('chat-info').hidden && /^\d{5}( \d{5}){5}$/.test(document.getElementById('safety-code').textContent) && !!document.getElementById('key-accept')`)
	if !eval[bool](alice, `!!document.getElementById('key-warning')`) {
		t.Fatal("the warning went before the codes were compared")
	}
	checkScreen(alice, "key-compare")
	alice.do(chromedp.Click(chromedp.ID("key-accept")))
	alice.waitFor("the warning gone once the codes match", `!document.getElementById('key-warning') && !document.getElementById('key-accept')`)
	if eval[bool](alice, `import('/store.js').then((s) => s.getChat('bob')).then((c) => !!c.keyChanged || !!c.verified)`) {
		t.Error("after the codes match: the chat is still flagged, or marked verified without asking")
	}
}

// TestNewChatListedWhileOpen: a chat opened by username, with no message
// yet, is in the chat list while it is open, marked as the open one; left
// without a message it goes from the list; once a message is sent in it,
// it stays.
func TestNewChatListedWhileOpen(t *testing.T) {
	_, alice, _ := aliceAndBob(t)
	alice.do(chromedp.SetValue(chromedp.ID("new-chat-username"), "bob"), chromedp.Click(chromedp.ID("new-chat-btn")))
	alice.waitFor("the chat with bob", `document.querySelector('.chat[data-chat="bob"] #composer')`)
	bobRow := `document.querySelector('#chat-list .chat-item[data-user="bob"]')`
	alice.waitFor("bob's row, the open chat", bobRow+` && `+bobRow+`.querySelector('a').getAttribute('aria-current') === 'true' && document.getElementById('no-chats').hidden`)
	checkScreen(alice, "new-chat-listed")
	eval[chromedp.Void](alice, `location.hash = '#/chats'`)
	alice.waitFor("the list without the empty chat", `!document.getElementById('messages') && !`+bobRow+` && !document.getElementById('no-chats').hidden`)
	alice.openChat("bob")
	alice.send("first words")
	alice.waitFor("sent", `document.querySelector('#messages .msg.out[data-status="sent"]')`)
	eval[chromedp.Void](alice, `location.hash = '#/chats'`)
	alice.waitFor("bob's row staying", `!document.getElementById('messages') && `+bobRow+` && `+bobRow+`.querySelector('.preview').textContent === 'first words'`)
}
