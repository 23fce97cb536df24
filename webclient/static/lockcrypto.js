// lockcrypto.js: the app lock's cryptography (ADR 0113; docs/crypto.md,
// "App lock"): the passphrase's key (scrypt), the data key wrapped under
// it, the store's rows sealed and opened synchronously (inside an
// IndexedDB transaction, which WebCrypto's promises would end), names
// replaced by keyed hashes, and what arrives while locked sealed to the
// lock's public key. Pure functions over bytes; nothing here stores.

import { scryptAsync } from './vendor/@noble/hashes@2.0.1/scrypt.js';
import { hkdf } from './vendor/@noble/hashes@2.0.1/hkdf.js';
import { hmac } from './vendor/@noble/hashes@2.0.1/hmac.js';
import { sha256 } from './vendor/@noble/hashes@2.0.1/sha2.js';
import { xchacha20poly1305 } from './vendor/@noble/ciphers@2.1.1/chacha.js';
import { x25519 } from './vendor/@noble/curves@2.0.1/ed25519.js';

const te = new TextEncoder();
const td = new TextDecoder();

// KDF is scrypt's cost: 128 MiB and about a second in Chromium (ADR 0113).
export const KDF = { N: 2 ** 17, r: 8, p: 1 };
export const SALT_BYTES = 16;
const KEY_BYTES = 32;
const NONCE_BYTES = 24;

// WrongPassphrase: the passphrase's key does not open the wrapped key.
export class WrongPassphrase extends Error {
  constructor() {
    super('The passphrase is not the one this browser was locked with.');
    this.name = 'WrongPassphrase';
  }
}

function random(n) {
  return crypto.getRandomValues(new Uint8Array(n));
}

function concat(...parts) {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

// label is the associated data or the info of a use: "relay/v1 lock " and
// its parts, each after a zero byte.
function label(...parts) {
  return te.encode(['relay/v1 lock', ...parts].join('\u0000'));
}

/**
 * passphraseKey is the key a passphrase gives with salt: scrypt of its
 * NFKC form. onProgress(0..1) is told how far it is.
 * @param {string} passphrase
 * @param {Uint8Array} salt
 * @param {{N: number, r: number, p: number}} [cost]
 * @param {(done: number) => void} [onProgress]
 */
export function passphraseKey(passphrase, salt, cost = KDF, onProgress = undefined) {
  return scryptAsync(te.encode(passphrase.normalize('NFKC')), salt, { ...cost, dkLen: KEY_BYTES, onProgress, maxmem: 256 * 1024 * 1024 + 1024 });
}

// seal and open are XChaCha20-Poly1305 under key, a fresh nonce first.
function seal(key, plain, aad) {
  const nonce = random(NONCE_BYTES);
  return concat(nonce, xchacha20poly1305(key, nonce, aad).encrypt(plain));
}

function open(key, sealed, aad) {
  return xchacha20poly1305(key, sealed.subarray(0, NONCE_BYTES), aad).decrypt(sealed.subarray(NONCE_BYTES));
}

/**
 * newDataKey is a fresh data key, which the rows are sealed under.
 */
export function newDataKey() {
  return random(KEY_BYTES);
}

/**
 * wrapKey seals the data key under the passphrase's key.
 * @param {Uint8Array} passKey
 * @param {Uint8Array} dataKey
 */
export function wrapKey(passKey, dataKey) {
  return seal(passKey, dataKey, label('data key'));
}

/**
 * unwrapKey opens the data key; a wrong passphrase's key throws
 * WrongPassphrase.
 * @param {Uint8Array} passKey
 * @param {Uint8Array} wrapped
 */
export function unwrapKey(passKey, wrapped) {
  try {
    return open(passKey, wrapped, label('data key'));
  } catch {
    throw new WrongPassphrase();
  }
}

/**
 * rowKeys are the keys the data key gives: rows sealed under one, names
 * hashed under the other.
 * @param {Uint8Array} dataKey
 */
export function rowKeys(dataKey) {
  return {
    rows: hkdf(sha256, dataKey, new Uint8Array(0), label('rows'), KEY_BYTES),
    names: hkdf(sha256, dataKey, new Uint8Array(0), label('names'), KEY_BYTES),
  };
}

/**
 * blindName is what stands for a name (a chat, a meta key) where a key or
 * an index needs one: 16 bytes of HMAC-SHA-256, in base64url.
 * @param {{names: Uint8Array}} keys
 * @param {string} name
 */
export function blindName(keys, name) {
  const mac = hmac(sha256, keys.names, te.encode(name)).subarray(0, 16);
  return b64(mac).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}

// ROW_BUCKET: a sealed row's plaintext is padded to a multiple of it, so
// that its size says little of what it holds.
const ROW_BUCKET = 64;

/**
 * sealRow seals a row's value for store under its key (both in the
 * associated data, so that a row cannot be moved to another key).
 * @param {{rows: Uint8Array}} keys
 * @param {string} store
 * @param {IDBValidKey} key
 * @param {any} value
 */
export function sealRow(keys, store, key, value) {
  const body = te.encode(pack(value));
  const padded = new Uint8Array(Math.ceil((body.length + 4) / ROW_BUCKET) * ROW_BUCKET);
  new DataView(padded.buffer).setUint32(0, body.length);
  padded.set(body, 4);
  return seal(keys.rows, padded, label('row', store, JSON.stringify(key)));
}

/**
 * openRow opens what sealRow sealed; it throws if the bytes were changed
 * or belong to another store or key.
 * @param {{rows: Uint8Array}} keys
 * @param {string} store
 * @param {IDBValidKey} key
 * @param {Uint8Array} sealed
 */
export function openRow(keys, store, key, sealed) {
  const padded = open(keys.rows, sealed, label('row', store, JSON.stringify(key)));
  const n = new DataView(padded.buffer, padded.byteOffset).getUint32(0);
  if (n > padded.length - 4) throw new Error('a sealed row of a wrong length');
  return unpack(td.decode(padded.subarray(4, 4 + n)));
}

// SEALED_FILE is the type of a file's bytes sealed by sealFile: the
// files store tells them by it.
export const SEALED_FILE = 'application/x-relay-sealed';

/**
 * sealFile seals a file's bytes and type for the files store under ref.
 * @param {{rows: Uint8Array}} keys
 * @param {string} ref
 * @param {string} type
 * @param {Uint8Array} bytes
 */
export function sealFile(keys, ref, type, bytes) {
  const t = te.encode(type || '');
  const head = new Uint8Array(2);
  new DataView(head.buffer).setUint16(0, t.length);
  return seal(keys.rows, concat(head, t, bytes), label('file', ref));
}

/**
 * openFile opens what sealFile sealed under ref.
 * @param {{rows: Uint8Array}} keys
 * @param {string} ref
 * @param {Uint8Array} sealed
 */
export function openFile(keys, ref, sealed) {
  const plain = open(keys.rows, sealed, label('file', ref));
  const n = new DataView(plain.buffer, plain.byteOffset).getUint16(0);
  return { type: td.decode(plain.subarray(2, 2 + n)), bytes: plain.subarray(2 + n) };
}

// b64 and unb64 are base64 in pieces: a spread of a large array would
// pass more arguments than a call takes.
function b64(u) {
  let s = '';
  for (let i = 0; i < u.length; i += 0x8000) s += String.fromCharCode(...u.subarray(i, i + 0x8000));
  return btoa(s);
}

function unb64(s) {
  return Uint8Array.from(atob(s), (c) => c.charCodeAt(0));
}

// enc is a stored value as JSON can hold it: every name of an object
// after a dot, so that the tags, names without one, cannot be confused
// with anything a row holds (a reaction's emoji may be any text).
function enc(v) {
  if (v instanceof Uint8Array) return { b: b64(v) };
  if (v instanceof ArrayBuffer) return { a: b64(new Uint8Array(v)) };
  if (typeof v === 'number') return Number.isFinite(v) ? v : { n: String(v) };
  if (v === undefined) return { u: 1 };
  if (v === null || typeof v !== 'object') return v;
  if (Array.isArray(v)) return v.map(enc);
  if (Object.getPrototypeOf(v) !== Object.prototype) throw new Error('a row holds a value that cannot be sealed');
  const out = {};
  for (const [k, x] of Object.entries(v)) out['.' + k] = enc(x);
  return out;
}

function dec(v) {
  if (v === null || typeof v !== 'object') return v;
  if (Array.isArray(v)) return v.map(dec);
  if ('b' in v) return unb64(v.b);
  if ('a' in v) return unb64(v.a).buffer;
  if ('n' in v) return Number(v.n);
  if ('u' in v) return undefined;
  const out = {};
  for (const [k, x] of Object.entries(v)) out[k.slice(1)] = dec(x);
  return out;
}

/**
 * pack writes a stored value as text: objects, arrays, strings, numbers
 * (the infinities too), booleans, null, undefined and bytes.
 * @param {any} value
 */
export function pack(value) {
  return JSON.stringify(enc(value));
}

/**
 * unpack reads what pack wrote.
 * @param {string} text
 */
export function unpack(text) {
  return dec(JSON.parse(text));
}

/**
 * lockKeyPair is the lock's key pair: what arrives while locked is sealed
 * to its public key, and its private key is kept sealed under the data
 * key.
 */
export function lockKeyPair() {
  const privateKey = random(KEY_BYTES);
  return { privateKey, publicKey: x25519.getPublicKey(privateKey) };
}

/**
 * sealTo seals bytes to a public key: an ephemeral X25519 key, the key
 * their shared secret gives, then XChaCha20-Poly1305.
 * @param {Uint8Array} publicKey
 * @param {Uint8Array} plain
 */
export function sealTo(publicKey, plain) {
  const eph = random(KEY_BYTES);
  const ephPub = x25519.getPublicKey(eph);
  const key = hkdf(sha256, x25519.getSharedSecret(eph, publicKey), concat(ephPub, publicKey), label('held'), KEY_BYTES);
  return concat(ephPub, seal(key, plain, label('held')));
}

/**
 * openFrom opens what sealTo sealed to the private key's public one.
 * @param {Uint8Array} privateKey
 * @param {Uint8Array} sealed
 */
export function openFrom(privateKey, sealed) {
  const ephPub = sealed.subarray(0, KEY_BYTES);
  const publicKey = x25519.getPublicKey(privateKey);
  const key = hkdf(sha256, x25519.getSharedSecret(privateKey, ephPub), concat(ephPub, publicKey), label('held'), KEY_BYTES);
  return open(key, sealed.subarray(KEY_BYTES), label('held'));
}
