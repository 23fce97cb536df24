// storesealed.js: the app lock's rows (ADR 0113; docs/storage.md, "App
// lock"): while the lock is on, a transaction of the store (storedb.tx)
// reads and writes its object stores through this layer, which seals each
// row under the data key and replaces each name a key or an index holds
// by a keyed hash. The store's modules go on writing rows as they are:
// only this layer knows the sealed form.
//
// The sealed form of a row keeps in the clear only what an index needs:
//   meta      {k: '~' + hash of k, sealed}; the lock's own record, 'lock',
//             stays as it is
//   chats     {username: '~' + hash of the chat, sealed}
//   messages  {id, chat: '~' + hash of the chat, sort, expireAt, sealed}
//   files     {ref, chat: '~' + hash of the chat, blob, sealed}: the blob
//             is sealed apart (sealBlob), before its transaction
// sealed is the whole row (a file's without its blob), sealed to its
// store and its key as stored. While the lock is turned on or off
// (state 'sealing' or 'opening'), rows of both forms are read, and a
// write takes the form the conversion goes to and deletes the other.

import { sealRow, openRow, blindName } from './lockcrypto.js';

// Locked: the store is sealed and this tab holds no data key.
export class Locked extends Error {
  constructor() {
    super('The app is locked: unlock it with its passphrase.');
    this.name = 'Locked';
  }
}

// LOCK_KEY is the meta record of the lock itself, never sealed.
export const LOCK_KEY = 'lock';

// sealed tells a row in the sealed form.
export function isSealed(row) {
  return !!row && row.sealed instanceof Uint8Array;
}

const keyPaths = { meta: 'k', chats: 'username', messages: 'id', files: 'ref' };

// blinded marks the names replaced by their hash: no name of the clear
// form begins with it.
const blinded = (keys, name) => '~' + blindName(keys, name);

/**
 * sealedKey is the key a row of store is kept under in the sealed form.
 * @param {{names: Uint8Array}} keys
 * @param {string} store
 * @param {any} key
 */
export function sealedKey(keys, store, key) {
  if (store === 'chats' || (store === 'meta' && key !== LOCK_KEY)) return blinded(keys, String(key));
  return key;
}

/**
 * sealForm is a row of store in the sealed form.
 * @param {{rows: Uint8Array, names: Uint8Array}} keys
 * @param {string} store
 * @param {any} row
 */
export function sealForm(keys, store, row) {
  if (store === 'meta' && row.k === LOCK_KEY) return row;
  const path = keyPaths[store];
  const key = sealedKey(keys, store, row[path]);
  /** @type {any} */
  const out = { [path]: key };
  let inside = row;
  if (store === 'messages' || store === 'files') {
    if (row.chat !== undefined) out.chat = blinded(keys, String(row.chat));
    if (store === 'messages') {
      if (row.sort !== undefined) out.sort = row.sort;
      if (row.expireAt !== undefined) out.expireAt = row.expireAt;
    } else {
      out.blob = row.blob;
      inside = { ...row };
      delete inside.blob;
    }
  }
  out.sealed = sealRow(keys, store, key, inside);
  return out;
}

/**
 * openForm is the row a stored one holds: opened if it is sealed.
 * @param {{rows: Uint8Array}} keys
 * @param {string} store
 * @param {any} stored
 */
export function openForm(keys, store, stored) {
  if (!isSealed(stored)) return stored;
  const row = openRow(keys, store, stored[keyPaths[store]], stored.sealed);
  if (store === 'files') row.blob = stored.blob;
  return row;
}

// Pending is a request of this layer: it settles as an IDBRequest does,
// through onsuccess or onerror, once the real requests behind it have.
class Pending {
  constructor() {
    /** @type {any} */
    this.result = undefined;
    /** @type {any} */
    this.error = null;
    /** @type {((ev: any) => void) | null} */
    this.onsuccess = null;
    /** @type {((ev: any) => void) | null} */
    this.onerror = null;
  }

  ok(v) {
    this.result = v;
    if (this.onsuccess) this.onsuccess({ target: this });
  }

  fail(e) {
    this.error = e;
    if (this.onerror) this.onerror({ target: this });
  }
}

// then calls f with the result of the real request r, within its
// transaction; whatever f throws (a row that does not open) fails p and
// aborts the transaction, so that nothing is written on what was read.
function then(t, r, f, p = new Pending()) {
  r.onsuccess = () => {
    try {
      f(r.result, p);
    } catch (e) {
      try {
        t.abort();
      } catch { /* already ended */ }
      p.fail(e);
    }
  };
  r.onerror = () => p.fail(r.error);
  return p;
}

// both runs the request of each key in turn, and gives the first result
// that is not undefined.
function firstOf(t, keys, ask, open) {
  const p = new Pending();
  const next = (i) => then(t, ask(keys[i]), (v) => {
    if (v !== undefined || i === keys.length - 1) p.ok(v === undefined ? v : open(v));
    else next(i + 1);
  }, p);
  next(0);
  return p;
}

// mapRange is a key or a range of an index whose first part (or whole
// key) is a chat, with the chat replaced by its hash.
function mapRange(keys, q) {
  const m = (k) => (Array.isArray(k) ? [blinded(keys, String(k[0])), ...k.slice(1)] : blinded(keys, String(k)));
  if (!(q instanceof IDBKeyRange)) return m(q);
  if (q.lower !== undefined && q.upper !== undefined) return IDBKeyRange.bound(m(q.lower), m(q.upper), q.lowerOpen, q.upperOpen);
  if (q.lower !== undefined) return IDBKeyRange.lowerBound(m(q.lower), q.lowerOpen);
  return IDBKeyRange.upperBound(m(q.upper), q.upperOpen);
}

const cmp = (a, b) => indexedDB.cmp(a, b);

/**
 * SealedStore is an object store of a transaction seen through the lock.
 */
class SealedStore {
  constructor(t, store, name, session) {
    this.t = t;
    this.s = store;
    this.name = name;
    this.session = session;
    this.path = keyPaths[name];
  }

  get transaction() {
    return this.t;
  }

  get keys() {
    return this.session.keys;
  }

  // clearWrites: the conversion goes back to the clear form.
  get clearWrites() {
    return this.session.state === 'opening';
  }

  get converting() {
    return this.session.state === 'sealing' || this.session.state === 'opening';
  }

  // keysOf are the keys a row of key may be stored under, the write
  // form's first.
  keysOf(key) {
    const sk = sealedKey(this.keys, this.name, key);
    if (sk === key) return [key];
    if (!this.converting) return [sk];
    return this.clearWrites ? [key, sk] : [sk, key];
  }

  open(v) {
    return openForm(this.keys, this.name, v);
  }

  get(key) {
    return firstOf(this.t, this.keysOf(key), (k) => this.s.get(k), (v) => this.open(v));
  }

  write(how, row) {
    const key = row[this.path];
    const sk = sealedKey(this.keys, this.name, key);
    if (this.clearWrites) {
      if (sk !== key) this.s.delete(sk);
      return this.s[how](row);
    }
    if (sk !== key && this.converting) this.s.delete(key);
    return this.s[how](sealForm(this.keys, this.name, row));
  }

  put(row) {
    return this.write('put', row);
  }

  add(row) {
    return this.write('add', row);
  }

  delete(key) {
    let r;
    for (const k of this.keysOf(key)) r = this.s.delete(k);
    return r;
  }

  // named: the store's keys are names, hashed in the sealed form, so a
  // range of them is taken over the opened rows.
  get named() {
    return this.name === 'meta' || this.name === 'chats';
  }

  rows(range, n, f) {
    if (!this.named) return then(this.t, this.s.getAll(range, n), (vs, p) => p.ok(f(vs.map((v) => this.open(v)))));
    return then(this.t, this.s.getAll(), (vs, p) => {
      let rows = vs.map((v) => this.open(v)).filter((r) => r[this.path] !== undefined);
      if (range !== undefined && range !== null) {
        const inRange = range instanceof IDBKeyRange ? (k) => range.includes(k) : (k) => cmp(k, range) === 0;
        rows = rows.filter((r) => inRange(r[this.path]));
      }
      rows.sort((a, b) => cmp(a[this.path], b[this.path]));
      if (n) rows = rows.slice(0, n);
      p.ok(f(rows));
    });
  }

  getAll(range, n) {
    return this.rows(range, n, (rows) => rows);
  }

  getAllKeys(range, n) {
    if (!this.named) return this.s.getAllKeys(range, n);
    return this.rows(range, n, (rows) => rows.map((r) => r[this.path]));
  }

  count(range) {
    if (!this.named || range === undefined) return this.s.count(range);
    return this.rows(range, undefined, (rows) => rows.length);
  }

  index(name) {
    return new SealedIndex(this, this.s.index(name), name);
  }
}

// SealedIndex is an index of a SealedStore: 'chat' (of messages and of
// files) holds hashed chats, 'expireAt' numbers.
class SealedIndex {
  constructor(store, index, name) {
    this.store = store;
    this.i = index;
    this.byChat = name === 'chat';
  }

  // ranges are the ranges to ask: the hashed one, and while converting
  // the clear one too.
  ranges(q) {
    if (!this.byChat) return [q];
    const h = mapRange(this.store.keys, q);
    return this.store.converting ? [h, q] : [h];
  }

  getAll(q, n) {
    const st = this.store;
    const qs = this.ranges(q);
    const p = new Pending();
    const out = [];
    const next = (j) => then(st.t, this.i.getAll(qs[j], n), (vs) => {
      for (const v of vs) out.push(st.open(v));
      if (j + 1 < qs.length) return next(j + 1);
      // Both forms: in the index's order again, the clear key of each row.
      if (qs.length > 1) {
        out.sort((a, b) => (st.name === 'messages' ? cmp(a.sort, b.sort) : 0) || cmp(a[st.path], b[st.path]));
        if (n) out.length = Math.min(out.length, n);
      }
      p.ok(out);
    }, p);
    next(0);
    return p;
  }

  getAllKeys(q, n) {
    if (!this.byChat) return this.i.getAllKeys(q, n);
    const p = new Pending();
    then(this.store.t, this.getAll(q, n), (rows) => p.ok(rows.map((r) => r[this.store.path])), p);
    return p;
  }

  count(q) {
    if (!this.byChat) return this.i.count(q);
    const p = new Pending();
    then(this.store.t, this.getAll(q), (rows) => p.ok(rows.length), p);
    return p;
  }

  openKeyCursor(q, dir) {
    if (this.byChat) throw new Error('a cursor over hashed chats');
    return this.i.openKeyCursor(q, dir);
  }
}

/**
 * throughLock makes transaction t read and write its stores through the
 * lock: session holds the row keys and the lock's state.
 * @param {IDBTransaction} t
 * @param {{keys: {rows: Uint8Array, names: Uint8Array}, state: string}} session
 */
export function throughLock(t, session) {
  const real = t.objectStore.bind(t);
  /** @type {any} */ (t).objectStore = (name) => new SealedStore(t, real(name), name, session);
  return t;
}
