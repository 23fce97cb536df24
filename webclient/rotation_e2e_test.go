package webclient_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// rotationGate stands in front of the relay for the tests of a key
// rotation that races the chats' groups. Armed by holdCommits, it holds
// every commit that arrives and lets them through in the order they came
// (releaseCommits), each after the relay answered the one before. Armed
// by staleFor, it answers one device's plain lookups of one account with
// an answer kept from before (the account's old key), as another relay
// instance does before a key replacement's notice reaches it; a lookup
// with ?fresh=1 passes.
type rotationGate struct {
	mu      sync.Mutex // guards the following
	holding bool
	held    []gatedCommit
	staleTo string // X-Device of the device answered stale ("": none)
	stale   string // the path answered stale
	answer  []byte // what it is answered
	served  int    // stale answers given
	fresh   int    // fresh lookups of the path let through
}

type gatedCommit struct {
	device  string
	release chan struct{} // closed: the commit goes to the relay
	done    chan struct{} // closed: the relay answered it
}

func (g *rotationGate) holdCommits() {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.holding = true
}

// heldFrom are the devices whose commits are held, in arrival order.
func (g *rotationGate) heldFrom() []string {
	g.mu.Lock()
	defer g.mu.Unlock()
	var out []string
	for _, c := range g.held {
		out = append(out, c.device)
	}
	return out
}

// releaseCommits lets the held commits through one after the other, in
// the order they came, and holds no more.
func (g *rotationGate) releaseCommits(t *testing.T) {
	t.Helper()
	g.mu.Lock()
	held := g.held
	g.held, g.holding = nil, false
	g.mu.Unlock()
	for _, c := range held {
		close(c.release)
		select {
		case <-c.done:
		case <-time.After(20 * time.Second):
			t.Fatal("a released commit was never answered")
		}
	}
}

func (g *rotationGate) staleFor(device, path string, answer []byte) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.staleTo, g.stale, g.answer = device, path, answer
}

// counts are the stale answers given and the fresh lookups let through.
func (g *rotationGate) counts() (served, fresh int) {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.served, g.fresh
}

func (g *rotationGate) wrap(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		g.mu.Lock()
		if g.stale != "" && req.Method == http.MethodGet && req.URL.Path == g.stale && req.Header.Get("X-Device") == g.staleTo {
			if req.URL.RawQuery == "fresh=1" {
				g.fresh++
			} else {
				g.served++
				answer := g.answer
				g.mu.Unlock()
				w.Header().Set("Content-Type", "application/json")
				_, _ = w.Write(answer)
				return
			}
		}
		holding := g.holding
		g.mu.Unlock()
		if !holding || req.Method != http.MethodPost || req.URL.Path != "/api/messages" {
			h.ServeHTTP(w, req)
			return
		}
		raw, _ := io.ReadAll(req.Body)
		req.Body = io.NopCloser(bytes.NewReader(raw))
		var in struct{ Kind string }
		if json.Unmarshal(raw, &in) != nil || in.Kind != "commit" {
			h.ServeHTTP(w, req)
			return
		}
		c := gatedCommit{device: req.Header.Get("X-Device"), release: make(chan struct{}), done: make(chan struct{})}
		g.mu.Lock()
		g.held = append(g.held, c)
		g.mu.Unlock()
		defer close(c.done)
		select {
		case <-c.release:
		case <-req.Context().Done():
			return
		}
		h.ServeHTTP(w, req)
	})
}

// rotationTrio starts a relay behind g with alice on a laptop and a
// phone, and bob, chatting in their MLS group, every device settled at
// one epoch.
func rotationTrio(t *testing.T, g *rotationGate) (laptop, phone, bob *tab) {
	t.Helper()
	r := startWrapped(t, g.wrap)
	_, laptop = r.newProfile(t)
	_, bob = r.newProfile(t)
	laptop.register("alice")
	bob.register("bob")
	phone = linkedDevice(t, r, laptop, "alice")
	bob.openChat("alice")
	bob.send("before the rotation")
	phone.openChat("bob")
	phone.waitMessage("before the rotation")
	laptop.openChat("bob")
	laptop.waitMessage("before the rotation")
	settledAll(t, "before the rotation", map[*tab]string{laptop: "bob", phone: "bob", bob: "alice"})
	return laptop, phone, bob
}

// heldKeyJS is the account key the tab holds, in base64.
const heldKeyJS = `(async () => { const a = (await import('/account.js')).current(); return btoa(String.fromCharCode(...a.publicKey)); })()`

// rotate makes a new account key from laptop, dropping no device, and
// waits until phone holds it too.
func rotate(laptop, phone *tab) {
	laptop.t.Helper()
	eval[chromedp.Void](laptop, `import('/sync.js').then((s) => s.rotateAccountKey(`+js(password)+`, [])).then(() => {})`)
	phone.waitFor("the phone to adopt the new key", heldKeyJS+`.then((k) => k === `+js(eval[string](laptop, heldKeyJS))+`)`)
}

// recertified waits until bob's group with alice holds a leaf for each
// of alice's devices given, each other than the one it held before (its
// certificate changed), and no other leaf of alice's.
func recertified(t *testing.T, bob *tab, before map[string]string) {
	t.Helper()
	for dev, leaf := range before {
		bob.waitFor("alice's device "+dev+" certified anew in bob's group", leafJS("alice", "alice", dev)+`.then((l) => l !== '' && l !== `+js(leaf)+`)`)
	}
	// The dropped device's leaf is removed by the upkeep of alice's other
	// devices, a moment after the rotation: wait for that state.
	bob.waitFor(fmt.Sprintf("bob's group holding %d leaves of alice's", len(before)), membersJS("alice")+fmt.Sprintf(`.then((ms) => ms.filter((m) => m.startsWith('alice/')).length === %d)`, len(before)))
}

// chatAfter checks that the three devices still chat, and that bob's
// chat never refused a member.
func chatAfter(t *testing.T, laptop, phone, bob *tab) {
	t.Helper()
	phone.send("from the phone after the rotation")
	bob.waitMessage("from the phone after the rotation")
	bob.send("to the new key")
	phone.waitMessage("to the new key")
	laptop.waitMessage("to the new key")
	laptop.waitMessage("from the phone after the rotation")
	if eval[bool](bob, `!!document.getElementById('refused-notice')`) {
		t.Fatal("bob's chat warns of a refused member")
	}
}

// TestRotationWithACommitInFlight: the phone commits an update of its
// leaf, which carries its certificate by the old account key, and the
// laptop rotates the key before the relay takes that commit. Bob and the
// laptop read the commit after the rotation, against the new key: the
// leaf it carries is already in the group, and is taken as it is. Then
// every device of alice's certifies its leaf anew (each one's external
// commit meets the others' old leaves, which are in its group too), and
// all chat. Before, bob refused the commit, fell an epoch behind and
// showed the phone's next message as "Could not decrypt"; and the
// laptop and the phone each refused the other's old leaf for ever.
func TestRotationWithACommitInFlight(t *testing.T) {
	var g rotationGate
	laptop, phone, bob := rotationTrio(t, &g)
	laptopID, phoneID := laptop.deviceID(), phone.deviceID()
	before := map[string]string{laptopID: eval[string](bob, leafJS("alice", "alice", laptopID)), phoneID: eval[string](bob, leafJS("alice", "alice", phoneID))}

	g.holdCommits()
	// The update is due: the phone's upkeep commits it.
	eval[chromedp.Void](phone, `(async () => {
  const s = await import('/store.js');
  const k = 'group:' + (await s.getMeta('groupsOf:bob'))[0];
  await s.keepGroups([[k, { ...(await s.getMeta(k)), due: true, updated: '' }]]);
  (await import('/mlsmembers.js')).upkeep();
})()`)
	for i := 0; len(g.heldFrom()) == 0; i++ {
		if i > 400 {
			t.Fatal("the phone's update never came")
		}
		sleep()
	}
	if from := g.heldFrom(); from[0] != phoneID {
		t.Fatalf("the first commit held is from %s, want the phone's", from[0])
	}
	rotate(laptop, phone)
	g.releaseCommits(t)

	chatAfter(t, laptop, phone, bob)
	recertified(t, bob, before)
}

// TestRotationWithAStaleDirectory: after a key rotation, the relay
// answers bob's plain lookups of alice with her old key, as another
// relay instance does until the rotation's notice reaches it. Alice's
// devices certify their leaves anew; bob's check of each new leaf fails
// against the old key, asks again with ?fresh=1, and takes it. Before,
// bob refused the first new leaf and fell behind.
func TestRotationWithAStaleDirectory(t *testing.T) {
	var g rotationGate
	laptop, phone, bob := rotationTrio(t, &g)
	laptopID, phoneID := laptop.deviceID(), phone.deviceID()
	before := map[string]string{laptopID: eval[string](bob, leafJS("alice", "alice", laptopID)), phoneID: eval[string](bob, leafJS("alice", "alice", phoneID))}
	old := eval[map[string]string](bob, `import('/api.js').then((a) => a.lookup('alice'))`)
	answer, err := json.Marshal(old)
	if err != nil {
		t.Fatal(err)
	}
	g.staleFor(bob.deviceID(), "/api/accounts/alice", answer)

	rotate(laptop, phone)
	recertified(t, bob, before)
	chatAfter(t, laptop, phone, bob)
	if served, fresh := g.counts(); served == 0 || fresh == 0 {
		t.Fatalf("%d stale answers and %d fresh lookups: the test showed nothing", served, fresh)
	}
}
