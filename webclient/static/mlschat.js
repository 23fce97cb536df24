// mlschat.js: chats in MLS groups (docs/crypto.md "Version 2: chats in MLS
// groups", ADR 0102, ADR 0104). A chat is one group whose members are the
// devices of both accounts (of one's own account, for notes to self); a
// record is sealed as an application message of it, and opened from it.
// This module seals records (making the chat's group first if it has
// none, mlsgroups.js), opens what the stream brings, joins groups from
// welcomes and follows their commits. It never sends a chat's messages
// (the outbox, receipts and read positions do) and writes only through
// the store.
//
// One tab at a time changes a group: every change runs under the lock of
// mlsgroups.js, from reading the state to writing the next one, so two
// tabs (or two lanes of one tab) never seal with the same key generation.
// A state is written before what it sealed can leave, and with what it
// opened before that is ACKed.

import * as store from './store.js';
import * as c from './crypto.js';
import * as account from './account.js';
import { checkMember, parseIdentity } from './mlsidentity.js';
import * as api from './api.js';
import { mls, enabled, locked, groupKey, listKey, sendingGroup, membersOk, members, accountsOf, recipients, device, today } from './mlsgroups.js';
import { isGroup, chatOfGroup, parseMeta, changeOf } from './groupmeta.js';
import { upkeep } from './mlsmembers.js';
import { replays, keptForm, speakersKey } from './mlsbatch.js';

export { enabled, groupsOf } from './mlsgroups.js';
export { Batch, replays } from './mlsbatch.js';

const te = new TextEncoder();
const td = new TextDecoder('utf-8', { fatal: true });

// ---- what a record is sealed with ----

/**
 * authData is what an application message authenticates besides its
 * content: the envelope's id, sender and recipient, so that the relay
 * cannot replay it under another id or in another chat.
 * @param {string} id
 * @param {string} from
 * @param {string} to
 */
export function authData(id, from, to) {
  return te.encode(`relay/v2 envelope\u0000${id}\u0000${from}\u0000${to}`);
}

/**
 * looksMLS says whether a body may be an MLS message (version mls10 and a
 * public message, a private message or a welcome), before the library is
 * loaded to read it; a version 1 body begins with 12 random bytes.
 * @param {Uint8Array} body
 */
export function looksMLS(body) {
  return body.length > 4 && body[0] === 0 && body[1] === 1 && body[2] === 0 && body[3] >= 1 && body[3] <= 3;
}

/**
 * seal seals a record (a string of JSON) of envelope id to chat in the
 * chat's group, creating the group first if the chat has none, and hands
 * the body with the group's next state to write, which must write both in
 * one transaction: it runs under the lock. It returns false, without
 * calling write, when the chat is sealed the old way (MLS off, or the
 * other account has no device in MLS yet).
 * @param {string} chat
 * @param {string} id
 * @param {string} record
 * @param {(body: Uint8Array, metas: [string, any][], to: string | string[]) => Promise<void>} write the body, the group's next state, and whom the envelope goes to
 * @returns {Promise<boolean>}
 */
export async function seal(chat, id, record, write) {
  if (!enabled() && !isGroup(chat) && !(await store.getMeta(listKey(chat)))) return false;
  const m = await mls();
  let due = false;
  const sealed = await locked(chat, async () => {
    const rec = await sendingGroup(chat);
    if (!rec) {
      if (isGroup(chat)) throw notMember('this device is not in this group');
      return false;
    }
    if (rec.removed) throw notMember('you are no longer a member of this group');
    const group = m.loadGroup(rec.state, checkMember);
    const r = await m.encrypt(group, c.pad(te.encode(record), c.MLS_BUCKETS), authData(id, account.me(), chat));
    // The first send of a day in the group makes the update of this
    // device's leaf due, which the upkeep commits next.
    due = rec.updated !== today();
    await write(r.message, [[groupKey(rec.gid), { ...rec, state: m.saveGroup(r.group), due: rec.due || due }]], recipients(chat, [m.groupInfo(group)]));
    return true;
  });
  if (sealed && due) upkeep();
  return sealed;
}

/**
 * sealNow seals a record as seal does and keeps the group's next state at
 * once: for what is sent under a fresh id at each attempt (receipts, read
 * positions). Null when the chat is sealed the old way.
 * @param {string} chat
 * @param {string} id
 * @param {string} record
 * @returns {Promise<Uint8Array | null>}
 */
export async function sealNow(chat, id, record) {
  let body = null;
  const sealed = await seal(chat, id, record, async (b, metas) => {
    await store.keepGroups(metas);
    body = b;
  });
  return sealed ? body : null;
}

/**
 * groupAccounts are the accounts in a group chat's group as this device
 * holds it now, or null when it holds none.
 * @param {string} chat
 * @returns {Promise<string[] | null>}
 */
export async function groupAccounts(chat) {
  const rec = await heldGroup(chat);
  return rec && rec.accounts ? rec.accounts : null;
}

// heldGroup is the record of the group a chat sends in, or null.
async function heldGroup(chat) {
  const list = (await store.getMeta(listKey(chat))) || [];
  return list.length ? await store.getMeta(groupKey(list[0])) : null;
}

/**
 * groupAdmins are the admins of a group chat as this device holds its
 * group now (none when it holds none).
 * @param {string} chat
 * @returns {Promise<string[]>}
 */
export async function groupAdmins(chat) {
  const rec = await heldGroup(chat);
  return rec && rec.meta && rec.accounts ? rec.meta.admins.filter((a) => rec.accounts.includes(a)) : [];
}

/**
 * notMember is the error of a seal in a group chat this device is not in
 * (any more): code 'not_member'. Nothing sealed there can ever go.
 * @param {string} message
 */
function notMember(message) {
  return Object.assign(new Error(message), { code: 'not_member' });
}

// ---- opening what the stream brings ----

/**
 * open reads an envelope whose body may be an MLS message, within batch b:
 * null when it is not one (the caller reads it as version 1); otherwise
 * {record} for an application message that opened, {skip} for what
 * changes a group or is not for this device, or {undecryptable} for a
 * message of a group this device cannot open (kept sealed by the caller);
 * {event} for a change of a group chat (a line in it). A record or an
 * event names its chat: a group chat's is its group's.
 * @param {{id: string, from: string, fromDevice: string, to: string, ts?: number, seq?: number}} env
 * @param {Uint8Array} body
 * @param {import('./mlsbatch.js').Batch} b
 * @returns {Promise<null | {record: any, chat: string, to?: string[]} | {event: import('./groupmeta.js').Change, chat: string, title?: string} | {skip: true} | {undecryptable: true}>}
 */
export async function open(env, body, b) {
  if (!looksMLS(body)) return null;
  const m = await mls();
  const h = m.readHeader(body);
  if (!h) return null;
  const pairChat = env.from === account.me() ? env.to : env.from;
  if (h.wireformat === 'mls_welcome') {
    await b.lock(pairChat);
    const joined = await join(keptForm(env, body), body, pairChat, b);
    return joined && joined.change ? { event: joined.change, chat: joined.chat, title: joined.title } : { skip: true };
  }
  if ((h.wireformat !== 'mls_private_message' && h.wireformat !== 'mls_public_message') || !h.groupId) return { skip: true };
  // Known by its id: a replay, recognised before anything is decrypted
  // (its keys are used up: it would not open again).
  if (b.ids.has(env.id) || (await store.getMessage(env.id))) {
    replays.byId++;
    return { skip: true };
  }
  const gid = c.hex(h.groupId);
  // A group chat's envelopes are its group's, whoever sent them; a
  // one-to-one chat's group is the two accounts'. The chat of a group
  // never changes, so it is read before the lock.
  const known = b.groups.has(gid) ? b.groups.get(gid).rec : await store.getMeta(groupKey(gid));
  const chat = known && isGroup(known.chat) ? known.chat : pairChat;
  await b.lock(chat);
  // A commit of the chat waits to be applied again (its members could not
  // be checked while the directory was away): what comes after it waits
  // behind it, in order, and is read with it (inbox.js retries them).
  if (await b.heldBehind(chat)) {
    await b.keepBehind(chat, keptForm(env, body));
    return { skip: true };
  }
  const g = await b.group(gid);
  /** @type {{undecryptable: true} | {skip: true}} */
  const unreadable = h.contentType === 'application' ? { undecryptable: true } : { skip: true };
  if (g && g.rec.chat !== chat) return unreadable;
  // Removed from a group chat: what comes after is not for this device.
  if (g && g.rec.removed) return { skip: true };
  // A group this device is not in (a message that came before the
  // welcome that adds it, or a device restored from the recovery key), or
  // one it fell behind (a commit it missed): it rejoins from the
  // GroupInfo once the batch is written (mlsmembers.js).
  const epoch = g ? Number(m.groupInfo(g.group).epoch) : -1;
  if (Number(h.epoch) > epoch) {
    if (!b.behind.has(gid)) b.behind.set(gid, { chat, gid, epoch });
    if (g) return unreadable;
    // Not in the group: kept until the welcome that adds this device (or
    // its rejoin) says whether it was for it. A commit too: one made
    // between the commit that adds this device and its welcome is of the
    // epoch the welcome starts at, and is applied after it.
    await b.park(gid, keptForm(env, body));
    return { skip: true };
  }
  // Sealed before this device was added: not for it (docs/crypto.md,
  // "Who adds and removes whom").
  if (g && g.rec.joined !== undefined && Number(h.epoch) < g.rec.joined) {
    replays.beforeJoin++;
    return { skip: true };
  }
  // A commit of an epoch this device is past: the one that made the
  // group, before it joined.
  if (h.contentType !== 'application' && Number(h.epoch) !== epoch) return { skip: true };
  if (!g) return unreadable;
  let r;
  try {
    r = await m.receive(g.group, body);
  } catch (e) {
    if (m.isRepeat(e)) {
      replays.spent++;
      return { skip: true };
    }
    if (api.transient(e)) {
      await b.keepBehind(chat, { ...keptForm(env, body), held: true });
      return { skip: true };
    }
    console.warn('mlschat: a message of a group did not open', e instanceof Error ? e.name : '');
    if (m.isRefusedMember(e)) b.refused.add(chat);
    return h.contentType === 'application' ? { undecryptable: true } : { skip: true };
  }
  if (r.kind !== 'application') {
    try {
      return await applyCommit(m, h, r, g, chat, b);
    } catch (e) {
      if (!api.transient(e)) throw e;
      await b.keepBehind(chat, { ...keptForm(env, body), held: true });
      return { skip: true };
    }
  }
  b.groups.set(gid, { rec: g.rec, group: r.group });
  b.dirty.add(gid);
  const sender = r.sender && parseIdentity(r.sender);
  // A group chat's envelope is sealed to the chat, whatever `to` each of
  // its copies shows (docs/protocol.md).
  if (!sender || sender.username !== env.from || sender.deviceId !== env.fromDevice || c.hex(r.authenticatedData) !== c.hex(authData(env.id, env.from, isGroup(chat) ? chat : env.to))) {
    console.warn('mlschat: a message whose envelope does not match its sender was kept unread');
    return { undecryptable: true };
  }
  let record;
  try {
    record = JSON.parse(td.decode(c.unpad(r.plaintext, c.MLS_BUCKETS)));
  } catch {
    return { undecryptable: true };
  }
  b.ids.add(env.id);
  await b.speaker(chat, env.fromDevice);
  // A group chat's message went to its members but its sender: their
  // receipts are counted against them (read by 3 of 5).
  if (isGroup(chat)) return { record, chat, to: accountsOf(m.groupInfo(g.group)).filter((a) => a !== env.from) };
  return { record, chat };
}

/**
 * applyCommit takes a commit the group opened, within batch b, unless it
 * brings a member the chat does not allow: for a group chat, it says
 * what changed, as a line in the chat.
 * @param {typeof import('./mls.js')} m
 * @param {{wireformat: string}} h the commit's header
 * @param {import('./mls.js').Received} r
 * @param {{rec: any, group: any}} g the group before it
 * @param {string} chat
 * @param {import('./mlsbatch.js').Batch} b
 * @returns {Promise<{skip: true} | {event: import('./groupmeta.js').Change, chat: string, title?: string}>}
 */
async function applyCommit(m, h, r, g, chat, b) {
  const group = isGroup(chat);
  const removed = group && m.isRemoved(r.group);
  const before = accountsOf(m.groupInfo(g.group));
  const after = removed ? before.filter((a) => a !== account.me()) : accountsOf(m.groupInfo(r.group));
  // A group chat has no GroupInfo on the relay (mlsgroups.js): an
  // external commit can only be a device of a member account coming back
  // (its certificate renewed); one that brings another account is
  // refused.
  const outsider = group && h.wireformat === 'mls_public_message' && after.some((a) => !before.includes(a));
  if (outsider || (!removed && (!membersOk(m.groupInfo(r.group), chat) || !(await joinersLive(m, g.group, r.group))))) {
    console.warn('mlschat: a commit brought a member of another account or a device the relay does not list; the group is left as it was');
    b.refused.add(chat);
    return { skip: true };
  }
  // A member's device coming back by an external commit carries a new
  // certificate: its account's key changed, which the chat then checks.
  if (group && h.wireformat === 'mls_public_message') {
    const had = new Set(members(m.groupInfo(g.group)).map((x) => `${x.username}/${x.deviceId}`));
    for (const x of members(m.groupInfo(r.group))) if (x.username && !had.has(`${x.username}/${x.deviceId}`)) b.rekeyed.add(x.username);
  }
  b.groups.set(c.hex(m.groupInfo(g.group).groupId), { rec: removed ? { ...g.rec, removed: true } : g.rec, group: r.group });
  b.dirty.add(c.hex(m.groupInfo(g.group).groupId));
  if (!group) return { skip: true };
  const by = r.sender && parseIdentity(r.sender);
  const metaAfter = parseMeta(m.groupMeta(removed ? g.group : r.group));
  const change = by && changeOf(by.username, { accounts: before, meta: parseMeta(m.groupMeta(g.group)) }, { accounts: after, meta: metaAfter });
  // Removed after asking to leave: the line says so.
  if (change && removed && g.rec.leaving) change.left = [account.me()];
  return change ? { event: change, chat, title: metaAfter ? metaAfter.name : undefined } : { skip: true };
}

/**
 * isDowngrade says whether a version 1 envelope in chat comes from a
 * device that this device already saw send in the chat's MLS group: a
 * device that speaks MLS in a chat never seals anything new there the old
 * way, so such an envelope is refused (docs/crypto.md, "Moving a chat").
 * @param {{fromDevice: string}} env
 * @param {string} chat
 * @param {import('./mlsbatch.js').Batch | null} b
 */
export async function isDowngrade(env, chat, b) {
  if (b && (b.speakers.get(chat) || []).includes(env.fromDevice)) return true;
  return ((await store.getMeta(speakersKey(chat))) || []).includes(env.fromDevice);
}

/**
 * hasGroup says whether the chat has an MLS group here: nothing new in it
 * is sealed the old way.
 * @param {string} chat
 */
export async function hasGroup(chat) {
  return ((await store.getMeta(listKey(chat))) || []).length > 0;
}

/**
 * joinersLive says whether every member a commit brings is a device its
 * account's relay still lists: a device revoked since it was certified
 * (it still holds the account key) cannot join by an external commit.
 * @param {typeof import('./mls.js')} m
 * @param {any} before
 * @param {any} after
 */
async function joinersLive(m, before, after) {
  const had = new Set(members(m.groupInfo(before)).map((x) => `${x.username}/${x.deviceId}`));
  for (const x of members(m.groupInfo(after))) {
    if (had.has(`${x.username}/${x.deviceId}`) || !x.username) continue;
    let live;
    try {
      live = (await api.accountDevices(x.username)).devices;
    } catch (e) {
      // The directory is away: the commit is applied later (open keeps
      // it); an account that is gone brings no live device.
      if (api.transient(e)) throw e;
      return false;
    }
    if (!live.includes(x.deviceId)) return false;
  }
  return true;
}

/**
 * join joins a group from a welcome made for one of this device's key
 * packages, if its members are devices of the chat's two accounts, or,
 * for a group chat (its group carries a record), devices of accounts
 * this one among them; for a group chat, it says the chat and its line.
 * @param {{id: string, from: string, fromDevice: string, to: string, ts?: number, seq?: number, body: string}} env the envelope, its body in base64
 * @param {Uint8Array} body
 * @param {string} chat
 * @param {import('./mlsbatch.js').Batch} b
 * @returns {Promise<{chat: string, change: import('./groupmeta.js').Change | null, title?: string} | undefined>}
 */
async function join(env, body, chat, b) {
  const pairChat = chat;
  const m = await mls();
  const kept = ((await store.getMeta('keyPackages')) || []).filter((k) => !b.usedKeyPackages.includes(c.b64encode(k.keyPackage)));
  const i = await m.welcomeFor(body, kept.map((k) => k.keyPackage));
  if (i < 0) return; // for other devices
  let group;
  try {
    group = await m.joinGroup(await device(), body, kept[i], checkMember);
  } catch (e) {
    if (e && /** @type {any} */ (e).code === 'network') {
      // A member could not be checked yet: kept, and joined later.
      const list = await b.welcomesOf(chat);
      if (!list.some((w) => w.id === env.id)) list.push(env);
      return;
    }
    console.warn('mlschat: a welcome did not open', e instanceof Error ? e.name : '');
    if (m.isRefusedMember(e)) b.refused.add(chat);
    return;
  }
  const info = m.groupInfo(group);
  const gid = c.hex(info.groupId);
  // A group chat's group carries its record: the chat is the group's.
  const bytes = m.groupMeta(group);
  if (bytes) {
    chat = chatOfGroup(gid);
    await b.lock(chat);
  }
  if (!membersOk(info, chat)) {
    console.warn('mlschat: a welcome to a group with devices of another account was refused');
    b.refused.add(pairChat);
    return;
  }
  if (!m.isLastResort(kept[i].keyPackage)) b.usedKeyPackages.push(c.b64encode(kept[i].keyPackage));
  // Joined before, unless this device was removed from the group or
  // found itself stuck behind in it (a group chat, which has no GroupInfo
  // to rejoin from): a welcome then brings it back, with a new state.
  const had = await b.group(gid);
  if (had && !had.rec.removed && !had.rec.stuck) return;
  if (had && had.rec.stuck) await store.setNotice(chat, 'behind', null);
  b.groups.set(gid, { rec: { gid, chat, state: null, epoch: Number(info.epoch), joined: Number(info.epoch) }, group });
  b.dirty.add(gid);
  const list = await b.list(chat);
  b.lists.set(chat, [...new Set([...list, gid])].sort());
  await b.unpark(gid, Number(info.epoch));
  if (!bytes) return;
  const meta = parseMeta(bytes);
  return { chat, change: joinedChange(env.from, Number(info.epoch), meta, accountsOf(info)), title: meta ? meta.name : undefined };
}

/**
 * joinedChange is the line of a welcome to a group chat: the group made
 * (its first epoch), or this account added to it; none for a device of
 * this account added to a group the account was in.
 * @param {string} by who sent the welcome
 * @param {number} epoch the epoch it joined at
 * @param {import('./groupmeta.js').Meta | null} meta
 * @param {string[]} accounts
 * @returns {import('./groupmeta.js').Change | null}
 */
function joinedChange(by, epoch, meta, accounts) {
  const created = epoch === 1 && !!meta && meta.creator === by;
  const base = { by, removed: [], admins: [], unadmins: [], joined: true };
  if (created) return { ...base, created: true, added: accounts, name: meta.name };
  if (by === account.me()) return null;
  return { ...base, added: [account.me()] };
}

/**
 * welcomeChats are the chats with welcomes kept to join later.
 * @returns {Promise<string[]>}
 */
export async function welcomeChats() {
  return (await store.metaKeys('mlsWelcomes:')).map((k) => k.slice('mlsWelcomes:'.length));
}
