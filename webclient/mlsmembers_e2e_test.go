package webclient_test

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// TestMLSDevicesJoinAndLeave: alice and bob chat in an MLS group; alice
// links a phone. Her laptop adds the phone to the chat's group by itself,
// and the phone reads what is sent from then on and sends in the group.
// Then the laptop revokes the phone: the laptop removes it from the
// group, bob's device follows, and the phone's state, stolen just before,
// opens what bob sent while it was a member but nothing he sent after
// its removal.
func TestMLSDevicesJoinAndLeave(t *testing.T) {
	var log sentLog
	r := startWrapped(t, log.wrap)
	_, laptop := r.newProfile(t)
	laptop.mlsOn()
	laptop.register("alice")
	_, bob := r.newProfile(t)
	bob.mlsOn()
	bob.register("bob")
	r.waitKeyPackages("bob's", bob.deviceID(), 20, 1)
	laptop.openChat("bob")
	laptop.send("before the phone")
	bob.openChat("alice")
	bob.waitMessage("before the phone")

	phone := linkedDevice(t, r, laptop, "alice")
	pid := phone.deviceID()
	laptop.waitFor("the phone added to the chat's group", hasMember("bob", "alice/"+pid, true))
	bob.waitFor("bob's device sees the phone in the group", hasMember("alice", "alice/"+pid, true))
	phone.waitFor("the phone in the chat's group", hasMember("bob", "alice/"+pid, true))
	phone.openChat("bob")
	bob.send("after the phone")
	phone.waitMessage("after the phone")
	phone.send("from the phone")
	bob.waitMessage("from the phone")
	laptop.openChat("bob")
	laptop.waitMessage("from the phone")

	// The phone's state, stolen once every commit due (the daily updates
	// of the three devices' first sends) has landed, then a message while
	// it is a member.
	settledAll(t, "before the theft", map[*tab]string{laptop: "bob", phone: "bob", bob: "alice"})
	stolen := stolenStates(phone, "bob")
	bob.send("while the phone is in")
	laptop.waitMessage("while the phone is in")
	eval[chromedp.Void](laptop, `import('/sync.js').then((s) => s.revoke(`+js(pid)+`))`)
	laptop.waitFor("the phone removed from the chat's group", hasMember("bob", "alice/"+pid, false))
	bob.waitFor("bob's device sees the phone gone", hasMember("alice", "alice/"+pid, false))
	bob.send("after the removal")
	laptop.waitMessage("after the removal")

	_, thief := r.newProfile(t)
	if got := openStolen(thief, stolen, log.body(t, msgID(bob, "alice", "while the phone is in"))); !bytes.Contains([]byte(got), []byte("while the phone is in")) {
		t.Fatalf("control: the phone's stolen state does not open a message sent while it was a member: %q", got)
	}
	if got := openStolen(thief, stolen, log.body(t, msgID(bob, "alice", "after the removal"))); got != "" {
		t.Fatalf("the removed phone's state opens a message sent after its removal: %q", got)
	}
}

// TestMLSConcurrentCommits: alice's and bob's devices each commit an
// update of their leaf at the same epoch, at once (the relay's front
// holds the two commits until both arrived). The relay takes one and
// answers the other 409 stale_epoch; the loser applies the winner and
// commits its update again. No fork: both end in the same group two
// epochs on, and messages still open both ways. Control: both updates
// landing at all needs the retry (without it, the epochs stay one apart
// from the start, at one on).
func TestMLSConcurrentCommits(t *testing.T) {
	var log sentLog
	_, alice, bob := mlsPair(t, &log)
	bob.send("hi")
	alice.waitMessage("hi")
	for _, tb := range []*tab{alice, bob} {
		tb.waitFor("nothing left to send", outboxSettled)
	}
	// Each side's first send of the day already updated its leaf: wait
	// until both agree on the epoch before the race.
	e0 := settledEpoch(t, alice, bob, "before the race")
	before := len(log.commitStatuses())
	log.holdCommits(2)
	var wg sync.WaitGroup
	for _, side := range []struct {
		tb   *tab
		peer string
	}{{alice, "bob"}, {bob, "alice"}} {
		wg.Add(1)
		go func(tb *tab, peer string) {
			defer wg.Done()
			ctx, cancel := context.WithTimeout(tb.ctx, time.Minute)
			defer cancel()
			_, _ = chromedp.Run(ctx, chromedp.Evaluate[chromedp.Void](`import('/mlsmembers.js').then((m) => m.updateNow(`+js(peer)+`))`, chromedp.EvalAwaitPromise))
		}(side.tb, side.peer)
	}
	wg.Wait()
	alice.waitFor("alice two epochs on", epochJS("bob")+` .then((e) => e === `+fmt.Sprint(e0+2)+`)`)
	bob.waitFor("bob two epochs on", epochJS("alice")+` .then((e) => e === `+fmt.Sprint(e0+2)+`)`)
	if got := settledEpoch(t, alice, bob, "after the race"); got != e0+2 {
		t.Fatalf("after the race the group is at epoch %d, want %d", got, e0+2)
	}
	statuses := log.commitStatuses()[before:]
	conflicts := 0
	for _, s := range statuses {
		if s == http.StatusConflict {
			conflicts++
		}
	}
	if conflicts != 1 || len(statuses) != 3 {
		t.Fatalf("the relay answered the commits %v, want one 409 among the two at once and the retry accepted", statuses)
	}
	if a, b := eval[[]string](alice, groupsJS("bob")), eval[[]string](bob, groupsJS("alice")); len(a) != 1 || len(b) != 1 || a[0] != b[0] {
		t.Fatalf("alice is in %v, bob in %v", a, b)
	}
	alice.send("after the race")
	bob.waitMessage("after the race")
	bob.send("agreed")
	alice.waitMessage("agreed")
}

// TestMLSFallenBehindRejoins: bob's device misses a commit of his chat's
// group with alice (his queue is lost while he is away), so it cannot
// open what alice sends after it. It rejoins by itself from the
// GroupInfo alice's device keeps on the relay, by an external commit that
// replaces its old leaf; the chat says messages in between may be
// missing, and both ways work again, in one group with one leaf for
// bob's device.
func TestMLSFallenBehindRejoins(t *testing.T) {
	var log sentLog
	r, alice, bob := mlsPair(t, &log)
	e0 := settledEpoch(t, alice, bob, "before bob leaves")
	bobDevice := bob.deviceID()
	bob.do(chromedp.Navigate("about:blank"))
	eval[chromedp.Void](alice, `import('/mlsmembers.js').then((m) => m.updateNow('bob'))`)
	alice.waitFor("alice's update accepted", epochJS("bob")+`.then((e) => e === `+fmt.Sprint(e0+1)+`)`)
	alice.waitFor("settled", mlsSettled)
	if n := r.count(`SELECT count(*) FROM mls_group_info`); n == 0 {
		t.Fatal("no GroupInfo stored on the relay")
	}
	execDB(t, r, `DELETE FROM queue WHERE device_id = $1`, bobDevice)
	alice.send("after the missed commit")
	alice.waitFor("sent", bubble("after the missed commit")+`?.dataset.status === 'sent'`)

	bob.do(chromedp.Navigate(r.URL + "/#/chat/alice"))
	bob.waitFor("the notice that bob's device rejoined", `document.getElementById('rejoined-notice')`)
	alice.waitFor("alice past bob's external commit", epochJS("bob")+`.then((e) => e === `+fmt.Sprint(e0+2)+`)`)
	alice.send("after the rejoin")
	bob.waitMessage("after the rejoin")
	bob.send("bob is back")
	alice.waitMessage("bob is back")
	ms := eval[[]string](alice, membersJS("bob"))
	n := 0
	for _, m := range ms {
		if m == "bob/"+bobDevice {
			n++
		}
	}
	if n != 1 || len(ms) != 2 {
		t.Fatalf("alice's group holds %v, want alice's device and bob's once", ms)
	}
	checkScreen(bob, "rejoined-notice")
	bob.do(chromedp.Click(chromedp.ID("rejoined-dismiss")))
	bob.waitFor("the notice dismissed", `!document.getElementById('rejoined-notice')`)
}

// TestMLSRotationRecertifies: alice replaces her account key. Her device
// certifies its MLS signature key with the new one and replaces its leaf
// in her chat's group with bob by an external commit from the group as
// it is: bob's device holds her leaf with the new certificate, which his
// client accepts against the key the directory serves now, and both ways
// work in the same group. Control: without the new leaf, bob's device
// holds the certificate of the old key, which no longer checks.
func TestMLSRotationRecertifies(t *testing.T) {
	var log sentLog
	_, alice, bob := mlsPair(t, &log)
	settledEpoch(t, alice, bob, "before the rotation")
	aliceDev := alice.deviceID()
	before := eval[string](bob, leafJS("alice", "alice", aliceDev))
	gid := eval[[]string](bob, groupsJS("alice"))
	eval[int](alice, `import('/account.js').then((a) => a.rotateKey(`+js(password)+`, []))`)
	alice.waitFor("a new certificate", `import('/store.js').then(async (s) => { const c = await import('/crypto.js'); return c.hex((await s.getMeta('mls')).identity) !== `+js(before)+`; })`)
	now := eval[string](alice, `import('/store.js').then(async (s) => { const c = await import('/crypto.js'); return c.hex((await s.getMeta('mls')).identity); })`)
	bob.waitFor("alice's new leaf in bob's group", leafJS("alice", "alice", aliceDev)+`.then((h) => h === `+js(now)+`)`)
	ok := eval[map[string]bool](bob, `(async () => {
  const c = await import('/crypto.js'); const s = await import('/sync.js'); const mls = await import('/mls.js'); const id = await import('/mlsidentity.js');
  return { now: await s.checkMember(c.unhex(`+js(now)+`), mls.keyPackageMember ? (await (async () => { const st = await import('/store.js'); const list = await st.getMeta('groupsOf:alice'); const g = mls.loadGroup((await st.getMeta('group:' + list[0])).state, mls.acceptAll); return g.ratchetTree.find((n) => n && n.nodeType === 'leaf' && c.hex(n.leaf.credential.identity) === `+js(now)+`).leaf.signaturePublicKey; })()) : null),
           before: await s.checkMember(c.unhex(`+js(before)+`), new Uint8Array(65)) };
})()`)
	if !ok["now"] || ok["before"] {
		t.Fatalf("bob's client checks alice's new leaf %v and her old certificate %v; want true and false", ok["now"], ok["before"])
	}
	if got := eval[[]string](bob, groupsJS("alice")); len(got) != 1 || got[0] != gid[0] {
		t.Fatalf("bob's groups went from %v to %v", gid, got)
	}
	alice.send("with my new key")
	bob.waitMessage("with my new key")
	bob.send("got it")
	alice.waitMessage("got it")
}

// TestMLSMigrationAndDowngrade: alice and bob chat the old way (version
// 1); a message of alice's waits in bob's queue. Then alice's device
// turns MLS on and sends: the chat moves to a group at that message. Bob,
// whose switch is off, reads the old history, the old queued message and
// the new one, and answers in the group: nothing new in the chat is
// sealed the old way by either. A version 1 message then sent by alice's
// device (as someone holding her account key could) is refused and shown
// as such; the same kind of message before the move opened (control).
func TestMLSMigrationAndDowngrade(t *testing.T) {
	var log sentLog
	r := startWrapped(t, log.wrap)
	_, alice := r.newProfile(t)
	alice.mlsOff()
	alice.register("alice")
	_, bob := r.newProfile(t)
	bob.mlsOff()
	bob.register("bob")
	r.waitKeyPackages("bob's", bob.deviceID(), 20, 1)
	r.waitKeyPackages("alice's", alice.deviceID(), 20, 1)
	alice.openChat("bob")
	alice.send("old one")
	bob.openChat("alice")
	bob.waitMessage("old one")
	bob.send("old reply")
	alice.waitMessage("old reply")
	bob.do(chromedp.Navigate("about:blank"))
	alice.send("queued the old way")
	alice.waitFor("sent", bubble("queued the old way")+`?.dataset.status === 'sent'`)
	alice.waitFor("settled", outboxSettled)
	moved := len(log.list())

	alice.mlsOn()
	alice.send("first in MLS")
	alice.waitFor("sent", bubble("first in MLS")+`?.dataset.status === 'sent'`)
	bob.do(chromedp.Navigate(r.URL + "/#/chat/alice"))
	bob.waitMessage("first in MLS")
	for _, text := range []string{"old one", "old reply", "queued the old way"} {
		if !bob.hasMessage(text) {
			t.Fatalf("bob's chat lost %q: %q", text, bob.messages())
		}
	}
	bob.send("reply in MLS")
	alice.waitMessage("reply in MLS")
	for _, tb := range []*tab{alice, bob} {
		tb.waitFor("settled", mlsSettled)
	}
	// Once a device sent in the group, it seals nothing the old way. (Bob's
	// receipt of the old queued message may go the old way: his device
	// had not met the group yet.)
	// The chat is the pair of accounts; notes to self (bob's read
	// positions) are another chat, which did not move.
	speaks := map[string]bool{}
	bobDevice := bob.deviceID()
	for _, e := range log.list()[moved:] {
		if (e.To == "bob") != (e.Device != bobDevice) {
			continue // to oneself
		}
		if mlsWire(e.Body) != "" {
			speaks[e.Device] = true
		} else if speaks[e.Device] {
			t.Fatalf("after its device sent in the group, an envelope of %d bytes (kind %q) was sealed the old way", len(e.Body), e.Kind)
		}
	}
	if len(speaks) != 2 {
		t.Fatalf("%d devices sent in the group, want alice's and bob's", len(speaks))
	}

	// A version 1 message from alice's device, now that it speaks MLS.
	sendRawOld(alice, "bob", `{type: 'text', text: 'forged the old way'}`)
	bob.waitFor("the refused message", `[...document.querySelectorAll('#messages .msg.undecryptable .text')].some((e) => e.textContent.startsWith('Refused'))`)
	if bob.hasMessage("forged the old way") {
		t.Fatal("bob shows the version 1 message of a device that speaks MLS")
	}
	checkScreen(bob, "downgrade")
}

// TestMLSRefusesAnUncertifiedMember: a commit to alice and bob's group
// adds a device that claims to be alice's, certified by a key that is
// not the one the directory serves for alice (as a relay that swapped her
// key, or a forger, would make). Bob's device refuses the commit (its
// group stays at its epoch) and the chat warns, pointing to the safety
// code. The control is the same commit with a device alice's key
// certified, which is applied (TestMLSDevicesJoinAndLeave).
func TestMLSRefusesAnUncertifiedMember(t *testing.T) {
	var log sentLog
	_, alice, bob := mlsPair(t, &log)
	e := settledEpoch(t, alice, bob, "before the forged addition")
	eval[chromedp.Void](alice, `(async () => {
  const mls = await import('/mls.js'); const c = await import('/crypto.js'); const idm = await import('/mlsidentity.js');
  const s = await import('/store.js'); const api = await import('/api.js'); const { ulid } = await import('/ulid.js');
  const fakeDevice = ulid();
  const keys = await mls.newDevice(new Uint8Array());
  const other = await c.generateKeyPair();
  const cert = await c.certifyDevice(other.privateKey, 'alice', fakeDevice, keys.signaturePublicKey);
  const [kp] = await mls.makeKeyPackages({ ...keys, identity: idm.encodeIdentity('alice', fakeDevice, cert) }, 1);
  const list = await s.getMeta('groupsOf:bob');
  const g = mls.loadGroup((await s.getMeta('group:' + list[0])).state, mls.acceptAll);
  const made = await mls.changeMembers(g, [kp.keyPackage], []);
  await api.sendCommit(ulid(), 'bob', c.b64encode(made.commit));
})()`)
	bob.waitFor("the warning", `document.getElementById('refused-notice')`)
	if got := eval[int](bob, epochJS("alice")); got != e {
		t.Fatalf("bob's group went from epoch %d to %d", e, got)
	}
	checkScreen(bob, "refused-notice")
	bob.do(chromedp.Click(chromedp.ID("refused-compare")))
	bob.waitFor("the safety code", `document.getElementById('chat-info') && !document.getElementById('chat-info').hidden`)
}
