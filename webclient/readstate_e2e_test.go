package webclient_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/chromedp/cdproto/fetch"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"
)

// slowClockJS makes the page's clock three minutes slow before any of its
// scripts runs: Date.now() and new Date() (so the ids it makes) and
// performance.timeOrigin.
const slowClockJS = `(() => {
  const skew = -3 * 60 * 1000;
  const RealDate = Date;
  class SlowDate extends RealDate {
    constructor(...a) { if (a.length === 0) super(RealDate.now() + skew); else super(...a); }
    static now() { return RealDate.now() + skew; }
  }
  globalThis.Date = SlowDate;
  const origin = performance.timeOrigin + skew;
  Object.defineProperty(performance, 'timeOrigin', { get: () => origin });
})();`

// unreadIs is a condition: the chat list shows n unread for peer (0: no
// badge).
func unreadIs(peer string, n int) string {
	if n == 0 {
		return fmt.Sprintf(`document.querySelector('.chat-item[data-user=%q]') && !document.querySelector('.chat-item[data-user=%q] .unread')`, peer, peer)
	}
	return fmt.Sprintf(`(() => { const i = document.querySelector('.chat-item[data-user=%q] .unread'); return !!i && i.textContent === %q; })()`, peer, fmt.Sprint(n))
}

// chatOrder is the open chat as shown: texts, DIVIDER and DAY.
func chatOrder(tb *tab) string {
	tb.t.Helper()
	return strings.Join(eval[[]string](tb, `[...document.querySelectorAll('#messages > li')].map(e => e.classList.contains('new-divider') ? 'DIVIDER' : e.classList.contains('day-sep') ? 'DAY' : e.querySelector('.text').textContent)`), "|")
}

// fitsWidths shows the page at a phone's and a desktop's width: no
// horizontal overflow, a screenshot of each to look at.
func fitsWidths(tb *tab, name string) {
	tb.t.Helper()
	for _, w := range []int64{390, 1280} {
		tb.do(chromedp.EmulateViewport(w, 900))
		if eval[bool](tb, `document.documentElement.scrollWidth > window.innerWidth`) {
			tb.screenshot(fmt.Sprintf("%s-%d-overflow", name, w))
			tb.t.Fatalf("the page is wider than %d px", w)
		}
		tb.screenshot(fmt.Sprintf("%s-%d", name, w))
	}
}

// linkedDevice logs user in on a new browser profile and approves it from
// laptop, a linked device of the account. The laptop is left on its chat
// list.
func linkedDevice(t *testing.T, r *liveRelay, laptop *tab, user string) *tab {
	t.Helper()
	_, phone := r.newProfile(t)
	phone.login(user)
	id := phone.deviceID()
	eval[chromedp.Void](laptop, `location.hash = '#/devices'`)
	btn := fmt.Sprintf(`.device[data-id=%q] .approve-btn`, id)
	laptop.waitFor("the new device in the list", `document.querySelector(`+js(btn)+`)`)
	laptop.do(chromedp.Click(chromedp.CSS(btn)))
	phone.waitFor("the new device to be linked", `document.getElementById('new-chat-username')`)
	// Linked, the phone starts its stream over: its page moves until open.
	phone.waitFor("the new device's stream", headerSettled)
	published(t, r, phone)
	// It reports itself linked after it published its key packages.
	for i := 0; r.count(`SELECT count(*) FROM devices WHERE id = $1 AND linked`, id) == 0; i++ {
		if i > 400 {
			t.Fatal("the new device never reported itself linked")
		}
		sleep()
	}
	eval[chromedp.Void](laptop, `location.hash = '#/chats'`)
	laptop.waitFor("the chat list", `document.getElementById('new-chat-username')`)
	return phone
}

// TestUnreadFollowsTheRelaysOrder: bob's page clock is three minutes slow,
// so his second message has an id from before his first. It still comes
// after the first in alice's chat (the relay's ts), and so it is unread:
// the badge and the "New messages" divider. Comparing ids, as before, it
// was neither.
func TestUnreadFollowsTheRelaysOrder(t *testing.T) {
	_, alice, bob := aliceAndBob(t)
	bob.openChat("alice")
	bob.send("on time")
	alice.openChat("bob")
	alice.waitMessage("on time")
	eval[chromedp.Void](alice, `location.hash = '#/chats'`)
	alice.waitFor("alice's chat list, all read", unreadIs("bob", 0))

	if _, err := chromedp.Call(bob.ctx, page.AddScriptToEvaluateOnNewDocument, page.AddScriptToEvaluateOnNewDocumentParams{Source: slowClockJS}); err != nil {
		t.Fatal(err)
	}
	bob.do(chromedp.Reload())
	bob.waitFor("bob's chat again", `document.getElementById('composer')`)
	if behind := eval[float64](bob, `new (Object.getPrototypeOf(Date))().getTime() - Date.now()`); behind < 170000 {
		t.Fatalf("bob's clock is %.0f ms behind, want three minutes", behind)
	}
	bob.send("three minutes slow")

	alice.waitFor("one unread from the slow clock", unreadIs("bob", 1))
	// The control: by ids, the new message is before the one already read.
	ids := eval[[]string](alice, `import('/store.js').then(s => s.getMessages('bob')).then(ms => ms.map(m => m.id))`)
	if len(ids) != 2 || ids[1] >= ids[0] {
		t.Fatalf("alice's ids in chat order %q: the slow message's id should sort before the first one's", ids)
	}
	alice.openChat("bob")
	alice.waitMessage("three minutes slow")
	if got, want := chatOrder(alice), "DAY|on time|DIVIDER|three minutes slow"; got != want {
		t.Fatalf("alice's chat reads %q, want %q", got, want)
	}
	eval[chromedp.Void](alice, `location.hash = '#/chats'`)
	alice.waitFor("no unread once read", unreadIs("bob", 0))
}

// TestReadRecordIsRetriedUntilAccepted fails the laptop's first read
// record on the network. The record is kept and sent again, and the
// phone's unread badge goes; before, the failed record was never sent.
func TestReadRecordIsRetriedUntilAccepted(t *testing.T) {
	r, laptop, bob := aliceAndBob(t)
	phone := linkedDevice(t, r, laptop, "alice")

	ctx, cancel := context.WithCancel(laptop.ctx)
	defer cancel()
	var toSelf, failed atomic.Int32
	// Subscribed here, not in the goroutine: a request paused before
	// it would be lost, and hang.
	paused := chromedp.Events(ctx, fetch.RequestPaused)
	go func() {
		for ev, err := range paused {
			if err != nil {
				return
			}
			var body struct{ To string }
			for _, e := range ev.Request.PostDataEntries {
				_ = json.Unmarshal(e.Bytes, &body)
			}
			if body.To == "alice" && toSelf.Add(1) == 1 {
				failed.Add(1)
				_, _ = chromedp.Call(ctx, fetch.FailRequest, fetch.FailRequestParams{RequestID: ev.RequestID, ErrorReason: network.ErrorReasonConnectionReset})
				continue
			}
			_, _ = chromedp.Call(ctx, fetch.ContinueRequest, fetch.ContinueRequestParams{RequestID: ev.RequestID})
		}
	}()
	if _, err := chromedp.Call(ctx, fetch.Enable, fetch.EnableParams{Patterns: []*fetch.RequestPattern{{URLPattern: "*/api/messages", RequestStage: fetch.RequestStageRequest}}}); err != nil {
		t.Fatal(err)
	}

	bob.openChat("alice")
	bob.send("read me on the laptop")
	laptop.waitFor("one unread on the laptop", unreadIs("bob", 1))
	phone.waitFor("one unread on the phone", unreadIs("bob", 1))
	laptop.openChat("bob")
	laptop.waitMessage("read me on the laptop")
	phone.waitFor("the read position to reach the phone after the retry", unreadIs("bob", 0))
	if failed.Load() != 1 || toSelf.Load() < 2 {
		t.Fatalf("%d records to self seen, %d failed: the test did not fail the first and see it sent again", toSelf.Load(), failed.Load())
	}
	laptop.waitFor("nothing left to send", `import('/store.js').then(s => s.readRecordsToSend()).then(l => l.length === 0)`)
}

// TestMarkAsUnreadReachesOtherDevices: the laptop reads bob's two messages,
// then marks the second as unread. Its position moves back, and so does
// the phone's, although the phone holds a later position: the record's
// version wins over it.
func TestMarkAsUnreadReachesOtherDevices(t *testing.T) {
	r, laptop, bob := aliceAndBob(t)
	phone := linkedDevice(t, r, laptop, "alice")
	bob.openChat("alice")
	bob.send("first")
	bob.send("second")
	phone.waitFor("two unread on the phone", unreadIs("bob", 2))
	laptop.openChat("bob")
	laptop.waitMessage("second")
	phone.waitFor("both read on the phone", unreadIs("bob", 0))

	second := `[...document.querySelectorAll('#messages .msg')].find(e => e.querySelector('.text').textContent === 'second')`
	// From the keyboard: open the message's actions, then Mark as unread.
	laptop.waitFor("the actions of the second message", second+`.querySelector('button.msg-actions')`)
	eval[chromedp.Void](laptop, second+`.querySelector('button.msg-actions').focus()`)
	laptop.do(chromedp.KeyEvent(kb.Enter))
	laptop.waitFor("a Mark as unread action on the second message", second+`.querySelector('button.mark-unread')`)
	fitsWidths(laptop, "mark-unread")
	eval[chromedp.Void](laptop, second+`.querySelector('button.mark-unread').focus()`)
	laptop.do(chromedp.KeyEvent(kb.Enter))
	laptop.waitFor("one unread on the laptop", unreadIs("bob", 1))
	phone.waitFor("one unread on the phone", unreadIs("bob", 1))
	phone.openChat("bob")
	phone.waitMessage("second")
	if got, want := chatOrder(phone), "DAY|first|DIVIDER|second"; got != want {
		t.Fatalf("the phone's chat reads %q, want %q", got, want)
	}
	// Read again on the phone: forward again, on the laptop too.
	eval[chromedp.Void](phone, `location.hash = '#/chats'`)
	laptop.waitFor("read again on the laptop", unreadIs("bob", 0))
}
