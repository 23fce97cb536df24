// storeread.js: the reads of the store (store.js exports them), each one
// readonly transaction, or the meta record it reads (storedb.js).

import { tx, req, chatMessages, getMeta } from './storedb.js';

export async function getChats() {
  const t = await tx(['chats']);
  const all = await req(t.objectStore('chats').getAll());
  return all.sort((a, b) => (b.lastTs || 0) - (a.lastTs || 0));
}

export async function getChat(username) {
  const t = await tx(['chats']);
  return req(t.objectStore('chats').get(username));
}

// getMessages returns a chat's messages in its order, without the
// records of the outbox.
export async function getMessages(chat) {
  const t = await tx(['messages']);
  return (await chatMessages(t.objectStore('messages'), chat)).filter((m) => !m.kind);
}

// outgoingRecords returns the records of the outbox of a chat, pending or
// failed, in its order: what the screens show before the relay took them.
export async function outgoingRecords(chat) {
  const t = await tx(['messages']);
  return (await chatMessages(t.objectStore('messages'), chat)).filter((m) => m.kind);
}

// unknownMessages are the rows of records this client did not know when
// they arrived.
export async function unknownMessages() {
  const t = await tx(['messages']);
  return (await req(t.objectStore('messages').getAll())).filter((m) => m.unknown);
}

// receiptsToSend returns the receipts waiting to be sent:
// {chat: {delivered: [ids], read: [ids]}}.
export async function receiptsToSend() {
  return (await getMeta('receipts')) || {};
}

export async function prefs() {
  return { readReceipts: true, ...((await getMeta('prefs')) || {}) };
}

export async function ignoredRecords() {
  return { forged: 0, invalid: 0, ...((await getMeta('ignored')) || {}) };
}

// metaKeys returns the keys of the meta records that begin with prefix.
export async function metaKeys(prefix) {
  const t = await tx(['meta']);
  return req(t.objectStore('meta').getAllKeys(IDBKeyRange.bound(prefix, prefix + '\uffff')));
}

export async function getMessage(id) {
  const t = await tx(['messages']);
  return req(t.objectStore('messages').get(id));
}

// unsentByChat tells, for each chat with outgoing messages not accepted
// by the relay, whether one of them failed ('failed') or they only wait
// ('pending').
export async function unsentByChat() {
  const t = await tx(['messages']);
  const all = await req(t.objectStore('messages').getAll());
  const out = {};
  for (const m of all) {
    if (m.dir !== 'out' || (m.status !== 'pending' && m.status !== 'failed')) continue;
    if (out[m.chat] !== 'failed') out[m.chat] = m.status;
  }
  return out;
}

// readRecordsToSend lists the read records the relay has not accepted yet.
export async function readRecordsToSend() {
  return Object.values((await getMeta('reads')) || {});
}

// waitingMessages are the received envelopes kept sealed until they can
// be decrypted, in seq order.
export async function waitingMessages() {
  const t = await tx(['messages']);
  const all = await req(t.objectStore('messages').getAll());
  return all.filter((m) => m.waiting).sort((a, b) => a.seq - b.seq);
}

// pendingMessages returns the outbox, of one chat or of all, in the chats'
// order: by the order key, ties by id.
export async function pendingMessages(chat) {
  const t = await tx(['messages']);
  const all = await req(t.objectStore('messages').getAll());
  return all.filter((m) => m.dir === 'out' && m.status === 'pending' && (chat === undefined || m.chat === chat))
    .sort((a, b) => a.sort - b.sort || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
}

// messageRows returns up to n rows of the messages store after the id
// after (from the first with null), in the order of their ids: the
// search index reads the whole store in such pieces (search.js).
export async function messageRows(after, n) {
  const t = await tx(['messages']);
  const range = after === null ? null : IDBKeyRange.lowerBound(after, true);
  return req(t.objectStore('messages').getAll(range, n));
}

// messageCount is how many rows the messages store holds.
export async function messageCount() {
  const t = await tx(['messages']);
  return req(t.objectStore('messages').count());
}
