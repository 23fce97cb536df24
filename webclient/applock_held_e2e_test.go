package webclient_test

import (
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"relay/internal/browser"
)

// heldJS is how many batches the profile keeps of what came while locked,
// and how many of them are sealed.
const heldJS = `new Promise((ok, no) => {
  const q = indexedDB.open('relay');
  q.onsuccess = () => {
    const d = q.result;
    const r = d.transaction('held').objectStore('held').getAll();
    r.onsuccess = () => { d.close(); ok({ n: r.result.length, sealed: r.result.filter((x) => x.sealed instanceof Uint8Array).length }); };
    r.onerror = () => no(r.error);
  };
  q.onerror = () => no(q.error);
})`

type heldRows struct {
	N      int `json:"n"`
	Sealed int `json:"sealed"`
}

// ownerOf is which of the tabs owns the stream, once one does.
func ownerOf(t *testing.T, tabs ...*tab) int {
	t.Helper()
	for range 400 {
		for i, tb := range tabs {
			if eval[bool](tb, `import('/sync.js').then((s) => s.isOwner())`) {
				return i
			}
		}
		sleep()
	}
	t.Fatal("no tab owns the stream")
	return -1
}

// TestAppLockHoldsWhatComes: while alice's two tabs are locked, the one
// that owns the stream keeps what bob sends, sealed, and ACKs it; when
// that tab goes, the other takes the stream over and keeps what follows;
// a reload while locked loses nothing; after the unlock, every message is
// there once, in bob's order, and nothing is kept any more. A batch kept
// when the lock is turned off stays readable: its rows are opened with
// the rest.
func TestAppLockHoldsWhatComes(t *testing.T) {
	r := startRelay(t)
	p := browser.New(t)
	ctx1, close1 := p.NewTab(t)
	one := r.openTab(t, ctx1)
	one.register("alice")
	_, bob := r.newProfile(t)
	bob.register("bob")
	published(t, r, bob)
	one.openChat("bob")
	one.send("hello")
	bob.openChat("alice")
	bob.waitMessage("hello")
	aliceDevice := one.deviceID()
	one.turnLockOn(lockPassphrase)

	ctx2, close2 := p.NewTab(t)
	two := r.openTab(t, ctx2)
	two.waitFor("the second tab unlocked by the first", `document.getElementById('new-chat-username')`)
	one.do(chromedp.Click(chromedp.ID("lock-now")))
	one.waitThroughReload("the first tab locked", `document.getElementById('unlock-passphrase')`)
	two.waitThroughReload("the second tab locked", `document.getElementById('unlock-passphrase')`)

	tabs := []*tab{one, two}
	bob.send("one while locked")
	waitDB(t, "the locked owner ACKed the first", func() bool { return r.queued(aliceDevice) == 0 })
	for _, tb := range tabs {
		tb.waitFor("the news in each tab", `document.getElementById('lock-news').textContent.includes('New messages')`)
	}

	// The owner goes: the other tab takes the stream over, still locked.
	owner := ownerOf(t, tabs...)
	[]func(){close1, close2}[owner]()
	left := tabs[1-owner]
	left.waitFor("the other tab owns the stream", `import('/sync.js').then((s) => s.isOwner() && s.connection() === 'open')`)
	bob.send("two while locked")
	waitDB(t, "the new owner ACKed the second", func() bool { return r.queued(aliceDevice) == 0 })
	if h := eval[heldRows](left, heldJS); h.N < 2 || h.Sealed != h.N {
		t.Fatalf("kept while locked: %+v, want two batches or more, all sealed", h)
	}

	// A reload while locked keeps what was kept, and goes on.
	left.do(chromedp.Reload())
	left.waitFor("the lock screen again", `document.getElementById('unlock-passphrase')`)
	left.waitFor("the reloaded tab owns the stream", `import('/sync.js').then((s) => s.isOwner() && s.connection() === 'open')`)
	bob.send("three while locked")
	waitDB(t, "the reloaded owner ACKed the third", func() bool { return r.queued(aliceDevice) == 0 })

	left.unlockWith(lockPassphrase)
	left.waitFor("the app unlocked", `document.body.dataset.screen !== 'lock' && !document.getElementById('unlock-passphrase')`)
	left.openChat("bob")
	left.waitMessage("three while locked")
	want := "hello|one while locked|two while locked|three while locked"
	if got := strings.Join(left.messages(), "|"); got != want {
		t.Fatalf("alice's chat after the unlock: %q, want %q", got, want)
	}
	left.waitFor("nothing kept any more", `import('/store.js').then((s) => s.nextHeld()).then((h) => h === null)`)
	bob.send("after the unlock")
	left.waitMessage("after the unlock")

	// A batch still kept when the lock goes is opened with the rest.
	eval[chromedp.Void](left, `import('/store.js').then((s) => s.holdEvents([]))`)
	if h := eval[heldRows](left, heldJS); h.N != 1 || h.Sealed != 1 {
		t.Fatalf("a batch kept with the lock on: %+v", h)
	}
	eval[chromedp.Void](left, `location.hash = '#/settings'`)
	left.waitFor("Settings › App lock", `document.getElementById('lock-off-passphrase')`)
	left.do(chromedp.SendKeys(chromedp.ID("lock-off-passphrase"), lockPassphrase), chromedp.Click(chromedp.ID("lock-off")))
	left.waitFor("the lock off", `document.getElementById('lock-passphrase')`)
	if h := eval[heldRows](left, heldJS); h.N != 1 || h.Sealed != 0 {
		t.Fatalf("the kept batch with the lock off: %+v, want one in the clear", h)
	}
	left.do(chromedp.Reload())
	left.waitFor("Settings without the lock", `document.getElementById('lock-passphrase')`)
	left.waitFor("the kept batch read at the start", `import('/store.js').then((s) => s.nextHeld()).then((h) => h === null)`)
}
