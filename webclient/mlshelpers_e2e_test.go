package webclient_test

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"io"
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// mlsOn turns MLS chats back on in this tab's profile (they are on by
// default): a chat it starts is sealed in an MLS group (mlschat.js reads
// the switch at each seal).
func (tb *tab) mlsOn() {
	tb.t.Helper()
	eval[chromedp.Void](tb, `localStorage.removeItem('relay.mls')`)
}

// mlsOff turns MLS chats off in this tab's profile: a test's account that
// must seal the old way, as a client from before version 2 does.
func (tb *tab) mlsOff() {
	tb.t.Helper()
	eval[chromedp.Void](tb, `localStorage.setItem('relay.mls', 'off')`)
}

// sent is an envelope a client sent, as the relay received it.
type sent struct {
	ID, To, Kind string
	// ToList is the recipients of an envelope to several accounts (a
	// group chat's), whose To is empty.
	ToList []string
	Body   []byte
	Device string
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
	welcomes chan struct{} // while set, welcomes wait until it is closed
}

// holdWelcomes holds every welcome that arrives until the function it
// returns is called.
func (l *sentLog) holdWelcomes() func() {
	l.mu.Lock()
	defer l.mu.Unlock()
	ch := make(chan struct{})
	l.welcomes = ch
	var once sync.Once
	return func() {
		once.Do(func() {
			l.mu.Lock()
			defer l.mu.Unlock()
			if l.welcomes == ch {
				l.welcomes = nil
			}
			close(ch)
		})
	}
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
		var in struct {
			ID, Kind, Body string
			To             json.RawMessage
		}
		if json.Unmarshal(raw, &in) != nil {
			h.ServeHTTP(w, req)
			return
		}
		body, _ := base64.StdEncoding.DecodeString(in.Body)
		one := sent{ID: in.ID, Kind: in.Kind, Body: body, Device: req.Header.Get("X-Device")}
		if json.Unmarshal(in.To, &one.To) != nil {
			_ = json.Unmarshal(in.To, &one.ToList)
		}
		l.mu.Lock()
		l.all = append(l.all, one)
		var wait chan struct{}
		if in.Kind == "welcome" && l.welcomes != nil {
			wait = l.welcomes
		}
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
	return settledAll(t, what, map[*tab]string{alice: "bob", bob: "alice"})
}

// settledAll waits until every tab given is settled (mlsSettled) and
// its group with the peer given is at one epoch, the same for all, and
// returns it: no commit is left to come that a theft would miss.
func settledAll(t *testing.T, what string, peers map[*tab]string) int {
	t.Helper()
	for i := 0; ; i++ {
		epoch, same := -1, true
		for tb, peer := range peers {
			if !eval[bool](tb, mlsSettled) {
				same = false
				break
			}
			e := eval[int](tb, epochJS(peer))
			if epoch == -1 {
				epoch = e
			}
			same = same && e == epoch && e >= 0
		}
		if same {
			return epoch
		}
		if i > 400 {
			t.Fatalf("%s: the devices never settled at one epoch", what)
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

// body is envelope id as captured, as openWithJS takes it: {"body"}.
func (l *sentLog) body(t *testing.T, id string) map[string]string {
	t.Helper()
	for _, e := range l.list() {
		if e.ID == id {
			return map[string]string{"body": base64.StdEncoding.EncodeToString(e.Body)}
		}
	}
	t.Fatalf("envelope %s was not captured", id)
	return nil
}

// msgID is the id of the message of tb's chat with peer whose text is
// text.
func msgID(tb *tab, peer, text string) string {
	tb.t.Helper()
	return eval[string](tb, `import('/store.js').then(s => s.getMessages(`+js(peer)+`)).then(ms => ms.find(m => m.text === `+js(text)+`)?.id || '')`)
}

// stolenStates is every state of tb's groups with peer as its profile
// holds them now, in base64: what a thief who copied it has.
func stolenStates(tb *tab, peer string) []string {
	tb.t.Helper()
	return eval[[]string](tb, `(async () => { const s = await import('/store.js'); const c = await import('/crypto.js'); const out = []; for (const gid of (await s.getMeta('groupsOf:' + `+js(peer)+`)) || []) out.push(c.b64encode((await s.getMeta('group:' + gid)).state)); return out; })()`)
}

// openStolen opens a captured body with stolen states in the thief's
// page: the plaintext record, or "".
func openStolen(thief *tab, states []string, body map[string]string) string {
	thief.t.Helper()
	eval[chromedp.Void](thief, `import('/crypto.js').then((c) => { window.__stolen = `+js(states)+`.map((b) => c.b64decode(b)); })`)
	return eval[string](thief, `(`+openWithJS+`)(`+js(body)+`)`)
}

// joined waits until member ("user/device") is in the group each tab
// given sends in with its peer, as that tab knows it: a device added to a
// chat reads what is sent from then on (docs/crypto.md, "Devices"), and
// what a member seals before it has applied the commit that adds the
// device is sealed for the members before it.
func joined(t *testing.T, member string, peers map[*tab]string) {
	t.Helper()
	for tb, peer := range peers {
		tb.waitFor(member+" in the group with "+peer, hasMember(peer, member, true))
	}
}

// groupMade makes tb's chat's MLS group with peer, its commit and welcome
// accepted by the relay, before a test counts what tb sends: a chat's
// first seal makes its group first (docs/crypto.md, "Making the group"),
// and those two envelopes are not the test's. It returns how many
// envelopes tb's account has sent so far, the count's baseline.
func groupMade(t *testing.T, r *liveRelay, tb *tab, peer string) int {
	t.Helper()
	// The peer's device publishes its key packages once registered.
	for i := 0; r.count(`SELECT count(*) FROM key_packages k JOIN devices d ON d.id = k.device_id JOIN accounts a ON a.id = d.account_id WHERE a.username = $1 AND k.last_resort`, peer) == 0; i++ {
		if i > 400 {
			t.Fatalf("%s never published a key package", peer)
		}
		sleep()
	}
	if !eval[bool](tb, `import('/mlsgroups.js').then((g) => g.locked(`+js(peer)+`, () => g.sendingGroup(`+js(peer)+`))).then((r) => !!r)`) {
		t.Fatalf("no MLS group made with %s", peer)
	}
	return r.count(`SELECT count(*) FROM sent WHERE account_id = (SELECT account_id FROM devices WHERE id = $1)`, tb.deviceID())
}

// published waits until tb's device has its key packages on the relay: a
// device linked a moment ago can be added to a chat's group only then.
func published(t *testing.T, r *liveRelay, tb *tab) {
	t.Helper()
	dev := tb.deviceID()
	for i := 0; r.count(`SELECT count(*) FROM key_packages WHERE device_id = $1 AND last_resort`, dev) == 0; i++ {
		if i > 400 {
			t.Fatal("the device never published its key packages")
		}
		sleep()
	}
}
