// storerows.js: what the store's writes share, each within a transaction
// its caller opened: a chat's preview, the receipts to send, a record
// applied to its message, and the chats of a transaction read once. It
// opens no transaction itself.

import * as records from './records.js';
import { recount, arrive } from './readpos.js';
import { isGroup } from './groupmeta.js';
import { req, newChat, chatMessages } from './storedb.js';

// previewOf is what the chat list shows of a message.
export function previewOf(m) {
  if (m.event) return m.line || '';
  if (m.waiting) return 'Waiting to decrypt…';
  if (m.downgrade) return 'Refused message';
  if (m.undecryptable) return 'Could not decrypt';
  if (m.deleted) return 'This message was deleted';
  if (m.unknown) return 'Needs a newer version of the app';
  if (m.files && m.files.length) return (m.text ? '📎 ' + m.text : '📎 ' + records.filesLabel(m.files)).slice(0, 80);
  return m.text.slice(0, 80);
}

// addToChat counts a message just written into its chat. A message
// waiting to decrypt is not unread yet: it counts when it opens.
export function addToChat(ch, m, pub) {
  if (pub && !ch.publicKey) ch.publicKey = pub;
  if (m.ts >= ch.lastTs) {
    ch.lastTs = m.ts;
    ch.preview = previewOf(m);
    ch.lastOut = m.dir === 'out' && !m.event;
    // A group chat's list row says who wrote its last message.
    ch.lastFrom = m.event ? null : m.from;
  }
  // A group chat's name, as the line of the last change this device
  // applied says: lines come in the order of the group's epochs (a line
  // applied after a welcome may be older than it).
  if (m.title) ch.title = m.title;
  arrive(ch, m);
}

// refreshPreview sets the chat's preview from its last message shown,
// after an edit, a deletion or a "delete for me" changed it.
export function refreshPreview(ch, msgs) {
  const last = msgs.filter((m) => !m.kind && !m.hidden).pop();
  ch.preview = last ? previewOf(last) : '';
}

// receiptKey is where the receipts of a message from author in chat
// wait: the chat's, or in a group chat the chat's and author's (a
// receipt goes to the message's author alone), as "<chat> <author>".
export function receiptKey(chat, author) {
  return isGroup(chat) ? chat + ' ' + author : chat;
}

// queueReceipts adds message ids to the receipts to send to chat's other
// person (a group chat's: to author, whose messages they all are), within
// the meta transaction t. A read receipt stands for delivery too: its ids
// leave the delivered list.
export async function queueReceipts(meta, chat, status, ids, author = chat) {
  if (!ids.length) return;
  const key = receiptKey(chat, author);
  const all = ((await req(meta.get('receipts'))) || { v: {} }).v;
  const q = all[key] || { delivered: [], read: [] };
  const add = new Set(ids);
  if (status === 'read') q.delivered = q.delivered.filter((id) => !add.has(id));
  const have = new Set(q[status]);
  for (const id of ids) if (!have.has(id)) q[status].push(id);
  all[key] = q;
  meta.put({ k: 'receipts', v: all });
}

// applyRecord applies a record to the message it names, within the
// transaction of ms and chatOf: rec is {type, target|ids, …}, ctx
// {key, author, chat, me}. It returns 'applied', 'forged', or why it
// changed nothing (records.apply), and adds the chat to changed.
export async function applyRecord(ms, chatOf, rec, ctx, changed) {
  const targets = rec.type === 'receipt' ? rec.ids : rec.target ? [rec.target] : [];
  let outcome = 'missing';
  for (const id of targets) {
    const target = await req(ms.get(id));
    if (!target) continue;
    const files = target.files;
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
      if (rec.type === 'delete') {
        recount(ch, msgs);
        dropFiles(ms.transaction, files);
      }
    }
  }
  return outcome;
}

// dropFiles deletes the bytes this device keeps of files (a message's,
// deleted for everyone or for me, or cancelled), within transaction t,
// which spans the 'files' store.
export function dropFiles(t, files) {
  if (!files || !files.length) return;
  const fs = t.objectStore('files');
  for (const f of files) fs.delete(f.ref);
}

// chatCache reads each chat of a transaction's store cs once: chatOf(u)
// returns the chat to change (a new one if there is none), putChats writes
// back every chat read.
export function chatCache(cs) {
  const chats = new Map();
  return {
    chatOf: async (u) => {
      if (!chats.has(u)) chats.set(u, (await req(cs.get(u))) || newChat(u));
      return chats.get(u);
    },
    // peek reads a chat without making one: null when there is none.
    peek: async (u) => (chats.has(u) ? chats.get(u) : (await req(cs.get(u))) || null),
    putChats: () => {
      for (const ch of chats.values()) cs.put(ch);
    },
  };
}
