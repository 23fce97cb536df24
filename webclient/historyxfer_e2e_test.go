package webclient_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/chromedp/cdproto/fetch"
	"github.com/chromedp/chromedp"
)

// linkWithHistory logs alice in on a new profile, approves it from
// laptop, and answers the offer of the history with choice (the id of
// its button: history-all, history-30, history-none). It returns the new
// device's tab once linked.
func linkWithHistory(t *testing.T, r *liveRelay, laptop *tab, choice string, before func(phone *tab)) *tab {
	t.Helper()
	_, phone := r.newProfile(t)
	phone.login("alice")
	id := phone.deviceID()
	eval[chromedp.Void](laptop, `location.hash = '#/devices'`)
	btn := fmt.Sprintf(`.device[data-id=%q] .approve-btn`, id)
	laptop.waitFor("the new device in the list", `document.querySelector(`+js(btn)+`)`)
	laptop.do(chromedp.Click(chromedp.CSS(btn)))
	phone.waitFor("the new device to be linked", `document.getElementById('new-chat-username')`)
	laptop.waitFor("the offer of the history, focused", `document.activeElement && document.activeElement.id === 'history-all'`)
	if before != nil {
		before(phone)
	}
	laptop.do(chromedp.Click(chromedp.ID(choice)))
	return phone
}

// storedOrder is the ids of a chat's messages in the store's order.
func storedOrder(tb *tab, chat string) []string {
	tb.t.Helper()
	return eval[[]string](tb, `import('/store.js').then(async (s) => (await s.getMessages(`+js(chat)+`)).filter((m) => !m.event).map((m) => m.id))`)
}

// TestHistoryToANewDevice: alice's laptop holds a chat with bob (a file
// among the messages, and one message from 40 days ago) and notes to
// self. A phone approved with "The last 30 days" gets the chats without
// the old message; a tablet approved with "Everything" gets every
// message, in the laptop's order, the file's bytes included, and a
// message bob sent after the tablet was linked, which it received both
// live and in the archive, once. The offer says what each choice carries.
// The archive is gone from the relay once downloaded, and relay audit
// finds none of the messages' text on its disks.
func TestHistoryToANewDevice(t *testing.T) {
	conn, dir := cluster(t)
	r, alice, bob := aliceAndBob(t)
	published(t, r, bob)
	alice.openChat("bob")
	alice.send("Le rendez-vous est à dix heures")
	bob.openChat("alice")
	bob.waitMessage("Le rendez-vous est à dix heures")
	bob.send("Parfait, à demain")
	alice.waitMessage("Parfait, à demain")
	sendDroppedFile(alice, "agenda.txt", "the agenda of the meeting")
	alice.openChat("alice")
	alice.send("notes du laptop")
	alice.waitMessage("notes du laptop")
	alice.waitFor("everything sent", outboxSettled)
	// A message of 40 days ago, as the laptop would hold it.
	eval[chromedp.Void](alice, `(async () => {
	  const { ulid } = await import('/ulid.js');
	  const ts = Date.now() - 40 * 86400000;
	  await new Promise((resolve, reject) => {
	    const o = indexedDB.open('relay');
	    o.onsuccess = () => { const t = o.result.transaction('messages', 'readwrite'); t.objectStore('messages').put({ id: ulid(ts), chat: 'bob', from: 'bob', to: 'alice', dir: 'in', text: 'un vieux message', ts, sort: ts, status: 'received' }); t.oncomplete = () => { o.result.close(); resolve(); }; t.onerror = () => reject(t.error); };
	    o.onerror = () => reject(o.error);
	  });
	})()`)
	want := storedOrder(alice, "bob")
	if len(want) != 4 {
		t.Fatalf("the laptop's chat with bob: %d messages", len(want))
	}
	sent := eval[kept](alice, keptFile("bob", "file"))

	phone := linkWithHistory(t, r, alice, "history-30", func(phone *tab) {
		offer := eval[string](alice, `document.getElementById('history-banner').textContent`)
		if !strings.Contains(offer, "Everything (5 messages, 1 file") || !strings.Contains(offer, "The last 30 days (4 messages, 1 file") {
			t.Fatalf("the offer says %q", offer)
		}
		checkScreen(alice, "history-offer")
		// Drawn again unchanged, the banner keeps its nodes: a status
		// region is not read out again, nor a button moved under a click.
		if !eval[bool](alice, `(async () => { const b = document.getElementById('history-all'); await (await import('/screen-transfer.js')).renderHistoryBanner(); return document.getElementById('history-all') === b; })()`) {
			t.Fatal("the banner was rebuilt though nothing in it changed")
		}
	})
	phone.waitFor("the history from the laptop", historyHere)
	got := storedOrder(phone, "bob")
	if strings.Join(got, ",") != strings.Join(want[1:], ",") {
		t.Fatalf("the last 30 days on the phone: %q, want %q (all but the oldest)", got, want[1:])
	}
	if got := storedTexts(phone, "alice"); len(got) != 1 || got[0] != "notes du laptop" {
		t.Fatalf("notes to self on the phone: %q", got)
	}
	phone.screenshot("history-here")

	// The tablet, with everything, and a message bob sends once it is in
	// the chat's group: it arrives live and in the archive.
	tablet := linkWithHistory(t, r, alice, "history-all", func(tablet *tab) {
		published(t, r, tablet)
		member := "alice/" + tablet.deviceID()
		alice.waitFor("the tablet in the chat's group", hasMember("bob", member, true))
		bob.waitFor("bob's device sees the tablet", hasMember("alice", member, true))
		bob.send("pendant le transfert")
		tablet.waitFor("bob's message, live", `import('/store.js').then(async (s) => (await s.getMessages('bob')).some((m) => m.text === 'pendant le transfert'))`)
		alice.waitFor("bob's message on the laptop", `import('/store.js').then(async (s) => (await s.getMessages('bob')).some((m) => m.text === 'pendant le transfert'))`)
	})
	tablet.waitFor("the history from the laptop", historyHere)
	alice.waitFor("the laptop says it sent it", `(document.getElementById('history-send') || {}).textContent && document.getElementById('history-send').textContent.startsWith('Your history was sent to ')`)
	alice.do(chromedp.Click(chromedp.ID("history-sent-dismiss")))
	alice.waitFor("the banner gone", `!document.getElementById('history-banner')`)
	want = storedOrder(alice, "bob")
	if got := storedOrder(tablet, "bob"); strings.Join(got, ",") != strings.Join(want, ",") {
		t.Fatalf("everything on the tablet: %q, want the laptop's %q", got, want)
	}
	tablet.openChat("bob")
	tablet.waitFor("the file from the laptop", fileShown)
	if got := eval[kept](tablet, keptFile("bob", "file")); got.SHA256 != sent.SHA256 {
		t.Fatal("the file on the tablet differs from the one sent")
	}
	if n := eval[int](tablet, `[...document.querySelectorAll('#messages .msg')].filter((e) => e.querySelector('.text').textContent === 'pendant le transfert').length`); n != 1 {
		t.Fatalf("the message received live and in the archive is shown %d times", n)
	}
	if got := tablet.messages(); len(got) != 5 || got[0] != "un vieux message" {
		t.Fatalf("the tablet shows %q", got)
	}

	// Each archive was for one device (it expires an hour after its
	// finish, where a file of a message has 45 days), which confirmed it:
	// gone.
	for i := 0; r.count(`SELECT count(*) FROM attachments WHERE expires_at <= finished_at + interval '1 hour'`) > 0; i++ {
		if i > 200 {
			t.Fatal("an archive is still on the relay after its download")
		}
		sleep()
	}
	needles := []string{"Le rendez-vous est à dix heures", "notes du laptop", "un vieux message", "pendant le transfert"}
	if hits := auditHits(t, conn, dir, needles...); len(hits) != 0 {
		t.Fatalf("message text on the relay's disks: %v", hits)
	}
}

// historyHere is a condition: the banner says the history arrived.
const historyHere = `(() => { const e = document.getElementById('history-in'); return !!e && e.textContent.startsWith('Your history from ') && e.textContent.includes(' is here: '); })()`

// TestHistoryAskAgain: the laptop's tab that sends the history is closed
// in the middle of its upload (held back, then the tab goes). The phone,
// told the history is coming, says after a while (its clock moved on two
// minutes) that the laptop may have closed, and offers Ask again; asking,
// it says so. The laptop's other tab shows the request with Send
// history…, sends everything, and the phone gets it.
func TestHistoryAskAgain(t *testing.T) {
	r := startRelay(t)
	p, laptop := r.newProfile(t)
	laptop.register("alice")
	laptop.openChat("alice")
	laptop.send("une note à garder")
	laptop.waitMessage("une note à garder")

	// The tab that approves and sends, whose uploads never get through.
	ctx2, closeTab := p.NewTab(t)
	sender := r.openTab(t, ctx2)
	sender.waitFor("the chat list in the second tab", `document.getElementById('new-chat-username')`)
	if _, err := chromedp.Call(ctx2, fetch.Enable, fetch.EnableParams{Patterns: []*fetch.RequestPattern{{URLPattern: "*/api/attachments/*/parts/*"}}}); err != nil {
		t.Fatal(err)
	}
	phone := linkWithHistory(t, r, sender, "history-all", nil)
	phone.waitFor("the history announced", `(document.getElementById('history-in') || {}).textContent && document.getElementById('history-in').textContent.includes('is preparing your history')`)
	sender.waitFor("the upload under way", `(document.getElementById('history-send') || {}).textContent && document.getElementById('history-send').textContent.includes('uploading')`)
	closeTab()

	eval[chromedp.Void](phone, `(() => { const now = Date.now.bind(Date); Date.now = () => now() + 120000; })()`)
	phone.waitFor("the phone says the laptop may have closed", `(document.getElementById('history-in') || {}).textContent && document.getElementById('history-in').textContent.includes('may have closed') && document.getElementById('history-ask-again')`)
	checkScreen(phone, "history-stalled")
	phone.do(chromedp.Click(chromedp.ID("history-ask-again")))
	phone.waitFor("the phone says it asked", `(document.getElementById('history-in') || {}).textContent && document.getElementById('history-in').textContent.startsWith('Asked ')`)

	laptop.waitFor("the request on the laptop", `document.getElementById('history-resend')`)
	laptop.do(chromedp.Click(chromedp.ID("history-resend")))
	laptop.waitFor("the offer again", `document.getElementById('history-all')`)
	laptop.do(chromedp.Click(chromedp.ID("history-all")))
	phone.waitFor("the history from the laptop", historyHere)
	if got := storedTexts(phone, "alice"); len(got) != 1 || got[0] != "une note à garder" {
		t.Fatalf("notes to self on the phone: %q", got)
	}
}
