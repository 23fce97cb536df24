// readpos.js: what is read in a chat (docs/storage.md, "Read positions"),
// as pure functions of a chat record and its messages; store.js writes
// what they decide, in one transaction. One rule: a message is read when it
// was on the reader's screen in a visible tab (readstate.js watches the
// screen), never because its chat was open. The read position is the
// newest message seen; a message that arrives behind it (it committed
// late, or waited to decrypt) is "late": unread until it is seen itself,
// unless the position there is another device's (readThere): that device
// read it while this one waited.

import { after } from './order.js';
import { ulidTime } from './ulid.js';
import { MAX_IDS } from './records.js';

// Bounds of the id lists a chat keeps: more late messages than this in one
// chat, or more read elsewhere and not yet here, are beyond any real use.
const MAX_LATE = 1000;
const MAX_READ_AHEAD = 200;

// readPosition is the chat's read position {sort, id, v, base?}: the
// messages up to and including the order key {sort, id} are read, except
// the late ones. v counts the times it was moved back ("Mark as unread");
// base is the newest position such a move undid.
export function readPosition(ch) {
  if (ch && ch.read) return ch.read;
  // A chat stored before positions had an order key: its id's time.
  if (ch && ch.readUpTo) return { sort: ulidTime(ch.readUpTo), id: ch.readUpTo, v: 0 };
  return { sort: 0, id: '', v: 0 };
}

// supersedes reports whether position a wins over b: a higher v, or the
// same v and later in the order. Every device keeps the winner of what it
// has seen, so all converge whatever order the records arrive in.
export function supersedes(a, b) {
  return a.v !== b.v ? a.v > b.v : after(a, b);
}

// countable reports whether m can be unread: a new message from someone
// else's device of the chat, opened. Not records, not a message waiting to
// decrypt (it counts once it opens), not what is deleted or cannot be read
// by this version.
export function countable(m) {
  // A group's change is a line, not a message: only being added counts.
  if (m.event && !m.event.joined) return false;
  return m.dir === 'in' && !m.waiting && !m.kind && !m.unknown && !m.deleted && !m.hidden;
}

// isUnread reports whether message m of chat ch is unread.
export function isUnread(m, ch) {
  return countable(m) && (after(m, readPosition(ch)) || (ch && ch.late ? ch.late.includes(m.id) : false));
}

export function countUnread(msgs, ch) {
  return msgs.filter((m) => isUnread(m, ch)).length;
}

// recount sets ch's unread count and how many of those mention this
// account (in a group chat, by @username).
export function recount(ch, msgs) {
  const unread = msgs.filter((m) => isUnread(m, ch));
  ch.unread = unread.length;
  ch.mentions = unread.filter((m) => m.mention).length;
}

// arrive counts a message just stored in ch (new, or opened after it
// waited): behind the read position it is late, so unread until seen,
// unless another device of the account saw it already.
export function arrive(ch, m) {
  if (!countable(m)) return;
  if (!after(m, readPosition(ch))) {
    // Behind a position another device reached, it was read there: that
    // device had it while this one waited for it (to decrypt, say).
    if (ch.readThere && !after(m, ch.readThere)) return;
    const ahead = ch.readAhead || [];
    if (ahead.includes(m.id)) {
      ch.readAhead = ahead.filter((id) => id !== m.id);
      return;
    }
    ch.late = [...(ch.late || []), m.id].slice(-MAX_LATE);
  }
  ch.unread = (ch.unread || 0) + 1;
  if (m.mention) ch.mentions = (ch.mentions || 0) + 1;
}

// see decides what seeing the messages ids changes in ch: the position
// moves to the newest seen message after it, and a late message seen is
// read. It returns {pos, lateSeen}: the new position or null, and the late
// ids seen.
export function see(ch, msgs, ids) {
  const want = new Set(ids);
  const cur = readPosition(ch);
  const late = new Set(ch.late || []);
  let newest = null;
  const lateSeen = [];
  for (const m of msgs) {
    if (!want.has(m.id) || !countable(m)) continue;
    if (late.has(m.id)) lateSeen.push(m.id);
    else if (after(m, cur) && (!newest || after(m, newest))) newest = m;
  }
  const pos = newest ? { ...cur, sort: newest.sort, id: newest.id } : null;
  return { pos, lateSeen };
}

// setSeen writes what see decided into ch and returns whether it changed.
export function setSeen(ch, msgs, { pos, lateSeen }) {
  if (pos) ch.read = pos;
  if (lateSeen.length) ch.late = (ch.late || []).filter((id) => !lateSeen.includes(id));
  delete ch.readUpTo;
  recount(ch, msgs);
  return !!pos || lateSeen.length > 0;
}

// unreadFrom moves ch's position back to pos {sort, id} ("Mark as
// unread"), remembering in base the newest reading it undid. Its v is
// higher than any this device has seen, and at least the time in ms, so
// that a later move on another device, which never heard of this one,
// still wins over it.
export function unreadFrom(ch, msgs, pos, now = Date.now()) {
  const cur = readPosition(ch);
  const base = cur.base && after(cur.base, cur) ? cur.base : { sort: cur.sort, id: cur.id };
  ch.read = { sort: pos.sort, id: pos.id, v: Math.max(cur.v + 1, now), base };
  delete ch.readUpTo;
  dropCovered(ch, msgs);
  recount(ch, msgs);
}

// applyRead applies a read record of another device of the account, r
// {sort, upTo, v, base, ids}, to ch and returns whether it changed. Its
// position is taken if it wins (supersedes), or if it has a lower v but
// lies after the newest reading this device's last "Mark as unread" undid:
// then it was read after that move, by a device that never heard of it
// (one linked since). Its late ids are read here too, except those the
// move made unread that the record's device had not heard of.
export function applyRead(ch, msgs, r) {
  const before = JSON.stringify([ch.read, ch.late, ch.readAhead, ch.readThere]);
  const cur = readPosition(ch);
  const pos = { sort: r.sort, id: r.upTo, v: r.v };
  if (r.base) pos.base = r.base;
  if (supersedes(pos, cur)) ch.read = pos;
  else if (pos.v < cur.v && cur.base && after(pos, cur.base) && after(pos, cur)) ch.read = { sort: pos.sort, id: pos.id, v: cur.v, base: cur.base };
  if (ch.read !== cur) ch.readThere = { sort: pos.sort, id: pos.id };
  delete ch.readUpTo;
  const byId = new Map(msgs.map((m) => [m.id, m]));
  const marked = (m) => r.v < cur.v && after(m, cur) && (!cur.base || !after(m, cur.base));
  for (const id of r.ids || []) {
    const m = byId.get(id);
    if (!m) ch.readAhead = [...(ch.readAhead || []).filter((x) => x !== id), id].slice(-MAX_READ_AHEAD);
    else if (!marked(m) && ch.late) ch.late = ch.late.filter((x) => x !== id);
  }
  dropCovered(ch, msgs);
  recount(ch, msgs);
  return JSON.stringify([ch.read, ch.late, ch.readAhead, ch.readThere]) !== before;
}

// dropCovered forgets late ids the position no longer passes: they are
// unread by the position itself.
function dropCovered(ch, msgs) {
  if (!ch.late) return;
  const pos = readPosition(ch);
  const byId = new Map(msgs.map((m) => [m.id, m]));
  ch.late = ch.late.filter((id) => byId.has(id) && !after(byId.get(id), pos));
}

// recordOf is the read record to send for ch's position, merged with the
// unsent one before it (prev): the late ids seen accumulate, newest last.
// at is when it was read: the account's other devices start the messages
// it reads that disappear from then (expiry.js).
export function recordOf(chat, ch, prev, lateSeen, at = Date.now()) {
  const pos = readPosition(ch);
  const ids = [...new Set([...((prev && prev.ids) || []), ...lateSeen])].slice(-MAX_IDS);
  const rec = { chat, upTo: pos.id, sort: pos.sort, v: pos.v };
  if (pos.base) rec.base = pos.base;
  if (ids.length) rec.ids = ids;
  rec.at = at;
  return rec;
}
