// time.js: how the client writes times and days, in the browser's locale.
// Every function takes the present as now (milliseconds), so that what a
// label says depends on nothing but its arguments.

const dayMs = 864e5;

// startOfDay is local midnight of the day of ts.
function startOfDay(ts) {
  const d = new Date(ts);
  d.setHours(0, 0, 0, 0);
  return d.getTime();
}

// daysAgo counts calendar days from ts to now: 0 today, 1 yesterday. It
// rounds, so that a day of 23 or 25 hours (a clock change) counts as one.
function daysAgo(ts, now) {
  return Math.round((startOfDay(now) - startOfDay(ts)) / dayMs);
}

// clock is the time of day, as the locale writes it ("14:05", "2:05 PM").
export function clock(ts) {
  return new Date(ts).toLocaleTimeString(undefined, { hour: 'numeric', minute: '2-digit' });
}

// day is a date separator of a chat: Today, Yesterday, a weekday within
// the week, then the date, with the year when it is not this year's.
export function day(ts, now = Date.now()) {
  const n = daysAgo(ts, now);
  if (n === 0) return 'Today';
  if (n === 1) return 'Yesterday';
  const d = new Date(ts);
  if (n > 1 && n < 7) return d.toLocaleDateString(undefined, { weekday: 'long' });
  const sameYear = d.getFullYear() === new Date(now).getFullYear();
  return d.toLocaleDateString(undefined, sameYear ? { weekday: 'long', month: 'long', day: 'numeric' } : { year: 'numeric', month: 'long', day: 'numeric' });
}

// short is the time of a chat-list row: the time today, then Yesterday,
// a short weekday within the week, then a short date.
export function short(ts, now = Date.now()) {
  const n = daysAgo(ts, now);
  if (n === 0) return clock(ts);
  if (n === 1) return 'Yesterday';
  const d = new Date(ts);
  if (n > 1 && n < 7) return d.toLocaleDateString(undefined, { weekday: 'short' });
  return d.toLocaleDateString(undefined, { year: '2-digit', month: 'numeric', day: 'numeric' });
}

// full is a time as a tooltip says it: date and time.
export function full(ts) {
  return new Date(ts).toLocaleString(undefined, { dateStyle: 'full', timeStyle: 'short' });
}
