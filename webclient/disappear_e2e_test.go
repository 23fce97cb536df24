package webclient_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"

	"relay/relay"
)

// testClockJS gives every page of a profile a clock the test moves: Date.now()
// and new Date() run ahead by the shift kept in the tab's sessionStorage, so
// that a reload keeps it. __shiftClock(ms) moves it on and tells the page, as
// a computer waking from sleep does (focus). __saw lists the texts of
// watched that ever reached the page's DOM, from the first node on.
const testClockJS = `(() => {
  const D = Date;
  let off = 0;
  try { off = Number(sessionStorage.getItem('test.clock') || 0); } catch {}
  class ShiftedDate extends D {
    constructor(...a) { if (a.length) super(...a); else super(D.now() + off); }
    static now() { return D.now() + off; }
  }
  window.Date = ShiftedDate;
  window.__shiftClock = (ms) => {
    off += ms;
    sessionStorage.setItem('test.clock', String(off));
    dispatchEvent(new Event('focus'));
  };
  const watched = %s;
  window.__saw = [];
  new MutationObserver(() => {
    const text = document.body ? document.body.textContent : '';
    for (const w of watched) if (text.includes(w) && !window.__saw.includes(w)) window.__saw.push(w);
  }).observe(document, { subtree: true, childList: true, characterData: true });
})();`

// testClock gives the profile of ctx the clock the test moves, watching for
// the texts watched; it applies to the pages loaded from now on.
func testClock(t *testing.T, ctx context.Context, watched ...string) {
	t.Helper()
	src := fmt.Sprintf(testClockJS, js(watched))
	if _, err := chromedp.Call(ctx, page.AddScriptToEvaluateOnNewDocument, page.AddScriptToEvaluateOnNewDocumentParams{Source: src}); err != nil {
		t.Fatal(err)
	}
}

// shiftClock moves the page's clock on by d.
func (tb *tab) shiftClock(d time.Duration) {
	tb.t.Helper()
	eval[chromedp.Void](tb, fmt.Sprintf(`window.__shiftClock(%d)`, d.Milliseconds()))
}

// storedRow is the row a tab stores for the message id.
func storedRow(tb *tab, id string) map[string]any {
	tb.t.Helper()
	return eval[map[string]any](tb, `import('/store.js').then(s => s.getMessage(`+js(id)+`)).then(m => m || {})`)
}

// erased is a condition: the tab stores the message id as gone, with
// nothing it said.
func erased(id string) string {
	return `import('/store.js').then(s => s.getMessage(` + js(id) + `)).then(m => !!m && !!m.expired && m.hidden === true && m.text === null && m.files === null && !('expireAt' in m))`
}

// backLater brings an offline tab back to the relay 6 minutes later by
// its clock, opens its chat with peer and waits until it erased the
// message id, the control message beside it still shown.
func backLater(r *liveRelay, tb *tab, peer, id string) {
	tb.t.Helper()
	tb.do(chromedp.Navigate(r.URL + "/"))
	tb.shiftClock(6 * time.Minute)
	tb.do(chromedp.Reload())
	tb.openChat(peer)
	tb.waitFor("the message erased on the device back online", erased(id))
	tb.waitMessage("before the timer")
}

// setTimer chooses the chat's timer in its info panel.
func (tb *tab) setTimer(label string) {
	tb.t.Helper()
	if eval[bool](tb, `document.getElementById('chat-info').hidden`) {
		tb.do(chromedp.Click(chromedp.ID("safety-btn")))
	}
	tb.waitFor("the timer's choice", `document.getElementById('timer-select') && !document.getElementById('timer-select').disabled`)
	// As a person picks it: the value, then one change event.
	value := map[string]string{"Off": "0", "5 minutes": "300", "1 hour": "3600", "1 day": "86400"}[label]
	eval[chromedp.Void](tb, `(() => { const s = document.getElementById('timer-select'); s.focus(); s.value = `+js(value)+`; s.dispatchEvent(new Event('change')); })()`)
}

// timerShown is a condition: the chat list's row of peer shows the timer
// badge text (none for "").
func timerShown(peer, badge string) string {
	return `(() => { const b = document.querySelector('.chat-item[data-user=` + js(peer) + `] .timer-badge'); return ` + js(badge) + ` === '' ? !b : !!b && b.textContent.includes(` + js(badge) + `); })()`
}

// TestDisappearingMessages: alice (a laptop and a phone) and bob (a
// laptop and a tablet). alice sets the chat's timer to 5 minutes: a line
// and a badge in the chat lists. Her phone and bob's tablet go offline.
// She sends a message; bob reads it. With every clock moved on by 6
// minutes, the message is gone on alice's laptop (5 minutes after it was
// sent) and on bob's (5 minutes after he read it), its row erased; the
// phone, back online, erases it as it arrives and never shows it; the
// tablet erases it from the time bob's read record says he read it. A message sent before the timer, the
// control, stays everywhere. bob turns the timer off: a message after that
// has no mark and outlives another 6 minutes. The panel and the chat are
// checked at 390 and 1280 px with axe.
func TestDisappearingMessages(t *testing.T) {
	const gone = "this one vanishes"
	r := startRelay(t, func(c *relay.Config) { c.Skew = time.Hour })
	laptopP, laptop := r.newProfile(t)
	bobP, bob := r.newProfile(t)
	testClock(t, laptopP.Ctx)
	testClock(t, bobP.Ctx)
	laptop.do(chromedp.Reload())
	bob.do(chromedp.Reload())
	laptop.register("alice")
	bob.register("bob")
	phone := linkedDevice(t, r, laptop, "alice")
	// The phone watches for the message from its first page on.
	testClock(t, phone.ctx, gone)
	tablet := linkedDevice(t, r, bob, "bob")
	testClock(t, tablet.ctx)
	laptop.openChat("bob")
	bob.openChat("alice")
	published(t, r, bob)

	laptop.send("before the timer")
	for _, tb := range []*tab{laptop, bob} {
		tb.waitMessage("before the timer")
	}
	keep := msgID(laptop, "bob", "before the timer")
	// The chat's group, made by that message, takes in the phone and the
	// tablet before anything is sent that they must read.
	joined(t, "alice/"+phone.deviceID(), map[*tab]string{laptop: "bob", bob: "alice"})
	joined(t, "bob/"+tablet.deviceID(), map[*tab]string{laptop: "bob", bob: "alice"})
	laptop.waitFor("the first message sent", bubble("before the timer")+`?.dataset.status === 'sent'`)

	laptop.setTimer("5 minutes")
	line := `[...document.querySelectorAll('#messages .event')].some(e => e.textContent === %s)`
	laptop.waitFor("alice's line", fmt.Sprintf(line, js("You set messages to disappear after 5 minutes.")))
	bob.waitFor("bob's line", fmt.Sprintf(line, js("alice set messages to disappear after 5 minutes.")))
	for _, tb := range []*tab{laptop, bob} {
		tb.waitFor("the timer in the chat list", timerShown(map[*tab]string{laptop: "bob", bob: "alice"}[tb], "5m"))
	}
	// Chosen again, the same timer sends nothing: one line.
	laptop.setTimer("5 minutes")
	laptop.waitFor("nothing left to send", outboxSettled)
	if n := eval[int](laptop, `document.querySelectorAll('#messages .event').length`); n != 1 {
		t.Fatalf("alice shows %d lines of the timer, want 1", n)
	}
	phone.waitFor("the phone's chat list shows the timer", timerShown("bob", "5m"))
	if v := eval[string](bob, `document.getElementById('safety-btn').click(), document.getElementById('timer-select').value`); v != "300" {
		t.Fatalf("bob's panel shows the timer %q, want 300", v)
	}
	checkScreen(bob, "timer-panel")
	eval[chromedp.Void](bob, `document.getElementById('chat-info-close').click()`)

	// The phone and bob's tablet go offline: what comes waits in their
	// queues.
	phone.do(chromedp.Navigate("about:blank"))
	tablet.do(chromedp.Navigate("about:blank"))

	laptop.send(gone)
	laptop.waitFor("the message sent", bubble(gone)+`?.dataset.status === 'sent'`)
	id := msgID(laptop, "bob", gone)
	laptop.waitFor("the mark on alice's bubble", bubble(gone)+`.querySelector('.expires')?.textContent.includes('5m')`)
	bob.waitMessage(gone)
	// Read on bob's screen, its time starts there.
	bob.waitFor("bob's copy started", `import('/store.js').then(s => s.getMessage(`+js(id)+`)).then(m => m.expires === 300 && m.expireAt > Date.now())`)
	bob.waitFor("the mark on bob's bubble", bubble(gone)+`.querySelector('.expires')?.title.startsWith('Disappears at')`)
	checkScreen(bob, "timer-chat")

	// 6 minutes on: gone from the laptop and bob's device.
	laptop.shiftClock(6 * time.Minute)
	bob.shiftClock(6 * time.Minute)
	for _, tb := range []*tab{laptop, bob} {
		tb.waitFor("the message erased", erased(id))
		tb.waitFor("the bubble gone", `!`+bubble(gone))
		tb.waitMessage("before the timer")
	}
	if row := storedRow(bob, keep); row["text"] != "before the timer" {
		t.Fatalf("the control message is stored as %v", row)
	}
	if got := eval[string](laptop, `document.querySelector('.chat-item[data-user="bob"] .preview').textContent`); got == gone {
		t.Fatalf("the chat list's preview still shows %q", got)
	}

	// The phone comes back 6 minutes later: it erases the message as it
	// arrives, never showing it.
	backLater(r, phone, "bob", id)
	if saw := eval[[]string](phone, `window.__saw`); len(saw) != 0 {
		t.Fatalf("the phone showed %v", saw)
	}
	// bob's tablet comes back too: his laptop read the message 6 minutes
	// ago, and its read record says when, so the tablet erases it as well.
	backLater(r, tablet, "alice", id)

	// bob turns it off: a message after that stays.
	bob.setTimer("Off")
	for _, tb := range []*tab{laptop, bob} {
		tb.waitFor("the timer off", timerShown(map[*tab]string{laptop: "bob", bob: "alice"}[tb], ""))
	}
	laptop.waitFor("alice's line of bob's change", fmt.Sprintf(line, js("bob turned off disappearing messages.")))
	laptop.send("kept after off")
	bob.waitMessage("kept after off")
	kept := msgID(laptop, "bob", "kept after off")
	if eval[bool](bob, bubble("kept after off")+`.querySelector('.expires') !== null`) {
		t.Fatal("a message after the timer went off is marked as disappearing")
	}
	laptop.shiftClock(6 * time.Minute)
	bob.shiftClock(6 * time.Minute)
	// A sweep ran after the shift: it erases nothing more.
	bob.waitFor("a sweep after the shift", `import('/store.js').then(s => s.expireDue(Date.now())).then(r => r.changed.size === 0)`)
	for _, tb := range []*tab{laptop, bob} {
		if row := storedRow(tb, kept); row["text"] != "kept after off" || row["expires"] != nil {
			t.Fatalf("the message after the timer went off is stored as %v", row)
		}
	}
}

// TestGroupTimerIsTheAdmins: in a group of alice (its admin), bob and
// carol, bob's panel shows the timer without a choice; a timer record bob
// sends from a client of his own changes nothing on alice's and carol's
// devices (no line, no timer, and carol's next message lasts for ever).
// alice sets 1 hour: a line on all three, and carol's next message
// carries its lifetime.
func TestGroupTimerIsTheAdmins(t *testing.T) {
	r := startRelay(t)
	alice, bob, carol := registered(t, r)
	chat := makeGroup(alice, "Team", "bob carol")
	waitGroup(bob, "Team")
	waitGroup(carol, "Team")
	bob.openChat(chat)
	carol.openChat(chat)

	openPanel(bob, "#timer-select")
	bob.waitFor("bob's timer shown without a choice", `document.getElementById('timer-select').disabled && document.getElementById('timer-hint').textContent.includes('admins')`)
	checkScreen(bob, "group-timer")

	eval[chromedp.Void](bob, `(async () => {
  const m = await import('/mlschat.js'); const api = await import('/api.js'); const c = await import('/crypto.js');
  const { ulid } = await import('/ulid.js');
  const id = ulid();
  const body = await m.sealNow(`+js(chat)+`, id, JSON.stringify({ type: 'timer', seconds: 300 }));
  await api.send(id, ['alice', 'carol'], c.b64encode(body));
})()`)
	bob.send("after bob's timer")
	for _, tb := range []*tab{alice, carol} {
		tb.waitMessage("after bob's timer")
	}
	for _, tb := range []*tab{alice, carol} {
		if got := lines(tb); len(got) != 1 {
			t.Fatalf("lines %q after a non-admin's timer, want the group's making only", got)
		}
	}
	carol.send("carol's first")
	alice.waitMessage("carol's first")
	if row := storedRow(alice, msgID(carol, chat, "carol's first")); row["expires"] != nil {
		t.Fatalf("carol's message after bob's timer is stored as %v", row)
	}

	alice.openChat(chat)
	alice.setTimer("1 hour")
	alice.waitFor("alice's line", `[...document.querySelectorAll('#messages .event')].some(e => e.textContent === 'You set messages to disappear after 1 hour.')`)
	for _, tb := range []*tab{bob, carol} {
		tb.waitFor("the admin's line", `[...document.querySelectorAll('#messages .event')].some(e => e.textContent === 'alice set messages to disappear after 1 hour.')`)
	}
	carol.send("carol's second")
	alice.waitMessage("carol's second")
	if row := storedRow(alice, msgID(carol, chat, "carol's second")); row["expires"] != float64(3600) {
		t.Fatalf("carol's message after alice's timer is stored as %v", row)
	}
}
