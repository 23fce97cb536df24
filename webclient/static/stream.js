// stream.js: the event stream of this device, opened by the stream owner
// only: the EventSource, its watchdog and reconnects, the queue of what it
// brought, and the timing of ACKs. What the events mean is inbox.js's: it
// hands its batch handler to onBatch, and this module calls it with the
// events in order, one batch at a time. ACKs are sent strictly after the
// handler's write (ackWritten), coalesced to at most one every
// ACK_INTERVAL_MS while envelopes keep arriving and one at once when the
// page is hidden or closed (ADRs 0013, 0074). While the app is locked, the
// stream is of the device the lock's record names, and its batches go to
// the locked handler instead (heldstream.js, ADR 0113).

import * as api from './api.js';
import * as account from './account.js';
import { isOwner, notify, onRemote, post } from './election.js';

// A stream that has said nothing (not even a ping) for this long is dead.
const SILENCE_LIMIT = 50 * 1000;
// A disabled account's stream is tried again after this.
const DISABLED_RETRY = 60 * 1000;
// ACKs are sent at most this often while envelopes keep arriving: one ACK
// then covers every batch written in the window, instead of one request
// per batch (a live batch is usually one envelope). Short enough that an
// ACKed row stays well within the relay's bound of 1 s (ADR 0074).
export const ACK_INTERVAL_MS = 150;

let es = null; // the open EventSource
let connState = 'connecting';
let watchdog = null;
let reconnectTimer = null;
let reconnectDelay = 1000;
let incoming = []; // stream events not yet processed, in order
let processing = null; // the loop of processIncoming while it runs
/** @type {(batch: object[]) => Promise<void>} */
let handleBatch = async () => {}; // inbox.js's, given by onBatch
let ackSeq = 0; // the highest seq written and not yet ACKed; 0: none
let ackEpoch = null; // the epoch ackSeq belongs to (ADR 0090)
let lastAckAt = -Infinity; // performance.now() when the last ACK was sent
let ackTimer = null; // the one ACK scheduled, if any
/** @type {{device: string, handler: (batch: object[]) => Promise<void>} | null} */
let locked = null; // while the app is locked: its device and handler
let draining = false; // what was kept while locked is being read

// The owner tells a new tab the connection state; other tabs keep it.
onRemote((ev) => {
  if (ev.type === 'hello' && isOwner()) post({ type: 'conn', state: connState });
  if (ev.type === 'conn' && !isOwner()) connState = ev.state;
});

// onBatch sets the handler of what the stream brings: handler(batch) gets
// the events queued since the last call, in order ({kind: 'envelope' |
// 'epoch' | 'ready' | 'purged', src, …}), and resolves once they are
// written.
export function onBatch(handler) {
  handleBatch = handler;
}

// isCurrent reports whether src is the stream open now: events of one
// replaced or stopped are not written, and what they brought is replayed.
export function isCurrent(src) {
  return src === es;
}

// currentSource is the stream open now, or null.
export function currentSource() {
  return es;
}

// opened is told that a stream is ready: the backoff starts over.
export function opened() {
  reconnectDelay = 1000;
  setConn('open');
}

export function connection() {
  return connState;
}

export function setConn(state) {
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
  // What was written and not ACKed is replayed by the next stream and
  // recognised by its seq; a logout ACKs nothing more.
  cancelAck();
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

// streamDevice is the device whose stream is opened: the lock's while
// locked, this profile's otherwise.
function streamDevice() {
  return locked ? locked.device : account.currentDevice()?.id;
}

export function openStream() {
  if (draining) return; // openAfter opens it once the drain is done
  stopStream();
  const device = streamDevice();
  if (!device) return;
  setConn(connState === 'open' ? 'connecting' : connState);
  const src = new EventSource('/api/events?device=' + encodeURIComponent(device));
  es = src;
  src.addEventListener('envelope', (e) => {
    alive();
    incoming.push({ kind: 'envelope', env: JSON.parse(e.data), src });
    processIncoming();
  });
  // First on every stream: the history its seq numbers belong to.
  src.addEventListener('epoch', (e) => {
    alive();
    const d = JSON.parse(e.data);
    incoming.push({ kind: 'epoch', epoch: d.epoch, seq: d.seq, ahead: !!d.ahead, src });
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
    incoming.push({ kind: 'purged', purge: JSON.parse(e.data), src });
    processIncoming();
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
  // The account was deleted: the stream owner clears the profile (sync.js).
  src.addEventListener('deleted', () => {
    stopStream();
    setConn('deleted');
  });
  // The operator disabled the account: try again now and then, since
  // enabling it gives everything back without a login.
  src.addEventListener('disabled', () => {
    setConn('disabled');
    reconnect(DISABLED_RETRY);
  });
  src.addEventListener('logged_out', () => {
    stopStream();
    setConn('loggedout');
  });
  src.addEventListener('shutdown', () => {
    setConn('down');
    reconnect(500);
  });
  // The relay's history went back under this stream: the next one says
  // which epoch it is in now, and this client resynchronises.
  src.addEventListener('rewound', () => {
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

// reconnect opens a fresh stream after a delay, with backoff.
export function reconnect(delay) {
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
    const device = streamDevice();
    if (!list.some((d) => d.id === device)) {
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
    if (e.code === 'account_disabled') {
      setConn('disabled');
      reconnect(DISABLED_RETRY);
      return;
    }
  }
  reconnect();
}

// openLocked opens the stream of device while the app is locked: its
// batches go to handler, which keeps them and ACKs them.
export function openLocked(device, handler) {
  locked = { device, handler };
  openStream();
}

// openAfter ends the locked stream, if any, and opens the stream once
// drain has read what was kept while locked; an open asked for meanwhile
// waits for it. A drain that fails is tried again, with backoff, before
// any stream opens: what it reads is already ACKed, and a stream would
// bring what comes after it first.
export async function openAfter(drain) {
  stopStream();
  locked = null;
  draining = true;
  incoming = [];
  await processing;
  try {
    await drain();
  } catch (e) {
    console.error('sync: reading what came while locked failed', e);
    reconnectTimer = setTimeout(() => {
      reconnectTimer = null;
      openAfter(drain);
    }, reconnectDelay);
    reconnectDelay = Math.min(reconnectDelay * 2, 30000);
    return;
  }
  draining = false;
  openStream();
}

function processIncoming() {
  if (processing) return;
  processing = (async () => {
    try {
      while (incoming.length) {
        const batch = incoming.splice(0);
        await (locked ? locked.handler : handleBatch)(batch);
      }
    } catch (e) {
      // A logout or the account's deletion erased the store under the
      // batch: there is no stream to come back to.
      if (e && e.name === 'NoDatabase') return;
      console.error('sync: processing failed', e);
      reconnect();
    } finally {
      processing = null;
    }
  })();
}

// ackWritten is told the highest seq of a batch just written, and the
// epoch its cursor is in: it ACKs at once if no ACK went in the last
// ACK_INTERVAL_MS, else the one ACK scheduled for then covers it (ADR
// 0074). One stream has one epoch, and a new stream cancels what was
// scheduled, so ackSeq never mixes seq numbers of two histories.
export function ackWritten(seq, epoch) {
  ackSeq = Math.max(ackSeq, seq);
  ackEpoch = epoch;
  if (ackTimer !== null) return;
  const wait = lastAckAt + ACK_INTERVAL_MS - performance.now();
  if (wait <= 0) {
    sendAck(false);
    return;
  }
  ackTimer = setTimeout(() => {
    ackTimer = null;
    sendAck(false);
  }, wait);
}

// sendAck sends the ACK of what waits for one, with the epoch of its
// seq numbers. A failed ACK is not tried again by itself: the next one
// covers it, and what a lost ACK leaves in the queue is replayed and
// recognised by its seq. epoch_changed means the relay's history went back
// under this stream before its catch-up check ended it (a failover, a
// restore): the relay deleted nothing, and the client resynchronises as on
// event: rewound, the next stream's epoch event showing the new history.
function sendAck(keepalive) {
  const upTo = ackSeq;
  if (!upTo) return;
  const src = es;
  ackSeq = 0;
  lastAckAt = performance.now();
  api.ack(upTo, ackEpoch, keepalive).catch((e) => {
    if (e.code === 'epoch_changed' && src !== null && src === es) {
      setConn('down');
      reconnect(500);
      return;
    }
    console.warn('sync: ack failed; the envelopes will be replayed and recognised', e.code);
  });
}

// flushAck sends a scheduled ACK at once, as a keepalive request that
// outlives the page: the timer would never fire once it is gone.
function flushAck() {
  if (ackTimer === null) return;
  clearTimeout(ackTimer);
  ackTimer = null;
  sendAck(true);
}

// pendingAck is the seq the scheduled ACK will cover, 0 when none is
// scheduled. Read by the browser tests; it changes nothing.
export function pendingAck() {
  return ackTimer === null ? 0 : ackSeq;
}

function cancelAck() {
  clearTimeout(ackTimer);
  ackTimer = null;
  ackSeq = 0;
}

addEventListener('pagehide', flushAck);
document.addEventListener('visibilitychange', () => {
  if (document.visibilityState === 'hidden') flushAck();
});

