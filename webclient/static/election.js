// election.js: which tab of this browser profile owns the event stream
// (ADR 0014), and the events every tab hears. Tabs elect the owner with
// the Web Locks API; the lock is held until the tab closes, then the
// browser hands it to the next tab. Events travel to the other tabs over
// the BroadcastChannel 'relay'.

const channel = new BroadcastChannel('relay');
const listeners = new Set(); // the screens
const remoteHandlers = []; // the modules that keep state from other tabs

let owner = false;
let started = false;
let leave = null; // aborts the lock request, or releases the lock held
// the stream of the latest start: a tab that starts locked and is unlocked
// before it is elected opens the stream of the unlocked app
let streamNow = { canOwn: () => false, open: () => {} };

// subscribe hears every event, from this tab and from the others.
export function subscribe(fn) {
  listeners.add(fn);
  return () => listeners.delete(fn);
}

// onRemote hears the events of other tabs, before the screens do.
export function onRemote(fn) {
  remoteHandlers.push(fn);
}

// notify tells this tab's screens, and the other tabs unless broadcast is
// false.
export function notify(ev, broadcast = true) {
  for (const fn of listeners) fn(ev);
  if (broadcast) channel.postMessage(ev);
}

// post tells only the other tabs.
export function post(ev) {
  channel.postMessage(ev);
}

channel.onmessage = (e) => {
  const ev = e.data;
  for (const fn of remoteHandlers) fn(ev);
  for (const fn of listeners) fn(ev);
};

export function isOwner() {
  return owner;
}

// start joins the election. stream.canOwn says whether this tab has a
// device to stream for; stream.open opens (or reopens) the stream. A
// later start replaces the stream the owner opens.
export function start(stream) {
  post({ type: 'hello' });
  streamNow = stream;
  if (started) {
    if (owner) stream.open();
    return;
  }
  started = true;
  const become = () => {
    owner = true;
    notify({ type: 'owner' }, false);
    streamNow.open();
  };
  if (!navigator.locks) {
    if (stream.canOwn()) become();
    return;
  }
  const quit = new AbortController();
  leave = quit;
  navigator.locks.request('relay-stream', { signal: quit.signal }, () => {
    if (quit.signal.aborted || !streamNow.canOwn()) {
      // Nothing to stream for: let the next tab have it.
      if (leave === quit) started = false;
      return undefined;
    }
    become();
    // Held for the life of this tab, or until stop.
    return new Promise((resolve) => quit.signal.addEventListener('abort', resolve));
  }).catch(() => { /* stopped before the lock was granted */ });
}

// stop leaves the election: a logout. The lock, held or asked for, is
// released, so the next tab (or this one, logged in again) can own the
// stream. The caller closes the stream.
export function stop() {
  if (leave) leave.abort();
  leave = null;
  started = false;
  owner = false;
}
