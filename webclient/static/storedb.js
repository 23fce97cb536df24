// storedb.js: the database itself, for the store's modules (store.js):
// opening it, its transactions, the meta records, and deleting it. Only
// the store's modules import it (TestOnlyTheStoreImportsItsModules); the
// rest of the client imports store.js, which exports no transaction.
//
// Stores:
//   meta      {k, v}: 'account' {username, publicKey, privateKey|null},
//                     'device' {id, publicKey, privateKey, name},
//                     'cursor' {lastSeq, epoch}: lastSeq null after a
//                     resync, until the next envelope or ready,
//                     'purge' {upTo, reason, at, dismissed}
//   messages  {id, chat, from, fromDevice, to, dir ('in'|'out'), text, ts,
//              sort, status, error, seq, tries, body, bodyFor, waiting,
//              undecryptable, downgrade}; index 'chat' on [chat, sort]. body is the
//              sealed envelope in base64: of an outgoing message until its
//              202, of a received one that is waiting to decrypt or
//              undecryptable, for good.
//   chats     {username, lastTs, preview, lastOut, unread, read, late,
//              readThere, readAhead, publicKey, keyChanged, verified, rejoined,
//              refused, behind};
//              read is the read position {sort, id, v, base}, late the
//              ids behind it still unread, readThere the last position
//              taken from another device, readAhead ids read on another
//              device and not here yet (readpos.js); lastOut: the preview
//              is of a message sent from the account; verified: the person
//              marked the safety code of publicKey as compared, here;
//              rejoined: when this device rejoined the chat's MLS group
//              after it fell behind, refused: when a member whose
//              credential did not check was refused (notices, until
//              dismissed)
//   meta 'reads' {chat: {chat, upTo, sort, v, base, ids}}: read records
//              not yet accepted by the relay, the newest position of each
//              chat with the late ids seen since the last one sent
//   meta 'receipts' {chat: {delivered: [ids], read: [ids]}}: receipts to
//              send to the chat's other person, not yet accepted
//   meta 'prefs' {readReceipts}: this device's settings
//   meta 'lock' {state, kdf, salt, wrapped, publicKey, held, at, autoLock,
//              device}: the app lock (storelock.js), never sealed; while
//              it is there, every other row is in its sealed form
//              (storesealed.js)
//   held      {n (auto), sealed} or {n, events}: a batch of the stream
//              received while the app was locked (heldstream.js), sealed
//              to the lock's public key; read and deleted at the next
//              unlock. Added in version 4.
//   meta 'ignored' {forged, invalid}: records not applied (docs/crypto.md)
//   meta 'historyIn' {state, from, envelope, at, ...}: the latest history
//              transfer to this device (historyxfer.js): coming, ready
//              (with the archive's key, until it is taken), stopped,
//              asked, done or failed; 'historyAsk' {from, envelope, at}:
//              another device asks this one for the history again
//   meta 'mls' {device, accountKey, identity, signaturePublicKey,
//              signaturePrivateKey, published}: this device's MLS identity
//              (mlsidentity.js, ADR 0100), certified by accountKey
//   meta 'keyPackages' [{keyPackage, secret}]: the key packages this
//              device made, with their private keys, to join from a welcome
//   meta 'group:<hex id>' {gid, chat, state, epoch, updated, due}: an MLS group of a
//              chat that this device is in, state its saved state with
//              its secrets; 'groupsOf:<chat>' [hex ids], sorted: the
//              chat's groups; 'groupNew:<chat>' {rec, commit, commitId,
//              welcome, welcomeId, commitSent}: a group being created;
//              'groupCommit:<hex id>' {commit, next, welcome, ...}: a
//              commit sent and not yet settled (mlsgroups.js, ADR 0104)
//   files     {ref, msg, chat, blob}: the bytes of an attachment on this
//              device (storefiles.js): of a file chosen to send, from
//              before its upload until its message is gone; of a file
//              received, once downloaded and checked. ref is the file's
//              in its message row (files: [{ref, id, key, digest, size,
//              type, name, kind, width, height, duration, thumb}]); index
//              'chat'. Added in version 2.
// A message that disappears (expiry.js) has expires (seconds) and, once
// its time started, expireAt (ms; index 'expireAt', version 3); once
// gone, expired (ms) and hidden, and nothing it said. A chat's timer is
// {seconds, sort, id, by}, from the last timer record in its order.
// A message row also holds what records did to it (docs/storage.md,
// "Records"): replyTo, edited {sort, id}, deleted {sort, id}, reactions
// {emoji: {username: {on, sort, id}}}, tick ('delivered'|'read', of an
// outgoing message), hidden (deleted for me). A row with unknown: true
// keeps a record of a type this client does not know, as JSON in record.
// A row with kind ('edit'|'delete'|'reaction') is a record of the outbox,
// rec its fields: not a message, sent in the chat's order, applied to its
// target with the relay's ts once accepted.

import { throughLock, Locked, LOCK_KEY } from './storesealed.js';
import { sealFile, openFile, SEALED_FILE } from './lockcrypto.js';

const NAME = 'relay';
const VERSION = 4;
let dbp = null;

// lock is the app lock as this tab knows it (storelock.js keeps it): its
// record (null while there is none), its state ('sealing', 'on',
// 'opening'), and the row keys while this tab holds the data key.
/** @type {{record: any, state: string, keys: {rows: Uint8Array, names: Uint8Array} | null}} */
const lock = { record: null, state: 'off', keys: null };

// NoDatabase: this profile has no database, so nothing to read or write.
// Only startDevice creates it (a new account here); clearAll deletes it
// (a logout, the account's deletion). Any other open that would create it
// is aborted: a read or a write still under way in some tab when this or
// another tab deleted the database would otherwise bring it back, empty
// or with rows of the account just erased (ADR 0089).
export class NoDatabase extends Error {
  constructor() {
    super('This browser holds no account.');
    this.name = 'NoDatabase';
  }
}

function openDB(create = false) {
  // An open without create may still be settling: a missing database
  // is created once it has failed.
  if (create && dbp) return dbp.catch(() => openDB(true));
  if (!dbp) {
    let missing = false;
    dbp = new Promise((resolve, reject) => {
      const request = indexedDB.open(NAME, VERSION);
      request.onupgradeneeded = (ev) => {
        if (ev.oldVersion === 0 && !create) {
          missing = true;
          request.transaction.abort(); // the new, empty database goes with it
          return;
        }
        const db = request.result;
        if (ev.oldVersion < 1) {
          db.createObjectStore('meta', { keyPath: 'k' });
          const m = db.createObjectStore('messages', { keyPath: 'id' });
          m.createIndex('chat', ['chat', 'sort']);
          db.createObjectStore('chats', { keyPath: 'username' });
        }
        if (ev.oldVersion < 2) {
          db.createObjectStore('files', { keyPath: 'ref' }).createIndex('chat', 'chat');
        }
        if (ev.oldVersion < 3) {
          // Only the messages that will disappear have an expireAt: the
          // index holds them alone, soonest first.
          request.transaction.objectStore('messages').createIndex('expireAt', 'expireAt');
        }
        if (ev.oldVersion < 4) db.createObjectStore('held', { keyPath: 'n', autoIncrement: true });
      };
      request.onsuccess = () => {
        const db = request.result;
        // Another tab deletes the database (a logout, a new account):
        // close at once, or its delete waits for this tab to close, and
        // so does every open queued behind it. The next read opens anew.
        db.onversionchange = () => {
          db.close();
          if (dbp === p) dbp = null;
        };
        db.onclose = () => {
          if (dbp === p) dbp = null;
        };
        // The lock's record says how every transaction reads and writes:
        // it is read before any.
        const r = db.transaction(['meta']).objectStore('meta').get(LOCK_KEY);
        r.onsuccess = () => {
          setLockRecord(r.result ? r.result.v : null);
          resolve(db);
        };
        r.onerror = () => reject(r.error);
      };
      request.onerror = () => reject(missing ? new NoDatabase() : request.error);
    });
    const p = dbp;
    p.catch(() => {
      if (dbp === p) dbp = null;
    });
  }
  return dbp;
}

// done settles when the transaction t commits (or fails when it aborts):
// a write is done only then.
export function done(t) {
  return new Promise((resolve, reject) => {
    t.oncomplete = () => resolve();
    t.onerror = () => reject(t.error);
    t.onabort = () => reject(t.error || new Error('transaction aborted'));
  });
}

// req is the result of the request r.
export function req(r) {
  return new Promise((resolve, reject) => {
    r.onsuccess = () => resolve(r.result);
    r.onerror = () => reject(r.error);
  });
}

// tx opens a transaction over stores; only startDevice may create the
// database (create). While the app lock is on, its stores are read and
// written through the lock (storesealed.js), and a tab without the data key
// gets Locked. The form of the rows is decided by the lock's record as the
// transaction itself reads it first, not by what this tab was told: a tab
// that has not heard yet that the lock was turned on or off (the other
// tabs tell it) writes no row in the form that was. A tab that learns so
// waits a moment for the data key, which the tab that turned the lock on
// sends with the record.
export async function tx(stores, mode = 'readonly', create = false) {
  const db = await openDB(create);
  const scope = stores.includes('meta') ? stores : [...stores, 'meta'];
  for (let tries = 0; ; tries++) {
    const t = db.transaction(scope, mode);
    const r = await req(t.objectStore('meta').get(LOCK_KEY));
    const record = r ? r.v : null;
    const was = lock.state;
    if ((record ? record.state : 'off') !== was) setLockRecord(record);
    if (!lock.record) return t;
    if (lock.keys) return throughLock(t, lock);
    if (was === lock.state || tries > 0 || !(await keyArrives(KEY_WAIT))) throw new Locked();
  }
}

// KEY_WAIT is how long a tab that finds the lock turned on waits for the
// data key from the tab that turned it on.
const KEY_WAIT = 2000;
/** @type {Set<() => void>} */
const keyWaiters = new Set();

// keyArrives resolves true once this tab holds the data key, false after ms.
function keyArrives(ms) {
  if (lock.keys) return Promise.resolve(true);
  return new Promise((resolve) => {
    const got = () => {
      keyWaiters.delete(got);
      clearTimeout(timer);
      resolve(true);
    };
    const timer = setTimeout(() => {
      keyWaiters.delete(got);
      resolve(!!lock.keys);
    }, ms);
    keyWaiters.add(got);
  });
}

// rawTx is a transaction that sees the rows as stored: the lock's own
// conversion (storelock.js).
export async function rawTx(stores, mode = 'readonly') {
  const db = await openDB();
  return db.transaction(stores, mode);
}

// setLockRecord and setLockKeys keep what this tab knows of the lock.
export function setLockRecord(record) {
  lock.record = record;
  lock.state = record ? record.state : 'off';
}

export function setLockKeys(keys) {
  lock.keys = keys;
  if (keys) for (const f of [...keyWaiters]) f();
}

// lockNow is what this tab knows of the lock: its record, and whether it
// holds the keys.
export function lockNow() {
  return { record: lock.record, unlocked: !!lock.keys };
}

// lockedFile is a file's bytes as the files store keeps them: sealed while
// the lock is on (lockcrypto.js, sealFile), as they are otherwise. It
// reads the bytes, so it runs before the transaction that keeps them.
export async function lockedFile(ref, blob) {
  if (!lock.record || lock.state === 'opening' || blob.type === SEALED_FILE) return blob;
  if (!lock.keys) throw new Locked();
  return lockedBytes(ref, new Uint8Array(await blob.arrayBuffer()), blob.type);
}

// lockedBytes is lockedFile of bytes at hand, within a transaction.
export function lockedBytes(ref, bytes, type) {
  if (!lock.record || lock.state === 'opening') return new Blob([/** @type {Uint8Array<ArrayBuffer>} */ (bytes)], { type });
  if (!lock.keys) throw new Locked();
  return new Blob([/** @type {Uint8Array<ArrayBuffer>} */ (sealFile(lock.keys, ref, type, bytes))], { type: SEALED_FILE });
}

// openedFile is the file a kept blob holds.
export async function openedFile(ref, blob) {
  if (!blob || blob.type !== SEALED_FILE) return blob;
  if (!lock.keys) throw new Locked();
  const f = openFile(lock.keys, ref, new Uint8Array(await blob.arrayBuffer()));
  return new Blob([/** @type {Uint8Array<ArrayBuffer>} */ (f.bytes)], { type: f.type });
}

// newChat is a chat of which nothing was stored yet.
export function newChat(username) {
  return { username, lastTs: 0, preview: '', unread: 0, read: { sort: 0, id: '', v: 0 } };
}

// chatMessages returns a chat's rows, within the transaction of ms, in the
// chat's order.
export async function chatMessages(ms, chat) {
  const range = IDBKeyRange.bound([chat, -Infinity], [chat, Infinity]);
  return req(ms.index('chat').getAll(range));
}

// ---- the meta records ----

// getMeta is undefined where there is no database: a profile that holds
// no account has none of its records.
export async function getMeta(k) {
  let t;
  try {
    t = await tx(['meta']);
  } catch (e) {
    if (e instanceof NoDatabase) return undefined;
    throw e;
  }
  const r = await req(t.objectStore('meta').get(k));
  return r ? keysIn(r.v) : undefined;
}

// keysOut is a meta value with each CryptoKey in it (the account's and
// the device's keys) exported, for the app lock to seal: rows are sealed
// within their transaction, and an export waits for a promise. keysIn
// imports them again. Only the values' own fields hold keys.
export async function keysOut(v) {
  if (!v || typeof v !== 'object' || Array.isArray(v) || !Object.values(v).some((x) => x instanceof CryptoKey)) return v;
  const out = { ...v };
  for (const [f, x] of Object.entries(v)) {
    if (x instanceof CryptoKey) out[f] = { cryptoKey: { jwk: await crypto.subtle.exportKey('jwk', x), algorithm: x.algorithm, usages: x.usages, extractable: x.extractable } };
  }
  return out;
}

async function keysIn(v) {
  const held = (x) => x && typeof x === 'object' && x.cryptoKey && x.cryptoKey.jwk;
  if (!v || typeof v !== 'object' || Array.isArray(v) || !Object.values(v).some(held)) return v;
  const out = { ...v };
  for (const [f, x] of Object.entries(v)) {
    if (held(x)) out[f] = await crypto.subtle.importKey('jwk', x.cryptoKey.jwk, x.cryptoKey.algorithm, x.cryptoKey.extractable, x.cryptoKey.usages);
  }
  return out;
}

// hadAccount reports whether this browser profile ever held an account,
// so that the first screen offers Log in rather than Create account. The
// flag is in localStorage, outside the database a logout deletes, and
// holds no name: only that there was one.
const hadAccountKey = 'relay.hadAccount';

export function hadAccount() {
  try {
    return localStorage.getItem(hadAccountKey) === '1';
  } catch {
    return false; // storage refused: a newcomer's screen is the safe guess
  }
}

function rememberAccount() {
  try {
    localStorage.setItem(hadAccountKey, '1');
  } catch { /* only the first screen's choice depends on it */ }
}

// ---- writes of the meta records, and of the whole database ----

async function putMeta(pairs, create = false) {
  if (lock.record && lock.state !== 'opening') pairs = await Promise.all(pairs.map(async ([k, v]) => [k, await keysOut(v)]));
  const t = await tx(['meta'], 'readwrite', create);
  for (const [k, v] of pairs) t.objectStore('meta').put({ k, v });
  await done(t);
}

// clearAll deletes the whole database: a new account on this profile, or
// a logout.
// The other tabs close their connections on versionchange, so the delete
// completes; resolving while it is still blocked would leave every later
// open queued behind it.
export async function clearAll() {
  if (dbp) {
    try {
      (await dbp).close();
    } catch { /* it did not open */ }
  }
  dbp = null;
  setLockRecord(null);
  setLockKeys(null);
  await new Promise((resolve, reject) => {
    const r = indexedDB.deleteDatabase(NAME);
    r.onsuccess = () => resolve();
    r.onerror = () => reject(r.error);
  });
}

// startDevice records this profile's account and device, with a stream
// cursor at the start. It alone creates the database.
export function startDevice(account, device) {
  rememberAccount();
  return putMeta([['account', account], ['device', device], ['cursor', { lastSeq: 0 }]], true);
}

// setAccount records the account again: once linked, with its key.
export function setAccount(account) {
  rememberAccount();
  return putMeta([['account', account]]);
}

export function setPurgeNotice(notice) {
  return putMeta([['purge', notice]]);
}

// rewind starts a resync (docs/storage.md, "A history that went back"): a
// cursor of epoch that trusts no seq, and the notice, in one transaction.
export function rewind(epoch, notice) {
  return putMeta([['cursor', { lastSeq: null, epoch }], ['purge', notice]]);
}

export function setPrefs(p) {
  return putMeta([['prefs', p]]);
}

// keepGroups writes MLS group records (puts: [k, v] pairs of meta) and
// deletes the meta records of deletes, in one transaction (mlschat.js).
export async function keepGroups(puts, deletes = []) {
  const t = await tx(['meta'], 'readwrite');
  const ms = t.objectStore('meta');
  for (const k of deletes) ms.delete(k);
  for (const [k, v] of puts) ms.put({ k, v });
  await done(t);
}

// dropKeyPackages takes the key packages a welcome used (each base64) out
// of those kept, within the meta transaction: their private keys opened
// the welcome and have nothing left to open.
export async function dropKeyPackages(meta, used) {
  if (!used.length) return;
  const kept = await req(meta.get('keyPackages'));
  if (!kept) return;
  const drop = new Set(used);
  const b64 = (bytes) => btoa(String.fromCharCode(...bytes));
  meta.put({ k: 'keyPackages', v: kept.v.filter((k) => !drop.has(b64(k.keyPackage))) });
}

// keepMLSIdentity records this device's MLS identity and adds the key
// packages made with it (with their private keys) to those kept, in one
// transaction: kept before they are published, so that none is on the
// relay that this device could not join with.
export async function keepMLSIdentity(identity, keyPackages = []) {
  const t = await tx(['meta'], 'readwrite');
  const ms = t.objectStore('meta');
  ms.put({ k: 'mls', v: identity });
  if (keyPackages.length) {
    const kept = await req(ms.get('keyPackages'));
    ms.put({ k: 'keyPackages', v: [...(kept ? kept.v : []), ...keyPackages] });
  }
  await done(t);
}

// setHistoryState writes the record k ('historyIn', 'historyAsk') of a
// history transfer (historyxfer.js), unless a newer envelope's replaced
// it meanwhile; null deletes it.
export async function setHistoryState(k, v, envelope) {
  const t = await tx(['meta'], 'readwrite');
  const ms = t.objectStore('meta');
  const cur = await req(ms.get(k));
  if (!cur || cur.v.envelope === envelope) {
    if (v) ms.put({ k, v });
    else ms.delete(k);
  }
  await done(t);
}
