package webclient_test

import (
	"fmt"
	"net/http"
	"os"
	"strings"
	"sync"
	"testing"

	"github.com/chromedp/chromedp"
)

// axe-core, vendored under testdata/axe (its README says which version and
// how to update it). It is read by the tests only: the relay serves
// static/ alone, and TestAxeIsNotServed keeps it so.
var axeSource = sync.OnceValues(func() (string, error) {
	b, err := os.ReadFile("testdata/axe/axe.min.js")
	return string(b), err
})

// axeViolation is one rule that failed, as axe-core reports it.
type axeViolation struct {
	ID     string `json:"id"`
	Impact string `json:"impact"`
	Help   string `json:"help"`
	Nodes  []struct {
		Target []string `json:"target"`
		HTML   string   `json:"html"`
	} `json:"nodes"`
}

// axeCheck runs axe-core on the page as it is now and fails the test for
// every serious or critical violation, naming the screen. The script is
// evaluated through the DevTools protocol, which the page's
// Content-Security-Policy does not govern: the page itself never loads it.
func axeCheck(tb *tab, screen string) {
	tb.t.Helper()
	src, err := axeSource()
	if err != nil {
		tb.t.Fatalf("axe-core: %v", err)
	}
	if !eval[bool](tb, `typeof window.axe === 'object'`) {
		tb.do(chromedp.Evaluate[chromedp.Void](src))
	}
	found := eval[[]axeViolation](tb, `axe.run(document, { resultTypes: ['violations'] }).then(r => r.violations.filter(v => v.impact === 'serious' || v.impact === 'critical'))`)
	if len(found) == 0 {
		return
	}
	var b strings.Builder
	for _, v := range found {
		fmt.Fprintf(&b, "\n  %s (%s): %s", v.ID, v.Impact, v.Help)
		for i, n := range v.Nodes {
			if i == 3 {
				fmt.Fprintf(&b, "\n    … %d more", len(v.Nodes)-3)
				break
			}
			fmt.Fprintf(&b, "\n    %s %s", strings.Join(n.Target, " "), n.HTML)
		}
	}
	tb.screenshot(screen + "-axe")
	tb.t.Fatalf("axe-core on %s: %d serious or critical violations:%s", screen, len(found), b.String())
}

// overflowJS lists what sticks out of the viewport sideways: the page
// wider than the window, an element whose box ends past its right edge
// (unless a clipping ancestor hides the overhang), or a box that scrolls
// sideways. It returns descriptions, empty when all fits.
const overflowJS = `(() => {
  const out = [];
  const W = innerWidth;
  if (document.scrollingElement.scrollWidth > W) out.push('page ' + document.scrollingElement.scrollWidth + ' px wide');
  const describe = (e) => e.tagName.toLowerCase() + (e.id ? '#' + e.id : '') + (e.className && typeof e.className === 'string' ? '.' + e.className.trim().split(/\s+/).join('.') : '');
  for (const e of document.body.querySelectorAll('*')) {
    const r = e.getBoundingClientRect();
    if (!r.width || !r.height) continue;
    const cs = getComputedStyle(e);
    if (cs.visibility === 'hidden') continue;
    if ((cs.overflowX === 'auto' || cs.overflowX === 'scroll') && e.scrollWidth > e.clientWidth + 1) out.push(describe(e) + ' scrolls sideways');
    if (r.right <= W + 0.5 && r.left >= -0.5) continue;
    let clipped = false;
    for (let a = e.parentElement; a && a !== document.body; a = a.parentElement) {
      const ac = getComputedStyle(a);
      if (ac.overflowX !== 'visible') { const ar = a.getBoundingClientRect(); if (ar.right <= W + 0.5) { clipped = true; break; } }
    }
    if (!clipped) out.push(describe(e) + ' ends at ' + Math.round(r.right) + ' px');
  }
  return out.slice(0, 10);
})()`

// layoutWidths are the widths every screen is checked at: a small phone,
// a common phone and a desktop.
var layoutWidths = []int64{320, 390, 1280}

// checkScreen shows the page at each of layoutWidths: nothing sticks out
// sideways, a screenshot of each (under .artifacts/screens/), and axe-core
// finds nothing serious at 390 and 1280 px; each function of also runs
// at each width too. It leaves the page at 1280 px.
func checkScreen(tb *tab, screen string, also ...func(width int64)) {
	tb.t.Helper()
	for _, w := range layoutWidths {
		tb.do(chromedp.EmulateViewport(w, 800))
		if bad := eval[[]string](tb, overflowJS); len(bad) > 0 {
			tb.screenshot(fmt.Sprintf("%s-%d-overflow", screen, w))
			tb.t.Fatalf("%s at %d px: %s", screen, w, strings.Join(bad, "; "))
		}
		for _, f := range also {
			f(w)
		}
		tb.screenshot(fmt.Sprintf("%s-%d", screen, w))
		if w != 320 {
			axeCheck(tb, fmt.Sprintf("%s at %d px", screen, w))
		}
	}
}

// TestAxeFindsViolations is the control of axeCheck: a page with an image
// without text and an unlabelled field is reported.
func TestAxeFindsViolations(t *testing.T) {
	r := startRelay(t)
	_, tb := r.newProfile(t)
	tb.waitFor("the first screen", `document.getElementById('auth-username')`)
	eval[chromedp.Void](tb, `(() => { const i = document.createElement('input'); i.id = 'unlabelled'; document.body.append(i); document.getElementById('auth-username').previousElementSibling.remove(); })()`)
	src, err := axeSource()
	if err != nil {
		t.Fatal(err)
	}
	tb.do(chromedp.Evaluate[chromedp.Void](src))
	ids := eval[[]string](tb, `axe.run(document, { resultTypes: ['violations'] }).then(r => r.violations.filter(v => v.impact === 'serious' || v.impact === 'critical').map(v => v.id))`)
	if !strings.Contains(strings.Join(ids, " "), "label") {
		t.Fatalf("axe-core did not report the unlabelled fields: %q", ids)
	}
}

// TestAxeIsNotServed: axe-core is test data; the relay never serves it.
func TestAxeIsNotServed(t *testing.T) {
	r := startRelay(t)
	for _, p := range []string{"/axe.min.js", "/testdata/axe/axe.min.js", "/axe/axe.min.js"} {
		resp, err := http.Get(r.URL + p)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusNotFound {
			t.Errorf("GET %s: %d, want 404", p, resp.StatusCode)
		}
	}
}
