package webclient_test

import (
	"context"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"relay/internal/browser"
	"relay/webclient"
)

// TestSearchTextInBrowser: searchtext.js's folding and marks, in
// Chromium. A query matches with other case and accents, across
// compatibility forms (ligatures, full-width letters), with the Greek
// final sigma and ß; folding a text whole and code point by code point
// agree (the index folds whole texts, the marks map code points), so a
// word found is a word marked; the marks cover a letter with its
// combining accents and never split a character outside the BMP; a
// snippet starts near its first mark. The control: a plain toLowerCase,
// without the accents dropped, misses "école" in "ÉCOLE".
func TestSearchTextInBrowser(t *testing.T) {
	srv := httptest.NewServer(webclient.Handler())
	defer srv.Close()
	b := browser.New(t)
	ctx, cancel := context.WithTimeout(b.Ctx, 60*time.Second)
	defer cancel()
	if err := chromedp.Do(ctx, chromedp.Navigate(srv.URL+"/")); err != nil {
		t.Fatal(err)
	}
	got, err := chromedp.Run(ctx, chromedp.Evaluate[[]string](`(async () => {
	  const s = await import('/searchtext.js');
	  const bad = [];
	  const find = (text, q) => s.matches(s.fold(text), s.terms(q));
	  const cases = [
	    ['Let\u2019s meet at the ÉCOLE', 'école meet', true],
	    ['Cafe\u0301 au lait', 'CAFÉ', true],
	    ['Straße 5', 'strasse', true],
	    ['ΟΔΟΣ', 'οδός', true],
	    ['the ﬁnal ｆｉｌｅ', 'final file', true],
	    ['がっこう', 'かっこう', true],
	    ['Résumé 2026.txt', 'resume 2027', false],
	    ['anything', '   ', false],
	  ];
	  for (const [text, q, want] of cases) if (find(text, q) !== want) bad.push('match ' + text + ' / ' + q);
	  const samples = ['ΟΔΟΣ ΟΔΟΣ.', 'Straße', 'ﬁ ｆ', '한국어', 'e\u0301\u0323x', '😀 Émoji 👍🏽', 'İstanbul', 'Ǆ', 'ﷺ'];
	  for (const t of samples) if (s.fold(t) !== s.foldMap(t).out) bad.push('fold differs: ' + t);
	  const mk = (t, q) => s.marks(t, s.terms(q)).map(([a, b]) => t.slice(a, b)).join('|');
	  if (mk('Cafe\u0301 au lait', 'cafe') !== 'Cafe\u0301') bad.push('a mark without its accent: ' + mk('Cafe\u0301 au lait', 'cafe'));
	  if (mk('meet the ÉCOLE, école', 'ecole meet') !== 'meet|ÉCOLE|école') bad.push('marks: ' + mk('meet the ÉCOLE, école', 'ecole meet'));
	  if (mk('😀ab😀', 'b') !== 'b') bad.push('a mark beside an emoji');
	  if (mk('abcd', 'bc b') !== 'bc') bad.push('overlapping marks: ' + mk('abcd', 'bc b'));
	  const long = 'word '.repeat(40) + 'needle' + ' tail'.repeat(40);
	  const sn = s.snippet(long, s.terms('needle'));
	  if (sn[0][0] !== '…' || !sn.some(([t, m]) => m && t === 'needle') || sn[sn.length - 1][0] !== '…') bad.push('snippet: ' + JSON.stringify(sn));
	  if (sn.map(([t]) => t).join('').length > 170) bad.push('snippet too long');
	  const cut = s.snippet('a'.repeat(159) + '😀', s.terms('a'), 160).map(([t]) => t).join('');
	  if (/[\ud800-\udbff]…$/.test(cut)) bad.push('a snippet splits an emoji');
	  // The control: without the accents dropped, école is not in ÉCOLE.
	  if ('Let\u2019s meet at the ÉCOLE'.toLowerCase().includes('ecole')) bad.push('the control found it');
	  return bad;
	})()`, chromedp.EvalAwaitPromise))
	if err != nil {
		t.Fatal(err)
	}
	if len(got) > 0 {
		t.Fatalf("searchtext.js: %q", got)
	}
}
