// storeout.js: the store's writes of the outbox: a message or a record
// to send, its attempts, its cancellation, and what the relay answered.

import { tx, req, done, newChat, chatMessages } from './storedb.js';
import { refreshPreview, applyRecord, chatCache, previewOf, dropFiles } from './storerows.js';
import { startOnArrival } from './expiry.js';
import { applyTimer } from './storeexpire.js';

// writeOutgoing puts one message of the outbox, replacing the record of
// removeId (the same message under its old id) in the same transaction.
// With pendingOnly it writes only over a row still pending (removeId's,
// else m's own) and returns false otherwise: a message cancelled
// meanwhile is not brought back. The meta records of metas (an MLS
// group's next state, which sealed m) are written whatever it returns: a
// state that sealed something is never used again.
async function writeOutgoing(m, removeId, pendingOnly = false, metas = []) {
  const t = await tx(metas.length ? ['messages', 'chats', 'meta'] : ['messages', 'chats'], 'readwrite');
  const ms = t.objectStore('messages');
  for (const [k, v] of metas) t.objectStore('meta').put({ k, v });
  if (pendingOnly) {
    const before = await req(ms.get(removeId || m.id));
    if (!before || before.status !== 'pending') {
      await done(t);
      return false;
    }
  }
  if (removeId) ms.delete(removeId);
  // What records did to the stored row meanwhile (a receipt or a reaction
  // that came before this device heard its 202) stays.
  const stored = await req(ms.get(m.id));
  if (stored) {
    for (const f of ['tick', 'reactions']) if (stored[f] !== undefined) m = { ...m, [f]: stored[f] };
  }
  ms.put(m);
  if (m.kind) {
    await done(t);
    return true;
  }
  const cs = t.objectStore('chats');
  const ch = (await req(cs.get(m.chat))) || newChat(m.chat);
  // A message not attempted yet sorts last (Infinity); the chat list
  // places it at the time it was typed.
  const at = Number.isFinite(m.sort) ? m.sort : m.ts;
  if (at >= ch.lastTs) {
    ch.lastTs = at;
    ch.preview = previewOf(m);
    ch.lastOut = true;
  }
  cs.put(ch);
  await done(t);
  return true;
}

// putOutgoing records a message of the outbox as it is now: new, sealed,
// attempted, pending again.
export function putOutgoing(m) {
  return writeOutgoing(m);
}

// renewOutgoing replaces the record of oldId with m, the same message
// under a fresh id (ADR 0010), unless it was cancelled: it returns whether
// it did.
export function renewOutgoing(m, oldId) {
  return writeOutgoing(m, oldId, true);
}

// claimOutgoing records an attempt about to go, m with unanswered set,
// unless the message was cancelled: it returns whether it did. From then
// on the relay may hold it, and it can no longer be cancelled. metas are
// the meta records to write with it (the MLS group state that sealed it).
export function claimOutgoing(m, metas = []) {
  return writeOutgoing({ ...m, unanswered: true }, undefined, true, metas);
}

// cancelOutgoing deletes a message of the outbox before it goes
// (docs/storage.md, "Cancelling a message"), if no attempt of it may have
// reached the relay: none is under way, and each that ended had an answer
// that it was not accepted. It returns 'cancelled', 'sending' (an attempt
// may have reached the relay) or 'gone' (sent or deleted meanwhile).
export async function cancelOutgoing(id) {
  const t = await tx(['messages', 'chats', 'files'], 'readwrite');
  const ms = t.objectStore('messages');
  const cs = t.objectStore('chats');
  const m = await req(ms.get(id));
  let result = 'gone';
  if (m && m.dir === 'out' && !m.kind && m.status === 'pending') {
    result = m.unanswered ? 'sending' : 'cancelled';
  }
  if (result === 'cancelled') {
    ms.delete(id);
    dropFiles(t, m.files);
    const ch = await req(cs.get(m.chat));
    if (ch) {
      refreshPreview(ch, (await chatMessages(ms, m.chat)).filter((x) => x.id !== id));
      cs.put(ch);
    }
  }
  await done(t);
  return result;
}

// markSent records the relay's 202: its time becomes the message's shown
// time and its order key, as for every envelope received, so that the chat
// has one order on every device (docs/storage.md, "Order"). No sealed bytes
// are kept.
export function markSent(m, ts) {
  // One that disappears starts to now, from the relay's time of it.
  return writeOutgoing(startOnArrival({ ...m, status: 'sent', ts, sort: ts, error: null, body: null, bodyFor: null }));
}

// recordSent takes a record of the outbox that the relay accepted at ts
// out of the outbox and applies it to its target with its order key, as
// every device of both people applies it (docs/crypto.md, "Records").
export async function recordSent(m, ts, me) {
  const changed = new Set();
  const t = await tx(['meta', 'messages', 'chats', 'files'], 'readwrite');
  const ms = t.objectStore('messages');
  const cs = t.objectStore('chats');
  const { chatOf, putChats } = chatCache(cs);
  ms.delete(m.id);
  const key = { sort: ts, id: m.id };
  if (m.kind === 'timer') {
    // Its line takes the outbox row's place, under the same id.
    await applyTimer(ms, chatOf, { seconds: m.rec.seconds, key, author: me, chat: m.chat, msg: { ...m, ts, sort: ts } }, me, changed);
  } else {
    await applyRecord(ms, chatOf, { type: m.kind, ...m.rec }, { key, author: me, chat: m.chat, me }, changed);
  }
  putChats();
  await done(t);
}

// dropOutgoing takes a record out of the outbox unsent: the person
// discarded it after it failed.
export async function dropOutgoing(id) {
  const t = await tx(['messages'], 'readwrite');
  const ms = t.objectStore('messages');
  const m = await req(ms.get(id));
  if (m && m.kind && m.status !== 'sent') ms.delete(id);
  await done(t);
}

// markFailed records a refusal that waits for the person's Retry.
export function markFailed(m, error) {
  return writeOutgoing({ ...m, status: 'failed', error });
}

// markWaiting keeps a message pending, with the reason it is not sent yet.
export function markWaiting(m, error) {
  return writeOutgoing({ ...m, status: 'pending', error });
}
