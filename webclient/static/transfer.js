// transfer.js: attachments to and from the relay (docs/protocol.md,
// "Attachments"). An upload seals the file chunk by chunk
// (attachcrypto.js) from the bytes kept with its waiting message, sends
// the parts the relay does not hold yet, and finishes with the accounts
// the message goes to; after a reload it asks what the relay holds and
// sends the rest. A download opens the ciphertext as it arrives, resumes
// a cut-off one with a range, and keeps the file only once its digest,
// chunks and padding checked. Neither ever holds a whole file's
// ciphertext in memory: a part at most on the way up, the plaintext's
// pieces on the way down.

import * as api from './api.js';
import * as store from './store.js';
import * as ac from './attachcrypto.js';
import { b64url, unb64url } from './crypto.js';
import { notify } from './election.js';

// AUTO_MAX: a received file up to this size downloads as soon as its
// message is shown; a larger one waits for the person's Download.
export const AUTO_MAX = 16 * 1024 * 1024;

// The transfers of this tab: ref → {dir: 'up'|'down', done, total, abort}.
const active = new Map();
/** @type {Set<(ref: string, t: any) => void>} */
const watchers = new Set();

/**
 * onProgress calls fn with (ref, transfer) as each transfer of this tab
 * moves, and (ref, null) when it ends; it returns the unsubscribe.
 * @param {(ref: string, t: any) => void} fn
 */
export function onProgress(fn) {
  watchers.add(fn);
  return () => watchers.delete(fn);
}

/** progress is the transfer of file ref under way in this tab, or null. */
export function progress(ref) {
  return active.get(ref) || null;
}

function moved(ref) {
  const t = active.get(ref) || null;
  for (const fn of watchers) fn(ref, t);
}

function changed(chat) {
  notify({ type: 'changed', chats: [chat] });
}

// cancelledError ends an upload whose message was cancelled meanwhile.
class Cancelled extends Error {}

/**
 * upload sends every file of message m the relay does not hold finished
 * yet and returns m with each file's id and digest, as its record names
 * them. to are the accounts the message goes to: the relay deletes the
 * attachment once their devices fetched it. It throws an api.ApiError
 * the outbox handles as for a message (a network failure waits and
 * resumes), and returns null if the message was cancelled meanwhile.
 * @param {any} m
 * @param {string[]} to
 */
export async function upload(m, to) {
  try {
    for (const f of m.files) {
      if (f.digest) continue;
      m = await uploadOne(m, f, to);
    }
    return m;
  } catch (e) {
    if (e instanceof Cancelled) return null;
    throw e;
  } finally {
    for (const f of m.files) {
      if (active.delete(f.ref)) moved(f.ref);
    }
  }
}

async function uploadOne(m, f, to) {
  const blob = await store.getFile(f.ref);
  if (!blob) throw new Error(`${f.name} is no longer on this device.`);
  const n = blob.size;
  const total = ac.sealedSize(n);
  const t = { dir: 'up', done: 0, total, abort: null };
  active.set(f.ref, t);
  moved(f.ref);
  let id = f.id;
  let held = new Set();
  let partSize = 0;
  if (id) {
    // Started before (a reload, a lost connection): only what the relay
    // does not hold goes.
    try {
      const a = await api.attachmentParts(id);
      held = new Set(a.received);
      partSize = a.partSize;
    } catch (e) {
      // Expired (a day unfinished) or deleted: it starts over.
      if (!(e instanceof api.ApiError && e.code === 'unknown_attachment')) throw e;
      id = null;
    }
  }
  if (!id) {
    const a = await api.startAttachment(total);
    id = a.id;
    partSize = a.partSize;
    if (!(await store.setFileFields(m.id, f.ref, { id }))) {
      await api.deleteAttachment(id).catch(() => {});
      throw new Cancelled();
    }
  }
  const put = async (/** @type {number} */ index, /** @type {Uint8Array<ArrayBuffer>} */ part) => {
    if (held.has(index)) return;
    // Cancelled meanwhile: the relay's copy goes too.
    if (!(await store.getMessage(m.id))) {
      await api.deleteAttachment(id).catch(() => {});
      throw new Cancelled();
    }
    await api.putAttachmentPart(id, index, part);
  };
  const digest = await sealParts(blob, unb64url(f.key), partSize, put, (bytes) => {
    t.done += bytes;
    moved(f.ref);
  });
  await api.finishAttachment(id, to);
  const done = await store.setFileFields(m.id, f.ref, { id, digest: b64url(digest) });
  if (!done) throw new Cancelled();
  return done;
}

/**
 * sealParts seals blob chunk by chunk under the attachment key raw and
 * cuts the ciphertext into the relay's parts of partSize bytes (the last
 * one shorter): each goes to put(index, part) in order, then its size to
 * advance. It returns the attachment's digest. A part at most is held
 * at a time.
 * @param {Blob} blob
 * @param {Uint8Array<ArrayBuffer>} raw
 * @param {number} partSize
 * @param {(index: number, part: Uint8Array<ArrayBuffer>) => Promise<unknown>} put
 * @param {(bytes: number) => void} advance
 */
export async function sealParts(blob, raw, partSize, put, advance) {
  const n = blob.size;
  const total = ac.sealedSize(n);
  const key = await ac.importKey(raw);
  const digest = new ac.Digest();
  // The part being filled, and where in the ciphertext it starts.
  let part = new Uint8Array(Math.min(partSize, total));
  let fill = 0;
  let index = 0;
  for (let i = 0; i < ac.chunks(n); i++) {
    const sealed = await ac.sealChunk(key, i, n, await ac.plainChunk(blob, i));
    await digest.add(sealed);
    for (let at = 0; at < sealed.length;) {
      const k = Math.min(sealed.length - at, part.length - fill);
      part.set(sealed.subarray(at, at + k), fill);
      fill += k;
      at += k;
      if (fill === part.length) {
        await put(index, part);
        advance(fill);
        index++;
        fill = 0;
        part = new Uint8Array(Math.max(0, Math.min(partSize, total - index * partSize)));
      }
    }
  }
  return digest.done();
}

// Why a download failed, in words: state is what its file records.
const failures = {
  digest: 'This file was changed on its way and does not match what the sender sent, so it is not shown.',
  gone: 'This file is no longer on the relay: it is deleted once every device got it, or after 45 days.',
  network: 'The download stopped: the relay cannot be reached.',
};

/** failureText is what a file whose download failed says. */
export function failureText(state) {
  return failures[state] || 'The download failed.';
}

/**
 * download fetches file f of message m, checks it and keeps it on this
 * device; the message's file records the outcome (got, or a failed
 * state). A download already under way in this tab is not started again.
 * @param {any} m
 * @param {any} f
 */
export async function download(m, f) {
  if (active.has(f.ref)) return;
  const total = ac.sealedSize(f.size);
  const ctl = new AbortController();
  const t = { dir: 'down', done: 0, total, abort: () => ctl.abort() };
  active.set(f.ref, t);
  moved(f.ref);
  let state = null;
  try {
    const key = await ac.importKey(unb64url(f.key));
    const opener = new ac.Opener(key, f.size, unb64url(f.digest), f.type);
    let tries = 0;
    while (opener.received < total) {
      try {
        const resp = await api.downloadAttachment(f.id, opener.received, ctl.signal);
        if (opener.received > 0 && resp.status !== 206) throw new Error('no range');
        const reader = resp.body.getReader();
        for (;;) {
          const { done, value } = await reader.read();
          if (done) break;
          await opener.push(value);
          t.done = opener.received;
          moved(f.ref);
        }
        if (opener.received < total) throw new api.ApiError(0, 'network', 'cut off');
      } catch (e) {
        if (ctl.signal.aborted) throw e;
        // A cut-off download resumes from where it stopped, three times
        // in a row at most without progress.
        if (e instanceof api.ApiError && api.transient(e) && ++tries <= 3) {
          await new Promise((r) => setTimeout(r, 1000 * tries));
          continue;
        }
        throw e;
      }
    }
    const blob = await opener.done();
    if (await store.keepDownloaded(m.id, f.ref, blob)) await confirm(m, f);
  } catch (e) {
    if (ctl.signal.aborted) state = 'cancelled';
    else if (e instanceof api.ApiError) state = e.code === 'unknown_attachment' ? 'gone' : api.transient(e) ? 'network' : 'failed';
    else state = ['size', 'digest', 'chunk', 'padding'].includes(e && e.message) ? 'digest' : 'failed';
    if (state !== 'cancelled') console.warn('transfer: a download failed (' + state + ')');
    // A download the person cancelled waits for their Download.
    await store.setFileFields(m.id, f.ref, { state });
  } finally {
    active.delete(f.ref);
    moved(f.ref);
    changed(m.chat);
  }
}

/**
 * confirm tells the relay that this device has file f of message m and
 * checked it: the relay deletes the attachment once every device it was
 * sent to said so (docs/protocol.md). Until it is told, it keeps it, and
 * a confirmation that failed is sent again when the file is next shown.
 * @param {any} m
 * @param {any} f
 */
export async function confirm(m, f) {
  try {
    await api.attachmentReceived(f.id);
  } catch (e) {
    // Gone already (expired, or deleted by its sender): nothing to tell.
    if (!(e instanceof api.ApiError && e.code === 'unknown_attachment')) return;
  }
  await store.setFileFields(m.id, f.ref, { confirmed: true });
}

/** cancel stops file ref's download under way in this tab. */
export function cancel(ref) {
  const t = active.get(ref);
  if (t && t.abort) t.abort();
}

/**
 * forget deletes at the relay the attachments of an own message deleted
 * for everyone: the relay would otherwise keep them until every device
 * fetched them or they expire. A failure leaves them to that.
 * @param {any} m
 */
export async function forget(m) {
  for (const f of m.files || []) {
    if (f.id && f.digest) await api.deleteAttachment(f.id).catch(() => {});
  }
}
