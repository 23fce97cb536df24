// storeimport.js: the store's write of a history brought from elsewhere
// (history.js: a backup file, or another device's archive), in one
// transaction: all of it or, if anything fails, nothing. What this device
// holds wins: a message already here stays as it is, a chat keeps its
// own key and notices; the archive adds what is missing, by id, so that
// nothing is shown twice and each chat keeps its order (docs/storage.md,
// "History archives").

import { tx, req, done, newChat, chatMessages, lockedBytes } from './storedb.js';
import { refreshPreview } from './storerows.js';
import { recount, supersedes, readPosition } from './readpos.js';

// The fields of an archived chat row this device takes when it has no
// row of its own for the chat; its notices and counts are its own.
const CHAT_FIELDS = ['title', 'publicKey', 'verified', 'keyChanged', 'read', 'readThere'];

function sameBytes(a, b) {
  return a instanceof Uint8Array && b instanceof Uint8Array && a.length === b.length && a.every((x, i) => x === b[i]);
}

/**
 * mergeChat brings what the archive knows of a chat into this device's
 * row: the contact's key and its verification where this device has no
 * key yet (or the same key), and the read position where the archive's
 * wins (readpos.js).
 * @param {any} ch this device's row, changed
 * @param {any} a the archive's row
 */
function mergeChat(ch, a) {
  if (a.publicKey instanceof Uint8Array) {
    if (!ch.publicKey) {
      ch.publicKey = a.publicKey;
      ch.verified = !!a.verified;
    } else if (sameBytes(ch.publicKey, a.publicKey) && a.verified) {
      ch.verified = true;
    }
  }
  if (a.title && !ch.title) ch.title = a.title;
  if (a.read && supersedes(a.read, readPosition(ch))) ch.read = a.read;
}

/**
 * importHistory writes the archive's chats, messages and files that this
 * device lacks, and returns how many messages and chats it added.
 * @param {{chat?: any, msg?: any, file?: any, data?: Uint8Array}[]} lines
 */
export async function importHistory(lines) {
  const t = await tx(['messages', 'chats', 'files'], 'readwrite');
  const ms = t.objectStore('messages');
  const cs = t.objectStore('chats');
  const fs = t.objectStore('files');
  const have = new Set(/** @type {string[]} */ (await req(ms.getAllKeys())));
  const added = new Set();
  const touched = new Set();
  const files = new Map();
  for (const l of lines) if (l.file) files.set(l.file.ref, l);
  for (const l of lines) {
    if (!l.msg || have.has(l.msg.id)) continue;
    const m = { ...l.msg };
    // A file's bytes come with the archive, or the device fetches them
    // from the relay while it still holds them.
    if (Array.isArray(m.files)) m.files = m.files.map((/** @type {any} */ f) => ({ ...f, got: files.has(f.ref) && files.get(f.ref).file.msg === m.id, confirmed: false, state: null }));
    ms.put(m);
    added.add(m.id);
    touched.add(m.chat);
  }
  for (const l of files.values()) {
    if (added.has(l.file.msg)) fs.put({ ref: l.file.ref, msg: l.file.msg, chat: l.file.chat, blob: lockedBytes(l.file.ref, /** @type {Uint8Array} */ (l.data), l.file.type || 'application/octet-stream') });
  }
  const archived = new Map();
  for (const l of lines) if (l.chat) archived.set(l.chat.username, l.chat);
  for (const name of new Set([...archived.keys(), ...touched])) {
    const local = await req(cs.get(name));
    const ch = local || newChat(name);
    const a = archived.get(name);
    if (a && !local) {
      for (const k of CHAT_FIELDS) if (a[k] !== undefined) ch[k] = a[k];
    } else if (a) {
      mergeChat(ch, a);
    }
    const msgs = (await chatMessages(ms, name)).filter((/** @type {any} */ m) => !m.kind);
    const last = msgs.filter((/** @type {any} */ m) => !m.hidden).pop();
    if (last && last.ts >= (ch.lastTs || 0)) {
      ch.lastTs = last.ts;
      ch.lastOut = last.dir === 'out' && !last.event;
      ch.lastFrom = last.event ? null : last.from;
    }
    refreshPreview(ch, msgs);
    recount(ch, msgs);
    cs.put(ch);
  }
  await done(t);
  return { messages: added.size, chats: touched.size };
}
