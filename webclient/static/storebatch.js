// storebatch.js: the store's writes of what the stream brings: a batch
// with its cursor (ADR 0013), and the rows kept waiting or unknown when
// they can be read at last.

import { ulidTime } from './ulid.js';
import { applyRead, recount } from './readpos.js';
import { startOnArrival, startRead, due, erase } from './expiry.js';
import { applyTimer } from './storeexpire.js';
import { tx, req, done, chatMessages, dropKeyPackages } from './storedb.js';
import { queueReceipts, receiptKey, applyRecord, chatCache, addToChat, refreshPreview, dropFiles } from './storerows.js';
import { blockCheck, blockedRow, applyBlock } from './storeblock.js';
import { isGroup } from './groupmeta.js';

// countIgnored counts records not applied, within the meta transaction.
async function countIgnored(meta, why, n) {
  if (!n) return;
  const c = ((await req(meta.get('ignored'))) || { v: {} }).v;
  c[why] = (c[why] || 0) + n;
  meta.put({ k: 'ignored', v: c });
}

// deliveredIds are the messages of a batch to send a delivery receipt
// for: new incoming messages from another person, opened.
function deliverable(m, me) {
  return m.dir === 'in' && m.from !== me && !m.waiting && !m.undecryptable && !m.unknown && !m.kind && !m.event;
}

// storeBatch writes what a batch of envelopes decrypted to (messages,
// sealed ones waiting to decrypt, read positions) together with the stream
// cursor ({lastSeq, epoch}), in one transaction (ADR 0013): the caller ACKs only after it
// resolved. A known message id changes nothing. A notice of envelopes the
// relay no longer has ({upTo, reason}) is kept in the same transaction,
// unless one as far already was. groups is what the batch changed of the
// MLS groups ({puts: meta records, dropKeyPackages}, mlschat.js): written
// in the same transaction, so a state moves on only with what it opened.
// It returns the chats that changed, whether the notice was kept, and the
// attachments of messages gone on arrival (to confirm to the relay, which
// would otherwise wait for this device to fetch them).
export async function storeBatch(results, cursor, notice, me, groups = { puts: [], deletes: [], dropKeyPackages: [] }) {
  const changed = new Set();
  let history = false;
  const now = Date.now();
  const t = await tx(['meta', 'messages', 'chats', 'files'], 'readwrite');
  const ms = t.objectStore('messages');
  const cs = t.objectStore('chats');
  const meta = t.objectStore('meta');
  const { chatOf, putChats, peek } = chatCache(cs);
  const blocked = blockCheck(peek, me);
  const delivered = new Map(); // receipt key -> {chat, author, ids} to send a delivery receipt for
  const ignored = { forged: 0, invalid: 0 };
  const forged = [];
  const confirm = []; // attachments of messages gone on arrival
  for (const r of results) {
    if (r.kind === 'message') {
      const m = r.msg;
      // A known id is ignored entirely: no overwrite, no unread change.
      if (await req(ms.get(m.id))) continue;
      const pub = m.pub;
      delete m.pub;
      // From a blocked contact: never shown, counted or acknowledged.
      if (m.dir === 'in' && !m.event && (await blocked(m.from, m.ts))) {
        ms.put(blockedRow(m));
        for (const f of m.files || []) if (f.id && f.digest) confirm.push(f.id);
        continue;
      }
      const ch = await chatOf(m.chat);
      // An own message whose time is up already (this device was away)
      // is kept as gone, never shown.
      if (due(startOnArrival(m), now)) {
        ms.put(erase(m, now));
        for (const f of m.files || []) if (f.id && f.digest) confirm.push(f.id);
        changed.add(m.chat);
        continue;
      }
      addToChat(ch, m, pub);
      startRead(ch, [m], now);
      ms.put(m);
      changed.add(m.chat);
      if (deliverable(m, me)) {
        const k = receiptKey(m.chat, m.from);
        if (!delivered.has(k)) delivered.set(k, { chat: m.chat, author: m.from, ids: [] });
        delivered.get(k).ids.push(m.id);
      }
    } else if (r.kind === 'record') {
      if (await blocked(r.author, r.key.sort)) continue;
      const outcome = await applyRecord(ms, chatOf, r.rec, { key: r.key, author: r.author, chat: r.chat, me }, changed);
      if (outcome === 'forged') {
        ignored.forged++;
        forged.push(r.rec.type);
      }
    } else if (r.kind === 'timer') {
      // A group's timer is the group's: every member applies it.
      if (!isGroup(r.chat) && (await blocked(r.author, r.key.sort))) continue;
      await applyTimer(ms, chatOf, r, me, changed);
    } else if (r.kind === 'block') {
      if (r.chat === me) continue;
      for (const c of await applyBlock(t, chatOf, r, confirm)) changed.add(c);
    } else if (r.kind === 'history') {
      // A history transfer's body (historyxfer.js): kept with the batch's
      // cursor, so that it is acted on even if the page closes now. A
      // request for it again waits in its own record.
      const k = r.offer.kind === 4 ? 'historyAsk' : 'historyIn';
      const cur = (await req(meta.get(k))) || null;
      // Only a newer envelope (ids are in time order) replaces what is
      // kept: a replay does not start a finished transfer again.
      if (!cur || r.offer.envelope > cur.v.envelope) meta.put({ k, v: r.offer });
      history = true;
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
      const msgs = await chatMessages(ms, r.chat);
      if (applyRead(ch, msgs, { ...r, sort })) changed.add(r.chat);
      // What it read starts to disappear from when it was read there;
      // what is due already goes now, never shown here.
      let gone = false;
      for (const m of startRead(ch, msgs, Math.min(r.at ?? now, now))) {
        if (!due(m, now)) {
          ms.put(m);
          continue;
        }
        ms.put(erase(m, now));
        dropFiles(t, m.files);
        for (const f of m.files || []) if (f.id && f.digest && !f.confirmed) confirm.push(f.id);
        gone = true;
      }
      if (gone) {
        const left = await chatMessages(ms, r.chat);
        refreshPreview(ch, left);
        recount(ch, left);
      }
    }
  }
  putChats();
  for (const { chat, author, ids } of delivered.values()) await queueReceipts(meta, chat, 'delivered', ids, author);
  await countIgnored(meta, 'forged', ignored.forged);
  await countIgnored(meta, 'invalid', ignored.invalid);
  for (const k of groups.deletes) meta.delete(k);
  for (const [k, v] of groups.puts) meta.put({ k, v });
  await dropKeyPackages(meta, groups.dropKeyPackages);
  // null: not a batch of the stream (welcomes joined later, inbox.js).
  if (cursor) meta.put({ k: 'cursor', v: cursor });
  let noticed = false;
  if (notice) {
    const seen = await req(meta.get('purge'));
    if (!seen || seen.v.upTo < notice.upTo) {
      meta.put({ k: 'purge', v: { ...notice, dismissed: false } });
      noticed = true;
    }
  }
  await done(t);
  return { changed, noticed, receipts: delivered.size > 0, forged, history, confirm };
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
  const t = await tx(['meta', 'messages', 'chats', 'files'], 'readwrite');
  const ms = t.objectStore('messages');
  const cs = t.objectStore('chats');
  const meta = t.objectStore('meta');
  const { chatOf, putChats, peek } = chatCache(cs);
  const blocked = blockCheck(peek, me);
  let forged = 0;
  for (const { id, msg, record } of results) {
    const old = await req(ms.get(id));
    if (!old || !still(old)) continue;
    changed.add(old.chat);
    ms.delete(id);
    if (record && record.author && (await blocked(record.author, record.key.sort)) && (record.kind !== 'timer' || !isGroup(record.chat))) continue;
    if (record && record.kind === 'timer') {
      await applyTimer(ms, chatOf, record, me, changed);
      continue;
    }
    if (record) {
      if ((await applyRecord(ms, chatOf, record.rec, { key: record.key, author: record.author, chat: record.chat, me }, changed)) === 'forged') forged++;
      continue;
    }
    if (!msg) continue;
    const pub = msg.pub;
    delete msg.pub;
    if (msg.dir === 'in' && !msg.event && (await blocked(msg.from, msg.ts))) {
      ms.put(blockedRow(msg));
      continue;
    }
    const now = Date.now();
    if (due(startOnArrival(msg), now)) {
      ms.put(erase(msg, now));
      continue;
    }
    const ch = await chatOf(msg.chat);
    addToChat(ch, msg, pub);
    startRead(ch, [msg], now);
    ms.put(msg);
    if (deliverable(msg, me)) await queueReceipts(meta, msg.chat, 'delivered', [msg.id], msg.from);
  }
  putChats();
  await countIgnored(meta, 'forged', forged);
  await done(t);
  return changed;
}
