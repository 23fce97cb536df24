// receipts.js: delivery and read receipts to the other person of a chat
// (docs/crypto.md, "Records"). The store keeps the ids to acknowledge,
// written in the same transaction as the messages (delivered) or the read
// position (read), until the relay accepts the receipt. The stream owner
// sends them batched: at most one receipt per chat and status in each
// window, each naming up to MAX_IDS messages, marked as receipts so that
// they spend a rate-limit bucket of their own and never the budget of the
// person's messages (docs/protocol.md, "Rate limit").

import * as store from './store.js';
import * as api from './api.js';
import * as c from './crypto.js';
import * as account from './account.js';
import { isOwner, onRemote, post, subscribe } from './election.js';
import { ulid } from './ulid.js';
import { MAX_IDS } from './records.js';
import { isBlocked } from './block.js';
import * as mlschat from './mlschat.js';

// WINDOW gathers the receipts of a burst of messages into one.
export const WINDOW = 2000;

let timer = null;
let busy = false;
let again = false;
let backoff = 3000;
let sentCount = 0; // receipts this page sent, for the tests

onRemote((ev) => {
  if (ev.type === 'receipts' && isOwner()) flushReceipts();
});
subscribe((ev) => {
  if (ev.type === 'owner') flushReceipts();
});

// kickReceipts has the stream owner send what waits, from any tab.
export function kickReceipts() {
  if (isOwner()) flushReceipts();
  else post({ type: 'receipts' });
}

export function receiptsSent() {
  return sentCount;
}

// flushReceipts sends what waits at the end of the current window.
export function flushReceipts(delay = WINDOW) {
  if (!isOwner() || timer !== null) return;
  timer = setTimeout(() => {
    timer = null;
    sendAll();
  }, delay);
}

async function sendAll() {
  if (!isOwner() || !account.isLinked()) return;
  if (busy) {
    again = true;
    return;
  }
  busy = true;
  let wait = 0;
  try {
    const all = await store.receiptsToSend();
    for (const [key, q] of Object.entries(all)) {
      for (const status of ['read', 'delivered']) {
        const ids = q[status].slice(0, MAX_IDS);
        if (!ids.length) continue;
        wait = await sendOne(key, status, ids);
        if (wait) return;
      }
    }
    // More than one window's worth, or written while this pass ran.
    const left = await store.receiptsToSend();
    if (again || Object.keys(left).length) {
      again = false;
      wait = WINDOW;
    }
  } catch (e) {
    console.warn('sync: receipts not sent', e && e.name);
    wait = backoff;
  } finally {
    busy = false;
    if (wait) flushReceipts(wait);
  }
}

// sendOne sends one receipt of the queue key (a chat, or a group chat
// and an author: storerows.js receiptKey) and returns 0, or how long to
// wait before the next pass. A group chat's receipt is sealed in its group
// and goes to the author alone.
async function sendOne(key, status, ids) {
  const me = account.me();
  const id = ulid();
  const [chat, author] = key.split(' ');
  // A blocked contact is sent none: it would learn that this account reads.
  if (await isBlocked(author || chat)) {
    await store.receiptsSent(key, status, ids);
    return 0;
  }
  try {
    const record = JSON.stringify({ type: 'receipt', status, ids });
    let body = await mlschat.sealNow(chat, id, record);
    if (!body) {
      const { key: k } = await account.convKey(chat);
      body = await c.seal(k, c.randomIV(), id, me, chat, record);
    }
    await api.sendReceipt(id, author ? [author] : chat, c.b64encode(body));
    sentCount++;
    backoff = 3000;
    await store.receiptsSent(key, status, ids);
    return 0;
  } catch (e) {
    if (e && /** @type {any} */ (e).code === 'not_member') {
      // Removed from the group chat: these receipts never will be.
      await store.receiptsSent(key, status, ids);
      return 0;
    }
    if (!(e instanceof api.ApiError)) {
      // The contact's key cannot be had now: try again later.
      return backoff;
    }
    if (api.transient(e)) {
      const w = backoff;
      backoff = Math.min(backoff * 2, 60000);
      return w;
    }
    if (e.code === 'rate_limited') return (e.retryAfter || 60) * 1000;
    if (e.code === 'unauthenticated' || e.code === 'device_forbidden') return 0;
    // Refused for good (the account is gone): these receipts never will be.
    console.warn('sync: a receipt was refused', e.code);
    await store.receiptsSent(key, status, ids);
    return 0;
  }
}
