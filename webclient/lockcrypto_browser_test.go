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

// TestLockCryptoInBrowser: lockcrypto.js and the vendored primitives under
// it, in Chromium, from the served files.
//
//   - The published vectors: scrypt's of RFC 7914 section 12 (the first
//     three; the fourth takes 1 GiB), HKDF-SHA-256's of RFC 5869 (test case
//     1), HMAC-SHA-256's of RFC 4231 (test case 2), XChaCha20-Poly1305's
//     of draft-irtf-cfrg-xchacha-03 (A.3.1) and X25519's of RFC 7748
//     (section 6.1).
//   - The lock's own rules: a data key wrapped under a passphrase's key
//     opens with it and not with another's (WrongPassphrase); a row opens
//     under its store and key only, and not once a byte changed; names
//     hash the same under one data key and differently under another;
//     every kind of value a row holds comes back as it went (bytes, the
//     infinities, undefined, a reaction named like a tag); what is sealed
//     to the lock's public key opens with its private key only; a row's
//     size is a multiple of 64 bytes plus the nonce and the tag.
//
// The controls are the vectors themselves (one changed byte of an answer
// fails it) and the refusals above.
func TestLockCryptoInBrowser(t *testing.T) {
	srv := httptest.NewServer(webclient.Handler())
	defer srv.Close()
	b := browser.New(t)
	ctx, cancel := context.WithTimeout(b.Ctx, 120*time.Second)
	defer cancel()
	if err := chromedp.Do(ctx, chromedp.Navigate(srv.URL+"/")); err != nil {
		t.Fatal(err)
	}
	got, err := chromedp.Run(ctx, chromedp.Evaluate[[]string](`(async () => {
	  const lc = await import('/lockcrypto.js');
	  const { scryptAsync } = await import('/vendor/@noble/hashes@2.0.1/scrypt.js');
	  const { hkdf } = await import('/vendor/@noble/hashes@2.0.1/hkdf.js');
	  const { hmac } = await import('/vendor/@noble/hashes@2.0.1/hmac.js');
	  const { sha256 } = await import('/vendor/@noble/hashes@2.0.1/sha2.js');
	  const { xchacha20poly1305 } = await import('/vendor/@noble/ciphers@2.1.1/chacha.js');
	  const { x25519 } = await import('/vendor/@noble/curves@2.0.1/ed25519.js');
	  const hex = (u) => [...u].map((x) => x.toString(16).padStart(2, '0')).join('');
	  const unhex = (h) => Uint8Array.from(h.replace(/\s/g, '').match(/../g) || [], (x) => parseInt(x, 16));
	  const te = new TextEncoder();
	  const bad = [];
	  const want = (what, got, answer) => { if (got !== answer.replace(/\s/g, '')) bad.push(what + ': ' + got); };

	  // RFC 7914, section 12.
	  const scryptVectors = [
	    ['', '', 16, 1, 1, '77d6576238657b203b19ca42c18a0497f16b4844e3074ae8dfdffa3fede21442fcd0069ded0948f8326a753a0fc81f17e8d3e0fb2e0d3628cf35e20c38d18906'],
	    ['password', 'NaCl', 1024, 8, 16, 'fdbabe1c9d3472007856e7190d01e9fe7c6ad7cbc8237830e77376634b3731622eaf30d92e22a3886ff109279d9830dac727afb94a83ee6d8360cbdfa2cc0640'],
	    ['pleaseletmein', 'SodiumChloride', 16384, 8, 1, '7023bdcb3afd7348461c06cd81fd38ebfda8fbba904f8e3ea9b543f6545da1f2d5432955613f0fcf62d49705242a9af9e61e85dc0d651e40dfcf017b45575887'],
	  ];
	  for (const [p, s, N, r, pp, out] of scryptVectors) want('scrypt ' + p, hex(await scryptAsync(te.encode(p), te.encode(s), { N, r, p: pp, dkLen: 64 })), out);
	  // RFC 5869, test case 1.
	  want('hkdf', hex(hkdf(sha256, unhex('0b'.repeat(22)), unhex('000102030405060708090a0b0c'), unhex('f0f1f2f3f4f5f6f7f8f9'), 42)),
	    '3cb25f25faacd57a90434f64d0362f2a2d2d0a90cf1a5a4c5db02d56ecc4c5bf34007208d5b887185865');
	  // RFC 4231, test case 2.
	  want('hmac', hex(hmac(sha256, te.encode('Jefe'), te.encode('what do ya want for nothing?'))), '5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843');
	  // draft-irtf-cfrg-xchacha-03, A.3.1.
	  const xc = xchacha20poly1305(unhex('808182838485868788898a8b8c8d8e8f909192939495969798999a9b9c9d9e9f'), unhex('404142434445464748494a4b4c4d4e4f5051525354555657'), unhex('50515253c0c1c2c3c4c5c6c7'));
	  want('xchacha20poly1305', hex(xc.encrypt(te.encode("Ladies and Gentlemen of the class of '99: If I could offer you only one tip for the future, sunscreen would be it."))),
	    'bd6d179d3e83d43b9576579493c0e939572a1700252bfaccbed2902c21396cbb731c7f1b0b4aa6440bf3a82f4eda7e39ae64c6708c54c216cb96b72e1213b4522f8c9ba40db5d945b11b69b982c1bb9e3f3fac2bc369488f76b2383565d3fff921f9664c97637da9768812f615c68b13b52ec0875924c1c7987947deafd8780acf49');
	  // RFC 7748, section 6.1.
	  const alice = unhex('77076d0a7318a57d3c16c17251b26645df4c2f87ebc0992ab177fba51db92c2a');
	  const bobPub = unhex('de9edb7d7b7dc1b4d35b61c2ece435373f8343c85b78674dadfc7e146f882b4f');
	  want('x25519 public', hex(x25519.getPublicKey(alice)), '8520f0098930a754748b7ddcb43ef75a0dbf3a0d26381af4eba4a98eaa9b4e6a');
	  want('x25519 shared', hex(x25519.getSharedSecret(alice, bobPub)), '4a5d9d5ba4ce2de1728e3bf480350f25e07e21c947d19e3376f09b3c1e161742');

	  // The lock's own rules, with a cheap cost: the rules do not depend on it.
	  const cheap = { N: 1024, r: 8, p: 1 };
	  const salt = crypto.getRandomValues(new Uint8Array(lc.SALT_BYTES));
	  let progress = 0;
	  const pk = await lc.passphraseKey('correct horse', salt, cheap, (x) => { progress = x; });
	  if (progress < 0.99) bad.push('passphraseKey told no progress');
	  if (hex(pk) !== hex(await lc.passphraseKey('correct horse'.normalize('NFD'), salt, cheap))) bad.push('the passphrase is not taken in its NFKC form');
	  const dk = lc.newDataKey();
	  const wrapped = lc.wrapKey(pk, dk);
	  if (hex(lc.unwrapKey(pk, wrapped)) !== hex(dk)) bad.push('unwrap');
	  try { lc.unwrapKey(await lc.passphraseKey('wrong horse', salt, cheap), wrapped); bad.push('a wrong passphrase opened the key'); } catch (e) { if (!(e instanceof lc.WrongPassphrase)) bad.push('a wrong passphrase threw ' + e); }
	  const keys = lc.rowKeys(dk);
	  const row = { id: '01JQ0000000000000000000001', chat: 'bob', text: 'héllo 😀', sort: Infinity, low: -Infinity, pub: new Uint8Array([1, 2, 255]), buf: new Uint8Array([9, 8]).buffer, gone: undefined, nul: null, yes: true, list: [1, 'a', undefined, { $b: 1 }],
	    reactions: { 'b': { alice: { on: true } }, '$b': { bob: { on: false } }, '.x': 1 } };
	  const sealed = lc.sealRow(keys, 'messages', row.id, row);
	  if ((sealed.length - 24 - 16) % 64 !== 0) bad.push('a sealed row of ' + sealed.length + ' bytes');
	  const back = lc.openRow(keys, 'messages', row.id, sealed);
	  const same = lc.pack(back) === lc.pack(row) && back.pub instanceof Uint8Array && back.buf instanceof ArrayBuffer && back.sort === Infinity && back.low === -Infinity && 'gone' in back && back.gone === undefined && back.list[2] === undefined && back.reactions['$b'].bob.on === false && back.list[3].$b === 1;
	  if (!same) bad.push('a row came back as ' + lc.pack(back));
	  for (const [what, fn] of [
	    ['another key', () => lc.openRow(keys, 'messages', '01JQ0000000000000000000002', sealed)],
	    ['another store', () => lc.openRow(keys, 'chats', row.id, sealed)],
	    ['a changed byte', () => { const x = sealed.slice(); x[40] ^= 1; return lc.openRow(keys, 'messages', row.id, x); }],
	    ['another data key', () => lc.openRow(lc.rowKeys(lc.newDataKey()), 'messages', row.id, sealed)],
	  ]) { try { fn(); bad.push('a row opened under ' + what); } catch { /* refused */ } }
	  if (lc.blindName(keys, 'bob') !== lc.blindName(lc.rowKeys(dk), 'bob') || lc.blindName(keys, 'bob') === lc.blindName(keys, 'carol') || lc.blindName(keys, 'bob') === lc.blindName(lc.rowKeys(lc.newDataKey()), 'bob')) bad.push('names');
	  if (!/^[A-Za-z0-9_-]{22}$/.test(lc.blindName(keys, 'bob'))) bad.push('a name hashes to ' + lc.blindName(keys, 'bob'));
	  const kp = lc.lockKeyPair();
	  const held = lc.sealTo(kp.publicKey, te.encode('a batch'));
	  if (new TextDecoder().decode(lc.openFrom(kp.privateKey, held)) !== 'a batch') bad.push('sealTo / openFrom');
	  try { lc.openFrom(lc.lockKeyPair().privateKey, held); bad.push('a held batch opened with another key'); } catch { /* refused */ }
	  return bad;
	})()`, chromedp.EvalAwaitPromise))
	if err != nil {
		t.Fatal(err)
	}
	if len(got) > 0 {
		t.Fatalf("lockcrypto.js in Chromium:\n%v", got)
	}
	// What the lock's cost takes here, said, not judged (ADR 0113).
	ms, err := chromedp.Run(ctx, chromedp.Evaluate[float64](`import('/lockcrypto.js').then(async (lc) => { const t0 = performance.now(); await lc.passphraseKey('correct horse', new Uint8Array(16)); return performance.now() - t0; })`, chromedp.EvalAwaitPromise))
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("scrypt at the lock's cost (N=2^17, r=8, p=1): %.0f ms", ms)
}
