// storeblock.js: blocking a contact (docs/storage.md, "Blocks"). A
// contact's block is its one-to-one chat row's block {on, at, sent}: on
// from at (Unix ms, the blocking device's clock) until a later record says
// otherwise, and sent once the record to the account's other devices was
// accepted. What the contact sends at or after at (by the relay's ts) is
// dropped on every device of the account: in the one-to-one chat and in
// groups alike, but for the changes of a group (its members, its name, its
// timer), which every member must apply. setBlock and blockSent are one
// transaction each; the others run inside storeBatch's.

import { tx, req, done, newChat, chatMessages } from './storedb.js';
import { refreshPreview, dropFiles } from './storerows.js';
import { recount } from './readpos.js';
import { isGroup } from './groupmeta.js';

// holds says whether block, a chat row's, drops what its contact sent at
// ts.
export function holds(block, ts) {
  return !!block && block.on && ts >= block.at;
}

// blockCheck says, for a transaction's chat cache peek and this account
// me, whether the contact u is blocked for what it sent at ts.
export function blockCheck(peek, me) {
  return async (u, ts) => u !== me && holds(((await peek(u)) || {}).block, ts);
}

// blockedRow is what a dropped message leaves: a hidden row that keeps
// its id, so that a replay of it is known and not shown, and nothing it
// said.
export function blockedRow(m) {
  return { id: m.id, chat: m.chat, from: m.from, to: m.to, dir: m.dir, ts: m.ts, sort: m.sort, seq: m.seq, hidden: true, blocked: true, text: null };
}

// droppable says whether a stored message is one a block drops: a
// message the contact wrote, shown, not a change of a group.
function droppable(m, contact, at) {
  return m.dir === 'in' && m.from === contact && !m.kind && !m.event && !m.hidden && m.ts >= at;
}

// applyBlock takes a block record {chat, on, at} from another device of
// the account, within storeBatch's transaction t: chatOf is its cache of
// chats, confirm collects the attachments of dropped messages (for the
// relay, which keeps them until this device confirms them). A record no
// newer than the block held changes nothing. A block hides what this
// device showed of the contact from at on, so that every device of the
// account ends showing the same. It returns the chats that changed.
export async function applyBlock(t, chatOf, r, confirm) {
  const changed = new Set();
  const ch = await chatOf(r.chat);
  if (ch.block && ch.block.at >= r.at) return changed;
  ch.block = { on: r.on, at: r.at, sent: true };
  changed.add(r.chat);
  if (!r.on) return changed;
  const ms = t.objectStore('messages');
  const groups = (await req(t.objectStore('chats').getAllKeys())).filter((k) => isGroup(String(k)));
  for (const chat of [r.chat, ...groups.map(String)]) {
    const msgs = await chatMessages(ms, chat);
    let hid = false;
    for (let i = 0; i < msgs.length; i++) {
      const m = msgs[i];
      if (!droppable(m, r.chat, r.at)) continue;
      msgs[i] = blockedRow(m);
      ms.put(msgs[i]);
      dropFiles(t, m.files);
      for (const f of m.files || []) if (f.id && f.digest && !f.confirmed) confirm.push(f.id);
      hid = true;
    }
    if (!hid) continue;
    const c = await chatOf(chat);
    refreshPreview(c, msgs);
    recount(c, msgs);
    changed.add(chat);
  }
  return changed;
}

// setBlock blocks username (on) or unblocks it on this device, from at,
// in one transaction. A block as new or newer held already (another
// device's, come meanwhile) wins. It returns whether it was written.
export async function setBlock(username, on, at) {
  const t = await tx(['chats'], 'readwrite');
  const cs = t.objectStore('chats');
  const ch = (await req(cs.get(username))) || newChat(username);
  const written = !(ch.block && ch.block.at >= at);
  if (written) {
    ch.block = { on, at, sent: false };
    cs.put(ch);
  }
  await done(t);
  return written;
}

// blockSent notes that the record of username's block from at was
// accepted by the relay, unless a newer block replaced it meanwhile.
export async function blockSent(username, at) {
  const t = await tx(['chats'], 'readwrite');
  const cs = t.objectStore('chats');
  const ch = await req(cs.get(username));
  if (ch && ch.block && ch.block.at === at && !ch.block.sent) {
    ch.block = { ...ch.block, sent: true };
    cs.put(ch);
  }
  await done(t);
}

// blocksToTellAgain marks every block of this account not sent, so that
// the stream owner sends each again: a device that joined the account
// since never had them.
export async function blocksToTellAgain() {
  const t = await tx(['chats'], 'readwrite');
  const cs = t.objectStore('chats');
  for (const ch of await req(cs.getAll())) {
    if (!ch.block || !ch.block.sent) continue;
    ch.block = { ...ch.block, sent: false };
    cs.put(ch);
  }
  await done(t);
}
