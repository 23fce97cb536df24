package webclient_test

import (
	"slices"
	"testing"

	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"

	"relay/internal/browser"
	"relay/webclient"
)

// writerWatchJS runs before the client's modules load. It records every
// opening and deletion of a database and every readwrite transaction (its
// stores sorted; each transaction of the store has meta, where the lock's
// record is), with the path of the module that asked for it: the first
// frame of the stack that is a file of the relay (this script itself has
// no URL).
const writerWatchJS = `(() => {
  const seen = window.__idbWrites = [];
  const caller = () => {
    for (const line of (new Error().stack || '').split('\n').slice(1)) {
      const m = line.match(/(https?:\/\/[^\s()]+?\.js):\d+:\d+/);
      if (m) return new URL(m[1]).pathname;
    }
    return '(unknown)';
  };
  const tx = IDBDatabase.prototype.transaction;
  IDBDatabase.prototype.transaction = function (stores, mode, ...rest) {
    if (mode === 'readwrite') seen.push({ what: 'readwrite ' + [].concat(stores).sort().join(','), from: caller() });
    return tx.call(this, stores, mode, ...rest);
  };
  for (const name of ['open', 'deleteDatabase']) {
    const f = IDBFactory.prototype[name];
    IDBFactory.prototype[name] = function (...args) {
      seen.push({ what: name, from: caller() });
      return f.apply(this, args);
    };
  }
})();`

type idbWrite struct {
	What string `json:"what"`
	From string `json:"from"`
}

// TestOnlyTheStoreWritesInTheBrowser runs a real exchange (register,
// send, receive, read, log out) with every IndexedDB write watched, and
// finds that each came from one of the store's writers behind store.js
// (docs/storage.md, "Who writes").
// The control is in the list of writes it must have seen: a watch that
// saw nothing, or could not name a caller, fails.
func TestOnlyTheStoreWritesInTheBrowser(t *testing.T) {
	r := startRelay(t)
	watched := func() *tab {
		p := browser.New(t)
		if _, err := chromedp.Call(p.Ctx, page.AddScriptToEvaluateOnNewDocument, page.AddScriptToEvaluateOnNewDocumentParams{Source: writerWatchJS}); err != nil {
			t.Fatal(err)
		}
		return r.openTab(t, p.Ctx)
	}
	alice, bob := watched(), watched()
	alice.register("alice")
	bob.register("bob")
	alice.openChat("bob")
	alice.send("hello bob")
	bob.openChat("alice")
	bob.waitMessage("hello bob")
	bob.send("hello alice")
	alice.waitMessage("hello alice")
	bob.waitFor("bob's message sent", `document.querySelector('#messages .msg.out[data-status="sent"]')`)
	bob.logout()
	bob.waitFor("the auth form after logout", `document.getElementById('auth-username')`)

	kinds := map[string]bool{}
	var writers []string
	for _, w := range webclient.StoreWriters() {
		writers = append(writers, "/"+w)
	}
	for _, tb := range []*tab{alice, bob} {
		for _, w := range eval[[]idbWrite](tb, `window.__idbWrites`) {
			kinds[w.What] = true
			if !slices.Contains(writers, w.From) {
				t.Errorf("%s from %s: only %v write IndexedDB", w.What, w.From, writers)
			}
		}
	}
	for _, want := range []string{
		"open", "deleteDatabase", // register, logout
		"readwrite meta",                // the device, at register
		"readwrite chats,messages,meta", // a received batch with its cursor, the outbox
		"readwrite chats,meta",          // a contact's key, a read position
	} {
		if !kinds[want] {
			var saw []string
			for k := range kinds {
				saw = append(saw, k)
			}
			slices.Sort(saw)
			t.Errorf("the watch never saw %q (it saw %v)", want, saw)
		}
	}
}
