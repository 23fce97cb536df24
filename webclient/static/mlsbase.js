// mlsbase.js: what the modules of the chats' MLS groups share and what
// needs no group record (ADR 0102): the library loaded when first needed,
// the switch, the day a leaf's update counts in, who a group's members
// are (by leaf and by account), who an envelope to them goes to, and
// claiming the key packages of an account's devices to add them.
// mlsgroups.js re-exports all of it.

import * as api from './api.js';
import * as c from './crypto.js';
import * as account from './account.js';
import { checkMember, parseIdentity } from './mlsidentity.js';
import { isGroup, parseMeta } from './groupmeta.js';

/** @type {Promise<typeof import('./mls.js')> | null} */
let lib = null;
/** mls is the library's door, loaded when first needed. */
export function mls() {
  lib ??= import('./mls.js');
  return lib;
}

/**
 * enabled says whether this client makes MLS groups for chats that have
 * none: on, unless 'relay.mls' = 'off' in localStorage (a switch kept for
 * tests of the old format and as a way back while version 2 is new).
 */
export function enabled() {
  try {
    return localStorage.getItem('relay.mls') !== 'off';
  } catch {
    return true;
  }
}

/** today is the day (UTC) a group's daily update is counted in. */
export function today() {
  return new Date().toISOString().slice(0, 10);
}

/**
 * members are a group's members by leaf: {leaf, username, deviceId}; a
 * credential that does not parse is {leaf, username: null}.
 * @param {{members: (Uint8Array | null)[]}} info
 */
export function members(info) {
  const out = [];
  info.members.forEach((m, leaf) => {
    if (!m) return;
    const id = parseIdentity(m);
    out.push({ leaf, username: id ? id.username : null, deviceId: id ? id.deviceId : null });
  });
  return out;
}

/**
 * accountsOf are the accounts a group's members are devices of, sorted.
 * @param {{members: (Uint8Array | null)[]}} info
 * @returns {string[]}
 */
export function accountsOf(info) {
  return [...new Set(members(info).map((m) => m.username).filter((u) => u !== null))].sort();
}

/**
 * membersOk says whether every member of a group is a device of one of the
 * chat's accounts, and both are there; for a group chat, that every
 * member is a device of an account and this account is one of them.
 * @param {{members: (Uint8Array | null)[]}} info
 * @param {string} chat
 */
export function membersOk(info, chat) {
  const names = new Set(members(info).map((m) => m.username));
  if (isGroup(chat)) return !names.has(null) && names.has(account.me());
  const want = new Set([account.me(), chat]);
  return names.size === want.size && [...names].every((n) => want.has(n));
}

/**
 * recipients is the `to` of an envelope to a group's members: for a
 * one-to-one chat its other account; for a group chat the accounts of
 * the groups given (before and after a commit) but this one, in a list,
 * or this account alone when no other is left.
 * @param {string} chat
 * @param {{members: (Uint8Array | null)[]}[]} infos
 * @returns {string | string[]}
 */
export function recipients(chat, infos) {
  if (!isGroup(chat)) return chat;
  const all = new Set(infos.flatMap((i) => accountsOf(i)));
  all.delete(account.me());
  return all.size ? [...all].sort() : [account.me()];
}

/**
 * claim claims one key package of each device of username (but this one)
 * and keeps those whose credential names that device and checks, as
 * {device, keyPackage}; devices without a package are left out, and for
 * a group chat (groups set) those whose package cannot join one.
 * @param {string} username
 * @param {boolean} [groups]
 */
export async function claim(username, groups = false) {
  const m = await mls();
  const got = await api.claimKeyPackages(username);
  const out = [];
  for (const d of got.devices) {
    if (!d.keyPackage) continue;
    try {
      const kp = c.b64decode(d.keyPackage);
      const who = m.keyPackageMember(kp);
      const id = who.identity && parseIdentity(who.identity);
      if (groups && !m.keyPackageHasGroups(kp)) continue; // an older client's: added once it publishes anew
      if (id && id.username === username && id.deviceId === d.device && (await checkMember(who.identity, who.signaturePublicKey))) out.push({ device: d.device, keyPackage: kp });
      else console.warn('mlsgroups: a key package that does not check was left out');
    } catch {
      console.warn('mlsgroups: a key package that does not parse was left out');
    }
  }
  return out;
}

/**
 * describe is what the screens read of a group without the library: the
 * accounts of its members, its record (a group chat's name and roles, or
 * null) and whether this device was removed from it. It is kept with the
 * group's state each time that is written.
 * @param {typeof import('./mls.js')} m
 * @param {any} group
 */
export function describe(m, group) {
  return { accounts: accountsOf(m.groupInfo(group)), meta: parseMeta(m.groupMeta(group)), removed: m.isRemoved(group) };
}
