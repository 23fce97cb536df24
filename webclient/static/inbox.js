// inbox.js: what the event stream of this device brings (stream.js),
// read and written: it decrypts the envelopes, has the store write them in
// one transaction with the cursor, and tells the stream to ACK strictly
// after that transaction completed, so a crash between receive and write
// loses nothing (ADR 0013). An envelope it cannot decrypt yet is written
// sealed, waiting, ACKed all the same, and tried again on every ready, on
// a key refresh and on a timer (ADR 0037).

import * as store from './store.js';
import * as api from './api.js';
import * as c from './crypto.js';
import * as account from './account.js';
import { isOwner, notify, subscribe } from './election.js';
import { flushOutbox } from './outbox.js';
import { refreshKey } from './contacts.js';
import { interpret } from './records.js';
import { flushReceipts } from './receipts.js';
import * as mlschat from './mlschat.js';
import { isGroup, changeText, mentions } from './groupmeta.js';
import * as groupchat from './groupchat.js';
import { isTransfer } from './archive.js';
import { transferBody } from './historyxfer.js';
import { onBatch, isCurrent, currentSource, opened, setConn, openStream, ackWritten } from './stream.js';

// Messages waiting to decrypt are tried again after this, doubling up to
// RETRY_MAX: soon after a blip, and still once a minute after an outage.
const RETRY_FIRST = 2000;
const RETRY_MAX = 60 * 1000;

let gapRetried = false;
let retryTimer = null;
let retryDelay = RETRY_FIRST;
let retrying = null; // the pass of retryWaiting under way
let retryAgain = false; // asked again while it ran

// A contact's key was fetched or accepted, in this tab or another: what
// waits for it may open now.
subscribe((ev) => {
  if (ev.type === 'key') retryWaiting();
});

// notePurge keeps the relay's word that it deleted envelopes this device
// never received (too old, or its queue was full), so the page can say so
// until the person has read it. The relay repeats it on every stream until
// the device ACKs past it; the same notice is shown once.
async function notePurge(p) {
  const seen = await store.getMeta('purge');
  if (seen && seen.upTo >= p.upTo) return;
  await store.setPurgeNotice({ upTo: p.upTo, reason: p.reason, at: Date.now(), dismissed: false });
  notify({ type: 'purge' });
}

// purgeNotice is the notice to show, if any.
export async function purgeNotice() {
  const n = await store.getMeta('purge');
  return n && !n.dismissed ? n : null;
}

export async function dismissPurgeNotice() {
  const n = await store.getMeta('purge');
  if (!n) return;
  await store.setPurgeNotice({ ...n, dismissed: true });
  notify({ type: 'purge' });
}


async function fromDeviceKey(id) {
  const list = await api.devices();
  const d = list.find((x) => x.id === id);
  return d ? c.b64decode(d.publicKey) : null;
}

// rotatedKey opens a link envelope that reaches an already linked device:
// another device of the account rotated the account key. It is adopted
// only if it opens with this device's key and the sender device's key, and
// its public half is the key the directory serves for the account now,
// which differs from the one held (docs/crypto.md, "Account key
// rotation"). A replayed one finds the key already held and is skipped.
async function rotatedKey(env, body) {
  const me = account.current();
  const device = account.currentDevice();
  let dirPub;
  try {
    dirPub = await account.directoryKey();
  } catch {
    return { kind: 'skip' };
  }
  if (c.b64encode(dirPub) === c.b64encode(me.publicKey)) return { kind: 'skip' };
  const pub = await fromDeviceKey(env.fromDevice);
  if (!pub) return { kind: 'skip' };
  try {
    const k = await c.aesKey(await c.linkKeyBytes(device.privateKey, pub, env.fromDevice, device.id));
    const priv = await c.openLink(k, env.id, me.username, body, dirPub);
    return { kind: 'rotated', privateKey: priv, publicKey: dirPub };
  } catch {
    return { kind: 'skip' }; // sealed to another device, or not the served key
  }
}

// rotationPending: the directory serves another key for this account than
// the one held; a message that does not open now may open once the new key
// arrives, so it waits instead of being given up.
async function rotationPending() {
  try {
    return c.b64encode(await account.directoryKey()) !== c.b64encode(account.current().publicKey);
  } catch {
    return false;
  }
}

// decrypt turns one envelope into what to write: a message, a read position,
// an account key, or nothing. b holds the MLS groups of the stream's batch
// (mlschat.js); without it (a message waiting for a key, which is never an
// MLS one) only version 1 is read.
async function decrypt(env, b = null) {
  const me = account.current();
  const device = account.currentDevice();
  const body = c.b64decode(env.body);
  const self = env.from === me.username && env.to === me.username;
  if (self && c.isLink(body)) {
    if (account.isLinked()) return rotatedKey(env, body);
    const pub = await fromDeviceKey(env.fromDevice);
    if (!pub) return { kind: 'skip' };
    try {
      const k = await c.aesKey(await c.linkKeyBytes(device.privateKey, pub, env.fromDevice, device.id));
      const priv = await c.openLink(k, env.id, me.username, body, me.publicKey);
      return { kind: 'linked', privateKey: priv };
    } catch {
      return { kind: 'skip' }; // a link for another device
    }
  }
  if (!account.isLinked()) return { kind: 'skip' };
  // A history transfer between two devices of the account (historyxfer.js).
  if (self && isTransfer(body)) return transferBody(env, body, fromDeviceKey);
  const chat = env.from === me.username ? env.to : env.from;
  const dir = env.from === me.username ? 'out' : 'in';
  const base = { id: env.id, chat, from: env.from, fromDevice: env.fromDevice, to: env.to, dir, ts: env.ts, sort: env.ts, seq: env.seq, status: dir === 'out' ? 'sent' : 'received' };
  const o = b ? await mlschat.open(env, body, b) : null;
  if (o) {
    // A group chat's envelope is its group's chat, whatever its `to`.
    if ('chat' in o) base.chat = o.chat;
    if ('to' in o) base.to = o.to;
    if ('event' in o) return { kind: 'message', msg: { ...base, dir: o.event.by === me.username ? 'out' : 'in', status: 'sent', text: null, event: o.event, line: changeText(o.event, me.username), title: o.title } };
    if ('record' in o) {
      const r = interpret(o.record, base, self && !isGroup(o.chat));
      // A group chat's timer is its admins' to set (docs/crypto.md).
      if (r.kind === 'timer' && isGroup(r.chat) && !(await mlschat.groupAdmins(r.chat)).includes(r.author)) {
        console.warn('sync: ignored a timer record from a member who is not an admin');
        return { kind: 'skip' };
      }
      // A group chat's message that names this account: highlighted, and
      // counted in the chat list.
      if (r.kind === 'message' && isGroup(r.msg.chat) && r.msg.dir === 'in' && mentions(r.msg.text, me.username)) r.msg.mention = true;
      return r;
    }
    if ('skip' in o) return { kind: 'skip' };
    return { kind: 'message', msg: { ...base, text: null, body: env.body, undecryptable: true } };
  }
  if (b && (await mlschat.isDowngrade(env, chat, b))) {
    // Kept sealed and shown as refused: a downgrade (docs/crypto.md).
    console.warn('sync: a message sealed the old way by a device that speaks MLS in the chat was refused');
    return { kind: 'message', msg: { ...base, text: null, body: env.body, undecryptable: true, downgrade: true } };
  }
  let open = await openSealed(env, chat, body);
  if (open.final && await rotationPending()) open = { waiting: true };
  if (!open.record) {
    // Kept sealed either way, so that nothing received is lost.
    const flag = open.waiting ? { waiting: true } : { undecryptable: true };
    return { kind: 'message', msg: { ...base, text: null, body: env.body, ...flag } };
  }
  base.pub = open.pub;
  return interpret(open.record, base, self);
}

// rereadUnknown reads again, once per page, the records kept because their
// type was unknown when they arrived: a newer client shows them.
let reread = false;

async function rereadUnknown() {
  if (reread || !account.isLinked()) return;
  reread = true;
  const me = account.me();
  const results = [];
  for (const m of await store.unknownMessages()) {
    let record;
    try {
      record = JSON.parse(m.record);
    } catch {
      continue;
    }
    const base = { id: m.id, chat: m.chat, from: m.from, fromDevice: m.fromDevice, to: m.to, dir: m.dir, ts: m.ts, sort: m.sort, seq: m.seq, status: m.status };
    const r = interpret(record, base, m.from === me && m.to === me);
    if (r.kind === 'message' && r.msg.unknown) continue;
    results.push({ id: m.id, msg: r.kind === 'message' ? r.msg : null, record: r.kind === 'record' || r.kind === 'timer' ? r : null });
  }
  if (!results.length) return;
  const changed = await store.resolveUnknown(results, me);
  if (changed.size) notify({ type: 'changed', chats: [...changed] });
}

// logForged says, without content, that a record was not applied because
// its author did not write the message it names.
function logForged(types) {
  for (const t of types) console.warn(`sync: ignored a ${t} record for a message its sender did not write`);
}

// openSealed opens an envelope of the conversation with chat. It returns
// {record, pub}, or {waiting: true} when the key to open it cannot be
// had now (the directory could not be reached), or {final: true} when the
// directory's own key of the contact does not open it (tampered with, or
// sealed under another key).
async function openSealed(env, chat, body) {
  const tryKey = async (k) => {
    try {
      return JSON.parse(await c.open(k.key, env.id, env.from, env.to, body));
    } catch {
      return null;
    }
  };
  const unavailable = (e) => (e && e.code === 'unknown_account' ? { final: true } : { waiting: true });
  let k;
  try {
    k = await account.convKey(chat);
  } catch (e) {
    return unavailable(e);
  }
  let record = await tryKey(k);
  if (record) return { record, pub: k.pub };
  if (k.fetched || chat === account.me()) return { final: true };
  // The key this device knew may be an old one: ask the directory, which
  // also flags a changed key in the chat.
  let replaced;
  try {
    ({ replaced } = await refreshKey(chat));
  } catch (e) {
    return unavailable(e);
  }
  if (!replaced) return { final: true };
  try {
    k = await account.convKey(chat);
  } catch (e) {
    return unavailable(e);
  }
  record = await tryKey(k);
  return record ? { record, pub: k.pub } : { final: true };
}

// retryWaiting tries again to decrypt what waits: on every ready, on a key
// fetched or accepted, and on a timer with backoff in the stream owner.
// Any tab may run it: a message resolves once, in the store.
export function retryWaiting() {
  if (retrying) {
    retryAgain = true;
    return retrying;
  }
  retrying = (async () => {
    do {
      retryAgain = false;
      await retryOnce();
    } while (retryAgain);
  })().catch((e) => console.warn('sync: retrying the waiting messages failed', e && e.name))
    .finally(() => {
      retrying = null;
    });
  return retrying;
}

async function retryOnce() {
  if (!account.isLinked()) return;
  const welcomesLeft = await retryWelcomes();
  const waiting = await store.waitingMessages();
  const results = [];
  for (const m of waiting) {
    const r = await decrypt({ id: m.id, from: m.from, fromDevice: m.fromDevice, to: m.to, ts: m.ts, seq: m.seq, body: m.body });
    if (r.kind === 'message' && r.msg.waiting) continue;
    results.push({ id: m.id, msg: r.kind === 'message' ? r.msg : null, record: r.kind === 'record' || r.kind === 'timer' ? r : null });
  }
  if (results.length) {
    const changed = await store.resolveWaiting(results, account.me());
    if (changed.size) notify({ type: 'changed', chats: [...changed] });
    flushReceipts();
  }
  clearTimeout(retryTimer);
  retryTimer = null;
  if (waiting.length === results.length && !welcomesLeft) retryDelay = RETRY_FIRST;
  else scheduleRetry();
}

// retryWelcomes joins the groups of the welcomes kept because a member
// could not be checked (mlschat.js), and opens what was kept in them,
// one chat at a time, each chat's under its own lock and written in a
// transaction of its own. It says whether some are kept still.
async function retryWelcomes() {
  if (!isOwner()) return false;
  let left = false;
  for (const chat of await mlschat.welcomeChats()) {
    const b = new mlschat.Batch();
    try {
      await b.lock(chat);
      const results = [];
      // A welcome, or a commit kept with what came after it: read again
      // in order, each written as it reads now (a group chat's line).
      for (const env of await b.takeWelcomes(chat)) {
        results.push(await decrypt(env, b));
        for (const p of b.takeUnparked()) results.push(await decrypt(p, b));
      }
      if ((await b.welcomesOf(chat)).length) left = true;
      const { changed } = await store.storeBatch(results, null, null, account.me(), await b.writes());
      b.release();
      b.written();
      if (changed.size) notify({ type: 'changed', chats: [...changed] });
      if (results.length) flushReceipts();
    } finally {
      b.release();
    }
  }
  return left;
}

// scheduleRetry sets the timer of the next retry, in the stream owner.
function scheduleRetry() {
  if (retryTimer !== null || !isOwner()) return;
  retryTimer = setTimeout(() => {
    retryTimer = null;
    retryWaiting();
  }, retryDelay);
  retryDelay = Math.min(retryDelay * 2, RETRY_MAX);
}

// waitForLink looks only for the link envelope while this device has no
// account key. Nothing is stored or ACKed: once linked, the stream starts
// over and everything queued is replayed and read.
async function waitForLink(batch) {
  for (const item of batch) {
    if (!isCurrent(item.src)) continue;
    if (item.kind === 'ready') {
      setConn('open');
      continue;
    }
    if (item.kind === 'purged') {
      await notePurge(item.purge);
      continue;
    }
    if (item.kind === 'epoch') continue; // nothing is stored yet
    const r = await decrypt(item.env);
    if (r.kind === 'linked') {
      await account.linked(r.privateKey);
      openStream();
      return;
    }
  }
}

// rewound says whether a stream's epoch event shows that the relay's
// history went back under the cursor (docs/storage.md, "A history that
// went back"): another epoch, or a head below the cursor, or a
// Last-Event-ID the relay found ahead. A cursor without an epoch (stored
// before relays told it) takes the first one it hears.
function rewound(cursor, ev) {
  if (ev.ahead) return true;
  if (cursor.epoch && cursor.epoch !== ev.epoch) return true;
  return cursor.lastSeq !== null && ev.seq < cursor.lastSeq;
}

// processBatch reads a batch of the stream, or one kept while the app was
// locked (held: already ACKed, so a gap is not replayed, and the stream's
// own work on ready waits for the stream).
export async function processBatch(batch, held = false) {
  if (!account.isLinked()) return waitForLink(batch);
  // The groups the batch opens stay locked until it is written.
  const b = new mlschat.Batch();
  try {
    await processLinked(batch, b, held);
  } finally {
    b.release();
  }
}

async function processLinked(batch, b, held) {
  const src = currentSource();
  const cursor = (await store.getMeta('cursor')) || { lastSeq: 0 };
  // null after a resync: no seq is known in this epoch, so the next one
  // is neither a replay nor a gap, and ids tell what is new.
  let last = cursor.lastSeq;
  let epoch = cursor.epoch;
  let ackTo = 0;
  let restart = false;
  const results = [];
  let readySeq = null;
  let lost = null; // a gap the relay could not fill
  let noticed = false; // a notice was written for the page to show
  let rotated = false; // a rotated account key was adopted
  for (const item of batch) {
    if (!held && !isCurrent(item.src)) continue; // from a stream that was replaced
    if (item.kind === 'ready') {
      readySeq = item.seq;
      continue;
    }
    if (item.kind === 'purged') {
      await notePurge(item.purge); // first on the stream, before the replay
      continue;
    }
    if (item.kind === 'epoch') {
      if (rewound({ lastSeq: last, epoch }, item)) {
        // Everything stored stays; what the relay replays is recognised
        // by its id, and the person is told what may be missing.
        await store.rewind(item.epoch, { upTo: 0, reason: 'restored', at: Date.now(), dismissed: false });
        noticed = true;
        last = null;
        gapRetried = false;
      }
      epoch = item.epoch;
      continue;
    }
    const env = item.env;
    if (last !== null && env.seq <= last) {
      ackTo = Math.max(ackTo, env.seq); // replayed again: known, ACK it
      continue;
    }
    if (last !== null && env.seq > last + 1) {
      if (!gapRetried && !held) {
        // A gap: never lose silently. Replay from the last stored seq:
        // nothing past it is ACKed, so the relay sends what it still has.
        gapRetried = true;
        restart = true;
        break;
      }
      // The replay starts past the gap again: the relay no longer has
      // those envelopes. The person is told, with the batch's write.
      lost = { upTo: env.seq - 1, reason: 'gap', at: Date.now() };
    }
    gapRetried = false;
    let r = await decrypt(env, b);
    if (r.kind === 'rotated') {
      // Adopted at once: what follows in the batch is sealed to it.
      await account.adoptKey(r.privateKey, r.publicKey);
      rotated = true;
      r = { kind: 'skip' };
    }
    results.push(r);
    last = env.seq;
    ackTo = env.seq;
    // Envelopes parked in a group this one joined: opened now, in order.
    for (const p of b.takeUnparked()) results.push(await decrypt(p, b));
  }

  // A resync that replayed nothing resumes at the relay's head.
  if (last === null && readySeq !== null) last = readySeq;
  let changed = new Set();
  let receipts = false;
  let forged = [];
  let history = false;
  if (results.length || last !== cursor.lastSeq || epoch !== cursor.epoch || lost) {
    let kept;
    let confirm;
    ({ changed, noticed: kept, receipts, forged, history, confirm } = await store.storeBatch(results, { lastSeq: last, epoch }, lost, account.me(), await b.writes()));
    b.release();
    b.written();
    noticed = noticed || kept;
    // Attachments of messages that were gone on arrival: never fetched.
    for (const id of confirm) api.attachmentReceived(id).catch(() => {});
  }
  logForged(forged);
  // A member of a group chat asked to leave: its removal is committed.
  for (const r of results) if (r.kind === 'leave') groupchat.onLeave(r.chat, r.from);
  // A member's key changed in a group chat: the directory says whether
  // it is another than the one this device knew (a warning, as in a
  // one-to-one chat).
  for (const u of b.rekeyed) refreshKey(u).catch(() => {});
  // Strictly after the transaction completed, and only for the stream
  // still open: a replaced or stopped one replays what it did not ACK.
  if (ackTo > 0 && !held && isCurrent(src)) ackWritten(ackTo, epoch);
  if (changed.size) notify({ type: 'changed', chats: [...changed] });
  if (noticed) notify({ type: 'purge' });
  if (history) notify({ type: 'history' });
  if (receipts) flushReceipts();
  if (rotated) retryWaiting();
  else if (results.some((r) => r.kind === 'message' && r.msg.waiting) || b.keptWelcomes()) scheduleRetry();
  if (restart) {
    openStream();
    return;
  }
  if (readySeq !== null && !held) {
    opened();
    flushOutbox();
    flushReceipts();
    retryWaiting();
    rereadUnknown();
  }
}

onBatch(processBatch);
