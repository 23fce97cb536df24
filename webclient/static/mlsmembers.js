// mlsmembers.js: who is in this account's chat groups (ADR 0102, "Who adds
// and removes whom"; docs/crypto.md "Version 2: chats in MLS groups").
// Each account keeps its own devices in every group it is in: the stream
// owner adds each linked device of the account that a chat's group lacks
// (from its key packages) and removes each leaf of the account whose
// device the relay no longer lists (revoked, logged out, dropped by a key
// rotation), one commit per group with both. It also removes the other
// account's leaves whose device the relay no longer lists for it: an
// account whose last device left cannot remove its own. Two devices
// doing it at once commit to the same epoch: the relay takes one, and the
// other finds the work done when it looks again.

import * as api from './api.js';
import * as account from './account.js';
import * as election from './election.js';
import { checkMember } from './mlsidentity.js';
import * as store from './store.js';
import * as c from './crypto.js';
import { isGroup } from './groupmeta.js';
import { mls, locked, chatsWithGroups, newGroupChats, sendingGroup, claim, commitChange, members, groupKey, welcomesKey, today, rejoin, device } from './mlsgroups.js';

// A look again soon after something was left to do (a new device with no
// key package yet, a commit that lost its epoch or could not be sent),
// backing off to EVERY_MS, which is also how often the owner looks anyway.
const SOON_MS = 3000;
export const EVERY_MS = 60 * 1000;

/**
 * keepGroup brings one chat's sending group to this account's linked
 * devices: under the lock. It returns true when something is left to do.
 * @param {string} chat
 * @param {string[]} linked this account's linked devices, as the relay lists them
 */
async function keepGroup(chat, linked) {
  return locked(chat, async () => {
    const rec = await sendingGroup(chat, false);
    // Removed from a group chat, or leaving it: nothing to keep.
    if (!rec || rec.removed || rec.leaving) return false;
    const m = await mls();
    const group = m.loadGroup(rec.state, checkMember);
    const info = m.groupInfo(group);
    const mineNow = await store.getMeta('mls');
    // After a key replacement, this device commits nothing until its
    // signature key is certified by the new key (mlsidentity.js): a commit
    // carries its leaf, whose old certificate members now refuse.
    const held = account.current();
    if (!mineNow || !held || c.hex(mineNow.accountKey) !== c.hex(held.publicKey)) return true;
    const leaf = info.members[info.self];
    if (mineNow && leaf && c.hex(leaf) !== c.hex(mineNow.identity)) {
      // This device's certificate changed (the account key was replaced):
      // its leaf is replaced by one that carries the new one, by an
      // external commit from the group as it is (its own GroupInfo).
      // The library checks every leaf of the tree it joins: each is in
      // the group already and passes as it is (knownCheck), this device's
      // old one and those of its account's other devices, which carry the
      // old certificate until they replace their own leaves. The new
      // state keeps the keys of the epochs before it: a message sealed
      // in one of them that this device has not read yet still opens.
      const j = await m.joinExternal(await device(), await m.exportGroupInfo(group), true, m.knownCheck(group.ratchetTree, checkMember), group);
      await commitChange(rec, { group: j.group, commit: j.commit, welcome: null });
      return true; // the rest, if any, at the next look
    }
    const all = members(info);
    const mine = all.filter((x) => x.username === account.me());
    const missing = linked.filter((id) => !mine.some((x) => x.deviceId === id));
    const stale = mine.filter((x) => !linked.includes(/** @type {string} */ (x.deviceId))).map((x) => x.leaf);
    stale.push(...(await gone(chat, all)));
    const update = rec.due && rec.updated !== today();
    const back = checksToday(rec) ? await returning(all) : null;
    if (back && !back.stale.length) {
      rec.checked = today();
      await store.keepGroups([[groupKey(rec.gid), rec]]);
    }
    if (back && back.stale.length) stale.push(...back.stale);
    if (!missing.length && !stale.length && !update) return false;
    const own = missing.length ? (await claim(account.me(), isGroup(chat))).filter((k) => missing.includes(k.device)) : [];
    const adds = back ? [...own, ...back.adds] : own;
    if (adds.length || stale.length) {
      const out = await commitChange(rec, await m.changeMembers(group, adds.map((k) => k.keyPackage), stale), back ? { checked: today() } : undefined);
      // A device of this account joined the account's own group: what
      // was told to the devices before it is told again (block.js).
      if (out === 'done' && own.length && chat === account.me()) election.notify({ type: 'ownDeviceAdded' }, false);
      return out === 'stale' || own.length < missing.length || update;
    }
    if (update) {
      // A commit with a path and nothing else: this device's leaf and the
      // path above it get new keys, and a state stolen before opens
      // nothing after it.
      const out = await commitChange(rec, { ...(await m.updateLeaf(group)), welcome: null }, { updated: today(), due: false });
      return out === 'stale' || missing.length > 0;
    }
    return true; // a new device with no key package yet
  });
}

// ---- member accounts whose devices all left a group chat ----

/**
 * checksToday says whether this device looks today at the group chat's
 * other accounts: once a day, on the devices of its first two admins (or
 * members, sorted), so that a group of 100 costs 99 lookups a day, not
 * 99 for each device.
 * @param {any} rec
 */
function checksToday(rec) {
  if (!isGroup(rec.chat) || rec.checked === today() || !rec.accounts) return false;
  const admins = ((rec.meta && rec.meta.admins) || []).filter((/** @type {string} */ a) => rec.accounts.includes(a)).sort();
  const order = [...admins, ...rec.accounts.filter((/** @type {string} */ a) => !admins.includes(a)).sort()];
  return order.slice(0, 2).includes(account.me());
}

/**
 * returning finds the member accounts of a group chat none of whose
 * leaves is a device the relay lists, while it lists others (the account
 * logged out everywhere and was restored with its recovery key, or
 * linked again): their dead leaves, to remove, and a key package of each
 * of their devices now, to add. The accounts in the group stay the same,
 * so the commit changes no line; the new devices join by its welcome.
 * @param {{leaf: number, username: string | null, deviceId: string | null}[]} all
 */
async function returning(all) {
  /** @type {{stale: number[], adds: Awaited<ReturnType<typeof claim>>}} */
  const out = { stale: [], adds: [] };
  const others = [...new Set(all.map((x) => x.username).filter((u) => u && u !== account.me()))].sort();
  for (const u of /** @type {string[]} */ (others)) {
    let live;
    try {
      live = (await api.accountDevices(u)).devices;
    } catch (e) {
      if (e instanceof api.ApiError && (e.code === 'account_deleted' || e.code === 'unknown_account')) continue;
      throw e;
    }
    const leaves = all.filter((x) => x.username === u);
    if (!live.length || leaves.some((x) => live.includes(/** @type {string} */ (x.deviceId)))) continue;
    const packages = await claim(u, true);
    if (!packages.length) continue;
    out.stale.push(...leaves.map((x) => x.leaf));
    out.adds.push(...packages);
  }
  return out;
}

/**
 * checkNow looks at the group chat's other accounts again (the info panel
 * opened), whatever the day, if this device is one that looks.
 * @param {string} chat
 */
export async function checkNow(chat) {
  await locked(chat, async () => {
    const rec = await sendingGroup(chat, false);
    if (rec && rec.checked) await store.keepGroups([[groupKey(rec.gid), { ...rec, checked: null }]]);
  });
  return upkeep();
}

/**
 * updateNow makes the update of this device's leaf due in the chat's
 * group and runs the upkeep, which commits it (and commits it again
 * after another device's commit took its epoch).
 * @param {string} chat
 */
export async function updateNow(chat) {
  await locked(chat, async () => {
    const rec = await sendingGroup(chat, false);
    if (rec) await store.keepGroups([[groupKey(rec.gid), { ...rec, due: true, updated: null }]]);
  });
  return upkeep();
}

/**
 * gone are the leaves of chat's other account whose device the relay no
 * longer lists. None when the account is gone or lists no device: the
 * group then stays as it is, and the chat says the account was deleted.
 * @param {string} chat
 * @param {{leaf: number, username: string | null, deviceId: string | null}[]} all
 * @returns {Promise<number[]>}
 */
async function gone(chat, all) {
  if (chat === account.me()) return [];
  const theirs = all.filter((x) => x.username === chat);
  if (!theirs.length) return [];
  let live;
  try {
    live = (await api.accountDevices(chat)).devices;
  } catch (e) {
    if (e instanceof api.ApiError && (e.code === 'account_deleted' || e.code === 'unknown_account')) return [];
    throw e;
  }
  if (!live.length) return [];
  return theirs.filter((x) => !live.includes(x.deviceId)).map((x) => x.leaf);
}

/** upkeepOnce looks at every group once: true when something is left. */
async function upkeepOnce() {
  if (!election.isOwner() || !account.isLinked() || account.isRevoked()) return false;
  // A group chat made while the relay was away is sent to its members
  // first (its line and its chat appear then); a failure is tried again.
  let left = false;
  for (const chat of await newGroupChats()) {
    try {
      await locked(chat, () => sendingGroup(chat));
    } catch (e) {
      left = true; // the relay is away, or refused it: looked at again
      if (!(e instanceof api.ApiError)) throw e;
    }
  }
  const chats = await chatsWithGroups();
  if (!chats.length) return left;
  const linked = (await api.devices()).filter((d) => d.linked).map((d) => d.id);
  for (const chat of chats) {
    if (await keepGroup(chat, linked)) left = true;
  }
  return left;
}

// ---- rejoining groups this device fell behind in ----

// A group this device is not in at all is rejoined only after WELCOME_MS:
// its welcome may be on the way (a device just linked, a group just
// made), and joining from it loses nothing.
const WELCOME_MS = 10 * 1000;

/** @type {Map<string, {chat: string, gid: string, epoch: number, at: number}>} */
const behind = new Map();
let rejoinTimer = null;

/**
 * rejoinLater notes groups this device found itself behind in (a batch's
 * Batch.behind) and rejoins them by external commits.
 * @param {Map<string, {chat: string, gid: string, epoch: number}>} found
 */
export function rejoinLater(found) {
  for (const [gid, x] of found) {
    if (!behind.has(gid)) behind.set(gid, { ...x, at: Date.now() + (x.epoch < 0 ? WELCOME_MS : 0) });
  }
  if (found.size) rejoinSoon(0);
}

function rejoinSoon(ms) {
  clearTimeout(rejoinTimer);
  rejoinTimer = setTimeout(rejoinAll, ms);
}

async function rejoinAll() {
  rejoinTimer = null;
  if (!election.isOwner() || !account.isLinked()) return;
  let next = Infinity;
  for (const [gid, x] of [...behind]) {
    if (x.at > Date.now()) {
      next = Math.min(next, x.at - Date.now());
      continue;
    }
    // A welcome of the chat waits to be joined (inbox.js retries it):
    // joining from it opens what came, rejoining would not.
    if (((await store.getMeta(welcomesKey(x.chat))) || []).length) {
      behind.set(gid, { ...x, at: Date.now() + WELCOME_MS });
      next = Math.min(next, WELCOME_MS);
      continue;
    }
    let out;
    try {
      out = await locked(x.chat, () => rejoin(x.chat, gid, x.epoch));
    } catch {
      out = 'stale'; // the relay is away: again soon
    }
    if (out === 'stale') {
      behind.set(gid, { ...x, at: Date.now() + SOON_MS });
      next = Math.min(next, SOON_MS);
      continue;
    }
    behind.delete(gid);
    if (out === 'done') {
      await store.setNotice(x.chat, 'rejoined', Date.now());
      election.notify({ type: 'changed', chats: [x.chat] });
    } else if (out === 'none' && isGroup(x.chat) && x.epoch >= 0) {
      // A group chat this device is stuck behind in: it cannot rejoin by
      // itself, and says so; a welcome that adds it again is taken.
      const stuck = await locked(x.chat, async () => {
        const rec = await store.getMeta(groupKey(gid));
        if (!rec || rec.removed || rec.epoch > x.epoch) return false;
        await store.keepGroups([[groupKey(gid), { ...rec, stuck: Date.now() }]]);
        return true;
      });
      if (stuck) {
        await store.setNotice(x.chat, 'behind', Date.now());
        election.notify({ type: 'changed', chats: [x.chat] });
      }
    }
  }
  if (next < Infinity) rejoinSoon(next);
}

let running = null;
let again = false;
let timer = null;
let wait = SOON_MS;

/**
 * upkeep runs upkeepOnce, one run at a time in this tab; a call during a
 * run asks for one more after it. What is left is looked at again soon.
 * @returns {Promise<void>}
 */
export function upkeep() {
  if (running) {
    again = true;
    return running;
  }
  running = (async () => {
    let left = false;
    try {
      do {
        again = false;
        left = await upkeepOnce();
      } while (again);
    } catch (e) {
      left = true; // offline, or refused: looked at again
      if (!(e instanceof api.ApiError)) console.warn('mlsmembers: keeping the groups failed', e instanceof Error ? e.name : '');
    } finally {
      running = null;
    }
    schedule(left);
  })();
  return running;
}

function schedule(left) {
  clearTimeout(timer);
  timer = null;
  if (!election.isOwner() || !account.isLinked()) return;
  wait = left ? Math.min(wait * 2, EVERY_MS) : SOON_MS;
  timer = setTimeout(upkeep, left ? wait / 2 : EVERY_MS);
}

// The stream owner looks at each ready, at each change of the account's
// devices that a visible tab saw, when the account key here changed, and
// on its timer.
election.subscribe((ev) => {
  if (ev.type === 'account') {
    clearTimeout(timer);
    timer = null;
    return;
  }
  if (!election.isOwner()) return;
  if ((ev.type === 'conn' && ev.state === 'open') || ev.type === 'linked' || ev.type === 'mlsidentity' || (ev.type === 'devices' && ev.changed && ev.list)) upkeep();
});
