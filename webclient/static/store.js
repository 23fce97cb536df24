// store.js: the browser's IndexedDB, and its only writer. Every other
// module reads through the functions below and changes what is stored only
// by asking for one of the operations at the end of this file, each one
// transaction (docs/storage.md). No other module opens the database or a
// readwrite transaction; TestOneWriterOfIndexedDB checks it.
//
// Stores:
//   meta      {k, v}: 'account' {username, publicKey, privateKey|null},
//                     'device' {id, publicKey, privateKey, name},
//                     'cursor' {lastSeq, epoch}: lastSeq null after a
//                     resync, until the next envelope or ready,
//                     'purge' {upTo, reason, at, dismissed}
//   messages  {id, chat, from, fromDevice, to, dir ('in'|'out'), text, ts,
//              sort, status, error, seq, tries, body, bodyFor, waiting,
//              undecryptable}; index 'chat' on [chat, sort]. body is the
//              sealed envelope in base64: of an outgoing message until its
//              202, of a received one that is waiting to decrypt or
//              undecryptable, for good.
//   chats     {username, lastTs, preview, lastOut, unread, read, late,
//              readThere, readAhead, publicKey, keyChanged, verified};
//              read is the read position {sort, id, v, base}, late the
//              ids behind it still unread, readThere the last position
//              taken from another device, readAhead ids read on another
//              device and not here yet (readpos.js); lastOut: the preview
//              is of a message sent from the account; verified: the person
//              marked the safety code of publicKey as compared, here
//   meta 'reads' {chat: {chat, upTo, sort, v, base, ids}}: read records
//              not yet accepted by the relay, the newest position of each
//              chat with the late ids seen since the last one sent
//   meta 'receipts' {chat: {delivered: [ids], read: [ids]}}: receipts to
//              send to the chat's other person, not yet accepted
//   meta 'prefs' {readReceipts}: this device's settings
//   meta 'ignored' {forged, invalid}: records not applied (docs/crypto.md)
// A message row also holds what records did to it (docs/storage.md,
// "Records"): replyTo, edited {sort, id}, deleted {sort, id}, reactions
// {emoji: {username: {on, sort, id}}}, tick ('delivered'|'read', of an
// outgoing message), hidden (deleted for me). A row with unknown: true
// keeps a record of a type this client does not know, as JSON in record.
// A row with kind ('edit'|'delete'|'reaction') is a record of the outbox,
// rec its fields: not a message, sent in the chat's order, applied to its
// target with the relay's ts once accepted.

import { ulidTime } from './ulid.js';
import { after } from './order.js';
import * as records from './records.js';
import { readPosition, supersedes, isUnread, countUnread, arrive, see, setSeen, unreadFrom, applyRead, recordOf } from './readpos.js';

const NAME = 'relay';
const VERSION = 1;
let dbp = null;

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
        db.createObjectStore('meta', { keyPath: 'k' });
        const m = db.createObjectStore('messages', { keyPath: 'id' });
        m.createIndex('chat', ['chat', 'sort']);
        db.createObjectStore('chats', { keyPath: 'username' });
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
        resolve(db);
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

function done(t) {
  return new Promise((resolve, reject) => {
    t.oncomplete = () => resolve();
    t.onerror = () => reject(t.error);
    t.onabort = () => reject(t.error || new Error('transaction aborted'));
  });
}

function req(r) {
  return new Promise((resolve, reject) => {
    r.onsuccess = () => resolve(r.result);
    r.onerror = () => reject(r.error);
  });
}

async function tx(stores, mode = 'readonly', create = false) {
  const db = await openDB(create);
  return db.transaction(stores, mode);
}

function newChat(username) {
  return { username, lastTs: 0, preview: '', unread: 0, read: { sort: 0, id: '', v: 0 } };
}

// ---- the order of a chat and read positions (docs/storage.md, "Read
// positions") ----

// after reports whether a comes after b in a chat's order: by the order key
// sort (the relay's ts), ties by id.
export { after };

// The read positions themselves are readpos.js's (pure functions).
export { readPosition, supersedes, isUnread };

async function chatMessages(ms, chat) {
  const range = IDBKeyRange.bound([chat, -Infinity], [chat, Infinity]);
  return req(ms.index('chat').getAll(range));
}

function sameBytes(a, b) {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

// ---- reads ----

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
  return r ? r.v : undefined;
}

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

// ---- writes: the only ones ----

async function putMeta(pairs, create = false) {
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

// previewOf is what the chat list shows of a message.
function previewOf(m) {
  if (m.waiting) return 'Waiting to decrypt…';
  if (m.undecryptable) return 'Could not decrypt';
  if (m.deleted) return 'This message was deleted';
  if (m.unknown) return 'Needs a newer version of the app';
  return m.text.slice(0, 80);
}

// refreshPreview sets the chat's preview from its last message shown,
// after an edit, a deletion or a "delete for me" changed it.
function refreshPreview(ch, msgs) {
  const last = msgs.filter((m) => !m.kind && !m.hidden).pop();
  ch.preview = last ? previewOf(last) : '';
}

// queueReceipts adds message ids to the receipts to send to chat's other
// person, within the meta transaction t. A read receipt stands for
// delivery too: its ids leave the delivered list.
async function queueReceipts(meta, chat, status, ids) {
  if (!ids.length) return;
  const all = ((await req(meta.get('receipts'))) || { v: {} }).v;
  const q = all[chat] || { delivered: [], read: [] };
  const add = new Set(ids);
  if (status === 'read') q.delivered = q.delivered.filter((id) => !add.has(id));
  const have = new Set(q[status]);
  for (const id of ids) if (!have.has(id)) q[status].push(id);
  all[chat] = q;
  meta.put({ k: 'receipts', v: all });
}

// countIgnored counts records not applied, within the meta transaction.
async function countIgnored(meta, why, n) {
  if (!n) return;
  const c = ((await req(meta.get('ignored'))) || { v: {} }).v;
  c[why] = (c[why] || 0) + n;
  meta.put({ k: 'ignored', v: c });
}

// applyRecord applies a record to the message it names, within the
// transaction of ms and chatOf: rec is {type, target|ids, …}, ctx
// {key, author, chat, me}. It returns 'applied', 'forged', or why it
// changed nothing (records.apply), and adds the chat to changed.
async function applyRecord(ms, chatOf, rec, ctx, changed) {
  const targets = rec.type === 'receipt' ? rec.ids : [rec.target];
  let outcome = 'missing';
  for (const id of targets) {
    const target = await req(ms.get(id));
    if (!target) continue;
    const r = records.apply(target, rec, ctx);
    if (r === 'forged') return 'forged';
    if (r !== 'applied') continue;
    outcome = 'applied';
    ms.put(target);
    changed.add(ctx.chat);
    if (rec.type === 'edit' || rec.type === 'delete') {
      const ch = await chatOf(ctx.chat);
      const msgs = (await chatMessages(ms, ctx.chat)).map((m) => (m.id === target.id ? target : m));
      refreshPreview(ch, msgs);
      if (rec.type === 'delete') ch.unread = countUnread(msgs, ch);
    }
  }
  return outcome;
}

// deliveredIds are the messages of a batch to send a delivery receipt
// for: new incoming messages from another person, opened.
function deliverable(m, me) {
  return m.dir === 'in' && m.from !== me && !m.waiting && !m.undecryptable && !m.unknown && !m.kind;
}

// addToChat counts a message just written into its chat. A message
// waiting to decrypt is not unread yet: it counts when it opens.
function addToChat(ch, m, pub) {
  if (pub && !ch.publicKey) ch.publicKey = pub;
  if (m.ts >= ch.lastTs) {
    ch.lastTs = m.ts;
    ch.preview = previewOf(m);
    ch.lastOut = m.dir === 'out';
  }
  arrive(ch, m);
}

// chatCache reads each chat of a transaction's store cs once: chatOf(u)
// returns the chat to change (a new one if there is none), putChats writes
// back every chat read.
function chatCache(cs) {
  const chats = new Map();
  return {
    chatOf: async (u) => {
      if (!chats.has(u)) chats.set(u, (await req(cs.get(u))) || newChat(u));
      return chats.get(u);
    },
    putChats: () => {
      for (const ch of chats.values()) cs.put(ch);
    },
  };
}

// storeBatch writes what a batch of envelopes decrypted to (messages,
// sealed ones waiting to decrypt, read positions) together with the stream
// cursor ({lastSeq, epoch}), in one transaction (ADR 0013): the caller ACKs only after it
// resolved. A known message id changes nothing. A notice of envelopes the
// relay no longer has ({upTo, reason}) is kept in the same transaction,
// unless one as far already was. It returns the chats that changed and
// whether the notice was kept.
export async function storeBatch(results, cursor, notice, me) {
  const changed = new Set();
  const t = await tx(['meta', 'messages', 'chats'], 'readwrite');
  const ms = t.objectStore('messages');
  const cs = t.objectStore('chats');
  const meta = t.objectStore('meta');
  const { chatOf, putChats } = chatCache(cs);
  const delivered = new Map(); // chat -> ids to send a delivery receipt for
  const ignored = { forged: 0, invalid: 0 };
  const forged = [];
  for (const r of results) {
    if (r.kind === 'message') {
      const m = r.msg;
      // A known id is ignored entirely: no overwrite, no unread change.
      if (await req(ms.get(m.id))) continue;
      const pub = m.pub;
      delete m.pub;
      ms.put(m);
      addToChat(await chatOf(m.chat), m, pub);
      changed.add(m.chat);
      if (deliverable(m, me)) delivered.set(m.chat, [...(delivered.get(m.chat) || []), m.id]);
    } else if (r.kind === 'record') {
      const outcome = await applyRecord(ms, chatOf, r.rec, { key: r.key, author: r.author, chat: r.chat, me }, changed);
      if (outcome === 'forged') {
        ignored.forged++;
        forged.push(r.rec.type);
      }
    } else if (r.kind === 'invalid') {
      ignored.invalid++;
    } else if (r.kind === 'read') {
      const ch = await chatOf(r.chat);
      let sort = r.sort;
      if (sort === null) {
        // A record without an order key names a message: take its key.
        const m = r.upTo && (await req(ms.get(r.upTo)));
        sort = m ? m.sort : r.upTo ? ulidTime(r.upTo) : 0;
      }
      if (applyRead(ch, await chatMessages(ms, r.chat), { ...r, sort })) changed.add(r.chat);
    }
  }
  putChats();
  for (const [chat, ids] of delivered) await queueReceipts(meta, chat, 'delivered', ids);
  await countIgnored(meta, 'forged', ignored.forged);
  await countIgnored(meta, 'invalid', ignored.invalid);
  meta.put({ k: 'cursor', v: cursor });
  let noticed = false;
  if (notice) {
    const seen = await req(meta.get('purge'));
    if (!seen || seen.v.upTo < notice.upTo) {
      meta.put({ k: 'purge', v: { ...notice, dismissed: false } });
      noticed = true;
    }
  }
  await done(t);
  return { changed, noticed, receipts: delivered.size > 0, forged };
}

// resolveWaiting replaces messages that were waiting to decrypt, each
// {id, msg}: msg is the message it opened to, or the same one flagged
// undecryptable for good, or null for a record this client does not show.
// An id no longer waiting (another tab resolved it) changes nothing, so a
// message is counted and shown once. It returns the chats that changed.
export async function resolveWaiting(results, me) {
  return replaceRows(results, me, (old) => old.waiting);
}

// resolveUnknown replaces rows of records of a type unknown when they
// arrived, now that this client reads them, as resolveWaiting does.
export async function resolveUnknown(results, me) {
  return replaceRows(results, me, (old) => old.unknown);
}

// replaceRows replaces stored rows that still are what still(old) says,
// each by {id, msg} (a message, or a row kept again) or {id, record} (a
// record to apply, then the row goes) or {id} (nothing to show). A row no
// longer so (another tab resolved it) changes nothing, so a message is
// counted and shown once. It returns the chats that changed.
async function replaceRows(results, me, still) {
  const changed = new Set();
  const t = await tx(['meta', 'messages', 'chats'], 'readwrite');
  const ms = t.objectStore('messages');
  const cs = t.objectStore('chats');
  const meta = t.objectStore('meta');
  const { chatOf, putChats } = chatCache(cs);
  let forged = 0;
  for (const { id, msg, record } of results) {
    const old = await req(ms.get(id));
    if (!old || !still(old)) continue;
    changed.add(old.chat);
    ms.delete(id);
    if (record) {
      if ((await applyRecord(ms, chatOf, record.rec, { key: record.key, author: record.author, chat: record.chat, me }, changed)) === 'forged') forged++;
      continue;
    }
    if (!msg) continue;
    const pub = msg.pub;
    delete msg.pub;
    ms.put(msg);
    addToChat(await chatOf(msg.chat), msg, pub);
    if (deliverable(msg, me)) await queueReceipts(meta, msg.chat, 'delivered', [msg.id]);
  }
  putChats();
  await countIgnored(meta, 'forged', forged);
  await done(t);
  return changed;
}

// writeOutgoing puts one message of the outbox, replacing the record of
// removeId (the same message under its old id) in the same transaction.
// With pendingOnly it writes only over a row still pending (removeId's,
// else m's own) and returns false otherwise: a message cancelled
// meanwhile is not brought back.
async function writeOutgoing(m, removeId, pendingOnly = false) {
  const t = await tx(['messages', 'chats'], 'readwrite');
  const ms = t.objectStore('messages');
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
    ch.preview = m.text.slice(0, 80);
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
// on the relay may hold it, and it can no longer be cancelled.
export function claimOutgoing(m) {
  return writeOutgoing({ ...m, unanswered: true }, undefined, true);
}

// cancelOutgoing deletes a message of the outbox before it goes
// (docs/storage.md, "Cancelling a message"), if no attempt of it may have
// reached the relay: none is under way, and each that ended had an answer
// that it was not accepted. It returns 'cancelled', 'sending' (an attempt
// may have reached the relay) or 'gone' (sent or deleted meanwhile).
export async function cancelOutgoing(id) {
  const t = await tx(['messages', 'chats'], 'readwrite');
  const ms = t.objectStore('messages');
  const cs = t.objectStore('chats');
  const m = await req(ms.get(id));
  let result = 'gone';
  if (m && m.dir === 'out' && !m.kind && m.status === 'pending') {
    result = m.unanswered ? 'sending' : 'cancelled';
  }
  if (result === 'cancelled') {
    ms.delete(id);
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
  return writeOutgoing({ ...m, status: 'sent', ts, sort: ts, error: null, body: null, bodyFor: null });
}

// recordSent takes a record of the outbox that the relay accepted at ts
// out of the outbox and applies it to its target with its order key, as
// every device of both people applies it (docs/crypto.md, "Records").
export async function recordSent(m, ts, me) {
  const changed = new Set();
  const t = await tx(['meta', 'messages', 'chats'], 'readwrite');
  const ms = t.objectStore('messages');
  const cs = t.objectStore('chats');
  const { chatOf, putChats } = chatCache(cs);
  ms.delete(m.id);
  await applyRecord(ms, chatOf, { type: m.kind, ...m.rec }, { key: { sort: ts, id: m.id }, author: me, chat: m.chat, me }, changed);
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

// hideMessage deletes a message on this device only ("Delete for me"):
// its row stays hidden, so that a replay of it is still known and not
// shown again.
export async function hideMessage(id) {
  const t = await tx(['messages', 'chats'], 'readwrite');
  const ms = t.objectStore('messages');
  const cs = t.objectStore('chats');
  const m = await req(ms.get(id));
  if (m && !m.kind && !m.hidden) {
    m.hidden = true;
    ms.put(m);
    const ch = await req(cs.get(m.chat));
    if (ch) {
      const msgs = (await chatMessages(ms, m.chat)).map((x) => (x.id === id ? m : x));
      refreshPreview(ch, msgs);
      ch.unread = countUnread(msgs, ch);
      cs.put(ch);
    }
  }
  await done(t);
  return m ? m.chat : null;
}

export function setPrefs(p) {
  return putMeta([['prefs', p]]);
}

// receiptsSent forgets receipts the relay accepted.
export async function receiptsSent(chat, status, ids) {
  const t = await tx(['meta'], 'readwrite');
  const meta = t.objectStore('meta');
  const all = ((await req(meta.get('receipts'))) || { v: {} }).v;
  const q = all[chat];
  if (q) {
    const sent = new Set(ids);
    q[status] = q[status].filter((id) => !sent.has(id));
    if (!q.delivered.length && !q.read.length) delete all[chat];
    meta.put({ k: 'receipts', v: all });
  }
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

// setContactKey records the contact's key from the directory. A key that
// differs from the stored one flags the chat until acceptContactKey. It
// returns whether the key was replaced and whether the chat is flagged.
export async function setContactKey(username, pub) {
  const t = await tx(['chats'], 'readwrite');
  const cs = t.objectStore('chats');
  const ch = (await req(cs.get(username))) || newChat(username);
  const replaced = !!ch.publicKey && !sameBytes(ch.publicKey, pub);
  // A verification was of the old key's safety code: it goes with it.
  if (replaced) {
    ch.keyChanged = true;
    ch.verified = false;
  }
  ch.publicKey = pub;
  cs.put(ch);
  await done(t);
  return { replaced, keyChanged: !!ch.keyChanged };
}

export async function acceptContactKey(username) {
  const t = await tx(['chats'], 'readwrite');
  const cs = t.objectStore('chats');
  const ch = await req(cs.get(username));
  if (ch) {
    ch.keyChanged = false;
    cs.put(ch);
  }
  await done(t);
}

// setVerified records that the person compared the chat's safety code
// (on) or takes that back (off). It is of this device only, and of the
// key stored now: setContactKey clears it when the key changes.
export async function setVerified(username, on) {
  const t = await tx(['chats'], 'readwrite');
  const cs = t.objectStore('chats');
  const ch = await req(cs.get(username));
  if (ch && ch.publicKey) {
    ch.verified = !!on;
    cs.put(ch);
  }
  await done(t);
  return !!(ch && ch.publicKey);
}

// moveReadPosition changes the chat's read position by decide(ch, msgs),
// which changes ch and returns the late ids seen, or null when nothing
// changed; it recounts the unread messages and keeps the read record to
// send until the relay has accepted it (readRecordSent), in one
// transaction. A newer position of a chat replaces its unsent older one,
// and the late ids of both are sent together. With receipts, the messages
// of the other person that became read get a read receipt, if this device
// sends them (docs/crypto.md, "Records").
async function moveReadPosition(username, decide, receipts = false) {
  const t = await tx(['meta', 'messages', 'chats'], 'readwrite');
  const cs = t.objectStore('chats');
  const meta = t.objectStore('meta');
  const ch = await req(cs.get(username));
  let advanced = false;
  let receipted = false;
  if (ch) {
    const msgs = await chatMessages(t.objectStore('messages'), username);
    const before = new Set(msgs.filter((m) => isUnread(m, ch)).map((m) => m.id));
    const lateSeen = decide(ch, msgs);
    if (lateSeen) {
      advanced = true;
      cs.put(ch);
      const out = ((await req(meta.get('reads'))) || { v: {} }).v;
      out[username] = recordOf(username, ch, out[username], lateSeen);
      meta.put({ k: 'reads', v: out });
      const p = { readReceipts: true, ...(((await req(meta.get('prefs'))) || {}).v || {}) };
      const ids = msgs.filter((m) => before.has(m.id) && !isUnread(m, ch) && m.from === username && !m.undecryptable).map((m) => m.id);
      if (receipts && p.readReceipts && ids.length) {
        await queueReceipts(meta, username, 'read', ids);
        receipted = true;
      }
    }
  }
  await done(t);
  return { advanced, receipted };
}

// markSeen reads the messages ids of the chat, seen on this device's
// screen (readpos.js): the position moves to the newest of them, a late
// one is read itself. It returns whether the chat changed.
export function markSeen(username, ids) {
  return moveReadPosition(username, (ch, msgs) => {
    const d = see(ch, msgs, ids);
    return setSeen(ch, msgs, d) ? d.lateSeen : null;
  }, true);
}

// markUnread moves the chat's read position back to pos {sort, id}, with a
// higher v, so that the account's other devices take it over a later
// position they hold.
export function markUnread(username, pos) {
  return moveReadPosition(username, (ch, msgs) => {
    unreadFrom(ch, msgs, pos);
    return [];
  });
}

// readRecordSent forgets a read record the relay accepted, unless a newer
// position of its chat replaced it meanwhile.
export async function readRecordSent(rec) {
  const t = await tx(['meta'], 'readwrite');
  const meta = t.objectStore('meta');
  const out = ((await req(meta.get('reads'))) || { v: {} }).v;
  const cur = out[rec.chat];
  if (cur && JSON.stringify(cur) === JSON.stringify(rec)) {
    delete out[rec.chat];
    meta.put({ k: 'reads', v: out });
  }
  await done(t);
}
