// mlsgroups.js: the chats' MLS groups as this device keeps them (ADR 0102,
// ADR 0104, docs/crypto.md "Version 2: chats in MLS groups"): the lock
// that one tab at a time holds to change a group, the records of the
// groups in IndexedDB, making a chat's group, and committing a change to
// a group so that a crash or an outage at any point loses nothing: the
// commit and the state it leads to are kept before the commit is sent,
// and taken as the group's state only once the relay accepted it.
// mlschat.js seals and opens records with the groups; mlsmembers.js
// decides who is added and removed.

import * as store from './store.js';
import * as api from './api.js';
import * as c from './crypto.js';
import * as account from './account.js';
import { checkMember } from './mlsidentity.js';
import { ulid } from './ulid.js';
import { isGroup, parseMeta, changeOf, changeText } from './groupmeta.js';
import { notify } from './election.js';
import { mls, today, members, accountsOf, membersOk, recipients, claim, describe } from './mlsbase.js';

export { mls, enabled, today, members, accountsOf, membersOk, recipients, claim, describe } from './mlsbase.js';

const LOCK = 'relay-mls';
// NO_PEER_MS: a chat whose other account has no device with key packages
// (a client from before MLS) stays sealed the old way; it asks again after
// this long.
const NO_PEER_MS = 5 * 60 * 1000;

// ---- the lock ----

/**
 * acquire takes the lock of chat's groups and resolves to the function
 * that releases it. One lock per chat, so that a chat waiting on the
 * network (a commit on its way) holds back no other. A lock is not
 * reentrant: whoever holds it never asks for it again. Only a batch of
 * the inbox holds several (mlschat.js Batch), taken one by one; everyone
 * else holds one at a time, so no two wait for each other.
 * @param {string} chat
 * @returns {Promise<() => void>}
 */
export function acquire(chat) {
  return new Promise((resolve) => {
    navigator.locks.request(LOCK + ':' + chat, () => new Promise((release) => resolve(() => release(undefined))));
  });
}

/**
 * @template T
 * @param {string} chat
 * @param {() => Promise<T>} fn
 * @returns {Promise<T>}
 */
export async function locked(chat, fn) {
  const release = await acquire(chat);
  try {
    return await fn();
  } finally {
    release();
  }
}

// ---- the records ----
// meta 'group:<hex id>' {gid, chat, state, epoch, updated, due}: a group
// this device is in, the day its own leaf was last updated, and whether
// an update is due (its first send of a day); meta 'groupsOf:<chat>' [hex ids]: the chat's groups, sorted (a chat
// sends in the smallest, ADR 0102); meta 'groupNew:<chat>' a group being
// made whose commit and welcome are not both accepted yet; meta
// 'groupCommit:<hex id>' a commit to the group kept until it is settled.

export const groupKey = (gid) => 'group:' + gid;
// meta 'mlsParked:<hex id>' [envelopes]: application messages of a group
// this device is not in (yet), kept sealed until it joins: those sealed
// before its addition are dropped then, the others opened (mlschat.js).
export const parkedKey = (gid) => 'mlsParked:' + gid;
// meta 'mlsWelcomes:<chat>' [envelopes]: welcomes whose members could not
// be checked yet (the directory did not answer, and no key of the other
// account is held): joined when it answers (inbox.js retries them).
export const welcomesKey = (chat) => 'mlsWelcomes:' + chat;
export const listKey = (chat) => 'groupsOf:' + chat;
const newKey = (chat) => 'groupNew:' + chat;
const commitKey = (gid) => 'groupCommit:' + gid;

/** @type {Map<string, number>} chat -> when it last had no peer */
const noPeer = new Map();

/** device is this device's MLS identity, to make and join groups with. */
export async function device() {
  const id = await store.getMeta('mls');
  if (!id) throw new Error('this device has no MLS identity yet');
  // Certified by a key this device no longer holds (replaced meanwhile):
  // members would refuse it until it is certified anew (mlsidentity.js).
  const held = account.current();
  if (held && c.hex(id.accountKey) !== c.hex(held.publicKey)) throw new Error('this device is not certified by the account key held now yet');
  return { identity: id.identity, signaturePublicKey: id.signaturePublicKey, signaturePrivateKey: id.signaturePrivateKey };
}

/**
 * chatsWithGroups are the chats this device has a group with.
 * @returns {Promise<string[]>}
 */
export async function chatsWithGroups() {
  return store.metaKeys('groupsOf:').then((ks) => ks.map((k) => k.slice('groupsOf:'.length)));
}

/**
 * newGroupChats are the group chats made on this device whose commit or
 * welcome the relay has not accepted yet (made while it was away).
 * @returns {Promise<string[]>}
 */
export async function newGroupChats() {
  return store.metaKeys('groupNew:g:').then((ks) => ks.map((k) => k.slice('groupNew:'.length)));
}

// ---- making a chat's group ----

/**
 * create makes the chat's group: this device, the other account's devices
 * and this account's other devices, from their key packages. It returns
 * null when the other account has none (the chat stays version 1). The
 * group, its commit and its welcome are kept before anything is sent.
 * @param {string} chat
 */
async function create(chat) {
  const m = await mls();
  const theirs = chat === account.me() ? [] : await claim(chat);
  if (chat !== account.me() && !theirs.length) {
    noPeer.set(chat, Date.now());
    return null;
  }
  const mine = await claim(account.me());
  const gid = crypto.getRandomValues(new Uint8Array(32));
  let group = await m.createGroup(await device(), gid, checkMember);
  const adds = [...theirs, ...mine].map((x) => x.keyPackage);
  let commit = null;
  let welcome = null;
  if (adds.length) ({ group, commit, welcome } = await m.addMembers(group, adds));
  // This device's leaf is new: no update is due today.
  const rec = { gid: c.hex(gid), chat, state: m.saveGroup(group), epoch: Number(m.groupInfo(group).epoch), updated: today() };
  const pending = { rec, commit, commitId: ulid(), welcome, welcomeId: ulid(), commitSent: false };
  await store.keepGroups([[newKey(chat), pending]]);
  return pending;
}

/**
 * finish sends a new group's commit (which makes the relay know the group
 * at its next epoch), then its welcome, each with its id kept so that a
 * retry is the same envelope, and then takes the group as the chat's.
 * @param {string} chat
 * @param {any} p
 */
export async function finish(chat, p) {
  if (p.commit && !p.commitSent) {
    await api.sendCommit(p.commitId, p.to || chat, c.b64encode(p.commit));
    p = { ...p, commitSent: true };
    await store.keepGroups([[newKey(chat), p]]);
  }
  let ts = null;
  if (p.welcome) ({ ts } = await api.sendWelcome(p.welcomeId, p.to || chat, c.b64encode(p.welcome)));
  // A group chat made here: its line, under the welcome's id and time as
  // its members' devices write it; before the group is kept, so that a
  // crash in between sends the welcome again (the same envelope) and
  // writes it then.
  if (p.created && ts !== null) await writeLine(chat, p.welcomeId, ts, p.created, p.created.name);
  const list = (await store.getMeta(listKey(chat))) || [];
  await store.keepGroups([[groupKey(p.rec.gid), p.rec], [listKey(chat), [...new Set([...list, p.rec.gid])].sort()]], [newKey(chat)]);
  if (p.commit) await publishInfo(chat, p.rec.gid, p.rec.state);
}

/**
 * keepNew keeps a group being made, before anything of it is sent
 * (groupchat.js makes group chats with it; finish sends them).
 * @param {string} chat
 * @param {any} p
 */
export async function keepNew(chat, p) {
  await store.keepGroups([[newKey(chat), p]]);
}

/**
 * writeLine writes a group chat's change as a line in it, as a message
 * of the account that made it, and tells the tabs.
 * @param {string} chat
 * @param {string} id
 * @param {number} ts
 * @param {import('./groupmeta.js').Change} change
 * @param {string | undefined} title the group's name after it
 */
async function writeLine(chat, id, ts, change, title) {
  const me = account.me();
  const msg = { id, chat, from: change.by, fromDevice: null, to: chat, dir: change.by === me ? 'out' : 'in', ts, sort: ts, seq: null, status: 'sent', text: null, event: change, line: changeText(change, me), title };
  const { changed } = await store.storeBatch([{ kind: 'message', msg }], null, null, me);
  if (changed.size) notify({ type: 'changed', chats: [...changed] });
}

// ---- the GroupInfo kept on the relay, and rejoining ----

/**
 * infoKey is the key the chat's GroupInfo is kept under on the relay:
 * from the two account keys, which the relay does not hold.
 * @param {string} chat
 */
async function infoKey(chat) {
  const me = account.current();
  const { pub } = await account.convKey(chat);
  return c.aesKey(await c.groupInfoKeyBytes(me.privateKey, pub, me.username, chat));
}

/**
 * publishInfo keeps, encrypted on the relay, the GroupInfo of the group
 * at the state just committed, for a member that falls behind to rejoin
 * from. Best effort: the next commit stores a newer one.
 * @param {string} chat
 * @param {string} gid
 * @param {Uint8Array} state
 */
async function publishInfo(chat, gid, state) {
  // A group chat keeps none: no key its members share outlives a member's
  // removal, so a device that falls behind in one is added again by its
  // account's other devices (docs/crypto.md, "Group chats").
  if (isGroup(chat)) return;
  try {
    const m = await mls();
    const group = m.loadGroup(state, checkMember);
    const epoch = Number(m.groupInfo(group).epoch);
    const blob = await c.sealGroupInfo(await infoKey(chat), gid, epoch, await m.exportGroupInfo(group));
    await api.putGroupInfo(c.b64url(c.unhex(gid)), epoch, c.b64encode(blob));
  } catch (e) {
    // A newer one is stored (stale_epoch), or the relay is away: the
    // group's next commit stores its own.
    if (!(e instanceof api.ApiError)) console.warn('mlsgroups: the GroupInfo was not stored', e instanceof Error ? e.name : '');
  }
}

/**
 * rejoin joins the chat's group gid again, or for the first time, by an
 * external commit from the GroupInfo its members keep on the relay: this
 * device fell behind it (a commit it missed) or was never added (restored
 * from the recovery key). Under the lock. It returns 'done', 'stale'
 * (another commit took the epoch: try again), 'none' (no GroupInfo that
 * opens, or a group of other accounts) or 'member' (nothing to do).
 * @param {string} chat
 * @param {string} gid
 * @param {number} behind the epoch this device found the group past
 * @returns {Promise<'done' | 'stale' | 'none' | 'member'>}
 */
export async function rejoin(chat, gid, behind) {
  if (isGroup(chat)) return 'none'; // no GroupInfo: see publishInfo
  const m = await mls();
  const old = await store.getMeta(groupKey(gid));
  if (old && (old.chat !== chat || old.epoch > behind)) return 'member';
  let got;
  try {
    got = await api.getGroupInfo(c.b64url(c.unhex(gid)));
  } catch (e) {
    if (e instanceof api.ApiError && e.code === 'unknown_group') return 'none';
    throw e;
  }
  let joined;
  try {
    const info = await c.openGroupInfo(await infoKey(chat), gid, got.epoch, c.b64decode(got.info));
    // The members this device's own state holds pass as they are: their
    // leaves may carry a certificate of a key replaced since (knownCheck).
    const check = old && old.state ? m.knownCheck(m.loadGroup(old.state, checkMember).ratchetTree, checkMember) : checkMember;
    joined = await m.joinExternal(await device(), info, !!old, check);
  } catch (e) {
    console.warn('mlsgroups: a GroupInfo to rejoin from did not open', e instanceof Error ? e.name : '');
    return 'none';
  }
  if (c.hex(joined.groupId) !== gid || !membersOk(m.groupInfo(joined.group), chat)) return 'none';
  const rec = old || { gid, chat };
  const epoch = Number(m.groupInfo(joined.group).epoch);
  const out = await commitChange(rec, { group: joined.group, commit: joined.commit, welcome: null }, { gid, chat, rejoined: Date.now(), due: false, joined: epoch });
  // What was parked in the group came before this device (re)joined: it
  // cannot be opened, and the chat says that messages may be missing.
  if (out === 'done') await store.keepGroups([], [parkedKey(gid)]);
  return out;
}

/**
 * sendingGroup is the record of the group the chat sends in, creating it
 * if the chat has none and make is set; null when the chat stays
 * version 1. A commit of the group still unsettled is settled first.
 * Under the lock.
 * @param {string} chat
 * @param {boolean} make
 */
export async function sendingGroup(chat, make = true) {
  const list = (await store.getMeta(listKey(chat))) || [];
  if (list.length) {
    const gid = list.length > 1 ? await liveGroup(chat, list) : list[0];
    await settle(gid);
    return store.getMeta(groupKey(gid));
  }
  if (!make) return null;
  let p = await store.getMeta(newKey(chat));
  if (!p && isGroup(chat)) return null; // made by groupchat.js, never here
  if (!p) {
    const since = noPeer.get(chat);
    if (since && Date.now() - since < NO_PEER_MS) return null;
    p = await create(chat);
    if (!p) return null;
  }
  await finish(chat, p);
  return store.getMeta(groupKey(p.rec.gid));
}

/**
 * liveGroup picks, of a chat's groups (sorted), the one to send in: the
 * first in which every member of the other account is a device the relay
 * lists, else the first with at least one, else the first. A chat has
 * several groups after two devices made one at once (both fine), or
 * after the other account's key was reset: its old group then holds only
 * revoked devices, and what is sealed there reaches nobody.
 * @param {string} chat
 * @param {string[]} list
 */
async function liveGroup(chat, list) {
  if (chat === account.me() || isGroup(chat)) return list[0];
  let live;
  try {
    live = (await api.accountDevices(chat)).devices;
  } catch {
    return list[0];
  }
  const m = await mls();
  let some = null;
  for (const gid of list) {
    const rec = await store.getMeta(groupKey(gid));
    if (!rec) continue;
    const theirs = members(m.groupInfo(m.loadGroup(rec.state, checkMember))).filter((x) => x.username === chat);
    const up = theirs.filter((x) => live.includes(x.deviceId));
    if (up.length && up.length === theirs.length) return gid;
    if (up.length && !some) some = gid;
  }
  return some || list[0];
}

// ---- committing a change ----

/**
 * commitChange commits a change to a group (adds, removals), under the
 * lock: the commit, the welcome and the state it leads to are kept, then
 * the commit is sent. It returns 'done' when the relay accepted it (the
 * group is at the next epoch, the welcome sent), 'stale' when another
 * commit took the epoch first (nothing changed here: the winner comes on
 * the stream), and throws when the relay could not be reached (the
 * commit is settled by the next lock holder that needs the group).
 * @param {any} rec the group's record
 * @param {{group: any, commit: Uint8Array, welcome: Uint8Array | null}} made
 * @param {object} [after] fields of the record to set once it is accepted
 * @returns {Promise<'done' | 'stale'>}
 */
export async function commitChange(rec, made, after = {}) {
  const m = await mls();
  // A device joining by an external commit has no state before it.
  const before = rec.state ? m.loadGroup(rec.state, checkMember) : made.group;
  const infos = [m.groupInfo(before), m.groupInfo(made.group)];
  const p = {
    gid: rec.gid, chat: rec.chat, commit: made.commit, commitId: ulid(), welcome: made.welcome, welcomeId: ulid(),
    next: m.saveGroup(made.group), epoch: Number(m.groupInfo(made.group).epoch), accepted: false, after: { ...after, ...describe(m, made.group) },
    // A commit goes to the members before and after it (a removed one
    // learns it), a welcome to those it adds.
    to: recipients(rec.chat, infos),
    welcomeTo: isGroup(rec.chat) ? newcomers(infos[0], infos[1]) : rec.chat,
    change: isGroup(rec.chat) ? changeOf(account.me(), { accounts: accountsOf(infos[0]), meta: parseMeta(m.groupMeta(before)) }, { accounts: accountsOf(infos[1]), meta: parseMeta(m.groupMeta(made.group)) }) : null,
  };
  await store.keepGroups([[commitKey(rec.gid), p]]);
  return settlePending(p);
}

/**
 * newcomers is the `to` of a group chat's welcome: the accounts whose
 * devices a commit adds (new members, or a member's devices brought back),
 * or this account alone when it adds only devices of its own (its other
 * devices get every envelope it sends).
 * @param {{members: (Uint8Array | null)[]}} before
 * @param {{members: (Uint8Array | null)[]}} after
 * @returns {string[]}
 */
function newcomers(before, after) {
  const had = new Set(members(before).map((x) => `${x.username}/${x.deviceId}`));
  const fresh = [...new Set(members(after).filter((x) => x.username && x.username !== account.me() && !had.has(`${x.username}/${x.deviceId}`)).map((x) => /** @type {string} */ (x.username)))].sort();
  return fresh.length ? fresh : [account.me()];
}

/**
 * settle settles the group's kept commit, if any: see commitChange.
 * @param {string} gid
 */
export async function settle(gid) {
  const p = await store.getMeta(commitKey(gid));
  return p ? settlePending(p) : 'done';
}

/** @param {any} p */
async function settlePending(p) {
  if (!p.accepted) {
    let ts;
    try {
      ({ ts } = await api.sendCommit(p.commitId, p.to || p.chat, c.b64encode(p.commit)));
    } catch (e) {
      if (e instanceof api.ApiError && e.code === 'stale_epoch') {
        await store.keepGroups([], [commitKey(p.gid)]);
        return 'stale';
      }
      throw e;
    }
    const rec = await store.getMeta(groupKey(p.gid));
    p = { ...p, accepted: true };
    const puts = [[groupKey(p.gid), { ...rec, ...(p.after || {}), state: p.next, epoch: p.epoch }], [commitKey(p.gid), p]];
    const list = (await store.getMeta(listKey(p.chat))) || [];
    if (!list.includes(p.gid)) puts.push([listKey(p.chat), [...list, p.gid].sort()]);
    // The line first: a crash before the state is kept sends the commit
    // again, answered from its record with the same time.
    if (p.change) await writeLine(p.chat, p.commitId, ts, p.change, p.after && p.after.meta ? p.after.meta.name : undefined);
    await store.keepGroups(puts);
    await publishInfo(p.chat, p.gid, p.next);
  }
  if (p.welcome) await api.sendWelcome(p.welcomeId, p.welcomeTo || p.chat, c.b64encode(p.welcome));
  await store.keepGroups([], [commitKey(p.gid)]);
  return 'done';
}

/**
 * groupsOf is what this device knows of a chat's groups, for the screens
 * and tests: the ids (the one it sends in first), each one's epoch and
 * members ("username/device id").
 * @param {string} chat
 */
export async function groupsOf(chat) {
  const m = await mls();
  const list = (await store.getMeta(listKey(chat))) || [];
  const out = [];
  for (const gid of list) {
    const rec = await store.getMeta(groupKey(gid));
    if (!rec) continue;
    const info = m.groupInfo(m.loadGroup(rec.state, checkMember));
    out.push({ gid, epoch: rec.epoch, members: members(info).map((x) => `${x.username}/${x.deviceId}`) });
  }
  return out;
}
