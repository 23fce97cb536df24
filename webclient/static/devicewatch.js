// devicewatch.js: the account's devices as GET /api/devices last said,
// polled every few seconds while the page is visible and this device is
// linked and not revoked. Each poll is told to this tab's screens as an
// event {type: 'devices', list, changed, offline}: list is the last list
// known (null before the first), changed says it differs from the one
// before, offline is true when the relay could not be reached (the list is
// then the last known one). The first list also tells the account whether
// this device is linked (account.syncLinked). Every visible tab polls for
// itself, so the event is not sent to other tabs.

import * as api from './api.js';
import * as account from './account.js';
import { notify } from './election.js';
import { connection } from './stream.js';

export const POLL_MS = 3000;

let timer = null;
let list = null;
let sig = '';
let reported = false; // syncLinked told once since the poll started

function sigOf(l) {
  return JSON.stringify(l.map((d) => [d.id, d.name, d.linked]));
}

function canPoll() {
  return account.me() && account.isLinked() && !account.isRevoked() && connection() !== 'revoked' && document.visibilityState === 'visible';
}

// devices is the last list known, or null.
export function devices() {
  return list;
}

// known records a list fetched by a screen itself, so that the next poll
// tells a change against it.
export function known(l) {
  list = l;
  sig = sigOf(l);
}

async function poll() {
  if (!canPoll()) return;
  let l;
  try {
    l = await api.devices();
  } catch (e) {
    // The next poll tries again; the screens say meanwhile that what they
    // list may be old.
    notify({ type: 'devices', list, changed: false, offline: e.code === 'network' }, false);
    return;
  }
  if (!account.me()) return;
  if (!reported) {
    try {
      await account.syncLinked(l);
      reported = true;
    } catch { /* tried again on the next poll */ }
  }
  const s = sigOf(l);
  const changed = s !== sig;
  list = l;
  sig = s;
  notify({ type: 'devices', list, changed, offline: false }, false);
}

// start polls now and every POLL_MS until stop.
export function start() {
  if (timer) return;
  poll();
  timer = setInterval(poll, POLL_MS);
}

// stop ends the poll and forgets the list (a logout, the account gone).
export function stop() {
  clearInterval(timer);
  timer = null;
  list = null;
  sig = '';
  reported = false;
  notify({ type: 'devices', list: null, changed: true, offline: false }, false);
}
