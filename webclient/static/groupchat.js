// groupchat.js: group chats (docs/crypto.md "Group chats"): making one,
// and what the screens read of one. A group chat is one MLS group whose
// members are every device of every one of its accounts, and whose
// context carries its name and admins (groupmeta.js): the relay sees the
// envelopes' recipients and sizes, never a name, a role or who else is
// in it. Each change of a group is a commit, which the relay orders, and
// a line in the chat on every device (mlschat.js, mlsgroups.js).

import * as account from './account.js';
import * as api from './api.js';
import * as c from './crypto.js';
import * as store from './store.js';
import { checkMember } from './mlsidentity.js';
import { ulid } from './ulid.js';
import * as election from './election.js';
import { mls, locked, claim, accountsOf, members, recipients, describe, device, today, keepNew, finish, listKey, groupKey, sendingGroup, commitChange } from './mlsgroups.js';
import { checkName, encodeMeta, parseMeta, chatOfGroup, isGroup, names, MAX_MEMBERS } from './groupmeta.js';
import { sendLeave, deletedMembers } from './outbox.js';
import { upkeep } from './mlsmembers.js';

export { isGroup } from './groupmeta.js';

const USERNAME = /^[a-z0-9_]{3,32}$/;

/** A GroupError says, in words, why a change of a group could not be made. */
export class GroupError extends Error {
  /**
   * @param {string} code a stable code: bad_name, no_members, too_many, bad_username, unknown_account, account_deleted, no_devices, network, not_member, not_admin, busy
   * @param {string} message
   */
  constructor(code, message) {
    super(message);
    this.code = code;
  }
}

/**
 * create makes a group chat named name with the accounts named (and this
 * one, its first admin), and resolves to its chat id. It claims a key
 * package of each of their devices, makes the group with every device
 * it got, keeps it, then sends the commit and the welcome: a crash or an
 * outage after it was kept loses nothing (mlsgroups.js finish).
 * @param {string} name
 * @param {string[]} usernames
 * @returns {Promise<string>}
 */
export async function create(name, usernames) {
  const bad = checkName(name);
  if (bad) throw new GroupError('bad_name', bad);
  const me = account.me();
  const others = [...new Set(usernames.map((u) => u.trim().toLowerCase()).filter((u) => u && u !== me))];
  if (!others.length) throw new GroupError('no_members', 'Add at least one person to the group, by their username.');
  const wrong = others.find((u) => !USERNAME.test(u));
  if (wrong) throw new GroupError('bad_username', `\u201c${wrong}\u201d is not a username: a username is 3 to 32 characters, a\u2013z, 0\u20139 and _.`);
  if (others.length + 1 > MAX_MEMBERS) throw new GroupError('too_many', `A group has at most ${MAX_MEMBERS} members, you included.`);
  const m = await mls();
  const gid = crypto.getRandomValues(new Uint8Array(32));
  const chat = chatOfGroup(c.hex(gid));
  return locked(chat, async () => {
    const packages = await claimAll(others);
    let mine;
    try {
      mine = await claim(me, true);
    } catch (e) {
      throw claimError(e, me);
    }
    const meta = { name: name.trim(), admins: [me], creator: me };
    const made = await m.createGroup(await device(), gid, checkMember, encodeMeta(meta));
    const { group, commit, welcome } = await m.addMembers(made, [...packages, ...mine].map((k) => k.keyPackage));
    const now = m.groupInfo(group);
    const rec = { gid: c.hex(gid), chat, state: m.saveGroup(group), epoch: Number(now.epoch), updated: today(), ...describe(m, group) };
    const created = { by: me, added: accountsOf(now), removed: [], admins: [], unadmins: [], name: meta.name, created: true, joined: true };
    const p = { rec, commit, commitId: ulid(), welcome, welcomeId: ulid(), commitSent: false, to: recipients(chat, [now]), created };
    await keepNew(chat, p);
    try {
      await finish(chat, p);
    } catch (e) {
      if (e instanceof api.ApiError && api.transient(e)) {
        // Sent by the upkeep once the relay answers again.
        upkeep();
        throw new GroupError('network', 'The group is made on this device, but the relay cannot be reached to tell its members. It is sent to them as soon as the relay answers again, and appears in your chats then.');
      }
      throw e;
    }
    return chat;
  });
}

/**
 * claimAll claims a key package of every device of each account named
 * that can join a group chat; an account with none is named in the
 * error, and nothing is made.
 * @param {string[]} users
 */
async function claimAll(users) {
  const packages = [];
  const missing = [];
  for (const u of users) {
    let got;
    try {
      got = await claim(u, true);
    } catch (e) {
      throw claimError(e, u);
    }
    if (!got.length) missing.push(u);
    packages.push(...got);
  }
  if (missing.length) {
    throw new GroupError('no_devices', `${names(missing, account.me())} cannot join a group yet: no device of theirs has opened this version of relay. Ask them to open relay once, then try again.`);
  }
  return packages;
}

/**
 * @param {unknown} e
 * @param {string} u
 */
function claimError(e, u) {
  if (!(e instanceof api.ApiError)) return e;
  if (e.code === 'unknown_account') return new GroupError('unknown_account', `There is no account named ${u}. Check the spelling.`);
  if (e.code === 'account_deleted') return new GroupError('account_deleted', `${u} deleted their account and cannot be added.`);
  if (api.transient(e)) return new GroupError('network', 'The relay cannot be reached, so the group cannot be made now. Try again when the connection is back.');
  return new GroupError(e.code, `Could not add ${u}: ${e.message}`);
}

/**
 * A group chat as the screens show it: its name, its members' accounts
 * (sorted), its admins and creator, and whether this device was removed
 * from it; null when this device holds no group of the chat.
 * @typedef {{chat: string, name: string, accounts: string[], admins: string[], creator: string | null, removed: boolean, leaving: boolean, admin: boolean}} Info
 */

/**
 * info reads what this device knows of a group chat, from its group's
 * record (no library needed).
 * @param {string} chat
 * @returns {Promise<Info | null>}
 */
export async function info(chat) {
  if (!isGroup(chat)) return null;
  const list = (await store.getMeta(listKey(chat))) || [];
  const rec = list.length ? await store.getMeta(groupKey(list[0])) : null;
  if (!rec) return null;
  const meta = rec.meta || null;
  const admins = meta ? meta.admins.filter((a) => (rec.accounts || []).includes(a)) : [];
  return {
    chat,
    name: meta ? meta.name : 'Group',
    accounts: rec.accounts || [],
    admins,
    creator: meta ? meta.creator : null,
    removed: !!rec.removed,
    leaving: !!rec.leaving,
    admin: admins.includes(account.me()),
  };
}

// ---- changing a group ----

// TRIES: a change whose commit lost its epoch to another member's is
// made again on the group as the winner left it, this many times.
const TRIES = 5;
// SETTLE_MS: how long a change waits for the winning commit to arrive
// and be applied before it is made again.
const SETTLE_MS = 10000;

/**
 * change makes a change of a group chat as a commit, under the chat's
 * lock: make gets the library, the group and its record, and returns
 * what to commit (mls.js changeMembers) or null when there is nothing to
 * do. When another member's commit took the epoch first, it waits until
 * this device applied that one and makes the change again on it.
 * @param {string} chat
 * @param {(m: typeof import('./mls.js'), group: any, meta: import('./groupmeta.js').Meta) => Promise<any>} make
 */
async function change(chat, make) {
  const m = await mls();
  for (let i = 0; i < TRIES; i++) {
    let epoch = -1;
    let out;
    try {
      out = await locked(chat, async () => {
        const rec = await sendingGroup(chat, false);
        if (!rec || rec.removed) throw new GroupError('not_member', 'You are no longer a member of this group.');
        epoch = rec.epoch;
        const group = m.loadGroup(rec.state, checkMember);
        const meta = parseMeta(m.groupMeta(group)) || { name: 'Group', admins: [], creator: account.me() };
        const made = await make(m, group, meta);
        return made ? commitChange(rec, made) : 'done';
      });
    } catch (e) {
      if (e instanceof api.ApiError && api.transient(e)) {
        throw new GroupError('network', 'The change is saved on this device and is sent when the relay can be reached.');
      }
      throw e;
    }
    if (out === 'done') return;
    await epochPast(chat, epoch);
  }
  throw new GroupError('busy', 'Others are changing the group at the same time. Try again in a moment.');
}

/**
 * epochPast waits, up to SETTLE_MS, until this device's group of chat is
 * past epoch: the commit that won it arrived and was applied.
 * @param {string} chat
 * @param {number} epoch
 */
async function epochPast(chat, epoch) {
  const end = Date.now() + SETTLE_MS;
  while (Date.now() < end) {
    const rec = await sendingGroupRecord(chat);
    if (!rec || rec.epoch > epoch) return;
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** @param {string} chat */
async function sendingGroupRecord(chat) {
  const list = (await store.getMeta(listKey(chat))) || [];
  return list.length ? store.getMeta(groupKey(list[0])) : null;
}

/**
 * mustAdmin throws unless this account is an admin of the group.
 * @param {import('./groupmeta.js').Meta} meta
 * @param {string} what
 */
function mustAdmin(meta, what) {
  if (!meta.admins.includes(account.me())) throw new GroupError('not_admin', `Only an admin can ${what}. The admins are ${names(meta.admins, account.me()) || 'none'}.`);
}

/**
 * add adds the accounts named to a group chat: every device of each
 * that has a key package. Admins only.
 * @param {string} chat
 * @param {string[]} usernames
 */
export async function add(chat, usernames) {
  const want = [...new Set(usernames.map((u) => u.trim().toLowerCase()).filter(Boolean))];
  if (!want.length) throw new GroupError('no_members', 'Name at least one person to add, by their username.');
  const wrong = want.find((u) => !USERNAME.test(u));
  if (wrong) throw new GroupError('bad_username', `\u201c${wrong}\u201d is not a username: a username is 3 to 32 characters, a\u2013z, 0\u20139 and _.`);
  /** @type {string[]} */
  let added = [];
  await change(chat, async (m, group, meta) => {
    mustAdmin(meta, 'add members');
    const have = accountsOf(m.groupInfo(group));
    const fresh = want.filter((u) => !have.includes(u));
    added = fresh;
    if (!fresh.length) return null;
    if (have.length + fresh.length > MAX_MEMBERS) throw new GroupError('too_many', `A group has at most ${MAX_MEMBERS} members.`);
    const packages = await claimAll(fresh);
    return m.changeMembers(group, packages.map((k) => k.keyPackage), []);
  });
  // Someone who left, was deleted or removed before comes back with no
  // role and no mark: the record forgets them, in a commit of its own.
  await change(chat, async (m, group, meta) => {
    const back = added.filter((u) => (meta.left || []).includes(u) || (meta.gone || []).includes(u) || meta.admins.includes(u));
    if (!back.length) return null;
    const drop = (/** @type {string[] | undefined} */ l) => (l || []).filter((u) => !back.includes(u));
    return m.changeMembers(group, [], [], encodeMeta({ ...meta, admins: drop(meta.admins), left: drop(meta.left), gone: drop(meta.gone) }));
  });
}

/**
 * remove removes an account from a group chat: every leaf of its
 * devices, and its admin rights. Admins only.
 * @param {string} chat
 * @param {string} username
 */
export async function remove(chat, username) {
  await change(chat, async (m, group, meta) => {
    mustAdmin(meta, 'remove members');
    if (username === account.me()) throw new GroupError('not_member', 'To leave the group, use Leave group.');
    const leaves = members(m.groupInfo(group)).filter((x) => x.username === username).map((x) => x.leaf);
    return leaves.length ? m.changeMembers(group, [], leaves) : null;
  });
  // Its admin rights go in a commit of their own (mls.js changeMembers);
  // until then, a removed admin is no admin (info).
  await change(chat, async (m, group, meta) => {
    if (!meta.admins.includes(username) || accountsOf(m.groupInfo(group)).includes(username)) return null;
    return m.changeMembers(group, [], [], encodeMeta({ ...meta, admins: meta.admins.filter((a) => a !== username) }));
  });
}

/**
 * rename gives a group chat a new name. Admins only.
 * @param {string} chat
 * @param {string} name
 */
export async function rename(chat, name) {
  const bad = checkName(name);
  if (bad) throw new GroupError('bad_name', bad);
  await change(chat, async (m, group, meta) => {
    mustAdmin(meta, 'rename the group');
    if (meta.name === name.trim()) return null;
    return m.changeMembers(group, [], [], encodeMeta({ ...meta, name: name.trim() }));
  });
}

/**
 * setAdmin makes a member an admin (on) or takes the rights back.
 * Admins only; the last admin cannot step down while others remain.
 * @param {string} chat
 * @param {string} username
 * @param {boolean} on
 */
export async function setAdmin(chat, username, on) {
  await change(chat, async (m, group, meta) => {
    mustAdmin(meta, on ? 'name admins' : 'take admin rights');
    if (!accountsOf(m.groupInfo(group)).includes(username)) throw new GroupError('not_member', `${username} is not in this group.`);
    const admins = on ? [...new Set([...meta.admins, username])] : meta.admins.filter((a) => a !== username);
    if (!admins.length) throw new GroupError('not_admin', 'A group keeps at least one admin: name another admin first.');
    if (admins.length === meta.admins.length) return null;
    return m.changeMembers(group, [], [], encodeMeta({ ...meta, admins }));
  });
}

// ---- leaving ----

/**
 * leave asks the group's members to remove this account: MLS lets no
 * member remove itself, so the leave record goes to everyone (the
 * outbox sends it, and again after an outage), and a member removes
 * every leaf of the account (onLeave). From the leave on, this device
 * seals nothing more in the group.
 * @param {string} chat
 */
export async function leave(chat) {
  const now = await info(chat);
  if (!now || now.removed) throw new GroupError('not_member', 'You are no longer a member of this group.');
  await markLeaving(chat);
  await sendLeave(chat);
}

/**
 * markLeaving notes on the group's record that this account left it: the
 * composer is off from then on, on every device of the account.
 * @param {string} chat
 */
async function markLeaving(chat) {
  await locked(chat, async () => {
    const rec = await sendingGroupRecord(chat);
    if (rec && !rec.leaving) await store.keepGroups([[groupKey(rec.gid), { ...rec, leaving: true }]]);
  });
  election.notify({ type: 'changed', chats: [chat] });
}

/**
 * remover is the account whose devices remove a member that left: the
 * first admin but the leaver, else the first member but the leaver.
 * @param {string[]} accounts
 * @param {string[]} admins
 * @param {string} leaver
 */
export function remover(accounts, admins, leaver) {
  const a = admins.filter((x) => x !== leaver && accounts.includes(x)).sort();
  if (a.length) return a[0];
  return accounts.filter((x) => x !== leaver).sort()[0] || null;
}

// A member that left is removed at once by the remover's stream owner,
// and by any member's after LATE_MS if it is still in: the remover may
// be away.
const LATE_MS = 60 * 1000;

/**
 * onLeave is called, in the stream owner, for a leave record of a group
 * chat once its batch is written: the remover's device removes the
 * leaver's leaves at once, the others after LATE_MS if it is still a
 * member. The removal names the leaver in the record's left list (its
 * line says "left"); the last admin leaving makes the first member left
 * an admin.
 * @param {string} chat
 * @param {string} leaver
 */
export function onLeave(chat, leaver) {
  if (!election.isOwner()) return;
  const run = () => removeLeaver(chat, leaver).catch((e) => {
    if (!(e instanceof GroupError)) console.warn('groupchat: removing a member that left failed', e instanceof Error ? e.name : '');
  });
  if (leaver === account.me()) {
    markLeaving(chat).catch(() => {});
    return;
  }
  info(chat).then((g) => {
    if (!g || g.removed || !g.accounts.includes(leaver)) return;
    if (remover(g.accounts, g.admins, leaver) === account.me()) run();
    else setTimeout(run, LATE_MS);
  }, () => {});
}

/**
 * @param {string} chat
 * @param {string} leaver
 */
async function removeLeaver(chat, leaver) {
  await removeMarked(chat, [leaver], 'left');
}

/**
 * removeMarked removes accounts from a group that left it (why 'left') or
 * were deleted ('gone'): first the record, which names them so (and
 * names an admin if the last one goes), then, in a commit of its own
 * (mls.js changeMembers), the removal, whose line says so.
 * @param {string} chat
 * @param {string[]} users
 * @param {'left' | 'gone'} why
 */
async function removeMarked(chat, users, why) {
  await change(chat, async (m, group, meta) => {
    const accounts = accountsOf(m.groupInfo(group));
    const out = users.filter((u) => accounts.includes(u));
    if (!out.length) return null;
    const rest = accounts.filter((a) => !out.includes(a));
    const kept = meta.admins.filter((a) => rest.includes(a));
    const named = kept.length || !rest.length ? [] : [rest[0]];
    const list = meta[why] || [];
    const marked = [...new Set([...list, ...out])].sort();
    if (marked.length === list.length && !named.length) return null;
    return m.changeMembers(group, [], [], encodeMeta({ ...meta, admins: [...meta.admins, ...named], [why]: marked }));
  });
  await change(chat, async (m, group) => {
    const leaves = members(m.groupInfo(group)).filter((x) => x.username !== null && users.includes(x.username)).map((x) => x.leaf);
    return leaves.length ? m.changeMembers(group, [], leaves) : null;
  });
}

/**
 * onDeleted removes from a group chat the accounts the relay said were
 * deleted when it accepted an envelope to it: the members see them go.
 * @param {string} chat
 * @param {string[]} users
 */
export function onDeleted(chat, users) {
  removeMarked(chat, users, 'gone').catch((e) => {
    if (!(e instanceof GroupError)) console.warn('groupchat: removing a deleted account failed', e instanceof Error ? e.name : '');
  });
}
deletedMembers(onDeleted);
