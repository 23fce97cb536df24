package webclient_test

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/fetch"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/chromedp"
)

// failSends makes every send of tb fail on the network (its commits and
// welcomes too, which go to the same endpoint) until the returned
// function is called.
func failSends(t *testing.T, tb *tab) func() {
	t.Helper()
	return failRequests(t, tb, "*/api/messages")
}

// failRequests makes every request of tb that matches one of the URL
// patterns fail on the network until the returned function is called.
func failRequests(t *testing.T, tb *tab, patterns ...string) func() {
	t.Helper()
	ctx, cancel := context.WithCancel(tb.ctx)
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
	var ps []*fetch.RequestPattern
	for _, p := range patterns {
		ps = append(ps, &fetch.RequestPattern{URLPattern: p})
	}
	if _, err := chromedp.Call(ctx, fetch.Enable, fetch.EnableParams{Patterns: ps}); err != nil {
		cancel()
		t.Fatal(err)
	}
	return func() {
		t.Helper()
		defer cancel()
		if _, err := chromedp.Call(ctx, fetch.Disable, cdp.Empty{}); err != nil {
			t.Fatal(err)
		}
	}
}

// registered registers alice, bob and carol, each on a device of its own
// with its key packages on the relay.
func registered(t *testing.T, r *liveRelay) (alice, bob, carol *tab) {
	t.Helper()
	var tabs []*tab
	for _, u := range []string{"alice", "bob", "carol"} {
		_, tb := r.newProfile(t)
		tb.register(u)
		published(t, r, tb)
		tabs = append(tabs, tb)
	}
	return tabs[0], tabs[1], tabs[2]
}

// team makes the group "Team" of alice, bob and carol on a relay whose
// sends are logged, and opens it on carol's device.
func team(t *testing.T) (log *sentLog, alice, carol *tab, chat string) {
	t.Helper()
	log = &sentLog{}
	r := startWrapped(t, log.wrap)
	alice, bob, carol := registered(t, r)
	chat = makeGroup(alice, "Team", "bob carol")
	waitGroup(bob, "Team")
	waitGroup(carol, "Team")
	carol.openChat(chat)
	return log, alice, carol, chat
}

// sentOnlyTo checks that every send of the envelope id the relay got
// named the accounts to, and that there was one.
func sentOnlyTo(t *testing.T, log *sentLog, id string, to ...string) {
	t.Helper()
	n := 0
	for _, s := range log.list() {
		if s.ID != id {
			continue
		}
		n++
		if s.To != "" || !slices.Equal(s.ToList, to) {
			t.Fatalf("the message went to %q %q, not %q", s.To, s.ToList, to)
		}
	}
	if n == 0 {
		t.Fatal("the relay never got the message")
	}
}

// TestGroupMadeOffline: alice makes the group "Offline" with bob while
// her sends cannot reach the relay. The form says that the group is made
// on this device and reaches its members once the relay answers; bob has
// nothing yet. When the network is back, without alice writing in the
// group, it reaches bob with the line of its making, alice's chat list
// shows it, and a message goes both ways. Control: a client that sends
// such a group only when its maker writes in it never shows it to bob.
func TestGroupMadeOffline(t *testing.T) {
	r, alice, bob := aliceAndBob(t)
	published(t, r, alice)
	published(t, r, bob)

	restore := failSends(t, alice)
	eval[chromedp.Void](alice, `location.hash = '#/new-group'`)
	alice.waitFor("the New group form", `document.getElementById('group-name')`)
	alice.do(chromedp.SendKeys(chromedp.ID("group-name"), "Offline"), chromedp.SendKeys(chromedp.ID("group-members"), "bob"), chromedp.Click(chromedp.ID("group-create")))
	alice.waitFor("the form to say the group reaches its members later", `document.getElementById('group-progress').textContent.includes('as soon as the relay answers again') && document.getElementById('group-create').disabled`)
	fitsWidths(alice, "group-made-offline")
	if id := groupChatOf(bob, "Offline"); id != "" {
		t.Fatalf("bob has the group %s while alice could send nothing", id)
	}
	restore()

	waitPastBackoff(bob, "the group made offline on bob's device", `[...document.querySelectorAll('#chat-list .chat-item .name')].some((e) => e.textContent === 'Offline')`)
	chat := groupChatOf(bob, "Offline")
	waitPastBackoff(alice, "the group made offline in alice's list", `[...document.querySelectorAll('#chat-list .chat-item .name')].some((e) => e.textContent === 'Offline')`)
	if got := groupChatOf(alice, "Offline"); got != chat {
		t.Fatalf("alice's group is %q, bob's %q", got, chat)
	}
	bob.openChat(chat)
	bob.waitFor("the line of the group's making", `document.querySelector('#messages .event')`)
	if got := lines(bob); !slices.ContainsFunc(got, func(l string) bool { return strings.Contains(l, "alice made the group") }) {
		t.Fatalf("bob's lines: %q", got)
	}
	bob.send("got it")
	alice.openChat(chat)
	alice.waitMessage("got it")
	alice.send("sent after all")
	bob.waitMessage("sent after all")
}

// TestGroupRemovalBeforeSend: carol writes in the group "Team" while her
// sends cannot reach the relay, so her message is sealed for alice and
// bob and waits. alice then removes bob, and carol's device applies the
// removal. When carol's sends go again, the message reaches alice, and no
// attempt of it asks the relay to deliver it to bob: he was removed
// before it was sent. Control: a client that sends it to the members as
// they were when it was sealed names bob.
func TestGroupRemovalBeforeSend(t *testing.T) {
	log, alice, carol, chat := team(t)

	restore := failSends(t, carol)
	carol.send("sealed before the removal")
	row := msgRow("sealed before the removal")
	carol.waitFor("the message waiting for the network", `(() => { const m = `+row+`; return !!m && m.dataset.status === 'pending' && m.textContent.includes('cannot be reached'); })()`)
	eval[chromedp.Void](alice, `import('/groupchat.js').then((g) => g.remove(`+js(chat)+`, 'bob'))`)
	carol.waitFor("carol without bob", accountsIn(chat, "alice", "carol"))
	restore()

	waitPastBackoff(carol, "the message sent", `(() => { const m = `+row+`; return !!m && m.dataset.status === 'sent'; })()`)
	alice.openChat(chat)
	alice.waitMessage("sealed before the removal")
	sentOnlyTo(t, log, msgID(carol, chat, "sealed before the removal"), "alice")
}

// TestGroupSendWaitsForTheStream: carol's device has no stream (and
// cannot send) when she writes in the group "Team": the message is not
// sealed yet, and says that it waits for the connection. alice removes
// bob meanwhile. Once carol's device is back, its stream brings the
// removal first, and the message goes to alice alone. Control: a client
// that seals and sends a group message without its stream says that the
// relay cannot be reached instead, and may seal it for bob.
func TestGroupSendWaitsForTheStream(t *testing.T) {
	log, alice, carol, chat := team(t)

	restore := failRequests(t, carol, "*/api/messages", "*/api/events*")
	carol.do(chromedp.Reload())
	carol.waitFor("the chat after the reload", `document.querySelector('.chat[data-chat=`+js(chat)+`] #chat-title') && document.getElementById('composer')`)
	carol.send("written without a stream")
	row := msgRow("written without a stream")
	carol.waitFor("the message waiting for the connection", `(() => { const m = `+row+`; return !!m && m.dataset.status === 'pending' && m.textContent.includes('waiting for the connection'); })()`)
	fitsWidths(carol, "group-waiting-for-stream")
	eval[chromedp.Void](alice, `import('/groupchat.js').then((g) => g.remove(`+js(chat)+`, 'bob'))`)
	alice.waitFor("alice without bob", accountsIn(chat, "alice", "carol"))
	restore()

	waitPastBackoff(carol, "the message sent", `(() => { const m = `+row+`; return !!m && m.dataset.status === 'sent'; })()`)
	alice.openChat(chat)
	alice.waitMessage("written without a stream")
	sentOnlyTo(t, log, msgID(carol, chat, "written without a stream"), "alice")
}

// TestGroupCommitWhileDirectoryAway: alice adds carol to the group "Team"
// while bob's device cannot reach the relay's directory, so it cannot
// check carol's device (it has never seen her key). bob's device keeps
// the commit, and alice's next message behind it, instead of refusing
// the commit and falling behind in the group for good; once the directory
// answers, it applies both in order: the line of carol's addition, then
// the message, and it reads what carol writes. Control: a client that
// takes the failed check as a refusal never shows alice's message.
func TestGroupCommitWhileDirectoryAway(t *testing.T) {
	r := startRelay(t)
	alice, bob, carol := registered(t, r)
	chat := makeGroup(alice, "Team", "bob")
	waitGroup(bob, "Team")
	bob.openChat(chat)

	restore := failRequests(t, bob, "*/api/accounts/*")
	eval[chromedp.Void](alice, `import('/groupchat.js').then((g) => g.add(`+js(chat)+`, ['carol']))`)
	alice.waitFor("carol in alice's group", accountsIn(chat, "alice", "bob", "carol"))
	alice.send("after carol")
	bob.waitFor("bob keeping the commit and the message behind it", `import('/store.js').then((s) => s.getMeta('mlsWelcomes:' + `+js(chat)+`)).then((l) => !!l && l.length === 2 && l[0].held)`)
	if bob.hasMessage("after carol") {
		t.Fatal("bob shows a message of an epoch he has not reached")
	}
	restore()

	waitPastBackoff(bob, "alice's message after the commit", `[...document.querySelectorAll('#messages .msg')].some((e) => e.querySelector('.text').textContent === 'after carol')`)
	if got := linesAndTexts(bob); !slices.Equal(got[len(got)-2:], []string{"| alice added carol.", "after carol"}) {
		t.Fatalf("bob's chat ends with %q", got)
	}
	waitGroup(carol, "Team")
	carol.openChat(chat)
	carol.send("hello from carol")
	bob.waitMessage("hello from carol")
}

// TestGroupMemberRestored: bob, in alice's group "Team", logs out of his
// only device and restores his account with the recovery key on a new
// browser, whose device is in no group (a group chat keeps no GroupInfo
// to rejoin from). When alice opens the group's info panel (and once a
// day by itself), her device finds that none of bob's devices in the
// group is one the relay lists, and brings bob back with the device it
// lists now: bob's new browser gets the group, reads what alice writes
// next and writes to it. The members stay alice and bob, and alice's
// chat has no new line. Control: without it, bob's new browser never
// gets the group.
func TestGroupMemberRestored(t *testing.T) {
	r := startRelay(t)
	_, alice := r.newProfile(t)
	alice.register("alice")
	published(t, r, alice)
	_, bob := r.newProfile(t)
	bob.register("bob")
	published(t, r, bob)
	chat := makeGroup(alice, "Team", "bob")
	waitGroup(bob, "Team")

	key := saveRecoveryKey(bob)
	bob.do(chromedp.Click(chromedp.ID("logout")))
	bob.waitFor("the logout dialog", `document.getElementById('leave-confirm')`)
	bob.do(chromedp.Click(chromedp.ID("leave-confirm")))
	bob.waitFor("the auth form after logout", `document.getElementById('auth-username')`)
	_, fresh := r.newProfile(t)
	fresh.login("bob")
	fresh.waitFor("the restore form", `document.getElementById('restore-key')`)
	typeRecoveryKey(fresh, key)
	fresh.waitFor("the restored chat list", `document.getElementById('new-chat-username')`)
	published(t, r, fresh)

	alice.openChat(chat)
	openPanel(alice, "#group-members-list")
	waitGroup(fresh, "Team")
	fresh.openChat(chat)
	alice.send("welcome back")
	fresh.waitMessage("welcome back")
	fresh.send("back again")
	alice.waitMessage("back again")
	alice.waitFor("alice and bob still", accountsIn(chat, "alice", "bob"))
	if got := lines(alice); len(got) != 1 {
		t.Fatalf("alice's chat shows the lines %q", got)
	}
	checkScreen(fresh, "group-member-restored")
}

// TestGroupMemberAddedAgain: alice removes bob from "Team" and adds him
// again; bob's device, which applied his removal, takes the welcome that
// adds him again and reads from then on. Then bob's device misses a
// commit (the relay loses it from his queue while he is away): back, it
// cannot read alice's next message, and the chat says so and what to do.
// alice removes bob and adds him again, and the device reads again, the
// notice gone. Control: a device that ignores a welcome to a group it
// holds a state of stays out both times.
func TestGroupMemberAddedAgain(t *testing.T) {
	r := startRelay(t)
	alice, bob, _ := registered(t, r)
	chat := makeGroup(alice, "Team", "bob")
	waitGroup(bob, "Team")
	bob.openChat(chat)
	readd := func() {
		t.Helper()
		eval[chromedp.Void](alice, `import('/groupchat.js').then((g) => g.remove(`+js(chat)+`, 'bob'))`)
		alice.waitFor("alice alone", accountsIn(chat, "alice"))
		eval[chromedp.Void](alice, `import('/groupchat.js').then((g) => g.add(`+js(chat)+`, ['bob']))`)
		alice.waitFor("bob back in alice's group", accountsIn(chat, "alice", "bob"))
	}

	readd()
	bob.waitFor("bob's device back in the group", accountsIn(chat, "alice", "bob"))
	alice.openChat(chat)
	alice.send("after adding bob again")
	bob.waitMessage("after adding bob again")

	// The relay loses a commit from bob's queue while he is away.
	bobDevice := bob.deviceID()
	bob.do(chromedp.Navigate("about:blank"))
	eval[chromedp.Void](alice, `import('/groupchat.js').then((g) => g.rename(`+js(chat)+`, 'Team 2'))`)
	alice.waitFor("the rename", `import('/groupchat.js').then((g) => g.info(`+js(chat)+`)).then((i) => i.name === 'Team 2')`)
	waitDB(t, "the rename in bob's queue", func() bool { return r.queued(bobDevice) > 0 })
	execDB(t, r, `DELETE FROM queue WHERE device_id = $1`, bobDevice)
	alice.send("after the lost commit")
	alice.waitFor("sent", `(() => { const m = `+msgRow("after the lost commit")+`; return !!m && m.dataset.status === 'sent'; })()`)
	bob.do(chromedp.Navigate(r.URL + "/#/chat/" + chat))
	bob.waitFor("the notice that bob's device is stuck", `document.getElementById('behind-notice')`)
	checkScreen(bob, "group-behind")
	if bob.hasMessage("after the lost commit") {
		t.Fatal("bob's device read a message of an epoch it never reached")
	}

	readd()
	alice.send("after the second addition")
	bob.waitMessage("after the second addition")
	bob.waitFor("the notice gone", `!document.getElementById('behind-notice')`)
}
