// disappear.js: the sweep that erases disappearing messages once their
// time is up (expiry.js, storeexpire.js). Every tab of the profile runs
// it: erasing is one transaction that changes nothing the second time.
// It wakes at the next message due, at least every minute (a timer of a
// sleeping computer fires late), and at once when the page is shown or
// focused again and when a change may have started a message's time.

import * as store from './store.js';
import * as api from './api.js';
import { notify, subscribe } from './election.js';

// MAX_WAIT: the longest the sweep sleeps, in milliseconds.
const MAX_WAIT = 60000;

let timer = null;
let running = false;
let again = false;

// sweep erases what is due and sleeps until the next one.
export async function sweep() {
  if (running) {
    again = true;
    return;
  }
  running = true;
  try {
    do {
      again = false;
      let next = null;
      try {
        const r = await store.expireDue(Date.now());
        if (r.changed.size) notify({ type: 'changed', chats: [...r.changed] });
        // The relay no longer waits for this device to fetch them.
        for (const id of r.confirm) await api.attachmentReceived(id).catch(() => {});
        next = r.next;
      } catch (e) {
        if (!(e instanceof store.NoDatabase)) console.warn('disappear: the sweep failed: ' + (e && e.name));
      }
      schedule(next);
    } while (again);
  } finally {
    running = false;
  }
}

function schedule(next) {
  clearTimeout(timer);
  const wait = next === null ? MAX_WAIT : Math.min(Math.max(next - Date.now(), 0), MAX_WAIT);
  timer = setTimeout(sweep, wait);
}

// soon reschedules the sweep for the next message due, which a change may
// have made sooner.
async function soon() {
  if (running) return;
  const next = await store.nextExpiry().catch(() => null);
  if (next !== null && !running) schedule(next);
}

subscribe((ev) => {
  if (ev.type === 'changed') soon();
});
document.addEventListener('visibilitychange', () => {
  if (document.visibilityState === 'visible') sweep();
});
addEventListener('focus', () => sweep());
addEventListener('online', () => sweep());
sweep();
