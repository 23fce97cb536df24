package webclient_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// TestReadmeScreens takes the pictures at the top of README.md: the chat
// list beside a chat at a desktop's width, and a chat on a phone. Each
// run saves them under .artifacts/screens/; with RELAY_README_SCREENS=1
// (scripts/readme-screens.sh) it writes them to docs/screens/ as well.
// Each must stay small: the README is read on slow links too.
func TestReadmeScreens(t *testing.T) {
	r, alice, bob := aliceAndBob(t)
	_, carol := r.newProfile(t)
	carol.register("carol")
	carol.openChat("alice")
	carol.send("Are we still on for Saturday?")
	bob.openChat("alice")
	bob.send("Hi Alice! Did the photos from the trip arrive?")
	alice.waitFor("bob's message", unreadIs("bob", 1))
	alice.do(chromedp.Click(chromedp.ID("recovery-later")))
	alice.openChat("bob")
	alice.waitMessage("Hi Alice! Did the photos from the trip arrive?")
	alice.send("They did, thank you! The one at the lake is my favourite.")
	bob.waitMessage("They did, thank you! The one at the lake is my favourite.")
	bob.send("Mine too. Shall I print a copy for you?")
	alice.waitMessage("Mine too. Shall I print a copy for you?")
	alice.send("Yes please!")
	alice.waitFor("all sent", `[...document.querySelectorAll('#messages .msg.out')].every(m => m.dataset.status === 'sent')`)
	bob.waitMessage("Yes please!")
	// Opened again, the chat has no "New messages" divider left.
	eval[chromedp.Void](alice, `location.hash = '#/chats'`)
	alice.waitFor("the chat list", `document.getElementById('chat-list') && !document.getElementById('messages')`)
	alice.openChat("bob")
	alice.waitMessage("Yes please!")
	eval[chromedp.Void](alice, `document.activeElement.blur()`)
	eval[chromedp.Void](bob, `document.activeElement.blur()`)

	shots := []struct {
		tb   *tab
		name string
		w, h int64
	}{
		{alice, "desktop", 1000, 560},
		{bob, "phone", 360, 640},
	}
	for _, s := range shots {
		s.tb.do(chromedp.EmulateViewport(s.w, s.h))
		if bad := eval[[]string](s.tb, overflowJS); len(bad) > 0 {
			t.Fatalf("%s: %v", s.name, bad)
		}
		png := viewportPNG(s.tb)
		if len(png) > 90<<10 {
			t.Errorf("%s: the picture is %d KB; keep it under 90 KB", s.name, len(png)>>10)
		}
		dirs := []string{filepath.Join("..", ".artifacts", "screens")}
		if os.Getenv("RELAY_README_SCREENS") == "1" {
			dirs = append(dirs, filepath.Join("..", "docs", "screens"))
		}
		for _, d := range dirs {
			if err := os.MkdirAll(d, 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(d, s.name+".png"), png, 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
}

// viewportPNG is a screenshot of the viewport as it is.
func viewportPNG(tb *tab) []byte {
	tb.t.Helper()
	ctx, cancel := context.WithTimeout(tb.ctx, 15*time.Second)
	defer cancel()
	png, err := chromedp.Run(ctx, chromedp.CaptureScreenshot())
	if err != nil {
		tb.t.Fatalf("screenshot: %v", err)
	}
	return png
}
