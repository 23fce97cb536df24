// inbox.js: the event stream of this device, opened by the stream owner
// only. It takes the envelopes that arrived, decrypts them, has the store
// write them in one transaction with the cursor, and ACKs strictly after
// that transaction completed, so a crash between receive and write loses
// nothing (ADR 0013). It also watches the stream and reconnects.

import * as store from './store.js';
import * as api from './api.js';
import * as c from './crypto.js';
import * as account from './account.js';
import { isOwner, notify, onRemote, post } from './election.js';
import { flushOutbox } from './outbox.js';

// A stream that has said nothing (not even a ping) for this long is dead.
const SILENCE_LIMIT = 50 * 1000;

let es = null; // the open EventSource
let connState = 'connecting';
let watchdog = null;
let reconnectTimer = null;
let reconnectDelay = 1000;
let incoming = []; // stream events not yet processed, in order
let processing = false;
let gapRetried = false;

// The owner tells a new tab the connection state; other tabs keep it.
onRemote((ev) => {
  if (ev.type === 'hello' && isOwner()) post({ type: 'conn', state: connState });
  if (ev.type === 'conn' && !isOwner()) connState = ev.state;
});

export function connection() {
  return connState;
}

function setConn(state) {
  if (connState === state) return;
  connState = state;
  notify({ type: 'conn', state });
}

// streaming reports whether this tab has an event stream open or scheduled.
export function streaming() {
  return !!es || reconnectTimer !== null;
}

export function stopStream() {
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

export function openStream() {
  stopStream();
  const device = account.currentDevice();
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
    if (!list.some((d) => d.id === account.currentDevice().id)) {
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

async function fromDeviceKey(id) {
  const list = await api.devices();
  const d = list.find((x) => x.id === id);
  return d ? c.b64decode(d.publicKey) : null;
}

// decrypt turns one envelope into what to write: a message, a read position,
// an account key, or nothing.
async function decrypt(env) {
  const me = account.current();
  const device = account.currentDevice();
  const body = c.b64decode(env.body);
  const self = env.from === me.username && env.to === me.username;
  if (self && c.isLink(body)) {
    if (account.isLinked()) return { kind: 'skip' };
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
  const chat = env.from === me.username ? env.to : env.from;
  const dir = env.from === me.username ? 'out' : 'in';
  const base = { id: env.id, chat, from: env.from, to: env.to, dir, ts: env.ts, sort: env.ts, seq: env.seq, status: dir === 'out' ? 'sent' : 'received' };
  let record = null;
  try {
    const { key, pub } = await account.convKey(chat);
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
      await account.linked(r.privateKey);
      openStream();
      return;
    }
  }
}

async function processBatch(batch) {
  if (!account.isLinked()) return waitForLink(batch);
  const cursor = (await store.getMeta('cursor')) || { lastSeq: 0 };
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

  let changed = new Set();
  if (results.length || ackTo > cursor.lastSeq) {
    changed = await store.storeBatch(results, Math.max(cursor.lastSeq, last));
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
