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

// katScript runs every known-answer vector through crypto.js (and the
// records through records.js) and returns the list of mismatches and the
// number of checks made.
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
  const r = v.recovery;
  const code = async (f) => { try { await f(); return 'no error'; } catch (err) { return err.code || String(err); } };
  for (const k of r.keys) {
    check(await c.formatRecoveryKey(c.unhex(k.key)) === k.formatted, 'recovery format ' + k.formatted);
    let got = null;
    try { got = c.hex(await c.parseRecoveryKey(k.formatted)); } catch (err) { got = String(err); }
    check(got === k.key, 'recovery parse ' + k.formatted);
  }
  for (const p of r.parse) {
    let got = null;
    try { got = c.hex(await c.parseRecoveryKey(p.input)); } catch (err) { got = String(err); }
    check(got === p.key, 'recovery parse: ' + p.why);
  }
  for (const n of r.notKeys) {
    let err = null;
    try { await c.parseRecoveryKey(n.input); } catch (e) { err = e; }
    check(err instanceof c.NotRecoveryKeyError && err.code === 'not_recovery_key', 'recovery not a key: ' + n.why);
  }
  for (const w of r.wrap) {
    const key = c.unhex(w.key);
    check(c.hex(await c.recoveryWrappingKeyBytes(key, w.username)) === w.wrappingKey, 'recovery wrapping key ' + w.username);
    const blob = await c.wrapAccountKey(key, w.username, c.unhex(w.d), c.b64decode(w.public), c.unhex(w.iv));
    check(c.b64encode(blob) === w.blob && blob.length === c.RECOVERY_BLOB_SIZE, 'recovery wrap ' + w.username);
    let got = null;
    try { got = await c.unwrapAccountKey(key, w.username, c.b64decode(w.blob)); } catch (err) { got = null; }
    check(got !== null && c.hex(got.d) === w.d && c.b64encode(got.publicKey) === w.public &&
      c.hex(await c.exportPrivateScalar(got.privateKey)) === w.d, 'recovery unwrap ' + w.username);
  }
  for (const f of r.fail) {
    check(await code(() => c.unwrapAccountKey(c.unhex(f.key), f.username, c.b64decode(f.blob))) === f.error, 'recovery fail: ' + f.why);
  }
  // Wrapping refuses a private key with another account's public key, given
  // as a scalar or as the CryptoKey the client holds.
  const w0 = r.wrap[0];
  const other = r.wrap[1].public;
  check(await code(() => c.wrapAccountKey(c.unhex(w0.key), w0.username, c.unhex(w0.d), c.b64decode(other))) === 'key_mismatch', 'recovery wrap of a mismatched pair');
  const held = await c.importPrivate(c.unhex(w0.d), c.b64decode(w0.public));
  const fresh = await c.wrapAccountKey(c.unhex(w0.key), w0.username, held, c.b64decode(w0.public));
  check(c.hex((await c.unwrapAccountKey(c.unhex(w0.key), w0.username, fresh)).d) === w0.d, 'recovery wrap from a CryptoKey');
  const made = await c.newRecoveryKey();
  check(made.key.length === 20 && c.hex(await c.parseRecoveryKey(made.text)) === c.hex(made.key), 'new recovery key');
  // Records: read as inbox.js reads an opened record (crypto.js's fatal
  // TextDecoder, which drops one byte order mark, then JSON.parse), so
  // bytes that do not get that far are 'not a record' as in Go.
  const records = await import('/records.js');
  const te = new TextEncoder();
  const readRecord = (bytes) => {
    let r;
    try { r = JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(bytes)); } catch { r = undefined; }
    return records.parseRecord(r);
  };
  const same = (a, b) => {
    if (a === b) return true;
    if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null || Array.isArray(a) !== Array.isArray(b)) return false;
    const ka = Object.keys(a);
    return ka.length === Object.keys(b).length && ka.every((k) => Object.hasOwn(b, k) && same(a[k], b[k]));
  };
  const rv = v.records;
  for (const x of rv.valid) {
    check(same(readRecord(te.encode(x.record)), x.result), 'record: ' + x.why);
  }
  for (const x of rv.invalid) {
    const got = readRecord(x.bytes ? c.b64decode(x.bytes) : te.encode(x.record));
    check(got.type === 'invalid' && got.reason === x.reason, 'record refused: ' + x.why);
  }
  for (const s of rv.sealed) {
    const key = await c.aesKey(c.unhex(s.key));
    const body = await c.seal(key, c.unhex(s.iv), s.id, s.from, s.to, s.record);
    check(c.b64encode(body) === s.body, 'sealed record ' + s.what);
    let opened = null;
    try { opened = await c.open(key, s.id, s.from, s.to, c.b64decode(s.body)); } catch (err) { opened = String(err); }
    const type = opened === s.record ? readRecord(te.encode(opened)).type : 'not opened';
    check(type !== 'invalid' && type !== 'unknown' && type !== 'not opened', 'sealed record open ' + s.what);
    check(c.pad(te.encode(s.record)).length === s.padded && body.length === s.padded + c.IV_SIZE + c.TAG_SIZE, 'sealed record bucket ' + s.what);
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
// crypto.js, and their records through records.js, in Chromium, served
// from a loopback origin (a secure context).
func TestCryptoVectorsInBrowser(t *testing.T) {
	vectors, err := os.ReadFile("../relayclient/seal/testdata/vectors.json")
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(webclient.Handler())
	defer srv.Close()
	b := browser.New(t)

	r := runKAT(t, b.Ctx, srv.URL, vectors)
	if want := katChecks(t, vectors); len(r.Bad) > 0 || r.Checks != want {
		t.Fatalf("crypto.js disagrees with the Go implementation (%d checks of %d): %v", r.Checks, want, r.Bad)
	}

	// Controls: a vector changed in one place must fail the check of that
	// vector, or the checks above prove nothing.
	for _, c := range []struct {
		what   string
		change func(v map[string]any)
		want   string // a prefix of a reported mismatch
	}{
		{"envelope body", func(v map[string]any) {
			e := v["envelopes"].([]any)[0].(map[string]any)
			e["body"] = flipChar(e["body"].(string), 20, base64Chars)
		}, "seal "},
		{"recovery blob", func(v map[string]any) {
			w := recoveryPart(v, "wrap", 0)
			w["blob"] = flipChar(w["blob"].(string), 30, base64Chars)
		}, "recovery wrap "},
		{"check character", func(v map[string]any) {
			k := recoveryPart(v, "keys", 0)
			f := k["formatted"].(string)
			k["formatted"] = flipChar(f, len(f)-1, base32Chars)
		}, "recovery format "},
		{"a key among the non-keys", func(v map[string]any) {
			recoveryPart(v, "notKeys", 0)["input"] = recoveryPart(v, "keys", 0)["formatted"]
		}, "recovery not a key: "},
		{"a mismatched pair expected as a wrong key", func(v map[string]any) {
			fails := v["recovery"].(map[string]any)["fail"].([]any)
			fails[len(fails)-1].(map[string]any)["error"] = "wrong_recovery_key"
		}, "recovery fail: "},
		{"a parsed record", func(v map[string]any) {
			recordPart(v, "valid", 0)["result"].(map[string]any)["text"] = "Hello, Bob?"
		}, "record: "},
		{"a refusal's reason", func(v map[string]any) {
			for _, x := range v["records"].(map[string]any)["invalid"].([]any) {
				if x := x.(map[string]any); x["reason"] == "ids" {
					x["reason"] = "status"
				}
			}
		}, "record refused: "},
		{"a sealed record's bucket", func(v map[string]any) {
			recordPart(v, "sealed", 0)["padded"] = 512
		}, "sealed record bucket "},
	} {
		var v map[string]any
		if err := json.Unmarshal(vectors, &v); err != nil {
			t.Fatal(err)
		}
		c.change(v)
		broken, _ := json.Marshal(v)
		r := runKAT(t, b.Ctx, srv.URL, broken)
		found := false
		for _, bad := range r.Bad {
			found = found || strings.HasPrefix(bad, c.want)
		}
		if !found {
			t.Errorf("control %q: no %q mismatch in %v: the browser check cannot fail", c.what, c.want, r.Bad)
		}
	}
}

// katChecks is the number of checks katScript makes on these vectors, so a
// list it skipped shows.
func katChecks(t *testing.T, vectors []byte) int {
	t.Helper()
	var v struct {
		Conversation, Envelopes, Tampered, Padding, Safety []json.RawMessage
		Recovery                                           struct{ Keys, Parse, NotKeys, Wrap, Fail []json.RawMessage }
		Records                                            struct{ Valid, Invalid, Sealed []json.RawMessage }
	}
	if err := json.Unmarshal(vectors, &v); err != nil {
		t.Fatal(err)
	}
	const link, recoveryExtra = 5, 3
	r := v.Recovery
	return 2*len(v.Conversation) + 2*len(v.Envelopes) + len(v.Tampered) + len(v.Padding) + link + len(v.Safety) +
		2*len(r.Keys) + len(r.Parse) + len(r.NotKeys) + 3*len(r.Wrap) + len(r.Fail) + recoveryExtra +
		len(v.Records.Valid) + len(v.Records.Invalid) + 3*len(v.Records.Sealed)
}

func recoveryPart(v map[string]any, list string, i int) map[string]any {
	return v["recovery"].(map[string]any)[list].([]any)[i].(map[string]any)
}

func recordPart(v map[string]any, list string, i int) map[string]any {
	return v["records"].(map[string]any)[list].([]any)[i].(map[string]any)
}

const (
	base64Chars = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"
	base32Chars = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567"
)

// flipChar changes the character at i to the next one of its alphabet, so
// the vector stays well-formed and only its value is wrong.
func flipChar(s string, i int, alphabet string) string {
	next := alphabet[(strings.IndexByte(alphabet, s[i])+1)%len(alphabet)]
	return s[:i] + string(next) + s[i+1:]
}
