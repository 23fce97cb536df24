package webclient_test

import (
	"context"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"relay/relayclient"
)

// openLogoutDialog presses Log out and returns what the dialog says, once
// the relay has said whether this is the last device.
func openLogoutDialog(tb *tab) string {
	tb.t.Helper()
	tb.waitFor("the header to stand still", headerSettled)
	tb.do(chromedp.Click(chromedp.ID("logout")))
	tb.waitFor("the logout dialog", `document.getElementById('leave-dialog') && document.getElementById('leave-dialog').open`)
	return eval[string](tb, `document.getElementById('leave-dialog').textContent`)
}

func cancelLogout(tb *tab) {
	tb.t.Helper()
	tb.do(chromedp.Click(chromedp.CSS("#leave-dialog .dialog-cancel")))
	tb.waitFor("the dialog closed", `!document.querySelector('dialog')`)
}

// TestLogoutSaysWhatIsLost: the logout dialog says what this account's
// situation loses and what survives. Alice's only device, with no
// recovery key: the history here and the account itself are lost, only
// the username stays, for a reset. With a recovery key (made from the
// offer after registering, which starts making it at once): the history
// here is lost, the account survives. With a second device linked: the
// account and the history on the other device stay. Neither of the first
// two speaks of other devices: alice has none.
func TestLogoutSaysWhatIsLost(t *testing.T) {
	r := startRelay(t)
	_, laptop := r.newProfile(t)
	laptop.register("alice")
	laptop.waitFor("the recovery key offer", `document.getElementById('recovery-offer-go')`)

	text := openLogoutDialog(laptop)
	warning := eval[string](laptop, `(document.getElementById('last-device-warning') || {}).textContent || ''`)
	for _, want := range []string{"This is your only device", "lost for good", "no recovery key", "the account is lost too", "reset the account key"} {
		if !strings.Contains(warning, want) {
			t.Fatalf("the warning of the last device without a recovery key lacks %q: %q", want, text)
		}
	}
	if strings.Contains(text, "other devices") {
		t.Fatalf("the dialog speaks of other devices alice does not have: %q", text)
	}
	checkScreen(laptop, "logout-no-key")
	cancelLogout(laptop)

	// The offer's "Create a recovery key" makes one at once: no second
	// press in Settings.
	laptop.do(chromedp.Click(chromedp.ID("recovery-offer-go")))
	laptop.waitFor("the key made at once", `document.getElementById('recovery-key-text') && document.activeElement && document.activeElement.id === 'recovery-confirm'`)
	if hash := eval[string](laptop, `location.hash`); hash != "#/settings" {
		t.Fatalf("Settings is at %q: a reload there would make another key", hash)
	}
	confirmRecoveryKey(laptop)
	if n := r.count(`SELECT count(*) FROM accounts WHERE username = 'alice' AND recovery_blob IS NOT NULL`); n != 1 {
		t.Fatal("no recovery blob on the relay after the key was made")
	}

	text = openLogoutDialog(laptop)
	warning = eval[string](laptop, `(document.getElementById('last-device-warning') || {}).textContent || ''`)
	for _, want := range []string{"This is your only device", "lost for good", "You saved a recovery key", "use your account again in a new browser", "starting with no history"} {
		if !strings.Contains(warning, want) {
			t.Fatalf("the warning of the last device with a recovery key lacks %q: %q", want, text)
		}
	}
	if strings.Contains(text, "other devices") || strings.Contains(warning, "account is lost") {
		t.Fatalf("with a recovery key, the dialog says %q", text)
	}
	fitsWidths(laptop, "logout-with-key")
	cancelLogout(laptop)

	eval[chromedp.Void](laptop, `location.hash = '#/chats'`)
	linkedDevice(t, r, laptop, "alice")
	text = openLogoutDialog(laptop)
	if eval[bool](laptop, `!!document.getElementById('last-device-warning')`) {
		t.Fatalf("the last-device warning shows while a second device holds the key: %q", text)
	}
	if got := eval[string](laptop, `document.getElementById('leave-text').textContent`); !strings.Contains(got, "deletes this browser's history") || !strings.Contains(got, "Your account stays, and so does its history on your other devices.") {
		t.Fatalf("with another device, the dialog says %q", got)
	}
	fitsWidths(laptop, "logout-other-device")
	cancelLogout(laptop)
}

// TestReloginWithNoOtherDevice: alice saved a recovery key and logged out
// of her only device. Logging in on a new browser, the waiting screen
// says there is no other device to approve from and leads with the ways
// that work: the restore form first, the reset open below it, the link
// code last; the header has no links to screens that would lead back to
// it. Restored, the browser says where its older history is: nowhere
// else. Revoked later from elsewhere, it no longer says it is linked.
func TestReloginWithNoOtherDevice(t *testing.T) {
	r := startRelay(t)
	_, laptop := r.newProfile(t)
	laptop.register("alice")
	key := saveRecoveryKey(laptop)
	laptop.logout()
	laptop.waitFor("the auth form after logout", `document.getElementById('auth-username')`)

	_, fresh := r.newProfile(t)
	fresh.login("alice")
	fresh.waitFor("the screen of an account with no other device", `document.getElementById('no-other-device') && document.getElementById('restore-key')`)
	if got := eval[string](fresh, `document.getElementById('no-other-device').textContent`); !strings.Contains(got, "no other linked device") || !strings.Contains(got, "no device to approve this browser from") {
		t.Fatalf("the waiting screen says %q", got)
	}
	const order = `(() => {
  const at = (id) => document.getElementById(id);
  const before = (a, b) => !!(at(a).compareDocumentPosition(at(b)) & Node.DOCUMENT_POSITION_FOLLOWING);
  return before('no-other-device', 'restore-key') && before('restore-key', 'reset-password') && before('reset-password', 'link-code');
})()`
	if !eval[bool](fresh, order) {
		t.Fatal("the waiting screen does not lead with the restore form, then the reset, then the link code")
	}
	if !eval[bool](fresh, `document.getElementById('restore-key').checkVisibility() && document.getElementById('reset-password').checkVisibility()`) {
		t.Fatal("the restore form or the reset is hidden")
	}
	if !eval[bool](fresh, `getComputedStyle(document.getElementById('nav')).display === 'none' && document.getElementById('logout').checkVisibility()`) {
		t.Fatal("the header links to screens while the browser waits to be linked")
	}
	fresh.waitFor("the stream", `document.getElementById('conn-bar').hidden`)
	checkScreen(fresh, "waiting-alone")

	typeRecoveryKey(fresh, key)
	fresh.waitFor("the restored notice", `document.getElementById('new-chat-username') && document.getElementById('linked-notice')`)
	notice := eval[string](fresh, `document.getElementById('linked-notice').textContent`)
	if !strings.Contains(notice, "restored") || !strings.Contains(notice, "no other device of yours holds them") || strings.Contains(notice, "other devices") {
		t.Fatalf("after a restore with no other device, the notice says %q", notice)
	}
	fitsWidths(fresh, "restored-alone")

	other := relayclient.New(r.URL)
	ctx := context.Background()
	if _, err := other.Login(ctx, "alice", password); err != nil {
		t.Fatal(err)
	}
	if err := other.Revoke(ctx, fresh.deviceID()); err != nil {
		t.Fatal(err)
	}
	fresh.waitFor("the revoked bar, and no linked notice under it", `document.getElementById('conn-bar').dataset.state === 'revoked' && !document.getElementById('linked-notice')`)
	fitsWidths(fresh, "revoked-notice")
}
