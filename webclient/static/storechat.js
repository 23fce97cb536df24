// storechat.js: the store's writes of a chat's own state: the contact's
// key and its verification, the read position and the read records and
// receipts the relay accepted, and "delete for me".

import { isUnread, recount, see, setSeen, unreadFrom, recordOf } from './readpos.js';
import { tx, req, done, newChat, chatMessages } from './storedb.js';
import { refreshPreview, queueReceipts, dropFiles } from './storerows.js';
import { isGroup } from './groupmeta.js';
import { startRead } from './expiry.js';

function sameBytes(a, b) {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
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

// setNotice records when something the chat tells until dismissed
// happened (null: the person dismissed it): 'rejoined', this device
// rejoined the chat's MLS group after it fell behind; 'refused', a member
// whose credential did not check was refused; 'behind', this device is
// stuck behind in a group chat's group until a member adds it again.
export async function setNotice(username, kind, at) {
  const t = await tx(['chats'], 'readwrite');
  const cs = t.objectStore('chats');
  const ch = await req(cs.get(username));
  if (ch && (kind === 'rejoined' || kind === 'refused' || kind === 'behind')) {
    ch[kind] = at;
    cs.put(ch);
  }
  await done(t);
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
      // What disappears starts to once read here.
      const now = Date.now();
      for (const m of startRead(ch, msgs, now)) t.objectStore('messages').put(m);
      const out = ((await req(meta.get('reads'))) || { v: {} }).v;
      out[username] = recordOf(username, ch, out[username], lateSeen, now);
      meta.put({ k: 'reads', v: out });
      const p = { readReceipts: true, ...(((await req(meta.get('prefs'))) || {}).v || {}) };
      // In a group chat, each author's messages are acknowledged to them.
      const read = msgs.filter((m) => before.has(m.id) && !isUnread(m, ch) && !m.undecryptable && !m.event && (isGroup(username) ? m.dir === 'in' : m.from === username));
      const byAuthor = new Map();
      for (const m of read) byAuthor.set(m.from, [...(byAuthor.get(m.from) || []), m.id]);
      if (receipts && p.readReceipts && byAuthor.size) {
        for (const [author, ids] of byAuthor) await queueReceipts(meta, username, 'read', ids, author);
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

// hideMessage deletes a message on this device only ("Delete for me"):
// its row stays hidden, so that a replay of it is still known and not
// shown again.
export async function hideMessage(id) {
  const t = await tx(['messages', 'chats', 'files'], 'readwrite');
  const ms = t.objectStore('messages');
  const cs = t.objectStore('chats');
  const m = await req(ms.get(id));
  if (m && !m.kind && !m.hidden) {
    m.hidden = true;
    ms.put(m);
    dropFiles(t, m.files);
    const ch = await req(cs.get(m.chat));
    if (ch) {
      const msgs = (await chatMessages(ms, m.chat)).map((x) => (x.id === id ? m : x));
      refreshPreview(ch, msgs);
      recount(ch, msgs);
      cs.put(ch);
    }
  }
  await done(t);
  return m ? m.chat : null;
}
