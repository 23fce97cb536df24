package webclient_test

import (
	"bytes"
	"context"
	"encoding/base64"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"
)

// saveRecoveryKey creates a recovery key on the Settings screen of a linked
// tab and confirms it (confirmRecoveryKey).
func saveRecoveryKey(tb *tab) string {
	tb.t.Helper()
	eval[chromedp.Void](tb, `location.hash = '#/settings'`)
	tb.waitFor("the recovery key button", `document.getElementById('recovery-create')`)
	tb.do(chromedp.Click(chromedp.ID("recovery-create")))
	return confirmRecoveryKey(tb)
}

// confirmRecoveryKey reads the recovery key just made from the page and
// confirms it by typing back the group the label asks for, which must be
// what the label says it is. A wrong group is refused first. Once
// confirmed, the page says so in words, with the focus on them.
func confirmRecoveryKey(tb *tab) string {
	tb.t.Helper()
	tb.waitFor("the new recovery key", `document.getElementById('recovery-key-text')`)
	text := eval[string](tb, `document.getElementById('recovery-key-text').textContent`)
	fitsWidths(tb, "recovery-key")
	groups := strings.Split(text, "-")
	if len(groups) != 9 || len(groups[7]) != 4 || len(groups[8]) != 1 {
		tb.t.Fatalf("the recovery key is not 8 groups of 4 and a check character: %d groups", len(groups))
	}
	// Group 8 is the last of four characters only because one single
	// character follows it: the label must say both.
	label := eval[string](tb, `document.querySelector('label[for=recovery-confirm]').textContent`)
	if !strings.Contains(label, "group 8") || !strings.Contains(label, "last group of four") || !strings.Contains(label, "before the single one at the end") {
		tb.t.Fatalf("the confirmation asks %q: not what group 8 is", label)
	}
	tb.do(chromedp.SendKeys(chromedp.ID("recovery-confirm"), "ZZZZ"+kb.Enter))
	tb.waitFor("the refusal of a wrong group", `document.getElementById('recovery-msg').textContent.includes('not group 8')`)
	if !eval[bool](tb, `!!document.getElementById('recovery-key-text')`) {
		tb.t.Fatal("a wrong group closed the recovery key")
	}
	tb.do(chromedp.SetValue(chromedp.ID("recovery-confirm"), strings.ToLower(groups[7])), chromedp.Click(chromedp.ID("recovery-done")))
	tb.waitFor("the recovery key status", `document.getElementById('recovery-status') && document.getElementById('recovery-status').textContent.includes('is set') && !document.getElementById('recovery-key-text')`)
	tb.waitFor("the confirmation in words, focused", `(() => { const s = document.getElementById('recovery-saved'); return !!s && s.textContent.startsWith('Recovery key saved') && document.activeElement === s; })()`)
	return text
}

// typeRecoveryKey types a key into the restore form of a tab waiting to be
// linked and presses Restore.
func typeRecoveryKey(tb *tab, key string) {
	tb.t.Helper()
	tb.do(chromedp.SetValue(chromedp.ID("restore-key"), key), chromedp.Click(chromedp.ID("restore-btn")))
}

// TestRecoveryKeyRestoresTheAccount: alice has one device. Log out warns
// that it is the last one holding the account key and offers the recovery
// key first; she saves it and logs out (with a key saved, no new one is
// offered; the device is revoked on the relay), logs in on a fresh
// browser, restores with the key, is told that what bob sent meanwhile
// may be missing (sealed before the restored device was in their chat's
// MLS group) and answers him. Then the audit searches the whole cluster, WAL included,
// for the recovery key and the account's private scalar and finds
// neither; a positive control finds both once stored in plain.
func TestRecoveryKeyRestoresTheAccount(t *testing.T) {
	conn, dir := cluster(t)
	r, alice, bob := aliceAndBob(t)
	ctx := context.Background()
	alice.waitFor("the recovery key offer after registration", `document.getElementById('recovery-offer')`)
	// The chat is in an MLS group from its first message: with no key
	// package of bob's yet, alice would seal it the old way, and so would
	// bob's answer below, which the restored device would then open.
	published(t, r, bob)
	alice.openChat("bob")
	alice.send("before the logout")
	bob.openChat("alice")
	bob.waitMessage("before the logout")
	oldDevice := alice.deviceID()
	d := eval[string](alice, `(async () => { const a = await import('/account.js'); const c = await import('/crypto.js'); return c.b64encode(await c.exportPrivateScalar(a.current().privateKey)); })()`)
	rawD, err := base64.StdEncoding.DecodeString(d)
	if err != nil || len(rawD) != 32 {
		t.Fatalf("the account's private scalar: %d bytes, %v", len(rawD), err)
	}

	// The first Log out warns and offers the recovery key.
	alice.do(chromedp.Click(chromedp.ID("logout")))
	alice.waitFor("the last-device warning", `document.getElementById('leave-dialog') && document.getElementById('leave-dialog').open && document.getElementById('last-device-warning')`)
	if !eval[bool](alice, `document.getElementById('leave-dialog').textContent.includes("deletes this browser's history")`) {
		t.Fatal("the logout dialog does not say that this browser's history is deleted")
	}
	fitsWidths(alice, "logout-last-device")
	// "Create a recovery key first" makes one at once.
	alice.do(chromedp.Click(chromedp.ID("leave-recovery")))
	key := confirmRecoveryKey(alice)

	alice.do(chromedp.Click(chromedp.ID("logout")))
	alice.waitFor("the warning with the saved key", `document.getElementById('last-device-warning') && document.getElementById('last-device-warning').textContent.includes('You saved a recovery key')`)
	// With a key saved, making one first is not offered: it would replace
	// the one just saved.
	if eval[bool](alice, `!!document.getElementById('leave-recovery')`) {
		t.Fatal("the last-device dialog offers to create a recovery key to an account that has one")
	}
	alice.do(chromedp.Click(chromedp.ID("leave-confirm")))
	alice.waitFor("the auth form after logout", `document.getElementById('auth-username')`)
	if n := r.count(`SELECT count(*) FROM devices WHERE id = $1 AND revoked_at IS NULL`, oldDevice); n != 0 {
		t.Fatal("the logged-out device is still live on the relay")
	}

	_, fresh := r.newProfile(t)
	fresh.login("alice")
	// Sent to the device waiting to be linked: it is read once restored.
	bob.send("while alice was away")
	bob.waitFor("bob's message accepted by the relay", `(() => { const m = `+msgRow("while alice was away")+`; return !!m && m.dataset.status === 'sent'; })()`)
	fresh.waitFor("the restore form", `document.getElementById('restore-key')`)
	fitsWidths(fresh, "restore")
	typeRecoveryKey(fresh, strings.ToLower(strings.ReplaceAll(key, "-", " ")))
	fresh.waitFor("the restored chat list", `document.getElementById('new-chat-username')`)
	if n := r.count(`SELECT count(*) FROM devices WHERE id = $1 AND linked AND revoked_at IS NULL`, fresh.deviceID()); n != 1 {
		t.Fatal("the restored device is not linked on the relay")
	}
	fresh.openChat("bob")
	// Bob sealed it in their chat's MLS group, for the members it had: not
	// the restored device, which rejoins the group from its GroupInfo by
	// itself, and the chat says that messages in between may be missing
	// (docs/crypto.md, "Rejoining a group"), after waiting 10 seconds for
	// a welcome that could add it.
	waitPastBackoff(fresh, "the notice that the restored device rejoined", `document.getElementById('rejoined-notice')`)
	if fresh.hasMessage("while alice was away") {
		t.Fatal("the restored device opened what was sealed before it was in the chat's group")
	}
	fresh.send("back with my recovery key")
	bob.waitMessage("back with my recovery key")

	needles := []string{key, string(rawD)}
	if hits := auditHits(t, conn, dir, needles...); len(hits) != 0 {
		t.Fatalf("the recovery key or the account key is on the relay's disk: %d hits", len(hits))
	}
	// Positive control: the same search finds each needle once stored in
	// plain.
	if _, err := r.Pool.Exec(ctx, `CREATE TABLE scratch (t text, b bytea)`); err != nil {
		t.Fatal(err)
	}
	if _, err := r.Pool.Exec(ctx, `INSERT INTO scratch VALUES ($1, $2)`, "control "+key, rawD); err != nil {
		t.Fatal(err)
	}
	for _, n := range needles {
		if hits := auditHits(t, conn, dir, n); len(hits) == 0 {
			t.Fatal("the audit did not find a needle stored in plain: it cannot prove anything")
		}
	}
}

// TestWrongRecoveryKeyChangesNothing: on a browser waiting to be linked, a
// typo and a well-formed key of no account are refused, each with what to
// do; the device stays unlinked here and on the relay, and the blob is
// unchanged. Then the right key works.
func TestWrongRecoveryKeyChangesNothing(t *testing.T) {
	r := startRelay(t)
	_, alice := r.newProfile(t)
	alice.register("alice")
	alice.waitFor("the recovery key offer", `document.getElementById('recovery-later')`)
	alice.do(chromedp.Click(chromedp.ID("recovery-later")))
	alice.waitFor("the reminder", `document.getElementById('recovery-reminder')`)
	key := saveRecoveryKey(alice)
	blob := func() []byte {
		var b []byte
		if err := r.Pool.QueryRow(context.Background(), `SELECT recovery_blob FROM accounts WHERE username = 'alice'`).Scan(&b); err != nil {
			t.Fatal(err)
		}
		return b
	}
	before := blob()

	_, fresh := r.newProfile(t)
	fresh.login("alice")
	other := eval[string](fresh, `import('/crypto.js').then(async c => (await c.newRecoveryKey()).text)`)
	for _, tc := range []struct{ name, typed, want string }{
		{"typo", key[:len(key)-1], "This is not a recovery key: check for a typo."},
		{"other key", other, "This recovery key does not fit this account."},
	} {
		typeRecoveryKey(fresh, tc.typed)
		fresh.waitFor("the "+tc.name+" refused", `document.getElementById('restore-error').textContent.startsWith(`+js(tc.want)+`) && !document.getElementById('restore-btn').disabled`)
		if eval[bool](fresh, `(async () => { const s = await import('/sync.js'); const st = await import('/store.js'); const a = await st.getMeta('account'); return s.isLinked() || !!a.privateKey || !document.getElementById('link-code'); })()`) {
			t.Fatalf("%s: the browser holds an account key or left the waiting screen", tc.name)
		}
		if n := r.count(`SELECT count(*) FROM devices WHERE id = $1 AND linked`, fresh.deviceID()); n != 0 {
			t.Fatalf("%s: the relay marked the device linked", tc.name)
		}
		if !bytes.Equal(blob(), before) {
			t.Fatalf("%s: the recovery blob changed", tc.name)
		}
	}
	fresh.screenshot("restore-wrong-key")
	typeRecoveryKey(fresh, key)
	fresh.waitFor("the restored chat list", `document.getElementById('new-chat-username')`)
}

// TestRemovingTheLastDeviceWarns: "Remove this device" on alice's only
// device names it and warns that the account is lost without the
// recovery key; Cancel changes nothing. Once a second device is linked,
// the same prompt has no such warning, and confirming logs this browser
// out and revokes it.
func TestRemovingTheLastDeviceWarns(t *testing.T) {
	r := startRelay(t)
	_, laptop := r.newProfile(t)
	laptop.register("alice")
	self := laptop.deviceID()
	removeSelf := func() {
		t.Helper()
		eval[chromedp.Void](laptop, `location.hash = '#/devices'`)
		btn := `.device[data-id=` + js(self) + `] .revoke-btn`
		laptop.waitFor("this device in the list", `document.querySelector(`+js(btn)+`)`)
		laptop.do(chromedp.Click(chromedp.CSS(btn)))
		laptop.waitFor("the removal dialog", `document.getElementById('leave-dialog') && document.getElementById('leave-dialog').open`)
	}
	removeSelf()
	if !eval[bool](laptop, `(() => { const d = document.getElementById('leave-dialog'); return d.textContent.includes('Remove Chrome') && d.textContent.includes("history and keys are deleted") && !!document.getElementById('last-device-warning'); })()`) {
		t.Fatal("removing the only device neither names it nor warns")
	}
	fitsWidths(laptop, "remove-last-device")
	laptop.do(chromedp.KeyEvent(kb.Escape))
	laptop.waitFor("the dialog closed", `!document.getElementById('leave-dialog')`)
	if n := r.count(`SELECT count(*) FROM devices WHERE id = $1 AND revoked_at IS NULL`, self); n != 1 || !eval[bool](laptop, `import('/sync.js').then(s => s.isLinked())`) {
		t.Fatal("cancelling the removal changed something")
	}

	eval[chromedp.Void](laptop, `location.hash = '#/chats'`)
	phone := linkedDevice(t, r, laptop, "alice")
	removeSelf()
	if eval[bool](laptop, `!!document.getElementById('last-device-warning')`) {
		t.Fatal("the last-device warning shows while another device holds the key")
	}
	laptop.do(chromedp.Click(chromedp.ID("leave-confirm")))
	laptop.waitFor("the auth form", `document.getElementById('auth-username')`)
	if n := r.count(`SELECT count(*) FROM devices WHERE id = $1 AND revoked_at IS NULL`, self); n != 0 {
		t.Fatal("the removed device is still live")
	}
	phone.openChat("alice")
}
