package webclient_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"

	"relay/internal/browser"
)

// lockPassphrase is the passphrase the app lock tests use.
const lockPassphrase = "seven blue herons at dawn"

// lockedProfile opens a browser whose profile directory the test knows,
// so that it can search its files once the browser is closed.
func (r *liveRelay) lockedProfile(t *testing.T) (*browser.Profile, string, *tab) {
	t.Helper()
	dir := t.TempDir()
	p, err := browser.Start(browser.Path(t), dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(p.Close)
	return p, dir, r.openTab(t, p.Ctx)
}

// idbHits lists the files of the profile's IndexedDB (its databases and
// their blobs) that hold mark.
func idbHits(t *testing.T, dir, mark string) []string {
	t.Helper()
	var hits []string
	seen := 0
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.Contains(path, string(filepath.Separator)+"IndexedDB"+string(filepath.Separator)) {
			return err
		}
		seen++
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		if bytes.Contains(b, []byte(mark)) {
			hits = append(hits, strings.TrimPrefix(path, dir))
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if seen == 0 {
		t.Fatalf("no IndexedDB files under %s", dir)
	}
	return hits
}

// rawRowsJS reads every store of the database as it is on disk, without
// the client's lock: for each store, how many rows, how many of them are
// sealed, and a digest of them all.
const rawRowsJS = `(async () => {
  const db = await new Promise((ok, no) => { const r = indexedDB.open('relay'); r.onsuccess = () => ok(r.result); r.onerror = () => no(r.error); });
  const out = {};
  for (const name of ['meta', 'chats', 'messages', 'files', 'held']) {
    const rows = await new Promise((ok) => { const r = db.transaction([name]).objectStore(name).getAll(); r.onsuccess = () => ok(r.result); });
    const sealed = rows.filter((x) => x.sealed instanceof Uint8Array).length;
    const clear = rows.filter((x) => !(x.sealed instanceof Uint8Array) && x.k !== 'lock').map((x) => String(x.k || x.username || x.id || x.ref || x.n));
    const bytes = rows.map((x) => x.sealed ? btoa(String.fromCharCode(...x.sealed)) : JSON.stringify(x)).join('|');
    const d = new Uint8Array(await crypto.subtle.digest('SHA-256', new TextEncoder().encode(bytes)));
    out[name] = { n: rows.length, sealed, clear, digest: btoa(String.fromCharCode(...d)) };
  }
  db.close();
  return out;
})()`

type rawStore struct {
	N      int      `json:"n"`
	Sealed int      `json:"sealed"`
	Clear  []string `json:"clear"`
	Digest string   `json:"digest"`
}

// turnLockOn sets the app lock in Settings with the passphrase, and waits
// until the whole store is sealed.
func (tb *tab) turnLockOn(pass string) {
	tb.t.Helper()
	eval[chromedp.Void](tb, `location.hash = '#/settings'`)
	tb.waitFor("Settings › App lock", `document.getElementById('lock-passphrase')`)
	tb.do(chromedp.SendKeys(chromedp.ID("lock-passphrase"), pass), chromedp.SendKeys(chromedp.ID("lock-again"), pass))
	tb.do(chromedp.Click(chromedp.ID("lock-on")))
	tb.waitFor("the lock on", `document.getElementById('lock-status')`)
}

// unlockWith types the passphrase on the lock screen.
func (tb *tab) unlockWith(pass string) {
	tb.t.Helper()
	tb.waitFor("the lock screen", `document.getElementById('unlock-passphrase')`)
	eval[chromedp.Void](tb, `document.getElementById('unlock-passphrase').value = `+js(pass))
	tb.do(chromedp.Click(chromedp.ID("unlock-btn")))
}

// TestAppLock: Settings › App lock seals what the browser keeps, so that
// the profile's IndexedDB files hold no message written while it is on
// (the control: bob, without the lock, holds the same text); a reload
// shows the lock screen with no name, chat or preview; a wrong
// passphrase says so and changes nothing; the right one opens the chats,
// with what arrived while locked; Turn off opens every row again.
func TestAppLock(t *testing.T) {
	r := startRelay(t)
	mark := marker(t)
	pa, dirA, alice := r.lockedProfile(t)
	pb, dirB, bob := r.lockedProfile(t)
	alice.register("alice")
	bob.register("bob")
	bob.openChat("alice")
	alice.openChat("bob")
	alice.send("before the lock")
	bob.waitMessage("before the lock")

	// The strength hint, and the form's own checks.
	eval[chromedp.Void](alice, `location.hash = '#/settings'`)
	alice.waitFor("Settings › App lock", `document.getElementById('lock-passphrase')`)
	alice.do(chromedp.SendKeys(chromedp.ID("lock-passphrase"), "abcdefgh"))
	alice.waitFor("a weak passphrase", `document.getElementById('lock-strength').dataset.level === 'weak'`)
	alice.do(chromedp.SendKeys(chromedp.ID("lock-again"), "abcdefgX"), chromedp.Click(chromedp.ID("lock-on")))
	alice.waitFor("the two passphrases differ", `document.getElementById('lock-error').textContent.includes('differ')`)
	checkScreen(alice, "lock-settings")
	eval[chromedp.Void](alice, `document.getElementById('lock-passphrase').value = document.getElementById('lock-again').value = ''`)
	aliceDevice := alice.deviceID()
	alice.turnLockOn(lockPassphrase)
	raw := eval[map[string]rawStore](alice, rawRowsJS)
	for name, s := range raw {
		if len(s.Clear) > 0 {
			t.Errorf("%s: rows in the clear after turning the lock on: %v", name, s.Clear)
		}
	}
	if raw["messages"].Sealed == 0 || raw["chats"].Sealed == 0 {
		t.Fatalf("nothing sealed: %+v", raw)
	}
	checkScreen(alice, "lock-on")

	// Messages both ways while the lock is on.
	alice.openChat("bob")
	alice.send("from alice " + mark)
	bob.waitMessage("from alice " + mark)
	bob.send("from bob " + mark)
	alice.waitMessage("from bob " + mark)
	alice.waitMessage("before the lock")

	// A file kept while the lock is on: its bytes are sealed too.
	fpath := filepath.Join(t.TempDir(), "notes.txt")
	content := []byte("notes " + mark + strings.Repeat(" and more words", 100))
	if err := os.WriteFile(fpath, content, 0o644); err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(content)
	alice.do(chromedp.SetUploadFiles(chromedp.ID("attach-input"), []string{fpath}))
	alice.waitFor("the file ready in the tray", `document.querySelectorAll('#attach-tray .tray-item').length === 1 && ![...document.querySelectorAll('#attach-tray .tray-size')].some((e) => e.textContent === 'preparing…')`)
	alice.do(chromedp.SendKeys(chromedp.ID("composer"), "a file"+kb.Enter))
	alice.waitFor("the file sent", `document.querySelector('#messages .msg.out[data-status="sent"] .files')`)
	bob.waitMessage("a file")
	bob.waitFor("bob's file", fileShown)

	// Locked: the lock screen, and nothing of the account on the page.
	alice.do(chromedp.Reload())
	alice.waitFor("the lock screen", `document.getElementById('unlock-passphrase')`)
	if txt := eval[string](alice, `document.body.innerText`); strings.Contains(txt, "bob") || strings.Contains(txt, mark) || strings.Contains(txt, "alice") {
		t.Fatalf("the lock screen shows the account: %q", txt)
	}
	checkScreen(alice, "lock-screen")

	// Sent while alice is locked: her locked page keeps it sealed and
	// ACKs it, so the relay's queue empties, and says only that something
	// came.
	bob.send("while locked " + mark)
	bob.waitFor("sent", `[...document.querySelectorAll('#messages .msg.out')].some(e => e.dataset.status === 'sent' && e.textContent.includes('while locked'))`)
	waitDB(t, "alice's locked page ACKed what came", func() bool { return r.queued(aliceDevice) == 0 })
	alice.waitFor("the lock screen's news", `document.getElementById('lock-news').textContent.includes('New messages')`)
	if held := eval[map[string]rawStore](alice, rawRowsJS)["held"]; held.N == 0 || held.Sealed != held.N {
		t.Fatalf("what came while locked is not kept sealed: %+v", held)
	}
	if txt := eval[string](alice, `document.body.innerText`); strings.Contains(txt, "bob") || strings.Contains(txt, mark) {
		t.Fatalf("the lock screen shows what came: %q", txt)
	}
	checkScreen(alice, "lock-screen-news")
	// The news does not move the Unlock button under a pointer on its way.
	if moved := eval[float64](alice, `(() => {
	  const n = document.getElementById('lock-news'), top = () => document.getElementById('unlock-btn').getBoundingClientRect().top;
	  const text = n.textContent, with_ = top();
	  n.textContent = '';
	  const without = top();
	  n.textContent = text;
	  return with_ - without;
	})()`); moved != 0 {
		t.Fatalf("the news moves the Unlock button by %v px", moved)
	}

	// A wrong passphrase: said, and nothing stored changes (but for what
	// may still come while locked).
	before := eval[map[string]rawStore](alice, rawRowsJS)
	alice.unlockWith("not the passphrase")
	alice.waitFor("the wrong passphrase", `document.getElementById('unlock-error').textContent.includes('not the passphrase')`)
	after := eval[map[string]rawStore](alice, rawRowsJS)
	for name := range before {
		if name != "held" && !reflect.DeepEqual(before[name], after[name]) {
			t.Errorf("%s changed with a wrong passphrase: %+v, then %+v", name, before[name], after[name])
		}
	}
	if !eval[bool](alice, `!!document.getElementById('unlock-passphrase')`) {
		t.Fatal("a wrong passphrase opened the chats")
	}

	alice.unlockWith(lockPassphrase)
	alice.waitFor("the chat list", `document.getElementById('new-chat-username')`)
	alice.openChat("bob")
	for _, m := range []string{"before the lock", "from alice " + mark, "from bob " + mark, "while locked " + mark, "a file"} {
		alice.waitMessage(m)
	}
	alice.waitFor("what was kept while locked read and deleted", `import('/store.js').then((s) => s.nextHeld()).then((h) => h === null)`)
	if got := eval[kept](alice, keptFile("bob", "file")); got.SHA256 != hex.EncodeToString(sum[:]) {
		t.Fatalf("alice keeps a file of SHA-256 %s, sent %x", got.SHA256, sum)
	}

	// Nothing written while the lock was on is in alice's files; bob's
	// hold it (the control).
	pa.Close()
	pb.Close()
	if hits := idbHits(t, dirA, mark); len(hits) > 0 {
		t.Errorf("alice's IndexedDB files hold the text with the lock on: %v", hits)
	}
	if hits := idbHits(t, dirB, mark); len(hits) == 0 {
		t.Errorf("the control: bob's IndexedDB files, without the lock, do not hold the text")
	}
}

// stopLockJS turns the lock on (or off) from the page and stops it after
// its first step, as a reload in the middle would.
func stopLockJS(call string) string {
	return `(async () => {
  const s = await import('/store.js');
  try {
    await s.` + call + `;
  } catch (e) {
    if (e.message !== 'stopped by the test') throw e;
    return s.lockState().converting;
  }
  return 'not stopped';
})()`
}

// clearRowJS writes a copy of the chat's last message, as "six" and in the
// clear, straight into the database, and returns how many messages the
// client then reads in the chat.
const clearRowJS = `(async () => {
  const s = await import('/store.js');
  const ms = await s.getMessages('bob');
  const last = ms[ms.length - 1];
  const row = { ...last, id: last.id.slice(0, -1) + (last.id.endsWith('Z') ? 'Y' : 'Z'), text: 'six', sort: last.sort + 1 };
  const db = await new Promise((ok, no) => { const r = indexedDB.open('relay'); r.onsuccess = () => ok(r.result); r.onerror = () => no(r.error); });
  await new Promise((ok, no) => { const t = db.transaction(['messages'], 'readwrite'); t.objectStore('messages').put(row); t.oncomplete = ok; t.onerror = () => no(t.error); });
  db.close();
  return (await s.getMessages('bob')).filter((m) => m.text).length;
})()`

// TestAppLockResumes: turning the lock on, stopped after its first step,
// leaves rows of both forms, which the client reads and writes (a message
// each way); a reload shows the lock screen, and unlocking finishes the
// conversion. Turning it off, stopped likewise, finishes after the next
// unlock, and then no lock screen is shown. Turning it off in Settings
// with a wrong passphrase keeps it on.
func TestAppLockResumes(t *testing.T) {
	_, alice, bob := aliceAndBob(t)
	bob.openChat("alice")
	alice.openChat("bob")
	for _, m := range []string{"one", "two", "three"} {
		alice.send(m)
		bob.waitMessage(m)
	}

	got := eval[string](alice, stopLockJS(`enableLock(`+js(lockPassphrase)+`, 5, (phase) => { if (phase === 'sealing') throw new Error('stopped by the test'); })`))
	if got != "sealing" {
		t.Fatalf("the lock's conversion after one step: %q, want sealing", got)
	}
	raw := eval[map[string]rawStore](alice, rawRowsJS)
	if len(raw["meta"].Clear) != 0 {
		t.Fatalf("after one step, meta is not sealed: %+v", raw)
	}
	// A row the conversion has not reached yet, whatever the client
	// rewrote meanwhile: a message in the clear, next to sealed ones,
	// which the client reads with them.
	if n := eval[int](alice, clearRowJS); n != 4 {
		t.Fatalf("the chat reads %d messages with one in the clear, want 4", n)
	}
	// Both forms at once: the client goes on.
	alice.send("four")
	bob.waitMessage("four")
	bob.send("five")
	alice.waitMessage("five")

	alice.do(chromedp.Reload())
	alice.unlockWith(lockPassphrase)
	alice.waitFor("the chat list", `document.getElementById('new-chat-username')`)
	raw = eval[map[string]rawStore](alice, rawRowsJS)
	for name, s := range raw {
		if len(s.Clear) > 0 {
			t.Errorf("%s: rows in the clear once the conversion resumed: %v", name, s.Clear)
		}
	}
	alice.openChat("bob")
	for _, m := range []string{"one", "two", "three", "four", "five", "six"} {
		alice.waitMessage(m)
	}

	got = eval[string](alice, stopLockJS(`disableLock(`+js(lockPassphrase)+`, (phase) => { if (phase === 'opening') throw new Error('stopped by the test'); })`))
	if got != "opening" {
		t.Fatalf("turning the lock off after one step: %q, want opening", got)
	}
	alice.do(chromedp.Reload())
	alice.unlockWith(lockPassphrase)
	alice.waitFor("the chat list", `document.getElementById('new-chat-username')`)
	raw = eval[map[string]rawStore](alice, rawRowsJS)
	for name, s := range raw {
		if s.Sealed > 0 {
			t.Errorf("%s: %d rows still sealed with the lock off", name, s.Sealed)
		}
	}
	alice.do(chromedp.Reload())
	alice.waitFor("the chat list without the lock screen", `document.getElementById('new-chat-username')`)
	alice.openChat("bob")
	alice.waitMessage("five")

	// On again, then off in Settings: a wrong passphrase keeps it on.
	alice.turnLockOn(lockPassphrase)
	alice.do(chromedp.SendKeys(chromedp.ID("lock-off-passphrase"), "not the passphrase"), chromedp.Click(chromedp.ID("lock-off")))
	alice.waitFor("the wrong passphrase", `document.getElementById('lock-error').textContent.includes('not the passphrase')`)
	if eval[string](alice, `import('/store.js').then((s) => s.lockState().state)`) != "unlocked" {
		t.Fatal("a wrong passphrase turned the lock off")
	}
	eval[chromedp.Void](alice, `document.getElementById('lock-off-passphrase').value = `+js(lockPassphrase))
	alice.do(chromedp.Click(chromedp.ID("lock-off")))
	alice.waitFor("the lock off", `document.getElementById('lock-passphrase')`)
	raw = eval[map[string]rawStore](alice, rawRowsJS)
	for name, s := range raw {
		if s.Sealed > 0 {
			t.Errorf("%s: %d rows still sealed after Turn off", name, s.Sealed)
		}
	}

	// A row written in the clear behind the conversion (as by a tab that
	// had not heard of it yet) is sealed by its last pass.
	if got := eval[string](alice, behindJS); got != "on" {
		t.Fatalf("the lock after a row written behind it: %q", got)
	}
	raw = eval[map[string]rawStore](alice, rawRowsJS)
	for name, s := range raw {
		if len(s.Clear) > 0 {
			t.Errorf("%s: rows left in the clear behind the conversion: %v", name, s.Clear)
		}
	}

	// A tab that was not told of the lock (here: told it is off) writes
	// the form the record read in its transaction says.
	eval[chromedp.Void](alice, `import('/storedb.js').then((d) => d.setLockRecord(null)).then(() => import('/sync.js')).then((s) => s.setReadReceipts(false))`)
	raw = eval[map[string]rawStore](alice, rawRowsJS)
	if len(raw["meta"].Clear) > 0 {
		t.Errorf("a tab that thought the lock off wrote in the clear: %v", raw["meta"].Clear)
	}
	if eval[string](alice, `import('/store.js').then((s) => s.lockState().state)`) != "unlocked" {
		t.Error("the tab did not take in the lock's record from its transaction")
	}
}

// behindJS turns the lock on and, once its first step (meta) is done,
// writes a meta row in the clear, in a transaction made at once on a
// connection already open, so that it commits before the next step.
const behindJS = `(async () => {
  const s = await import('/store.js');
  const db = await new Promise((ok, no) => { const r = indexedDB.open('relay'); r.onsuccess = () => ok(r.result); r.onerror = () => no(r.error); });
  let wrote = false;
  await s.enableLock(` + "`" + `seven blue herons at dawn` + "`" + `, 5, (phase) => {
    if (phase !== 'sealing' || wrote) return;
    wrote = true;
    db.transaction(['meta'], 'readwrite').objectStore('meta').put({ k: 'written behind', v: 'in the clear' });
  });
  db.close();
  return s.lockState().state === 'unlocked' && !s.lockState().converting ? 'on' : JSON.stringify(s.lockState());
})()`

// waitThroughReload is waitFor for a page that reloads by itself (a lock):
// a poll cut short by the reload starts again on the new page.
func (tb *tab) waitThroughReload(what, cond string) {
	tb.t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		ctx, cancel := context.WithTimeout(tb.ctx, 5*time.Second)
		_, err := chromedp.Run(ctx, chromedp.Poll[chromedp.Void](cond, chromedp.WithPollingInterval(50*time.Millisecond), chromedp.WithPollingTimeout(4*time.Second)))
		cancel()
		if err == nil {
			return
		}
		if time.Now().After(deadline) {
			tb.waitFor(what, cond) // fails with the page's state
			return
		}
	}
}

// TestAppLockAcrossTabs: a tab opened while another is unlocked opens
// unlocked; Lock now in one tab locks both; unlocking one unlocks the
// other. The auto-lock counts use in every tab: input in the second tab
// keeps the first from locking, and once neither was used for the time
// chosen, the first locks both. (Each tab's clock is the test's.) The
// lock screen's way out of a forgotten passphrase wipes the profile.
func TestAppLockAcrossTabs(t *testing.T) {
	r := startRelay(t)
	p := browser.New(t)
	testClock(t, p.Ctx)
	one := r.openTab(t, p.Ctx)
	one.register("alice")
	one.turnLockOn(lockPassphrase)
	// One minute.
	eval[chromedp.Void](one, `(() => { const s = document.getElementById('lock-after'); s.value = '1'; s.dispatchEvent(new Event('change')); })()`)
	one.waitFor("one minute kept", `import('/store.js').then((s) => s.lockState().autoLock === 1)`)

	ctx2, _ := p.NewTab(t)
	testClock(t, ctx2)
	two := r.openTab(t, ctx2)
	two.waitFor("the second tab unlocked by the first", `document.getElementById('new-chat-username')`)

	one.do(chromedp.Click(chromedp.ID("lock-now")))
	one.waitThroughReload("the first tab locked", `document.getElementById('unlock-passphrase')`)
	two.waitThroughReload("the second tab locked", `document.getElementById('unlock-passphrase')`)
	two.unlockWith(lockPassphrase)
	two.waitFor("the second tab unlocked", `document.getElementById('new-chat-username')`)
	one.waitThroughReload("the first tab unlocked with it", `document.getElementById('lock-status')`)

	// Input in the second tab 40 s on: the first, 80 s on, was left
	// unused for 40 s only (without that input it would lock: 80 s).
	two.shiftClock(40 * time.Second)
	two.do(chromedp.SendKeys(chromedp.ID("new-chat-username"), "b"))
	one.shiftClock(80 * time.Second)
	// A lock would have forgotten the key at once, before its reload.
	if eval[string](one, `import('/store.js').then((s) => s.lockState().state)`) != "unlocked" || !eval[bool](one, `!!document.getElementById('lock-status')`) {
		t.Fatal("the first tab locked while the second was in use")
	}
	// Another 40 s with no input anywhere: both lock.
	one.shiftClock(40 * time.Second)
	one.waitThroughReload("the first tab locked by itself", `document.getElementById('unlock-passphrase')`)
	two.waitThroughReload("the second tab locked with it", `document.getElementById('unlock-passphrase')`)

	// A forgotten passphrase: Wipe this browser's data, confirmed, leaves
	// the profile without its database, on Log in.
	one.do(chromedp.Click(chromedp.ID("lock-wipe")))
	one.waitFor("the wipe dialog", `document.getElementById('wipe-dialog') && document.getElementById('wipe-dialog').open`)
	checkScreen(one, "lock-wipe")
	one.do(chromedp.Click(chromedp.ID("wipe-confirm")))
	one.waitThroughReload("Log in after the wipe", `document.getElementById('tab-login') && document.getElementById('tab-login').getAttribute('aria-selected') === 'true'`)
	if eval[bool](one, `indexedDB.databases().then((ds) => ds.some((d) => d.name === 'relay'))`) {
		t.Fatal("the database is still there after the wipe")
	}
}
