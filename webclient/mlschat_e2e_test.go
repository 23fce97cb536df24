package webclient_test

import (
	"bytes"
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"relay/internal/browser"
)

// TestChatInMLSGroup: alice (laptop and phone) and bob chat with MLS on.
// The laptop's first message makes the chat's group, with bob's device
// and alice's phone in it: a commit, a welcome, and from then on every
// envelope of the chat, messages, records and receipts, is an MLS
// application message. Every device reads the messages, an edit, bob's
// reaction and the read receipt; the read position reaches the phone
// through alice's notes-to-self group. All three devices end in the same
// group, and no version 1 body is sent after it.
func TestChatInMLSGroup(t *testing.T) {
	var log sentLog
	r := startWrapped(t, log.wrap)
	_, laptop := r.newProfile(t)
	laptop.mlsOn()
	laptop.register("alice")
	_, bob := r.newProfile(t)
	bob.mlsOn()
	bob.register("bob")
	phone := linkedDevice(t, r, laptop, "alice")
	phone.mlsOn()
	a1, a2, b1 := laptop.deviceID(), phone.deviceID(), bob.deviceID()
	for _, d := range []string{a1, a2, b1} {
		r.waitKeyPackages("before the first message", d, 20, 1)
	}

	laptop.openChat("bob")
	laptop.send("hello over MLS")
	bob.openChat("alice")
	bob.waitMessage("hello over MLS")
	phone.openChat("bob")
	phone.waitMessage("hello over MLS")
	bob.send("heard you")
	laptop.waitMessage("heard you")
	phone.waitMessage("heard you")

	// One group, the same on every device.
	want := eval[[]string](laptop, groupsJS("bob"))
	if len(want) != 1 {
		t.Fatalf("the laptop is in %d groups with bob, want 1", len(want))
	}
	for name, got := range map[string][]string{"phone": eval[[]string](phone, groupsJS("bob")), "bob": eval[[]string](bob, groupsJS("alice"))} {
		if len(got) != 1 || got[0] != want[0] {
			t.Fatalf("%s is in groups %v, the laptop in %v", name, got, want)
		}
	}

	// Records in the group: an edit, a reaction, the read receipt.
	laptop.waitFor("the message sent", bubble("hello over MLS")+`?.dataset.status === 'sent'`)
	laptop.menuAction("hello over MLS", "edit-btn")
	laptop.typeEdit("hello over MLS, edited")
	for _, tb := range []*tab{bob, phone} {
		tb.waitMessage("hello over MLS, edited")
	}
	laptop.waitFor("read by bob", tickOf("hello over MLS, edited", "read"))
	phone.waitFor("read by bob, on the phone", tickOf("hello over MLS, edited", "read"))

	// The longest text a message may hold, of three-byte characters, fits
	// the largest bucket once MLS framed and signed it.
	long := strings.Repeat("字", 16000)
	eval[chromedp.Void](laptop, `import('/sync.js').then((s) => s.sendText('bob', `+js(long)+`))`)
	bob.waitFor("the longest message", `import('/store.js').then(s => s.getMessages('alice')).then(ms => ms.some(m => m.text && m.text.length === 16000))`)

	// The laptop read bob's reply with the chat open: the phone, where it
	// was unread, learns it from the laptop's read record.
	eval[chromedp.Void](phone, `location.hash = '#/chats'`)
	phone.waitFor("bob's reply read on the phone too", unreadIs("bob", 0))
	// Both of alice's devices may have made a notes-to-self group at once:
	// each sends in the smallest id of those it is in, so they agree.
	if got, want := eval[[]string](phone, groupsJS("alice")), eval[[]string](laptop, groupsJS("alice")); len(got) == 0 || len(want) == 0 || got[0] != want[0] {
		t.Fatalf("the phone's notes-to-self groups are %v, the laptop's %v", got, want)
	}
	for _, tb := range []*tab{laptop, phone, bob} {
		tb.waitFor("nothing left to send", outboxSettled)
		if got := ignored(tb); got["forged"] != 0 || got["invalid"] != 0 {
			t.Fatalf("records ignored %v, want none", got)
		}
	}

	// What the relay was given: per chat, the group's commit first, then
	// its welcome, then only application messages.
	kinds := map[string]int{}
	for _, e := range log.list() {
		w := mlsWire(e.Body)
		if w == "" {
			if len(e.Body) != 125 { // a link envelope
				t.Errorf("envelope %s (kind %q to %s) is not an MLS message: %d bytes", e.ID, e.Kind, e.To, len(e.Body))
			}
			continue
		}
		k := w
		if e.Kind == "commit" {
			k = "commit"
		}
		kinds[k]++
	}
	// The groups made: alice and bob's, alice's notes to self (by one of
	// her devices or both), each a commit and a welcome; then each
	// device's daily update, a commit without a welcome.
	if kinds["welcome"] < 2 || kinds["commit"] < kinds["welcome"] || kinds["private"] < 6 {
		t.Fatalf("the relay was sent %v, want a commit and a welcome for each group, the updates and the chat's messages", kinds)
	}
	t.Logf("sent to the relay: %v", kinds)
	fitsWidths(laptop, "mls-chat")
}

// stealJS opens captured envelope bodies with everything a device's
// profile holds, as a thief who copied it would: every group state in
// IndexedDB, and the account key with each contact's key as version 1
// seals with it. It reports, for each body, what opened it: "mls" and
// the record, "v1" and the record, or "" when nothing did. It reads only
// what is stored, never the page's live state.
const stealJS = `async (bodies) => {
  const s = await import('/store.js'); const c = await import('/crypto.js');
  const mls = await import('/mls.js');
  const acct = await s.getMeta('account');
  const states = [];
  for (const chat of ['alice', 'bob', 'carol']) {
    for (const gid of (await s.getMeta('groupsOf:' + chat)) || []) states.push((await s.getMeta('group:' + gid)).state);
  }
  const out = [];
  for (const b of bodies) {
    const body = c.b64decode(b.body);
    let got = '';
    for (const st of states) {
      try {
        const r = await mls.receive(mls.loadGroup(st, mls.acceptAll), body);
        if (r.kind === 'application') got = 'mls:' + new TextDecoder().decode(c.unpad(r.plaintext, c.MLS_BUCKETS));
      } catch { /* not with this state */ }
    }
    if (!got) {
      for (const them of ['alice', 'bob', 'carol']) {
        if (them === acct.username) continue;
        const ch = await s.getChat(them);
        if (!ch || !ch.publicKey) continue;
        try {
          const k = await c.aesKey(await c.conversationKeyBytes(acct.privateKey, ch.publicKey, acct.username, them));
          got = 'v1:' + await c.open(k, b.id, b.from, b.to, body);
        } catch { /* not with this key */ }
      }
    }
    out.push(got);
  }
  return out;
}`

// TestMLSForwardSecrecy: envelopes of alice's MLS chat with bob, captured
// on their way to the relay, do not open with all that bob's profile holds
// once bob has read them: his group states, account key and keys. A
// message sent after the theft does open with the stolen state (the
// thief's method works; only a commit that updates the group heals that).
// Control: carol's first message, sealed as version 1, opens with the
// same theft, as every message did before MLS.
func TestMLSForwardSecrecy(t *testing.T) {
	var log sentLog
	r := startWrapped(t, log.wrap)
	_, alice := r.newProfile(t)
	alice.mlsOn()
	alice.register("alice")
	_, bob := r.newProfile(t)
	bob.mlsOn()
	bob.register("bob")
	_, carol := r.newProfile(t)
	carol.mlsOff()
	carol.register("carol")
	r.waitKeyPackages("bob's", bob.deviceID(), 20, 1)

	alice.openChat("bob")
	alice.send("first secret")
	alice.send("second secret")
	carol.openChat("bob")
	carol.send("carol's old-style secret")
	bob.openChat("alice")
	bob.waitMessage("second secret")
	bob.openChat("carol")
	bob.waitMessage("carol's old-style secret")
	for _, tb := range []*tab{alice, bob, carol} {
		tb.waitFor("nothing left to send", outboxSettled)
	}
	waitQueueEmpty(t, r)

	capture := func(from *tab, text string) map[string]string {
		b := log.body(t, msgID(from, "bob", text))
		return map[string]string{"id": msgID(from, "bob", text), "from": eval[string](from, `import('/sync.js').then(s => s.me())`), "to": "bob", "body": b["body"]}
	}
	captured := []map[string]string{capture(alice, "first secret"), capture(alice, "second secret"), capture(carol, "carol's old-style secret")}
	// The theft: bob's profile as it is now, once the commits due (the
	// daily updates of first sends) landed.
	settledEpoch(t, alice, bob, "before the theft")
	stolen := stolenStates(bob, "alice")
	if len(stolen) == 0 {
		t.Fatal("bob is in no group")
	}
	got := eval[[]string](bob, `(`+stealJS+`)(`+js(captured)+`)`)
	for i, want := range []string{"", "", "v1:"} {
		if want == "" && got[i] != "" {
			t.Errorf("captured message %d opened with bob's profile after he read it: %q", i, got[i])
		}
		if want == "v1:" && (len(got[i]) < 3 || got[i][:3] != "v1:" || !bytes.Contains([]byte(got[i]), []byte("carol's old-style secret"))) {
			t.Errorf("control: carol's version 1 message did not open with bob's account key: %q", got[i])
		}
	}
	// A stolen state opens what comes after it until the group heals: the
	// method of the theft works.
	alice.send("third secret")
	bob.openChat("alice")
	bob.waitMessage("third secret")
	_, thief := r.newProfile(t)
	if opened := openStolen(thief, stolen, log.body(t, msgID(alice, "bob", "third secret"))); !bytes.Contains([]byte(opened), []byte("third secret")) {
		t.Fatalf("the state stolen before a message does not open it: %q", opened)
	}
}

// sealManyJS seals n text records in alice's group with bob, all at once,
// from this tab, and returns them as envelopes to send: {id, body}.
const sealManyJS = `async (tag, n) => {
  const m = await import('/mlschat.js'); const c = await import('/crypto.js'); const { ulid } = await import('/ulid.js');
  return Promise.all(Array.from({ length: n }, async (_, i) => {
    const id = ulid();
    const body = await m.sealNow('bob', id, JSON.stringify({ type: 'text', text: tag + ' ' + i }));
    return { id, body: c.b64encode(body) };
  }));
}`

// TestMLSTabsSealInTurn: two tabs of alice's browser seal 12 messages each
// in her group with bob at the same moment, each tab all at once; then
// all 24 are sent. Bob opens every one: no two used the same key
// generation, because each seal holds the group's lock from reading the
// state to writing the next. Control: sealing from a state read without
// the lock gives two messages the same generation, and bob could open
// only one of each pair.
func TestMLSTabsSealInTurn(t *testing.T) {
	r := startRelay(t)
	p := browser.New(t)
	firstCtx, _ := p.NewTab(t)
	first := r.openTab(t, firstCtx)
	first.mlsOn()
	first.register("alice")
	_, bob := r.newProfile(t)
	bob.mlsOn()
	bob.register("bob")
	r.waitKeyPackages("bob's", bob.deviceID(), 20, 1)
	first.openChat("bob")
	first.send("the group starts")
	bob.openChat("alice")
	bob.waitMessage("the group starts")
	secondCtx, _ := p.NewTab(t)
	second := r.openTab(t, secondCtx)
	second.waitFor("the second tab's chat list", `document.getElementById('new-chat-username')`)

	const n = 12
	type result struct {
		envs []map[string]string
		err  error
	}
	out := make(chan result, 2)
	var start sync.WaitGroup
	start.Add(1)
	for i, tb := range []*tab{first, second} {
		go func(tag string, tb *tab) {
			start.Wait()
			ctx, cancel := context.WithTimeout(tb.ctx, time.Minute)
			defer cancel()
			envs, err := chromedp.Run(ctx, chromedp.Evaluate[[]map[string]string](`(`+sealManyJS+`)(`+js(tag)+`, `+fmt.Sprint(n)+`)`, chromedp.EvalAwaitPromise))
			out <- result{envs, err}
		}(fmt.Sprintf("tab%d", i+1), tb)
	}
	start.Done()
	var all []map[string]string
	for range 2 {
		res := <-out
		if res.err != nil {
			t.Fatalf("sealing: %v", res.err)
		}
		all = append(all, res.envs...)
	}
	eval[chromedp.Void](first, `(async (envs) => { const api = await import('/api.js'); for (const e of envs) await api.send(e.id, 'bob', e.body); })(`+js(all)+`)`)
	bob.waitFor("bob's device read all of them", `import('/store.js').then(s => s.getMessages('alice')).then(ms => ms.filter(m => m.text !== null).length === `+fmt.Sprint(2*n+1)+` || ms.some(m => m.undecryptable))`)
	waitQueueEmpty(t, r)
	if got := eval[int](bob, `import('/store.js').then(s => s.getMessages('alice')).then(ms => ms.filter(m => m.text !== null).length)`); got != 2*n+1 {
		t.Fatalf("bob opened %d of the %d messages", got, 2*n+1)
	}
}

// TestMLSReplayChangesNothing: the relay's database is restored from a
// backup taken while bob was offline, with alice's MLS messages and an
// edit of one still queued for him; bob had read them all since. When
// they come again, bob recognises each message by its id before opening
// anything (its keys are used up: it would not open again) and the edit
// by its used-up key: each message is stored once, the edit stays, and
// nothing is kept as unreadable. Alice's message after the restore opens.
func TestMLSReplayChangesNothing(t *testing.T) {
	r := startRelay(t)
	_, alice := r.newProfile(t)
	alice.mlsOn()
	alice.register("alice")
	_, bob := r.newProfile(t)
	bob.mlsOn()
	bob.register("bob")
	bobDevice := bob.deviceID()
	r.waitKeyPackages("bob's", bobDevice, 20, 1)
	bob.openChat("alice")
	alice.openChat("bob")
	alice.send("one")
	bob.waitMessage("one")
	bob.do(chromedp.Navigate("about:blank")) // offline

	alice.send("two")
	alice.waitFor("two sent", bubble("two")+`?.dataset.status === 'sent'`)
	alice.menuAction("two", "edit-btn")
	alice.typeEdit("two, edited")
	// The edit is written to the outbox a moment after Enter: the outbox
	// found empty before that says nothing. Its envelope in bob's queue
	// does.
	alice.waitFor("the edit shown", bubble("two, edited"))
	waitDB(t, "the message and its edit queued for bob", func() bool { return r.queued(bobDevice) >= 2 })
	alice.waitFor("the edit sent", `import('/store.js').then(s => s.outgoingRecords('bob')).then(r => r.length === 0)`)
	execDB(t, r, `CREATE TABLE backup_queue (LIKE queue)`)
	execDB(t, r, `INSERT INTO backup_queue SELECT * FROM queue WHERE device_id = $1`, bobDevice)
	execDB(t, r, `CREATE TABLE backup_device AS SELECT id, seq FROM devices`)
	if n := r.count(`SELECT count(*) FROM backup_queue`); n < 2 {
		t.Fatalf("the backup holds %d envelopes for bob, want the message and its edit", n)
	}

	bob.do(chromedp.Navigate(r.URL + "/#/chat/alice"))
	bob.waitMessage("two, edited")
	waitDB(t, "bob's queue empty", func() bool { return r.queued(bobDevice) == 0 })
	bob.do(chromedp.Navigate("about:blank"))
	execDB(t, r, `INSERT INTO queue SELECT * FROM backup_queue`)
	execDB(t, r, `UPDATE devices d SET seq = b.seq FROM backup_device b WHERE d.id = b.id AND d.id = $1`, bobDevice)
	renewEpoch(t, r)
	alice.send("after the restore")
	alice.waitFor("sent", bubble("after the restore")+`?.dataset.status === 'sent'`)

	bob.do(chromedp.Navigate(r.URL + "/#/chat/alice"))
	bob.waitMessage("after the restore")
	waitDB(t, "bob ACKed the replay", func() bool { return r.queued(bobDevice) == 0 })
	checkOnce(t, bob, "alice", "one", "two, edited", "after the restore")
	got := eval[map[string]any](bob, `(async () => {
  const s = await import('/store.js'); const m = await import('/mlschat.js');
  const ms = await s.getMessages('alice');
  return { rows: ms.length, unreadable: ms.filter(x => x.undecryptable || x.waiting).length, byId: m.replays.byId, spent: m.replays.spent, edited: !!ms.find(x => x.text === 'two, edited')?.edited };
})()`)
	if got["rows"] != float64(3) || got["unreadable"] != float64(0) || got["edited"] != true {
		t.Fatalf("after the replay bob holds %v", got)
	}
	if got["byId"].(float64) < 1 || got["spent"].(float64) < 1 {
		t.Fatalf("the replay was not recognised as one: %v", got)
	}
	if got := ignored(bob); got["forged"] != 0 || got["invalid"] != 0 {
		t.Fatalf("records ignored %v, want none", got)
	}
}

// TestMLSPostCompromise: bob's profile is stolen; what alice sends next
// still opens with it (control). Then bob's device commits an update of
// its leaf: what alice sends after it opens with nothing stolen.
func TestMLSPostCompromise(t *testing.T) {
	var log sentLog
	r, alice, bob := mlsPair(t, &log)
	settledEpoch(t, alice, bob, "before the theft")
	stolen := stolenStates(bob, "alice")
	_, thief := r.newProfile(t)
	alice.send("before the heal")
	alice.waitFor("sent", bubble("before the heal")+`?.dataset.status === 'sent'`)
	bob.waitMessage("before the heal")
	if got := openStolen(thief, stolen, log.body(t, msgID(alice, "bob", "before the heal"))); !bytes.Contains([]byte(got), []byte("before the heal")) {
		t.Fatalf("control: bob's stolen state does not open the next message: %q", got)
	}
	e := eval[int](alice, epochJS("bob"))
	eval[chromedp.Void](bob, `import('/mlsmembers.js').then((m) => m.updateNow('alice'))`)
	alice.waitFor("alice past bob's update", epochJS("bob")+` .then((x) => x > `+fmt.Sprint(e)+`)`)
	alice.send("after the heal")
	alice.waitFor("sent", bubble("after the heal")+`?.dataset.status === 'sent'`)
	bob.waitMessage("after the heal")
	if got := openStolen(thief, stolen, log.body(t, msgID(alice, "bob", "after the heal"))); got != "" {
		t.Fatalf("bob's state stolen before his update opens what alice sent after it: %q", got)
	}
}
