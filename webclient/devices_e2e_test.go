package webclient_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
	"github.com/oklog/ulid/v2"

	"relay/internal/browser"
	"relay/relayclient"
)

// TestLinkSecondDevice links a second browser of alice: the codes match on
// both screens, the approval sends the account key, the laptop adds the
// phone to its chat, and from then on both devices get every message,
// including copies of what the other one sends.
func TestLinkSecondDevice(t *testing.T) {
	r := startRelay(t)
	_, laptop := r.newProfile(t)
	_, bobTab := r.newProfile(t)
	laptop.register("alice")
	bobTab.register("bob")

	// Before the phone exists: it will never see this.
	laptop.openChat("bob")
	laptop.send("before the phone")
	laptop.waitFor("the first message sent", `document.querySelector('#messages .msg.out[data-status="sent"]')`)

	_, phone := r.newProfile(t)
	code := phone.login("alice")
	phoneID := phone.deviceID()
	if eval[string](phone, `document.getElementById('waiting').textContent`) == "" {
		t.Fatal("the new device does not say it waits to be linked")
	}

	eval[chromedp.Void](laptop, `location.hash = '#/devices'`)
	row := fmt.Sprintf(`document.querySelector('.device[data-id="%s"]')`, phoneID)
	laptop.waitFor("the phone in the device list", row)
	phone.screenshot("waiting")
	laptop.screenshot("devices")
	if shown := eval[string](laptop, row+`.querySelector('.device-code').textContent`); shown != code {
		t.Fatalf("the laptop shows code %q for the phone, the phone shows %q", shown, code)
	}
	laptop.do(chromedp.Click(chromedp.CSS(fmt.Sprintf(`.device[data-id="%s"] .approve-btn`, phoneID))))
	phone.waitFor("the phone to be linked", `document.getElementById('new-chat-username')`)
	// The laptop adds the phone to its chat's group; bob's device seals
	// for the phone once it applied that commit.
	eval[chromedp.Void](laptop, `location.hash = '#/chats'`)
	bobTab.openChat("alice")
	joined(t, "alice/"+phoneID, map[*tab]string{laptop: "bob", bobTab: "alice"})

	// Bob writes: both of alice's devices get it, unread on both.
	bobTab.send("to both of your devices")
	unreadOne := `(() => { const i = document.querySelector('.chat-item[data-user="bob"] .unread'); return i && i.textContent === '1'; })()`
	laptop.waitFor("one unread on the laptop", unreadOne)
	phone.waitFor("one unread on the phone", unreadOne)
	// Reading on the laptop reads it on the phone too.
	laptop.openChat("bob")
	laptop.waitMessage("to both of your devices")
	phone.waitFor("the read position to reach the phone", `document.querySelector('.chat-item[data-user="bob"]') && !document.querySelector('.chat-item[data-user="bob"] .unread')`)
	phone.openChat("bob")
	phone.waitMessage("to both of your devices")
	if phone.hasMessage("before the phone") {
		t.Fatal("the phone shows a message from before it was added")
	}

	// The phone writes: bob gets it, and the laptop gets a copy.
	phone.send("sent from the phone")
	bobTab.waitMessage("sent from the phone")
	laptop.waitMessage("sent from the phone")
	if got := eval[string](laptop, `[...document.querySelectorAll('#messages .msg')].find(e => e.querySelector('.text').textContent === 'sent from the phone').className`); got != "msg out" {
		t.Fatalf("the laptop shows the phone's message as %q, want it as its own (out)", got)
	}
	// Never echoed back to the sending device: the phone shows it once.
	if n := eval[int](phone, `[...document.querySelectorAll('#messages .msg')].filter(e => e.querySelector('.text').textContent === 'sent from the phone').length`); n != 1 {
		t.Fatalf("the phone shows its message %d times", n)
	}
	waitQueueEmpty(t, r)
	phone.screenshot("linked-phone")
}

// TestOfflineDeviceGetsEverything closes one device while its peer writes,
// then opens it again: it gets every message, in order.
func TestOfflineDeviceGetsEverything(t *testing.T) {
	r, alice, bob := aliceAndBob(t)
	bob.openChat("alice")                    // so bob knows alice's key before going offline
	bob.do(chromedp.Navigate("about:blank")) // the client is gone: no stream

	alice.openChat("bob")
	for i := 1; i <= 5; i++ {
		alice.send(fmt.Sprintf("offline message %d", i))
	}
	alice.waitFor("all five sent", `document.querySelectorAll('#messages .msg.out[data-status="sent"]').length === 5`)
	// Queued with them: the commit and the welcome of the chat's group.
	ids := eval[[]string](alice, `import('/store.js').then(s => s.getMessages('bob')).then(ms => ms.map(m => m.id))`)
	if n := r.count(`SELECT count(*) FROM queue WHERE envelope_id = ANY($1)`, ids); n != 5 || len(ids) != 5 {
		t.Fatalf("%d of %d messages queued for the offline device, want 5", n, len(ids))
	}

	bob.do(chromedp.Navigate(r.URL + "/#/chat/alice"))
	bob.waitFor("bob's chat", `document.getElementById('composer')`)
	bob.waitMessage("offline message 5")
	got := bob.messages()
	for i, m := range got {
		if m != fmt.Sprintf("offline message %d", i+1) {
			t.Fatalf("bob's messages %q are not the five in order", got)
		}
	}
	if len(got) != 5 {
		t.Fatalf("bob shows %d messages, want 5", len(got))
	}
	waitQueueEmpty(t, r)
}

// TestTwoTabsOneStream opens two tabs of one profile: exactly one owns the
// stream, both show new messages, and when the owner closes the other takes
// over.
func TestTwoTabsOneStream(t *testing.T) {
	r := startRelay(t)
	p := browser.New(t)
	firstCtx, closeFirst := p.NewTab(t)
	first := r.openTab(t, firstCtx)
	_, bob := r.newProfile(t)
	first.register("alice")
	bob.register("bob")
	secondCtx, _ := p.NewTab(t)
	second := r.openTab(t, secondCtx)
	second.waitFor("the second tab's chat list", `document.getElementById('new-chat-username')`)

	owners := func() int {
		n := 0
		for _, tb := range []*tab{first, second} {
			if eval[bool](tb, `import('/sync.js').then(s => s.isOwner())`) {
				n++
			}
		}
		return n
	}
	first.waitFor("the first tab to own the stream", `import('/sync.js').then(s => s.isOwner())`)
	if n := owners(); n != 1 {
		t.Fatalf("%d tabs own the stream, want 1", n)
	}

	first.openChat("bob")
	second.openChat("bob")
	bob.openChat("alice")
	bob.send("seen in both tabs")
	first.waitMessage("seen in both tabs")
	second.waitMessage("seen in both tabs")
	// Neither tab was told its stream was replaced.
	for _, tb := range []*tab{first, second} {
		if !eval[bool](tb, `document.getElementById('conn-bar').hidden`) {
			t.Fatalf("a tab shows the connection bar: %q", eval[string](tb, `document.getElementById('conn-bar').textContent`))
		}
	}

	// The owner tab closes; the second takes over the stream.
	closeFirst()
	second.waitFor("the second tab to own the stream", `import('/sync.js').then(s => s.isOwner())`)
	bob.send("after the first tab closed")
	second.waitMessage("after the first tab closed")
	waitQueueEmpty(t, r)
}

// TestRevokedAndReplaced: a device whose stream another client takes over
// says so and does not fight back; a revoked device is told it was removed.
func TestRevokedAndReplaced(t *testing.T) {
	r := startRelay(t)
	ctx := context.Background()
	_, alice := r.newProfile(t)
	alice.register("alice")
	dev := alice.deviceID()

	// Another client of alice's takes over this device's stream.
	other := relayclient.New(r.URL)
	if _, err := other.Login(ctx, "alice", password); err != nil {
		t.Fatal(err)
	}
	other.Device = dev
	sctx, cancel := context.WithCancel(ctx)
	defer cancel()
	events := make(chan string, 100)
	go other.Stream(sctx, "", false, func(e relayclient.Event) error {
		events <- e.Name
		return nil
	})
	alice.waitFor("the replaced notice", `document.getElementById('conn-bar').dataset.state === 'replaced'`)
	// The browser did not take the stream back: the other client still
	// holds it and was never replaced.
	note := ulid.Make().String()
	if _, err := other.Send(ctx, note, "alice", []byte("x")); err != nil {
		t.Fatal(err)
	}
	for e := range events {
		if e == "replaced" {
			t.Fatal("the browser fought back for the stream")
		}
		if e == "ready" {
			break
		}
	}
	if state := eval[string](alice, `import('/sync.js').then(s => s.connection() + (s.streaming() ? ' and streaming' : ''))`); state != "replaced" {
		t.Fatalf("the browser is in state %q; after replaced it must neither stream nor plan to", state)
	}
	cancel()

	// Revoked from elsewhere: the page says so.
	alice.do(chromedp.Reload())
	alice.waitFor("the stream again", `document.getElementById('conn-bar').hidden`)
	if err := other.Revoke(ctx, dev); err != nil {
		t.Fatal(err)
	}
	alice.waitFor("the revoked notice", `document.getElementById('conn-bar').dataset.state === 'revoked' && document.getElementById('conn-bar').textContent.includes('removed')`)
}

// TestDevicesToldApart: a new browser that logs in makes a banner appear on
// the linked device by itself; the list marks this device, linked devices
// and the waiting one, and offers Approve only on the waiting one; once
// approved, the new device reports itself linked, says so, and the list
// follows without a reload; a rename made on one device shows on the other.
func TestDevicesToldApart(t *testing.T) {
	r := startRelay(t)
	_, laptop := r.newProfile(t)
	laptop.register("alice")
	laptopID := laptop.deviceID()
	if name := eval[string](laptop, `(async () => (await import('/account.js')).currentDevice().name)()`); !strings.Contains(name, " on ") {
		t.Fatalf("the default device name %q does not say browser and system", name)
	}

	_, phone := r.newProfile(t)
	phone.login("alice")
	phoneID := phone.deviceID()
	// Waiting, every screen is the waiting one: the header offers no
	// links to the others, only Log out.
	if !eval[bool](phone, `getComputedStyle(document.getElementById('nav')).display === 'none' && document.getElementById('logout').checkVisibility()`) {
		t.Fatal("the header links to Chats, Devices and Settings while the phone waits to be linked")
	}
	// No reload and no navigation on the laptop: the banner comes by itself.
	laptop.waitFor("the waiting-device banner", `document.getElementById('device-banner') && document.getElementById('device-banner').textContent.includes('waiting for approval')`)
	fitsWidths(laptop, "device-banner")

	eval[chromedp.Void](laptop, `location.hash = '#/devices'`)
	row := func(id string) string { return fmt.Sprintf(`document.querySelector('.device[data-id="%s"]')`, id) }
	laptop.waitFor("the phone in the list", row(phoneID))
	if !eval[bool](laptop, row(phoneID)+`.querySelector('.waiting-badge') !== null && `+row(phoneID)+`.querySelector('.approve-btn') !== null`) {
		t.Fatal("the waiting phone is not marked waiting with an Approve button")
	}
	if !eval[bool](laptop, row(laptopID)+`.querySelector('.self-badge') !== null && `+row(laptopID)+`.querySelector('.linked-badge') !== null && `+row(laptopID)+`.querySelector('.approve-btn') === null`) {
		t.Fatal("the laptop is not marked as this device and linked, or offers to approve itself")
	}
	// This device has nothing to compare a code with, and is in use now:
	// no code, no "last seen" of some time ago.
	if !eval[bool](laptop, row(laptopID)+`.querySelector('.device-code') === null && `+row(laptopID)+`.textContent.includes('in use now') && !`+row(laptopID)+`.textContent.includes('last seen') && `+row(phoneID)+`.querySelector('.device-code') !== null`) {
		t.Fatalf("this device's row: %q", eval[string](laptop, row(laptopID)+`.textContent`))
	}
	fitsWidths(laptop, "devices-waiting")
	laptop.do(chromedp.Click(chromedp.CSS(fmt.Sprintf(`.device[data-id="%s"] .approve-btn`, phoneID))))
	phone.waitFor("the phone to say it is linked", `document.getElementById('linked-notice') && document.getElementById('linked-notice').textContent.includes('can send it your history')`)
	fitsWidths(phone, "linked-notice")
	if !eval[bool](phone, `document.getElementById('nav-devices').checkVisibility()`) {
		t.Fatal("the header has no links once the phone is linked")
	}

	// The phone reported itself linked: the laptop's list and banner follow.
	laptop.waitFor("the phone listed as linked", row(phoneID)+` && `+row(phoneID)+`.dataset.linked === 'true' && `+row(phoneID)+`.querySelector('.linked-badge') && !`+row(phoneID)+`.querySelector('.approve-btn')`)
	laptop.waitFor("the banner to go", `!document.getElementById('device-banner')`)
	if n := r.count(`SELECT count(*) FROM devices WHERE id = $1 AND linked`, phoneID); n != 1 {
		t.Fatalf("the relay lists the phone linked %d times, want 1", n)
	}

	// Renamed on the phone, the laptop shows the name by itself.
	eval[chromedp.Void](phone, `location.hash = '#/devices'`)
	phone.waitFor("the laptop in the phone's list", row(laptopID)+` && `+row(laptopID)+`.querySelector('.rename-btn')`)
	phone.do(chromedp.Click(chromedp.CSS(fmt.Sprintf(`.device[data-id="%s"] .rename-btn`, laptopID))))
	phone.waitFor("the rename field", `document.querySelector('.rename-input')`)
	fitsWidths(phone, "rename")
	phone.do(chromedp.SetValue(chromedp.CSS(".rename-input"), "Work laptop"), chromedp.Click(chromedp.CSS(".save-name-btn")))
	laptop.waitFor("the new name on the laptop", row(laptopID)+` && `+row(laptopID)+`.querySelector('.device-name').textContent === 'Work laptop'`)
	phone.waitFor("the new name on the phone", row(laptopID)+` && `+row(laptopID)+`.querySelector('.device-name').textContent === 'Work laptop'`)
	laptop.screenshot("devices-renamed")
}
