// storeexpire.js: the store's writes of disappearing messages: a chat's
// timer record applied with its line, and the sweep that erases the
// messages whose time is up (expiry.js says what each means).

import { tx, req, done, chatMessages, NoDatabase } from './storedb.js';
import { refreshPreview, dropFiles, addToChat } from './storerows.js';
import { recount } from './readpos.js';
import { erase, takeTimer, timerLine } from './expiry.js';

/**
 * applyTimer applies a timer record, within the transaction of ms and
 * chatOf: r is {seconds, key: {sort, id}, author, chat, msg}, msg the
 * envelope's row ({id, chat, from, dir, ts, sort, …}). Its line is written
 * under the record's id, once (a replay changes nothing), and the chat
 * takes the timer if it is the last in the chat's order.
 * @param {IDBObjectStore} ms
 * @param {(u: string) => Promise<any>} chatOf
 * @param {{seconds: number, key: {sort: number, id: string}, author: string, chat: string, msg: any}} r
 * @param {string} me
 * @param {Set<string>} changed
 */
export async function applyTimer(ms, chatOf, r, me, changed) {
  if (await req(ms.get(r.key.id))) return;
  const line = {
    id: r.key.id, chat: r.chat, from: r.author, fromDevice: r.msg.fromDevice || null, to: r.msg.to || r.chat, dir: r.author === me ? 'out' : 'in',
    ts: r.msg.ts, sort: r.key.sort, seq: r.msg.seq ?? null, status: 'sent', text: null,
    event: { timer: r.seconds, by: r.author }, line: timerLine(r.author, r.seconds, me),
  };
  ms.put(line);
  const ch = await chatOf(r.chat);
  addToChat(ch, line);
  takeTimer(ch, r.seconds, r.key, r.author);
  changed.add(r.chat);
}

/**
 * expireDue erases every message whose time to disappear is up by now,
 * with the bytes of its files, in one transaction, and returns the chats
 * that changed, the attachments this device never confirmed to the relay
 * (confirmed now, so that it does not wait for this device), and when the
 * next message is due (null: none).
 * @param {number} now
 * @returns {Promise<{changed: Set<string>, confirm: string[], next: number | null}>}
 */
export async function expireDue(now) {
  const changed = new Set();
  const confirm = [];
  const t = await tx(['messages', 'chats', 'files'], 'readwrite');
  const ms = t.objectStore('messages');
  const cs = t.objectStore('chats');
  for (const m of await req(ms.index('expireAt').getAll(IDBKeyRange.upperBound(now)))) {
    ms.put(erase(m, now));
    dropFiles(t, m.files);
    for (const f of m.files || []) if (f.id && f.digest && !f.confirmed) confirm.push(f.id);
    changed.add(m.chat);
  }
  for (const chat of changed) {
    const ch = await req(cs.get(chat));
    if (!ch) continue;
    const msgs = await chatMessages(ms, chat);
    refreshPreview(ch, msgs);
    recount(ch, msgs);
    cs.put(ch);
  }
  const next = await firstDue(ms);
  await done(t);
  return { changed, confirm, next };
}

/**
 * nextExpiry is when the next message disappears, or null: none will, or
 * there is no database.
 * @returns {Promise<number | null>}
 */
export async function nextExpiry() {
  try {
    return await firstDue((await tx(['messages'])).objectStore('messages'));
  } catch (e) {
    if (e instanceof NoDatabase) return null;
    throw e;
  }
}

async function firstDue(ms) {
  const c = await req(ms.index('expireAt').openKeyCursor());
  return c ? /** @type {number} */ (c.key) : null;
}
