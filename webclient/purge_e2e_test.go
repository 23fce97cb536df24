package webclient_test

import (
	"context"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// TestPurgedMessagesAreExplained: when the relay deletes envelopes a device
// never received (here: older than the age limit), the device's page says
// so when it comes back, and the notice stays dismissed once dismissed,
// although the relay repeats the news on every stream. The sender, who
// lost nothing, sees no notice: the control.
func TestPurgedMessagesAreExplained(t *testing.T) {
	r, alice, bob := aliceAndBob(t)
	bob.openChat("alice")
	bobDevice := bob.deviceID()
	bob.do(chromedp.Navigate("about:blank")) // offline

	alice.openChat("bob")
	for _, m := range []string{"first", "second", "third"} {
		alice.send(m)
	}
	alice.waitFor("all sent", `document.querySelectorAll('#messages .msg.out[data-status="sent"]').length === 3`)
	old := time.Now().Add(-31 * 24 * time.Hour).UnixMilli()
	if _, err := r.Pool.Exec(context.Background(), `UPDATE queue SET ts = $1 WHERE device_id = $2`, old, bobDevice); err != nil {
		t.Fatal(err)
	}
	r.mu.Lock()
	srv := r.srv
	r.mu.Unlock()
	srv.PurgeQueues(context.Background())
	if n := r.count(`SELECT count(*) FROM queue WHERE device_id = $1`, bobDevice); n != 0 {
		t.Fatalf("%d envelopes left after the purge", n)
	}
	// The three messages, after the commit and the welcome of the chat's
	// group: the mark is the last seq purged.
	head := r.count(`SELECT seq FROM devices WHERE id = $1`, bobDevice)

	bob.do(chromedp.Navigate(r.URL + "/#/chat/alice"))
	bob.waitFor("the purge notice", `(() => { const n = document.getElementById('purge-notice');
		return n && !n.hidden && n.dataset.reason === 'age' && n.textContent.includes('deleted by the relay'); })()`)
	if got := bob.messages(); len(got) != 0 {
		t.Fatalf("bob shows %q, but everything was purged", got)
	}
	if eval[bool](alice, `!document.getElementById('purge-notice').hidden`) {
		t.Fatal("the sender, who lost nothing, sees the purge notice")
	}

	bob.do(chromedp.Click(chromedp.CSS(`#purge-notice button`)))
	bob.waitFor("the notice dismissed", `document.getElementById('purge-notice').hidden`)
	bob.do(chromedp.Reload())
	bob.waitFor("bob's chat again", `document.getElementById('composer')`)
	// The relay tells the device again on this stream (it has ACKed
	// nothing past the mark); wait for the stream, then check the page.
	bob.waitFor("the stream open", `document.getElementById('conn-bar').hidden`)
	if n := r.count(`SELECT count(*) FROM devices WHERE id = $1 AND purged_seq = $2`, bobDevice, head); n != 1 {
		t.Fatal("the relay no longer holds the purge mark, so this reload proves nothing")
	}
	if eval[bool](bob, `!document.getElementById('purge-notice').hidden`) {
		t.Fatal("a dismissed notice came back")
	}
}
