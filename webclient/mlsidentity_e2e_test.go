package webclient_test

import (
	"context"
	"fmt"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"relay/internal/browser"
	"relay/webclient"
)

// The device credential's test vector (docs/crypto.md, "Device
// credentials"): the account key's scalar is SHA-256("relay device
// certificate vector: account"), the device's signature key's SHA-256("relay
// device certificate vector: device"); the certificate was made once with
// Go's crypto/ecdsa (ECDSA signatures are randomised, so it is data, not a
// derivation).
const (
	vecAccountPub = "04718ccf5fd5afb2c2fc9a1bf912623dbfc8c7abc94bfb36fb7a75d047c95dd28d8575923088285f23bad14b037510dd33974c18a661decbada526e8d6e93ce0ae"
	vecSigPub     = "0412ac962d17280891c0a8c22f871e4f93cdc03fcc78186435140bd74ed0f8854156aa9732dd056168193e583d44cfc3eec7c1dea6f41c6d3c4fd38487cb8c4c25"
	vecUsername   = "alice"
	vecDevice     = "01HZY3V5QK7W9D2M4N6P8R0T1X"
	vecCert       = "d9bb07b363348fd851b0eb1a09cb51b3ca2e43a9b966b1d3e2542d979d387e5097a337f494fddbcf156e3c137c0abf979b796ebd1923e089e9b20db000927106"
	vecIdentity   = "0105616c6963651a3031485a59335635514b37573944324d344e365038523054315840" + vecCert
)

// TestDeviceCredential checks, in Chromium, the certificate and the
// credential of docs/crypto.md: the vector's identity bytes and
// certificate, a certificate made and checked with an account key pair as
// the client holds it (ECDH, extractable), each changed input refused, and
// parseIdentity refusing every malformed identity.
func TestDeviceCredential(t *testing.T) {
	srv := httptest.NewServer(webclient.Handler())
	t.Cleanup(srv.Close)
	p := browser.New(t)
	tb := &tab{t: t, ctx: p.Ctx}
	tb.do(chromedp.Navigate(srv.URL + "/"))
	got := eval[map[string]any](tb, `(async () => {
  const c = await import('/crypto.js');
  const m = await import('/mlsidentity.js');
  const accountPub = c.unhex(`+js(vecAccountPub)+`), sigPub = c.unhex(`+js(vecSigPub)+`), cert = c.unhex(`+js(vecCert)+`);
  const user = `+js(vecUsername)+`, dev = `+js(vecDevice)+`;
  const out = {};
  out.identity = c.hex(m.encodeIdentity(user, dev, cert));
  const parsed = m.parseIdentity(c.unhex(`+js(vecIdentity)+`));
  out.parsed = parsed && parsed.username === user && parsed.deviceId === dev && c.hex(parsed.certificate) === c.hex(cert);
  out.vector = await c.checkDeviceCertificate(accountPub, user, dev, sigPub, cert);
  const flipped = cert.slice(); flipped[10] ^= 1;
  const otherSig = sigPub.slice(); otherSig[64] ^= 1;
  out.refused = [
    await c.checkDeviceCertificate(accountPub, user, dev, sigPub, flipped),
    await c.checkDeviceCertificate(accountPub, 'alicf', dev, sigPub, cert),
    await c.checkDeviceCertificate(accountPub, user, '01HZY3V5QK7W9D2M4N6P8R0T1Y', sigPub, cert),
    await c.checkDeviceCertificate(accountPub, user, dev, otherSig, cert),
    await c.checkDeviceCertificate(sigPub, user, dev, sigPub, cert),
    await c.checkDeviceCertificate(accountPub, user, dev, sigPub, cert.subarray(0, 63)),
  ];
  // The account key as the client makes it: ECDH, extractable.
  const pair = await c.generateKeyPair();
  const pub = await c.exportPublic(pair.publicKey);
  const made = await c.certifyDevice(pair.privateKey, user, dev, sigPub);
  out.madeSize = made.length;
  out.made = await c.checkDeviceCertificate(pub, user, dev, sigPub, made);
  out.madeByOther = await c.checkDeviceCertificate(accountPub, user, dev, sigPub, made);
  // Strict parsing: each of these is refused.
  const good = c.unhex(`+js(vecIdentity)+`);
  const bad = {
    empty: new Uint8Array(),
    version0: Uint8Array.of(0, ...good.subarray(1)),
    version2: Uint8Array.of(2, ...good.subarray(1)),
    trailing: Uint8Array.of(...good, 0),
    certTooShort: Uint8Array.of(...good.subarray(0, good.length - 65), 63, ...cert.subarray(0, 63)),
    certTooLong: Uint8Array.of(...good.subarray(0, good.length - 65), 65, ...cert, 0),
    upperUser: Uint8Array.of(1, 5, ...new TextEncoder().encode('Alice'), ...good.subarray(7)),
    shortUser: Uint8Array.of(1, 2, ...new TextEncoder().encode('al'), ...good.subarray(7)),
    badUTF8User: Uint8Array.of(1, 5, 0x61, 0x6c, 0xff, 0x63, 0x65, ...good.subarray(7)),
    nulUser: Uint8Array.of(1, 5, 0x61, 0x6c, 0, 0x63, 0x65, ...good.subarray(7)),
    lowerDevice: Uint8Array.of(...good.subarray(0, 7), 26, ...new TextEncoder().encode(dev.toLowerCase()), ...good.subarray(34)),
    deviceWithI: Uint8Array.of(...good.subarray(0, 7), 26, ...new TextEncoder().encode('01HZY3V5QK7W9D2M4N6P8R0T1I'), ...good.subarray(34)),
    deviceOverflow: Uint8Array.of(...good.subarray(0, 7), 26, ...new TextEncoder().encode('81HZY3V5QK7W9D2M4N6P8R0T1X'), ...good.subarray(34)),
    shortDevice: Uint8Array.of(...good.subarray(0, 7), 25, ...new TextEncoder().encode(dev.slice(1)), ...good.subarray(34)),
    lengthPastEnd: Uint8Array.of(...good.subarray(0, good.length - 65), 200, ...cert),
  };
  for (let i = 0; i < good.length; i++) bad['cut' + i] = good.subarray(0, i);
  out.accepted = Object.entries(bad).filter(([, b]) => m.parseIdentity(b) !== null).map(([k]) => k);
  out.badCount = Object.keys(bad).length;
  const throws = (f) => { try { f(); return false; } catch { return true; } };
  out.encodeRefuses = [
    throws(() => m.encodeIdentity('Al', dev, cert)),
    throws(() => m.encodeIdentity(user, 'nope', cert)),
    throws(() => m.encodeIdentity(user, dev, cert.subarray(1))),
  ];
  return out;
})()`)
	if got["identity"] != vecIdentity {
		t.Errorf("identity bytes:\n got %v\nwant %s", got["identity"], vecIdentity)
	}
	if got["parsed"] != true {
		t.Error("the vector's identity does not parse back to its inputs")
	}
	if got["vector"] != true {
		t.Error("the vector's certificate is refused")
	}
	for i, v := range got["refused"].([]any) {
		if v != false {
			t.Errorf("changed input %d: a certificate is accepted", i)
		}
	}
	if got["madeSize"] != float64(64) || got["made"] != true || got["madeByOther"] != false {
		t.Errorf("a certificate made by an ECDH account key: size %v, checks %v, with another key %v", got["madeSize"], got["made"], got["madeByOther"])
	}
	if acc := got["accepted"].([]any); len(acc) != 0 || got["badCount"].(float64) < 100 {
		t.Errorf("parseIdentity accepts %v (of %v bad identities)", acc, got["badCount"])
	}
	for i, v := range got["encodeRefuses"].([]any) {
		if v != true {
			t.Errorf("encodeIdentity %d: makes a credential of bad inputs", i)
		}
	}
}

// keyPackagesOf counts a device's key packages on the relay: one-time,
// and last resort.
func (r *liveRelay) keyPackagesOf(device string) (int, int) {
	r.t.Helper()
	return r.count(`SELECT count(*) FROM key_packages WHERE device_id = $1 AND NOT last_resort`, device),
		r.count(`SELECT count(*) FROM key_packages WHERE device_id = $1 AND last_resort`, device)
}

// waitKeyPackages waits until device holds oneTime one-time packages and
// lastResort last-resort ones on the relay.
func (r *liveRelay) waitKeyPackages(what, device string, oneTime, lastResort int) {
	r.t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		o, l := r.keyPackagesOf(device)
		if o == oneTime && l == lastResort {
			return
		}
		if time.Now().After(deadline) {
			r.t.Fatalf("%s: the device holds %d one-time and %d last-resort key packages, want %d and %d", what, o, l, oneTime, lastResort)
		}
		sleep()
	}
}

// keepPublished runs this tab's key package upkeep to its end (the one
// the stream's ready starts).
func (tb *tab) keepPublished() {
	tb.t.Helper()
	eval[bool](tb, `import('/mlsidentity.js').then((m) => m.keepPublished()).then(() => true)`)
}

// approve approves the waiting device id from approver's Devices screen
// and waits until it is linked.
func approve(approver, waiting *tab, id string) {
	approver.t.Helper()
	eval[chromedp.Void](approver, `location.hash = '#/devices'`)
	row := fmt.Sprintf(`.device[data-id="%s"]`, id)
	approver.waitFor("the new device", `document.querySelector('`+row+` .approve-btn')`)
	approver.do(chromedp.Click(chromedp.CSS(row + " .approve-btn")))
	waiting.waitFor("the device to be linked", `document.getElementById('new-chat-username')`)
}

// claimScript claims one key package of each of alice's devices from the
// page's own fetch, as a member adding her would.
const claimScript = `(async () => {
  const s = await import('/sync.js');
  const r = await fetch('/api/keypackages/claim', { method: 'POST', headers: { 'Content-Type': 'application/json', 'X-Device': s.currentDevice().id }, body: JSON.stringify({ username: 'alice' }) });
  if (!r.ok) throw new Error('claim: ' + r.status);
  return (await r.json()).devices;
})()`

type claimed struct {
	Device     string `json:"device"`
	KeyPackage string `json:"keyPackage"`
	LastResort bool   `json:"lastResort"`
}

// TestKeyPackagesPublished: a linked device keeps 20 one-time key packages
// and a last-resort one on the relay, each naming a credential that
// another account's client accepts (checkMember); a device waiting to be
// linked publishes none; a device that runs low tops up to 20 at its
// next ready; after a rotation of the account key each device publishes
// packages the new key certifies; a logout leaves none of the device's on
// the relay.
func TestKeyPackagesPublished(t *testing.T) {
	r, alice, bob := aliceAndBob(t)
	a1 := alice.deviceID()
	r.waitKeyPackages("after registering", a1, 20, 1)
	alice.keepPublished()
	if o, l := r.keyPackagesOf(a1); o != 20 || l != 1 {
		t.Fatalf("a second upkeep changed what the device holds: %d and %d", o, l)
	}
	// A relay that holds no last-resort package of the device gets one,
	// and nothing more.
	if _, err := r.Pool.Exec(context.Background(), `DELETE FROM key_packages WHERE device_id = $1 AND last_resort`, a1); err != nil {
		t.Fatal(err)
	}
	alice.keepPublished()
	if o, l := r.keyPackagesOf(a1); o != 20 || l != 1 {
		t.Fatalf("after the last-resort package went, the upkeep left %d and %d", o, l)
	}

	// A device waiting to be linked has no account key: it publishes
	// nothing, even when its upkeep runs; once approved, it has its own.
	_, waiting := r.newProfile(t)
	waiting.login("alice")
	a2 := waiting.deviceID()
	waiting.waitFor("the waiting device's stream", `import('/sync.js').then((s) => s.connection() === 'open')`)
	waiting.keepPublished()
	if o, l := r.keyPackagesOf(a2); o != 0 || l != 0 {
		t.Fatalf("a device waiting to be linked published %d one-time and %d last-resort key packages", o, l)
	}
	approve(alice, waiting, a2)
	r.waitKeyPackages("after the approval", a2, 20, 1)

	// bob claims one package of each of alice's devices and checks each
	// credential in his page.
	got := eval[[]claimed](bob, claimScript)
	if len(got) != 2 || got[0].Device > got[1].Device || (got[0].Device != a1 && got[0].Device != a2) {
		t.Fatalf("claimed %+v", got)
	}
	for _, kp := range got {
		check := eval[map[string]any](bob, `(async () => {
  const s = await import('/sync.js');
  const mls = await import('/mls.js');
  const c = await import('/crypto.js');
  const m = await import('/mlsidentity.js');
  const account = await import('/account.js');
  const kp = c.b64decode(`+js(kp.KeyPackage)+`);
  const member = mls.keyPackageMember(kp);
  const id = m.parseIdentity(member.identity);
  const sig = member.signaturePublicKey;
  const other = `+js(a1)+` === id.deviceId ? `+js(a2)+` : `+js(a1)+`;
  // Controls: a certificate by another account's key (bob's own), the
  // certificate of this device under another device id, and the same
  // under another username.
  const bobs = await c.certifyDevice(account.current().privateKey, 'alice', id.deviceId, sig);
  return {
    device: id.deviceId, username: id.username, lastResort: mls.isLastResort(kp),
    accepted: await s.checkMember(member.identity, sig),
    otherAccount: await s.checkMember(m.encodeIdentity('alice', id.deviceId, bobs), sig),
    otherDevice: await s.checkMember(m.encodeIdentity('alice', other, id.certificate), sig),
    otherUser: await s.checkMember(m.encodeIdentity('bob', id.deviceId, id.certificate), sig),
    bobsOwnCert: await s.checkMember(m.encodeIdentity('bob', id.deviceId, bobs), sig),
  };
})()`)
		if check["device"] != kp.Device || check["username"] != "alice" || check["lastResort"] != false {
			t.Errorf("the package claimed for %s names %v of %v (last resort %v)", kp.Device, check["device"], check["username"], check["lastResort"])
		}
		if check["accepted"] != true {
			t.Errorf("alice's device %s is refused", kp.Device)
		}
		for _, k := range []string{"otherAccount", "otherDevice", "otherUser"} {
			if check[k] != false {
				t.Errorf("a credential with %s is accepted", k)
			}
		}
		// bob's key over "alice" checked as bob's: his key, the wrong name.
		if check["bobsOwnCert"] != false {
			t.Error("a certificate over another username is accepted")
		}
	}

	// Top-up: 15 more claims leave each of alice's devices 4; her first
	// device's next ready tops it up to 20, and only to 20.
	for i := 0; i < 15; i++ {
		eval[[]claimed](bob, claimScript)
	}
	if o, _ := r.keyPackagesOf(a1); o != 4 {
		t.Fatalf("after 16 claims the device holds %d one-time key packages, want 4", o)
	}
	eval[chromedp.Void](alice, `import('/stream.js').then((s) => s.openStream())`)
	r.waitKeyPackages("after the next ready", a1, 20, 1)
	alice.keepPublished()
	if o, l := r.keyPackagesOf(a1); o != 20 || l != 1 {
		t.Fatalf("a second upkeep after the top-up: %d and %d", o, l)
	}

	// A rotation of the account key: the relay drops every package of
	// the account, certified by the old key; each device certifies its
	// signature key with the new one and publishes anew, and bob, who
	// looks the new key up, accepts them.
	if n := eval[float64](alice, `import('/sync.js').then((s) => s.rotateAccountKey(`+js(password)+`, []))`); n != 1 {
		t.Fatalf("the new key is sent to %v devices, want 1", n)
	}
	r.waitKeyPackages("the rotating device, after the rotation", a1, 20, 1)
	r.waitKeyPackages("the other device, after the rotation", a2, 20, 1)
	rotated := eval[[]bool](bob, `(async () => {
  const s = await import('/sync.js');
  const mls = await import('/mls.js');
  const c = await import('/crypto.js');
  const out = [];
  for (const d of await `+claimScript+`) {
    const member = mls.keyPackageMember(c.b64decode(d.keyPackage));
    out.push(await s.checkMember(member.identity, member.signaturePublicKey));
  }
  return out;
})()`)
	if len(rotated) != 2 || !rotated[0] || !rotated[1] {
		t.Fatalf("after the rotation, bob's checks of alice's devices: %v", rotated)
	}

	// A logout revokes the device: none of its packages stays.
	waiting.logout()
	r.waitKeyPackages("after the logout", a2, 0, 0)
}
