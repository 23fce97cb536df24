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
// device to stream for; stream.open opens (or reopens) the stream.
export function start(stream) {
  post({ type: 'hello' });
  if (started) {
    if (owner) stream.open();
    return;
  }
  started = true;
  const become = () => {
    if (!stream.canOwn()) return;
    owner = true;
    notify({ type: 'owner' }, false);
    stream.open();
  };
  if (!navigator.locks) {
    become();
    return;
  }
  navigator.locks.request('relay-stream', () => {
    become();
    return new Promise(() => {}); // held for the life of this tab
  });
}
