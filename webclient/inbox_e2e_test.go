package webclient_test

import (
	"context"
	"crypto/ecdh"
	"crypto/rand"
	"encoding/json"
	"slices"
	"sync/atomic"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/fetch"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/chromedp"
	"github.com/oklog/ulid/v2"

	"relay/relayclient"
	"relay/relayclient/seal"
)

// TestWaitingToDecryptIsKeptAndOpensLater fails bob's lookups of alice's
// key while her first messages arrive. Today's naive client stored "Could
// not decrypt" without the bytes and ACKed, losing the messages for good.
// Here they are kept sealed and ACKed (the queue empties), not unread;
// once lookups work again the retry timer opens them, in their order,
// each once, and they count as unread. Sealed the old way (alice's client
// of version 1), each message waits for her key and shows as waiting. In
// their chat's MLS group, her key is needed to check the members of the
// welcome that adds bob's device: the welcome is kept to join later, and
// the messages with it, unseen until then.
func TestWaitingToDecryptIsKeptAndOpensLater(t *testing.T) {
	t.Run("version 1", func(t *testing.T) { waitingToDecrypt(t, false) })
	t.Run("MLS", func(t *testing.T) { waitingToDecrypt(t, true) })
}

func waitingToDecrypt(t *testing.T, inGroup bool) {
	r, alice, bob := aliceAndBob(t)
	if !inGroup {
		alice.mlsOff()
	} else {
		published(t, r, bob) // else the chat starts the old way
	}

	ctx, cancel := context.WithCancel(bob.ctx)
	defer cancel()
	var failing atomic.Bool
	var failed atomic.Int32
	failing.Store(true)
	// Subscribed here, not in the goroutine: a request paused before
	// it would be lost, and hang.
	paused := chromedp.Events(ctx, fetch.RequestPaused)
	go func() {
		for ev, err := range paused {
			if err != nil {
				return
			}
			if failing.Load() {
				failed.Add(1)
				_, _ = chromedp.Call(ctx, fetch.FailRequest, fetch.FailRequestParams{RequestID: ev.RequestID, ErrorReason: network.ErrorReasonConnectionRefused})
				continue
			}
			_, _ = chromedp.Call(ctx, fetch.ContinueRequest, fetch.ContinueRequestParams{RequestID: ev.RequestID})
		}
	}()
	if _, err := chromedp.Call(ctx, fetch.Enable, fetch.EnableParams{Patterns: []*fetch.RequestPattern{{URLPattern: "*/api/accounts/alice"}}}); err != nil {
		t.Fatal(err)
	}

	alice.openChat("bob")
	alice.send("one")
	alice.send("two")
	alice.waitFor("both sent", `document.querySelectorAll('#messages .msg.out[data-status="sent"]').length === 2`)

	aliceItem := `document.querySelector('#chat-list .chat-item[data-user="alice"]')`
	if inGroup {
		waitQueueEmpty(t, r) // ACKed: the welcome and the messages are safe in IndexedDB
		if failed.Load() == 0 {
			t.Fatal("no lookup of alice was failed: the test proves nothing")
		}
		kept := eval[int](bob, `import('/store.js').then(async (s) => { let n = 0; for (const k of await s.metaKeys('mlsParked:')) n += (await s.getMeta(k)).length; return n; })`)
		welcomes := eval[int](bob, `import('/store.js').then(async (s) => ((await s.getMeta('mlsWelcomes:alice')) || []).length)`)
		// Kept: the two messages and the commit that made the group (a
		// commit of a group this device is not in waits for the welcome
		// too, which drops it: it is of the epoch before the welcome's).
		if kept != 3 || welcomes != 1 {
			t.Fatalf("%d sealed envelopes and %d welcomes kept, want 3 and 1", kept, welcomes)
		}
		if eval[bool](bob, `!!`+aliceItem+` && !!`+aliceItem+`.querySelector('.unread')`) {
			t.Fatal("a message nobody can read yet counts as unread")
		}
	} else {
		bob.waitFor("alice's chat, waiting", `(() => { const c = `+aliceItem+`; return c && c.querySelector('.preview').textContent === 'Waiting to decrypt…'; })()`)
		waitQueueEmpty(t, r) // ACKed: the bytes are safe in IndexedDB
		if failed.Load() == 0 {
			t.Fatal("no lookup of alice was failed: the test proves nothing")
		}
		kept := eval[int](bob, `import('/store.js').then(async (s) => (await s.waitingMessages()).filter((m) => m.body && m.text === null && m.from === 'alice' && m.fromDevice && m.seq).length)`)
		if kept != 2 {
			t.Fatalf("%d sealed records waiting, want 2", kept)
		}
		if eval[bool](bob, `!!`+aliceItem+`.querySelector('.unread')`) {
			t.Fatal("a message nobody can read yet counts as unread")
		}

		// The chat shows them as waiting, with no button that cannot work;
		// the lookup the chat makes fails too, and says so in place.
		bob.openChat("alice")
		bob.waitFor("the waiting bubbles", `document.querySelectorAll('#messages .msg.waiting').length === 2 && document.getElementById('chat-error').textContent.includes("Could not fetch alice's key")`)
		if eval[bool](bob, `!!document.querySelector('#messages button')`) {
			t.Fatal("a waiting message offers a button")
		}
		for _, w := range []int64{390, 1280} {
			bob.do(chromedp.EmulateViewport(w, 800))
			bob.screenshot("waiting-" + map[int64]string{390: "narrow", 1280: "wide"}[w])
			if eval[bool](bob, `document.documentElement.scrollWidth > document.documentElement.clientWidth`) {
				t.Fatalf("horizontal overflow at %d px", w)
			}
		}
		eval[chromedp.Void](bob, `location.hash = '#/chats'`)
		bob.waitFor("the chat list", aliceItem)
	}

	// Lookups work again. Nothing is pressed: the timer opens them.
	failing.Store(false)
	if _, err := chromedp.Call(ctx, fetch.Disable, cdp.Empty{}); err != nil {
		t.Fatal(err)
	}
	waitPastBackoff(bob, "the messages opened, unread", `(() => { const c = `+aliceItem+`; const u = c && c.querySelector('.unread'); return u && u.textContent === '2' && c.querySelector('.preview').textContent === 'two'; })()`)
	bob.openChat("alice")
	bob.waitMessage("two")
	if got := bob.messages(); len(got) != 2 || got[0] != "one" || got[1] != "two" {
		t.Fatalf("bob's chat shows %q, want [one two]", got)
	}
	if n := eval[int](bob, `import('/store.js').then(async (s) => (await s.waitingMessages()).length + (await s.getMessages('alice')).length)`); n != 2 {
		t.Fatalf("%d records for 2 messages: one is stored twice or still waiting", n)
	}
}

// TestSeqGapIsReplayedOrShown makes bob's device see "after" right after
// "before": the seq of "lost" between them is hidden from its first
// stream.
// When the relay still has that one (hidden only from the first stream), the
// client reconnects from its last contiguous seq and shows all three in
// order: a client that moved its cursor past the gap would never show
// "lost". When the relay no longer has it, the page shows the notice
// (today's client only wrote a console line: the control).
func TestSeqGapIsReplayedOrShown(t *testing.T) {
	for _, tc := range []struct {
		name   string
		refill bool
		want   []string
		notice bool
	}{
		{name: "relay still has it", refill: true, want: []string{"before", "lost", "after"}},
		{name: "relay lost it", want: []string{"before", "after"}, notice: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r, alice, bob := aliceAndBob(t)
			bob.openChat("alice")
			alice.openChat("bob")
			alice.send("before")
			bob.waitMessage("before")
			bobDevice := bob.deviceID()
			bob.do(chromedp.Navigate("about:blank")) // offline
			// What came before "lost" (the chat's group's commit and
			// welcome, "before") is at seqs up to head.
			head := r.count(`SELECT seq FROM devices WHERE id = $1`, bobDevice)
			alice.send("lost")
			alice.send("after")
			alice.waitFor("all sent", `document.querySelectorAll('#messages .msg.out[data-status="sent"]').length === 3`)
			if n := r.count(`SELECT count(*) FROM queue WHERE device_id = $1 AND seq IN ($2, $3)`, bobDevice, head+1, head+2); n != 2 {
				t.Fatalf("bob's queue holds %d of seq %d and %d", n, head+1, head+2)
			}

			// Take "lost" out of the queue before bob's first stream starts;
			// put it back before the second, if the relay "still has it".
			bg := context.Background()
			if _, err := r.Pool.Exec(bg, `CREATE TABLE hidden AS SELECT * FROM queue WHERE device_id = $1 AND seq = $2`, bobDevice, head+1); err != nil {
				t.Fatal(err)
			}
			ctx, cancel := context.WithCancel(bob.ctx)
			defer cancel()
			var streams atomic.Int32
			// Subscribed here, not in the goroutine: a request paused before
			// it would be lost, and hang.
			paused := chromedp.Events(ctx, fetch.RequestPaused)
			go func() {
				for ev, err := range paused {
					if err != nil {
						return
					}
					switch streams.Add(1) {
					case 1:
						if _, err := r.Pool.Exec(bg, `DELETE FROM queue WHERE device_id = $1 AND seq = $2`, bobDevice, head+1); err != nil {
							t.Error(err)
						}
					case 2:
						if tc.refill {
							if _, err := r.Pool.Exec(bg, `INSERT INTO queue SELECT * FROM hidden`); err != nil {
								t.Error(err)
							}
						}
					}
					_, _ = chromedp.Call(ctx, fetch.ContinueRequest, fetch.ContinueRequestParams{RequestID: ev.RequestID})
				}
			}()
			if _, err := chromedp.Call(ctx, fetch.Enable, fetch.EnableParams{Patterns: []*fetch.RequestPattern{{URLPattern: "*/api/events*"}}}); err != nil {
				t.Fatal(err)
			}

			bob.do(chromedp.Navigate(r.URL + "/#/chat/alice"))
			bob.waitMessage("after")
			waitQueueEmpty(t, r)
			if got := bob.messages(); !slices.Equal(got, tc.want) {
				t.Fatalf("bob shows %q, want %q", got, tc.want)
			}
			if n := streams.Load(); n < 2 {
				t.Fatalf("%d streams: the client did not reconnect at the gap", n)
			}
			if tc.notice {
				bob.waitFor("the gap notice", `(() => { const n = document.getElementById('purge-notice'); return !n.hidden && n.dataset.reason === 'gap' && n.textContent.includes('never arrived'); })()`)
				bob.screenshot("gap-notice")
			} else if eval[bool](bob, `!document.getElementById('purge-notice').hidden`) {
				t.Fatal("a notice, although the relay filled the gap")
			}
		})
	}
}

// TestMessageUnderAChangedKeyOpens: alice's client knows bob's old key;
// bob's next message is sealed under his new one. The client checks the
// directory before calling it undecryptable, opens it, and warns that the
// key changed. Today's client showed "Could not decrypt" for good (the
// control), and a message that the directory's key does not open either
// stays undecryptable, bytes kept (TestKnownIDFromPeerChangesNothing).
func TestMessageUnderAChangedKeyOpens(t *testing.T) {
	r := startRelay(t, uncachedDirectory)
	ctx := context.Background()
	oldKey, _ := ecdh.P256().GenerateKey(rand.Reader)
	bob := relayclient.New(r.URL)
	if err := bob.Register(ctx, "bob", password, oldKey.PublicKey().Bytes()); err != nil {
		t.Fatal(err)
	}
	devKey, _ := ecdh.P256().GenerateKey(rand.Reader)
	dev, err := bob.AddDevice(ctx, "go", devKey.PublicKey().Bytes())
	if err != nil {
		t.Fatal(err)
	}
	bob.Device = dev

	_, alice := r.newProfile(t)
	alice.register("alice")
	alice.openChat("bob")
	alice.waitKeyRecorded("bob")
	if eval[bool](alice, `!!document.getElementById('key-warning')`) {
		t.Fatal("a key warning before any change")
	}
	eval[chromedp.Void](alice, `location.hash = '#/chats'`)

	newKey, _ := ecdh.P256().GenerateKey(rand.Reader)
	if _, err := r.Pool.Exec(ctx, `UPDATE accounts SET public_key = $1 WHERE username = 'bob'`, newKey.PublicKey().Bytes()); err != nil {
		t.Fatal(err)
	}
	aliceAcc, err := bob.Lookup(ctx, "alice")
	if err != nil {
		t.Fatal(err)
	}
	key, err := seal.ConversationKey(newKey, aliceAcc.PublicKey, "bob", "alice")
	if err != nil {
		t.Fatal(err)
	}
	id := ulid.Make().String()
	rec, _ := json.Marshal(map[string]string{"type": "text", "text": "under my new key"})
	iv := make([]byte, seal.IVSize)
	_, _ = rand.Read(iv)
	body, err := seal.Seal(key, iv, id, "bob", "alice", rec)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := bob.Send(ctx, id, "alice", body); err != nil {
		t.Fatal(err)
	}
	alice.waitFor("bob's chat", `document.querySelector('#chat-list .chat-item[data-user="bob"]')`)
	waitQueueEmpty(t, r)
	alice.openChat("bob")
	alice.waitMessage("under my new key")
	alice.waitFor("the key-change warning", `document.getElementById('key-warning')`)
	if got := alice.messages(); len(got) != 1 {
		t.Fatalf("alice shows %q", got)
	}
}

// waitPastBackoff is waitFor with a deadline past the client's longest
// retry delay (60 s): on a busy machine the retry timer may be far into
// its backoff when the test lets the lookups through.
func waitPastBackoff(tb *tab, what, cond string) {
	tb.t.Helper()
	ctx, cancel := context.WithTimeout(tb.ctx, 80*time.Second)
	defer cancel()
	if _, err := chromedp.Run(ctx, chromedp.Poll[chromedp.Void](cond, chromedp.WithPollingInterval(50*time.Millisecond), chromedp.WithPollingTimeout(75*time.Second))); err != nil {
		tb.screenshot("timeout")
		tb.t.Fatalf("waiting for %s (%s): %v", what, cond, err)
	}
}
