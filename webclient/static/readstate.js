// readstate.js: read positions, shared with the account's other devices
// as encrypted read records to the account itself (ADR 0015, refined by
// ADRs 0041 and 0091). What a position means, and what is unread, is
// readpos.js's. Records that arrive are applied by the inbox, in the
// batch's transaction; records this device made are kept by the store and
// sent by the stream owner until the relay accepts them.

import * as store from './store.js';
import * as api from './api.js';
import * as c from './crypto.js';
import * as account from './account.js';
import { isOwner, notify, onRemote, post, subscribe } from './election.js';
import { ulid } from './ulid.js';
import { kickReceipts } from './receipts.js';
import * as mlschat from './mlschat.js';

let busy = false; // a pass is running
let again = false; // a record was written during the pass: run once more
let retryTimer = null;
let retryDelay = 3000; // backoff while the relay cannot be reached

// Another tab moved a position: the owner sends it. The owner sends what
// is left when it takes the stream and whenever the stream is ready again.
onRemote((ev) => {
  if (ev.type === 'reads' && isOwner()) flushReads();
});
subscribe((ev) => {
  if (ev.type === 'owner' || (ev.type === 'conn' && ev.state === 'open')) flushReads();
});

function kick() {
  if (isOwner()) flushReads();
  else post({ type: 'reads' });
}

// markSeen reads the messages ids of chat username: they were on this
// device's screen, in a visible tab (the chat screen watches what is in
// view). The position moves to the newest of them and a late one is read
// itself (readpos.js); the change is sent to the other devices, and a read
// receipt to the other person.
export async function markSeen(username, ids) {
  if (!ids.length) return;
  const { advanced, receipted } = await store.markSeen(username, ids);
  if (advanced) {
    notify({ type: 'changed', chats: [username] });
    kick();
  }
  if (receipted) kickReceipts();
}

// markUnread moves the chat's read position back to just before message
// id, on this device and, by a record with a higher version, on the
// account's other devices.
export async function markUnread(username, id) {
  const msgs = await store.getMessages(username);
  const i = msgs.findIndex((m) => m.id === id);
  if (i < 0) return;
  // Just before the message: the one before it, or, for the first this
  // device holds, its own sort with the least id.
  const prev = msgs[i - 1];
  await store.markUnread(username, prev ? { sort: prev.sort, id: prev.id } : { sort: msgs[i].sort, id: '' });
  notify({ type: 'changed', chats: [username] });
  kick();
}

function later(delay) {
  clearTimeout(retryTimer);
  retryTimer = setTimeout(flushReads, delay);
}

// flushReads sends the read records not yet accepted, each under a fresh
// id (a record sent twice changes nothing). Only the stream owner does it,
// one pass at a time.
export async function flushReads() {
  if (!isOwner() || !account.isLinked()) return;
  if (busy) {
    again = true;
    return;
  }
  busy = true;
  try {
    do {
      again = false;
      for (const rec of await store.readRecordsToSend()) {
        if (!(await sendRecord(rec))) return;
      }
    } while (again);
  } finally {
    busy = false;
  }
}

// sendRecord returns false when the pass must stop: the relay cannot be
// reached, asks to wait, or no longer takes this device.
async function sendRecord(rec) {
  try {
    const me = account.me();
    const id = ulid();
    const record = JSON.stringify({ type: 'read', ...rec });
    let body = await mlschat.sealNow(me, id, record);
    if (!body) {
      const { key } = await account.convKey(me);
      body = await c.seal(key, c.randomIV(), id, me, me, record);
    }
    await api.send(id, me, c.b64encode(body));
    await store.readRecordSent(rec);
    retryDelay = 3000;
    return true;
  } catch (e) {
    if (!(e instanceof api.ApiError)) {
      console.warn('sync: could not seal a read record', e.name);
      return false;
    }
    if (api.transient(e)) {
      later(retryDelay);
      retryDelay = Math.min(retryDelay * 2, 60000);
      return false;
    }
    if (e.code === 'rate_limited') {
      later((e.retryAfter || 60) * 1000);
      return false;
    }
    if (e.code === 'unauthenticated' || e.code === 'device_forbidden') return false; // kept: the screens say what happened
    // Any other refusal would refuse this record again: drop it.
    console.warn('sync: a read record was refused', e.code);
    await store.readRecordSent(rec);
    return true;
  }
}
