// block.js: blocking a contact (ADR 0119). A block is this account's: the
// device that blocks writes it at once and tells the account's other
// devices with an encrypted block record to the account itself, which the
// stream owner sends until the relay accepts it (as read records), and
// again when a device joins the account's own group. Every
// device then drops what the contact sends from the block on, without
// showing it, notifying it or sending it a receipt (storeblock.js). The
// contact is not told, and the relay does not learn it: it still queues
// the contact's envelopes, which the devices ACK and drop.

import * as store from './store.js';
import * as api from './api.js';
import * as c from './crypto.js';
import * as account from './account.js';
import { isOwner, notify, onRemote, post, subscribe } from './election.js';
import { ulid } from './ulid.js';
import { isGroup } from './groupmeta.js';
import * as mlschat from './mlschat.js';

let busy = false;
let again = false;
let retryTimer = null;
let retryDelay = 3000;

onRemote((ev) => {
  if (ev.type === 'blocks' && isOwner()) flushBlocks();
});
subscribe((ev) => {
  if (ev.type === 'owner' || (ev.type === 'conn' && ev.state === 'open')) flushBlocks();
  // A device linked since never had the records: they go again.
  if (ev.type === 'ownDeviceAdded') store.blocksToTellAgain().then(flushBlocks, () => {});
});

// isBlocked reports whether this account blocks username now.
export async function isBlocked(username) {
  const ch = await store.getChat(username);
  return !!(ch && ch.block && ch.block.on);
}

// setBlocked blocks the contact username (on) or unblocks it, on every
// device of the account. Unblocking does not bring back what was dropped.
export async function setBlocked(username, on) {
  if (!username || username === account.me() || isGroup(username)) throw new Error('Only a contact can be blocked.');
  await store.setBlock(username, !!on, Date.now());
  notify({ type: 'changed', chats: [username] });
  if (isOwner()) flushBlocks();
  else post({ type: 'blocks' });
}

function later(delay) {
  clearTimeout(retryTimer);
  retryTimer = setTimeout(flushBlocks, delay);
}

// flushBlocks sends the block records not yet accepted, each under a
// fresh id (a record sent twice changes nothing: the newest at wins). Only
// the stream owner sends, one pass at a time.
export async function flushBlocks() {
  if (!isOwner() || !account.isLinked()) return;
  if (busy) {
    again = true;
    return;
  }
  busy = true;
  try {
    do {
      again = false;
      for (const ch of await store.getChats()) {
        if (ch.block && !ch.block.sent && !(await sendBlock(ch.username, ch.block))) return;
      }
    } while (again);
  } finally {
    busy = false;
  }
}

// sendBlock returns false when the pass must stop: the relay cannot be
// reached, asks to wait, or no longer takes this device.
async function sendBlock(username, block) {
  try {
    const me = account.me();
    const id = ulid();
    const record = JSON.stringify({ type: 'block', chat: username, on: block.on, at: block.at });
    let body = await mlschat.sealNow(me, id, record);
    if (!body) {
      const { key } = await account.convKey(me);
      body = await c.seal(key, c.randomIV(), id, me, me, record);
    }
    await api.send(id, me, c.b64encode(body));
    await store.blockSent(username, block.at);
    retryDelay = 3000;
    return true;
  } catch (e) {
    if (!(e instanceof api.ApiError)) {
      console.warn('sync: could not seal a block record', e && e.name);
      later(retryDelay);
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
    // Any other refusal would refuse it again: this device keeps its block.
    console.warn('sync: a block record was refused', e.code);
    await store.blockSent(username, block.at);
    return true;
  }
}
