package webclient_test

import (
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"
)

// searchFor types query into the chat list's search field, as a person
// replacing what it held, and waits for the status line to say what it
// found (a result count or that there is none).
func searchFor(tb *tab, query string) {
	tb.t.Helper()
	eval[chromedp.Void](tb, `(() => { const i = document.getElementById('search-input'); i.value = ''; i.dispatchEvent(new Event('input')); })()`)
	tb.do(chromedp.SendKeys(chromedp.ID("search-input"), query))
}

// searchStatus is a condition: the status line says text.
func searchStatus(text string) string {
	return `document.getElementById('search-status').textContent === ` + js(text)
}

// found is a condition: the status line says status and the results'
// marked words are marks, in order. Both are waited for together: while
// the query is typed, a shorter one can have as many results.
func found(status string, marks ...string) string {
	return searchStatus(status) + ` && [...document.querySelectorAll('#search-list mark')].map((e) => e.textContent).join('|') === ` + js(strings.Join(marks, "|"))
}

// foundTexts is what the results list shows, each result's text.
func foundTexts(tb *tab) []string {
	tb.t.Helper()
	return eval[[]string](tb, `[...document.querySelectorAll('#search-list .result-text')].map((e) => e.textContent)`)
}

// TestSearch: the search field on the chat list finds the messages on
// this device that hold every word typed, whatever their case and
// accents, in a file's name too, newest first with their chat and the
// words marked; what arrives while a query is shown joins its results,
// and what is deleted for everyone leaves them;
// a result opens its chat at the message, scrolled into view and
// focused, by mouse and by keyboard. The results screen fits at every
// width and axe finds nothing on it.
func TestSearch(t *testing.T) {
	r, alice, bob := aliceAndBob(t)
	published(t, r, bob)
	alice.openChat("bob")
	alice.send("Café au lait demain?")
	alice.waitMessage("Café au lait demain?")
	// Enough after it that the list must scroll to bring it back.
	sendMany(alice, "bob", "filler ", 30)
	alice.waitMessage("filler 29")
	bob.openChat("alice")
	bob.waitMessage("filler 29")
	bob.send("Let's meet at the ÉCOLE")
	sendDroppedFile(bob, "Résumé 2026.txt", "my experience")
	alice.waitMessage("Let's meet at the ÉCOLE")
	alice.waitFor("bob's file", `[...document.querySelectorAll('#messages .msg .file-name')].some((e) => e.textContent.includes('Résumé 2026.txt'))`)
	alice.openChat("alice")
	alice.send("cafe list: beans, filters")
	alice.waitMessage("cafe list: beans, filters")

	eval[chromedp.Void](alice, `location.hash = '#/chats'`)
	alice.waitFor("the chat list", `document.getElementById('search-input') && document.querySelector('#chat-list .chat-item')`)
	searchFor(alice, "CAFE")
	alice.waitFor("two found", found("2 messages found.", "cafe", "Café"))
	if got := foundTexts(alice); len(got) != 2 || got[0] != "You: cafe list: beans, filters" || got[1] != "You: Café au lait demain?" {
		t.Fatalf("the results for CAFE, newest first: %q", got)
	}
	if eval[bool](alice, `!document.querySelector('.browse').hidden || document.getElementById('search-results').hidden`) {
		t.Fatal("the results do not take the chat list's place")
	}
	if got := eval[[]string](alice, `[...document.querySelectorAll('#search-list .name')].map((e) => e.textContent)`); len(got) != 2 || got[0] != "Notes to self" || got[1] != "bob" {
		t.Fatalf("the results' chats: %q", got)
	}

	// Every word, in any order, with other accents and case.
	searchFor(alice, "école MEET")
	alice.waitFor("bob's message", found("1 message found.", "meet", "ÉCOLE"))
	if got := foundTexts(alice); len(got) != 1 || got[0] != "Let's meet at the ÉCOLE" {
		t.Fatalf("the results for école MEET: %q", got)
	}
	searchFor(alice, "resume")
	alice.waitFor("the file by its name", found("1 message found.", "Résumé"))
	searchFor(alice, "cafe xyzzy")
	alice.waitFor("nothing found", searchStatus("No message on this device holds “cafe xyzzy”."))

	// What arrives while a query is shown joins its results.
	searchFor(alice, "cafe")
	alice.waitFor("two found again", found("2 messages found.", "cafe", "Café"))
	bob.send("Un autre CAFÉ ?")
	alice.waitFor("bob's new message among the results", found("3 messages found.", "CAFÉ", "cafe", "Café"))
	if got := foundTexts(alice); got[0] != "Un autre CAFÉ ?" {
		t.Fatalf("the newest result: %q", got)
	}
	checkScreen(alice, "search")
	// A message deleted for everyone leaves the results: its chat is read
	// again, and the older entries of the chat stay in their place.
	eval[chromedp.Void](bob, `import('/store.js').then(async (s) => { const m = (await s.getMessages('alice')).find((x) => x.text === 'Un autre CAFÉ ?'); const sync = await import('/sync.js'); await sync.deleteForEveryone('alice', m.id); })`)
	alice.waitFor("the deleted message gone from the results", found("2 messages found.", "cafe", "Café"))

	// The keyboard: the down arrow goes from the field to the results,
	// Enter opens one.
	alice.do(chromedp.EmulateViewport(1280, 800))
	alice.do(chromedp.Focus(chromedp.ID("search-input")))
	alice.do(chromedp.KeyEvent(kb.ArrowDown), chromedp.KeyEvent(kb.ArrowDown))
	if got := eval[string](alice, `document.activeElement.closest('.result-item') ? document.activeElement.querySelector('.result-text').textContent : ''`); got != "You: Café au lait demain?" {
		t.Fatalf("the second result focused: %q", got)
	}
	alice.do(chromedp.KeyEvent(kb.Enter))
	foundMsg := `#messages .msg.found`
	alice.waitFor("the chat open at the message", `(() => { const m = document.querySelector(`+js(foundMsg)+`); return !!m && m.querySelector('.text').textContent === 'Café au lait demain?' && document.activeElement === m; })()`)
	alice.waitFor("the message in view", inList(foundMsg))
	if !eval[bool](alice, `document.querySelector('.chat').dataset.chat === 'bob'`) {
		t.Fatal("the result opened another chat")
	}
	alice.screenshot("opened-at-1280")

	// At a phone's width: a tap on a result opens the chat in the list's
	// place; Back shows the results again.
	alice.do(chromedp.EmulateViewport(390, 800))
	eval[chromedp.Void](alice, `location.hash = '#/chats'`)
	alice.waitFor("the results again", `!document.getElementById('search-results').hidden && document.querySelectorAll('#search-list .result-item').length === 2`)
	eval[chromedp.Void](alice, `document.querySelector('#search-list .result-item[data-chat="alice"] a').click()`)
	alice.waitFor("notes to self open at the message", `(() => { const m = document.querySelector(`+js(foundMsg)+`); return !!m && m.querySelector('.text').textContent === 'cafe list: beans, filters'; })()`)
	alice.waitFor("the message in view", inList(foundMsg))
	alice.screenshot("opened-at-390")
}
