// expiry.js: disappearing messages as pure functions (docs/crypto.md,
// "Disappearing messages"): what a chat's timer is called, its line, when
// a message starts to disappear on this device, and what is left of one
// that did. The store applies them inside its transactions
// (storeexpire.js); disappear.js runs the sweep.

import { after } from './order.js';
import { isUnread } from './readpos.js';

const MINUTE = 60;
const HOUR = 3600;
const DAY = 86400;
const WEEK = 604800;

// TIMER_CHOICES are the timers the screens offer, in seconds (0: off).
export const TIMER_CHOICES = [0, 5 * MINUTE, HOUR, DAY, WEEK, 4 * WEEK];

// timerLabel is a timer's length in words: "5 minutes", "1 day", "4 weeks"
// ("Off" for 0).
export function timerLabel(seconds) {
  if (!seconds) return 'Off';
  const unit = (n, one) => `${n} ${one}${n === 1 ? '' : 's'}`;
  if (seconds % WEEK === 0) return unit(seconds / WEEK, 'week');
  if (seconds % DAY === 0) return unit(seconds / DAY, 'day');
  if (seconds % HOUR === 0) return unit(seconds / HOUR, 'hour');
  if (seconds % MINUTE === 0) return unit(seconds / MINUTE, 'minute');
  return unit(seconds, 'second');
}

// timerShort is a timer's length as a badge says it: "5m", "1h", "1d",
// "4w".
export function timerShort(seconds) {
  if (seconds % WEEK === 0) return `${seconds / WEEK}w`;
  if (seconds % DAY === 0) return `${seconds / DAY}d`;
  if (seconds % HOUR === 0) return `${seconds / HOUR}h`;
  if (seconds % MINUTE === 0) return `${seconds / MINUTE}m`;
  return `${seconds}s`;
}

// timerLine is the line a chat shows where its timer changed, as me reads
// it.
export function timerLine(by, seconds, me) {
  const who = by === me ? 'You' : by;
  if (!seconds) return `${who} turned off disappearing messages.`;
  return `${who} set messages to disappear after ${timerLabel(seconds)}.`;
}

// timerOf is a chat's timer in seconds (0: off).
export function timerOf(ch) {
  return ch && ch.timer ? ch.timer.seconds : 0;
}

// takeTimer sets the chat's timer from a timer record of order key key
// by author, if it is later than the one the chat holds (the last in the
// chat's order wins on every device). It returns whether it did.
export function takeTimer(ch, seconds, key, author) {
  if (ch.timer && !after(key, ch.timer)) return false;
  ch.timer = { seconds, sort: key.sort, id: key.id, by: author };
  return true;
}

// outgoing reports whether message m disappears from its sent time: the
// account's own, on each of its devices.
function outgoing(m) {
  return m.dir === 'out' && !m.kind && !m.event;
}

// startOnArrival sets when an own message that disappears goes, from the
// relay's time of it (its sort): on the sending device once accepted, on
// the account's other devices as it arrives. A message from someone else
// starts when it is read here (startRead).
export function startOnArrival(m) {
  if (m.expires && !m.expireAt && !m.expired && outgoing(m) && Number.isFinite(m.sort)) m.expireAt = m.sort + m.expires * 1000;
  return m;
}

// startRead sets when the messages of chat ch that it now holds as read
// go: at (milliseconds) plus their lifetime. at is when they were read:
// now, or the time another device of the account read them (never later
// than now). It returns the messages it changed.
export function startRead(ch, msgs, at) {
  const out = [];
  for (const m of msgs) {
    if (!m.expires || m.expireAt || m.expired || m.dir !== 'in' || m.waiting || isUnread(m, ch)) continue;
    m.expireAt = at + m.expires * 1000;
    out.push(m);
  }
  return out;
}

// erase is what is kept of a message once it disappeared: its id and place
// (a replay of it is known and not shown again), nothing it said.
export function erase(m, now) {
  const gone = { ...m, text: null, files: null, replyTo: null, reactions: {}, record: null, body: null, hidden: true, expired: now };
  delete gone.expireAt;
  delete gone.edited;
  delete gone.mention;
  return gone;
}

// due reports whether message m is to disappear by now.
export function due(m, now) {
  return !!m.expireAt && m.expireAt <= now;
}
