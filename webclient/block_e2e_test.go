package webclient_test

import (
	"context"
	"sync/atomic"
	"testing"

	"github.com/chromedp/cdproto/fetch"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/chromedp"
)

// blockedIs is a condition: the tab's chat with peer is blocked (on) or
// not.
func blockedIs(peer string, on bool) string {
	return `import('/store.js').then(s => s.getChat(` + js(peer) + `)).then(c => !!(c && c.block && c.block.on) === ` + js(on) + `)`
}

// droppedHere is a condition: the message id arrived on the tab and was
// dropped for its sender's block: its row is kept hidden, with nothing it
// said.
func droppedHere(id string) string {
	return `import('/store.js').then(s => s.getMessage(` + js(id) + `)).then(m => !!m && m.blocked === true && m.hidden === true && m.text === null)`
}

// beforeTheBlock starts a relay with alice on a laptop and a phone, in
// the chat's group with bob, and bob's message "before the block" on the
// laptop.
func beforeTheBlock(t *testing.T) (r *liveRelay, laptop, phone, bob *tab) {
	t.Helper()
	r, laptop, bob = aliceAndBob(t)
	phone = linkedDevice(t, r, laptop, "alice")
	laptop.openChat("bob")
	bob.openChat("alice")
	published(t, r, bob)
	bob.send("before the block")
	laptop.waitMessage("before the block")
	joined(t, "alice/"+phone.deviceID(), map[*tab]string{laptop: "bob", bob: "alice"})
	return r, laptop, phone, bob
}

// TestBlockDropsOnEveryDevice: alice (laptop and phone) blocks bob on her
// laptop. The block reaches the phone by the record to herself, and a
// tablet linked after it when it joins her own group; what bob
// sends then (a message, and a reaction to alice's message) arrives on
// both devices and is dropped: never shown, not counted unread, no
// delivery receipt to bob. Unblocked from the phone, bob's next message
// shows on both. The control: the message sent before the block shows,
// and so does the one after the unblock, with its receipt's tick.
func TestBlockDropsOnEveryDevice(t *testing.T) {
	r, laptop, phone, bob := beforeTheBlock(t)
	laptop.send("hello bob")
	bob.waitMessage("hello bob")
	phone.waitFor("bob's chat on the phone", `document.querySelector('.chat-item[data-user="bob"]')`)

	openPanel(laptop, "#block-btn")
	eval[chromedp.Void](laptop, `document.getElementById('block-btn').scrollIntoView()`)
	checkScreen(laptop, "block-panel")
	laptop.do(chromedp.Click(chromedp.ID("block-btn")))
	laptop.waitFor("the confirmation", `document.getElementById('dialog')?.open`)
	checkScreen(laptop, "block-confirm")
	laptop.do(chromedp.Click(chromedp.ID("dialog-confirm")))
	laptop.waitFor("the composer closed", `document.getElementById('composer').disabled && document.getElementById('composer-note').textContent.includes('You blocked bob')`)
	laptop.waitFor("the panel saying so", `document.getElementById('block-btn').textContent === 'Unblock bob'`)
	phone.waitFor("the block on the phone", blockedIs("bob", true))
	phone.waitFor("the chat list marking bob blocked", `document.querySelector('.chat-item[data-user="bob"] .blocked-marker')`)
	checkScreen(laptop, "blocked-chat")
	// A device linked after the block has it too: the records are told
	// again once it joins the account's own group.
	laptop.waitFor("the block record accepted", `import('/store.js').then(s => s.getChat('bob')).then(c => c.block.sent)`)
	tablet := linkedDevice(t, r, laptop, "alice")
	tablet.waitFor("the block on the tablet linked since", blockedIs("bob", true))
	laptop.openChat("bob")

	bob.send("while blocked")
	blocked := msgID(bob, "alice", "while blocked")
	react := `import('/sync.js').then(s => s.react('alice', ` + js(msgID(bob, "alice", "hello bob")) + `, '👍', true))`
	eval[chromedp.Void](bob, react)
	bob.waitFor("bob's message and reaction sent", outboxSettled)
	devices := []struct {
		name string
		tb   *tab
	}{{"laptop", laptop}, {"phone", phone}, {"tablet", tablet}}
	for _, d := range devices {
		d.tb.waitFor("bob's message dropped on the "+d.name, droppedHere(blocked))
	}
	// Both devices ACKed everything bob sent: the reaction was read too.
	waitQueueEmpty(t, r)
	phone.openChat("bob")
	phone.waitMessage("before the block")
	tablet.openChat("bob")
	tablet.waitFor("the tablet's chat with bob", `document.getElementById('composer')`)
	for _, d := range devices {
		name, tb := d.name, d.tb
		if tb.hasMessage("while blocked") {
			t.Errorf("the %s shows what bob sent while blocked", name)
		}
		if n := eval[int](tb, `document.querySelectorAll('#messages .reactions').length`); n != 0 {
			t.Errorf("the %s shows %d reactions of bob's", name, n)
		}
		if p := eval[string](tb, `import('/store.js').then(s => s.getChat('bob')).then(c => c.preview + ' / ' + c.unread)`); p != "hello bob / 0" && (d.name != "tablet" || p != " / 0") {
			t.Errorf("the %s's chat row: %q, want the last message shown and nothing unread", name, p)
		}
	}

	// Unblocked from the phone: the laptop follows, and bob is heard again.
	openPanel(phone, "#block-btn")
	// The panel may have been drawn before the block came: its button
	// says Unblock once it is drawn again.
	phone.waitFor("the phone's Unblock button", `document.getElementById('block-btn').textContent === 'Unblock bob'`)
	phone.do(chromedp.Click(chromedp.ID("block-btn")))
	phone.waitFor("the phone unblocked", blockedIs("bob", false))
	laptop.waitFor("the laptop unblocked", blockedIs("bob", false))
	laptop.waitFor("the composer open again", `!document.getElementById('composer').disabled`)
	bob.send("after the unblock")
	laptop.waitMessage("after the unblock")
	phone.waitMessage("after the unblock")
	bob.waitFor("the receipt of what came after", `['delivered', 'read'].includes(`+bubble("after the unblock")+`?.dataset.tick)`)
	if tick := eval[string](bob, bubble("while blocked")+`.dataset.tick || ''`); tick != "sent" && tick != "" {
		t.Errorf("bob's message sent while blocked shows %q: a receipt told bob it arrived", tick)
	}
	if laptop.hasMessage("while blocked") || phone.hasMessage("while blocked") {
		t.Error("unblocking brought back what was dropped")
	}
}

// holdPosts fails every POST to /api/messages of tb's tab, as a network
// down would, until the function it returns is called.
func holdPosts(t *testing.T, tb *tab) (let func()) {
	t.Helper()
	var open atomic.Bool
	ctx, cancel := context.WithCancel(tb.ctx)
	t.Cleanup(cancel)
	paused := chromedp.Events(ctx, fetch.RequestPaused)
	go func() {
		for ev, err := range paused {
			if err != nil {
				return
			}
			if !open.Load() && ev.Request.Method == "POST" {
				_, _ = chromedp.Call(ctx, fetch.FailRequest, fetch.FailRequestParams{RequestID: ev.RequestID, ErrorReason: network.ErrorReasonConnectionReset})
				continue
			}
			_, _ = chromedp.Call(ctx, fetch.ContinueRequest, fetch.ContinueRequestParams{RequestID: ev.RequestID})
		}
	}()
	if _, err := chromedp.Call(ctx, fetch.Enable, fetch.EnableParams{Patterns: []*fetch.RequestPattern{{URLPattern: "*/api/messages", RequestStage: fetch.RequestStageRequest}}}); err != nil {
		t.Fatal(err)
	}
	return func() { open.Store(true) }
}

// TestBlockMadeOfflineEndsTheSameEverywhere: alice's laptop blocks bob
// while its messages cannot reach the relay, and bob writes meanwhile.
// The laptop drops bob's message; the phone, not told yet, shows it (the
// control: the test can see the difference). Once the laptop's record
// goes out, the phone hides that message too, since it was sent after the
// block: both devices end showing the same.
func TestBlockMadeOfflineEndsTheSameEverywhere(t *testing.T) {
	_, laptop, phone, bob := beforeTheBlock(t)
	phone.openChat("bob")
	phone.waitMessage("before the block")

	let := holdPosts(t, laptop)
	openPanel(laptop, "#block-btn")
	laptop.do(chromedp.Click(chromedp.ID("block-btn")))
	laptop.waitFor("the confirmation", `document.getElementById('dialog')?.open`)
	laptop.do(chromedp.Click(chromedp.ID("dialog-confirm")))
	laptop.waitFor("the block on the laptop", blockedIs("bob", true))
	bob.send("in the gap")
	gap := msgID(bob, "alice", "in the gap")
	laptop.waitFor("bob's message dropped on the laptop", droppedHere(gap))
	phone.waitMessage("in the gap")
	if !eval[bool](phone, blockedIs("bob", false)) {
		t.Fatal("the phone learnt of the block while the laptop could not send")
	}

	let()
	phone.waitFor("the block on the phone", blockedIs("bob", true))
	phone.waitFor("bob's message hidden on the phone", `!(`+bubble("in the gap")+`)`)
	phone.waitFor("its row kept as dropped", droppedHere(gap))
	if p := eval[string](phone, `import('/store.js').then(s => s.getChat('bob')).then(c => c.preview + ' / ' + c.unread)`); p != "before the block / 0" {
		t.Errorf("the phone's chat row: %q, want the last message shown and nothing unread", p)
	}
	if laptop.hasMessage("in the gap") {
		t.Error("the laptop shows what bob sent after the block")
	}
}
