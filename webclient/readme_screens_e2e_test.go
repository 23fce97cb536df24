package webclient_test

import (
	"context"
	"fmt"
	"image"
	"image/color"
	"image/jpeg"
	"math"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"
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
	published(t, r, alice)
	bob.do(chromedp.SetUploadFiles(chromedp.ID("attach-input"), []string{lakePhoto(t)}))
	bob.waitFor("the photo ready in the tray", `document.querySelectorAll('#attach-tray .tray-item').length === 1 && document.querySelector('#attach-tray .tray-size').textContent !== 'preparing…'`)
	bob.do(chromedp.SendKeys(chromedp.ID("composer"), "The lake at sunset"+kb.Enter))
	bob.waitFor("the photo sent", `document.querySelector('#messages .msg.out[data-status="sent"] .files')`)
	bob.send("Hi Alice! Did the photos from the trip arrive?")
	alice.waitFor("bob's message", unreadIs("bob", 1))
	alice.do(chromedp.Click(chromedp.ID("recovery-later")))
	alice.openChat("bob")
	alice.waitMessage("Hi Alice! Did the photos from the trip arrive?")
	alice.waitFor("the photo", photoShown)
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
	alice.waitFor("the photo", photoShown)
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
		// The chat from its start, the photo whole, once the resize was
		// laid out (the chat keeps its place through a resize).
		s.tb.waitFor("the new width", fmt.Sprintf(`innerWidth === %d`, s.w))
		eval[chromedp.Void](s.tb, `new Promise((ok) => requestAnimationFrame(() => requestAnimationFrame(ok))).then(() => { document.getElementById('messages').scrollTop = 0; })`)
		s.tb.waitFor("the chat at its start", `new Promise((ok) => requestAnimationFrame(() => requestAnimationFrame(() => ok(document.getElementById('messages').scrollTop === 0))))`)
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

// lakePhoto writes a 1200×800 JPEG of a lake under hills at sunset, drawn
// here, for the README's pictures, and returns its path.
func lakePhoto(t *testing.T) string {
	t.Helper()
	const w, h = 1200, 800
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	for y := range h {
		for x := range w {
			fx, fy := float64(x)/w, float64(y)/h
			hill := 0.55 - 0.12*math.Sin(fx*5.5+0.6) - 0.06*math.Sin(fx*13)
			var c color.RGBA
			switch {
			case fy < hill: // the sky, orange low down, blue high up
				k := fy / hill
				c = color.RGBA{uint8(70 + 180*k), uint8(110 + 60*k), uint8(190 - 90*k), 255}
			case fy < 0.68: // the hills
				c = color.RGBA{uint8(40 + 30*fx), uint8(70 + 20*fx), 60, 255}
			default: // the lake, the sky again below
				k := (fy - 0.68) / 0.32
				c = color.RGBA{uint8(200 - 130*k), uint8(150 - 40*k), uint8(120 + 70*k), 255}
			}
			img.Set(x, y, c)
		}
	}
	p := filepath.Join(t.TempDir(), "lake.jpg")
	f, err := os.Create(p)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := jpeg.Encode(f, img, &jpeg.Options{Quality: 85}); err != nil {
		t.Fatal(err)
	}
	return p
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
