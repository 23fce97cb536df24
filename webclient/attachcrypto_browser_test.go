package webclient_test

import (
	"context"
	"encoding/json"
	"net/http/httptest"
	"os"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"relay/internal/browser"
	"relay/webclient"
)

// attachKATScript runs the attachment vectors through attachcrypto.js:
// the padded and sealed sizes, then each sealed attachment (its digest,
// the SHA-256 of its ciphertext and its first bytes) and its opening in
// uneven pieces, and the opening of the same bytes with one bit changed,
// which must fail its digest.
const attachKATScript = `(async (v) => {
  const a = await import('/attachcrypto.js');
  const c = await import('/crypto.js');
  const bad = []; let checks = 0;
  const check = (ok, what) => { checks++; if (!ok) bad.push(what); };
  for (const p of v.padding) {
    check(a.paddedSize(p.n) === p.padded && a.sealedSize(p.n) === p.sealed, 'size ' + p.n);
  }
  for (const s of v.sealed) {
    const pt = new Uint8Array(s.n).map((_, i) => i % 251);
    const { sealed, digest } = await a.seal(c.unhex(s.key), new Blob([pt]));
    check(c.hex(digest) === s.digest, 'digest ' + s.n);
    check(c.hex(new Uint8Array(await crypto.subtle.digest('SHA-256', sealed))) === s.sha256, 'ciphertext ' + s.n);
    check(c.b64encode(sealed.subarray(0, 64)) === s.head, 'head ' + s.n);
    const key = await a.importKey(c.unhex(s.key));
    const o = new a.Opener(key, s.n, c.unhex(s.digest));
    for (let i = 0; i < sealed.length; i += 7777) await o.push(sealed.subarray(i, i + 7777));
    let out = null;
    try { out = new Uint8Array(await (await o.done()).arrayBuffer()); } catch (e) { out = String(e); }
    check(out instanceof Uint8Array && out.length === s.n && out.every((b, i) => b === pt[i]), 'open ' + s.n);
    const t = sealed.slice(); t[Math.floor(t.length / 2)] ^= 1;
    const o2 = new a.Opener(key, s.n, c.unhex(s.digest));
    await o2.push(t);
    let err = null;
    try { await o2.done(); } catch (e) { err = e.message; }
    check(err === 'digest', 'tampered ' + s.n + ': ' + err);
  }
  return JSON.stringify({bad, checks});
})`

// TestAttachCryptoVectorsInBrowser: attachcrypto.js, in Chromium, makes
// the vectors relayclient/attach made, and opens them. The control: the
// same run with one digest changed in the vectors reports that vector.
func TestAttachCryptoVectorsInBrowser(t *testing.T) {
	vectors, err := os.ReadFile("../relayclient/attach/testdata/vectors.json")
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(webclient.Handler())
	defer srv.Close()
	b := browser.New(t)
	run := func(v []byte) katResult {
		t.Helper()
		ctx, cancel := context.WithTimeout(b.Ctx, 60*time.Second)
		defer cancel()
		if err := chromedp.Do(ctx, chromedp.Navigate(srv.URL+"/")); err != nil {
			t.Fatal(err)
		}
		out, err := chromedp.Run(ctx, chromedp.Evaluate[string](attachKATScript+"("+string(v)+")", chromedp.EvalAwaitPromise))
		if err != nil {
			t.Fatalf("running the vectors in Chromium: %v", err)
		}
		var r katResult
		if err := json.Unmarshal([]byte(out), &r); err != nil {
			t.Fatalf("result %q: %v", out, err)
		}
		return r
	}
	var v struct {
		Padding []any            `json:"padding"`
		Sealed  []map[string]any `json:"sealed"`
	}
	if err := json.Unmarshal(vectors, &v); err != nil {
		t.Fatal(err)
	}
	want := len(v.Padding) + 5*len(v.Sealed)
	if r := run(vectors); len(r.Bad) > 0 || r.Checks != want {
		t.Fatalf("attachcrypto.js disagrees with relayclient/attach (%d checks of %d): %v", r.Checks, want, r.Bad)
	}
	var changed map[string]any
	if err := json.Unmarshal(vectors, &changed); err != nil {
		t.Fatal(err)
	}
	first := changed["sealed"].([]any)[0].(map[string]any)
	first["digest"] = flipChar(first["digest"].(string), 3, "0123456789abcdef")
	broken, _ := json.Marshal(changed)
	if r := run(broken); len(r.Bad) == 0 {
		t.Fatal("a changed digest in the vectors went unnoticed: the checks prove nothing")
	}
}
