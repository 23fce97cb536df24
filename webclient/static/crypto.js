// crypto.js: the envelope cryptography of the web client, with WebCrypto.
// docs/crypto.md is the specification; relayclient/seal is the Go twin, and
// both pass the known-answer vectors in relayclient/seal/testdata/vectors.json.
// Nothing here talks to the network: keys and plaintext never leave it.

const te = new TextEncoder();
const td = new TextDecoder('utf-8', { fatal: true });
const subtle = crypto.subtle;

export const SALT = te.encode('relay/v1 hkdf salt');
export const IV_SIZE = 12;
export const TAG_SIZE = 16;
export const MAX_RECORD = 65536 - IV_SIZE - TAG_SIZE - 4;
export const LINK_PLAINTEXT_SIZE = 32 + 65;
export const LINK_BODY_SIZE = IV_SIZE + LINK_PLAINTEXT_SIZE + TAG_SIZE;
export const BUCKETS = [256, 512, 1024, 2048, 4096, 8192, 16384, 32768, 65536 - IV_SIZE - TAG_SIZE];
// MLS_BUCKETS pad a record of a chat in an MLS group: MLS adds up to about
// 300 bytes (framing, signature, the authenticated data), so the largest
// bucket leaves 512 bytes under the relay's 64 KiB body.
export const MLS_BUCKETS = [...BUCKETS.slice(0, -1), 65536 - 512];

// ---- encodings ----

export function b64encode(bytes) {
  let s = '';
  for (let i = 0; i < bytes.length; i += 0x8000) {
    s += String.fromCharCode.apply(null, bytes.subarray(i, i + 0x8000));
  }
  return btoa(s);
}

export function b64decode(s) {
  const bin = atob(s);
  const out = new Uint8Array(bin.length);
  for (let i = 0; i < bin.length; i++) out[i] = bin.charCodeAt(i);
  return out;
}

export function b64url(bytes) {
  return b64encode(bytes).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}

export function unb64url(s) {
  s = s.replace(/-/g, '+').replace(/_/g, '/');
  while (s.length % 4) s += '=';
  return b64decode(s);
}

export function hex(bytes) {
  return Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('');
}

export function unhex(s) {
  const out = new Uint8Array(s.length / 2);
  for (let i = 0; i < out.length; i++) out[i] = parseInt(s.substr(i * 2, 2), 16);
  return out;
}

function concat(...parts) {
  const n = parts.reduce((a, p) => a + p.length, 0);
  const out = new Uint8Array(n);
  let o = 0;
  for (const p of parts) { out.set(p, o); o += p.length; }
  return out;
}

function equal(a, b) {
  if (a.length !== b.length) return false;
  let d = 0;
  for (let i = 0; i < a.length; i++) d |= a[i] ^ b[i];
  return d === 0;
}

// ---- keys ----

const ECDH = { name: 'ECDH', namedCurve: 'P-256' };

// generateKeyPair makes an ECDH P-256 key pair. The private key is
// extractable only so that an account key can be sealed to a new device.
export async function generateKeyPair() {
  return subtle.generateKey(ECDH, true, ['deriveBits']);
}

export async function exportPublic(key) {
  return new Uint8Array(await subtle.exportKey('raw', key));
}

export async function importPublic(raw) {
  return subtle.importKey('raw', raw, ECDH, true, []);
}

// importPrivate builds a private key from its scalar and public point.
export async function importPrivate(d, pub, extractable = true) {
  const jwk = { kty: 'EC', crv: 'P-256', d: b64url(d), x: b64url(pub.subarray(1, 33)), y: b64url(pub.subarray(33, 65)), ext: true };
  return subtle.importKey('jwk', jwk, ECDH, extractable, ['deriveBits']);
}

export async function exportPrivateScalar(key) {
  const jwk = await subtle.exportKey('jwk', key);
  return unb64url(jwk.d);
}

async function hkdf(shared, info) {
  const ikm = await subtle.importKey('raw', shared, 'HKDF', false, ['deriveBits']);
  return new Uint8Array(await subtle.deriveBits({ name: 'HKDF', hash: 'SHA-256', salt: SALT, info: te.encode(info) }, ikm, 256));
}

async function ecdhBits(priv, theirPubRaw) {
  const pub = await importPublic(theirPubRaw);
  return new Uint8Array(await subtle.deriveBits({ name: 'ECDH', public: pub }, priv, 256));
}

// conversationKeyBytes derives the 32-byte key of the conversation between
// me and them. The usernames are sorted, so both sides get the same key.
export async function conversationKeyBytes(priv, theirPubRaw, me, them) {
  const [a, b] = [me, them].sort();
  return hkdf(await ecdhBits(priv, theirPubRaw), `relay/v1 conversation\u0000${a}\u0000${b}`);
}

// groupInfoKeyBytes derives the key under which the members of the chat
// between me and them keep its MLS group's GroupInfo on the relay
// (docs/crypto.md, "Rejoining a group").
export async function groupInfoKeyBytes(priv, theirPubRaw, me, them) {
  const [a, b] = [me, them].sort();
  return hkdf(await ecdhBits(priv, theirPubRaw), `relay/v2 group info\u0000${a}\u0000${b}`);
}

function groupInfoAAD(gid, epoch) {
  return te.encode(`relay/v2 group info\u0000${gid}\u0000${epoch}`);
}

// sealGroupInfo encrypts a group's GroupInfo (gid in hex, its epoch),
// padded to the buckets of a record.
export async function sealGroupInfo(key, gid, epoch, info) {
  const iv = randomIV();
  const ct = await subtle.encrypt({ name: 'AES-GCM', iv, additionalData: groupInfoAAD(gid, epoch) }, key, pad(info));
  return concat(iv, new Uint8Array(ct));
}

// openGroupInfo opens what sealGroupInfo made for that group and epoch.
export async function openGroupInfo(key, gid, epoch, blob) {
  return unpad(await openRaw(key, groupInfoAAD(gid, epoch), blob)).slice();
}

// historyKeyBytes derives the key of a history transfer's bodies from
// device fromDevice to device toDevice (docs/crypto.md, "History
// transfer"; archive.js seals them).
export async function historyKeyBytes(priv, theirDevicePubRaw, fromDevice, toDevice) {
  return hkdf(await ecdhBits(priv, theirDevicePubRaw), `relay/v1 history\u0000${fromDevice}\u0000${toDevice}`);
}

export async function linkKeyBytes(priv, theirDevicePubRaw, fromDevice, toDevice) {
  return hkdf(await ecdhBits(priv, theirDevicePubRaw), `relay/v1 link\u0000${fromDevice}\u0000${toDevice}`);
}

export async function aesKey(bytes) {
  return subtle.importKey('raw', bytes, { name: 'AES-GCM' }, false, ['encrypt', 'decrypt']);
}

export function aad(id, from, to) {
  return te.encode(`relay/v1 envelope\u0000${id}\u0000${from}\u0000${to}`);
}

// ---- records ----

export function pad(record, buckets = BUCKETS) {
  const n = 4 + record.length;
  const size = buckets.find((b) => n <= b);
  if (!size) throw new Error('record too long');
  const out = new Uint8Array(size);
  new DataView(out.buffer).setUint32(0, record.length);
  out.set(record, 4);
  return out;
}

export function unpad(p, buckets = BUCKETS) {
  if (!buckets.includes(p.length)) throw new Error('bad padding');
  const n = new DataView(p.buffer, p.byteOffset, p.byteLength).getUint32(0);
  if (n > p.length - 4) throw new Error('bad padding');
  for (let i = 4 + n; i < p.length; i++) if (p[i] !== 0) throw new Error('bad padding');
  return p.subarray(4, 4 + n);
}

export function randomIV() {
  return crypto.getRandomValues(new Uint8Array(IV_SIZE));
}

// seal encrypts a record (a string of JSON) into an envelope body.
export async function seal(key, iv, id, from, to, record) {
  const ct = await subtle.encrypt({ name: 'AES-GCM', iv, additionalData: aad(id, from, to) }, key, pad(te.encode(record)));
  return concat(iv, new Uint8Array(ct));
}

async function openRaw(key, additionalData, body) {
  if (body.length < IV_SIZE + TAG_SIZE) throw new Error('could not decrypt');
  try {
    return new Uint8Array(await subtle.decrypt({ name: 'AES-GCM', iv: body.subarray(0, IV_SIZE), additionalData }, key, body.subarray(IV_SIZE)));
  } catch {
    throw new Error('could not decrypt');
  }
}

// open decrypts an envelope body and returns its record string.
export async function open(key, id, from, to, body) {
  return td.decode(unpad(await openRaw(key, aad(id, from, to), body)));
}

export function isLink(body) {
  return body.length === LINK_BODY_SIZE;
}

export async function sealLink(key, iv, id, username, accountPriv, accountPub) {
  const d = await exportPrivateScalar(accountPriv);
  const ct = await subtle.encrypt({ name: 'AES-GCM', iv, additionalData: aad(id, username, username) }, key, concat(d, accountPub));
  return concat(iv, new Uint8Array(ct));
}

// openLink returns the account private key inside a link envelope, after
// checking it belongs to the account public key the link code covered.
export async function openLink(key, id, username, body, accountPub) {
  const p = await openRaw(key, aad(id, username, username), body);
  if (p.length !== LINK_PLAINTEXT_SIZE) throw new Error('could not decrypt');
  const d = p.subarray(0, 32);
  const pub = p.subarray(32);
  if (!equal(pub, accountPub)) throw new Error('the key sent is not this account\'s key');
  const priv = await importPrivate(d, pub);
  // importKey checks d against x and y: a mismatched pair is refused.
  return priv;
}

// ---- codes ----

async function sha256(bytes) {
  return new Uint8Array(await subtle.digest('SHA-256', bytes));
}

function digits(sum, n, group) {
  const s = (BigInt('0x' + hex(sum)) % (10n ** BigInt(n))).toString().padStart(n, '0');
  const parts = [];
  for (let i = 0; i < n; i += group) parts.push(s.slice(i, i + group));
  return parts.join(' ');
}

export async function linkCode(accountPub, devicePub) {
  return digits(await sha256(concat(te.encode('relay/v1 link code\u0000'), accountPub, devicePub)), 16, 4);
}

export async function safetyCode(userA, pubA, userB, pubB) {
  if (userA > userB) [userA, pubA, userB, pubB] = [userB, pubB, userA, pubA];
  const data = concat(te.encode(`relay/v1 safety code\u0000${userA}\u0000`), pubA, te.encode(`\u0000${userB}\u0000`), pubB);
  return digits(await sha256(data), 30, 5);
}

// ---- device certificates (docs/crypto.md, "Device credentials") ----

// The account key signs with ECDSA too: the same P-256 scalar, imported a
// second time for signing, over a message no ECDH input can be (ADR 0100).
const ECDSA = { name: 'ECDSA', namedCurve: 'P-256' };
const ECDSA_SHA256 = { name: 'ECDSA', hash: 'SHA-256' };
export const CERTIFICATE_SIZE = 64;

function certificateMessage(username, deviceId, sigPub) {
  return concat(te.encode(`relay device certificate v1\u0000${username}\u0000${deviceId}\u0000`), sigPub);
}

// certifyDevice signs, with the account's private key, that the device
// deviceId of username holds the MLS signature key sigPub: 64 bytes, r ‖ s.
export async function certifyDevice(accountPriv, username, deviceId, sigPub) {
  const { d, x, y } = await subtle.exportKey('jwk', accountPriv);
  const key = await subtle.importKey('jwk', { kty: 'EC', crv: 'P-256', d, x, y }, ECDSA, false, ['sign']);
  return new Uint8Array(await subtle.sign(ECDSA_SHA256, key, certificateMessage(username, deviceId, sigPub)));
}

// checkDeviceCertificate says whether cert is the account key accountPub's
// signature over the device deviceId of username holding sigPub.
export async function checkDeviceCertificate(accountPub, username, deviceId, sigPub, cert) {
  if (!(cert instanceof Uint8Array) || cert.length !== CERTIFICATE_SIZE) return false;
  let key;
  try {
    key = await subtle.importKey('raw', accountPub, ECDSA, false, ['verify']);
  } catch {
    return false;
  }
  return subtle.verify(ECDSA_SHA256, key, new Uint8Array(cert), certificateMessage(username, deviceId, sigPub));
}

// ---- recovery key (docs/crypto.md "Recovery key") ----

export const RECOVERY_KEY_SIZE = 20;
export const RECOVERY_VERSION = 1;
export const RECOVERY_BLOB_SIZE = 1 + IV_SIZE + LINK_PLAINTEXT_SIZE + TAG_SIZE;
const BASE32 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';
const RECOVERY_CHARS = 32;

// The errors of the recovery key, told apart by class or by code (the
// codes of the known-answer vectors). A mistyped key is a
// NotRecoveryKeyError before anything is decrypted; a well-formed key that
// did not make the blob is a WrongRecoveryKeyError. No message holds the
// key or the text typed.
export class NotRecoveryKeyError extends Error {
  constructor(reason) {
    super('This is not a recovery key: ' + reason);
    this.name = 'NotRecoveryKeyError';
    this.code = 'not_recovery_key';
    this.reason = reason;
  }
}

export class WrongRecoveryKeyError extends Error {
  constructor() {
    super('This recovery key does not fit this account');
    this.name = 'WrongRecoveryKeyError';
    this.code = 'wrong_recovery_key';
  }
}

export class RecoveryBlobError extends Error {
  constructor() {
    super('The stored recovery data is not version 1');
    this.name = 'RecoveryBlobError';
    this.code = 'bad_recovery_blob';
  }
}

export class KeyMismatchError extends Error {
  constructor() {
    super('The private key does not belong to the public key');
    this.name = 'KeyMismatchError';
    this.code = 'key_mismatch';
  }
}

function base32(bytes) {
  let out = '';
  let v = 0;
  let bits = 0;
  for (const b of bytes) {
    v = (v << 8) | b;
    bits += 8;
    while (bits >= 5) {
      bits -= 5;
      out += BASE32[(v >>> bits) & 31];
    }
    v &= (1 << bits) - 1;
  }
  if (bits > 0) out += BASE32[(v << (5 - bits)) & 31];
  return out;
}

// unbase32 decodes characters of BASE32 whose count is a multiple of 8.
function unbase32(s) {
  const out = new Uint8Array((s.length * 5) / 8);
  let v = 0;
  let bits = 0;
  let o = 0;
  for (const ch of s) {
    v = (v << 5) | BASE32.indexOf(ch);
    bits += 5;
    if (bits >= 8) {
      bits -= 8;
      out[o++] = (v >>> bits) & 0xff;
    }
    v &= (1 << bits) - 1;
  }
  return out;
}

async function checkChar(key) {
  const sum = await sha256(concat(te.encode('relay/v1 recovery check\u0000'), key));
  return BASE32[sum[0] >> 3];
}

function checkKeySize(key) {
  if (!(key instanceof Uint8Array) || key.length !== RECOVERY_KEY_SIZE) throw new NotRecoveryKeyError(`a recovery key has ${RECOVERY_KEY_SIZE} bytes`);
}

// formatRecoveryKey writes a 20-byte key as 8 groups of 4 base32 characters
// and the check character, joined by dashes.
export async function formatRecoveryKey(key) {
  checkKeySize(key);
  const s = base32(key);
  const groups = [];
  for (let i = 0; i < RECOVERY_CHARS; i += 4) groups.push(s.slice(i, i + 4));
  groups.push(await checkChar(key));
  return groups.join('-');
}

// newRecoveryKey makes a recovery key: {key, text}, text being its written form.
export async function newRecoveryKey() {
  const key = crypto.getRandomValues(new Uint8Array(RECOVERY_KEY_SIZE));
  return { key, text: await formatRecoveryKey(key) };
}

// parseRecoveryKey reads a key as a person typed it: any case, spaces, tabs,
// line breaks and dashes ignored, 0, 1, 8 read as O, I, B. It looks at each
// UTF-16 unit and refuses any that is not ASCII, as the Go parser refuses
// bytes: no toUpperCase, which would turn 'ı' into 'I'.
export async function parseRecoveryKey(text) {
  if (typeof text !== 'string') throw new NotRecoveryKeyError('not text');
  let norm = '';
  for (let i = 0; i < text.length; i++) {
    let c = text.charCodeAt(i);
    if (c === 0x20 || c === 0x2d || c === 0x09 || c === 0x0a || c === 0x0d) continue;
    if (c >= 0x61 && c <= 0x7a) c -= 0x20;
    else if (c === 0x30) c = 0x4f; // 0 → O
    else if (c === 0x31) c = 0x49; // 1 → I
    else if (c === 0x38) c = 0x42; // 8 → B
    if (!((c >= 0x41 && c <= 0x5a) || (c >= 0x32 && c <= 0x37))) throw new NotRecoveryKeyError('a character that is not a letter or a digit 2 to 7');
    if (norm.length === RECOVERY_CHARS + 1) throw new NotRecoveryKeyError('too long');
    norm += String.fromCharCode(c);
  }
  if (norm.length !== RECOVERY_CHARS + 1) throw new NotRecoveryKeyError('too short');
  const key = unbase32(norm.slice(0, RECOVERY_CHARS));
  if ((await checkChar(key)) !== norm[RECOVERY_CHARS]) throw new NotRecoveryKeyError('the check character does not match');
  return key;
}

function recoveryInfo(username) {
  return `relay/v1 recovery\u0000${username}`;
}

// recoveryWrappingKeyBytes derives the AES-256-GCM key that wraps username's
// account key under a recovery key.
export async function recoveryWrappingKeyBytes(key, username) {
  checkKeySize(key);
  return hkdf(key, recoveryInfo(username));
}

// accountKeyPair imports d with the public key; WebCrypto checks that they
// belong together, and a pair that does not is a KeyMismatchError.
async function accountKeyPair(d, pub) {
  if (d.length !== 32 || pub.length !== 65 || pub[0] !== 4) throw new KeyMismatchError();
  try {
    return await importPrivate(d, pub);
  } catch {
    throw new KeyMismatchError();
  }
}

// wrapAccountKey makes the recovery blob of username's account key pair. d
// is the 32-byte private scalar or the account's private CryptoKey;
// accountPublicRaw the uncompressed public key. iv is for the vectors only.
export async function wrapAccountKey(key, username, d, accountPublicRaw, iv = randomIV()) {
  if (d instanceof CryptoKey) d = await exportPrivateScalar(d);
  await accountKeyPair(d, accountPublicRaw);
  const wk = await aesKey(await recoveryWrappingKeyBytes(key, username));
  const ct = await subtle.encrypt({ name: 'AES-GCM', iv, additionalData: te.encode(recoveryInfo(username)) }, wk, concat(d, accountPublicRaw));
  return concat(new Uint8Array([RECOVERY_VERSION]), iv, new Uint8Array(ct));
}

// unwrapAccountKey opens username's recovery blob: {d, publicKey,
// privateKey}, after checking that d belongs to publicKey. The caller must
// still check that publicKey is the account's key in the directory.
export async function unwrapAccountKey(key, username, blob) {
  const wk = await aesKey(await recoveryWrappingKeyBytes(key, username));
  if (blob.length !== RECOVERY_BLOB_SIZE || blob[0] !== RECOVERY_VERSION) throw new RecoveryBlobError();
  let p;
  try {
    p = await openRaw(wk, te.encode(recoveryInfo(username)), blob.subarray(1));
  } catch {
    throw new WrongRecoveryKeyError();
  }
  const d = p.slice(0, 32);
  const publicKey = p.slice(32);
  const privateKey = await accountKeyPair(d, publicKey);
  return { d, publicKey, privateKey };
}
