package webclient_test

import (
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"relay/internal/browser"
	"relay/webclient"
)

// mlsDevice is one device's browser profile with mls.js loaded; its MLS
// state lives in the page (window.T), and only bytes (base64) leave it.
type mlsDevice struct {
	name string
	tb   *tab
}

// mlsSetup is evaluated once per page: the module, and the helpers the
// steps share.
const mlsSetup = `(async (name) => {
  const m = await import('/mls.js');
  const te = new TextEncoder(), td = new TextDecoder();
  const b64 = (b) => btoa(String.fromCharCode(...b));
  const unb64 = (s) => Uint8Array.from(atob(s), (c) => c.charCodeAt(0));
  window.T = { m, te, td, b64, unb64, device: await m.newDevice(te.encode(name)), bundles: [] };
  return true;
})`

func newMLSDevice(t *testing.T, url, name string) *mlsDevice {
	t.Helper()
	p := browser.New(t)
	tb := &tab{t: t, ctx: p.Ctx}
	tb.do(chromedp.Navigate(url + "/"))
	if !eval[bool](tb, mlsSetup+"("+js(name)+")") {
		t.Fatalf("%s: mls.js did not load", name)
	}
	return &mlsDevice{name: name, tb: tb}
}

// run evaluates body in an async function that sees T's fields as names.
func mlsRun[V any](d *mlsDevice, body string) V {
	d.tb.t.Helper()
	return eval[V](d.tb, `(async () => { const { m, te, td, b64, unb64 } = T; `+body+` })()`)
}

// keyPackages makes n one-time key packages (or a last resort one) and
// returns them as base64; the device keeps their secrets.
func (d *mlsDevice) keyPackages(n int, lastResort bool) []string {
	d.tb.t.Helper()
	return mlsRun[[]string](d, `const kps = await m.makeKeyPackages(T.device, `+js(n)+`, `+js(lastResort)+`);
    T.bundles.push(...kps); return kps.map((k) => b64(k.keyPackage));`)
}

func (d *mlsDevice) join(welcome, keyPackage string) {
	d.tb.t.Helper()
	mlsRun[bool](d, `const b = T.bundles.find((x) => b64(x.keyPackage) === `+js(keyPackage)+`);
    T.group = await m.joinGroup(T.device, unb64(`+js(welcome)+`), b, m.acceptAll); return true;`)
}

func (d *mlsDevice) send(text string) string {
	d.tb.t.Helper()
	return mlsRun[string](d, `const r = await m.encrypt(T.group, te.encode(`+js(text)+`)); T.group = r.group; return b64(r.message);`)
}

// receive processes a message and returns its plaintext, "commit" for a
// commit, or "refused: <error>".
func (d *mlsDevice) receive(msg string) string {
	d.tb.t.Helper()
	return mlsRun[string](d, `try {
      const r = await m.receive(T.group, unb64(`+js(msg)+`)); T.group = r.group;
      return r.kind === 'application' ? td.decode(r.plaintext) : r.kind;
    } catch (e) { return 'refused: ' + e.message; }`)
}

// info is the device's view of the group: epoch and members.
func (d *mlsDevice) info() string {
	d.tb.t.Helper()
	return mlsRun[string](d, `const i = m.groupInfo(T.group);
    return i.epoch + ' ' + i.members.filter((x) => x).map((x) => td.decode(x)).sort().join(',');`)
}

// TestMLSInterface drives mls.js in real Chromium, one browser profile per
// device: alice's two devices and bob's one make their MLS identities and
// key packages, alice's first device creates the chat's group and adds the
// others by key package (a credential check that refuses bob keeps him
// out), everyone writes and reads, bob commits an update
// of his leaf and the group moves on, the state goes to bytes and back,
// and the header of each message reads without keys.
//
// Forward secrecy, at the library's level: bob's complete group state,
// saved after he read a message, cannot open it again; the control, his
// state saved before reading it, can. Post-compromise security likewise:
// alice's second device's state from before bob's update opens nothing
// sent after it; the control, her current state, does.
func TestMLSInterface(t *testing.T) {
	srv := httptest.NewServer(webclient.Handler())
	t.Cleanup(srv.Close)
	a1 := newMLSDevice(t, srv.URL, "alice/1")
	a2 := newMLSDevice(t, srv.URL, "alice/2")
	b1 := newMLSDevice(t, srv.URL, "bob/1")

	a2kp := a2.keyPackages(2, false)
	b1kp := b1.keyPackages(1, false)
	b1last := b1.keyPackages(1, true)
	if len(a2kp) != 2 || len(b1kp) != 1 || len(b1last) != 1 || a2kp[0] == a2kp[1] {
		t.Fatalf("key packages: %d, %d, %d", len(a2kp), len(b1kp), len(b1last))
	}
	if got := mlsRun[[]bool](b1, `return [m.isLastResort(unb64(`+js(b1last[0])+`)), m.isLastResort(unb64(`+js(b1kp[0])+`))];`); !got[0] || got[1] {
		t.Fatalf("last resort marks: %v, want [true false]", got)
	}

	// The credential check reaches the library: a group whose check
	// refuses bob's identity refuses his key package. The control is the
	// group below, whose check accepts him.
	refused := mlsRun[string](a1, `const g = await m.createGroup(T.device, te.encode('chat-0'), async (id) => td.decode(id) !== 'bob/1');
    try { await m.addMembers(g, [unb64(`+js(b1kp[0])+`)]); return 'added'; } catch (e) { return 'refused: ' + e.message; }`)
	if !strings.HasPrefix(refused, "refused: ") {
		t.Fatalf("a group whose check refuses bob: %q", refused)
	}

	type added struct{ Commit, Welcome, Header string }
	add := mlsRun[added](a1, `T.group = await m.createGroup(T.device, te.encode('chat-1'), m.acceptAll);
    const r = await m.addMembers(T.group, [unb64(`+js(a2kp[0])+`), unb64(`+js(b1kp[0])+`)]); T.group = r.group;
    const h = m.readHeader(r.commit);
    return { commit: b64(r.commit), welcome: b64(r.welcome), header: [h.wireformat, td.decode(h.groupId), h.epoch, h.contentType].join(' ') };`)
	if add.Header != "mls_private_message chat-1 0 commit" {
		t.Fatalf("the commit's header: %q", add.Header)
	}
	a2.join(add.Welcome, a2kp[0])
	b1.join(add.Welcome, b1kp[0])
	for _, d := range []*mlsDevice{a1, a2, b1} {
		if got := d.info(); got != "1 alice/1,alice/2,bob/1" {
			t.Fatalf("%s sees the group as %q", d.name, got)
		}
	}

	// Both ways, from every device.
	exchange := func(epoch string) {
		t.Helper()
		for _, from := range []*mlsDevice{a1, b1, a2} {
			text := "from " + from.name + " in epoch " + epoch
			msg := from.send(text)
			h := mlsRun[string](b1, `const h = m.readHeader(unb64(`+js(msg)+`)); return [h.wireformat, td.decode(h.groupId), h.epoch, h.contentType].join(' ');`)
			if want := "mls_private_message chat-1 " + epoch + " application"; h != want {
				t.Fatalf("header of %q: %q, want %q", text, h, want)
			}
			for _, to := range []*mlsDevice{a1, a2, b1} {
				if to == from {
					continue
				}
				if got := to.receive(msg); got != text {
					t.Fatalf("%s reads %q from %s: %q", to.name, text, from.name, got)
				}
			}
		}
	}
	exchange("1")

	// Forward secrecy: bob's state saved after reading a message, then
	// restored whole, cannot open it; saved before reading, it can.
	msg := a1.send("read once")
	type fs struct{ Before, After, Live string }
	got := mlsRun[fs](b1, `const before = m.saveGroup(T.group);
    const r = await m.receive(T.group, unb64(`+js(msg)+`)); T.group = r.group;
    const after = m.saveGroup(T.group);
    const open = async (bytes) => { try { return td.decode((await m.receive(m.loadGroup(bytes, m.acceptAll), unb64(`+js(msg)+`))).plaintext); } catch (e) { return 'refused: ' + e.message; } };
    return { before: await open(before), after: await open(after), live: td.decode(r.plaintext) };`)
	if got.Live != "read once" || got.Before != "read once" {
		t.Fatalf("bob read %q live and %q from his state before reading: both should be the message", got.Live, got.Before)
	}
	if !strings.HasPrefix(got.After, "refused: ") {
		t.Fatalf("bob's state saved after reading opened the message again: %q (no forward secrecy)", got.After)
	}
	if got := a2.receive(msg); got != "read once" {
		t.Fatalf("alice/2 reads %q", got)
	}

	// Bob updates his leaf. Alice's second device keeps a copy of her
	// state from before, as a thief would.
	mlsRun[bool](a2, `T.stolen = m.saveGroup(T.group); return true;`)
	update := mlsRun[string](b1, `const r = await m.updateLeaf(T.group); T.group = r.group; return b64(r.commit);`)
	if h := mlsRun[string](a1, `const h = m.readHeader(unb64(`+js(update)+`)); return h.epoch + ' ' + h.contentType;`); h != "1 commit" {
		t.Fatalf("the update's header: %q", h)
	}
	for _, d := range []*mlsDevice{a1, a2} {
		if got := d.receive(update); got != "commit" {
			t.Fatalf("%s processing bob's update: %q", d.name, got)
		}
	}
	for _, d := range []*mlsDevice{a1, a2, b1} {
		if got := d.info(); got != "2 alice/1,alice/2,bob/1" {
			t.Fatalf("after the update %s sees %q", d.name, got)
		}
	}
	exchange("2")
	after := b1.send("after the update")
	type pcs struct{ Stolen, Current string }
	p := mlsRun[pcs](a2, `const open = async (g) => { try { return td.decode((await m.receive(g, unb64(`+js(after)+`))).plaintext); } catch (e) { return 'refused: ' + e.message; } };
    return { stolen: await open(m.loadGroup(T.stolen, m.acceptAll)), current: await open(T.group) };`)
	if p.Current != "after the update" {
		t.Fatalf("alice/2's current state reads %q", p.Current)
	}
	if !strings.HasPrefix(p.Stolen, "refused: ") {
		t.Fatalf("alice/2's state from before the update opened a message sent after it: %q", p.Stolen)
	}

	// The state as bytes and back: alice's first device goes on from a
	// restored copy.
	mlsRun[bool](a1, `T.group = m.loadGroup(m.saveGroup(T.group), m.acceptAll); return true;`)
	if got := a1.receive(after); got != "after the update" {
		t.Fatalf("alice/1 restored reads %q", got)
	}
	exchange("2")

	// The header of what is not one whole MLS message is null, and a
	// welcome names no group.
	type heads struct{ Junk, Cut, Welcome string }
	h := mlsRun[heads](a1, `const s = (h) => h === null ? 'null' : [h.wireformat, h.groupId, h.epoch, h.contentType].join(' ');
    const w = unb64(`+js(add.Welcome)+`);
    return { junk: s(m.readHeader(te.encode('not mls'))), cut: s(m.readHeader(w.subarray(0, w.length - 1))), welcome: s(m.readHeader(w)) };`)
	if h.Junk != "null" || h.Cut != "null" || h.Welcome != "mls_welcome   " {
		t.Fatalf("headers: %+v", h)
	}
}

// TestMLSAfterAKeyChange drives mls.js as the chats do after alice's
// account key changed, each device's check now refusing alice's old
// certificates (identities "alice/1", "alice/2") and taking the new ones
// ("alice/1b") and bob's:
//   - alice/2's update of its leaf, which still carries its old
//     certificate, is taken: the leaf is in the group already. The
//     control: a new device with a refused identity, by key package, is
//     refused.
//   - alice/1 certifies its leaf anew by an external commit from its own
//     state, whose tree holds alice/2's old leaf. The control: with the
//     check alone, the join is refused.
//   - a message bob sealed before that commit, read by alice/1 after it,
//     opens from the epochs the new state keeps. The control: a state
//     joined without them finds the epoch too old.
func TestMLSAfterAKeyChange(t *testing.T) {
	srv := httptest.NewServer(webclient.Handler())
	t.Cleanup(srv.Close)
	a1 := newMLSDevice(t, srv.URL, "alice/1")
	a2 := newMLSDevice(t, srv.URL, "alice/2")
	b1 := newMLSDevice(t, srv.URL, "bob/1")
	a3 := newMLSDevice(t, srv.URL, "alice/3")
	a2kp, b1kp, a3kp := a2.keyPackages(1, false), b1.keyPackages(1, false), a3.keyPackages(1, false)
	add := mlsRun[map[string]string](a1, `T.group = await m.createGroup(T.device, te.encode('chat-2'), m.acceptAll);
    const r = await m.addMembers(T.group, [unb64(`+js(a2kp[0])+`), unb64(`+js(b1kp[0])+`)]); T.group = r.group;
    return { welcome: b64(r.welcome) };`)
	a2.join(add["welcome"], a2kp[0])
	b1.join(add["welcome"], b1kp[0])

	const rotated = `T.check = async (id) => ['alice/1b', 'bob/1'].includes(td.decode(id)); T.group = m.loadGroup(m.saveGroup(T.group), T.check); return true;`
	for _, d := range []*mlsDevice{a1, a2, b1} {
		mlsRun[bool](d, rotated)
	}

	update := mlsRun[string](a2, `const r = await m.updateLeaf(T.group); T.group = r.group; return b64(r.commit);`)
	for _, d := range []*mlsDevice{a1, b1} {
		if got := d.receive(update); got != "commit" {
			t.Fatalf("%s reading alice/2's update of its leaf: %q", d.name, got)
		}
	}
	// Made from a copy that takes anyone, and never applied by alice/1.
	newcomer := mlsRun[string](a1, `return b64((await m.addMembers(m.loadGroup(m.saveGroup(T.group), m.acceptAll), [unb64(`+js(a3kp[0])+`)])).commit);`)
	if got := b1.receive(newcomer); !strings.HasPrefix(got, "refused: ") {
		t.Fatalf("control: bob took a new device whose certificate his check refuses: %q", got)
	}

	sealedBefore := b1.send("sealed before alice/1's new certificate")
	type recert struct{ Plain, Unkept, Commit string }
	got := mlsRun[recert](a1, `const dev = { ...T.device, identity: te.encode('alice/1b') };
    const info = await m.exportGroupInfo(T.group);
    let plain = 'joined';
    try { await m.joinExternal(dev, info, true, T.check); } catch (e) { plain = 'refused: ' + e.message; }
    const unkept = await m.joinExternal(dev, info, true, m.knownCheck(T.group.ratchetTree, T.check));
    let old;
    try { old = td.decode((await m.receive(unkept.group, unb64(`+js(sealedBefore)+`))).plaintext); } catch (e) { old = 'refused: ' + e.message; }
    const j = await m.joinExternal(dev, info, true, m.knownCheck(T.group.ratchetTree, T.check), T.group);
    T.group = j.group; T.device = dev;
    return { plain, unkept: old, commit: b64(j.commit) };`)
	if !strings.HasPrefix(got.Plain, "refused: ") {
		t.Fatalf("control: alice/1's new leaf joined with the check alone: %q", got.Plain)
	}
	if !strings.HasPrefix(got.Unkept, "refused: ") {
		t.Fatalf("control: a state joined without the epochs before it opened bob's message: %q", got.Unkept)
	}
	if got := a1.receive(sealedBefore); got != "sealed before alice/1's new certificate" {
		t.Fatalf("alice/1 reads bob's message sealed before its new certificate: %q", got)
	}
	for _, d := range []*mlsDevice{a2, b1} {
		if got := d.receive(got.Commit); got != "commit" {
			t.Fatalf("%s reading alice/1's new certificate: %q", d.name, got)
		}
	}
	for _, from := range []*mlsDevice{a1, a2, b1} {
		msg := from.send("after, from " + from.name)
		for _, to := range []*mlsDevice{a1, a2, b1} {
			if to != from {
				if got := to.receive(msg); got != "after, from "+from.name {
					t.Fatalf("%s reads %q from %s", to.name, got, from.name)
				}
			}
		}
	}
}
