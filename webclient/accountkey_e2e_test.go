package webclient_test

import (
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
)

// TestResetAccountKey: alice lost her only device and has no recovery key.
// A new browser logs in, waits to be linked, and resets the account key
// from there: a wrong password is refused and changes nothing; the right
// one, confirmed in a dialog, makes this browser her only device. The old
// device is revoked, bob sees the key-change warning, and the two chat.
func TestResetAccountKey(t *testing.T) {
	r, oldLaptop, bob := aliceAndBob(t)
	bob.openChat("alice")
	bob.send("before the reset")
	oldLaptop.openChat("bob")
	oldLaptop.waitMessage("before the reset")

	_, fresh := r.newProfile(t)
	fresh.login("alice")
	fresh.waitFor("the reset path", `document.getElementById('reset-open')`)
	// The connection bar goes once the stream is open; clicking before
	// could land on a page that moved up under the pointer.
	fresh.waitFor("the stream", `document.getElementById('conn-bar').hidden`)
	fresh.do(chromedp.Click(chromedp.ID("reset-open")))
	fresh.waitFor("the reset form", `document.getElementById('reset-password').checkVisibility()`)
	fitsWidths(fresh, "reset")

	// A wrong password: the dialog is confirmed, the relay refuses, and
	// the error says what to do.
	fresh.do(chromedp.SetValue(chromedp.ID("reset-password"), "not the password"), chromedp.Click(chromedp.ID("reset-btn")))
	fresh.waitFor("the confirmation dialog", `document.querySelector('dialog[open]')`)
	if text := eval[string](fresh, `document.querySelector('dialog[open]').textContent`); !strings.Contains(text, "old messages") || !strings.Contains(text, "every other device") || !strings.Contains(text, "warning") {
		t.Fatalf("the dialog does not say what a reset loses: %q", text)
	}
	fitsWidths(fresh, "reset-dialog")
	fresh.do(chromedp.Click(chromedp.ID("dialog-confirm")))
	fresh.waitFor("the wrong-password error", `document.getElementById('reset-error').textContent.includes('password is wrong')`)
	if n := r.count(`SELECT count(*) FROM devices WHERE revoked_at IS NULL`); n != 3 {
		t.Fatalf("%d live devices after a refused reset, want 3", n)
	}

	// Cancelling the dialog changes nothing either.
	fresh.do(chromedp.SetValue(chromedp.ID("reset-password"), password), chromedp.Click(chromedp.ID("reset-btn")))
	fresh.waitFor("the confirmation dialog", `document.querySelector('dialog[open]')`)
	fresh.do(chromedp.Click(chromedp.ID("dialog-cancel")))
	fresh.waitFor("the dialog to close", `!document.querySelector('dialog')`)
	if !eval[bool](fresh, `!!document.getElementById('waiting')`) {
		t.Fatal("a cancelled reset left the waiting screen")
	}

	fresh.do(chromedp.Click(chromedp.ID("reset-btn")))
	fresh.waitFor("the confirmation dialog", `document.querySelector('dialog[open]')`)
	fresh.do(chromedp.Click(chromedp.ID("dialog-confirm")))
	fresh.waitFor("the chat list after the reset", `document.getElementById('new-chat-username') && document.getElementById('reset-notice')`)
	if href := eval[string](fresh, `document.getElementById('reset-settings').getAttribute('href')`); href != "#/settings" {
		t.Fatalf("the reset notice links to %q, want #/settings", href)
	}
	fitsWidths(fresh, "reset-done")
	oldLaptop.waitFor("the old device to be revoked", `document.getElementById('conn-bar').dataset.state === 'revoked'`)

	// Bob is warned, and the new device and bob chat both ways.
	eval[chromedp.Void](bob, `location.hash = '#/chats'`)
	bob.openChat("alice")
	bob.waitFor("the key-change warning", `document.getElementById('key-warning')`)
	fresh.openChat("bob")
	fresh.send("after the reset")
	bob.waitMessage("after the reset")
	bob.send("welcome back")
	fresh.waitMessage("welcome back")
	if fresh.hasMessage("before the reset") {
		t.Fatal("the new device shows a message from before the reset")
	}
}

// TestRotateAccountKey: alice has a laptop, a phone and a tablet, and lost
// the tablet. From the laptop she makes a new account key, dropping the
// tablet: the tablet is revoked, the phone adopts the new key by itself and
// keeps its history, bob sees the key-change warning, and bob, the phone
// and the laptop still chat. In bob's group, the laptop's and the phone's
// leaves end certified by the new key, and the tablet's is gone.
func TestRotateAccountKey(t *testing.T) {
	r, laptop, bob := aliceAndBob(t)
	phone := linkedDevice(t, r, laptop, "alice")
	tablet := linkedDevice(t, r, laptop, "alice")
	tabletID := tablet.deviceID()
	bob.openChat("alice")
	bob.send("before the rotation")
	phone.openChat("bob")
	phone.waitMessage("before the rotation")
	before := map[string]string{}
	for _, dev := range []string{laptop.deviceID(), phone.deviceID()} {
		bob.waitFor("alice's device "+dev+" in bob's group", leafJS("alice", "alice", dev)+`.then((l) => l !== '')`)
		before[dev] = eval[string](bob, leafJS("alice", "alice", dev))
	}

	eval[chromedp.Void](laptop, `location.hash = '#/devices'`)
	laptop.waitFor("the rotate path", `document.getElementById('rotate-open') && document.getElementById('drop-`+tabletID+`')`)
	// Clicked in the page: the offer of a history transfer to the new
	// devices may appear above at any moment and move what a click aims at.
	eval[chromedp.Void](laptop, `document.getElementById('rotate-open').click()`)
	laptop.waitFor("the rotate form", `document.getElementById('rotate-password').checkVisibility()`)
	fitsWidths(laptop, "rotate")
	eval[chromedp.Void](laptop, `document.getElementById('drop-`+tabletID+`').click()`)
	laptop.do(chromedp.SetValue(chromedp.ID("rotate-password"), password))
	eval[chromedp.Void](laptop, `document.getElementById('rotate-btn').click()`)
	laptop.waitFor("the confirmation dialog", `document.querySelector('dialog[open]')`)
	fitsWidths(laptop, "rotate-dialog")
	laptop.do(chromedp.Click(chromedp.ID("dialog-confirm")))
	laptop.waitFor("the rotation to be done", `document.getElementById('rotate-settings')`)
	fitsWidths(laptop, "rotate-done")

	tablet.waitFor("the tablet to be revoked", `document.getElementById('conn-bar').dataset.state === 'revoked'`)
	const heldKey = `(async () => { const a = (await import('/account.js')).current(); return btoa(String.fromCharCode(...a.publicKey)); })()`
	newKey := eval[string](laptop, heldKey)
	phone.waitFor("the phone to adopt the new key", heldKey+`.then(k => k === `+js(newKey)+`)`)
	if n := r.count(`SELECT count(*) FROM accounts WHERE recovery_blob IS NOT NULL`); n != 0 {
		t.Fatalf("%d recovery blobs after a rotation, want 0", n)
	}

	// Old history stays readable on the phone; bob is warned; all chat.
	eval[chromedp.Void](phone, `location.hash = '#/chats'`)
	phone.openChat("bob")
	phone.waitMessage("before the rotation")
	eval[chromedp.Void](bob, `location.hash = '#/chats'`)
	bob.openChat("alice")
	bob.waitFor("the key-change warning", `document.getElementById('key-warning')`)
	phone.send("from the phone after the rotation")
	bob.waitMessage("from the phone after the rotation")
	bob.send("to the new key")
	phone.waitMessage("to the new key")
	laptop.openChat("bob")
	laptop.waitMessage("to the new key")
	laptop.waitMessage("from the phone after the rotation")
	recertified(t, bob, before)
}

// TestFirstKeyShowsInTheOpenChat: a chat opened before the contact's key
// was ever fetched shows "Mark as verified" and the safety code once the
// key is recorded, with nothing else happening in the chat.
func TestFirstKeyShowsInTheOpenChat(t *testing.T) {
	_, alice, _ := aliceAndBob(t)
	alice.openChat("bob")
	alice.do(chromedp.Click(chromedp.ID("safety-btn")))
	alice.waitKeyRecorded("bob")
	alice.waitFor("Mark as verified and the code in the open panel", `document.getElementById('verify-btn') && document.getElementById('verify-btn').textContent === 'Mark as verified' && /^\d{5}( \d{5}){5}$/.test(document.getElementById('safety-code').textContent)`)
}
