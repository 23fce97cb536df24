// mlsidentity.js: this device's MLS identity (ADR 0100, docs/crypto.md
// "Device credentials"): its MLS signature key, certified by the account
// key; the credential that carries the certificate; the check of another
// member's credential (checkMember, the check mls.js asks for); and the
// key packages this device keeps published on the relay. Only the tab
// that owns the stream publishes, and only a linked device: one waiting
// to be linked has no account key to certify with. Nothing here reaches
// the screens: a failure is tried again at the next ready.

import * as store from './store.js';
import * as api from './api.js';
import * as c from './crypto.js';
import * as account from './account.js';
import * as contacts from './contacts.js';
import * as election from './election.js';

export const IDENTITY_VERSION = 1;
// A device holds ONE_TIME one-time key packages after each publication,
// and tops up to it when fewer than LOW are left.
export const ONE_TIME = 20;
export const LOW = 10;
// CHECK_MS: how often the count is asked while the stream stays open,
// besides at each ready.
export const CHECK_MS = 10 * 60 * 1000;

const USERNAME = /^[a-z0-9_]{3,32}$/;
const ULID = /^[0-7][0-9A-HJKMNP-TV-Z]{25}$/;
const te = new TextEncoder();
const td = new TextDecoder('utf-8', { fatal: true });

// ---- the credential ----

/**
 * encodeIdentity is the identity of a device's basic credential: the
 * version, then the username, the device id and the certificate, each
 * after its length in one byte.
 * @param {string} username
 * @param {string} deviceId
 * @param {Uint8Array} certificate
 * @returns {Uint8Array}
 */
export function encodeIdentity(username, deviceId, certificate) {
  if (!USERNAME.test(username) || !ULID.test(deviceId) || certificate.length !== c.CERTIFICATE_SIZE) {
    throw new Error('mlsidentity: not a device credential');
  }
  const parts = [te.encode(username), te.encode(deviceId), certificate];
  const out = new Uint8Array(1 + parts.reduce((n, p) => n + 1 + p.length, 0));
  let at = 0;
  out[at++] = IDENTITY_VERSION;
  for (const p of parts) {
    out[at++] = p.length;
    out.set(p, at);
    at += p.length;
  }
  return out;
}

/**
 * parseIdentity reads what encodeIdentity wrote, and nothing else: null
 * for another version, a length past the end, bytes after the end, a name
 * or id the relay would not give, or a certificate of another size.
 * @param {Uint8Array} bytes
 * @returns {{username: string, deviceId: string, certificate: Uint8Array} | null}
 */
export function parseIdentity(bytes) {
  if (!(bytes instanceof Uint8Array) || bytes.length < 1 || bytes[0] !== IDENTITY_VERSION) return null;
  const parts = [];
  let at = 1;
  while (parts.length < 3) {
    if (at >= bytes.length) return null;
    const n = bytes[at++];
    if (at + n > bytes.length) return null;
    parts.push(bytes.subarray(at, at + n));
    at += n;
  }
  if (at !== bytes.length) return null;
  let username;
  let deviceId;
  try {
    username = td.decode(parts[0]);
    deviceId = td.decode(parts[1]);
  } catch {
    return null;
  }
  if (!USERNAME.test(username) || !ULID.test(deviceId) || parts[2].length !== c.CERTIFICATE_SIZE) return null;
  return { username, deviceId, certificate: parts[2].slice() };
}

// ---- the check of a member ----

/**
 * checkMember says whether a member's credential identity and signature
 * key are a device certified by its account's key (docs/crypto.md, "Who
 * is checked"): the key held here for this account, the directory's for
 * another (recorded as a contact's key is, so that a changed key warns
 * in the chat). A key that does not certify it is asked again past the
 * relay's memory before the member is refused: that answer may be older
 * than a key replacement. It throws (code 'network') when nothing can be
 * said yet, and the caller reads what it was reading again later: the
 * directory cannot be reached and no key held certifies the member, or
 * the directory serves this account a key that this device does not
 * hold yet and that certifies the member (the link envelope that brings
 * it is on its way).
 * @param {Uint8Array} identity
 * @param {Uint8Array} signaturePublicKey
 * @returns {Promise<boolean>}
 */
export async function checkMember(identity, signaturePublicKey) {
  const id = parseIdentity(identity);
  if (!id || !(signaturePublicKey instanceof Uint8Array)) return false;
  /** @param {Uint8Array | null | undefined} pub */
  const certifies = async (pub) => !!pub && c.checkDeviceCertificate(pub, id.username, id.deviceId, signaturePublicKey, id.certificate);
  const me = account.current();
  if (me && me.username === id.username) {
    if (await certifies(me.publicKey)) return true;
    let served;
    try {
      served = c.b64decode((await api.lookup(id.username, true)).publicKey);
    } catch (e) {
      if (api.transient(e)) throw e;
      return false;
    }
    if (c.hex(served) !== c.hex(me.publicKey) && (await certifies(served))) throw notYet();
    return false;
  }
  let fetched;
  try {
    fetched = (await contacts.refreshKey(id.username)).publicKey;
  } catch (e) {
    // A deleted or unknown account certifies no one.
    if (!api.transient(e)) return false;
    // Offline: a key recorded that certifies the member is enough; one
    // that does not may be the key before a replacement.
    const ch = await store.getChat(id.username);
    if (ch && (await certifies(ch.publicKey))) return true;
    throw e;
  }
  if (await certifies(fetched)) return true;
  return certifies((await contacts.refreshKey(id.username, true)).publicKey);
}

function notYet() {
  return Object.assign(new Error('mlsidentity: certified by an account key this device does not hold yet'), { code: 'network' });
}

// ---- this device's identity and key packages ----

// current says whether the stored identity is this device's, certified by
// the account key held now.
function current(id, acct, dev) {
  return !!id && id.device === dev.id && c.b64encode(id.accountKey) === c.b64encode(acct.publicKey);
}

// certify makes this device's identity, or certifies its signature key
// again after the account key changed (the key stays the device's: a
// rotation replaces the account key, not the device's).
async function certify(id, acct, dev) {
  const mls = await import('./mls.js');
  const keys = id && id.device === dev.id ? id : await mls.newDevice(new Uint8Array());
  const cert = await c.certifyDevice(acct.privateKey, acct.username, dev.id, keys.signaturePublicKey);
  return {
    device: dev.id,
    accountKey: acct.publicKey,
    identity: encodeIdentity(acct.username, dev.id, cert),
    signaturePublicKey: keys.signaturePublicKey,
    signaturePrivateKey: keys.signaturePrivateKey,
    published: false,
    kpVersion: 0,
  };
}

// publish brings what this device holds on the relay to what it should:
// after a new identity or certificate, ONE_TIME fresh one-time packages
// and a new last-resort one; otherwise a top-up to ONE_TIME when fewer
// than LOW are left, and a last-resort one if the relay holds none. The
// account and device are read from the store, which a link, restore,
// reset or rotation in any tab wrote before telling the others.
async function publish() {
  if (!election.isOwner() || account.isRevoked()) return;
  const acct = await store.getMeta('account');
  const dev = await store.getMeta('device');
  if (!acct || !acct.privateKey || !dev) return;
  // A key held that the directory no longer serves was replaced on
  // another device, whose link envelope brings the new one ('linked'):
  // packages certified by the old one would be refused.
  if (c.b64encode(c.b64decode((await api.lookup(acct.username)).publicKey)) !== c.b64encode(acct.publicKey)) return;
  let id = await store.getMeta('mls');
  if (!current(id, acct, dev)) {
    id = await certify(id, acct, dev);
    await store.keepMLSIdentity(id);
    // The leaves of this device in its groups carry the old certificate:
    // the groups' upkeep certifies them anew (mlsmembers.js).
    election.notify({ type: 'mlsidentity' }, false);
  }
  const held = await api.keyPackages();
  let n = id.published ? (held.oneTime < LOW ? ONE_TIME - held.oneTime : 0) : ONE_TIME;
  n = Math.max(0, Math.min(n, held.max - held.oneTime));
  const mls = await import('./mls.js');
  // Packages of an older version (which a group chat cannot add) are
  // followed by a last-resort one of this version: the one-time ones go
  // as they are claimed.
  const lastResort = !id.published || !held.lastResort || (id.kpVersion || 1) < mls.KEY_PACKAGE_VERSION;
  if (n === 0 && !lastResort) return;
  const device = { identity: id.identity, signaturePublicKey: id.signaturePublicKey, signaturePrivateKey: id.signaturePrivateKey };
  const made = n > 0 ? await mls.makeKeyPackages(device, n) : [];
  const last = lastResort ? (await mls.makeKeyPackages(device, 1, true))[0] : null;
  await store.keepMLSIdentity(id, last ? [...made, last] : made);
  await api.publishKeyPackages(made.map((b) => c.b64encode(b.keyPackage)), last ? c.b64encode(last.keyPackage) : undefined);
  if (!id.published || id.kpVersion !== mls.KEY_PACKAGE_VERSION) await store.keepMLSIdentity({ ...id, published: true, kpVersion: mls.KEY_PACKAGE_VERSION });
}

let running = null;
let again = false;

/**
 * keepPublished runs publish, one run at a time in this tab; a call during
 * a run asks for one more after it. A failure waits for the next ready.
 * @returns {Promise<void>}
 */
export function keepPublished() {
  if (running) {
    again = true;
    return running;
  }
  running = (async () => {
    try {
      do {
        again = false;
        await publish();
      } while (again);
    } catch {
      // Offline, refused or logged out: the next ready tries again.
    } finally {
      running = null;
    }
  })();
  return running;
}

// The stream owner publishes at each ready (the connection turns open),
// then every CHECK_MS while it stays open, and when the account key here
// changes (a link, a restore, a reset, a rotation: 'linked').
let timer = null;
election.subscribe((ev) => {
  if (ev.type === 'account') {
    clearTimeout(timer);
    timer = null;
  }
  if (ev.type === 'conn') {
    clearTimeout(timer);
    timer = null;
    if (ev.state === 'open' && election.isOwner()) {
      keepPublished();
      const tick = () => {
        timer = setTimeout(() => {
          keepPublished();
          tick();
        }, CHECK_MS);
      };
      tick();
    }
  }
  if (ev.type === 'linked' && election.isOwner()) keepPublished();
});
