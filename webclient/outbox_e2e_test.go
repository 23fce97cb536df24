package webclient_test

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/chromedp/cdproto/fetch"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"

	"relay/internal/browser"
	"relay/relay"
)

// skewedClockJS runs the page's clock off by %d milliseconds: Date.now()
// and new Date() say so; a Date of a given time is that time.
const skewedClockJS = `(() => {
  const off = %d;
  const D = Date;
  class SkewedDate extends D {
    constructor(...a) { if (a.length) super(...a); else super(D.now() + off); }
    static now() { return D.now() + off; }
  }
  window.Date = SkewedDate;
})();`

// skewClock sets the clock of every page the profile loads from now on.
func skewClock(t *testing.T, ctx context.Context, off time.Duration) {
	t.Helper()
	src := fmt.Sprintf(skewedClockJS, off.Milliseconds())
	if _, err := chromedp.Call(ctx, page.AddScriptToEvaluateOnNewDocument, page.AddScriptToEvaluateOnNewDocumentParams{Source: src}); err != nil {
		t.Fatal(err)
	}
}

// pageClockOff returns how far the page's clock is from this process's.
func pageClockOff(tb *tab) time.Duration {
	tb.t.Helper()
	ms := eval[int64](tb, `Date.now()`)
	return time.Until(time.UnixMilli(ms)).Round(time.Minute)
}

// TestOneOrderWithASlowClock: alice's device clock is 4 minutes behind,
// inside the relay's window. Bob asks, alice answers: both screens show the
// answer below the question, because a chat is ordered by the relay's
// accept time on every device (docs/storage.md, "Order"). The control is
// the skew itself: ordered by alice's clock, her answer would be 4 minutes
// before the question, which is what the client showed before.
func TestOneOrderWithASlowClock(t *testing.T) {
	r := startRelay(t)
	p := browser.New(t)
	skewClock(t, p.Ctx, -4*time.Minute)
	alice := r.openTab(t, p.Ctx)
	_, bob := r.newProfile(t)
	if off := pageClockOff(alice); off != -4*time.Minute {
		t.Fatalf("alice's clock is %v off, want -4m: the test would not test the skew", off)
	}
	alice.register("alice")
	bob.register("bob")

	bob.openChat("alice")
	bob.send("are you there?")
	bob.waitFor("the question sent", `document.querySelector('#messages .msg.out[data-status="sent"]')`)
	alice.openChat("bob")
	alice.waitMessage("are you there?")
	// The question's row is marked: when the answer moves, the list is
	// updated in place, not rebuilt.
	eval[bool](alice, `(document.querySelector('#messages .msg.in').dataset.mark = 'kept', true)`)
	alice.send("yes, here")
	alice.waitFor("the answer sent", `document.querySelector('#messages .msg.out[data-status="sent"]')`)
	bob.waitMessage("yes, here")
	if !eval[bool](alice, `document.querySelector('#messages .msg.in').dataset.mark === 'kept'`) {
		t.Error("alice's list was rebuilt for one message: the question's row is a new node")
	}

	want := []string{"are you there?", "yes, here"}
	for _, side := range []struct {
		name string
		tb   *tab
	}{{"alice", alice}, {"bob", bob}} {
		if got := side.tb.messages(); !slices.Equal(got, want) {
			t.Errorf("%s shows %q, want %q", side.name, got, want)
		}
	}
	// The answer's id carries alice's clock, 4 minutes before the question.
	if !eval[bool](alice, `import('/store.js').then(async s => {
	  const ms = await s.getMessages('bob');
	  const u = await import('/ulid.js');
	  const ans = ms.find(m => m.text === 'yes, here'), qu = ms.find(m => m.text === 'are you there?');
	  return u.ulidTime(ans.id) < u.ulidTime(qu.id) && ans.sort >= qu.sort;
	})`) {
		t.Fatal("the answer's id is not behind the question's, or its order key is not after it")
	}
	// The same order from storage, as a chat opened again reads it.
	alice.do(chromedp.Reload())
	alice.waitMessage("yes, here")
	if got := alice.messages(); !slices.Equal(got, want) {
		t.Errorf("alice, after a reload, shows %q, want %q", got, want)
	}
}

// failedWatchJS records every message row that ever shows as failed.
const failedWatchJS = `(() => {
  window.__failedSeen = [];
  new MutationObserver(() => {
    for (const e of document.querySelectorAll('#messages .msg.failed')) window.__failedSeen.push(e.querySelector('.text').textContent);
  }).observe(document.body, { subtree: true, childList: true, attributes: true });
  return true;
})()`

// TestRateLimitIsAWait: with the relay's limit at 12 a minute (a token
// every 5 seconds), alice sends 14 messages at once. The ones over the
// limit wait Retry-After, showing a countdown, and go by themselves: none
// is ever shown failed, and both sides show the typed order (docs/storage.md,
// "Order"). The control is the relay's count of refusals: the test fails
// unless some message was refused and waited.
func TestRateLimitIsAWait(t *testing.T) {
	r, alice, bob := aliceAndBob(t, func(c *relay.Config) { c.RatePerMinute = 12 })
	alice.openChat("bob")
	bob.openChat("alice")
	base := groupMade(t, r, alice, "bob")

	// Count the 429s the browser saw.
	ctx, cancel := context.WithCancel(alice.ctx)
	defer cancel()
	var refused atomic.Int32
	// Subscribed here, not in the goroutine: a request paused before
	// it would be lost, and hang.
	paused := chromedp.Events(ctx, fetch.RequestPaused)
	go func() {
		for ev, err := range paused {
			if err != nil {
				return
			}
			if ev.ResponseStatusCode == 429 {
				refused.Add(1)
			}
			_, _ = chromedp.Call(ctx, fetch.ContinueRequest, fetch.ContinueRequestParams{RequestID: ev.RequestID})
		}
	}()
	if _, err := chromedp.Call(ctx, fetch.Enable, fetch.EnableParams{Patterns: []*fetch.RequestPattern{{URLPattern: "*/api/messages", RequestStage: fetch.RequestStageResponse}}}); err != nil {
		t.Fatal(err)
	}
	eval[bool](alice, failedWatchJS)

	var typed []string
	var keys strings.Builder
	for i := 1; i <= 14; i++ {
		typed = append(typed, fmt.Sprintf("m%02d", i))
		keys.WriteString(typed[i-1] + "\r")
	}
	alice.send(strings.TrimSuffix(keys.String(), "\r"))
	alice.waitFor("a countdown", `[...document.querySelectorAll('#messages .msg.out .wait')].some(e => /^Waiting [2-9] seconds to send/.test(e.textContent))`)
	// Waiting, the messages keep the typed order: the waiting one below
	// those accepted before it, the ones typed after it below it.
	if got := alice.messages(); !slices.Equal(got, typed) {
		t.Errorf("while one waits, alice shows %q, want the typed order", got)
	}
	alice.screenshot("waiting")
	alice.do(chromedp.EmulateViewport(390, 800))
	alice.screenshot("waiting-390")
	if !eval[bool](alice, `document.documentElement.scrollWidth <= window.innerWidth`) {
		t.Error("the page overflows sideways at 390 px with a countdown shown")
	}
	alice.do(chromedp.EmulateViewport(1280, 800))
	alice.screenshot("waiting-1280")
	alice.waitFor("the countdown at one second", `[...document.querySelectorAll('#messages .msg.out .wait')].some(e => e.textContent.startsWith('Waiting 1 second to send'))`)
	alice.waitFor("all 14 sent", `document.querySelectorAll('#messages .msg.out[data-status="sent"]').length === 14`)
	bob.waitFor("all 14 at bob", `document.querySelectorAll('#messages .msg.in').length === 14`)

	if refused.Load() == 0 {
		t.Fatal("the relay refused nothing: the test did not reach the rate limit")
	}
	if seen := eval[[]string](alice, `window.__failedSeen`); len(seen) > 0 {
		t.Errorf("messages shown failed on the way: %q", seen)
	}
	if got := alice.messages(); !slices.Equal(got, typed) {
		t.Errorf("alice shows %q, want the typed order", got)
	}
	if got := bob.messages(); !slices.Equal(got, typed) {
		t.Errorf("bob shows %q, want the typed order", got)
	}
	if n := r.count(`SELECT count(*) FROM sent s JOIN accounts a ON a.id = s.account_id WHERE a.username = 'alice' AND s.to_username = 'bob'`) - base; n != 14 {
		t.Errorf("the relay accepted %d envelopes from alice to bob after the chat's group was made, want 14", n)
	}
	t.Logf("%d answers 429 on the way", refused.Load())
}

// postWatchJS records each POST /api/messages the page makes: the id, the
// error its stored record has at that moment, and the answer's status (0
// while none came).
const postWatchJS = `(() => {
  const f = window.fetch;
  window.__posts = [];
  window.fetch = async function (input, init) {
    if (init && init.method === 'POST' && String(input).endsWith('/api/messages')) {
      const id = JSON.parse(init.body).id;
      const store = await import('/store.js');
      const rec = await store.getMessage(id);
      const seen = { id, hasRecord: !!rec, error: (rec && rec.error && rec.error.code) || '', status: 0 };
      window.__posts.push(seen);
      const res = await f.apply(this, arguments);
      seen.status = res.status;
      return res;
    }
    return f.apply(this, arguments);
  };
})();`

type postSeen struct {
	ID        string `json:"id"`
	HasRecord bool   `json:"hasRecord"`
	Error     string `json:"error"`
	Status    int    `json:"status"`
}

// answeredPosts is the requests of messages that the relay answered. The
// page may retry before the test lets requests through: those fail on
// the way out, unanswered, and must carry the id kept, keptID. Envelopes
// of no stored message are left out: an MLS commit, such as the daily
// update of the device's leaf, which a clock set back across midnight
// brings.
func answeredPosts(t *testing.T, posts []postSeen, keptID string) []postSeen {
	t.Helper()
	var answered []postSeen
	for _, p := range posts {
		switch {
		case !p.HasRecord && p.ID != keptID:
		case p.Status != 0:
			answered = append(answered, p)
		case p.ID != keptID:
			t.Fatalf("requests after the reload: %+v; one that never reached the relay carried %s, not the id kept (%s)", posts, p.ID, keptID)
		}
	}
	return answered
}

// TestReusedIDRefusedAsSkewedIsSentOnceFresh: a message waits for the
// network; then the device clock is set 6 minutes back (and the relay's
// with it, so that the two agree again). The waiting id, sent once, is now
// 6 minutes ahead of both clocks: the client keeps it, the relay knows no
// envelope of it and refuses it as clock_skew, and the client sends once
// more under a fresh id, whose record carries no error of the attempts
// before (ADR 0011, ADR 0084, docs/storage.md, "Ids"). Bob gets it once.
// The controls: the client before ADR 0084 renewed the id before the
// first retry (the first request after the clock moved carried a new id),
// and a client without the fresh retry shows the message failed.
func TestReusedIDRefusedAsSkewedIsSentOnceFresh(t *testing.T) {
	var relayOff atomic.Int64
	r := startRelay(t, func(c *relay.Config) {
		c.Now = func() time.Time { return time.Now().Add(time.Duration(relayOff.Load())) }
	})
	p := browser.New(t)
	alice := r.openTab(t, p.Ctx)
	_, bob := r.newProfile(t)
	alice.register("alice")
	bob.register("bob")
	alice.openChat("bob")
	base := groupMade(t, r, alice, "bob")

	// Until let is set, no message reaches the relay.
	var let atomic.Bool
	ctx, cancel := context.WithCancel(alice.ctx)
	defer cancel()
	// Subscribed here, not in the goroutine: a request paused before
	// it would be lost, and hang.
	paused := chromedp.Events(ctx, fetch.RequestPaused)
	go func() {
		for ev, err := range paused {
			if err != nil {
				return
			}
			if !let.Load() {
				_, _ = chromedp.Call(ctx, fetch.FailRequest, fetch.FailRequestParams{RequestID: ev.RequestID, ErrorReason: network.ErrorReasonConnectionReset})
				continue
			}
			_, _ = chromedp.Call(ctx, fetch.ContinueRequest, fetch.ContinueRequestParams{RequestID: ev.RequestID})
		}
	}()
	if _, err := chromedp.Call(ctx, fetch.Enable, fetch.EnableParams{Patterns: []*fetch.RequestPattern{{URLPattern: "*/api/messages", RequestStage: fetch.RequestStageRequest}}}); err != nil {
		t.Fatal(err)
	}
	alice.send("after the clock moved")
	alice.waitFor("the message waiting for the network", `import('/store.js').then(async s => (await s.pendingMessages()).some(m => m.tries > 0 && m.error && m.error.code === 'network'))`)
	oldID := eval[string](alice, `import('/store.js').then(async s => (await s.pendingMessages())[0].id)`)

	skewClock(t, p.Ctx, -6*time.Minute)
	if _, err := chromedp.Call(p.Ctx, page.AddScriptToEvaluateOnNewDocument, page.AddScriptToEvaluateOnNewDocumentParams{Source: postWatchJS}); err != nil {
		t.Fatal(err)
	}
	relayOff.Store(int64(-6 * time.Minute))
	alice.do(chromedp.Reload())
	alice.waitFor("the chat after the reload", `document.getElementById('composer')`)
	if off := pageClockOff(alice); off != -6*time.Minute {
		t.Fatalf("alice's clock is %v off, want -6m", off)
	}
	let.Store(true)
	alice.waitFor("the message sent", `document.querySelector('#messages .msg.out[data-status="sent"]')`)
	bob.openChat("alice")
	bob.waitMessage("after the clock moved")

	posts := answeredPosts(t, eval[[]postSeen](alice, `window.__posts`), oldID)
	if len(posts) != 2 {
		t.Fatalf("requests answered after the reload: %+v; want the kept id refused, then one fresh id accepted", posts)
	}
	if posts[0].ID != oldID || posts[0].Status != 400 {
		t.Fatalf("the first retry: %+v; want the id sent once (%s), refused as clock_skew", posts[0], oldID)
	}
	if posts[1].ID == oldID || posts[1].Status != 202 {
		t.Fatalf("the second retry: %+v; want a fresh id, accepted", posts[1])
	}
	if !posts[1].HasRecord || posts[1].Error != "" {
		t.Errorf("the renewed record, as it was sent: %+v; want it stored with no error", posts[1])
	}
	if n := eval[int](alice, `import('/store.js').then(async s => (await s.getMessages('bob')).length)`); n != 1 {
		t.Errorf("alice stores %d messages for bob, want 1 (the old record replaced)", n)
	}
	if n := r.count(`SELECT count(*) FROM sent s JOIN accounts a ON a.id = s.account_id WHERE a.username = 'alice'`) - base; n != 1 {
		t.Errorf("the relay accepted %d envelopes from alice after the chat's group was made, want 1", n)
	}
	if got := bob.messages(); len(got) != 1 {
		t.Errorf("bob shows %q, want the message once", got)
	}
}

// TestLostAnswerRetriedADayLaterIsRecognised: alice's message is
// committed and its 202 lost; her device then stays offline for a day
// (both clocks move 25 hours on). Her client retries with the id it sent
// once, which is a day old to the relay: the relay still remembers the
// envelope (ADR 0084, --dedup-window) and answers 202 with the original
// ts. One envelope, one message at bob's. The controls: the client before
// ADR 0084 renewed the day-old id before retrying, and the relay before
// it refused the old id as clock_skew, after which the client renewed it;
// either way the relay accepted the message twice.
func TestLostAnswerRetriedADayLaterIsRecognised(t *testing.T) {
	var relayOff atomic.Int64
	r := startRelay(t, func(c *relay.Config) {
		c.Now = func() time.Time { return time.Now().Add(time.Duration(relayOff.Load())) }
	})
	p := browser.New(t)
	alice := r.openTab(t, p.Ctx)
	_, bob := r.newProfile(t)
	alice.register("alice")
	bob.register("bob")
	alice.openChat("bob")
	base := groupMade(t, r, alice, "bob")

	// The first POST reaches the relay and its answer is lost; the next
	// ones fail on the way out until let is set: the device is offline.
	var let atomic.Bool
	var sent, answered atomic.Int32
	ctx, cancel := context.WithCancel(alice.ctx)
	defer cancel()
	// Subscribed here, not in the goroutine: a request paused before
	// it would be lost, and hang.
	paused := chromedp.Events(ctx, fetch.RequestPaused)
	go func() {
		for ev, err := range paused {
			if err != nil {
				return
			}
			answer := ev.ResponseStatusCode != 0 || ev.ResponseErrorReason != ""
			drop := ev.Request.Method == "POST" && !let.Load() && (answer && answered.Add(1) == 1 || !answer && sent.Add(1) > 1)
			if drop {
				_, _ = chromedp.Call(ctx, fetch.FailRequest, fetch.FailRequestParams{RequestID: ev.RequestID, ErrorReason: network.ErrorReasonConnectionReset})
				continue
			}
			_, _ = chromedp.Call(ctx, fetch.ContinueRequest, fetch.ContinueRequestParams{RequestID: ev.RequestID})
		}
	}()
	if _, err := chromedp.Call(ctx, fetch.Enable, fetch.EnableParams{Patterns: []*fetch.RequestPattern{
		{URLPattern: "*/api/messages", RequestStage: fetch.RequestStageRequest},
		{URLPattern: "*/api/messages", RequestStage: fetch.RequestStageResponse},
	}}); err != nil {
		t.Fatal(err)
	}
	fromAlice := func() int {
		return r.count(`SELECT count(*) FROM sent s JOIN accounts a ON a.id = s.account_id WHERE a.username = 'alice'`) - base
	}
	alice.send("sent before the flight")
	alice.waitFor("the message waiting for the network", `import('/store.js').then(async s => (await s.pendingMessages()).some(m => m.tries > 0 && m.error && m.error.code === 'network'))`)
	if n := fromAlice(); n != 1 {
		t.Fatalf("the relay holds %d envelopes from alice, want the first attempt committed", n)
	}
	oldID := eval[string](alice, `import('/store.js').then(async s => (await s.pendingMessages())[0].id)`)
	var origTS int64
	if err := r.Pool.QueryRow(context.Background(), `SELECT ts FROM sent WHERE envelope_id = $1`, oldID).Scan(&origTS); err != nil {
		t.Fatal(err)
	}

	skewClock(t, p.Ctx, 25*time.Hour)
	if _, err := chromedp.Call(p.Ctx, page.AddScriptToEvaluateOnNewDocument, page.AddScriptToEvaluateOnNewDocumentParams{Source: postWatchJS}); err != nil {
		t.Fatal(err)
	}
	relayOff.Store(int64(25 * time.Hour))
	alice.do(chromedp.Reload())
	alice.waitFor("the chat after the reload", `document.getElementById('composer')`)
	if off := pageClockOff(alice); off != 25*time.Hour {
		t.Fatalf("alice's clock is %v off, want 25h", off)
	}
	let.Store(true)
	alice.waitFor("the message sent", `document.querySelector('#messages .msg.out[data-status="sent"]')`)

	if n := fromAlice(); n != 1 {
		t.Fatalf("the relay accepted %d envelopes from alice, want 1: the retry was not recognised", n)
	}
	posts := answeredPosts(t, eval[[]postSeen](alice, `window.__posts`), oldID)
	if len(posts) != 1 || posts[0].ID != oldID || posts[0].Status != 202 {
		t.Fatalf("requests answered after the reload: %+v; want the id sent once (%s), answered 202", posts, oldID)
	}
	if ts := eval[int64](alice, `import('/store.js').then(async s => (await s.getMessage('`+oldID+`')).ts)`); ts != origTS {
		t.Errorf("alice's message shows ts %d, want the relay's original %d", ts, origTS)
	}
	bob.openChat("alice")
	bob.waitMessage("sent before the flight")
	if got := bob.messages(); len(got) != 1 {
		t.Errorf("bob shows %q, want the message once", got)
	}
}

// TestOneChatWaitingHoldsBackNoOther: alice's first envelope to bob (the
// commit that makes their chat's MLS group) hangs on its way to the
// relay; her message to carol, typed after bob's two, is sent all the
// same, and bob's go once the request is let through (docs/storage.md,
// "Order": each chat's outbox in order, chats independent). The controls
// are the hold itself: before, one pass over every chat waited for it,
// and one lock for every chat's group held carol's behind bob's commit.
func TestOneChatWaitingHoldsBackNoOther(t *testing.T) {
	r, alice, bob := aliceAndBob(t)
	_, carol := r.newProfile(t)
	carol.register("carol")

	ctx, cancel := context.WithCancel(alice.ctx)
	defer cancel()
	held := make(chan fetch.RequestID, 1)
	var seen atomic.Int32
	var mu sync.Mutex
	var left []string // the ids of the envelopes let through
	// Subscribed here, not in the goroutine: a request paused before
	// it would be lost, and hang.
	paused := chromedp.Events(ctx, fetch.RequestPaused)
	go func() {
		for ev, err := range paused {
			if err != nil {
				return
			}
			if ev.Request.Method == "POST" && seen.Add(1) == 1 {
				held <- ev.RequestID // the first envelope to bob: hold it
				continue
			}
			var env struct{ ID string }
			for _, e := range ev.Request.PostDataEntries {
				_ = json.Unmarshal(e.Bytes, &env)
			}
			mu.Lock()
			left = append(left, env.ID)
			mu.Unlock()
			_, _ = chromedp.Call(ctx, fetch.ContinueRequest, fetch.ContinueRequestParams{RequestID: ev.RequestID})
		}
	}()
	if _, err := chromedp.Call(ctx, fetch.Enable, fetch.EnableParams{Patterns: []*fetch.RequestPattern{{URLPattern: "*/api/messages", RequestStage: fetch.RequestStageRequest}}}); err != nil {
		t.Fatal(err)
	}
	alice.openChat("bob")
	alice.send("to bob, held")
	var id fetch.RequestID
	select {
	case id = <-held:
	case <-time.After(20 * time.Second):
		t.Fatal("alice's message to bob never left")
	}
	alice.send("to bob, after it")
	alice.waitMessage("to bob, after it")
	toBob := eval[[]string](alice, `import('/store.js').then(s => s.getMessages('bob')).then(ms => ms.map(m => m.id))`)
	alice.openChat("carol")
	alice.send("to carol, not held")
	alice.waitFor("the message to carol sent while bob's hangs", `document.querySelector('#messages .msg.out[data-status="sent"]')`)
	carol.openChat("alice")
	carol.waitMessage("to carol, not held")
	// Neither message to bob has left: the first waits for the held
	// request, the second for the first.
	mu.Lock()
	for _, l := range left {
		if slices.Contains(toBob, l) {
			t.Fatalf("a message to bob left while the first envelope to bob was held: %s of %v", l, left)
		}
	}
	mu.Unlock()

	if _, err := chromedp.Call(ctx, fetch.ContinueRequest, fetch.ContinueRequestParams{RequestID: id}); err != nil {
		t.Fatal(err)
	}
	alice.openChat("bob")
	alice.waitFor("both messages to bob sent", `document.querySelectorAll('#messages .msg.out[data-status="sent"]').length === 2`)
	bob.openChat("alice")
	bob.waitMessage("to bob, after it")
	want := []string{"to bob, held", "to bob, after it"}
	if got := bob.messages(); !slices.Equal(got, want) {
		t.Errorf("bob shows %q, want %q", got, want)
	}
	if got := alice.messages(); !slices.Equal(got, want) {
		t.Errorf("alice shows %q, want %q", got, want)
	}
}
