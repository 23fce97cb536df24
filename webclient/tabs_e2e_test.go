package webclient_test

import (
	"context"
	"testing"

	"github.com/chromedp/chromedp"

	"relay/internal/browser"
	"relay/relayclient"
)

// TestLogoutClearsEveryTab: two tabs of one profile show alice's chat.
// Logging out in one logs out the other at once, with nothing decrypted
// left on its page. Logging in again in the first completes while the
// second is open (before, the database delete was blocked by the second
// tab and the login hung), and the first takes the stream lock again.
func TestLogoutClearsEveryTab(t *testing.T) {
	r := startRelay(t)
	p := browser.New(t)
	first := r.openTab(t, p.Ctx)
	_, bob := r.newProfile(t)
	first.register("alice")
	bob.register("bob")
	bob.openChat("alice")
	bob.send("decrypted history")
	secondCtx, _ := p.NewTab(t)
	second := r.openTab(t, secondCtx)
	second.openChat("bob")
	second.waitMessage("decrypted history")
	first.waitFor("the first tab to own the stream", `import('/sync.js').then(s => s.isOwner())`)

	first.do(chromedp.Click(chromedp.ID("logout")))
	second.waitFor("the second tab logged out and cleared",
		`document.getElementById('auth-username') && !document.body.textContent.includes('decrypted history') && document.getElementById('nav').hidden`)
	second.screenshot("logged-out")
	if eval[bool](second, `import('/sync.js').then(s => s.me() !== null || s.isOwner())`) {
		t.Fatal("the second tab still holds the account or the stream")
	}

	first.login("alice") // waits for the link code: the login did not hang
	first.waitFor("the first tab to own the stream again", `import('/sync.js').then(s => s.isOwner())`)
	if !eval[bool](second, `!!document.getElementById('auth-username')`) {
		t.Fatal("the second tab left the login screen")
	}
}

// TestRevokedDeviceCannotType: alice's browser has her chat with bob open
// when another device of hers revokes it. The composer is disabled and
// says why and what to do.
func TestRevokedDeviceCannotType(t *testing.T) {
	r, alice, _ := aliceAndBob(t)
	ctx := context.Background()
	alice.openChat("bob")
	alice.send("before")
	alice.waitFor("the message sent", `document.querySelector('#messages .msg.out[data-status="sent"]')`)
	if !eval[bool](alice, `!document.getElementById('composer').disabled && !document.querySelector('#composer-note:not([hidden])')`) {
		t.Fatal("the composer of a live device is disabled")
	}

	other := relayclient.New(r.URL)
	if _, err := other.Login(ctx, "alice", password); err != nil {
		t.Fatal(err)
	}
	if err := other.Revoke(ctx, alice.deviceID()); err != nil {
		t.Fatal(err)
	}
	alice.waitFor("the composer disabled, with why and what to do",
		`document.getElementById('composer').disabled && document.getElementById('send-btn').disabled && !document.getElementById('composer-note').hidden && document.getElementById('composer-note').textContent.includes('removed') && document.getElementById('composer-note').textContent.includes('log in')`)
	if eval[bool](alice, `!!document.querySelector('#messages button.retry')`) {
		t.Fatal("a revoked device shows a Retry button")
	}
	fitsWidths(alice, "revoked")
}
