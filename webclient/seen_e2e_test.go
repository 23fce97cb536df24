package webclient_test

import (
	"fmt"
	"testing"

	"github.com/chromedp/chromedp"

	"relay/relay"
)

// sendAll sends texts from tb's open chat with peer through the outbox, one
// after the other, without typing each.
func sendAll(tb *tab, peer string, texts []string) {
	tb.t.Helper()
	eval[chromedp.Void](tb, fmt.Sprintf(`import('/sync.js').then(async (s) => { for (const t of %s) await s.sendText(%q, t, null); })`, js(texts), peer))
}

// numbered is n texts "prefix 1" … "prefix n", each four lines tall.
func numbered(prefix string, n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = fmt.Sprintf("%s %d\nline two\nline three\nline four", prefix, i+1)
	}
	return out
}

// outTick is the tick bob's page shows on his message that starts with
// text: "", sent, delivered or read.
func outTick(tb *tab, text string) string {
	tb.t.Helper()
	return eval[string](tb, `(() => { const m = [...document.querySelectorAll('#messages .msg.out')].find(e => e.querySelector('.text').textContent.startsWith(`+js(text+"\n")+`)); return m ? (m.dataset.tick || '') : 'missing'; })()`)
}

// TestReadMeansSeen: alice's chat with bob is open, scrolled to the top,
// when bob sends ten tall messages. None is on her screen, so none is
// read: her count and the "New messages" button say ten, and bob sees
// them delivered, not read. The button brings the first ones into view:
// those are read, the last is not. At the bottom, all are. Before, an
// open chat read everything that arrived in it.
func TestReadMeansSeen(t *testing.T) {
	_, alice, bob := aliceAndBob(t, func(c *relay.Config) { c.RatePerMinute = 1000 })
	alice.do(chromedp.EmulateViewport(390, 640))
	bob.openChat("alice")
	sendAll(bob, "alice", numbered("old", 8))
	alice.openChat("bob")
	alice.waitMessage(numbered("old", 8)[7])
	eval[chromedp.Void](alice, `document.getElementById('messages').scrollTop = document.getElementById('messages').scrollHeight`)
	alice.waitFor("the old ones read at the bottom", `import('/store.js').then(s => s.getChat('bob')).then(c => c.unread === 0)`)

	eval[chromedp.Void](alice, `document.getElementById('messages').scrollTop = 0`)
	news := numbered("new", 10)
	sendAll(bob, "alice", news)
	alice.waitMessage(news[9])
	if n := unreadStored(alice, "bob"); n != 10 {
		t.Fatalf("alice's chat counts %d unread with none of the ten on her screen, want 10", n)
	}
	alice.waitFor("the button and the title to count ten", `document.querySelector('#jump-new:not([hidden]) .count')?.textContent === '10' && document.title === '(10) relay'`)
	alice.screenshot("unseen-390")
	bob.waitFor("all ten delivered", fmt.Sprintf(`document.querySelectorAll('#messages .msg.out[data-tick="delivered"], #messages .msg.out[data-tick="read"]').length === %d`, 18))
	for _, text := range []string{"new 1", "new 10"} {
		if got := outTick(bob, text); got != "delivered" {
			t.Fatalf("bob's %q shows %q before alice saw it, want delivered", text, got)
		}
	}

	// The button brings the first new message to the top of the view.
	alice.do(chromedp.Click(chromedp.ID("jump-new")))
	bob.waitFor("the first new message read", `document.querySelector('#messages .msg.out[data-tick="read"]') && [...document.querySelectorAll('#messages .msg.out[data-tick="read"]')].some(e => e.querySelector('.text').textContent.startsWith('new 1\n'))`)
	left := unreadStored(alice, "bob")
	if left <= 0 || left >= 10 {
		t.Fatalf("alice's chat counts %d unread after the first screenful, want between 1 and 9", left)
	}
	if got := outTick(bob, "new 10"); got != "delivered" {
		t.Fatalf("bob's last message shows %q while it is below alice's view, want delivered", got)
	}
	alice.waitFor("the button to count what is left", fmt.Sprintf(`document.querySelector('#jump-new:not([hidden]) .count')?.textContent === '%d'`, left))
	alice.screenshot("partly-seen-390")

	eval[chromedp.Void](alice, `document.getElementById('messages').scrollTop = document.getElementById('messages').scrollHeight`)
	bob.waitFor("the last one read", `[...document.querySelectorAll('#messages .msg.out[data-tick="read"]')].some(e => e.querySelector('.text').textContent.startsWith('new 10\n'))`)
	alice.waitFor("nothing unread, no button", `document.title === 'relay' && document.getElementById('jump-new').hidden`)
}

// TestHiddenTabReadsNothing: a chat open in a tab that is not visible
// reads nothing that arrives; once the tab is visible again, what it shows
// is read.
func TestHiddenTabReadsNothing(t *testing.T) {
	_, alice, bob := aliceAndBob(t)
	bob.openChat("alice")
	alice.openChat("bob")
	eval[chromedp.Void](alice, `Object.defineProperty(document, 'visibilityState', { configurable: true, get: () => 'hidden' }); document.dispatchEvent(new Event('visibilitychange'))`)
	bob.send("while you were away")
	alice.waitMessage("while you were away")
	bob.waitFor("a receipt", `document.querySelector('#messages .msg.out[data-tick="delivered"], #messages .msg.out[data-tick="read"]')`)
	if got := eval[string](bob, `document.querySelector('#messages .msg.out').dataset.tick`); got != "delivered" {
		t.Fatalf("bob's message shows %q while alice's tab is hidden, want delivered", got)
	}
	if n := unreadStored(alice, "bob"); n != 1 {
		t.Fatalf("a hidden tab counts %d unread, want 1", n)
	}
	eval[chromedp.Void](alice, `delete document.visibilityState; document.dispatchEvent(new Event('visibilitychange'))`)
	bob.waitFor("read once the tab is visible", `document.querySelector('#messages .msg.out[data-tick="read"]')`)
}

// lateJS stores, as the inbox does, a message of bob's whose place in the
// chat is just after message "first", behind alice's read position: it
// committed late, or waited to decrypt while she read on.
const lateJS = `import('/store.js').then(async (s) => {
  const ms = await s.getMessages('bob');
  const first = ms.find(m => m.text === 'first');
  const m = { ...first, id: first.id.slice(0, -1) + (first.id.endsWith('Z') ? 'Y' : 'Z'), sort: first.sort, text: 'arrived late', seq: 0 };
  if (m.id < first.id) m.sort = first.sort + 1;
  const cursor = await s.getMeta('cursor');
  await s.storeBatch([{ kind: 'message', msg: m }], cursor, null, 'alice');
  const { notify } = await import('/election.js');
  notify({ type: 'changed', chats: ['bob'] });
  return m.id;
})`

// TestLateMessageIsUnreadUntilSeen: alice's laptop has read bob's "first"
// and "second" when a message that belongs between them is stored. It is
// unread (the count, the divider) until it is on her screen; then it is
// read, and her phone, which does not hold it, learns that it was. Before,
// a message behind the read position was read the moment it arrived.
func TestLateMessageIsUnreadUntilSeen(t *testing.T) {
	r, laptop, bob := aliceAndBob(t)
	phone := linkedDevice(t, r, laptop, "alice")
	bob.openChat("alice")
	bob.send("first")
	bob.send("second")
	laptop.openChat("bob")
	laptop.waitMessage("second")
	eval[chromedp.Void](laptop, `location.hash = '#/chats'`)
	laptop.waitFor("both read", unreadIs("bob", 0))
	phone.waitFor("both read on the phone", unreadIs("bob", 0))
	waitQueueEmpty(t, r)

	id := eval[string](laptop, lateJS)
	laptop.waitFor("the late message unread", unreadIs("bob", 1))
	laptop.openChat("bob")
	laptop.waitMessage("arrived late")
	if got, want := chatOrder(laptop), "DAY|first|DIVIDER|arrived late|second"; got != want {
		t.Fatalf("the laptop's chat reads %q, want %q", got, want)
	}
	laptop.waitFor("read once shown", `import('/store.js').then(s => s.getChat('bob')).then(c => c.unread === 0 && !(c.late || []).length)`)
	phone.waitFor("the phone to learn it was read", `import('/store.js').then(s => s.getChat('bob')).then(c => (c.readAhead || []).includes(`+js(id)+`))`)
	// Stored on the phone now, it is read there too.
	if got := eval[string](phone, lateJS); got != id {
		t.Fatalf("the phone stored %q, the laptop %q", got, id)
	}
	phone.waitFor("the phone's chat list", `document.querySelector('.chat-item[data-user="bob"]')`)
	if n := unreadStored(phone, "bob"); n != 0 {
		t.Fatalf("the phone counts %d unread for a message read on the laptop", n)
	}
}

// markUnreadFrom marks tb's message text, in its open chat, as unread
// from its actions menu.
func markUnreadFrom(tb *tab, text string) {
	tb.t.Helper()
	msg := `[...document.querySelectorAll('#messages .msg')].find(e => e.querySelector('.text').textContent === ` + js(text) + `)`
	tb.waitFor("the actions of "+text, msg+`.querySelector('button.msg-actions')`)
	eval[chromedp.Void](tb, msg+`.querySelector('button.msg-actions').click()`)
	tb.waitFor("Mark as unread on "+text, msg+`.querySelector('button.mark-unread')`)
	eval[chromedp.Void](tb, msg+`.querySelector('button.mark-unread').click()`)
}

// TestReadingOnANewDeviceClearsAnOlderMarkUnread: the laptop marks a
// message unread, then a phone is linked. What the phone reads is newer
// than the mark, so the laptop takes it; before, the phone's positions,
// of version 0, lost to the laptop's for good. Then the phone marks a
// message unread, and the laptop follows that too; reading it there
// clears the phone.
func TestReadingOnANewDeviceClearsAnOlderMarkUnread(t *testing.T) {
	r, laptop, bob := aliceAndBob(t)
	bob.openChat("alice")
	bob.send("first")
	bob.send("second")
	laptop.openChat("bob")
	laptop.waitMessage("second")
	laptop.waitFor("both read", `import('/store.js').then(s => s.getChat('bob')).then(c => c.unread === 0)`)
	markUnreadFrom(laptop, "second")
	laptop.waitFor("one unread on the laptop", unreadIs("bob", 1))

	phone := linkedDevice(t, r, laptop, "alice")
	joined(t, "alice/"+phone.deviceID(), map[*tab]string{laptop: "bob", bob: "alice"})
	bob.send("third")
	laptop.waitFor("two unread on the laptop", unreadIs("bob", 2))
	phone.waitFor("one unread on the phone", unreadIs("bob", 1))
	phone.openChat("bob")
	phone.waitMessage("third")
	eval[chromedp.Void](phone, `location.hash = '#/chats'`)
	phone.waitFor("read on the phone", unreadIs("bob", 0))
	laptop.waitFor("the phone's reading to clear the laptop", unreadIs("bob", 0))

	// A mark made on the phone, after the link, reaches the laptop.
	phone.openChat("bob")
	markUnreadFrom(phone, "third")
	phone.waitFor("one unread on the phone", unreadIs("bob", 1))
	laptop.waitFor("the phone's mark on the laptop: third only", unreadIs("bob", 1))
	laptop.openChat("bob")
	laptop.waitMessage("third")
	if got, want := chatOrder(laptop), "DAY|first|second|DIVIDER|third"; got != want {
		t.Fatalf("the laptop's chat reads %q, want %q", got, want)
	}
	eval[chromedp.Void](laptop, `location.hash = '#/chats'`)
	phone.waitFor("read on the laptop clears the phone", unreadIs("bob", 0))
}
