// sw.js: the client's service worker, served from the root so that its
// scope is the whole app. Each part keeps to its own functions, and each
// event listener is one call into a part.
//
// Push (ADR 0056): a push is only a signal. It carries nothing (the relay
// sends an empty payload), so the worker never reads it: with a tab of the
// app visible it shows nothing, since that tab syncs through its stream,
// and it tells the tabs to sync; otherwise it shows a notification with
// fixed text. A click focuses a tab of the app or opens one, which syncs
// when it starts. A locked page that received a message asks for the same
// notification (heldNews).
//
// The app shell (ADR 0065): the page and the client's static files, never
// /api/ or the event stream, are cached when the worker installs, in a
// cache named by the shell's version. They are fetched from the relay
// first; the cache answers only when the relay cannot, so that a reload
// while the relay is down opens the app on what IndexedDB holds. A relay
// with a changed client serves a changed sw.js: the new worker caches the
// new shell and deletes the old one when it activates.

// The worker's global scope, typed as one for the type checker
// (tools/typecheck).
const sw = /** @type {ServiceWorkerGlobalScope} */ (/** @type {unknown} */ (self));

sw.addEventListener('install', (event) => event.waitUntil(installed()));
sw.addEventListener('activate', (event) => event.waitUntil(activated()));
sw.addEventListener('fetch', (event) => fetched(event));
sw.addEventListener('push', (event) => event.waitUntil(pushReceived()));
sw.addEventListener('notificationclick', (event) => event.waitUntil(notificationClicked(event.notification)));
sw.addEventListener('message', (event) => {
  if (event.data && event.data.type === 'heldNews') event.waitUntil(heldNews());
});

// ---- the worker ----

// A new worker takes over at once: every page was fetched from the relay
// first, so no page runs on an older shell than the relay's.
async function installed() {
  await cacheShell();
  await sw.skipWaiting();
}

async function activated() {
  await dropOldShells();
  await sw.clients.claim();
}

// ---- the app shell ----

const SHELL = { version: '', files: [] }; // filled in by the relay
const SHELL_PREFIX = 'shell-';
const SHELL_CACHE = SHELL_PREFIX + SHELL.version;

// NETWORK_WAIT is how long a request of the shell waits for the relay
// before the cached copy answers: a network that swallows requests (no
// answer, no error) must not keep the app from opening. An answer that
// comes after the cached copy was used is dropped.
const NETWORK_WAIT = 4000;

// cacheShell fetches the whole shell past the HTTP cache, so that the
// cache holds one version; one missing file fails the install and the
// previous worker stays.
async function cacheShell() {
  if (!SHELL.version) return;
  const cache = await caches.open(SHELL_CACHE);
  await cache.addAll(SHELL.files.map((f) => new Request(f, { cache: 'reload' })));
}

async function dropOldShells() {
  for (const name of await caches.keys()) {
    if (name.startsWith(SHELL_PREFIX) && name !== SHELL_CACHE) await caches.delete(name);
  }
}

// shellPath is the cached file that answers request, or null when the
// request is not the shell's: another method, another origin, the API,
// the event stream, or any other path.
function shellPath(request) {
  if (!SHELL.version || request.method !== 'GET') return null;
  const url = new URL(request.url);
  if (url.origin !== sw.location.origin) return null;
  if (request.mode === 'navigate') return url.pathname === '/' || url.pathname === '/index.html' ? '/' : null;
  return SHELL.files.includes(url.pathname) ? url.pathname : null;
}

// fetched answers the shell's requests; every other request goes to the
// network untouched, as with no worker.
function fetched(event) {
  const path = shellPath(event.request);
  if (path) event.respondWith(fromShell(event.request, path));
}

// fromShell asks the relay first. The cached copy answers when the relay
// cannot be reached, answers with a server error (a proxy in front of a
// relay that is down), or is slower than NETWORK_WAIT.
async function fromShell(request, path) {
  const cached = () => caches.match(path, { cacheName: SHELL_CACHE });
  const net = fetch(request);
  net.catch(() => {}); // answered from the cache meanwhile: nobody waits
  let timer;
  const late = new Promise((resolve) => { timer = setTimeout(() => resolve(null), NETWORK_WAIT); });
  try {
    const resp = await Promise.race([net, late]);
    if (resp && resp.status < 500) return resp;
    const hit = await cached();
    if (hit) return hit;
    return resp || await net;
  } catch (e) {
    const hit = await cached();
    if (hit) return hit;
    throw e;
  } finally {
    clearTimeout(timer);
  }
}

// ---- push ----

// The notification: the same words for every push, whoever wrote what.
// The tag makes a new push replace the notification instead of stacking.
const PUSH_TITLE = 'New message';
const PUSH_OPTIONS = { tag: 'new-message', renotify: true };

// appWindows lists the open tabs of the app, in the order the browser
// keeps them (most recently focused first in Chromium).
function appWindows() {
  return sw.clients.matchAll({ type: 'window', includeUncontrolled: true });
}

async function pushReceived() {
  const windows = await appWindows();
  if (!windows.some((w) => w.visibilityState === 'visible')) await sw.registration.showNotification(PUSH_TITLE, PUSH_OPTIONS);
  // Last: the open tabs, hidden or not, sync now.
  for (const w of windows) w.postMessage({ type: 'push' });
}

// heldNews: a locked page kept a message (heldstream.js), which it does
// not read. The notification is the push's, shown as a push would be, if
// notifications are allowed.
async function heldNews() {
  if (Notification.permission !== 'granted') return;
  const windows = await appWindows();
  if (!windows.some((w) => w.visibilityState === 'visible')) await sw.registration.showNotification(PUSH_TITLE, PUSH_OPTIONS);
}

async function notificationClicked(notification) {
  notification.close();
  const windows = await appWindows();
  if (windows.length > 0) {
    await windows[0].focus();
    return;
  }
  await sw.clients.openWindow('/');
}
