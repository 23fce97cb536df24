// sync.js: the only writer to IndexedDB, and the only code that talks to the
// event stream. It decrypts incoming envelopes, writes them in one
// IndexedDB transaction, and ACKs strictly after that transaction
// completes, so a crash between receive and write loses nothing. It also
// sends (with the retry rules of ADR 0010), links devices, and shares read
// positions with the account's other devices.
//
// One tab per browser profile owns the stream: tabs elect the owner with
// the Web Locks API and hear about changes over a BroadcastChannel.

import * as db from './db.js';
import * as api from './api.js';
import * as c from './crypto.js';
import { ulid, ulidTime } from './ulid.js';

// REUSE_WINDOW: a retry keeps its id while the id's time is within this of
// the device clock: one minute under the relay's ±5 minute window.
const REUSE_WINDOW = 4 * 60 * 1000;
// A stream that has said nothing (not even a ping) for this long is dead.
const SILENCE_LIMIT = 50 * 1000;

const channel = new BroadcastChannel('relay');
const listeners = new Set();

let account = null; // {username, publicKey, privateKey|null}
let device = null; // {id, publicKey, privateKey, name}
let owner = false;
let es = null;
let connState = 'connecting';
let watchdog = null;
let reconnectTimer = null;
let reconnectDelay = 1000;
let incoming = [];
let processing = false;
let gapRetried = false;
let outboxBusy = false;
let outboxAgain = false;
let retryTimer = null;
let retryDelay = 3000;
const keys = new Map(); // username -> AES key of the conversation

// ---- events to the UI ----

export function subscribe(fn) {
  listeners.add(fn);
  return () => listeners.delete(fn);
}

function notify(ev, broadcast = true) {
  for (const fn of listeners) fn(ev);
  if (broadcast) channel.postMessage(ev);
}

channel.onmessage = (e) => {
  const ev = e.data;
  if (ev.type === 'kick' && owner) flushOutbox();
  if (ev.type === 'hello' && owner) channel.postMessage({ type: 'conn', state: connState });
  if (ev.type === 'conn' && !owner) connState = ev.state;
  if (ev.type === 'account') { account = null; }
  for (const fn of listeners) fn(ev);
};

export function connection() {
  return connState;
}

export function me() {
  return account ? account.username : null;
}

export function isLinked() {
  return !!(account && account.privateKey);
}

export function currentDevice() {
  return device;
}

function setConn(state) {
  if (connState === state) return;
  connState = state;
  notify({ type: 'conn', state });
}

// ---- account and device ----

// load restores the account and device of this profile, if any.
export async function load() {
  account = (await db.getMeta('account')) || null;
  device = (await db.getMeta('device')) || null;
  if (device) api.setDevice(device.id);
  return !!(account && device);
}

async function putMeta(pairs) {
  const t = await db.tx(['meta'], 'readwrite');
  for (const [k, v] of pairs) t.objectStore('meta').put({ k, v });
  await db.done(t);
}

function deviceName() {
  const ua = navigator.userAgent;
  const browser = /Firefox\//.test(ua) ? 'Firefox' : /Edg\//.test(ua) ? 'Edge' : /Chrome\//.test(ua) ? 'Chrome' : /Safari\//.test(ua) ? 'Safari' : 'Browser';
  const os = /Android/.test(ua) ? 'Android' : /iPhone|iPad/.test(ua) ? 'iOS' : /Mac OS/.test(ua) ? 'macOS' : /Windows/.test(ua) ? 'Windows' : /Linux/.test(ua) ? 'Linux' : '';
  return (browser + (os ? ' on ' + os : '')).slice(0, 64);
}

async function newDevice() {
  const pair = await c.generateKeyPair();
  const pub = await c.exportPublic(pair.publicKey);
  const name = deviceName();
  const { id } = await api.addDevice(name, c.b64encode(pub));
  api.setDevice(id);
  return { id, name, publicKey: pub, privateKey: pair.privateKey };
}

// registerAccount creates the account and its first device, which holds the
// account key from the start.
export async function registerAccount(username, password) {
  await db.wipe();
  const pair = await c.generateKeyPair();
  const pub = await c.exportPublic(pair.publicKey);
  await api.register(username, password, c.b64encode(pub));
  const dev = await newDevice();
  account = { username, publicKey: pub, privateKey: pair.privateKey };
  device = dev;
  await putMeta([['account', account], ['device', device], ['cursor', { lastSeq: 0 }]]);
}

// loginAccount logs in. A profile that already holds a live device of this
// account keeps it; otherwise a new device is registered and waits to be
// linked.
export async function loginAccount(username, password) {
  const res = await api.login(username, password);
  const pub = c.b64decode(res.publicKey);
  const stored = await db.getMeta('account');
  const storedDevice = await db.getMeta('device');
  if (stored && storedDevice && stored.username === username) {
    api.setDevice(storedDevice.id);
    const list = await api.devices();
    if (list.some((d) => d.id === storedDevice.id)) {
      account = stored;
      device = storedDevice;
      return;
    }
  }
  await db.wipe();
  api.setDevice(null);
  const dev = await newDevice();
  account = { username, publicKey: pub, privateKey: null };
  device = dev;
  await putMeta([['account', account], ['device', device], ['cursor', { lastSeq: 0 }]]);
}

export async function logout() {
  try { await api.logout(); } catch { /* the session may be gone already */ }
  stopStream();
  keys.clear();
  account = null;
  device = null;
  api.setDevice(null);
  await db.wipe();
  notify({ type: 'account' });
}

export async function linkCode() {
  return c.linkCode(account.publicKey, device.publicKey);
}

export async function deviceCode(publicKeyB64) {
  return c.linkCode(account.publicKey, c.b64decode(publicKeyB64));
}

// approve sends the account key to another device of this account, sealed to
// that device's key (docs/crypto.md, "Device linking").
export async function approve(target) {
  const pub = c.b64decode(target.publicKey);
  const key = await c.aesKey(await c.linkKeyBytes(device.privateKey, pub, device.id, target.id));
  const id = ulid();
  const body = await c.sealLink(key, c.randomIV(), id, account.username, account.privateKey, account.publicKey);
  await api.send(id, account.username, c.b64encode(body));
}

// ---- the stream ----

// start joins the election for the stream owner of this browser profile.
// The lock is held until the tab closes; then another tab takes over.
let started = false;

export function start() {
  channel.postMessage({ type: 'hello' });
  if (started) {
    if (owner) openStream();
    return;
  }
  started = true;
  if (!navigator.locks) {
    becomeOwner();
    return;
  }
  navigator.locks.request('relay-stream', () => {
    becomeOwner();
    return new Promise(() => {}); // held for the life of this tab
  });
}

function becomeOwner() {
  if (!device) return;
  owner = true;
  notify({ type: 'owner' }, false);
  openStream();
}

export function isOwner() {
  return owner;
}

// streaming reports whether this tab has an event stream open or scheduled.
export function streaming() {
  return !!es || reconnectTimer !== null;
}

function stopStream() {
  if (es) es.close();
  es = null;
  clearTimeout(watchdog);
  clearTimeout(reconnectTimer);
  reconnectTimer = null;
}

function alive() {
  clearTimeout(watchdog);
  watchdog = setTimeout(() => {
    // No ping in time: the link is silent or dead. Start over.
    setConn('down');
    reconnect();
  }, SILENCE_LIMIT);
}

function openStream() {
  stopStream();
  if (!device) return;
  setConn(connState === 'open' ? 'connecting' : connState);
  const src = new EventSource('/api/events?device=' + encodeURIComponent(device.id));
  es = src;
  src.addEventListener('envelope', (e) => {
    alive();
    incoming.push({ kind: 'envelope', env: JSON.parse(e.data), src });
    processIncoming();
  });
  src.addEventListener('ready', (e) => {
    alive();
    incoming.push({ kind: 'ready', seq: JSON.parse(e.data).seq, src });
    processIncoming();
  });
  src.addEventListener('ping', () => alive());
  src.addEventListener('purged', (e) => {
    alive();
    notePurge(JSON.parse(e.data));
  });
  src.addEventListener('replaced', () => {
    // Another stream took this device's place: do not fight back.
    stopStream();
    setConn('replaced');
  });
  src.addEventListener('revoked', () => {
    stopStream();
    setConn('revoked');
  });
  src.addEventListener('shutdown', () => {
    setConn('down');
    reconnect(500);
  });
  src.onopen = () => alive();
  src.onerror = () => {
    if (src !== es) return;
    setConn('down');
    if (src.readyState === EventSource.CLOSED) diagnose();
  };
}

// notePurge keeps the relay's word that it deleted envelopes this device
// never received (too old, or its queue was full), so the page can say so
// until the person has read it. The relay repeats it on every stream until
// the device ACKs past it; the same notice is shown once.
async function notePurge(p) {
  const seen = await db.getMeta('purge');
  if (seen && seen.upTo >= p.upTo) return;
  const notice = { upTo: p.upTo, reason: p.reason, at: Date.now(), dismissed: false };
  await putMeta([['purge', notice]]);
  notify({ type: 'purge' });
}

// purgeNotice is the notice to show, if any.
export async function purgeNotice() {
  const n = await db.getMeta('purge');
  return n && !n.dismissed ? n : null;
}

export async function dismissPurgeNotice() {
  const n = await db.getMeta('purge');
  if (!n) return;
  await putMeta([['purge', { ...n, dismissed: true }]]);
  notify({ type: 'purge' });
}

// reconnect opens a fresh stream after a delay, with backoff.
function reconnect(delay) {
  stopStream();
  const d = delay || reconnectDelay;
  reconnectDelay = Math.min(reconnectDelay * 2, 30000);
  reconnectTimer = setTimeout(() => {
    reconnectTimer = null;
    openStream();
  }, d);
}

// diagnose runs when the browser gave up on the stream (an HTTP error).
async function diagnose() {
  try {
    const list = await api.devices();
    if (!list.some((d) => d.id === device.id)) {
      stopStream();
      setConn('revoked');
      return;
    }
  } catch (e) {
    if (e.code === 'unauthenticated') {
      stopStream();
      setConn('loggedout');
      return;
    }
  }
  reconnect();
}

function processIncoming() {
  if (processing) return;
  processing = true;
  (async () => {
    try {
      while (incoming.length) {
        const batch = incoming.splice(0);
        await processBatch(batch);
      }
    } catch (e) {
      console.error('sync: processing failed', e);
      reconnect();
    } finally {
      processing = false;
    }
  })();
}

async function convKey(username) {
  if (keys.has(username)) return keys.get(username);
  let chat = await db.getChat(username);
  let pub = chat && chat.publicKey;
  if (!pub) {
    pub = username === account.username ? account.publicKey : c.b64decode((await api.lookup(username)).publicKey);
  }
  const k = await c.aesKey(await c.conversationKeyBytes(account.privateKey, pub, account.username, username));
  keys.set(username, { key: k, pub });
  return keys.get(username);
}

async function fromDeviceKey(id) {
  const list = await api.devices();
  const d = list.find((x) => x.id === id);
  return d ? c.b64decode(d.publicKey) : null;
}

// decrypt turns one envelope into what to write: a message, a read position,
// an account key, or nothing.
async function decrypt(env) {
  const body = c.b64decode(env.body);
  const self = env.from === account.username && env.to === account.username;
  if (self && c.isLink(body)) {
    if (isLinked()) return { kind: 'skip' };
    const pub = await fromDeviceKey(env.fromDevice);
    if (!pub) return { kind: 'skip' };
    try {
      const k = await c.aesKey(await c.linkKeyBytes(device.privateKey, pub, env.fromDevice, device.id));
      const priv = await c.openLink(k, env.id, account.username, body, account.publicKey);
      return { kind: 'linked', privateKey: priv };
    } catch {
      return { kind: 'skip' }; // a link for another device
    }
  }
  if (!isLinked()) return { kind: 'skip' };
  const chat = env.from === account.username ? env.to : env.from;
  const dir = env.from === account.username ? 'out' : 'in';
  const base = { id: env.id, chat, from: env.from, to: env.to, dir, ts: env.ts, sort: env.ts, seq: env.seq, status: dir === 'out' ? 'sent' : 'received' };
  let record = null;
  try {
    const { key, pub } = await convKey(chat);
    record = JSON.parse(await c.open(key, env.id, env.from, env.to, body));
    base.pub = pub;
  } catch {
    return { kind: 'message', msg: { ...base, text: null, undecryptable: true } };
  }
  if (record.type === 'text' && typeof record.text === 'string') {
    return { kind: 'message', msg: { ...base, text: record.text } };
  }
  if (record.type === 'read' && self && typeof record.chat === 'string' && typeof record.upTo === 'string') {
    return { kind: 'read', chat: record.chat, upTo: record.upTo };
  }
  return { kind: 'skip' }; // a record type this client does not know
}

// waitForLink looks only for the link envelope while this device has no
// account key. Nothing is stored or ACKed: once linked, the stream starts
// over and everything queued is replayed and read.
async function waitForLink(batch) {
  for (const item of batch) {
    if (item.src !== es) continue;
    if (item.kind === 'ready') {
      setConn('open');
      continue;
    }
    const r = await decrypt(item.env);
    if (r.kind === 'linked') {
      account = { ...account, privateKey: r.privateKey };
      await putMeta([['account', account]]);
      notify({ type: 'linked' });
      openStream();
      return;
    }
  }
}

async function processBatch(batch) {
  if (!isLinked()) return waitForLink(batch);
  const cursor = (await db.getMeta('cursor')) || { lastSeq: 0 };
  let last = cursor.lastSeq;
  let ackTo = 0;
  let restart = false;
  const results = [];
  let readySeq = null;
  for (const item of batch) {
    if (item.src !== es) continue; // from a stream that was replaced
    if (item.kind === 'ready') {
      readySeq = item.seq;
      continue;
    }
    const env = item.env;
    if (env.seq <= last) {
      ackTo = Math.max(ackTo, env.seq); // replayed again: known, ACK it
      continue;
    }
    if (env.seq > last + 1) {
      if (!gapRetried) {
        // A gap: never lose silently. Replay from the last stored seq.
        gapRetried = true;
        restart = true;
        break;
      }
      console.warn(`sync: seq ${last + 1}..${env.seq - 1} are gone from the relay`);
    }
    gapRetried = false;
    const r = await decrypt(env);
    results.push(r);
    last = env.seq;
    ackTo = env.seq;
  }

  const changed = new Set();
  if (results.length || ackTo > cursor.lastSeq) {
    const t = await db.tx(['meta', 'messages', 'chats'], 'readwrite');
    const ms = t.objectStore('messages');
    const cs = t.objectStore('chats');
    const chats = new Map();
    const getChat = async (u) => {
      if (!chats.has(u)) chats.set(u, (await db.req(cs.get(u))) || { username: u, lastTs: 0, preview: '', unread: 0, readUpTo: '' });
      return chats.get(u);
    };
    for (const r of results) {
      if (r.kind === 'message') {
        const m = r.msg;
        // A known id is ignored entirely: no overwrite, no unread change.
        if (await db.req(ms.get(m.id))) continue;
        const pub = m.pub;
        delete m.pub;
        ms.put(m);
        const ch = await getChat(m.chat);
        if (pub && !ch.publicKey) ch.publicKey = pub;
        if (m.ts >= ch.lastTs) {
          ch.lastTs = m.ts;
          ch.preview = m.undecryptable ? 'Could not decrypt' : m.text.slice(0, 80);
        }
        if (m.dir === 'in' && m.id > (ch.readUpTo || '')) ch.unread = (ch.unread || 0) + 1;
        changed.add(m.chat);
      } else if (r.kind === 'read') {
        const ch = await getChat(r.chat);
        if (r.upTo > (ch.readUpTo || '')) {
          ch.readUpTo = r.upTo;
          const range = IDBKeyRange.bound([r.chat, -Infinity], [r.chat, Infinity]);
          const all = await db.req(ms.index('chat').getAll(range));
          ch.unread = all.filter((m) => m.dir === 'in' && m.id > r.upTo).length;
          changed.add(r.chat);
        }
      }
    }
    for (const ch of chats.values()) cs.put(ch);
    const newLast = Math.max(cursor.lastSeq, last);
    t.objectStore('meta').put({ k: 'cursor', v: { lastSeq: newLast } });
    await db.done(t);
  }
  // Strictly after the transaction completed.
  if (ackTo > 0) {
    try {
      await api.ack(ackTo);
    } catch (e) {
      console.warn('sync: ack failed; the envelopes will be replayed and recognised', e.code);
    }
  }
  if (changed.size) notify({ type: 'changed', chats: [...changed] });
  if (restart) {
    openStream();
    return;
  }
  if (readySeq !== null) {
    reconnectDelay = 1000;
    setConn('open');
    flushOutbox();
  }
}

// ---- sending ----

async function writeMessage(m, removeId) {
  const t = await db.tx(['messages', 'chats'], 'readwrite');
  if (removeId) t.objectStore('messages').delete(removeId);
  t.objectStore('messages').put(m);
  const cs = t.objectStore('chats');
  const ch = (await db.req(cs.get(m.chat))) || { username: m.chat, lastTs: 0, preview: '', unread: 0, readUpTo: '' };
  if (m.sort >= ch.lastTs) {
    ch.lastTs = m.sort;
    ch.preview = m.text.slice(0, 80);
  }
  cs.put(ch);
  await db.done(t);
  notify({ type: 'changed', chats: [m.chat] });
}

// sendText records a message as pending and hands it to the stream owner.
export async function sendText(chat, text) {
  const now = Date.now();
  const m = { id: ulid(now), chat, from: account.username, to: chat, dir: 'out', text, ts: now, sort: now, status: 'pending', tries: 0 };
  await writeMessage(m);
  kick();
  return m.id;
}

export async function retry(id) {
  const m = await db.getMessage(id);
  if (!m || m.status !== 'failed') return;
  await writeMessage({ ...m, status: 'pending', error: null });
  kick();
}

function kick() {
  if (owner) flushOutbox();
  else channel.postMessage({ type: 'kick' });
}

// flushOutbox sends pending messages in order. Only the stream owner does it,
// one pass at a time.
export async function flushOutbox() {
  if (!owner || !isLinked()) return;
  if (outboxBusy) {
    outboxAgain = true;
    return;
  }
  outboxBusy = true;
  try {
    do {
      outboxAgain = false;
      for (const m of await db.pendingMessages()) {
        if (!(await attempt(m))) break; // the relay is unreachable: stop
      }
    } while (outboxAgain);
  } finally {
    outboxBusy = false;
  }
}

function humanDuration(ms) {
  const s = Math.round(Math.abs(ms) / 1000);
  if (s < 90) return `${s} seconds`;
  const m = Math.round(s / 60);
  if (m < 90) return `${m} minutes`;
  return `${Math.round(m / 60)} hours`;
}

// attempt sends one pending message, with the id rules of ADR 0010. It
// returns false when the relay could not be reached.
async function attempt(m, freshOnly = false) {
  let removeId = null;
  if (Date.now() - ulidTime(m.id) > REUSE_WINDOW) {
    // Too old for the relay's clock window: a fresh id, same place.
    removeId = m.id;
    m = { ...m, id: ulid(), tries: 0 };
    await writeMessage(m, removeId);
    removeId = null;
  }
  const reused = m.tries > 0;
  try {
    if (m.bodyFor !== m.id) {
      // Sealed once per id: a retry must send the very same bytes, or the
      // relay would see a different envelope under a known id.
      const { key } = await convKey(m.chat);
      const body = await c.seal(key, c.randomIV(), m.id, account.username, m.chat, JSON.stringify({ type: 'text', text: m.text }));
      m = { ...m, body: c.b64encode(body), bodyFor: m.id };
    }
    m = { ...m, tries: m.tries + 1 };
    await writeMessage(m);
    const res = await api.send(m.id, m.chat, m.body);
    await writeMessage({ ...m, status: 'sent', ts: res.ts, error: null, body: null, bodyFor: null });
    retryDelay = 3000;
    return true;
  } catch (e) {
    if (!(e instanceof api.ApiError)) {
      await writeMessage({ ...m, status: 'failed', error: { code: 'internal', text: 'Could not encrypt this message: ' + e.message } });
      return true;
    }
    if (e.code === 'clock_skew') {
      if (reused && !freshOnly) {
        // The id was kept too long for the relay's clock: once more, fresh.
        const fresh = { ...m, id: ulid(), tries: 0 };
        await writeMessage(fresh, m.id);
        return attempt(fresh, true);
      }
      const off = Date.now() - e.serverTime;
      const how = off > 0 ? 'ahead of' : 'behind';
      await writeMessage({ ...m, status: 'failed', error: { code: 'clock_skew', text: `Not sent: this device's clock is ${humanDuration(off)} ${how} the relay's. Set the correct time, then retry.` } });
      return true;
    }
    if (e.code === 'rate_limited') {
      await writeMessage({ ...m, status: 'failed', error: { code: 'rate_limited', text: `Not sent: too many messages in a short time. Wait ${e.retryAfter || 60} seconds, then retry.` } });
      return true;
    }
    if (e.code === 'unknown_recipient') {
      await writeMessage({ ...m, status: 'failed', error: { code: 'unknown_recipient', text: `Not sent: there is no account named ${m.chat}.` } });
      return true;
    }
    if (e.code === 'network' || e.status >= 500) {
      await writeMessage({ ...m, status: 'pending', error: { code: 'network', text: 'Not sent yet: the relay cannot be reached. It will be retried.' } });
      clearTimeout(retryTimer);
      retryTimer = setTimeout(flushOutbox, retryDelay);
      retryDelay = Math.min(retryDelay * 2, 60000);
      return false;
    }
    await writeMessage({ ...m, status: 'failed', error: { code: e.code, text: 'Not sent: ' + e.message } });
    return true;
  }
}

// ---- contacts and read state ----

// openChat refreshes the contact's key from the directory, flags a changed
// key, and records the chat as read on all own devices.
export async function openChat(username) {
  let res;
  try {
    res = await api.lookup(username);
  } catch (e) {
    return { error: e };
  }
  const pub = c.b64decode(res.publicKey);
  const t = await db.tx(['chats'], 'readwrite');
  const cs = t.objectStore('chats');
  const ch = (await db.req(cs.get(username))) || { username, lastTs: 0, preview: '', unread: 0, readUpTo: '' };
  if (ch.publicKey && c.b64encode(ch.publicKey) !== res.publicKey) {
    // The contact's key changed: a new account key, or someone in the
    // middle. Use the new key, and warn until the person checked the code.
    ch.keyChanged = true;
    keys.delete(username);
  }
  const changed = !!ch.keyChanged;
  ch.publicKey = pub;
  cs.put(ch);
  await db.done(t);
  if (changed) notify({ type: 'changed', chats: [username] });
  await markRead(username);
  return { chat: await db.getChat(username) };
}

// acceptKey clears a key-change warning after the person compared the new
// safety code.
export async function acceptKey(username) {
  const t = await db.tx(['chats'], 'readwrite');
  const cs = t.objectStore('chats');
  const ch = await db.req(cs.get(username));
  if (ch) {
    ch.keyChanged = false;
    cs.put(ch);
  }
  await db.done(t);
  notify({ type: 'changed', chats: [username] });
}

export async function safetyCode(username) {
  const ch = await db.getChat(username);
  const pub = ch && ch.publicKey;
  if (!pub) return null;
  return c.safetyCode(account.username, account.publicKey, username, pub);
}

// markRead moves the chat's read position to its newest incoming message
// and tells the account's other devices, so read state converges.
export async function markRead(username) {
  const msgs = await db.getMessages(username);
  const lastIn = msgs.filter((m) => m.dir === 'in').map((m) => m.id).sort().pop();
  const t = await db.tx(['chats'], 'readwrite');
  const cs = t.objectStore('chats');
  const ch = await db.req(cs.get(username));
  let advanced = false;
  let touched = false;
  if (ch && (ch.unread || (lastIn && lastIn > (ch.readUpTo || '')))) {
    if (lastIn && lastIn > (ch.readUpTo || '')) {
      ch.readUpTo = lastIn;
      advanced = true;
    }
    ch.unread = 0;
    cs.put(ch);
    touched = true;
  }
  await db.done(t);
  if (touched) notify({ type: 'changed', chats: [username] });
  if (advanced && isLinked()) {
    try {
      const id = ulid();
      const { key } = await convKey(account.username);
      const body = await c.seal(key, c.randomIV(), id, account.username, account.username, JSON.stringify({ type: 'read', chat: username, upTo: lastIn }));
      await api.send(id, account.username, c.b64encode(body));
    } catch (e) {
      console.warn('sync: could not share the read position', e.code);
    }
  }
}
