// groupmeta.js: what a group chat is, as pure functions (docs/crypto.md,
// "Group chats"): its chat id, the record of its name and roles that its
// MLS group carries in its context (mls.js GROUP_EXTENSION), the change a
// commit made (a line in the chat on every device), and the words of
// that line. No storage and no network: the store, the screens and the
// MLS modules share these.

/** MAX_NAME is the most characters a group's name has. */
export const MAX_NAME = 64;
/** MAX_MEMBERS is the most accounts a group has: the relay's default
 * limit of recipients of one envelope (docs/protocol.md). */
export const MAX_MEMBERS = 256;

const USERNAME = /^[a-z0-9_]{3,32}$/;
// C0 and C1 control characters, and DEL.
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/;
const te = new TextEncoder();
const td = new TextDecoder('utf-8', { fatal: true });

/**
 * isGroup says whether a chat id is a group chat's: 'g:' and its MLS
 * group's id in hex. A username never holds ':'.
 * @param {string} chat
 */
export function isGroup(chat) {
  return typeof chat === 'string' && chat.startsWith('g:');
}

/** @param {string} gid the MLS group's id in hex */
export function chatOfGroup(gid) {
  return 'g:' + gid;
}

/**
 * checkName checks a group's name as a person typed it: null when it is
 * good, else what is wrong, in words.
 * @param {string} name
 */
export function checkName(name) {
  const n = name.trim();
  if (!n) return 'A group needs a name.';
  if ([...n].length > MAX_NAME) return `A group's name has at most ${MAX_NAME} characters.`;
  if (CONTROL.test(n)) return 'A group\u2019s name cannot hold control characters.';
  return null;
}

/**
 * A group's record: its name, its admins (usernames, sorted), who made
 * it, the accounts that asked to leave and those that were deleted (a
 * commit that removes one of them says it left, or was deleted).
 * @typedef {{name: string, admins: string[], creator: string, left?: string[], gone?: string[]}} Meta
 */

/**
 * encodeMeta is the bytes of a group's record, as its group's context
 * carries them.
 * @param {Meta} meta
 */
export function encodeMeta(meta) {
  const r = { v: 1, name: meta.name.trim(), admins: [...new Set(meta.admins)].sort(), creator: meta.creator };
  if (meta.left && meta.left.length) r.left = [...new Set(meta.left)].sort();
  if (meta.gone && meta.gone.length) r.gone = [...new Set(meta.gone)].sort();
  return te.encode(JSON.stringify(r));
}

/**
 * parseMeta reads a group's record, or null when the bytes are not one
 * (a member that wrote anything else is shown as a group without name).
 * @param {Uint8Array | null} bytes
 * @returns {Meta | null}
 */
export function parseMeta(bytes) {
  if (!bytes) return null;
  let r;
  try {
    r = JSON.parse(td.decode(bytes));
  } catch {
    return null;
  }
  if (!r || typeof r !== 'object' || r.v !== 1) return null;
  if (typeof r.name !== 'string' || checkName(r.name)) return null;
  if (!Array.isArray(r.admins) || r.admins.length > MAX_MEMBERS || !r.admins.every((a) => typeof a === 'string' && USERNAME.test(a))) return null;
  if (typeof r.creator !== 'string' || !USERNAME.test(r.creator)) return null;
  const out = { name: r.name, admins: [...new Set(r.admins)].sort(), creator: r.creator };
  for (const k of /** @type {const} */ (['left', 'gone'])) {
    if (r[k] === undefined) continue;
    if (!Array.isArray(r[k]) || r[k].length > MAX_MEMBERS || !r[k].every((a) => typeof a === 'string' && USERNAME.test(a))) return null;
    out[k] = [...new Set(r[k])].sort();
  }
  return out;
}

/**
 * A change of a group, as a line in its chat: who made it, the accounts
 * it added and removed, its new name, and the admins it named and
 * unnamed; left: the removed accounts that had asked to leave; gone:
 * those whose account was deleted. joined:
 * this device's account was added by it (the line of a welcome);
 * created: it made the group.
 * @typedef {{by: string, added: string[], removed: string[], name?: string, admins: string[], unadmins: string[], joined?: boolean, created?: boolean, left?: string[], gone?: string[]}} Change
 */

/**
 * changeOf is what a commit changed in a group chat, from the accounts
 * and records before and after it, or null when it changed nothing a
 * person sees (a device added or removed, a leaf's keys renewed).
 * @param {string} by the committer's username
 * @param {{accounts: string[], meta: Meta | null}} before
 * @param {{accounts: string[], meta: Meta | null}} after
 * @returns {Change | null}
 */
export function changeOf(by, before, after) {
  const had = new Set(before.accounts);
  const has = new Set(after.accounts);
  const added = after.accounts.filter((a) => !had.has(a)).sort();
  const removed = before.accounts.filter((a) => !has.has(a)).sort();
  const oldAdmins = new Set(before.meta ? before.meta.admins : []);
  const newAdmins = new Set(after.meta ? after.meta.admins : []);
  const admins = [...newAdmins].filter((a) => !oldAdmins.has(a)).sort();
  const unadmins = [...oldAdmins].filter((a) => !newAdmins.has(a) && has.has(a)).sort();
  /** @type {Change} */
  const ch = { by, added, removed, admins, unadmins };
  const left = after.meta && after.meta.left ? removed.filter((a) => after.meta.left.includes(a)) : [];
  if (left.length) ch.left = left;
  const gone = after.meta && after.meta.gone ? removed.filter((a) => after.meta.gone.includes(a) && !left.includes(a)) : [];
  if (gone.length) ch.gone = gone;
  if (after.meta && (!before.meta || before.meta.name !== after.meta.name)) ch.name = after.meta.name;
  if (!added.length && !removed.length && !admins.length && !unadmins.length && ch.name === undefined) return null;
  return ch;
}

/**
 * names lists usernames in words: "bob", "bob and carol", "bob, carol
 * and dave"; me is "you".
 * @param {string[]} list
 * @param {string} me
 */
export function names(list, me) {
  const w = list.map((u) => (u === me ? 'you' : u));
  if (w.length <= 1) return w.join('');
  return w.slice(0, -1).join(', ') + ' and ' + w[w.length - 1];
}

/**
 * changeText is a change's line, in words, as me reads it.
 * @param {Change} ch
 * @param {string} me
 */
export function changeText(ch, me) {
  const who = ch.by === me ? 'You' : ch.by;
  const parts = [];
  if (ch.created) {
    const others = ch.added.filter((a) => a !== ch.by);
    parts.push(`${who} made the group \u201c${ch.name}\u201d` + (others.length ? ` with ${names(others, me)}` : ''));
  } else {
    const left = ch.left || [];
    const gone = ch.gone || [];
    const removed = ch.removed.filter((a) => !left.includes(a) && !gone.includes(a));
    if (left.length) parts.push(`${names(left, me).replace(/^you/, 'You')} left the group`);
    if (gone.length) parts.push(`${names(gone, me)} deleted ${gone.length > 1 ? 'their accounts' : 'their account'} and left the group`);
    if (ch.added.length) parts.push(`${who} added ${names(ch.added, me)}`);
    if (removed.length) parts.push(`${who} removed ${names(removed, me)}`);
    if (ch.name !== undefined) parts.push(`${who} renamed the group \u201c${ch.name}\u201d`);
  }
  if (ch.admins.length) parts.push(`${who} made ${names(ch.admins, me)} ${ch.admins.length > 1 ? 'admins' : 'an admin'}`);
  if (ch.unadmins.length) parts.push(`${who} took admin rights from ${names(ch.unadmins, me)}`);
  // "You" starts the line only: "You renamed …; you made bob an admin."
  let text = parts.map((p, i) => (i > 0 && p.startsWith('You ') ? 'you' + p.slice(3) : p)).join('; ') + '.';
  if (ch.joined && !ch.created) text += ' You see the messages sent from now on.';
  return text;
}

/**
 * mentions says whether text mentions username as @username (not inside
 * a longer name or an address).
 * @param {string} text
 * @param {string} username
 */
export function mentions(text, username) {
  if (typeof text !== 'string' || !username) return false;
  return new RegExp(`(^|[^a-z0-9_@.])@${username}(?![a-z0-9_])`, 'i').test(text);
}

/**
 * initials are a chat's avatar: the first letters of its name's first
 * two words, or the first letter of a name of one word.
 * @param {string} name
 */
export function initials(name) {
  const words = name.trim().split(/\s+/).filter(Boolean);
  const first = (w) => [...w][0] || '';
  const out = words.length > 1 ? first(words[0]) + first(words[1]) : first(words[0] || '?');
  return out.toUpperCase();
}
