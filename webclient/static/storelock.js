// storelock.js: the app lock's writes (ADR 0113; docs/storage.md, "App
// lock"): turning it on and off, which converts every store in steps that
// a reload resumes, unlocking with the passphrase, locking, and what the
// tabs of the profile tell each other (the data key, while unlocked, and
// that the lock changed). The rows' sealed form is storesealed.js's.
//
// The lock's record, meta 'lock', in the clear: {state ('sealing', 'on',
// 'opening'), kdf {N, r, p}, salt, wrapped (the data key under the
// passphrase's key), publicKey, held (the lock's private key sealed under
// the data key), at {store, after}: where the conversion stopped, autoLock
// (minutes, 0 for never), device: the id of this browser's device, whose
// stream the stream owner keeps open while locked (heldstream.js)}.

import { rawTx, req, done, setLockRecord, setLockKeys, lockNow, NoDatabase, keysOut } from './storedb.js';
import { sealForm, openForm, isSealed, LOCK_KEY, Locked } from './storesealed.js';
import * as lc from './lockcrypto.js';

// STORES are converted in this order, then the files' bytes.
const STORES = ['meta', 'chats', 'messages', 'files'];
const PATHS = { meta: 'k', chats: 'username', messages: 'id', files: 'ref' };
// STEP rows are converted in one transaction.
const STEP = 200;

// dataKey is this tab's data key while unlocked.
/** @type {Uint8Array | null} */
let dataKey = null;

const channel = typeof BroadcastChannel === 'undefined' ? null : new BroadcastChannel('relay.lock');
/** @type {Set<(what: string) => void>} */
const watchers = new Set();

function tell(msg) {
  if (channel) channel.postMessage(msg);
}

function hold(key) {
  dataKey = key;
  setLockKeys(key ? lc.rowKeys(key) : null);
}

async function readRecord() {
  const t = await rawTx(['meta']);
  const r = await req(t.objectStore('meta').get(LOCK_KEY));
  return r ? r.v : null;
}

function writeRecord(t, record) {
  if (record) t.objectStore('meta').put({ k: LOCK_KEY, v: record });
  else t.objectStore('meta').delete(LOCK_KEY);
}

// What the tabs tell each other carries the lock's record, so that a tab
// takes it in at once, before any transaction of its own: 'key' (the data
// key, to a tab that asked or when the lock is turned on or unlocked),
// 'changed' (the record changed), 'locked', 'ask'.
if (channel) {
  channel.onmessage = (ev) => {
    const m = ev.data || {};
    if (m.type === 'ask' && dataKey) tell({ type: 'key', key: dataKey, record: lockNow().record });
    if (m.type === 'key' && !dataKey && m.key instanceof Uint8Array) {
      setLockRecord(m.record);
      hold(m.key);
      for (const f of watchers) f('unlocked');
    }
    if (m.type === 'changed') {
      setLockRecord(m.record);
      if (!m.record) hold(null);
      for (const f of watchers) f('changed');
    }
    if (m.type === 'locked' && dataKey) {
      hold(null);
      for (const f of watchers) f('locked');
    }
  };
}

/**
 * onLockChange calls f when another tab unlocks ('unlocked'), locks
 * ('locked') or changes the lock ('changed').
 * @param {(what: string) => void} f
 */
export function onLockChange(f) {
  watchers.add(f);
}

/**
 * lockState is the lock as this tab sees it: 'off', 'locked' (on, and no
 * data key here) or 'unlocked'; converting when it is being turned on or
 * off; autoLock in minutes.
 */
export function lockState() {
  const { record, unlocked } = lockNow();
  if (!record) return { state: 'off', converting: null, autoLock: 0 };
  return {
    state: unlocked ? 'unlocked' : 'locked',
    converting: record.state === 'on' ? null : record.state,
    autoLock: record.autoLock || 0,
  };
}

/**
 * lockStatus is lockState once the lock's record is read: at the start of
 * a page, before anything else is.
 */
export async function lockStatus() {
  try {
    setLockRecord(await readRecord());
  } catch (e) {
    if (!(e instanceof NoDatabase)) throw e;
  }
  return lockState();
}

/**
 * lockDevice is the device whose stream the stream owner keeps open while
 * locked, as the lock's record names it (null: none).
 * @returns {string | null}
 */
export function lockDevice() {
  const { record } = lockNow();
  return (record && record.device) || null;
}

/**
 * askOtherTabs asks the profile's other tabs for the data key, and reports
 * whether one gave it within wait ms.
 * @param {number} wait
 */
export function askOtherTabs(wait = 300) {
  if (!channel || dataKey) return Promise.resolve(!!dataKey);
  return new Promise((resolve) => {
    const seen = () => {
      watchers.delete(seen);
      resolve(true);
    };
    watchers.add(seen);
    tell({ type: 'ask' });
    setTimeout(() => {
      watchers.delete(seen);
      resolve(!!dataKey);
    }, wait);
  });
}

/**
 * enableLock turns the lock on with passphrase: a new data key, wrapped
 * under the passphrase's key, then every store sealed in steps.
 * onProgress(phase, done) is told 'key' while the passphrase's key is
 * derived, then 'sealing' with the share of rows done.
 * @param {string} passphrase
 * @param {number} autoLock minutes, 0 for never
 * @param {(phase: string, done: number) => void} [onProgress]
 * @param {string | null} [device] this browser's device, if linked
 */
export async function enableLock(passphrase, autoLock, onProgress = () => {}, device = null) {
  if (lockNow().record) throw new Error('The app lock is already on.');
  const salt = crypto.getRandomValues(new Uint8Array(lc.SALT_BYTES));
  const passKey = await lc.passphraseKey(passphrase, salt, lc.KDF, (d) => onProgress('key', d));
  const key = lc.newDataKey();
  const keys = lc.rowKeys(key);
  const pair = lc.lockKeyPair();
  const record = {
    state: 'sealing', kdf: lc.KDF, salt, wrapped: lc.wrapKey(passKey, key), publicKey: pair.publicKey,
    held: lc.sealRow(keys, 'lock', 'held', pair.privateKey), at: { store: 0, after: null }, autoLock, device,
  };
  const t = await rawTx(['meta'], 'readwrite');
  writeRecord(t, record);
  await done(t);
  hold(key);
  setLockRecord(record);
  tell({ type: 'key', key, record });
  await convert((d) => onProgress('sealing', d));
}

// openDataKey is the data key of record, opened with passphrase
// (WrongPassphrase if it does not open it); onProgress is told 'key'.
async function openDataKey(record, passphrase, onProgress) {
  const passKey = await lc.passphraseKey(passphrase, record.salt, record.kdf, (d) => onProgress('key', d));
  return lc.unwrapKey(passKey, record.wrapped);
}

/**
 * unlock opens the data key with passphrase (WrongPassphrase if it does
 * not), and goes on with a conversion a reload stopped. A wrong passphrase
 * changes nothing.
 * @param {string} passphrase
 * @param {(phase: string, done: number) => void} [onProgress]
 */
export async function unlock(passphrase, onProgress = () => {}) {
  const record = await readRecord();
  if (!record) return;
  const key = await openDataKey(record, passphrase, onProgress);
  setLockRecord(record);
  hold(key);
  tell({ type: 'key', key, record });
}

/**
 * resumeConversion goes on with turning the lock on or off where a reload
 * stopped it, in this tab (which holds the data key).
 * @param {(phase: string, done: number) => void} [onProgress]
 */
export async function resumeConversion(onProgress = () => {}) {
  const { record } = lockNow();
  if (!dataKey || !record || record.state === 'on') return;
  await convert((d) => onProgress(record.state, d));
}

/**
 * lockApp forgets the data key in every tab of the profile.
 */
export function lockApp() {
  hold(null);
  tell({ type: 'locked' });
}

/**
 * setAutoLock changes the minutes without use after which the app locks.
 * @param {number} minutes
 */
export async function setAutoLock(minutes) {
  const t = await rawTx(['meta'], 'readwrite');
  const r = await req(t.objectStore('meta').get(LOCK_KEY));
  if (r) {
    r.v.autoLock = minutes;
    writeRecord(t, r.v);
  }
  await done(t);
  setLockRecord(r ? r.v : null);
  tell({ type: 'changed', record: r ? r.v : null });
}

/**
 * disableLock turns the lock off, once the passphrase is checked: every
 * store opened in steps, then the lock's record deleted.
 * @param {string} passphrase
 * @param {(phase: string, done: number) => void} [onProgress]
 */
export async function disableLock(passphrase, onProgress = () => {}) {
  const record = await readRecord();
  if (!record) return;
  const key = await openDataKey(record, passphrase, onProgress);
  hold(key);
  const t = await rawTx(['meta'], 'readwrite');
  const next = { ...record, state: 'opening', at: { store: 0, after: null } };
  writeRecord(t, next);
  await done(t);
  setLockRecord(next);
  tell({ type: 'changed', record: next });
  await convert((d) => onProgress('opening', d));
}

// convert runs the conversion of the lock's record to its end, a step
// (one transaction, which reads the record again, so that two tabs never
// convert the same rows twice) at a time, and reports the share of rows
// done.
async function convert(onProgress) {
  // Two passes: the one that converts, and the one that finds nothing left.
  const total = 2 * (await rowCount());
  let moved = 0;
  for (;;) {
    const n = await step();
    if (n < 0) break;
    moved += n;
    onProgress(Math.min(0.99, moved / Math.max(1, total)));
  }
  onProgress(1);
}

async function rowCount() {
  const t = await rawTx([...STORES]);
  let n = 0;
  for (const s of STORES) n += await req(t.objectStore(s).count());
  return n + (await req(t.objectStore('files').count()));
}

// sameButKeys tells whether two meta values are the same once their keys
// (WebCrypto keys, or keys exported from them) are left out.
function sameButKeys(a, b) {
  const bare = (v) => {
    if (!v || typeof v !== 'object' || Array.isArray(v)) return v;
    const out = {};
    for (const [f, x] of Object.entries(v)) out[f] = x instanceof CryptoKey || (x && x.cryptoKey) ? null : x;
    return out;
  };
  return lc.pack(bare(a)) === lc.pack(bare(b));
}

// step converts up to STEP rows where the record stopped, and moves the
// record on in the same transaction; it returns how many rows it read, or
// -1 once there is nothing left to convert.
async function step() {
  const record = await readRecord();
  if (!record || record.state === 'on') return -1;
  const name = STORES[record.at.store];
  if (name === undefined) return fileStep(record);
  const sealing = record.state === 'sealing';
  const keys = lc.rowKeys(/** @type {Uint8Array} */ (dataKey));
  // The keys in meta rows are exported first, outside the transaction
  // (an export waits for a promise); a row that changed meanwhile fails
  // the step, which the next one does again.
  const exported = new Map();
  if (sealing && name === 'meta') {
    const t0 = await rawTx(['meta']);
    for (const row of await req(t0.objectStore('meta').getAll())) {
      if (!isSealed(row) && row.k !== LOCK_KEY) {
        const v = await keysOut(row.v);
        if (v !== row.v) exported.set(row.k, { k: row.k, v });
      }
    }
  }
  const t = await rawTx(name === 'meta' ? ['meta'] : [name, 'meta'], 'readwrite');
  const now = await req(t.objectStore('meta').get(LOCK_KEY));
  if (!now || JSON.stringify(now.v.at) !== JSON.stringify(record.at) || now.v.state !== record.state) {
    await done(t);
    return 0; // another tab moved it on meanwhile
  }
  const s = t.objectStore(name);
  const path = PATHS[name];
  const range = record.at.after === null ? null : IDBKeyRange.lowerBound(record.at.after, true);
  const rows = await req(s.getAll(range, STEP));
  let found = 0;
  for (const row of rows) {
    if (name === 'meta' && row.k === LOCK_KEY) continue;
    if (sealing === isSealed(row)) continue;
    found++;
    let from = row;
    if (exported.has(row[path])) {
      // Exported from the row as it was before this transaction: used
      // only if the row is still the same but for its keys.
      if (!sameButKeys(row.v, exported.get(row[path]).v)) continue;
      from = exported.get(row[path]);
    } else if (name === 'meta' && row.v && typeof row.v === 'object' && Object.values(row.v).some((x) => x instanceof CryptoKey)) {
      continue; // written since the export: the next pass exports it
    }
    const next = sealing ? sealForm(keys, name, from) : openForm(keys, name, row);
    if (next[path] !== row[path]) s.delete(row[path]);
    s.put(next);
  }
  const at = rows.length < STEP ? { store: record.at.store + 1, after: null } : { store: record.at.store, after: rows[rows.length - 1][path] };
  const next = { ...now.v, at, found: (now.v.found || 0) + found };
  writeRecord(t, next);
  await done(t);
  setLockRecord(next);
  return rows.length;
}

// fileStep converts the bytes of one file: read, sealed or opened outside
// a transaction (the bytes are read asynchronously), written back if the
// row still holds the same bytes. After the last, the conversion ends.
async function fileStep(record) {
  const sealing = record.state === 'sealing';
  const keys = lc.rowKeys(/** @type {Uint8Array} */ (dataKey));
  const t1 = await rawTx(['files']);
  const range = record.at.after === null ? null : IDBKeyRange.lowerBound(record.at.after, true);
  const [row] = await req(t1.objectStore('files').getAll(range, 1));
  let blob = null;
  if (row && row.blob && sealing !== (row.blob.type === lc.SEALED_FILE)) {
    const bytes = new Uint8Array(await row.blob.arrayBuffer());
    if (sealing) blob = new Blob([/** @type {Uint8Array<ArrayBuffer>} */ (lc.sealFile(keys, row.ref, row.blob.type, bytes))], { type: lc.SEALED_FILE });
    else {
      const f = lc.openFile(keys, row.ref, bytes);
      blob = new Blob([/** @type {Uint8Array<ArrayBuffer>} */ (f.bytes)], { type: f.type });
    }
  }
  const t = await rawTx(['files', 'meta', 'held'], 'readwrite');
  const cur = await req(t.objectStore('meta').get(LOCK_KEY));
  if (!cur || JSON.stringify(cur.v.at) !== JSON.stringify(record.at) || cur.v.state !== record.state) {
    await done(t);
    return 0;
  }
  if (row && blob) {
    const now = await req(t.objectStore('files').get(row.ref));
    if (now && now.blob && now.blob.size === row.blob.size && now.blob.type === row.blob.type) t.objectStore('files').put({ ...now, blob });
  }
  const was = cur.v;
  let next;
  if (row) next = { ...was, at: { store: was.at.store, after: row.ref }, found: (was.found || 0) + (blob ? 1 : 0) };
  // A pass that converted rows is followed by another: a tab that had not
  // heard of the conversion yet may have written behind it. The one that
  // finds nothing left ends it.
  else if (was.found) next = { ...was, at: { store: 0, after: null }, found: 0 };
  else if (sealing) next = { ...was, state: 'on', at: null, found: 0 };
  else {
    next = null;
    openHeld(t, was); // the lock's private key goes with its record
  }
  writeRecord(t, next);
  await done(t);
  setLockRecord(next);
  if (!next) hold(null);
  if (!row && (!next || next.state === 'on')) tell({ type: 'changed', record: next });
  return row ? 1 : 0;
}

// ---- what the stream brings while locked (heldstream.js) ----

const te = new TextEncoder();
const td = new TextDecoder();

/**
 * holdEvents keeps a batch of the stream received while the app is locked:
 * sealed to the lock's public key, as the record read in the same
 * transaction says; in the clear if the lock went meanwhile (its envelopes
 * are end-to-end ciphertext already).
 * @param {object[]} events
 */
export async function holdEvents(events) {
  const t = await rawTx(['held', 'meta'], 'readwrite');
  const r = await req(t.objectStore('meta').get(LOCK_KEY));
  t.objectStore('held').add(r ? { sealed: lc.sealTo(r.v.publicKey, te.encode(JSON.stringify(events))) } : { events });
  await done(t);
}

// heldKey is the lock's private key, which opens the held batches.
function heldKey(record) {
  return lc.openRow(lc.rowKeys(/** @type {Uint8Array} */ (dataKey)), 'lock', 'held', record.held);
}

// openedHeld is what a held row holds; a row that does not open (no lock
// left to open it, or damaged) holds nothing, and is said so.
function openedHeld(key, row) {
  if (row.events) return row.events;
  try {
    if (!key) throw new Error('no lock to open it');
    return JSON.parse(td.decode(lc.openFrom(key, row.sealed)));
  } catch (e) {
    console.error('store: a batch kept while locked does not open; dropped', e);
    return [];
  }
}

/**
 * nextHeld is the oldest batch kept while locked, {n, events}, or null.
 * While the lock is on, it needs the data key (Locked otherwise).
 */
export async function nextHeld() {
  const t = await rawTx(['held', 'meta']);
  const [row] = await req(t.objectStore('held').getAll(null, 1));
  if (!row) return null;
  if (row.events) return row;
  const r = await req(t.objectStore('meta').get(LOCK_KEY));
  if (r && !dataKey) throw new Locked();
  return { n: row.n, events: openedHeld(r ? heldKey(r.v) : null, row) };
}

/**
 * dropHeld deletes a held batch once what it held is stored.
 * @param {number} n
 */
export async function dropHeld(n) {
  const t = await rawTx(['held'], 'readwrite');
  t.objectStore('held').delete(n);
  await done(t);
}

// openHeld writes the held batches in their clear form in t, which deletes
// the lock's record.
function openHeld(t, record) {
  const key = heldKey(record);
  const s = t.objectStore('held');
  const r = s.getAll();
  r.onsuccess = () => {
    for (const row of r.result) if (!row.events) s.put({ n: row.n, events: openedHeld(key, row) });
  };
}

/**
 * setLockDevice names the device whose stream is kept open while locked
 * (null: none, while this browser waits to be linked).
 * @param {string | null} device
 */
export async function setLockDevice(device) {
  const t = await rawTx(['meta'], 'readwrite');
  const r = await req(t.objectStore('meta').get(LOCK_KEY));
  const next = r && (r.v.device || null) !== device ? { ...r.v, device } : null;
  if (next) writeRecord(t, next);
  await done(t);
  if (!next) return;
  setLockRecord(next);
  tell({ type: 'changed', record: next });
}
