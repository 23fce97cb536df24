package webclient_test

import (
	"context"
	"sync/atomic"
	"testing"

	"github.com/chromedp/cdproto/fetch"
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

	first.logout()
	second.waitFor("the second tab logged out and cleared",
		`document.getElementById('auth-username') && !document.body.textContent.includes('decrypted history') && document.getElementById('nav').hidden`)
	// The second tab says why it shows the login; the first, where the
	// person pressed Log out, needs no reason.
	second.waitFor("the reason on the second tab", `document.getElementById('auth-notice') && document.getElementById('auth-notice').textContent.includes('logged out in another tab')`)
	first.waitFor("the first tab's login", `document.getElementById('auth-username')`)
	if eval[bool](first, `!!document.getElementById('auth-notice')`) {
		t.Fatalf("the tab that logged out shows %q", eval[string](first, `document.getElementById('auth-notice').textContent`))
	}
	fitsWidths(second, "logged-out")
	if eval[bool](second, `import('/sync.js').then(s => s.me() !== null || s.isOwner())`) {
		t.Fatal("the second tab still holds the account or the stream")
	}

	first.login("alice") // waits for the link code: the login did not hang
	first.waitFor("the first tab to own the stream again", `import('/sync.js').then(s => s.isOwner())`)
	if !eval[bool](second, `!!document.getElementById('auth-username')`) {
		t.Fatal("the second tab left the login screen")
	}
}

// TestRevokedDeviceCannotType: alice's browser has her chat with bob open,
// with a message the relay refused and its Retry button, when another
// device of hers revokes it. The composer is disabled and says why and
// what to do, and the Retry button is gone: it could never work.
func TestRevokedDeviceCannotType(t *testing.T) {
	r, alice, _ := aliceAndBob(t)
	ctx := context.Background()
	alice.openChat("bob")

	// The relay's answer to the first send is a refusal.
	fctx, cancel := context.WithCancel(alice.ctx)
	defer cancel()
	var refused atomic.Int32
	// Subscribed here, not in the goroutine: a request paused before
	// it would be lost, and hang.
	paused := chromedp.Events(fctx, fetch.RequestPaused)
	go func() {
		for ev, err := range paused {
			if err != nil {
				return
			}
			if refused.Add(1) == 1 {
				_, _ = chromedp.Call(fctx, fetch.FulfillRequest, fetch.FulfillRequestParams{
					RequestID: ev.RequestID, ResponseCode: 400,
					ResponseHeaders: []*fetch.HeaderEntry{{Name: "Content-Type", Value: "application/json"}},
					Body:            []byte(`{"error":"bad_request","message":"refused for the test"}`),
				})
				continue
			}
			_, _ = chromedp.Call(fctx, fetch.ContinueRequest, fetch.ContinueRequestParams{RequestID: ev.RequestID})
		}
	}()
	if _, err := chromedp.Call(fctx, fetch.Enable, fetch.EnableParams{Patterns: []*fetch.RequestPattern{{URLPattern: "*/api/messages", RequestStage: fetch.RequestStageRequest}}}); err != nil {
		t.Fatal(err)
	}
	alice.send("refused")
	alice.waitFor("the refusal with its Retry button", `document.querySelector('#messages .msg.failed button.retry')`)
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
	if !eval[bool](alice, `!!document.querySelector('#messages .msg.failed')`) {
		t.Fatal("the refused message is gone: the Retry check above proves nothing")
	}
	fitsWidths(alice, "revoked")
}

// TestErasedStaysErased: this browser's database exists from the start
// of an account here to its logout or deletion, and nothing else creates
// it. A browser that never held an account has none. After a logout in
// one of two tabs, what a screen or a module in either tab was still
// reading or writing then (done here by hand, once the tab shows the
// login) fails instead of bringing the database back, empty or with a row
// of the account just erased.
func TestErasedStaysErased(t *testing.T) {
	r := startRelay(t)
	p := browser.New(t)
	first := r.openTab(t, p.Ctx)
	first.waitFor("the first screen", `document.getElementById('auth-username')`)
	if dbs := databases(first); len(dbs) != 0 {
		t.Errorf("a browser that never held an account has the databases %v", dbs)
	}
	first.register("alice")
	secondCtx, _ := p.NewTab(t)
	second := r.openTab(t, secondCtx)
	second.waitFor("the second tab's chat list", `document.getElementById('new-chat-username')`)

	first.logout()
	for _, tb := range []*tab{first, second} {
		tb.waitFor("the login screen", `document.getElementById('auth-username') && document.getElementById('nav').hidden`)
		got := eval[[]string](tb, `import('/store.js').then((s) => Promise.allSettled([s.getChats(), s.setPurgeNotice({ upTo: 1, reason: 'age', at: 0, dismissed: false })]))
  .then((rs) => rs.map((r) => r.status === 'rejected' ? r.reason.name : 'done'))`)
		if len(got) != 2 || got[0] != "NoDatabase" || got[1] != "NoDatabase" {
			t.Errorf("a read and a write after the logout: %v, want both refused (NoDatabase)", got)
		}
		if dbs := databases(tb); len(dbs) != 0 {
			t.Errorf("after the logout this browser has the databases %v", dbs)
		}
	}
}

// databases lists the names of the IndexedDB databases of tab's profile.
func databases(tb *tab) []string {
	tb.t.Helper()
	return eval[[]string](tb, `indexedDB.databases().then((ds) => ds.map((d) => d.name))`)
}
