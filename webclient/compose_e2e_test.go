package webclient_test

import (
	"testing"
)

// TestContactDeletedWhileChatOpen: alice has her chat with bob open, his
// safety code marked verified, when bob deletes his account. The first
// message she sends after it is refused (410 account_deleted): from that
// moment the open chat says so, without being opened again: the composer
// is off with the reason, the verified mark is gone, and the refused
// message says why with no Retry, which could never work.
func TestContactDeletedWhileChatOpen(t *testing.T) {
	r, alice, bob := aliceAndBob(t)
	bob.openChat("alice")
	bob.send("hi alice")
	alice.openChat("bob")
	alice.waitMessage("hi alice")
	alice.waitKeyRecorded("bob")
	eval[bool](alice, `import('/sync.js').then((s) => s.setVerified('bob', true)).then(() => true)`)
	alice.waitFor("the verified mark", `!document.getElementById('verified-badge').hidden`)

	deleteInSettings(bob)
	bob.waitFor("bob logged out, his account deleted", deletedNotice)
	if n := r.count(`SELECT count(*) FROM accounts WHERE username = 'bob'`); n != 0 {
		t.Fatalf("bob's account is still on the relay (%d rows)", n)
	}

	alice.send("are you there?")
	alice.waitFor("the message refused", `document.querySelector('#messages .msg.out.failed')`)
	alice.waitFor("the open chat following the deletion",
		`document.querySelector('#messages .msg.out.failed .error').textContent.includes('deleted their account') && document.getElementById('composer').disabled && document.getElementById('send-btn').disabled && !document.getElementById('composer-note').hidden && document.getElementById('composer-note').textContent.includes('This account was deleted') && document.getElementById('verified-badge').hidden`)
	if eval[bool](alice, `!!document.querySelector('#messages .msg .retry')`) {
		t.Error("a message to the deleted account offers Retry, which can never work")
	}
	checkScreen(alice, "contact-deleted-open")
}
