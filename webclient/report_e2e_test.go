package webclient_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/chromedp/chromedp"
)

// TestReportHoldsTheChosenMessages: alice reports bob from the actions of
// one of his three messages. The dialog opens with that message ticked;
// she ticks a second of his and her own answer, leaves one of bob's
// unticked, picks a reason, writes a comment and asks to block bob too.
// The relay then holds exactly the three messages ticked, in the chat's
// order, each with its author, time and text, and nothing else of the
// chat; bob is blocked on alice's device.
func TestReportHoldsTheChosenMessages(t *testing.T) {
	r, alice, bob := aliceAndBob(t)
	alice.openChat("bob")
	bob.openChat("alice")
	for _, m := range []string{"one", "two", "three"} {
		bob.send(m)
	}
	alice.waitMessage("three")
	alice.send("my answer")
	alice.waitFor("alice's answer sent", bubble("my answer")+`?.dataset.status === 'sent'`)
	ids := map[string]string{}
	for _, m := range []string{"one", "two", "three", "my answer"} {
		ids[m] = msgID(alice, "bob", m)
	}

	alice.menuAction("two", "report-msg-btn")
	alice.waitFor("the report dialog", `document.getElementById('report-dialog')?.open`)
	ticked := `[...document.querySelectorAll('#report-dialog input[type=checkbox]:checked')].map(b => b.value).filter(v => v !== 'on')`
	if got := eval[[]string](alice, ticked); len(got) != 1 || got[0] != ids["two"] {
		t.Fatalf("ticked when the dialog opens: %v, want only %q", got, ids["two"])
	}
	for _, m := range []string{"three", "my answer"} {
		alice.do(chromedp.Click(chromedp.ID("report-msg-" + ids[m])))
	}
	alice.waitFor("the summary of three messages", `document.getElementById('report-summary').textContent.includes('these 3 messages')`)
	eval[chromedp.Void](alice, `(() => { const s = document.getElementById('report-reason'); s.value = 'harassment'; s.dispatchEvent(new Event('change')); })()`)
	alice.do(chromedp.SendKeys(chromedp.ID("report-comment"), "He keeps writing."))
	checkScreen(alice, "report-dialog")
	alice.do(chromedp.Click(chromedp.ID("report-block")))
	alice.do(chromedp.Click(chromedp.ID("report-send")))
	alice.waitFor("the report sent", `document.getElementById('report-title')?.textContent === 'Report sent'`)
	checkScreen(alice, "report-sent")
	alice.do(chromedp.Click(chromedp.ID("report-close")))
	alice.waitFor("the dialog closed", `!document.getElementById('report-dialog')`)
	alice.waitFor("bob blocked", blockedIs("bob", true))

	var reason, comment, about, reporter string
	var raw []byte
	err := r.Pool.QueryRow(context.Background(), `SELECT r.reason, r.comment, a.username, p.username, r.messages
		FROM reports r JOIN accounts a ON a.id = r.about_id JOIN accounts p ON p.id = r.reporter_id`).Scan(&reason, &comment, &about, &reporter, &raw)
	if err != nil {
		t.Fatalf("the report at the relay: %v", err)
	}
	if reason != "harassment" || comment != "He keeps writing." || about != "bob" || reporter != "alice" {
		t.Errorf("the report: %s %q about %s by %s", reason, comment, about, reporter)
	}
	var held []struct {
		ID, From, Text string
		At             int64
	}
	if err := json.Unmarshal(raw, &held); err != nil {
		t.Fatal(err)
	}
	want := []struct{ text, from string }{{"two", "bob"}, {"three", "bob"}, {"my answer", "alice"}}
	if len(held) != len(want) {
		t.Fatalf("the report holds %d messages (%+v), want %d", len(held), held, len(want))
	}
	for i, w := range want {
		h := held[i]
		if h.ID != ids[w.text] || h.Text != w.text || h.From != w.from || h.At <= 0 {
			t.Errorf("message %d of the report: %+v, want %q by %s", i, h, w.text, w.from)
		}
	}
	if n := r.count(`SELECT count(*) FROM reports`); n != 1 {
		t.Errorf("%d reports at the relay, want 1", n)
	}

	// What a report holds of a message: U+0000, which the relay cannot
	// store, as U+FFFD; a photo's label and a caption of 16,001 UTF-16
	// code units cut at 16,000 less the half of a pair the cut would leave.
	got := eval[[]int](alice, `import('/report.js').then(r => {
	  const a = r.reportText({ text: 'a\u0000b' });
	  const b = r.reportText({ text: 'x'.repeat(15992) + '😀', files: [{ kind: 'photo' }] });
	  return [a === 'a\uFFFDb' ? 1 : 0, b.length, b.charCodeAt(b.length - 1)];
	})`)
	if got[0] != 1 || got[1] != 15999 || got[2] != 'x' {
		t.Errorf("reportText: %v, want U+0000 replaced, and 15,999 code units ending in x", got)
	}
}
