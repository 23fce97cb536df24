// outbox.js: sending. A message is written as pending before anything is
// sent; the stream owner sends pending messages in the order they were
// written, one pass at a time, with the id rules of ADR 0010 and the
// outcomes of ADR 0012.

import * as store from './store.js';
import * as api from './api.js';
import * as c from './crypto.js';
import * as account from './account.js';
import { isOwner, notify, onRemote, post } from './election.js';
import { ulid, ulidTime } from './ulid.js';

// REUSE_WINDOW: a retry keeps its id while the id's time is within this of
// the device clock: one minute under the relay's ±5 minute window.
const REUSE_WINDOW = 4 * 60 * 1000;

let busy = false; // a pass is running
let again = false; // something was written during the pass: run once more
let retryTimer = null;
let retryDelay = 3000; // backoff while the relay cannot be reached

// Another tab wrote a pending message: the owner sends it.
onRemote((ev) => {
  if (ev.type === 'kick' && isOwner()) flushOutbox();
});

function changed(chat) {
  notify({ type: 'changed', chats: [chat] });
}

// sendText records a message as pending and hands it to the stream owner.
export async function sendText(chat, text) {
  const now = Date.now();
  const m = { id: ulid(now), chat, from: account.me(), to: chat, dir: 'out', text, ts: now, sort: now, status: 'pending', tries: 0 };
  await store.putOutgoing(m);
  changed(chat);
  kick();
  return m.id;
}

export async function retry(id) {
  const m = await store.getMessage(id);
  if (!m || m.status !== 'failed') return;
  await store.putOutgoing({ ...m, status: 'pending', error: null });
  changed(m.chat);
  kick();
}

function kick() {
  if (isOwner()) flushOutbox();
  else post({ type: 'kick' });
}

// flushOutbox sends pending messages in order. Only the stream owner does it,
// one pass at a time.
export async function flushOutbox() {
  if (!isOwner() || !account.isLinked()) return;
  if (busy) {
    again = true;
    return;
  }
  busy = true;
  try {
    do {
      again = false;
      for (const m of await store.pendingMessages()) {
        if (!(await attempt(m))) break; // the relay is unreachable: stop
      }
    } while (again);
  } finally {
    busy = false;
  }
}

function humanDuration(ms) {
  const s = Math.round(Math.abs(ms) / 1000);
  if (s < 90) return `${s} seconds`;
  const m = Math.round(s / 60);
  if (m < 90) return `${m} minutes`;
  return `${Math.round(m / 60)} hours`;
}

// fail records a refusal and tells the screens.
async function fail(m, error) {
  await store.markFailed(m, error);
  changed(m.chat);
  return true;
}

// attempt sends one pending message, with the id rules of ADR 0010. It
// returns false when the relay could not be reached.
async function attempt(m, freshOnly = false) {
  if (Date.now() - ulidTime(m.id) > REUSE_WINDOW) {
    // Too old for the relay's clock window: a fresh id, same place.
    const oldId = m.id;
    m = { ...m, id: ulid(), tries: 0 };
    await store.renewOutgoing(m, oldId);
    changed(m.chat);
  }
  const reused = m.tries > 0;
  try {
    if (m.bodyFor !== m.id) {
      // Sealed once per id: a retry must send the very same bytes, or the
      // relay would see a different envelope under a known id.
      const { key } = await account.convKey(m.chat);
      const body = await c.seal(key, c.randomIV(), m.id, account.me(), m.chat, JSON.stringify({ type: 'text', text: m.text }));
      m = { ...m, body: c.b64encode(body), bodyFor: m.id };
    }
    m = { ...m, tries: m.tries + 1 };
    await store.putOutgoing(m);
    changed(m.chat);
    const res = await api.send(m.id, m.chat, m.body);
    await store.markSent(m, res.ts);
    changed(m.chat);
    retryDelay = 3000;
    return true;
  } catch (e) {
    if (!(e instanceof api.ApiError)) {
      return fail(m, { code: 'internal', text: 'Could not encrypt this message: ' + e.message });
    }
    if (e.code === 'clock_skew') {
      if (reused && !freshOnly) {
        // The id was kept too long for the relay's clock: once more, fresh.
        const fresh = { ...m, id: ulid(), tries: 0 };
        await store.renewOutgoing(fresh, m.id);
        changed(m.chat);
        return attempt(fresh, true);
      }
      const off = Date.now() - e.serverTime;
      const how = off > 0 ? 'ahead of' : 'behind';
      return fail(m, { code: 'clock_skew', text: `Not sent: this device's clock is ${humanDuration(off)} ${how} the relay's. Set the correct time, then retry.` });
    }
    if (e.code === 'rate_limited') {
      return fail(m, { code: 'rate_limited', text: `Not sent: too many messages in a short time. Wait ${e.retryAfter || 60} seconds, then retry.` });
    }
    if (e.code === 'unknown_recipient') {
      return fail(m, { code: 'unknown_recipient', text: `Not sent: there is no account named ${m.chat}.` });
    }
    if (e.code === 'network' || e.status >= 500) {
      await store.markWaiting(m, { code: 'network', text: 'Not sent yet: the relay cannot be reached. It will be retried.' });
      changed(m.chat);
      clearTimeout(retryTimer);
      retryTimer = setTimeout(flushOutbox, retryDelay);
      retryDelay = Math.min(retryDelay * 2, 60000);
      return false;
    }
    return fail(m, { code: e.code, text: 'Not sent: ' + e.message });
  }
}
