// sw.js: the client's service worker, served from the root so that its
// scope is the whole app. Each part keeps to its own functions, and each
// event listener is one call into a part.
//
// Push (ADR 0056): a push is only a signal. It carries nothing (the relay
// sends an empty payload), so the worker never reads it: with a tab of the
// app visible it shows nothing, since that tab syncs through its stream,
// and it tells the tabs to sync; otherwise it shows a notification with
// fixed text. A click focuses a tab of the app or opens one, which syncs
// when it starts.

self.addEventListener('install', () => self.skipWaiting());
self.addEventListener('activate', (event) => event.waitUntil(self.clients.claim()));
self.addEventListener('push', (event) => event.waitUntil(pushReceived()));
self.addEventListener('notificationclick', (event) => event.waitUntil(notificationClicked(event.notification)));

// ---- push ----

// The notification: the same words for every push, whoever wrote what.
// The tag makes a new push replace the notification instead of stacking.
const PUSH_TITLE = 'New message';
const PUSH_OPTIONS = { tag: 'new-message', renotify: true };

// appWindows lists the open tabs of the app, in the order the browser
// keeps them (most recently focused first in Chromium).
function appWindows() {
  return self.clients.matchAll({ type: 'window', includeUncontrolled: true });
}

async function pushReceived() {
  const windows = await appWindows();
  if (!windows.some((w) => w.visibilityState === 'visible')) await self.registration.showNotification(PUSH_TITLE, PUSH_OPTIONS);
  // Last: the open tabs, hidden or not, sync now.
  for (const w of windows) w.postMessage({ type: 'push' });
}

async function notificationClicked(notification) {
  notification.close();
  const windows = await appWindows();
  if (windows.length > 0) {
    await windows[0].focus();
    return;
  }
  await self.clients.openWindow('/');
}
