package webclient_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
)

// groupChatOf is a condition's value: the id of the group chat named name
// in tb's chat list, "" while there is none.
func groupChatOf(tb *tab, name string) string {
	tb.t.Helper()
	return eval[string](tb, `import('/store.js').then((s) => s.getChats()).then((cs) => (cs.find((c) => c.title === `+js(name)+`) || {}).username || '')`)
}

// waitGroup waits until tb's chat list shows the group chat named name,
// and returns its chat id.
func waitGroup(tb *tab, name string) string {
	tb.t.Helper()
	tb.waitFor("the group "+name+" in the list", `[...document.querySelectorAll('#chat-list .chat-item .name')].some((e) => e.textContent === `+js(name)+`)`)
	return groupChatOf(tb, name)
}

// lines are the group's change lines the open chat shows, in order.
func lines(tb *tab) []string {
	tb.t.Helper()
	return eval[[]string](tb, `[...document.querySelectorAll('#messages .event')].map((e) => e.textContent)`)
}

// makeGroup fills in the New group form of tb and submits it, and waits
// for the group's chat to open.
func makeGroup(tb *tab, name, members string) string {
	tb.t.Helper()
	eval[chromedp.Void](tb, `location.hash = '#/new-group'`)
	tb.waitFor("the New group form", `document.getElementById('group-name')`)
	tb.do(chromedp.SendKeys(chromedp.ID("group-name"), name), chromedp.SendKeys(chromedp.ID("group-members"), members), chromedp.Click(chromedp.ID("group-create")))
	tb.waitFor("the group's chat", `location.hash.startsWith('#/chat/g:') && document.querySelector('#messages .event')`)
	return strings.TrimPrefix(eval[string](tb, `location.hash`), "#/chat/")
}

// threeAccounts registers alice (a laptop and a linked phone), bob and
// carol, and waits until every device has its key packages on the relay.
func threeAccounts(t *testing.T, r *liveRelay) (laptop, phone, bob, carol *tab) {
	t.Helper()
	_, laptop = r.newProfile(t)
	laptop.register("alice")
	_, bob = r.newProfile(t)
	bob.register("bob")
	_, carol = r.newProfile(t)
	carol.register("carol")
	phone = linkedDevice(t, r, laptop, "alice")
	for _, tb := range []*tab{laptop, phone, bob, carol} {
		r.waitKeyPackages("before the group", tb.deviceID(), 20, 1)
	}
	return laptop, phone, bob, carol
}

// TestGroupChat: alice (laptop and phone) makes the group "Family" with
// bob and carol from the New group form. Every device gets the group with
// its name and the line of its making; a message from alice and a reply
// from bob reach every other device, each once, with its sender's name,
// in the same order; the chat list shows the group by its name and
// initials, with "bob: " before the preview. Each message went to the
// relay as one envelope naming the other two accounts, and the relay saw
// neither the group's name nor its members beyond those recipients. The
// New group form and the group's chat with its info panel pass the layout
// and axe checks.
func TestGroupChat(t *testing.T) {
	var log sentLog
	r := startWrapped(t, log.wrap)
	laptop, phone, bob, carol := threeAccounts(t, r)

	// The form, empty, at every width.
	eval[chromedp.Void](laptop, `location.hash = '#/new-group'`)
	laptop.waitFor("the New group form", `document.getElementById('group-name')`)
	checkScreen(laptop, "new-group")
	// A wrong name is refused with words, and nothing is made.
	laptop.do(chromedp.SendKeys(chromedp.ID("group-name"), "Typo"), chromedp.SendKeys(chromedp.ID("group-members"), "bob nobody_here"), chromedp.Click(chromedp.ID("group-create")))
	laptop.waitFor("the unknown member refused", `document.getElementById('group-error').textContent.includes('There is no account named nobody_here')`)
	if n := eval[int](laptop, `import('/store.js').then((s) => s.metaKeys('groupsOf:g:')).then((k) => k.length)`); n != 0 {
		t.Fatalf("a refused group left %d groups behind", n)
	}
	eval[chromedp.Void](laptop, `document.getElementById('group-name').value = ''; document.getElementById('group-members').value = ''`)

	chat := makeGroup(laptop, "Family", "bob, carol")
	if got := lines(laptop); len(got) != 1 || got[0] != "You made the group \u201cFamily\u201d with bob and carol." {
		t.Fatalf("the maker's line is %q", got)
	}
	for _, tb := range []*tab{phone, bob, carol} {
		if got := waitGroup(tb, "Family"); got != chat {
			t.Fatalf("the group's chat is %q on one device, %q on the laptop", got, chat)
		}
	}
	bob.openChat(chat)
	if got := lines(bob); len(got) != 1 || got[0] != "alice made the group \u201cFamily\u201d with you and carol." {
		t.Fatalf("bob's line is %q", got)
	}

	laptop.send("hello family")
	for _, tb := range []*tab{phone, bob, carol} {
		tb.openChat(chat)
		tb.waitMessage("hello family")
	}
	bob.send("hi all")
	for _, tb := range []*tab{laptop, phone, carol} {
		tb.waitMessage("hi all")
	}
	carol.waitFor("bob's name on his message", `[...document.querySelectorAll('#messages .msg.in')].some((e) => e.querySelector('.sender')?.textContent === 'bob' && e.querySelector('.text').textContent === 'hi all')`)

	// Receipts: both read alice's message, on both of her devices (the
	// phone counts the members from the group), with the names in its info.
	for _, tb := range []*tab{laptop, phone} {
		tb.waitFor("read by all", `[...document.querySelectorAll('#messages .msg.out')].some((e) => e.querySelector('.text').textContent === 'hello family' && e.querySelector('.status')?.textContent.includes('read by all'))`)
	}
	laptop.menuAction("hello family", "info-btn")
	laptop.waitFor("the message's info", `document.getElementById('info-read')?.textContent === 'Read by: bob, carol' && document.getElementById('info-none').textContent === 'Not yet: none'`)
	checkScreen(laptop, "message-info")
	laptop.do(chromedp.Click(chromedp.ID("msg-info-close")))

	// Records, as in a one-to-one chat: carol's reaction with her name,
	// bob's reply, alice's edit, then her deletion for everyone.
	carol.menuAction("hello family", "react-pick")
	laptop.waitFor("carol's reaction, named", `[...document.querySelectorAll('#messages .msg')].some((e) => e.querySelector('.text').textContent === 'hello family' && e.querySelector('.reaction')?.title === 'carol')`)
	bob.menuAction("hi all", "reply-btn")
	bob.send("a reply")
	for _, tb := range []*tab{laptop, phone, carol} {
		tb.waitFor("the reply's quote", `[...document.querySelectorAll('#messages .msg')].some((e) => e.querySelector('.text').textContent === 'a reply' && e.querySelector('.quote-who')?.textContent === 'bob')`)
	}
	laptop.menuAction("hello family", "edit-btn")
	laptop.typeEdit("hello, family")
	for _, tb := range []*tab{phone, bob, carol} {
		tb.waitMessage("hello, family")
	}
	laptop.menuAction("hello, family", "delete-all-btn")
	laptop.confirmDelete()
	for _, tb := range []*tab{phone, bob, carol} {
		tb.waitMessage("This message was deleted")
	}
	bob.send("hello again")
	for _, tb := range []*tab{laptop, phone, carol} {
		tb.waitMessage("hello again")
	}

	// The list: the group by its name, its initials, and who wrote last.
	eval[chromedp.Void](carol, `location.hash = '#/chats'`)
	carol.waitFor("the group's row", `(() => { const r = document.querySelector('#chat-list .chat-item[data-user=`+js(chat)+`]'); return r && r.querySelector('.avatar').textContent === 'F' && r.querySelector('.preview-line').textContent === 'bob: hello again'; })()`)
	carol.openChat(chat)
	want := []string{"This message was deleted", "hi all", "a reply", "hello again"}
	for name, tb := range map[string]*tab{"laptop": laptop, "phone": phone, "bob": bob, "carol": carol} {
		if got := tb.messages(); !slices.Equal(got, want) {
			t.Fatalf("%s shows %q, want %q", name, got, want)
		}
	}

	// One envelope per message, to the other two accounts.
	for _, s := range log.list() {
		if s.Kind != "" && s.Kind != "message" {
			continue
		}
		if s.Device == laptop.deviceID() && mlsWire(s.Body) == "private" && s.To == "" {
			if !slices.Equal(s.ToList, []string{"bob", "carol"}) {
				t.Fatalf("alice's group message went to %v", s.ToList)
			}
		}
		if strings.Contains(string(s.Body), "Family") {
			t.Fatal("an envelope carries the group's name in the clear")
		}
	}
	var toBoth int
	for _, s := range log.list() {
		if slices.Equal(s.ToList, []string{"bob", "carol"}) {
			toBoth++
		}
	}
	if toBoth == 0 {
		t.Fatal("no envelope named both bob and carol: the group's messages were not sent once to all")
	}

	// A mention: carol's list marks the chat, her bubble is highlighted;
	// alice's is not.
	eval[chromedp.Void](carol, `location.hash = '#/chats'`)
	bob.send("@carol look here")
	carol.waitFor("the mention in the list", `document.querySelector('#chat-list .chat-item[data-user=`+js(chat)+`] .mention-badge')`)
	checkScreen(carol, "group-in-list")
	laptop.waitMessage("@carol look here")
	if eval[bool](laptop, `[...document.querySelectorAll('#messages .msg.mentioned')].length > 0`) {
		t.Fatal("alice's bubble is highlighted for carol's mention")
	}
	carol.openChat(chat)
	carol.waitFor("carol's bubble highlighted", `[...document.querySelectorAll('#messages .msg.mentioned')].some((e) => e.querySelector('.text').textContent === '@carol look here')`)
	eval[chromedp.Void](carol, `location.hash = '#/chats'`)
	carol.waitFor("the mention read", `document.querySelector('#chat-list .chat-item[data-user=`+js(chat)+`]') && !document.querySelector('#chat-list .chat-item[data-user=`+js(chat)+`] .mention-badge')`)

	// The info panel lists the members, the admin marked.
	bob.openChat(chat)
	bob.do(chromedp.Click(chromedp.ID("safety-btn")))
	bob.waitFor("the members", `document.querySelectorAll('#group-members-list .member').length === 3 && document.querySelector('#group-members-list .member[data-user=alice] .badge')?.textContent === 'Admin'`)
	bob.waitFor("alice's safety code", `/\d/.test(document.querySelector('[data-code-for=alice]').textContent)`)
	checkScreen(bob, "group-chat-info")
}

// linesAndTexts is the open chat as a list: the group's lines and the
// messages' texts, in the order shown.
func linesAndTexts(tb *tab) []string {
	tb.t.Helper()
	return eval[[]string](tb, `[...document.querySelectorAll('#messages .event, #messages .msg')].map((e) => e.classList.contains('event') ? '| ' + e.textContent : e.querySelector('.text').textContent)`)
}

// panelAction opens tb's group info panel (if closed) and waits for sel.
func openPanel(tb *tab, sel string) {
	tb.t.Helper()
	if eval[bool](tb, `document.getElementById('chat-info').hidden`) {
		tb.do(chromedp.Click(chromedp.ID("safety-btn")))
	}
	tb.waitFor(sel+" in the group's panel", `document.querySelector(`+js(sel)+`)`)
}

// TestGroupMembership: three accounts on five devices. alice (laptop and
// phone) makes "Team" with bob (laptop and tablet); the tablet goes
// offline. alice adds carol, bob writes, alice removes bob, writes again,
// and carol leaves. Every device shows each change as a line; carol reads
// from her addition (a state of hers opens nothing sealed before it, and
// bob's does: the control); bob opens nothing sent after his removal
// (his state, taken after it, does not open alice's next message, which
// carol's state does: the control), and his composer says why. The
// tablet, back online, catches up on all of it in the same order as the
// laptop, and stops at the removal. carol's leave is committed by alice,
// the admin, and said as "carol left the group". alice's two devices
// show the same chat.
func TestGroupMembership(t *testing.T) {
	var log sentLog
	r := startWrapped(t, log.wrap)
	laptop, phone, bob, carol := threeAccounts(t, r)
	tablet := linkedDevice(t, r, bob, "bob")
	r.waitKeyPackages("before the group", tablet.deviceID(), 20, 1)

	chat := makeGroup(laptop, "Team", "bob")
	for _, tb := range []*tab{phone, bob, tablet} {
		waitGroup(tb, "Team")
	}
	tablet.openChat(chat)
	tablet.do(chromedp.Navigate("about:blank")) // offline through the changes

	// bob's state before anything is sent: it opens what comes next (a
	// state that opened a message has no key for it any more), once no
	// commit is left to come before it.
	settledAll(t, "before the first message", map[*tab]string{laptop: chat, phone: chat, bob: chat})
	bobEarly := stolenStates(bob, chat)
	laptop.send("before carol")
	bob.openChat(chat)
	bob.waitMessage("before carol")
	beforeCarol := msgID(laptop, chat, "before carol")

	// alice adds carol from the panel.
	openPanel(laptop, "#group-add-input")
	laptop.do(chromedp.SendKeys(chromedp.ID("group-add-input"), "carol"), chromedp.Click(chromedp.ID("group-add-btn")))
	laptop.waitFor("carol in the members", `document.querySelector('#group-members-list .member[data-user=carol]')`)
	waitGroup(carol, "Team")
	carol.openChat(chat)
	carol.waitFor("carol's line", `[...document.querySelectorAll('#messages .event')].some((e) => e.textContent === 'alice added you. You see the messages sent from now on.')`)
	bob.waitFor("bob's line of carol's addition", `[...document.querySelectorAll('#messages .event')].some((e) => e.textContent === 'alice added carol.')`)
	// carol reads from her addition: her state opens nothing from before,
	// bob's does.
	if got := openStolen(carol, stolenStates(carol, chat), log.body(t, beforeCarol)); got != "" {
		t.Fatalf("carol's state opened a message sealed before her addition: %q", got)
	}
	if got := openStolen(bob, bobEarly, log.body(t, beforeCarol)); got == "" {
		t.Fatal("control: bob's state did not open the message sealed before carol's addition")
	}

	bob.send("bob here")
	for _, tb := range []*tab{laptop, phone, carol} {
		tb.openChat(chat)
		tb.waitMessage("bob here")
	}

	// alice removes bob, from the panel an admin sees.
	openPanel(laptop, `.member[data-user=bob] .remove-btn`)
	checkScreen(laptop, "group-admin-panel")
	laptop.do(chromedp.Click(chromedp.CSS(`.member[data-user=bob] .remove-btn`)))
	laptop.waitFor("the confirmation", `document.getElementById('dialog-confirm')`)
	laptop.do(chromedp.Click(chromedp.ID("dialog-confirm")))
	laptop.waitFor("bob gone from the members", `!document.querySelector('#group-members-list .member[data-user=bob]')`)
	bob.waitFor("bob's composer off", `document.getElementById('composer').disabled && document.getElementById('composer-note').textContent.includes('no longer a member')`)
	bob.waitFor("bob's line of his removal", `[...document.querySelectorAll('#messages .event')].some((e) => e.textContent === 'alice removed you.')`)
	checkScreen(bob, "group-removed")
	carol.waitFor("carol's line of bob's removal", `[...document.querySelectorAll('#messages .event')].some((e) => e.textContent === 'alice removed bob.')`)
	settledAll(t, "after the removal", map[*tab]string{laptop: chat, phone: chat, carol: chat})
	carolEarly := stolenStates(carol, chat)

	laptop.send("after bob")
	for _, tb := range []*tab{phone, carol} {
		tb.waitMessage("after bob")
	}
	afterBob := msgID(laptop, chat, "after bob")
	for _, s := range log.list() {
		if s.ID == afterBob && !slices.Equal(s.ToList, []string{"carol"}) {
			t.Fatalf("alice's message after the removal went to %v, want carol alone", s.ToList)
		}
	}
	if got := openStolen(bob, stolenStates(bob, chat), log.body(t, afterBob)); got != "" {
		t.Fatalf("bob's state opened a message sent after his removal: %q", got)
	}
	if got := openStolen(carol, carolEarly, log.body(t, afterBob)); got == "" {
		t.Fatal("control: carol's state did not open the message sent after bob's removal")
	}
	if bob.hasMessage("after bob") {
		t.Fatal("bob's laptop shows a message sent after his removal")
	}

	// The tablet comes back: it catches up to the removal, in order.
	tablet.do(chromedp.Navigate(r.URL + "/#/chat/" + chat))
	tablet.waitFor("the tablet's line of the removal", `[...document.querySelectorAll('#messages .event')].some((e) => e.textContent === 'alice removed you.')`)
	tablet.waitFor("the tablet's composer off", `document.getElementById('composer').disabled`)
	bob.waitFor("bob's laptop settled", outboxSettled)
	if got, want := linesAndTexts(tablet), linesAndTexts(bob); !slices.Equal(got, want) {
		t.Fatalf("the tablet shows %q, bob's laptop %q", got, want)
	}

	// carol leaves; alice, the admin, removes her.
	openPanel(carol, "#group-leave")
	carol.do(chromedp.Click(chromedp.ID("group-leave")))
	carol.waitFor("the confirmation", `document.getElementById('dialog-confirm')`)
	carol.do(chromedp.Click(chromedp.ID("dialog-confirm")))
	carol.waitFor("carol's composer off", `document.getElementById('composer').disabled`)
	laptop.waitFor("carol's line", `[...document.querySelectorAll('#messages .event')].some((e) => e.textContent === 'carol left the group.')`)
	carol.waitFor("carol's own line", `[...document.querySelectorAll('#messages .event')].some((e) => e.textContent === 'You left the group.')`)
	phone.waitFor("the phone's line", `[...document.querySelectorAll('#messages .event')].some((e) => e.textContent === 'carol left the group.')`)

	want := []string{
		"| You made the group \u201cTeam\u201d with bob.", "before carol", "| You added carol.", "bob here",
		"| You removed bob.", "after bob", "| carol left the group.",
	}
	laptop.waitFor("alice's laptop settled", outboxSettled)
	if got := linesAndTexts(laptop); !slices.Equal(got, want) {
		t.Fatalf("alice's laptop shows %q, want %q", got, want)
	}
	phone.waitFor("alice's phone has it all", `document.querySelectorAll('#messages .event, #messages .msg').length === `+js(len(want)))
	if got := linesAndTexts(phone); !slices.Equal(got, want) {
		t.Fatalf("alice's phone shows %q, want %q", got, want)
	}
}

// TestGroupMemberDeleted: carol deletes her account. alice's next message
// to the group is accepted for bob alone (the relay names carol as
// deleted), and alice's device removes carol from the group: every
// remaining device says that carol deleted her account and left, and
// carol is no longer a member on any of them.
func TestGroupMemberDeleted(t *testing.T) {
	r := startRelay(t)
	_, alice := r.newProfile(t)
	alice.register("alice")
	_, bob := r.newProfile(t)
	bob.register("bob")
	_, carol := r.newProfile(t)
	carol.register("carol")
	for _, tb := range []*tab{alice, bob, carol} {
		r.waitKeyPackages("before the group", tb.deviceID(), 20, 1)
	}
	chat := makeGroup(alice, "Book club", "bob, carol")
	waitGroup(bob, "Book club")
	waitGroup(carol, "Book club")

	deleteInSettings(carol)
	carol.waitFor("carol's account deleted", deletedNotice)

	alice.send("anyone still here?")
	bob.openChat(chat)
	bob.waitMessage("anyone still here?")
	const line = `[...document.querySelectorAll('#messages .event')].some((e) => e.textContent === 'carol deleted their account and left the group.')`
	for _, tb := range []*tab{alice, bob} {
		tb.waitFor("the line of carol's deletion", line)
		tb.waitFor("carol out of the group", `import('/groupchat.js').then((g) => g.info(`+js(chat)+`)).then((i) => i && !i.accounts.includes('carol') && i.accounts.length === 2)`)
	}
}

// accountsIn is a condition: tb's group chat has exactly these accounts.
func accountsIn(chat string, want ...string) string {
	return `import('/groupchat.js').then((g) => g.info(` + js(chat) + `)).then((i) => !!i && i.accounts.join(',') === ` + js(strings.Join(want, ",")) + `)`
}

// adminsGroup registers users (each on a device of its own), has the
// first make the group name with the next ones up to in members in all,
// and makes the second an admin too; the others are left out, to be
// added.
func adminsGroup(t *testing.T, r *liveRelay, name string, in int, users ...string) (map[string]*tab, string) {
	t.Helper()
	tabs := map[string]*tab{}
	for _, u := range users {
		_, tb := r.newProfile(t)
		tb.register(u)
		tabs[u] = tb
		r.waitKeyPackages("before the group", tb.deviceID(), 20, 1)
	}
	first, second := tabs[users[0]], tabs[users[1]]
	chat := makeGroup(first, name, strings.Join(users[1:in], ", "))
	eval[chromedp.Void](first, `import('/groupchat.js').then((g) => g.setAdmin(`+js(chat)+`, `+js(users[1])+`, true))`)
	second.waitFor(users[1]+" an admin", `import('/groupchat.js').then((g) => g.info(`+js(chat)+`)).then((i) => !!i && i.admin)`)
	return tabs, chat
}

// TestGroupConcurrentChanges: two admins add at once (alice adds dave
// while bob adds erin: one commit wins the epoch, the other is made again
// on it), then alice removes carol while carol sends a message. Every
// device ends with the same members, and the devices that were in the
// group all along show the same lines and messages in the same order,
// each once; carol's message, sealed before her removal, is on all of
// them.
func TestGroupConcurrentChanges(t *testing.T) {
	r := startRelay(t)
	tabs, chat := adminsGroup(t, r, "Crowd", 3, "alice", "bob", "carol", "dave", "erin")
	alice, bob, carol := tabs["alice"], tabs["bob"], tabs["carol"]

	// Two admins add at once.
	eval[chromedp.Void](alice, `import('/groupchat.js').then((g) => { window.__add = g.add(`+js(chat)+`, ['dave']).then(() => 'ok', (e) => e.message); })`)
	eval[chromedp.Void](bob, `import('/groupchat.js').then((g) => { window.__add = g.add(`+js(chat)+`, ['erin']).then(() => 'ok', (e) => e.message); })`)
	for _, tb := range []*tab{alice, bob} {
		if got := eval[string](tb, `window.__add`); got != "ok" {
			t.Fatalf("an add failed: %s", got)
		}
	}
	all := []string{"alice", "bob", "carol", "dave", "erin"}
	for name, tb := range tabs {
		waitGroup(tb, "Crowd")
		tb.waitFor(name+" sees all five", accountsIn(chat, all...))
	}

	// A removal races a message.
	for _, tb := range tabs {
		tb.openChat(chat)
	}
	eval[chromedp.Void](carol, `import('/sync.js').then((s) => s.sendText(`+js(chat)+`, 'carol racing'))`)
	eval[chromedp.Void](alice, `import('/groupchat.js').then((g) => { window.__rm = g.remove(`+js(chat)+`, 'carol').then(() => 'ok', (e) => e.message); })`)
	if got := eval[string](alice, `window.__rm`); got != "ok" {
		t.Fatalf("the removal failed: %s", got)
	}
	rest := []string{"alice", "bob", "dave", "erin"}
	for _, u := range rest {
		tabs[u].waitFor(u+" without carol", accountsIn(chat, rest...))
		tabs[u].waitMessage("carol racing")
	}
	alice.send("settled")
	for _, u := range rest {
		tabs[u].waitMessage("settled")
		tabs[u].waitFor(u+" settled", outboxSettled)
	}
	// The same rows, by id, in the same order: bob was in it all along;
	// dave and erin show alice's chat from their joining on (after the
	// line of their own welcome, which only they have).
	idsOf := func(tb *tab) []string {
		return eval[[]string](tb, `[...document.querySelectorAll('#messages .event, #messages .msg')].map((e) => e.dataset.id)`)
	}
	want := linesAndTexts(alice)
	wantIDs := idsOf(alice)
	if got := idsOf(bob); !slices.Equal(got, wantIDs) {
		t.Fatalf("bob shows the rows %q, alice %q", got, wantIDs)
	}
	for _, u := range []string{"dave", "erin"} {
		got := idsOf(tabs[u])
		if len(got) < 2 || len(got)-1 > len(wantIDs) || !slices.Equal(got[1:], wantIDs[len(wantIDs)-len(got)+1:]) {
			t.Fatalf("%s shows the rows %q, alice %q", u, got, wantIDs)
		}
	}
	seen := map[string]bool{}
	for _, x := range want {
		if !strings.HasPrefix(x, "| ") && seen[x] {
			t.Fatalf("alice shows %q twice", x)
		}
		seen[x] = true
	}
}

// TestGroupCommitBeforeWelcome: alice adds dave, and her welcome to him
// is held on its way; meanwhile bob, who applied her commit, renames the
// group. dave's queue brings bob's commit before the welcome: dave keeps
// it until he joins, then applies it, and ends in the group as everyone
// else, with its new name. (Dropped as a commit of a group he was not
// in, dave would stay an epoch behind, under the old name, for good.)
func TestGroupCommitBeforeWelcome(t *testing.T) {
	var log sentLog
	r := startWrapped(t, log.wrap)
	tabs, chat := adminsGroup(t, r, "Before", 2, "alice", "bob", "dave")
	alice, bob, dave := tabs["alice"], tabs["bob"], tabs["dave"]

	release := log.holdWelcomes()
	defer release()
	eval[chromedp.Void](alice, `import('/groupchat.js').then((g) => { window.__add = g.add(`+js(chat)+`, ['dave']).then(() => 'ok', (e) => e.message); })`)
	bob.waitFor("dave in bob's group", accountsIn(chat, "alice", "bob", "dave"))
	eval[chromedp.Void](bob, `import('/groupchat.js').then((g) => g.rename(`+js(chat)+`, 'After'))`)
	release()
	if got := eval[string](alice, `window.__add`); got != "ok" {
		t.Fatalf("the add failed: %s", got)
	}
	waitGroup(dave, "After")
	dave.waitFor("dave in step", accountsIn(chat, "alice", "bob", "dave"))
	epoch := func(tb *tab) int {
		return eval[int](tb, `import('/store.js').then(async (s) => (await s.getMeta('group:' + (await s.getMeta('groupsOf:' + `+js(chat)+`))[0])).epoch)`)
	}
	bob.waitFor("bob settled", outboxSettled)
	dave.waitFor("dave at bob's epoch", `import('/store.js').then(async (s) => (await s.getMeta('group:' + (await s.getMeta('groupsOf:' + `+js(chat)+`))[0])).epoch === `+js(epoch(bob))+`)`)
	dave.openChat(chat)
	dave.waitFor("the rename's line", `[...document.querySelectorAll('#messages .event')].some((e) => e.textContent === 'bob renamed the group \u201cAfter\u201d.')`)
}

// TestGroupMemberKeyChange: alice has seen bob's safety code in the
// group's panel; bob then replaces his account key. His device comes back
// into the group with a new certificate, and alice's group chat warns, by
// itself, that bob has a new key (nothing else would look his key up
// again); in the panel, "The codes match" clears it.
func TestGroupMemberKeyChange(t *testing.T) {
	r := startRelay(t)
	tabs, chat := adminsGroup(t, r, "Keys", 3, "alice", "bob", "carol")
	alice, bob := tabs["alice"], tabs["bob"]
	waitGroup(bob, "Keys")
	alice.openChat(chat)
	openPanel(alice, `[data-code-for=bob] .code`)
	alice.do(chromedp.Click(chromedp.ID("chat-info-close")))
	eval[int](bob, `import('/account.js').then((a) => a.rotateKey(`+js(password)+`, []))`)
	alice.waitFor("the warning of bob's new key", `document.getElementById('group-key-warning')?.textContent.startsWith('bob has a new key')`)
	checkScreen(alice, "group-key-warning")
	alice.do(chromedp.Click(chromedp.ID("group-key-compare")))
	alice.waitFor("the button to accept bob's code", `document.querySelector('[data-code-for=bob] .key-accept')`)
	alice.do(chromedp.Click(chromedp.CSS(`[data-code-for=bob] .key-accept`)))
	alice.waitFor("the warning gone", `!document.getElementById('group-key-warning')`)
}

// TestGroupMetaRules checks groupmeta.js's pure rules in the browser: a
// group's record parses only in its shape (a bad name, admin or list is
// refused), a change says what a person sees of a commit and nothing for
// a device's, its words for each case, and @mentions match whole names
// only.
func TestGroupMetaRules(t *testing.T) {
	r := startRelay(t)
	_, tb := r.newProfile(t)
	got := eval[[]string](tb, `import('/groupmeta.js').then((g) => {
  const bad = [];
  const check = (ok, what) => { if (!ok) bad.push(what); };
  const te = new TextEncoder();
  const meta = (o) => te.encode(JSON.stringify(o));
  check(g.parseMeta(g.encodeMeta({ name: ' Family ', admins: ['bob', 'alice', 'bob'], creator: 'alice' })).name === 'Family', 'a name is trimmed');
  check(g.parseMeta(g.encodeMeta({ name: 'F', admins: ['bob', 'alice'], creator: 'alice' })).admins.join() === 'alice,bob', 'admins sorted, once');
  check(g.parseMeta(meta({ v: 1, name: '', admins: [], creator: 'alice' })) === null, 'an empty name');
  check(g.parseMeta(meta({ v: 1, name: 'x'.repeat(65), admins: [], creator: 'alice' })) === null, 'a name too long');
  check(g.parseMeta(meta({ v: 1, name: 'a\u0007b', admins: [], creator: 'alice' })) === null, 'a control character');
  check(g.parseMeta(meta({ v: 1, name: 'ok', admins: ['Bob'], creator: 'alice' })) === null, 'an admin that is no username');
  check(g.parseMeta(meta({ v: 1, name: 'ok', admins: [], creator: 'alice', left: 'bob' })) === null, 'left not a list');
  check(g.parseMeta(meta({ v: 2, name: 'ok', admins: [], creator: 'alice' })) === null, 'another version');
  check(g.parseMeta(new Uint8Array([0xff])) === null, 'not UTF-8');
  const m0 = { name: 'Team', admins: ['alice'], creator: 'alice' };
  check(g.changeOf('alice', { accounts: ['alice', 'bob'], meta: m0 }, { accounts: ['alice', 'bob'], meta: m0 }) === null, 'a device change says nothing');
  const add = g.changeOf('alice', { accounts: ['alice'], meta: m0 }, { accounts: ['alice', 'bob', 'carol'], meta: m0 });
  check(g.changeText(add, 'bob') === 'alice added you and carol.', 'an addition, as bob reads it: ' + g.changeText(add, 'bob'));
  const left = g.changeOf('alice', { accounts: ['alice', 'carol'], meta: m0 }, { accounts: ['alice'], meta: { ...m0, left: ['carol'] } });
  check(g.changeText(left, 'alice') === 'carol left the group.', 'a leave: ' + g.changeText(left, 'alice'));
  const gone = g.changeOf('bob', { accounts: ['alice', 'bob', 'carol'], meta: m0 }, { accounts: ['alice', 'bob'], meta: { ...m0, gone: ['carol'] } });
  check(g.changeText(gone, 'alice') === 'carol deleted their account and left the group.', 'a deletion: ' + g.changeText(gone, 'alice'));
  const ren = g.changeOf('alice', { accounts: ['alice'], meta: m0 }, { accounts: ['alice'], meta: { ...m0, name: 'Crew', admins: ['alice', 'bob'] } });
  check(g.changeText(ren, 'alice') === 'You renamed the group \u201cCrew\u201d; you made bob an admin.', 'a rename and an admin: ' + g.changeText(ren, 'alice'));
  check(g.mentions('hi @bob!', 'bob') && g.mentions('@bob', 'bob') && !g.mentions('hi @bobby', 'bob') && !g.mentions('mail bob@bob.com', 'bob') && !g.mentions('a.@bob', 'bob'), 'mentions');
  check(g.initials('family trip') === 'FT' && g.initials('Family') === 'F', 'initials');
  return bad;
})`)
	if len(got) > 0 {
		t.Fatalf("groupmeta.js: %s", strings.Join(got, "; "))
	}
}
