// heldstream.js: the stream owner while the app is locked (ADR 0113;
// docs/storage.md, "App lock"). A locked page holds no key that opens the
// store, yet what arrives should not wait on the relay: the owner streams
// for the device the lock's record names, keeps each batch sealed to the
// lock's public key (storelock.js, holdEvents) and ACKs it once kept, so
// that nothing is lost and nothing is read. It says "New message", no more.
// At the next start of the stream after an unlock, drainHeld hands the
// kept batches to the inbox in order, before the stream opens again
// (stream.js, openAfter). Nothing else runs while locked: no sending, no
// receipts, no upkeep of the groups.

import * as store from './store.js';
import * as api from './api.js';
import * as account from './account.js';
import { notify, start as startElection } from './election.js';
import { openLocked, isCurrent, ackWritten, opened } from './stream.js';
import { processBatch } from './inbox.js';

// epochs holds the epoch each locked stream told first, for its ACKs.
const epochs = new WeakMap();

// holdBatch is the stream's handler while locked: the batch kept, then
// ACKed.
async function holdBatch(batch) {
  let src = null;
  let seq = 0;
  const events = [];
  for (const item of batch) {
    if (!isCurrent(item.src)) continue; // from a stream that was replaced
    src = item.src;
    if (item.kind === 'epoch') epochs.set(src, item.epoch);
    if (item.kind === 'ready') opened();
    if (item.kind === 'envelope') seq = Math.max(seq, item.env.seq);
    events.push({ ...item, src: undefined });
  }
  if (!events.length) return;
  await store.holdEvents(events);
  if (!seq || !isCurrent(src)) return;
  ackWritten(seq, epochs.get(src));
  news();
}

// news tells that something arrived while locked: the lock screen says so,
// in every tab, and the service worker shows "New message" when no page of
// the app is in view, as for a push.
function news() {
  notify({ type: 'heldNews' });
  const sw = navigator.serviceWorker && navigator.serviceWorker.controller;
  if (sw) sw.postMessage({ type: 'heldNews' });
}

/**
 * whileLocked joins the election for the stream owner while the app is
 * locked: the owner streams for the lock's device and keeps what comes.
 * Nothing happens if the lock names no device (one waiting to be linked).
 */
export function whileLocked() {
  const device = store.lockDevice();
  if (!device) return;
  api.setDevice(device);
  startElection({ canOwn: () => true, open: () => openLocked(device, holdBatch) });
}

/**
 * drainHeld reads the batches kept while locked through the inbox, oldest
 * first, each deleted once what it held is written: one read twice is
 * recognised by its seq numbers, as a replay is. It runs in the stream
 * owner, with the store open, before its stream opens; it also names this
 * device in the lock's record, for the next time it locks.
 */
export async function drainHeld() {
  const device = account.currentDevice();
  const linked = account.isLinked() && device;
  if (store.lockState().state === 'unlocked') await store.setLockDevice(linked ? device.id : null);
  if (!linked) return;
  for (let h = await store.nextHeld(); h; h = await store.nextHeld()) {
    await processBatch(h.events.map((e) => ({ ...e, src: null })), true);
    await store.dropHeld(h.n);
  }
}
