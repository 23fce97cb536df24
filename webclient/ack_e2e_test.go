package webclient_test

import (
	"bufio"
	"context"
	"crypto/ecdh"
	"crypto/rand"
	"encoding/json"
	"fmt"
	"net/http/httptest"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/chromedp/cdproto/fetch"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/chromedp"
	"github.com/oklog/ulid/v2"

	"relay/internal/browser"
	"relay/relayclient"
	"relay/relayclient/seal"
)

// ackInterval is ACK_INTERVAL_MS of stream.js: the tests measure the real
// constant, and TestACKIntervalIsTheClients checks that it is the same.
const ackInterval = 150 * time.Millisecond

// goPeer is an account with one Go device that sends text messages.
type goPeer struct {
	t    *testing.T
	name string
	c    *relayclient.Client
	key  *ecdh.PrivateKey
	conv map[string][]byte // conversation keys, by peer
}

func newGoPeer(t *testing.T, r *liveRelay, name string) *goPeer {
	t.Helper()
	ctx := context.Background()
	key, _ := ecdh.P256().GenerateKey(rand.Reader)
	c := relayclient.New(r.URL)
	if err := c.Register(ctx, name, password, key.PublicKey().Bytes()); err != nil {
		t.Fatal(err)
	}
	devKey, _ := ecdh.P256().GenerateKey(rand.Reader)
	dev, err := c.AddDevice(ctx, "go", devKey.PublicKey().Bytes())
	if err != nil {
		t.Fatal(err)
	}
	c.Device = dev
	return &goPeer{t: t, name: name, c: c, key: key, conv: map[string][]byte{}}
}

// sendText seals a text record to `to` and sends it.
func (p *goPeer) sendText(to, text string) {
	p.t.Helper()
	ctx := context.Background()
	key, ok := p.conv[to]
	if !ok {
		acc, err := p.c.Lookup(ctx, to)
		if err != nil {
			p.t.Fatal(err)
		}
		if key, err = seal.ConversationKey(p.key, acc.PublicKey, p.name, to); err != nil {
			p.t.Fatal(err)
		}
		p.conv[to] = key
	}
	id := ulid.Make().String()
	rec, _ := json.Marshal(map[string]string{"type": "text", "text": text})
	iv := make([]byte, seal.IVSize)
	_, _ = rand.Read(iv)
	body, err := seal.Seal(key, iv, id, p.name, to, rec)
	if err != nil {
		p.t.Fatal(err)
	}
	if _, err := p.c.Send(ctx, id, to, body); err != nil {
		p.t.Fatal(err)
	}
}

// acks is how many ACKs the relay has carried out: the count of
// relay_ack_duration_seconds, which it observes once per POST /api/ack
// answered 204.
func (r *liveRelay) acks() int {
	r.t.Helper()
	r.mu.Lock()
	srv := r.srv
	r.mu.Unlock()
	rec := httptest.NewRecorder()
	srv.MetricsHandler().ServeHTTP(rec, httptest.NewRequest("GET", "/metrics", nil))
	sc := bufio.NewScanner(rec.Body)
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), "relay_ack_duration_seconds_count "); ok {
			n, err := strconv.Atoi(v)
			if err != nil {
				r.t.Fatal(err)
			}
			return n
		}
	}
	r.t.Fatal("no relay_ack_duration_seconds_count in the metrics")
	return 0
}

// waitDeviceQueueEmpty waits until the device has ACKed everything, and
// returns when it saw it so.
func waitDeviceQueueEmpty(t *testing.T, r *liveRelay, device string) time.Time {
	t.Helper()
	for deadline := time.Now().Add(20 * time.Second); ; {
		if r.count(`SELECT count(*) FROM queue WHERE device_id = $1`, device) == 0 {
			return time.Now()
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d envelopes still queued for the device: it did not ACK them", r.count(`SELECT count(*) FROM queue WHERE device_id = $1`, device))
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// TestACKIntervalIsTheClients reads ACK_INTERVAL_MS from stream.js, so that
// the bounds of the tests below are the client's.
func TestACKIntervalIsTheClients(t *testing.T) {
	r := startRelay(t)
	_, tb := r.newProfile(t)
	tb.waitFor("the page", `document.getElementById('auth-username') || document.getElementById('tab-register')`)
	if ms := eval[int](tb, `import('/stream.js').then(m => m.ACK_INTERVAL_MS)`); time.Duration(ms)*time.Millisecond != ackInterval {
		t.Fatalf("ACK_INTERVAL_MS is %d, the tests assume %v", ms, ackInterval)
	}
}

// TestBurstIsACKedInFewRequests: a Go peer sends 60 messages to alice's
// browser, one every 25 ms. The client ACKs at most once per
// ACK_INTERVAL_MS while they keep arriving, plus the first at once and the
// last after the burst: at most ceil(span/150 ms)+2 ACKs, counted at the
// relay, where span runs from the first send to the empty queue. Every
// message is shown once and the queue empties. The client before sent one
// ACK per batch (the control: 39 ACKs over 2.3 s, against a bound of 18).
func TestBurstIsACKedInFewRequests(t *testing.T) {
	const n = 60
	const every = 25 * time.Millisecond
	r := startRelay(t)
	bob := newGoPeer(t, r, "bob")
	_, alice := r.newProfile(t)
	alice.register("alice")
	alice.openChat("bob")
	alice.waitFor("bob's key", `import('/store.js').then(s => s.getChat('bob')).then(c => !!(c && c.publicKey))`)
	device := alice.deviceID()
	before := r.acks()

	start := time.Now()
	tick := time.NewTicker(every)
	for i := 1; i <= n; i++ {
		bob.sendText("alice", fmt.Sprintf("burst %d", i))
		if i < n {
			<-tick.C
		}
	}
	tick.Stop()
	sent := time.Since(start)
	alice.waitFor("every message shown", `document.querySelectorAll('#messages .msg.in').length >= `+strconv.Itoa(n))
	span := waitDeviceQueueEmpty(t, r, device).Sub(start)

	got := r.acks() - before
	bound := int((span+ackInterval-1)/ackInterval) + 2
	t.Logf("%d messages sent in %v; queue empty %v after the first; %d ACKs (bound %d)", n, sent.Round(time.Millisecond), span.Round(time.Millisecond), got, bound)
	if got > bound {
		t.Fatalf("%d ACK requests for %d messages over %v, want at most %d", got, n, span.Round(time.Millisecond), bound)
	}
	if got < 1 {
		t.Fatal("the queue emptied without an ACK")
	}
	want := make([]string, n)
	for i := range want {
		want[i] = fmt.Sprintf("burst %d", i+1)
	}
	if shown := alice.messages(); !slices.Equal(shown, want) {
		t.Fatalf("alice shows %d messages %q, want the %d in order, once each", len(shown), shown, n)
	}
}

// recordACKs makes the page note every ACK it sends, with its keepalive
// flag, in window.acks: it watches fetch and changes nothing.
const recordACKs = `(() => {
  const f = window.fetch;
  window.acks = [];
  window.fetch = (url, init) => {
    if (String(url).endsWith('/api/ack')) window.acks.push({upTo: JSON.parse(init.body).upTo, keepalive: !!init.keepalive});
    return f(url, init);
  };
})()`

// leaveOnPendingACK is a script that waits, in the page, until an ACK is
// scheduled (stream.js's pendingAck); to hide the page, it does so in the
// same task, so that the scheduled timer cannot have fired before. It
// answers {seq} (what the ACK covers), or {seq: 0} when the envelopes up
// to target were ACKed at once, with no ACK left to schedule.
func leaveOnPendingACK(how string, target int) string {
	leave := "" // the test closes the tab as soon as it has the answer
	if how == "hidden" {
		// Headless Chromium has no window to hide: the page is told.
		leave = `Object.defineProperty(document, 'visibilityState', {value: 'hidden', configurable: true}); document.dispatchEvent(new Event('visibilitychange'));`
	}
	return `(async () => {
  const inbox = await import('/stream.js');
  const deadline = performance.now() + 20000;
  while (performance.now() < deadline) {
    const seq = inbox.pendingAck();
    if (seq) {
      ` + leave + `
      return {seq, pendingAfter: inbox.pendingAck(), last: window.acks[window.acks.length - 1] || null};
    }
    if (window.acks.some((a) => a.upTo >= ` + strconv.Itoa(target) + `)) return {seq: 0};
    await new Promise((r) => setTimeout(r, 2));
  }
  return {seq: -1};
})()`
}

// TestLeavingThePageSendsTheACK: alice's page has written messages whose
// ACK waits for the interval, and in that moment it is left (as on close)
// or hidden. The ACK goes at once, as a keepalive request, and the rows
// leave the queue. The controls: a client without the pagehide handler
// leaves the rows queued (its timer never fires once the page is gone);
// one without the visibilitychange handler still has its ACK scheduled
// after the page was hidden.
func TestLeavingThePageSendsTheACK(t *testing.T) {
	for _, how := range []string{"closed", "hidden"} {
		t.Run(how, func(t *testing.T) {
			r := startRelay(t)
			bob := newGoPeer(t, r, "bob")
			p := browser.New(t)
			tabCtx, closeTab := p.NewTab(t)
			alice := r.openTab(t, tabCtx)
			alice.register("alice")
			alice.openChat("bob")
			alice.waitFor("bob's key", `import('/store.js').then(s => s.getChat('bob')).then(c => !!(c && c.publicKey))`)
			device := alice.deviceID()
			eval[chromedp.Void](alice, recordACKs)

			// Two messages back to back: the first is ACKed at once, the
			// second, written within the interval, waits for it. Should
			// both be ACKed at once (a slow moment), the next pair is tried.
			type left struct {
				Seq          int
				PendingAfter int
				Last         *struct {
					UpTo      int
					Keepalive bool
				}
			}
			var got left
			for pair := 1; got.Seq == 0; pair++ {
				if pair > 10 {
					t.Fatal("10 pairs of messages, each ACKed at once: no ACK was ever scheduled")
				}
				bob.sendText("alice", fmt.Sprintf("first %d", pair))
				bob.sendText("alice", fmt.Sprintf("second %d", pair))
				got = eval[left](alice, leaveOnPendingACK(how, 2*pair))
				if got.Seq < 0 {
					t.Fatal("the page neither scheduled nor sent the ACK of the pair")
				}
			}
			if how == "closed" {
				closeTab()
			}
			t.Logf("left with the ACK of seq %d scheduled", got.Seq)
			if how == "hidden" {
				if got.PendingAfter != 0 {
					t.Fatalf("the ACK of seq %d is still scheduled after the page was hidden", got.PendingAfter)
				}
				if got.Last == nil || got.Last.UpTo != got.Seq || !got.Last.Keepalive {
					t.Fatalf("the last ACK sent is %+v, want a keepalive ACK of seq %d", got.Last, got.Seq)
				}
			}
			// A closing page's keepalive request can reach the relay many
			// seconds late on a loaded machine: the bound is generous, and
			// a test that passes never waits it out.
			for deadline := time.Now().Add(time.Minute); r.count(`SELECT count(*) FROM queue WHERE device_id = $1 AND seq <= $2`, device, got.Seq) > 0; {
				if time.Now().After(deadline) {
					t.Fatalf("the envelopes up to seq %d are still queued after the page was %s", got.Seq, how)
				}
				time.Sleep(20 * time.Millisecond)
			}
		})
	}
}

// TestLostACKIsReplayedAndRecognised: alice's ACKs of three messages are
// lost (the request fails, or the relay answers 503), and not tried again
// by themselves. When the page comes back, the relay replays the three; the
// client knows them by seq, shows each once and ACKs them, and the queue
// empties. The control: a client that ACKs only what a batch newly wrote,
// not the replays it recognises, leaves them queued for good.
func TestLostACKIsReplayedAndRecognised(t *testing.T) {
	for _, tc := range []struct {
		name string
		fail func(ctx context.Context, id fetch.RequestID)
	}{
		{name: "request fails", fail: func(ctx context.Context, id fetch.RequestID) {
			_, _ = chromedp.Call(ctx, fetch.FailRequest, fetch.FailRequestParams{RequestID: id, ErrorReason: network.ErrorReasonConnectionReset})
		}},
		{name: "relay answers 503", fail: func(ctx context.Context, id fetch.RequestID) {
			_, _ = chromedp.Call(ctx, fetch.FulfillRequest, fetch.FulfillRequestParams{RequestID: id, ResponseCode: 503,
				ResponseHeaders: []*fetch.HeaderEntry{{Name: "Content-Type", Value: "application/json"}},
				Body:            []byte(`{"error":"not_ready","message":"the relay is not ready"}`)})
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := startRelay(t)
			bob := newGoPeer(t, r, "bob")
			_, alice := r.newProfile(t)
			alice.register("alice")
			alice.openChat("bob")
			alice.waitFor("bob's key", `import('/store.js').then(s => s.getChat('bob')).then(c => !!(c && c.publicKey))`)
			device := alice.deviceID()

			ctx, cancel := context.WithCancel(alice.ctx)
			defer cancel()
			var failing atomic.Bool
			var lostUpTo atomic.Int64 // the highest upTo of an ACK lost
			failing.Store(true)
			// Subscribed here, not in the goroutine: a request paused before
			// it would be lost, and hang.
			paused := chromedp.Events(ctx, fetch.RequestPaused)
			go func() {
				for ev, err := range paused {
					if err != nil {
						return
					}
					var ack struct{ UpTo int64 }
					for _, e := range ev.Request.PostDataEntries {
						_ = json.Unmarshal(e.Bytes, &ack)
					}
					if !failing.Load() {
						_, _ = chromedp.Call(ctx, fetch.ContinueRequest, fetch.ContinueRequestParams{RequestID: ev.RequestID})
						continue
					}
					tc.fail(ctx, ev.RequestID)
					for {
						old := lostUpTo.Load()
						if ack.UpTo <= old || lostUpTo.CompareAndSwap(old, ack.UpTo) {
							break
						}
					}
				}
			}()
			if _, err := chromedp.Call(ctx, fetch.Enable, fetch.EnableParams{Patterns: []*fetch.RequestPattern{{URLPattern: "*/api/ack", RequestStage: fetch.RequestStageRequest}}}); err != nil {
				t.Fatal(err)
			}

			want := []string{"one", "two", "three"}
			for _, m := range want {
				bob.sendText("alice", m)
			}
			alice.waitMessage("three")
			// Every ACK, the one of seq 3 included, was lost: nothing waits
			// to be sent, and the three stay queued.
			for deadline := time.Now().Add(20 * time.Second); lostUpTo.Load() < 3; {
				if time.Now().After(deadline) {
					t.Fatalf("no ACK of seq 3 was sent (the highest lost: %d)", lostUpTo.Load())
				}
				time.Sleep(20 * time.Millisecond)
			}
			if n := r.count(`SELECT count(*) FROM queue WHERE device_id = $1`, device); n != 3 {
				t.Fatalf("%d envelopes queued after the lost ACKs, want 3", n)
			}

			failing.Store(false)
			alice.do(chromedp.Navigate("about:blank"), chromedp.Navigate(r.URL+"/#/chat/bob"))
			alice.waitMessage("three")
			waitDeviceQueueEmpty(t, r, device)
			if got := alice.messages(); !slices.Equal(got, want) {
				t.Fatalf("alice shows %q, want %q", got, want)
			}
			if n := eval[int](alice, `import('/store.js').then(s => s.getMessages('bob')).then(m => m.length)`); n != len(want) {
				t.Fatalf("%d messages stored, want %d", n, len(want))
			}
		})
	}
}
