// notifications.js: Web Push on this device (ADR 0056). The state lives in
// two places, the browser's push subscription (its pushManager) and the
// relay's copy of it (GET /api/push): notifications are on when both hold
// the same endpoint. Nothing here touches IndexedDB; the service worker
// (sw.js) shows fixed text and never reads a push.

import * as api from './api.js';
import * as shell from './shell.js';

export class NotificationError extends Error {
  constructor(code, message) {
    super(message);
    this.code = code;
  }
}

export function supported() {
  return 'serviceWorker' in navigator && 'PushManager' in window && 'Notification' in window;
}

async function browserSubscription() {
  const reg = await navigator.serviceWorker.getRegistration('/');
  return reg ? reg.pushManager.getSubscription() : null;
}

// state says what the Settings switch shows: 'unsupported' (this browser
// has no push), 'disabled' (the relay sends none), 'denied' (blocked in
// the browser's settings), 'on' or 'off'. It never asks for permission.
export async function state() {
  if (!supported()) return 'unsupported';
  let relay;
  try {
    relay = await api.getPush();
  } catch (ex) {
    if (ex.code === 'push_disabled') return 'disabled';
    throw ex;
  }
  if (Notification.permission === 'denied') return 'denied';
  const sub = await browserSubscription();
  return sub && relay.endpoint === sub.endpoint && Notification.permission === 'granted' ? 'on' : 'off';
}

function fromB64url(s) {
  const b = atob(s.replace(/-/g, '+').replace(/_/g, '/'));
  return Uint8Array.from(b, (c) => c.charCodeAt(0));
}

// enable asks for permission (the only place that does, on the switch's
// click), subscribes with the relay's VAPID key and gives the relay the
// subscription.
export async function enable() {
  const permission = await Notification.requestPermission();
  if (permission === 'denied') throw new NotificationError('denied', 'Notifications are blocked for this site. Allow them in the browser\'s site settings, then turn this on again.');
  if (permission !== 'granted') throw new NotificationError('dismissed', 'Notifications were not allowed. Turn the switch on again and choose Allow.');
  const { publicKey } = await api.pushKey();
  const reg = await shell.register();
  await navigator.serviceWorker.ready;
  let sub = await reg.pushManager.getSubscription();
  if (!sub) sub = await reg.pushManager.subscribe({ userVisibleOnly: true, applicationServerKey: fromB64url(publicKey) });
  const j = sub.toJSON();
  await api.putPush(j.endpoint, j.keys.p256dh, j.keys.auth);
}

// disable deletes the relay's copy first, so that no push is sent even if
// the browser fails to unsubscribe, then unsubscribes.
export async function disable() {
  await api.deletePush();
  const sub = supported() ? await browserSubscription() : null;
  if (sub) await sub.unsubscribe();
}

// onPush calls fn when the worker says a push came while this tab was open.
export function onPush(fn) {
  if (!('serviceWorker' in navigator)) return;
  navigator.serviceWorker.addEventListener('message', (e) => {
    if (e.data && e.data.type === 'push') fn();
  });
}
