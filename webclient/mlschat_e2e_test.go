package webclient_test

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"relay/internal/browser"
)

// mlsOn turns MLS chats on in this tab's profile: a chat it starts is
// sealed in an MLS group (mlschat.js reads the switch at each seal).
func (tb *tab) mlsOn() {
	tb.t.Helper()
	eval[chromedp.Void](tb, `localStorage.setItem('relay.mls', 'on')`)
}

// sent is an envelope a client sent, as the relay received it.
type sent struct {
	ID, To, Kind string
	Body         []byte
	Device       string
}

// sentLog keeps every envelope that reaches POST /api/messages, and the
// status the relay answered each commit. Armed with holdCommits(n), it
// holds the commits that arrive until n of them are there, then lets
// them all through at once.
type sentLog struct {
	mu       sync.Mutex
	all      []sent
	statuses []int // of commits, in the order answered
	hold     int
	held     int
	release  chan struct{}
}

// holdCommits holds the next n commits until all n arrived.
func (l *sentLog) holdCommits(n int) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.hold, l.held, l.release = n, 0, make(chan struct{})
}

type statusWriter struct {
	http.ResponseWriter
	status int
}

func (w *statusWriter) WriteHeader(code int) {
	w.status = code
	w.ResponseWriter.WriteHeader(code)
}

func (l *sentLog) wrap(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		if req.Method != http.MethodPost || req.URL.Path != "/api/messages" {
			h.ServeHTTP(w, req)
			return
		}
		raw, _ := io.ReadAll(req.Body)
		req.Body = io.NopCloser(bytes.NewReader(raw))
		var in struct{ ID, To, Kind, Body string }
		if json.Unmarshal(raw, &in) != nil {
			h.ServeHTTP(w, req)
			return
		}
		body, _ := base64.StdEncoding.DecodeString(in.Body)
		l.mu.Lock()
		l.all = append(l.all, sent{ID: in.ID, To: in.To, Kind: in.Kind, Body: body, Device: req.Header.Get("X-Device")})
		var wait chan struct{}
		if in.Kind == "commit" && l.held < l.hold {
			l.held++
			wait = l.release
			if l.held == l.hold {
				close(l.release)
			}
		}
		l.mu.Unlock()
		if wait != nil {
			select {
			case <-wait:
			case <-time.After(20 * time.Second):
			case <-req.Context().Done():
				return
			}
		}
		sw := &statusWriter{ResponseWriter: w, status: http.StatusOK}
		h.ServeHTTP(sw, req)
		if in.Kind == "commit" {
			l.mu.Lock()
			l.statuses = append(l.statuses, sw.status)
			l.mu.Unlock()
		}
	})
}

// commitStatuses are the statuses the relay answered commits with.
func (l *sentLog) commitStatuses() []int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]int(nil), l.statuses...)
}

func (l *sentLog) list() []sent {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]sent(nil), l.all...)
}

// mlsWire is what an envelope body is as an MLS message (version mls10):
// "public", "private", "welcome", or "" for anything else (a version 1 body, a
// link envelope).
func mlsWire(body []byte) string {
	if len(body) < 4 || body[0] != 0 || body[1] != 1 || body[2] != 0 {
		return ""
	}
	switch body[3] {
	case 1:
		return "public"
	case 2:
		return "private"
	case 3:
		return "welcome"
	}
	return ""
}

// groupsJS is what a tab's client knows of its groups with peer.
func groupsJS(peer string) string {
	return `import('/mlschat.js').then((m) => m.groupsOf(` + js(peer) + `)).then((g) => g.map((x) => x.gid))`
}

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

	bodyOf := func(from *tab, id string) map[string]string {
		for _, e := range log.list() {
			if e.ID == id {
				return map[string]string{"id": e.ID, "from": eval[string](from, `import('/sync.js').then(s => s.me())`), "to": e.To, "body": base64.StdEncoding.EncodeToString(e.Body)}
			}
		}
		t.Fatalf("envelope %s was not captured", id)
		return nil
	}
	idOf := func(tb *tab, peer, text string) string {
		return eval[string](tb, `import('/store.js').then(s => s.getMessages(`+js(peer)+`)).then(ms => ms.find(m => m.text === `+js(text)+`).id)`)
	}
	captured := []map[string]string{
		bodyOf(alice, idOf(alice, "bob", "first secret")),
		bodyOf(alice, idOf(alice, "bob", "second secret")),
		bodyOf(carol, idOf(carol, "bob", "carol's old-style secret")),
	}
	// The theft: bob's profile as it is now. What is sent after it is
	// captured, then opened with the stolen states.
	snapshot := eval[[]string](bob, `(async () => { const s = await import('/store.js'); const out = []; for (const chat of ['alice', 'carol']) for (const gid of (await s.getMeta('groupsOf:' + chat)) || []) out.push(gid); return out; })()`)
	if len(snapshot) == 0 {
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
	// method of the theft works. The state is the one stolen above, kept
	// in the page before bob reads on.
	eval[chromedp.Void](bob, `(async () => { const s = await import('/store.js'); window.__stolen = []; for (const gid of `+js(snapshot)+`) window.__stolen.push((await s.getMeta('group:' + gid)).state); })()`)
	alice.send("third secret")
	bob.openChat("alice")
	bob.waitMessage("third secret")
	later := bodyOf(alice, idOf(alice, "bob", "third secret"))
	opened := eval[string](bob, `(async (b) => {
  const c = await import('/crypto.js'); const mls = await import('/mls.js');
  for (const st of window.__stolen) {
    try { const r = await mls.receive(mls.loadGroup(st, mls.acceptAll), c.b64decode(b.body)); return new TextDecoder().decode(c.unpad(r.plaintext, c.MLS_BUCKETS)); } catch {}
  }
  return '';
})(`+js(later)+`)`)
	if !bytes.Contains([]byte(opened), []byte("third secret")) {
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

// membersJS is the members ("username/device") of the group tb sends in
// with peer, or [] when it has none.
func membersJS(peer string) string {
	return `import('/mlschat.js').then((m) => m.groupsOf(` + js(peer) + `)).then((g) => g.length ? g[0].members : [])`
}

// hasMember is a condition: tb's group with peer has member ("user/device")
// (or has not, with want false).
func hasMember(peer, member string, want bool) string {
	return membersJS(peer) + `.then((ms) => ms.includes(` + js(member) + `) === ` + js(want) + `)`
}

// openWithJS opens a captured envelope body ({body}) with the group
// states in window.__stolen: the plaintext, or "".
const openWithJS = `async (b) => {
  const c = await import('/crypto.js'); const mls = await import('/mls.js');
  for (const st of window.__stolen) {
    try { const r = await mls.receive(mls.loadGroup(st, mls.acceptAll), c.b64decode(b.body)); if (r.kind === 'application') return new TextDecoder().decode(c.unpad(r.plaintext, c.MLS_BUCKETS)); } catch {}
  }
  return '';
}`

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

	// The phone's state, stolen, then a message while it is a member.
	eval[chromedp.Void](phone, `(async () => { const s = await import('/store.js'); window.__stolen = []; for (const gid of (await s.getMeta('groupsOf:bob')) || []) window.__stolen.push((await s.getMeta('group:' + gid)).state); })()`)
	stolen := eval[[]string](phone, `window.__stolen.map((s) => btoa(String.fromCharCode(...s)))`)
	bob.send("while the phone is in")
	laptop.waitMessage("while the phone is in")
	eval[chromedp.Void](laptop, `import('/sync.js').then((s) => s.revoke(`+js(pid)+`))`)
	laptop.waitFor("the phone removed from the chat's group", hasMember("bob", "alice/"+pid, false))
	bob.waitFor("bob's device sees the phone gone", hasMember("alice", "alice/"+pid, false))
	bob.send("after the removal")
	laptop.waitMessage("after the removal")

	bodyOf := func(text string) map[string]string {
		id := eval[string](bob, `import('/store.js').then(s => s.getMessages('alice')).then(ms => ms.find(m => m.text === `+js(text)+`).id)`)
		for _, e := range log.list() {
			if e.ID == id {
				return map[string]string{"body": base64.StdEncoding.EncodeToString(e.Body)}
			}
		}
		t.Fatalf("%q was not captured", text)
		return nil
	}
	// The thief opens with the stolen states, in a page of its own.
	_, thief := r.newProfile(t)
	eval[chromedp.Void](thief, `window.__stolen = `+js(stolen)+`.map((b) => Uint8Array.from(atob(b), (ch) => ch.charCodeAt(0)))`)
	if got := eval[string](thief, `(`+openWithJS+`)(`+js(bodyOf("while the phone is in"))+`)`); !bytes.Contains([]byte(got), []byte("while the phone is in")) {
		t.Fatalf("control: the phone's stolen state does not open a message sent while it was a member: %q", got)
	}
	if got := eval[string](thief, `(`+openWithJS+`)(`+js(bodyOf("after the removal"))+`)`); got != "" {
		t.Fatalf("the removed phone's state opens a message sent after its removal: %q", got)
	}
}

// mlsSettled is a condition: the tab has nothing left to send and no
// commit kept or due in any group.
const mlsSettled = `import('/store.js').then(async (s) => {
  if (Object.keys(await s.receiptsToSend()).length || (await s.readRecordsToSend()).length || (await s.pendingMessages()).length) return false;
  if ((await s.metaKeys('groupCommit:')).length) return false;
  for (const k of await s.metaKeys('group:')) if ((await s.getMeta(k)).due) return false;
  return true;
})`

// settledEpoch waits until alice's group with bob and bob's with alice
// are settled (mlsSettled) at the same epoch, and returns it.
func settledEpoch(t *testing.T, alice, bob *tab, what string) int {
	t.Helper()
	for i := 0; ; i++ {
		if eval[bool](alice, mlsSettled) && eval[bool](bob, mlsSettled) {
			a, b := eval[int](alice, epochJS("bob")), eval[int](bob, epochJS("alice"))
			if a == b && a >= 0 {
				return a
			}
			if i > 400 {
				t.Fatalf("%s: alice is at epoch %d, bob at %d", what, a, b)
			}
		} else if i > 400 {
			t.Fatalf("%s: the devices never settled", what)
		}
		sleep()
	}
}

// epochJS is the epoch of the group tb sends in with peer (-1: none).
func epochJS(peer string) string {
	return `import('/mlschat.js').then((m) => m.groupsOf(` + js(peer) + `)).then((g) => g.length ? g[0].epoch : -1)`
}

// mlsPair starts a relay with log around it and alice and bob chatting
// in an MLS group, each with the chat open.
func mlsPair(t *testing.T, log *sentLog) (*liveRelay, *tab, *tab) {
	t.Helper()
	r := startWrapped(t, log.wrap)
	_, alice := r.newProfile(t)
	alice.mlsOn()
	alice.register("alice")
	_, bob := r.newProfile(t)
	bob.mlsOn()
	bob.register("bob")
	r.waitKeyPackages("bob's", bob.deviceID(), 20, 1)
	alice.openChat("bob")
	alice.send("hello")
	bob.openChat("alice")
	bob.waitMessage("hello")
	return r, alice, bob
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

// TestMLSPostCompromise: bob's profile is stolen; what alice sends next
// still opens with it (control). Then bob's device commits an update of
// its leaf: what alice sends after it opens with nothing stolen.
func TestMLSPostCompromise(t *testing.T) {
	var log sentLog
	r, alice, bob := mlsPair(t, &log)
	settledEpoch(t, alice, bob, "before the theft")
	stolen := eval[[]string](bob, `(async () => { const s = await import('/store.js'); const c = await import('/crypto.js'); const out = []; for (const gid of (await s.getMeta('groupsOf:alice')) || []) out.push(c.b64encode((await s.getMeta('group:' + gid)).state)); return out; })()`)
	_, thief := r.newProfile(t)
	eval[chromedp.Void](thief, `import('/crypto.js').then((c) => { window.__stolen = `+js(stolen)+`.map((b) => c.b64decode(b)); })`)
	capturedBody := func(text string) map[string]string {
		t.Helper()
		id := eval[string](alice, `import('/store.js').then(s => s.getMessages('bob')).then(ms => ms.find(m => m.text === `+js(text)+` && m.status === 'sent')?.id || '')`)
		for _, e := range log.list() {
			if e.ID == id {
				return map[string]string{"body": base64.StdEncoding.EncodeToString(e.Body)}
			}
		}
		t.Fatalf("%q was not captured", text)
		return nil
	}
	alice.send("before the heal")
	alice.waitFor("sent", bubble("before the heal")+`?.dataset.status === 'sent'`)
	bob.waitMessage("before the heal")
	if got := eval[string](thief, `(`+openWithJS+`)(`+js(capturedBody("before the heal"))+`)`); !bytes.Contains([]byte(got), []byte("before the heal")) {
		t.Fatalf("control: bob's stolen state does not open the next message: %q", got)
	}
	e := eval[int](alice, epochJS("bob"))
	eval[chromedp.Void](bob, `import('/mlsmembers.js').then((m) => m.updateNow('alice'))`)
	alice.waitFor("alice past bob's update", epochJS("bob")+` .then((x) => x > `+fmt.Sprint(e)+`)`)
	alice.send("after the heal")
	alice.waitFor("sent", bubble("after the heal")+`?.dataset.status === 'sent'`)
	bob.waitMessage("after the heal")
	if got := eval[string](thief, `(`+openWithJS+`)(`+js(capturedBody("after the heal"))+`)`); got != "" {
		t.Fatalf("bob's state stolen before his update opens what alice sent after it: %q", got)
	}
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

// leafJS is the hex identity of the leaf of user's device dev in tb's
// group with peer, or "".
func leafJS(peer, user, dev string) string {
	return `(async () => {
  const s = await import('/store.js'); const c = await import('/crypto.js'); const mls = await import('/mls.js'); const id = await import('/mlsidentity.js');
  const list = (await s.getMeta('groupsOf:' + ` + js(peer) + `)) || [];
  if (!list.length) return '';
  const info = mls.groupInfo(mls.loadGroup((await s.getMeta('group:' + list[0])).state, mls.acceptAll));
  const leaf = info.members.find((m) => { const p = m && id.parseIdentity(m); return p && p.username === ` + js(user) + ` && p.deviceId === ` + js(dev) + `; });
  return leaf ? c.hex(leaf) : '';
})()`
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
	alice.register("alice")
	_, bob := r.newProfile(t)
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
	sendRaw(alice, "bob", `{type: 'text', text: 'forged the old way'}`)
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
