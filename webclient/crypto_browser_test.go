package webclient_test

import (
	"context"
	"encoding/json"
	"net/http/httptest"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"relay/internal/browser"
	"relay/webclient"
)

// katScript runs every known-answer vector through crypto.js and returns the
// list of mismatches and the number of checks made.
const katScript = `(async (v) => {
  const c = await import('/crypto.js');
  const bad = []; let checks = 0;
  const check = (ok, what) => { checks++; if (!ok) bad.push(what); };
  for (const cv of v.conversation) {
    const priv = await c.importPrivate(c.unhex(cv.aKey.private), c.b64decode(cv.aKey.public));
    check(c.b64encode(await c.exportPublic(await c.importPublic(c.b64decode(cv.aKey.public)))) === cv.aKey.public, 'public key round trip ' + cv.a);
    const k = await c.conversationKeyBytes(priv, c.b64decode(cv.bKey.public), cv.a, cv.b);
    check(c.hex(k) === cv.key, 'conversation key ' + cv.a + '/' + cv.b);
  }
  for (const e of v.envelopes) {
    const key = await c.aesKey(c.unhex(e.key));
    const body = await c.seal(key, c.unhex(e.iv), e.id, e.from, e.to, e.record);
    check(c.b64encode(body) === e.body, 'seal ' + e.id);
    let rec = null;
    try { rec = await c.open(key, e.id, e.from, e.to, c.b64decode(e.body)); } catch (err) { rec = String(err); }
    check(rec === e.record, 'open ' + e.id);
  }
  for (const e of v.tampered) {
    const key = await c.aesKey(c.unhex(e.key));
    let opened = true;
    try { await c.open(key, e.id, e.from, e.to, c.b64decode(e.body)); } catch { opened = false; }
    check(!opened, 'tampered envelope opened: ' + e.why);
  }
  for (const p of v.padding) {
    check(c.pad(new Uint8Array(p.recordLength)).length === p.padded, 'padding of ' + p.recordLength);
  }
  const l = v.link;
  const from = await c.importPrivate(c.unhex(l.fromKey.private), c.b64decode(l.fromKey.public));
  const to = await c.importPrivate(c.unhex(l.toKey.private), c.b64decode(l.toKey.public));
  const acct = await c.importPrivate(c.unhex(l.account.private), c.b64decode(l.account.public));
  const lk1 = await c.linkKeyBytes(from, c.b64decode(l.toKey.public), l.fromDevice, l.toDevice);
  const lk2 = await c.linkKeyBytes(to, c.b64decode(l.fromKey.public), l.fromDevice, l.toDevice);
  check(c.hex(lk1) === l.key && c.hex(lk2) === l.key, 'link key');
  const body = await c.sealLink(await c.aesKey(lk1), c.unhex(l.iv), l.id, l.username, acct, c.b64decode(l.account.public));
  check(c.b64encode(body) === l.body, 'seal link');
  check(c.isLink(c.b64decode(l.body)) && body.length === l.bodyLength, 'link body size');
  const got = await c.openLink(await c.aesKey(lk2), l.id, l.username, c.b64decode(l.body), c.b64decode(l.account.public));
  check(c.hex(await c.exportPrivateScalar(got)) === l.account.private, 'open link');
  check(await c.linkCode(c.b64decode(l.account.public), c.b64decode(l.toKey.public)) === l.linkCode, 'link code');
  for (const s of v.safety) {
    check(await c.safetyCode(s.a, c.b64decode(s.aPub), s.b, c.b64decode(s.bPub)) === s.code, 'safety code ' + s.a + '/' + s.b);
  }
  return JSON.stringify({bad, checks});
})`

type katResult struct {
	Bad    []string `json:"bad"`
	Checks int      `json:"checks"`
}

func runKAT(t *testing.T, ctx context.Context, base string, vectors []byte) katResult {
	t.Helper()
	ctx, cancel := context.WithTimeout(ctx, 60*time.Second)
	defer cancel()
	if err := chromedp.Do(ctx, chromedp.Navigate(base+"/")); err != nil {
		t.Fatalf("loading the page: %v", err)
	}
	out, err := chromedp.Run(ctx, chromedp.Evaluate[string](katScript+"("+string(vectors)+")", chromedp.EvalAwaitPromise))
	if err != nil {
		t.Fatalf("running the vectors in Chromium: %v", err)
	}
	var r katResult
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatalf("result %q: %v", out, err)
	}
	return r
}

// TestCryptoVectorsInBrowser runs the shared known-answer vectors through
// crypto.js in Chromium, served from a loopback origin (a secure context).
func TestCryptoVectorsInBrowser(t *testing.T) {
	vectors, err := os.ReadFile("../relayclient/seal/testdata/vectors.json")
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(webclient.Handler())
	defer srv.Close()
	b := browser.New(t)

	r := runKAT(t, b.Ctx, srv.URL, vectors)
	if len(r.Bad) > 0 || r.Checks < 20 {
		t.Fatalf("crypto.js disagrees with the Go implementation (%d checks): %v", r.Checks, r.Bad)
	}

	// Control: a vector changed by one character must fail, or the check
	// above proves nothing.
	var v map[string]any
	_ = json.Unmarshal(vectors, &v)
	envs := v["envelopes"].([]any)
	e := envs[0].(map[string]any)
	body := e["body"].(string)
	e["body"] = strings.Replace(body, body[20:21], string(rune(body[20]^1)), 1)
	broken, _ := json.Marshal(v)
	r = runKAT(t, b.Ctx, srv.URL, broken)
	if len(r.Bad) == 0 {
		t.Fatal("a corrupted vector passed: the browser check cannot fail")
	}
}
