package webclient_test

import (
	"fmt"
	"math"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"
)

// msgFocus says where the focus is: a message by its text, a button in it
// after " > " by its label, else the focused element's id.
const msgFocus = `(() => {
  const a = document.activeElement;
  const m = a && a.closest('#messages .msg');
  if (!m) return a && a.id ? '#' + a.id : (a ? a.tagName : '');
  const t = m.querySelector('.text').textContent;
  return a === m ? t : t + ' > ' + (a.getAttribute('aria-label') || a.textContent);
})()`

// settled waits until the page has drawn two more frames: what a resize or
// a scroll sets off (layout, resize observers, scroll events) has run.
func settled(tb *tab) {
	tb.t.Helper()
	eval[bool](tb, `new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(() => r(true))))`)
}

// TestMessageListKeys: in a long chat the messages are one Tab stop (the
// newest, then its own ⋯ button, then the composer), not one per ⋯; with
// real key events the arrows, Home and End move between messages, Tab goes
// into the focused message's buttons, Enter opens its menu, the arrows
// move within the menu (round from the last to the first) and Esc closes
// it with the focus back on ⋯. axe-core finds nothing serious.
func TestMessageListKeys(t *testing.T) {
	_, alice, bob := aliceAndBob(t)
	bob.openChat("alice")
	sendMany(bob, "alice", "m ", 30)
	// All there before the chat opens: one arriving after would show the
	// New messages button, which goes once the list is at the bottom,
	// with the focus if a Tab has just reached it.
	alice.waitFor("30 unread", unreadIs("bob", 30))
	alice.openChat("bob")
	alice.waitMessage("m 29")
	// Read to the end: the unread messages below the view have their
	// New messages button, a Tab stop of its own.
	eval[chromedp.Void](alice, `document.getElementById('messages').scrollTop = document.getElementById('messages').scrollHeight`)
	alice.waitFor("all read, no New messages button", `import('/store.js').then(s => s.getChat('bob')).then(c => c.unread === 0 && document.getElementById('jump-new').hidden)`)
	at := func(want string) {
		t.Helper()
		if got := eval[string](alice, msgFocus); got != want {
			alice.screenshot("focus")
			t.Fatalf("the focus is on %q, want %q", got, want)
		}
	}
	key := func(k string, want string, mods ...chromedp.KeyOption) {
		t.Helper()
		alice.do(chromedp.KeyEvent(k, mods...))
		at(want)
	}
	shift := chromedp.KeyModifiers(chromedp.ModifierShift)

	// Every Tab stop between the chat's header and the composer: the
	// messages, then the composer's attach button.
	alice.do(chromedp.Focus(chromedp.ID("safety-btn")))
	var stops []string
	for len(stops) < 100 {
		alice.do(chromedp.KeyEvent(kb.Tab))
		f := eval[string](alice, msgFocus)
		if f == "#composer" {
			break
		}
		stops = append(stops, f)
	}
	if want := []string{"m 29", "m 29 > Message actions", "#attach-btn"}; fmt.Sprint(stops) != fmt.Sprint(want) {
		t.Fatalf("%d Tab stops between the chat's header and the composer: %q, want %q", len(stops), stops, want)
	}
	key(kb.Tab, "#attach-btn", shift)
	key(kb.Tab, "m 29", shift)
	if hint := eval[string](alice, `document.getElementById(document.activeElement.getAttribute('aria-describedby'))?.textContent || ''`); !strings.Contains(hint, "arrows move between messages") {
		t.Fatalf("the message focused is described by %q, not by how its keys work", hint)
	}

	key(kb.Home, "m 0")
	key(kb.ArrowUp, "m 0")
	key(kb.ArrowDown, "m 1")
	key(kb.End, "m 29")
	key(kb.ArrowDown, "m 29")
	key(kb.ArrowUp, "m 28")
	if !eval[bool](alice, `(() => { const l = document.getElementById('messages'); const stops = [...l.querySelectorAll('.msg')].filter((m) => m.tabIndex === 0); return l.tabIndex === -1 && stops.length === 1 && stops[0] === document.activeElement; })()`) {
		t.Fatal("after moving, the list has other Tab stops than the message focused")
	}
	if n := eval[int](alice, `[...document.querySelectorAll('#messages button')].filter((b) => b.tabIndex >= 0 && !document.activeElement.contains(b)).length`); n != 0 {
		t.Fatalf("%d buttons of messages not focused are Tab stops", n)
	}
	if !eval[bool](alice, inList(msgSelector(alice, "m 28"))) {
		t.Fatal("the message focused is not scrolled into view")
	}
	key(kb.Tab, "m 28 > Message actions")
	key(kb.Tab, "m 28", shift)

	// Enter opens the menu; the arrows go round it.
	key(kb.Enter, "m 28 > React with 👍")
	lastItem := eval[string](alice, `(() => { const b = [...document.querySelectorAll('#messages .menu button')].pop(); return 'm 28 > ' + (b.getAttribute('aria-label') || b.textContent); })()`)
	key(kb.ArrowDown, "m 28 > React with ❤️")
	key(kb.End, lastItem)
	key(kb.ArrowDown, "m 28 > React with 👍")
	key(kb.ArrowUp, lastItem)
	key(kb.Home, "m 28 > React with 👍")
	alice.do(chromedp.KeyEvent(kb.ArrowDown), chromedp.KeyEvent(kb.ArrowDown), chromedp.KeyEvent(kb.ArrowDown), chromedp.KeyEvent(kb.ArrowDown), chromedp.KeyEvent(kb.ArrowDown), chromedp.KeyEvent(kb.ArrowDown))
	at("m 28 > Reply")
	checkScreen(alice, "message-menu")
	key(kb.Escape, "m 28 > Message actions")
	if eval[bool](alice, `!!document.querySelector('#messages .menu')`) {
		t.Fatal("Esc left the menu open")
	}
	key(kb.Tab, "m 28", shift)
	axeCheck(alice, "a message focused")
}

// TestChatKeepsPlace: each resize or zoom keeps the first message in view
// (one partly above the top, at first) where it was in the list, and a list at
// the bottom at the bottom, although the texts wrap anew; a scroll of the
// chat's own as the New messages button goes stays.
func TestChatKeepsPlace(t *testing.T) {
	_, alice, bob := aliceAndBob(t)
	bob.openChat("alice")
	const line = "a line long enough to wrap at one width and not at another, or over more lines, number "
	sendMany(bob, "alice", line, 40)
	alice.do(chromedp.EmulateViewport(390, 700))
	alice.openChat("bob")
	alice.waitMessage(line + "39")
	eval[chromedp.Void](alice, `(() => { const l = document.getElementById('messages'); l.scrollTop += document.querySelector(`+js(msgSelector(alice, line+"20"))+`).getBoundingClientRect().top - l.getBoundingClientRect().top - 20; })()`)
	settled(alice)
	// The first message at least partly in view, and how far below the
	// list's top it begins.
	firstInView := `(() => { const top = document.getElementById('messages').getBoundingClientRect().top; return [...document.querySelectorAll('#messages .msg')].find((m) => m.getBoundingClientRect().bottom > top).querySelector('.text').textContent; })()`
	for _, v := range []struct {
		name          string
		width, height int64
		scale         float64
	}{
		{"a desktop's width", 1280, 800, 1},
		{"a zoom to 200 %", 640, 400, 2},
		{"a phone's width", 390, 700, 1},
	} {
		first := eval[string](alice, firstInView)
		offset := `(() => { const l = document.getElementById('messages'); return document.querySelector(` + js(msgSelector(alice, first)) + `).getBoundingClientRect().top - l.getBoundingClientRect().top; })()`
		before := eval[float64](alice, offset)
		alice.do(chromedp.EmulateViewport(v.width, v.height, chromedp.EmulateScale(v.scale)))
		settled(alice)
		if got := eval[float64](alice, offset); math.Abs(got-before) > 1 {
			alice.screenshot("place-lost")
			t.Fatalf("after %s the message %q that began %.0f px below the list's top begins %.0f px below it", v.name, first, before, got)
		}
	}

	eval[chromedp.Void](alice, `(() => { const l = document.getElementById('messages'); l.scrollTop = l.scrollHeight; })()`)
	settled(alice)
	alice.do(chromedp.EmulateViewport(320, 600))
	settled(alice)
	if gap := eval[float64](alice, `(() => { const l = document.getElementById('messages'); return l.scrollHeight - l.scrollTop - l.clientHeight; })()`); gap > 2 {
		alice.screenshot("bottom-lost")
		t.Fatalf("after a resize the list that was at the bottom is %.0f px above it", gap)
	}

	// The New messages button shortens the list, not the room around it: a
	// scroll of the chat's own as the button goes is not undone.
	eval[chromedp.Void](alice, `document.getElementById('jump-new').hidden = false`)
	settled(alice)
	want := eval[float64](alice, `(() => { const l = document.getElementById('messages'); l.scrollTop = Math.round(l.scrollHeight / 2); document.getElementById('jump-new').hidden = true; return l.scrollTop; })()`)
	settled(alice)
	if got := eval[float64](alice, `document.getElementById('messages').scrollTop`); math.Abs(got-want) > 1 {
		t.Fatalf("a scroll to %.0f px as the New messages button went ended at %.0f px", want, got)
	}
}

// TestSafetyCodeZoomed: at 200 % zoom on a 1280 × 800 screen the chat-info
// panel shows the safety code whole, and the button focused in it too.
func TestSafetyCodeZoomed(t *testing.T) {
	_, alice, _ := aliceAndBob(t)
	alice.openChat("bob")
	alice.waitKeyRecorded("bob")
	// Opened again: the chat drawn before the key was recorded offers no
	// "Mark as verified" until something else draws it again.
	eval[chromedp.Void](alice, `location.hash = '#/chats'`)
	alice.waitFor("the chat list", `!document.getElementById('messages')`)
	alice.openChat("bob")
	alice.waitFor("the verify button", `document.getElementById('verify-btn')`)
	alice.do(chromedp.EmulateViewport(640, 400, chromedp.EmulateScale(2)))
	alice.do(chromedp.Click(chromedp.ID("safety-btn")))
	alice.waitFor("the safety code in the panel", `/^\d{5}( \d{5}){5}$/.test(document.getElementById('safety-code').textContent)`)
	settled(alice)
	alice.screenshot("chat-info-zoomed")
	seen := func(sel string) bool {
		return eval[bool](alice, `(() => { const e = document.querySelector(`+js(sel)+`).getBoundingClientRect(), p = document.getElementById('chat-info').getBoundingClientRect(); return e.top >= p.top - 0.5 && e.bottom <= p.bottom + 0.5 && e.bottom <= innerHeight; })()`)
	}
	if !seen("#safety-code") {
		t.Fatal("the safety code is not wholly in view in the chat-info panel")
	}
	if !eval[bool](alice, `document.activeElement.id === 'verify-btn'`) || !seen("#verify-btn") {
		t.Fatalf("the button focused in the chat-info panel is not in view: %s", eval[string](alice, `JSON.stringify({focus: document.activeElement.id, scroll: document.getElementById('chat-info').scrollTop, panel: document.getElementById('chat-info').getBoundingClientRect(), button: document.getElementById('verify-btn').getBoundingClientRect()})`))
	}
	if boxOf(alice, ".composer").Bottom > viewportHeight(alice)+0.5 {
		t.Fatal("the composer is pushed off the screen")
	}
}

// TestJumpButtonCoversNothing: the "New messages ↓" button never lies over
// the visible part of a message, at a phone's width with bubbles as wide
// as they get.
func TestJumpButtonCoversNothing(t *testing.T) {
	_, alice, bob := aliceAndBob(t)
	alice.do(chromedp.EmulateViewport(390, 700))
	alice.openChat("bob")
	bob.openChat("alice")
	sendMany(bob, "alice", "a message long enough to fill its bubble from one side to the other, number ", 20)
	alice.waitMessage("a message long enough to fill its bubble from one side to the other, number 19")
	eval[chromedp.Void](alice, `document.getElementById('messages').scrollTop = 0`)
	bob.send("one more")
	alice.waitFor("the New messages button", `!document.getElementById('jump-new').hidden`)
	settled(alice)
	alice.screenshot("jump-button")
	covered := eval[[]string](alice, `(() => {
  const j = document.getElementById('jump-new').getBoundingClientRect(), l = document.getElementById('messages').getBoundingClientRect();
  return [...document.querySelectorAll('#messages .msg')].filter((m) => {
    const r = m.getBoundingClientRect();
    const top = Math.max(r.top, l.top), bottom = Math.min(r.bottom, l.bottom);
    return top < bottom && top < j.bottom && bottom > j.top && r.left < j.right && r.right > j.left;
  }).map((m) => m.querySelector('.text').textContent);
})()`)
	if len(covered) > 0 {
		t.Fatalf("the New messages button lies over %q", covered)
	}
}

// TestBubbleEdges: a bubble, in or out, stands out from the chat behind it
// by an edge of at least 3:1 (WCAG non-text contrast); the white of an
// incoming bubble alone is 1.17:1.
func TestBubbleEdges(t *testing.T) {
	_, alice, bob := aliceAndBob(t)
	bob.openChat("alice")
	bob.send("in")
	alice.openChat("bob")
	alice.waitMessage("in")
	alice.send("out")
	alice.waitFor("sent", `document.querySelector('#messages .msg.out[data-status="sent"]')`)
	got := eval[map[string]float64](alice, `(() => { `+contrastJS+`
  const edge = (m) => { const c = getComputedStyle(m); return c.borderTopStyle !== 'none' && parseFloat(c.borderTopWidth) >= 1 ? c.borderTopColor : c.backgroundColor; };
  const behind = bgOf(document.getElementById('messages'));
  return { in: contrast(edge(document.querySelector('#messages .msg.in')), behind), out: contrast(edge(document.querySelector('#messages .msg.out')), behind) };
})()`)
	for _, k := range []string{"in", "out"} {
		if got[k] < 3 {
			t.Errorf("the edge of an %s bubble is %.2f:1 against the chat, want at least 3:1", k, got[k])
		}
	}
}

// TestConnectingBarStill: the "Connecting…" bar of a page that loads does
// not move the header or the page when it comes or goes.
func TestConnectingBarStill(t *testing.T) {
	var hold atomic.Bool
	release := make(chan struct{})
	r := startWrapped(t, func(h http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
			if req.URL.Path == "/api/events" && hold.Load() {
				select {
				case <-release:
				case <-req.Context().Done():
					return
				}
			}
			h.ServeHTTP(w, req)
		})
	})
	_, alice := r.newProfile(t)
	alice.register("alice")
	alice.do(chromedp.EmulateViewport(390, 700))
	hold.Store(true)
	alice.do(chromedp.Reload())
	alice.waitFor("the Connecting bar", `(() => { const b = document.getElementById('conn-bar'); return !b.hidden && b.dataset.state === 'connecting' && !document.getElementById('me-box').hidden && document.getElementById('chat-list'); })()`)
	settled(alice)
	alice.screenshot("connecting")
	if bar := boxOf(alice, "#conn-bar"); !bar.Shown || bar.Top < 0 || bar.Left < 0 || bar.Right > 390.5 {
		t.Fatalf("the Connecting bar is not on screen: %+v", bar)
	}
	during := []rect{boxOf(alice, "header.top"), boxOf(alice, "#list-pane")}
	hold.Store(false)
	close(release)
	alice.waitFor("the stream", `document.getElementById('conn-bar').hidden`)
	settled(alice)
	after := []rect{boxOf(alice, "header.top"), boxOf(alice, "#list-pane")}
	for i, what := range []string{"the header", "the chat list"} {
		if math.Abs(during[i].Top-after[i].Top) > 0.5 {
			t.Errorf("%s moved from %.0f px to %.0f px when the Connecting bar went", what, during[i].Top, after[i].Top)
		}
	}
}
