// shell.js: the offline app shell (ADR 0065). It registers the service
// worker, sw.js, which caches the page and the client's static files, so
// that a reload while the relay is down opens the app on what IndexedDB
// holds. It is the worker of push too (notifications.js): one per scope.

const WORKER = '/sw.js';

// register registers the worker, or checks it for an update, and gives
// its registration.
export const register = () => navigator.serviceWorker.register(WORKER, { scope: '/' });

// install registers the worker at page start, as the browser also checks
// it on every page load. Offline, the check fails and the worker installed
// stays: nothing to do, nothing to say.
export function install() {
  if (!('serviceWorker' in navigator)) return;
  register().catch(() => {});
}
