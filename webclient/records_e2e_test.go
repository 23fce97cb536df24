package webclient_test

import (
	"context"
	"crypto/ecdh"
	"crypto/rand"
	"fmt"
	"testing"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"

	"relay/relay"
	"relay/relayclient"
)

// The records of docs/crypto.md, "Records" (ADR 0050): edits, deletions,
// reactions, replies and receipts, in real Chromium with three devices:
// alice's laptop and phone, and bob.

// bubble is a JavaScript expression: the bubble of the open chat whose text
// is text, or undefined.
func bubble(text string) string {
	return `[...document.querySelectorAll('#messages .msg')].find(e => e.querySelector('.text').textContent === ` + js(text) + `)`
}

// menuAction opens the actions of the bubble with text and presses the
// menu item of class cls.
func (tb *tab) menuAction(text, cls string) {
	tb.t.Helper()
	tb.waitFor("the actions of "+js(text), bubble(text)+`?.querySelector('.msg-actions')`)
	eval[chromedp.Void](tb, bubble(text)+`.querySelector('.msg-actions').click()`)
	tb.waitFor("the menu item "+cls, bubble(text)+`?.querySelector('.menu .`+cls+`')`)
	eval[chromedp.Void](tb, bubble(text)+`.querySelector('.menu .`+cls+`').click()`)
}

// confirmDelete presses the confirming button of the delete dialog.
func (tb *tab) confirmDelete() {
	tb.t.Helper()
	tb.waitFor("the delete dialog", `document.getElementById('delete-dialog')?.open`)
	tb.do(chromedp.Click(chromedp.ID("delete-confirm")))
}

// typeEdit replaces what the composer holds with text and presses Enter.
func (tb *tab) typeEdit(text string) {
	tb.t.Helper()
	tb.waitFor("the composer in edit mode", `!document.getElementById('compose-mode').hidden && document.getElementById('composer').value !== ''`)
	eval[chromedp.Void](tb, `document.getElementById('composer').value = ''`)
	tb.do(chromedp.SendKeys(chromedp.ID("composer"), text+kb.Enter))
}

// ignored is the count of records this profile did not apply, by reason.
func ignored(tb *tab) map[string]int {
	tb.t.Helper()
	return eval[map[string]int](tb, `import('/store.js').then(s => s.ignoredRecords())`)
}

// sendRaw seals record (a JSON object) from the tab's account to peer with
// the page's own modules and posts it as the client would, bypassing the
// screens: a peer running a client of their own. It seals in the chat's
// MLS group when the chat has one, the old way otherwise. It returns the
// envelope id.
func sendRaw(tb *tab, peer string, record string) string {
	tb.t.Helper()
	return sealAndPost(tb, peer, record, true)
}

// sendRawOld is sendRaw sealing the old way (version 1) whatever the chat.
func sendRawOld(tb *tab, peer string, record string) string {
	tb.t.Helper()
	return sealAndPost(tb, peer, record, false)
}

func sealAndPost(tb *tab, peer, record string, inGroup bool) string {
	tb.t.Helper()
	return eval[string](tb, `(async () => {
  const a = await import('/account.js'); const c = await import('/crypto.js');
  const api = await import('/api.js'); const { ulid } = await import('/ulid.js');
  const m = await import('/mlschat.js');
  const id = ulid(); const record = JSON.stringify(`+record+`);
  let body = `+js(inGroup)+` ? await m.sealNow(`+js(peer)+`, id, record) : null;
  if (!body) {
    const { key } = await a.convKey(`+js(peer)+`);
    body = await c.seal(key, c.randomIV(), id, a.me(), `+js(peer)+`, record);
  }
  await api.send(id, `+js(peer)+`, c.b64encode(body));
  return id;
})()`)
}

func threeDevices(t *testing.T) (*liveRelay, *tab, *tab, *tab) {
	t.Helper()
	r, laptop, bob := aliceAndBob(t)
	phone := linkedDevice(t, r, laptop, "alice")
	laptop.openChat("bob")
	phone.openChat("bob")
	bob.openChat("alice")
	return r, laptop, phone, bob
}

// TestEditReachesEveryDevice: alice edits her message from its menu, then
// twice more with the up arrow in the empty composer. Every device shows
// one bubble with the last text, marked edited; the old texts are gone.
// Bob's reply, and a forged replay aside, nothing else changes.
func TestEditReachesEveryDevice(t *testing.T) {
	_, laptop, phone, bob := threeDevices(t)
	laptop.send("see you at 5")
	for _, tb := range []*tab{laptop, phone, bob} {
		tb.waitMessage("see you at 5")
	}
	laptop.waitFor("the message sent", bubble("see you at 5")+`?.dataset.status === 'sent'`)
	laptop.menuAction("see you at 5", "edit-btn")
	laptop.typeEdit("see you at 6")
	// Up in the empty composer edits the last own message.
	laptop.waitMessage("see you at 6")
	for _, text := range []string{"see you at 7", "see you at 7:30"} {
		laptop.waitFor("the edit applied", `!document.querySelector('#messages .msg .record-wait') && import('/store.js').then(s => s.outgoingRecords('bob')).then(r => r.length === 0)`)
		eval[chromedp.Void](laptop, `document.getElementById('composer').focus()`)
		laptop.do(chromedp.KeyEvent(kb.ArrowUp))
		laptop.typeEdit(text)
	}
	for _, tb := range []*tab{laptop, phone, bob} {
		tb.waitMessage("see you at 7:30")
		tb.waitFor("the edited mark", bubble("see you at 7:30")+`.querySelector('.edited')`)
		if n := eval[int](tb, `document.querySelectorAll('#messages .msg').length`); n != 1 {
			t.Fatalf("%d bubbles after four edits, want 1: %v", n, tb.messages())
		}
	}
	// The stored row holds the last edit; nothing of the edits is a message.
	if n := eval[int](bob, `import('/store.js').then(s => s.getMessages('alice')).then(m => m.length)`); n != 1 {
		t.Fatalf("bob stores %d messages, want 1", n)
	}
	if got := ignored(bob); got["forged"] != 0 || got["invalid"] != 0 {
		t.Fatalf("bob ignored records %v, want none", got)
	}
	fitsWidths(laptop, "edited")
}

// TestForgedEditOrDeletionIsIgnored: bob knows the id of alice's message
// and sends an edit and a deletion of it, sealed properly in their chat.
// Neither changes alice's message on any of her devices, and both are
// counted as forged. The control is the same edit and deletion of bob's
// own messages, which apply: what a naive client that applies by target id
// would have done to alice's.
func TestForgedEditOrDeletionIsIgnored(t *testing.T) {
	_, laptop, phone, bob := threeDevices(t)
	laptop.send("my words")
	bob.waitMessage("my words")
	bob.send("bob's first")
	bob.send("bob's second")
	laptop.waitMessage("bob's second")
	phone.waitMessage("bob's second")
	target := eval[string](bob, bubble("my words")+`.dataset.id`)
	bobFirst := eval[string](bob, bubble("bob's first")+`.dataset.id`)
	bobSecond := eval[string](bob, bubble("bob's second")+`.dataset.id`)

	sendRaw(bob, "alice", fmt.Sprintf(`{type: 'edit', target: %q, text: 'words put in her mouth'}`, target))
	sendRaw(bob, "alice", fmt.Sprintf(`{type: 'delete', target: %q}`, target))
	// The control: the same records for bob's own messages.
	sendRaw(bob, "alice", fmt.Sprintf(`{type: 'edit', target: %q, text: 'bob changed his mind'}`, bobFirst))
	sendRaw(bob, "alice", fmt.Sprintf(`{type: 'delete', target: %q}`, bobSecond))

	for _, tb := range []*tab{laptop, phone} {
		tb.waitMessage("bob changed his mind")
		tb.waitFor("bob's second deleted", `document.querySelector('#messages .msg.deleted')`)
		tb.waitFor("two forged records counted", `import('/store.js').then(s => s.ignoredRecords()).then(c => c.forged === 2)`)
		if !tb.hasMessage("my words") || tb.hasMessage("words put in her mouth") {
			t.Fatalf("alice's message was changed by bob: %v", tb.messages())
		}
		if n := eval[int](tb, `document.querySelectorAll('#messages .msg.deleted').length`); n != 1 {
			t.Fatalf("%d tombstones, want 1 (bob's own message)", n)
		}
	}
}

// TestDeleteForEveryoneAndForMe: alice deletes her message for everyone:
// a tombstone in its place on her laptop, her phone and bob's. Bob deletes
// another message for himself only: it goes from his browser, stays gone
// after a reload, and alice still has it.
func TestDeleteForEveryoneAndForMe(t *testing.T) {
	_, laptop, phone, bob := threeDevices(t)
	laptop.send("oops, wrong chat")
	laptop.send("keep this")
	for _, tb := range []*tab{laptop, phone, bob} {
		tb.waitMessage("keep this")
	}
	laptop.waitFor("both sent", `document.querySelectorAll('#messages .msg.out[data-status="sent"]').length === 2`)
	bob.menuAction("oops, wrong chat", "react-pick")
	laptop.waitFor("bob's reaction", `document.querySelector('#messages .msg .reaction')`)
	laptop.menuAction("oops, wrong chat", "delete-all-btn")
	laptop.confirmDelete()
	for _, tb := range []*tab{laptop, phone, bob} {
		tb.waitMessage("This message was deleted")
		if tb.hasMessage("oops, wrong chat") || eval[bool](tb, `!!document.querySelector('#messages .msg.deleted .reaction')`) {
			t.Fatalf("the deleted message or its reaction still shows: %v", tb.messages())
		}
		if got := tb.messages(); len(got) != 2 || got[0] != "This message was deleted" || got[1] != "keep this" {
			t.Fatalf("the chat reads %v, want the tombstone in place, then the other message", got)
		}
	}
	// A deletion is final: bob's reaction to it afterwards changes nothing.
	target := eval[string](bob, bubble("This message was deleted")+`.dataset.id`)
	sendRaw(bob, "alice", fmt.Sprintf(`{type: 'reaction', target: %q, emoji: '👍', on: true}`, target))
	sendRaw(bob, "alice", `{type: 'text', text: 'after the reaction'}`)
	laptop.waitMessage("after the reaction")
	if eval[bool](laptop, `!!document.querySelector('#messages .reaction')`) {
		t.Fatal("a reaction to a deleted message shows")
	}

	bob.menuAction("keep this", "delete-me-btn")
	bob.confirmDelete()
	bob.waitFor("the message gone for bob", `!`+bubble("keep this"))
	bob.do(chromedp.Reload())
	bob.waitFor("the chat after a reload", `document.getElementById('composer') && document.querySelector('#messages .msg')`)
	bob.waitMessage("This message was deleted")
	if bob.hasMessage("keep this") {
		t.Fatal("deleted for me, but back after a reload")
	}
	// Control: alice's devices, which nothing was sent to, still have it.
	for _, tb := range []*tab{laptop, phone} {
		if !tb.hasMessage("keep this") {
			t.Fatalf("a deletion for bob only removed alice's copy: %v", tb.messages())
		}
	}
}

// TestReactionsAddAndRemove: bob and alice react with the same emoji:
// "👍 2" under the bubble on every device; bob takes his back: "👍 1", from
// alice only. An unread count never counts reactions.
func TestReactionsAddAndRemove(t *testing.T) {
	_, laptop, phone, bob := threeDevices(t)
	bob.send("lunch?")
	laptop.waitMessage("lunch?")
	phone.waitMessage("lunch?")
	bob.waitFor("sent", bubble("lunch?")+`?.dataset.status === 'sent'`)
	eval[chromedp.Void](phone, `location.hash = '#/chats'`)
	phone.waitFor("the phone's chat list, all read", unreadIs("bob", 0))

	bob.menuAction("lunch?", "react-pick")
	laptop.waitFor("bob's 👍", bubble("lunch?")+`?.querySelector('.reaction[data-emoji="👍"] .count')?.textContent === '1'`)
	laptop.menuAction("lunch?", "react-pick")
	count := bubble("lunch?") + `?.querySelector('.reaction[data-emoji="👍"] .count')?.textContent`
	for _, tb := range []*tab{laptop, bob} {
		tb.waitFor("two 👍", count+` === '2'`)
	}
	if !eval[bool](laptop, bubble("lunch?")+`.querySelector('.reaction').getAttribute('aria-pressed') === 'true'`) {
		t.Fatal("alice's own reaction is not marked as hers")
	}
	// Bob takes his back, with the chip under the bubble.
	eval[chromedp.Void](bob, bubble("lunch?")+`.querySelector('.reaction').click()`)
	for _, tb := range []*tab{laptop, bob} {
		tb.waitFor("one 👍", count+` === '1'`)
	}
	if got := eval[string](laptop, bubble("lunch?")+`.querySelector('.reaction').title`); got != "you" {
		t.Fatalf("the 👍 is from %q, want alice only (you)", got)
	}
	phone.openChat("bob")
	phone.waitFor("one 👍 on the phone", count+` === '1'`)
	// Reactions are not new messages: with nobody of alice's reading, bob's
	// reaction and message make one unread.
	for _, tb := range []*tab{laptop, phone} {
		eval[chromedp.Void](tb, `location.hash = '#/chats'`)
		tb.waitFor("the chat list, all read", unreadIs("bob", 0))
	}
	bob.menuAction("lunch?", "react-pick")
	bob.send("now?")
	for _, tb := range []*tab{laptop, phone} {
		tb.waitFor("bob's new message stored", storedText("bob", "now?"))
		if n := unreadStored(tb, "bob"); n != 1 {
			t.Fatalf("%d unread after a reaction and a message, want 1", n)
		}
	}
}

// storedText is a condition: the chat with peer holds a message text.
func storedText(peer, text string) string {
	return `import('/store.js').then(s => s.getMessages(` + js(peer) + `)).then(ms => ms.some(m => m.text === ` + js(text) + `))`
}

// unreadStored is the unread count the store holds for the chat with peer.
func unreadStored(tb *tab, peer string) int {
	tb.t.Helper()
	return eval[int](tb, `import('/store.js').then(s => s.getChat(`+js(peer)+`)).then(c => c.unread || 0)`)
}

// TestReplyShowsAndScrollsToTheQuote: bob replies to alice's first message
// after many others. The reply shows a snippet of it; clicking the quote
// scrolls the first message into view. Once alice deletes the quoted
// message, the quote says so.
func TestReplyShowsAndScrollsToTheQuote(t *testing.T) {
	_, laptop, phone, bob := threeDevices(t)
	laptop.send("the very first question")
	for i := 0; i < 25; i++ {
		laptop.send(fmt.Sprintf("filler %d", i))
	}
	bob.waitMessage("filler 24")
	bob.waitFor("the question at the top", bubble("the very first question"))
	bob.menuAction("the very first question", "reply-btn")
	bob.waitFor("the reply bar", `!document.getElementById('compose-mode').hidden && document.getElementById('compose-mode').textContent.includes('Replying to alice')`)
	bob.send("the answer")
	quote := bubble("the answer") + `?.querySelector('button.quote')`
	for _, tb := range []*tab{laptop, phone, bob} {
		tb.waitFor("the quote", quote+`?.textContent.includes('the very first question')`)
	}
	fitsWidths(laptop, "reply")
	laptop.do(chromedp.EmulateViewport(1280, 900))
	inView := `(() => { const n = ` + bubble("the very first question") + `; const l = document.getElementById('messages').getBoundingClientRect(); const r = n.getBoundingClientRect(); return r.top >= l.top && r.bottom <= l.bottom; })()`
	// The control: scrolled to the bottom, the quoted message is out of view.
	eval[chromedp.Void](laptop, `document.getElementById('messages').scrollTop = 1e9`)
	if eval[bool](laptop, inView) {
		t.Fatal("the quoted message is in view before the quote was clicked: the test proves nothing")
	}
	eval[chromedp.Void](laptop, quote+`.click()`)
	laptop.waitFor("the quoted message scrolled into view", inView)

	laptop.menuAction("the very first question", "delete-all-btn")
	laptop.confirmDelete()
	for _, tb := range []*tab{laptop, bob} {
		tb.waitFor("the quote of a deleted message", bubble("the answer")+`?.querySelector('.quote.gone')?.textContent === 'The quoted message was deleted.'`)
	}
}

// tickOf is a condition: the outgoing bubble with text shows tick.
func tickOf(text, tick string) string {
	return bubble(text) + `?.dataset.tick === ` + js(tick)
}

// tickWatchJS records every tick the bubbles of the page show, in order.
const tickWatchJS = `(() => {
  window.__ticks = {};
  new MutationObserver(() => {
    for (const n of document.querySelectorAll('#messages .msg.out')) {
      const t = n.querySelector('.text').textContent, k = n.dataset.tick;
      const seen = window.__ticks[t] || (window.__ticks[t] = []);
      if (k && seen[seen.length - 1] !== k) seen.push(k);
    }
  }).observe(document.body, { subtree: true, childList: true, attributes: true });
})()`

// TestTicksGoSentDeliveredRead: alice's message shows sent, then
// delivered once bob's device stored it (bob is on his chat list), then
// read once bob opened the chat, on both of alice's devices; never back.
func TestTicksGoSentDeliveredRead(t *testing.T) {
	_, laptop, phone, bob := threeDevices(t)
	eval[chromedp.Void](bob, `location.hash = '#/chats'`)
	bob.waitFor("bob's chat list", `document.getElementById('new-chat-username')`)
	eval[chromedp.Void](laptop, tickWatchJS)
	laptop.send("did you get this?")
	laptop.waitFor("delivered", tickOf("did you get this?", "delivered"))
	phone.waitFor("delivered on the phone", tickOf("did you get this?", "delivered"))
	bob.waitFor("one unread for bob", unreadIs("alice", 1))
	if eval[bool](laptop, tickOf("did you get this?", "read")) {
		t.Fatal("read before bob opened the chat")
	}
	bob.openChat("alice")
	laptop.waitFor("read", tickOf("did you get this?", "read"))
	phone.waitFor("read on the phone", tickOf("did you get this?", "read"))
	seen := eval[[]string](laptop, `window.__ticks['did you get this?']`)
	want := []string{"sending…", "sent", "delivered", "read"}
	j := 0
	for _, s := range seen {
		for j < len(want) && want[j] != s {
			j++
		}
		if j == len(want) {
			t.Fatalf("ticks went %v: not in the order %v", seen, want)
		}
	}
	if seen[len(seen)-1] != "read" || len(seen) < 3 {
		t.Fatalf("ticks went %v, want sent, delivered, read", seen)
	}
	fitsWidths(laptop, "ticks")
}

// TestReadReceiptsOff: bob turns read receipts off and reads alice's
// message: it stays "delivered". Then he turns them on and reads the next
// one: that one goes "read" while the first stays "delivered". Receipts are
// sent in order, so had the first been receipted it would show read by
// now; this is also the control that read receipts work at all.
func TestReadReceiptsOff(t *testing.T) {
	_, laptop, _, bob := threeDevices(t)
	eval[chromedp.Void](bob, `location.hash = '#/settings'`)
	bob.waitFor("the read receipts switch", `document.getElementById('read-receipts')?.checked === true`)
	bob.do(chromedp.Click(chromedp.ID("read-receipts")))
	bob.waitFor("read receipts off", `import('/sync.js').then(s => s.readReceipts()).then(on => on === false)`)
	bob.openChat("alice")
	laptop.send("private reading")
	bob.waitMessage("private reading")
	laptop.waitFor("delivered", tickOf("private reading", "delivered"))
	if q := eval[int](bob, `import('/store.js').then(s => s.receiptsToSend()).then(q => Object.values(q).reduce((n, c) => n + c.read.length, 0))`); q != 0 {
		t.Fatalf("%d read receipts queued with read receipts off", q)
	}
	eval[chromedp.Void](bob, `location.hash = '#/settings'`)
	bob.waitFor("the read receipts switch", `document.getElementById('read-receipts')?.checked === false`)
	bob.do(chromedp.Click(chromedp.ID("read-receipts")))
	bob.waitFor("read receipts on", `import('/sync.js').then(s => s.readReceipts())`)
	bob.openChat("alice")
	laptop.send("public reading")
	bob.waitMessage("public reading")
	laptop.waitFor("the second read", tickOf("public reading", "read"))
	if !eval[bool](laptop, tickOf("private reading", "delivered")) {
		t.Fatalf("the message read with receipts off shows %q", eval[string](laptop, bubble("private reading")+`.dataset.tick`))
	}
}

// TestReplayedRecordChangesNothing: the relay delivers alice's second edit
// again, under a new seq, after her third. Bob's chat keeps the third
// text. The control, a first delivery of the same kind (her third edit),
// did change it.
func TestReplayedRecordChangesNothing(t *testing.T) {
	r, laptop, _, bob := threeDevices(t)
	ctx := context.Background()
	// A device of bob's that never ACKs keeps a copy of every envelope.
	witness := relayclient.New(r.URL)
	if _, err := witness.Login(ctx, "bob", password); err != nil {
		t.Fatal(err)
	}
	key, _ := ecdh.P256().GenerateKey(rand.Reader)
	dev, err := witness.AddDevice(ctx, "witness", key.PublicKey().Bytes())
	if err != nil {
		t.Fatal(err)
	}
	laptop.send("v1")
	bob.waitMessage("v1")
	laptop.waitFor("sent", bubble("v1")+`?.dataset.status === 'sent'`)
	for _, v := range []string{"v2", "v3"} {
		laptop.waitFor("nothing in the outbox", `import('/store.js').then(s => s.outgoingRecords('bob')).then(r => r.length === 0)`)
		eval[chromedp.Void](laptop, `document.getElementById('composer').focus()`)
		laptop.do(chromedp.KeyEvent(kb.ArrowUp))
		laptop.typeEdit(v)
		bob.waitMessage(v)
	}
	bobDev := bob.deviceID()
	// The witness's rows: v1, the edit to v2, the edit to v3, in order.
	var seq int64
	if err := r.Pool.QueryRow(ctx, `
		WITH src AS (SELECT * FROM queue WHERE device_id = $1 AND from_username = 'alice' ORDER BY seq OFFSET 1 LIMIT 1),
		     next AS (UPDATE devices SET seq = seq + 1 WHERE id = $2 RETURNING seq)
		INSERT INTO queue (device_id, seq, envelope_id, from_username, from_device, to_username, ts, body)
		SELECT $2, next.seq, src.envelope_id, src.from_username, src.from_device, src.to_username, src.ts, src.body FROM src, next
		RETURNING seq`, dev, bobDev).Scan(&seq); err != nil {
		t.Fatalf("replaying the edit to v2: %v", err)
	}
	// The stream hears of rows the relay queued itself; reconnect to replay.
	r.Stop()
	r.Start()
	bob.waitFor("the replayed edit read", fmt.Sprintf(`import('/store.js').then(s => s.getMeta('cursor')).then(c => c.lastSeq >= %d)`, seq))
	laptop.send("after the replay")
	bob.waitMessage("after the replay")
	if !bob.hasMessage("v3") || bob.hasMessage("v2") {
		t.Fatalf("a replayed edit changed the message: %v", bob.messages())
	}
}

// TestUnknownRecordIsKept: bob's newer client sends a record of a type
// this client does not know. Alice's devices keep it and say that it needs
// a newer version; it is not unread. A row kept that way whose type this
// version knows (as an older client would have kept a text) is read again
// after a reload and shows as the message it is.
func TestUnknownRecordIsKept(t *testing.T) {
	_, laptop, phone, bob := threeDevices(t)
	for _, tb := range []*tab{laptop, phone} {
		eval[chromedp.Void](tb, `location.hash = '#/chats'`)
		tb.waitFor("the chat list", `document.getElementById('new-chat-username')`)
	}
	id := sendRaw(bob, "alice", `{type: 'poll', question: 'pizza or pasta?', options: ['pizza', 'pasta']}`)
	bob.send("did you see my poll?")
	for _, tb := range []*tab{laptop, phone} {
		tb.waitFor("bob's message stored", storedText("bob", "did you see my poll?"))
		if n := unreadStored(tb, "bob"); n != 1 {
			t.Fatalf("%d unread after an unknown record and a message, want 1", n)
		}
	}
	laptop.openChat("bob")
	laptop.waitFor("the unknown record shown", `[...document.querySelectorAll('#messages .msg.unknown')].some(e => e.dataset.id === `+js(id)+` && e.textContent.includes('needs a newer version'))`)
	if got := eval[string](laptop, `import('/store.js').then(s => s.getMessage(`+js(id)+`)).then(m => m.record)`); got != `{"type":"poll","question":"pizza or pasta?","options":["pizza","pasta"]}` {
		t.Fatalf("the record kept is %s", got)
	}

	// A newer version reads the rows it now knows: simulated by a row kept
	// by "an older client" with a type this one reads.
	eval[chromedp.Void](laptop, `new Promise((resolve, reject) => {
  const r = indexedDB.open('relay');
  r.onsuccess = () => {
    const t = r.result.transaction('messages', 'readwrite');
    const ms = t.objectStore('messages');
    const g = ms.get(`+js(id)+`);
    g.onsuccess = () => { const m = g.result; m.record = JSON.stringify({ type: 'text', text: 'read by a newer version' }); ms.put(m); };
    t.oncomplete = () => { r.result.close(); resolve(); };
    t.onerror = () => reject(t.error);
  };
  r.onerror = () => reject(r.error);
})`)
	laptop.do(chromedp.Reload())
	laptop.waitFor("the chat after a reload", `document.getElementById('composer')`)
	laptop.waitMessage("read by a newer version")
	if eval[int](laptop, `document.querySelectorAll('#messages .msg.unknown').length`) != 0 {
		t.Fatal("the row read again still shows as unknown")
	}
}

// TestLinkedLaterIgnoresRecordsOfOldMessages: a tablet linked after alice's
// message gets her edit of it, and bob's reaction, for a message it never
// had. It ignores them without error, and without counting them as forged.
func TestLinkedLaterIgnoresRecordsOfOldMessages(t *testing.T) {
	r, laptop, _, bob := threeDevices(t)
	laptop.send("before the tablet")
	bob.waitMessage("before the tablet")
	laptop.waitFor("sent", bubble("before the tablet")+`?.dataset.status === 'sent'`)
	tablet := linkedDevice(t, r, laptop, "alice")
	joined(t, "alice/"+tablet.deviceID(), map[*tab]string{laptop: "bob", bob: "alice"})
	laptop.openChat("bob")
	laptop.menuAction("before the tablet", "edit-btn")
	laptop.typeEdit("edited after the tablet")
	bob.waitMessage("edited after the tablet")
	bob.menuAction("edited after the tablet", "react-pick")
	bob.send("hello tablet")
	tablet.openChat("bob")
	tablet.waitMessage("hello tablet")
	if got := tablet.messages(); len(got) != 1 {
		t.Fatalf("the tablet shows %v, want bob's new message only", got)
	}
	if got := ignored(tablet); got["forged"] != 0 || got["invalid"] != 0 {
		t.Fatalf("the tablet counted %v, want nothing", got)
	}
}

// rateWatchJS records whether any message of the page ever waited for the
// rate limit.
const rateWatchJS = `(() => {
  window.__rateLimited = false;
  new MutationObserver(() => {
    if (document.querySelector('#messages .msg .wait')) window.__rateLimited = true;
  }).observe(document.body, { subtree: true, childList: true });
})()`

// TestBusyReadingNeverRateLimitsTheNextMessage: at 2 messages a minute,
// alice reads what bob and carol send (2 each): her client sends at least
// 4 receipts, twice her message budget. Her next two messages are still
// accepted at once, because receipts spend a bucket of their own
// (docs/protocol.md, "Rate limit"). Sent as plain envelopes (the naive
// version), the receipts use up her budget and her message waits.
func TestBusyReadingNeverRateLimitsTheNextMessage(t *testing.T) {
	r, alice, bob := aliceAndBob(t, func(c *relay.Config) { c.RatePerMinute = 2 })
	_, carol := r.newProfile(t)
	carol.register("carol")
	// Each message waits for a receipt of the one before, so that each
	// has a receipt of its own: four in all, at least.
	sent := 0
	for _, peer := range []*tab{bob, carol} {
		peer.openChat("alice")
		alice.openChat(map[*tab]string{bob: "bob", carol: "carol"}[peer])
		for _, text := range []string{"busy 1", "busy 2"} {
			peer.send(text)
			alice.waitMessage(text)
			alice.waitFor("a receipt of "+text, fmt.Sprintf(`import('/receipts.js').then(r => r.receiptsSent() > %d)`, sent))
			sent = eval[int](alice, `import('/receipts.js').then(r => r.receiptsSent())`)
		}
	}
	alice.openChat("bob")
	eval[chromedp.Void](alice, rateWatchJS)
	alice.send("my reply")
	alice.send("and another")
	alice.waitFor("both replies sent", `document.querySelectorAll('#messages .msg.out[data-status="sent"]').length === 2`)
	if eval[bool](alice, `window.__rateLimited`) {
		t.Fatal("a reply waited for the rate limit after reading")
	}
	if n := eval[int](alice, `import('/receipts.js').then(r => r.receiptsSent())`); n < 4 {
		t.Fatalf("%d receipts sent, want at least 4: the test proves nothing", n)
	}
}

// postSizesJS records the decoded body size of every envelope the page
// posts, by its kind.
const postSizesJS = `(() => {
  window.__sizes = [];
  const real = window.fetch;
  window.fetch = (url, init) => {
    if (String(url).endsWith('/api/messages') && init && init.method === 'POST') {
      const b = JSON.parse(init.body);
      const raw = atob(b.body);
      // A welcome (MLS, wire format 3) is not a record: it says so.
      const welcome = raw.charCodeAt(0) === 0 && raw.charCodeAt(1) === 1 && raw.charCodeAt(2) === 0 && raw.charCodeAt(3) === 3;
      window.__sizes.push({ kind: welcome ? 'welcome' : b.kind || 'message', size: raw.length });
    }
    return real(url, init);
  };
})()`

// TestRecordsLookLikeShortMessages: a reaction, a receipt and an edit have
// the body size of a short message, so the relay cannot tell them apart by
// size. In an MLS chat a short message is its first bucket with the
// framing and the signature, and its size varies by a few bytes with the
// signature's encoding (DER: 70 to 72 bytes, less once in 256): every
// record is within those bytes of it. What
// went before the chat had its group (bob's key packages not published
// yet) went the old way, in the old first bucket (12 bytes of IV, 256 of
// padded plaintext, 16 of tag), the size of an old short message. Commits
// and welcomes, which the relay knows for what they are, are not records.
func TestRecordsLookLikeShortMessages(t *testing.T) {
	_, alice, bob := aliceAndBob(t)
	alice.openChat("bob")
	bob.openChat("alice")
	eval[chromedp.Void](alice, postSizesJS)
	eval[chromedp.Void](bob, postSizesJS)
	alice.send("hi")
	bob.waitMessage("hi")
	alice.waitFor("sent", bubble("hi")+`?.dataset.status === 'sent'`)
	bob.menuAction("hi", "react-pick")
	alice.waitFor("bob's reaction", bubble("hi")+`?.querySelector('.reaction')`)
	alice.menuAction("hi", "edit-btn")
	alice.typeEdit("hi there")
	bob.waitMessage("hi there")
	bob.waitFor("a receipt posted", `window.__sizes.some(s => s.kind === 'receipt')`)
	type size struct {
		Kind string `json:"kind"`
		Size int    `json:"size"`
	}
	var all []size
	all = append(all, eval[[]size](alice, `window.__sizes`)...)
	all = append(all, eval[[]size](bob, `window.__sizes`)...)
	kinds := map[string]bool{}
	const oldShort, slack = 12 + 256 + 16, 6
	short := 0
	for _, s := range all {
		if s.Kind == "message" && s.Size != oldShort {
			short = s.Size
			break
		}
	}
	if short == 0 {
		t.Fatalf("posted %v: no message went in the chat's MLS group", all)
	}
	for _, s := range all {
		if s.Kind == "commit" || s.Kind == "welcome" || s.Size == oldShort {
			continue
		}
		kinds[s.Kind] = true
		if s.Size < short-slack || s.Size > short+slack {
			t.Fatalf("a %s envelope of %d bytes, want %d (±%d) like a short message: %v", s.Kind, s.Size, short, slack, all)
		}
	}
	if !kinds["receipt"] || !kinds["message"] || len(all) < 4 {
		t.Fatalf("posted %v: want the text, the reaction, the edit and a receipt", all)
	}
}
