package webclient_test

import (
	"context"
	"strings"
	"testing"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/fetch"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/chromedp"
)

// TestChatBothWays registers two accounts in two browsers, and they write to
// each other live. Each envelope is ACKed after it is stored, so the queues
// end empty.
func TestChatBothWays(t *testing.T) {
	r, alice, bob := aliceAndBob(t)

	alice.openChat("bob")
	alice.send("Hello Bob, this is Alice")
	alice.waitFor("the message to be sent", `document.querySelector('#messages .msg.out[data-status="sent"]')`)

	bob.waitFor("alice in bob's chat list with one unread", `(() => { const i = document.querySelector('.chat-item[data-user="alice"] .unread'); return i && i.textContent === '1'; })()`)
	bob.openChat("alice")
	bob.waitMessage("Hello Bob, this is Alice")
	bob.send("Hi Alice! Bob here.")
	bob.waitFor("bob's reply to be sent", `document.querySelector('#messages .msg.out[data-status="sent"]')`)
	alice.waitMessage("Hi Alice! Bob here.")

	if got := alice.messages(); len(got) != 2 || got[0] != "Hello Bob, this is Alice" || got[1] != "Hi Alice! Bob here." {
		t.Fatalf("alice's chat shows %q", got)
	}
	// Nothing plain on the relay: the stored body is not the text.
	if n := r.count(`SELECT count(*) FROM queue WHERE position(convert_to('Hello Bob', 'UTF8') in body) > 0`); n != 0 {
		t.Fatal("the relay holds the plaintext")
	}
	waitQueueEmpty(t, r)
	alice.screenshot("chat")

	// Both sides show the same safety code.
	codes := make([]string, 2)
	for i, tb := range []*tab{alice, bob} {
		tb.do(chromedp.Click(chromedp.ID("safety-btn")))
		tb.waitFor("the safety code", `/^\d{5}( \d{5}){5}$/.test(document.getElementById('safety-code').textContent)`)
		codes[i] = eval[string](tb, `document.getElementById('safety-code').textContent`)
	}
	if codes[0] != codes[1] {
		t.Fatalf("alice sees safety code %q, bob %q", codes[0], codes[1])
	}
}

// TestNewMessagesDivider: messages that arrive while a chat is closed are
// counted unread, and opening the chat shows a divider before the first.
func TestNewMessagesDivider(t *testing.T) {
	_, alice, bob := aliceAndBob(t)
	alice.openChat("bob")
	alice.send("first, read")
	bob.openChat("alice")
	bob.waitMessage("first, read")
	eval[chromedp.Void](bob, `location.hash = '#/chats'`)
	bob.waitFor("the chat list", `document.getElementById('chat-list')`)
	alice.send("second, unread")
	alice.send("third, unread")
	bob.waitFor("two unread", `(() => { const i = document.querySelector('.chat-item[data-user="alice"] .unread'); return i && i.textContent === '2'; })()`)
	bob.openChat("alice")
	bob.waitMessage("third, unread")
	order := eval[[]string](bob, `[...document.querySelectorAll('#messages > li')].map(e => e.classList.contains('new-divider') ? 'DIVIDER' : e.classList.contains('day-sep') ? 'DAY' : e.querySelector('.text').textContent)`)
	want := []string{"DAY", "first, read", "DIVIDER", "second, unread", "third, unread"}
	if strings.Join(order, "|") != strings.Join(want, "|") {
		t.Fatalf("bob's chat reads %q, want %q", order, want)
	}
	// A reply answers what was new: the divider goes.
	bob.send("a reply")
	bob.waitFor("the divider gone once bob replied", `document.querySelectorAll('#messages .msg.out').length === 1 && !document.querySelector('#messages .new-divider')`)
	eval[chromedp.Void](bob, `location.hash = '#/chats'`)
	bob.waitFor("no unread left", `document.getElementById('chat-list') && !document.querySelector('.chat-item[data-user="alice"] .unread')`)
}

// TestPendingSurvivesReload makes every send fail on the network, reloads
// the page, and lets the network back: the pending message is still there
// after the reload and is sent, in its place.
func TestPendingSurvivesReload(t *testing.T) {
	_, alice, bob := aliceAndBob(t)
	alice.openChat("bob")
	alice.send("before the outage")
	alice.waitFor("the first message sent", `document.querySelector('#messages .msg.out[data-status="sent"]')`)

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
			_, _ = chromedp.Call(ctx, fetch.FailRequest, fetch.FailRequestParams{RequestID: ev.RequestID, ErrorReason: network.ErrorReasonInternetDisconnected})
		}
	}()
	if _, err := chromedp.Call(ctx, fetch.Enable, fetch.EnableParams{Patterns: []*fetch.RequestPattern{{URLPattern: "*/api/messages"}}}); err != nil {
		t.Fatal(err)
	}
	alice.send("during the outage")
	pendingWithReason := `(() => { const m = [...document.querySelectorAll('#messages .msg')].pop(); return m && m.querySelector('.text').textContent === 'during the outage' && m.dataset.status === 'pending' && m.textContent.includes('cannot be reached'); })()`
	alice.waitFor("the pending message to say why", pendingWithReason)
	alice.do(chromedp.Reload())
	alice.waitFor("the pending message after the reload", pendingWithReason)
	if _, err := chromedp.Call(ctx, fetch.Disable, cdp.Empty{}); err != nil {
		t.Fatal(err)
	}
	alice.waitFor("both sent", `document.querySelectorAll('#messages .msg.out[data-status="sent"]').length === 2`)
	if got := alice.messages(); len(got) != 2 || got[0] != "before the outage" || got[1] != "during the outage" {
		t.Fatalf("alice's chat shows %q", got)
	}
	bob.openChat("alice")
	bob.waitMessage("during the outage")
	if got := bob.messages(); len(got) != 2 {
		t.Fatalf("bob shows %q", got)
	}
}
