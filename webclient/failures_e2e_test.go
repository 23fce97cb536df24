package webclient_test

import (
	"context"
	"crypto/ecdh"
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/chromedp/cdproto/fetch"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/chromedp"
	"github.com/oklog/ulid/v2"

	"relay/relay"
	"relay/relayclient"
	"relay/relayclient/seal"
)

// TestLostAcceptedAnswerIsRetriedWithTheSameID drops the relay's 202 on the
// way to the browser. The client retries with the same id, the relay
// recognises it, and bob has exactly one message.
func TestLostAcceptedAnswerIsRetriedWithTheSameID(t *testing.T) {
	r, alice, bob := aliceAndBob(t)
	alice.openChat("bob")
	base := groupMade(t, r, alice, "bob")

	// Fail the first answer to POST /api/messages after the relay sent it.
	ctx, cancel := context.WithCancel(alice.ctx)
	defer cancel()
	var dropped atomic.Int32
	// Subscribed here, not in the goroutine: a request paused before
	// it would be lost, and hang.
	paused := chromedp.Events(ctx, fetch.RequestPaused)
	go func() {
		for ev, err := range paused {
			if err != nil {
				return
			}
			if ev.Request.Method == "POST" && dropped.Add(1) == 1 {
				_, _ = chromedp.Call(ctx, fetch.FailRequest, fetch.FailRequestParams{RequestID: ev.RequestID, ErrorReason: network.ErrorReasonConnectionReset})
				continue
			}
			_, _ = chromedp.Call(ctx, fetch.ContinueRequest, fetch.ContinueRequestParams{RequestID: ev.RequestID})
		}
	}()
	if _, err := chromedp.Call(ctx, fetch.Enable, fetch.EnableParams{Patterns: []*fetch.RequestPattern{{URLPattern: "*/api/messages", RequestStage: fetch.RequestStageResponse}}}); err != nil {
		t.Fatal(err)
	}

	alice.send("only once, please")
	alice.waitFor("the message to be sent after the retry", `document.querySelector('#messages .msg.out[data-status="sent"]')`)
	if dropped.Load() < 2 {
		t.Fatalf("%d answers seen: the test did not drop one and see the retry", dropped.Load())
	}
	// The relay accepted one envelope from alice after the chat's group
	// was made, remembered once (bob's receipts are his).
	if n := r.count(`SELECT count(*) FROM sent s JOIN accounts a ON a.id = s.account_id WHERE a.username = 'alice'`) - base; n != 1 {
		t.Fatalf("the relay has %d idempotency records, want 1 (the retry changed the id?)", n)
	}
	bob.openChat("alice")
	bob.waitMessage("only once, please")
	if got := bob.messages(); len(got) != 1 {
		t.Fatalf("bob shows %q, want the message exactly once", got)
	}
}

// TestClockSkewFailureIsExplained runs the relay's clock ten minutes ahead of
// the browser's: the message fails with a text about the device clock and a
// retry action, and no further automatic attempt.
func TestClockSkewFailureIsExplained(t *testing.T) {
	r := startRelay(t, func(c *relay.Config) {
		c.Now = func() time.Time { return time.Now().Add(10 * time.Minute) }
	})
	_, alice := r.newProfile(t)
	alice.register("alice")
	_, bob := r.newProfile(t)
	bob.register("bob")
	alice.openChat("bob")
	alice.send("my clock is wrong")
	alice.waitFor("the failure", `document.querySelector('#messages .msg.failed .error')`)
	text := eval[string](alice, `document.querySelector('#messages .msg.failed .error').textContent`)
	if !strings.Contains(text, "clock") || !strings.Contains(text, "10 minutes behind") {
		t.Fatalf("the failure says %q; it should say the device clock is 10 minutes behind", text)
	}
	if !eval[bool](alice, `!!document.querySelector('#messages .msg.failed button.retry')`) {
		t.Fatal("a failed message has no retry action")
	}
	if n := r.count(`SELECT count(*) FROM sent`); n != 0 {
		t.Fatalf("the relay accepted %d envelopes with a skewed id", n)
	}
	alice.screenshot("clock-skew")
}

// TestKnownIDFromPeerChangesNothing: bob, a Go client, learns the id of
// alice's message and sends a new envelope with that id, properly encrypted.
// Alice's history keeps the original; the envelope is ACKed all the same. A
// normal message from the Go client decrypts in the browser, which also shows
// the two implementations agree.
func TestKnownIDFromPeerChangesNothing(t *testing.T) {
	r := startRelay(t)
	ctx := context.Background()
	bobKey, _ := ecdh.P256().GenerateKey(rand.Reader)
	bob := relayclient.New(r.URL)
	if err := bob.Register(ctx, "bob", password, bobKey.PublicKey().Bytes()); err != nil {
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
	alice.send("the original")
	alice.waitFor("the original to be sent", `document.querySelector('#messages .msg.out[data-status="sent"]')`)
	origID := eval[string](alice, `document.querySelector('#messages .msg.out').dataset.id`)

	aliceAcc, err := bob.Lookup(ctx, "alice")
	if err != nil {
		t.Fatal(err)
	}
	key, err := seal.ConversationKey(bobKey, aliceAcc.PublicKey, "bob", "alice")
	if err != nil {
		t.Fatal(err)
	}
	// Bob reads alice's message, as the Go client would.
	sctx, cancel := context.WithTimeout(ctx, 20*time.Second)
	var gotText string
	_ = bob.Stream(sctx, "", false, func(e relayclient.Event) error {
		if e.Name == "envelope" {
			rec, err := seal.Open(key, e.Envelope.ID, e.Envelope.From, e.Envelope.To, e.Envelope.Body)
			if err != nil {
				t.Errorf("Go cannot open the browser's envelope: %v", err)
			}
			var r struct{ Text string }
			_ = json.Unmarshal(rec, &r)
			gotText = r.Text
			if err := bob.Ack(ctx, e.Envelope.Seq); err != nil {
				t.Error(err)
			}
			if e.Envelope.ID != origID {
				t.Errorf("envelope id %s, the browser shows %s", e.Envelope.ID, origID)
			}
			cancel()
		}
		return nil
	})
	cancel()
	if gotText != "the original" {
		t.Fatalf("the Go client read %q", gotText)
	}

	send := func(id, text string) {
		t.Helper()
		rec, _ := json.Marshal(map[string]string{"type": "text", "text": text})
		iv := make([]byte, seal.IVSize)
		_, _ = rand.Read(iv)
		body, err := seal.Seal(key, iv, id, "bob", "alice", rec)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := bob.Send(ctx, id, "alice", body); err != nil {
			t.Fatal(err)
		}
	}
	send(origID, "REPLACED by bob")
	send(ulid.Make().String(), "hello from Go")
	alice.waitMessage("hello from Go")
	// An envelope that does not decrypt is kept, visibly.
	bad := make([]byte, seal.IVSize+seal.TagSize+256)
	_, _ = rand.Read(bad)
	if _, err := bob.Send(ctx, ulid.Make().String(), "alice", bad); err != nil {
		t.Fatal(err)
	}
	alice.waitFor("the could-not-decrypt entry", `document.querySelector('#messages .msg.undecryptable')`)
	got := alice.messages()
	if len(got) != 3 || got[0] != "the original" || got[1] != "hello from Go" || got[2] != "Could not decrypt this message." {
		t.Fatalf("alice's chat shows %q; the reused id must change nothing", got)
	}
	// Final (the directory's key of bob does not open it), yet its bytes
	// are kept.
	kept := eval[string](alice, `import('/store.js').then(async (s) => { const m = await s.getMessage(document.querySelector('#messages .msg.undecryptable').dataset.id); return m.waiting ? 'still waiting' : m.body; })`)
	if kept != base64.StdEncoding.EncodeToString(bad) {
		t.Fatalf("the undecryptable record keeps %.40q, not the envelope's bytes", kept)
	}
	// The ignored envelope was ACKed too. Only alice's queue: her delivery
	// receipt for bob's message waits in his, which nobody streams.
	aliceDevice := alice.deviceID()
	waitDB(t, "alice's queue empty", func() bool { return r.queued(aliceDevice) == 0 })
}

// TestNoConnectionBar stops the relay under an open client and starts it
// again: the bar appears, then goes.
func TestNoConnectionBar(t *testing.T) {
	r := startRelay(t)
	_, alice := r.newProfile(t)
	alice.register("alice")
	if !eval[bool](alice, `document.getElementById('conn-bar').hidden`) {
		t.Fatal("the bar shows while connected")
	}
	r.Stop()
	alice.waitFor("the no-connection bar", `!document.getElementById('conn-bar').hidden && document.getElementById('conn-bar').textContent.includes('No connection')`)
	alice.screenshot("no-connection")
	r.Start()
	alice.waitFor("the bar to go", `document.getElementById('conn-bar').hidden`)
}

// TestKeyChangeWarning swaps bob's public key in the relay's directory, as a
// malicious relay would: alice's client warns when she opens the chat.
func TestKeyChangeWarning(t *testing.T) {
	r, alice, _ := aliceAndBob(t, uncachedDirectory)
	alice.openChat("bob")
	alice.waitKeyRecorded("bob")
	if eval[bool](alice, `!!document.getElementById('key-warning')`) {
		t.Fatal("a warning before any change")
	}
	eval[chromedp.Void](alice, `location.hash = '#/chats'`)
	other, _ := ecdh.P256().GenerateKey(rand.Reader)
	if _, err := r.Pool.Exec(context.Background(), `UPDATE accounts SET public_key = $1 WHERE username = 'bob'`, other.PublicKey().Bytes()); err != nil {
		t.Fatal(err)
	}
	alice.openChat("bob")
	alice.waitFor("the key-change warning", `document.getElementById('key-warning')`)
	alice.screenshot("key-changed")
}
