package webclient_test

import (
	"testing"
)

// TestChatBothWays registers two accounts in two browsers, and they write to
// each other live. Each envelope is ACKed after it is stored, so the queues
// end empty.
func TestChatBothWays(t *testing.T) {
	r := startRelay(t)
	_, alice := r.newProfile(t)
	_, bob := r.newProfile(t)
	alice.register("alice")
	bob.register("bob")

	alice.openChat("bob")
	alice.send("Hello Bob, this is Alice")
	alice.waitFor("the message to be sent", `document.querySelector('#messages .msg.out[data-status="sent"]')`)

	bob.waitFor("alice in bob's chat list with one unread", `(() => { const i = document.querySelector('.chat-item[data-user="alice"] .unread'); return i && i.textContent === '1'; })()`)
	bob.openChat("alice")
	bob.waitMessage("Hello Bob, this is Alice")
	bob.send("Hi Alice! Bob here.")
	bob.waitFor("bob's reply to be sent", `document.querySelector('#messages .msg.out[data-status="sent"]')`)
	alice.waitMessage("Hi Alice! Bob here.")

	if got := alice.messages(); len(got) != 2 || got[0] != "Hello Bob, this is Alice" || got[1] != "Hi Alice! Bob here." {
		t.Fatalf("alice's chat shows %q", got)
	}
	// Nothing plain on the relay: the stored body is not the text.
	if n := r.count(`SELECT count(*) FROM queue WHERE position('Hello Bob' in convert_from(body, 'LATIN1')) > 0`); n != 0 {
		t.Fatal("the relay holds the plaintext")
	}
	waitQueueEmpty(t, r)
	alice.screenshot("chat")
}

func waitQueueEmpty(t *testing.T, r *liveRelay) {
	t.Helper()
	for i := 0; i < 200; i++ {
		if r.count(`SELECT count(*) FROM queue`) == 0 {
			return
		}
		sleep()
	}
	t.Fatalf("%d envelopes still queued: a client did not ACK", r.count(`SELECT count(*) FROM queue`))
}
