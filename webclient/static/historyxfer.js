// historyxfer.js: the history handed from a linked device to one it just
// approved (docs/crypto.md, "History transfer"; docs/storage.md, "History
// archives"). The approving device makes an archive (history.js), seals
// it as an attachment under a fresh key, uploads it for the new device
// alone, and tells the new device how to open it in envelopes to the
// account's own name sealed under the two devices' key. The new device
// downloads it with progress, checks it, merges it into what it holds,
// and tells the relay it has it, which deletes it. Neither keeps the key.

import * as store from './store.js';
import * as api from './api.js';
import * as c from './crypto.js';
import * as account from './account.js';
import * as ac from './attachcrypto.js';
import { ulid } from './ulid.js';
import { sealParts } from './transfer.js';
import { notify, subscribe, isOwner } from './election.js';
import { archiveLines, archived } from './history.js';
import { writeArchive, readArchive, sealTransfer, openTransfer, COMING, READY, STOPPED, ASK } from './archive.js';

/** @typedef {import('./archive.js').Offer} Offer */

// ---- both sides ----

/** @param {string} fromDevice @param {string} toDevice @param {Uint8Array} theirPub */
function keyBetween(fromDevice, toDevice, theirPub) {
  return c.historyKeyBytes(/** @type {any} */ (account.currentDevice()).privateKey, theirPub, fromDevice, toDevice);
}

/**
 * sendBody sends a transfer body to the account's own name.
 * @param {Uint8Array} key
 * @param {Offer} o
 */
async function sendBody(key, o) {
  const id = ulid();
  const me = /** @type {string} */ (account.me());
  const body = await sealTransfer(key, c.randomIV(), id, me, o);
  await api.send(id, me, c.b64encode(body));
}

/**
 * transferBody opens a transfer body that reached this device (inbox.js):
 * it opens only with the key of its sender device and this one. What it
 * says is kept with the batch (storebatch.js); a body for another device
 * is skipped.
 * @param {any} env
 * @param {Uint8Array} body
 * @param {(id: string) => Promise<Uint8Array | null>} deviceKey
 */
export async function transferBody(env, body, deviceKey) {
  const mine = /** @type {any} */ (account.currentDevice());
  const pub = await deviceKey(env.fromDevice);
  if (!pub) return { kind: 'skip' };
  try {
    const o = await openTransfer(await keyBetween(env.fromDevice, mine.id, pub), env.id, /** @type {string} */ (account.me()), body);
    return { kind: 'history', offer: { ...o, from: env.fromDevice, envelope: env.id, at: Date.now(), state: o.kind === COMING ? 'coming' : o.kind === READY ? 'ready' : o.kind === STOPPED ? 'stopped' : 'asked' } };
  } catch {
    return { kind: 'skip' };
  }
}

// ---- the approving device ----

const DAY = 24 * 60 * 60 * 1000;

/**
 * estimate is what a transfer of everything, and one from since on,
 * would carry: messages, files and about how many bytes (the texts as
 * JSON, gzip taking about two thirds off, and the files' sizes in
 * base64), in one pass over the store.
 * @param {number} since
 */
export async function estimate(since) {
  const all = { messages: 0, files: 0, bytes: 200 };
  const recent = { messages: 0, files: 0, bytes: 200 };
  let after = null;
  for (;;) {
    const rows = await store.messageRows(after, 5000);
    for (const m of rows) {
      if (!archived(m)) continue;
      let bytes = JSON.stringify({ ...m, files: undefined }).length / 3;
      let files = 0;
      for (const f of m.files || []) {
        if (!f.got) continue;
        files++;
        bytes += f.size * 1.34;
      }
      for (const e of (m.ts || 0) >= since ? [all, recent] : [all]) {
        e.messages++;
        e.files += files;
        e.bytes += Math.round(bytes);
      }
    }
    if (rows.length < 5000) break;
    after = rows[rows.length - 1].id;
  }
  return { all, recent };
}

/** @type {{to: string, name: string, step: string, done: number, total: number, error?: string} | null} */
let sending = null;

/** sendState is what the approving device shows of a transfer under way. */
export function sendState() {
  return sending;
}

/** dismissSent forgets a transfer this device finished sending, or failed to. */
export function dismissSent() {
  if (sending && (sending.step === 'sent' || sending.step === 'failed')) sending = null;
  moved();
}

function moved() {
  notify({ type: 'history' }, false);
}

/**
 * sendHistory hands the history from since on (0: all of it) to the
 * device target ({id, name, publicKey}) this device just approved.
 * @param {{id: string, name: string, publicKey: string}} target
 * @param {number} since
 */
export async function sendHistory(target, since) {
  const mine = /** @type {any} */ (account.currentDevice());
  const key = await keyBetween(mine.id, target.id, c.b64decode(target.publicKey));
  sending = { to: target.id, name: target.name, step: 'reading', done: 0, total: 1 };
  moved();
  try {
    const est = await estimate(since);
    await sendBody(key, { kind: COMING, estimate: (since ? est.recent : est.all).bytes, since });
    const lines = await archiveLines({ since, progress: (done, total) => { Object.assign(/** @type {any} */ (sending), { done, total }); moved(); } });
    const archive = await writeArchive({ account: /** @type {string} */ (account.me()), made: Date.now(), since }, lines);
    const archiveKey = ac.newKey();
    Object.assign(sending, { step: 'uploading', done: 0, total: ac.sealedSize(archive.size) });
    moved();
    const { id, digest } = await upload(archive, archiveKey, target.id);
    await sendBody(key, { kind: READY, id: c.unb64url(id), key: archiveKey, size: archive.size, digest, since });
    Object.assign(sending, { step: 'sent' });
  } catch (e) {
    Object.assign(/** @type {any} */ (sending), { step: 'failed', error: e instanceof Error ? e.message : String(e) });
    await sendBody(key, { kind: STOPPED }).catch(() => {});
  } finally {
    moved();
  }
}

/**
 * upload seals archive chunk by chunk under key into the relay's parts,
 * and finishes it for device alone.
 * @param {Blob} archive
 * @param {Uint8Array<ArrayBuffer>} raw
 * @param {string} device
 */
async function upload(archive, raw, device) {
  const a = await api.startAttachment(ac.sealedSize(archive.size));
  const put = (/** @type {number} */ index, /** @type {Uint8Array<ArrayBuffer>} */ part) => api.putAttachmentPart(a.id, index, part);
  const digest = await sealParts(archive, raw, a.partSize, put, (bytes) => {
    /** @type {any} */ (sending).done += bytes;
    moved();
  });
  await api.finishAttachmentFor(a.id, device);
  return { id: a.id, digest };
}

// ---- the new device ----

/** @type {{done: number, total: number} | null} */
let receiving = null;

/** receiveProgress is how far the download under way is, or null. */
export function receiveProgress() {
  return receiving;
}

/** incoming is what this device keeps of a transfer to it, or null. */
export function incoming() {
  return store.getMeta('historyIn');
}

/** asked is a request of another device for the history again, or null. */
export function asked() {
  return store.getMeta('historyAsk');
}

let running = false;

// take runs a transfer that is ready, in the tab that owns the stream:
// download, check, merge, confirm, forget the key.
async function take() {
  if (running || !isOwner() || !account.isLinked()) return;
  const o = await incoming();
  if (!o || o.state !== 'ready') return;
  running = true;
  receiving = { done: 0, total: ac.sealedSize(o.size) };
  notify({ type: 'history' }, false);
  const id = c.b64url(o.id);
  let next;
  try {
    const opener = new ac.Opener(await ac.importKey(o.key), o.size, o.digest);
    while (opener.received < receiving.total) {
      const resp = await api.downloadAttachment(id, opener.received);
      const reader = /** @type {ReadableStream<Uint8Array>} */ (resp.body).getReader();
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        await opener.push(value);
        receiving.done = opener.received;
        notify({ type: 'history' }, false);
      }
      if (opener.received < receiving.total) throw new Error('the download was cut off');
    }
    const { head, lines } = await readArchive(await opener.done());
    if (head.account !== account.me()) throw new Error('the archive is of another account');
    const r = await store.importHistory(lines);
    await api.attachmentReceived(id).catch(() => {});
    next = { state: 'done', from: o.from, envelope: o.envelope, at: Date.now(), messages: r.messages, chats: r.chats, since: o.since };
    const chats = [...new Set(lines.map((l) => (l.msg ? l.msg.chat : l.chat ? l.chat.username : null)).filter(Boolean))];
    notify({ type: 'changed', chats });
  } catch (e) {
    const gone = e instanceof api.ApiError && e.code === 'unknown_attachment';
    next = { state: 'failed', from: o.from, envelope: o.envelope, at: Date.now(), reason: gone ? 'gone' : ['size', 'digest', 'chunk', 'padding'].includes(e instanceof Error ? e.message : '') ? 'digest' : 'failed' };
  }
  // The key goes with the ready record it was in.
  await store.setHistoryState('historyIn', next, o.envelope);
  receiving = null;
  running = false;
  notify({ type: 'history' });
}

/**
 * askAgain asks the device that approved this one for the history again,
 * and waits for its answer.
 */
export async function askAgain() {
  const o = await incoming();
  if (!o) return;
  const list = await api.devices();
  const d = list.find((/** @type {any} */ x) => x.id === o.from && !x.revokedAt);
  if (!d) throw new Error('The device that approved this one is no longer linked.');
  const mine = /** @type {any} */ (account.currentDevice());
  await sendBody(await keyBetween(mine.id, o.from, c.b64decode(d.publicKey)), { kind: ASK });
  await store.setHistoryState('historyIn', { ...o, state: 'asked', at: Date.now() }, o.envelope);
  notify({ type: 'history' });
}

/**
 * dismiss forgets what the screen shows of a transfer: the one to this
 * device (which='in'), or another device's request ('ask').
 * @param {'in' | 'ask'} which
 */
export async function dismiss(which) {
  const k = which === 'ask' ? 'historyAsk' : 'historyIn';
  const o = await store.getMeta(k);
  if (o) await store.setHistoryState(k, null, o.envelope);
  notify({ type: 'history' });
}

/** since30 is the start of "the last 30 days" from now. */
export function since30(now = Date.now()) {
  return now - 30 * DAY;
}

// A ready transfer is taken when it arrives, when this tab becomes the
// stream's owner, and when the page starts.
subscribe((ev) => {
  if (ev.type === 'history' || (ev.type === 'conn' && ev.state === 'open')) take().catch((e) => console.warn('history: ' + e));
});
