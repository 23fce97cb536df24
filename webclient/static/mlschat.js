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
import { notify } from './election.js';
import { mls, enabled, acquire, locked, groupKey, listKey, parkedKey, welcomesKey, sendingGroup, membersOk, members, device, today } from './mlsgroups.js';
import { upkeep, rejoinLater } from './mlsmembers.js';

export { enabled, groupsOf } from './mlsgroups.js';

// meta 'mlsSpeakers:<chat>' [device ids]: the devices seen sending in the
// chat's MLS group, whose version 1 envelopes are refused from then on.
const speakersKey = (chat) => 'mlsSpeakers:' + chat;

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
 * @param {(body: Uint8Array, metas: [string, any][]) => Promise<void>} write
 * @returns {Promise<boolean>}
 */
export async function seal(chat, id, record, write) {
  if (!enabled() && !(await store.getMeta(listKey(chat)))) return false;
  const m = await mls();
  let due = false;
  const sealed = await locked(chat, async () => {
    const rec = await sendingGroup(chat);
    if (!rec) return false;
    const group = m.loadGroup(rec.state, checkMember);
    const r = await m.encrypt(group, c.pad(te.encode(record), c.MLS_BUCKETS), authData(id, account.me(), chat));
    // The first send of a day in the group makes the update of this
    // device's leaf due, which the upkeep commits next.
    due = rec.updated !== today();
    await write(r.message, [[groupKey(rec.gid), { ...rec, state: m.saveGroup(r.group), due: rec.due || due }]]);
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

// ---- opening what the stream brings ----

/**
 * replays counts, in this tab, envelopes that came again: known by their
 * id before anything was decrypted (byId), or found used up by the group
 * (spent: a record, which leaves no row of its id); and those sealed in a
 * group before this device was added to it (beforeJoin), which are not
 * for it.
 */
export const replays = { byId: 0, spent: 0, beforeJoin: 0 };

/**
 * A Batch holds the groups a batch of envelopes changed, under the lock,
 * until the store wrote them with the batch: the caller writes writes()
 * in the batch's transaction, then calls release().
 */
export class Batch {
  constructor() {
    /** @type {Map<string, {rec: any, group: any}>} */
    this.groups = new Map();
    /** @type {Map<string, string[]>} */
    this.lists = new Map();
    /** @type {Set<string>} */
    this.dirty = new Set();
    /** @type {string[]} key packages used by a welcome, to drop */
    this.usedKeyPackages = [];
    /** @type {Map<string, {chat: string, gid: string, epoch: number}>} groups this device is behind in */
    this.behind = new Map();
    /** @type {Set<string>} chats in which a member was refused */
    this.refused = new Set();
    /** @type {Map<string, string[]>} chat -> devices seen sending in its group */
    this.speakers = new Map();
    /** @type {Set<string>} ids opened in this batch */
    this.ids = new Set();
    /** @type {Map<string, () => void>} the chats whose lock it holds */
    this.unlocks = new Map();
    /** @type {Map<string, any[]>} group -> envelopes parked in it */
    this.parked = new Map();
    /** @type {any[]} parked envelopes to open, the group joined */
    this.unparked = [];
    /** @type {Map<string, any[]>} chat -> welcomes kept to join later */
    this.welcomes = new Map();
  }

  /** keptWelcomes says whether the batch kept a welcome to join later. */
  keptWelcomes() {
    return [...this.welcomes.values()].some((l) => l.length > 0);
  }

  /** @param {string} chat */
  welcomesOf(chat) {
    return keptList(this.welcomes, chat, welcomesKey);
  }

  /**
   * takeWelcomes hands the chat's kept welcomes, to join again: one that
   * still cannot be checked is kept again by join.
   * @param {string} chat
   */
  async takeWelcomes(chat) {
    const list = await this.welcomesOf(chat);
    this.welcomes.set(chat, []);
    return list;
  }

  /**
   * park keeps an envelope of a group this device is not in until it
   * joins (a welcome that comes after it) or rejoins.
   * @param {string} gid
   * @param {any} env
   */
  async park(gid, env) {
    const list = await this.parkedIn(gid);
    if (!list.some((e) => e.id === env.id)) list.push(env);
  }

  /** @param {string} gid */
  parkedIn(gid) {
    return keptList(this.parked, gid, parkedKey);
  }

  /**
   * unpark takes a group's parked envelopes once this device joined it
   * at epoch: those of an earlier epoch were sealed before its addition
   * and are not for it; the others are opened after the batch's own.
   * @param {string} gid
   * @param {number} epoch
   */
  async unpark(gid, epoch) {
    const m = await mls();
    for (const env of await this.parkedIn(gid)) {
      const h = m.readHeader(c.b64decode(env.body));
      if (h && Number(h.epoch) >= epoch) this.unparked.push(env);
      else replays.beforeJoin++;
    }
    this.parked.set(gid, []);
  }

  /** takeUnparked hands the envelopes unparked, once. */
  takeUnparked() {
    const out = this.unparked;
    this.unparked = [];
    return out;
  }

  /** @param {string} chat */
  async lock(chat) {
    if (!this.unlocks.has(chat)) this.unlocks.set(chat, await acquire(chat));
  }

  release() {
    for (const unlock of this.unlocks.values()) unlock();
    this.unlocks.clear();
  }

  /** written says the batch is stored: the groups it found this device
   * behind in are rejoined. */
  written() {
    rejoinLater(this.behind);
    for (const chat of this.refused) {
      store.setNotice(chat, 'refused', Date.now()).then(() => notify({ type: 'changed', chats: [chat] }), () => {});
    }
  }

  /**
   * speaker notes a device seen sending in the chat's group.
   * @param {string} chat
   * @param {string} sender
   */
  async speaker(chat, sender) {
    if (!this.speakers.has(chat)) this.speakers.set(chat, (await store.getMeta(speakersKey(chat))) || []);
    const list = /** @type {string[]} */ (this.speakers.get(chat));
    if (!list.includes(sender)) list.push(sender);
  }

  /** @param {string} gid */
  async group(gid) {
    if (this.groups.has(gid)) return this.groups.get(gid);
    const rec = await store.getMeta(groupKey(gid));
    if (!rec) return null;
    const g = { rec, group: (await mls()).loadGroup(rec.state, checkMember) };
    this.groups.set(gid, g);
    return g;
  }

  /** @param {string} chat */
  async list(chat) {
    if (!this.lists.has(chat)) this.lists.set(chat, (await store.getMeta(listKey(chat))) || []);
    return /** @type {string[]} */ (this.lists.get(chat));
  }

  /**
   * writes is what the batch's transaction writes for the groups: each
   * changed group's state, each changed chat's list, and the key packages
   * used up.
   * @returns {Promise<{puts: [string, any][], deletes: string[], dropKeyPackages: string[]}>}
   */
  async writes() {
    const m = await mls();
    /** @type {[string, any][]} */
    const puts = [];
    for (const gid of this.dirty) {
      const g = this.groups.get(gid);
      if (g) puts.push([groupKey(gid), { ...g.rec, state: m.saveGroup(g.group), epoch: Number(m.groupInfo(g.group).epoch) }]);
    }
    for (const [chat, list] of this.lists) puts.push([listKey(chat), list]);
    for (const [chat, list] of this.speakers) puts.push([speakersKey(chat), list]);
    /** @type {string[]} */
    const deletes = [];
    for (const [kept, key] of /** @type {const} */ ([[this.parked, parkedKey], [this.welcomes, welcomesKey]])) {
      for (const [k, list] of kept) {
        if (list.length) puts.push([key(k), list]);
        else deletes.push(key(k));
      }
    }
    return { puts, deletes, dropKeyPackages: this.usedKeyPackages };
  }
}

/**
 * keptList is the list of envelopes kept under key(k) in meta, read once
 * into map: the batch changes it there and writes() writes it back.
 * @param {Map<string, any[]>} map
 * @param {string} k
 * @param {(k: string) => string} key
 * @returns {Promise<any[]>}
 */
async function keptList(map, k, key) {
  if (!map.has(k)) map.set(k, (await store.getMeta(key(k))) || []);
  return /** @type {any[]} */ (map.get(k));
}

/**
 * keptForm is an envelope as it is kept to be read later (a welcome, or
 * a message of a group this device is not in yet): its body in base64.
 * @param {{id: string, from: string, fromDevice: string, to: string, ts?: number, seq?: number}} env
 * @param {Uint8Array} body
 */
function keptForm(env, body) {
  return { id: env.id, from: env.from, fromDevice: env.fromDevice, to: env.to, ts: env.ts, seq: env.seq, body: c.b64encode(body) };
}

/**
 * open reads an envelope whose body may be an MLS message, within batch b:
 * null when it is not one (the caller reads it as version 1); otherwise
 * {record} for an application message that opened, {skip} for what
 * changes a group or is not for this device, or {undecryptable} for a
 * message of a group this device cannot open (kept sealed by the caller).
 * @param {{id: string, from: string, fromDevice: string, to: string, ts?: number, seq?: number}} env
 * @param {Uint8Array} body
 * @param {Batch} b
 * @returns {Promise<null | {record: any} | {skip: true} | {undecryptable: true}>}
 */
export async function open(env, body, b) {
  if (!looksMLS(body)) return null;
  const m = await mls();
  const h = m.readHeader(body);
  if (!h) return null;
  const chat = env.from === account.me() ? env.to : env.from;
  if (h.wireformat === 'mls_welcome') {
    await b.lock(chat);
    await join(keptForm(env, body), body, chat, b);
    return { skip: true };
  }
  if ((h.wireformat !== 'mls_private_message' && h.wireformat !== 'mls_public_message') || !h.groupId) return { skip: true };
  // Known by its id: a replay, recognised before anything is decrypted
  // (its keys are used up: it would not open again).
  if (b.ids.has(env.id) || (await store.getMessage(env.id))) {
    replays.byId++;
    return { skip: true };
  }
  await b.lock(chat);
  const gid = c.hex(h.groupId);
  const g = await b.group(gid);
  /** @type {{undecryptable: true} | {skip: true}} */
  const unreadable = h.contentType === 'application' ? { undecryptable: true } : { skip: true };
  if (g && g.rec.chat !== chat) return unreadable;
  // A group this device is not in (a message that came before the
  // welcome that adds it, or a device restored from the recovery key), or
  // one it fell behind (a commit it missed): it rejoins from the
  // GroupInfo once the batch is written (mlsmembers.js).
  const epoch = g ? Number(m.groupInfo(g.group).epoch) : -1;
  if (Number(h.epoch) > epoch) {
    if (!b.behind.has(gid)) b.behind.set(gid, { chat, gid, epoch });
    if (g || h.contentType !== 'application') return unreadable;
    // Not in the group: kept until the welcome that adds this device (or
    // its rejoin) says whether it was for it.
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
    console.warn('mlschat: a message of a group did not open', e instanceof Error ? e.name : '');
    if (m.isRefusedMember(e)) b.refused.add(chat);
    return h.contentType === 'application' ? { undecryptable: true } : { skip: true };
  }
  if (r.kind !== 'application') {
    if (!membersOk(m.groupInfo(r.group), chat) || !(await joinersLive(m, g.group, r.group))) {
      console.warn('mlschat: a commit brought a member of another account or a device the relay does not list; the group is left as it was');
      b.refused.add(chat);
      return { skip: true };
    }
    b.groups.set(gid, { rec: g.rec, group: r.group });
    b.dirty.add(gid);
    return { skip: true };
  }
  b.groups.set(gid, { rec: g.rec, group: r.group });
  b.dirty.add(gid);
  const sender = r.sender && parseIdentity(r.sender);
  if (!sender || sender.username !== env.from || sender.deviceId !== env.fromDevice || c.hex(r.authenticatedData) !== c.hex(authData(env.id, env.from, env.to))) {
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
  return { record };
}

/**
 * isDowngrade says whether a version 1 envelope in chat comes from a
 * device that this device already saw send in the chat's MLS group: a
 * device that speaks MLS in a chat never seals anything new there the old
 * way, so such an envelope is refused (docs/crypto.md, "Moving a chat").
 * @param {{fromDevice: string}} env
 * @param {string} chat
 * @param {Batch | null} b
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
    try {
      if (!(await api.accountDevices(x.username)).devices.includes(x.deviceId)) return false;
    } catch {
      return false; // not applied: this device falls behind, and rejoins
    }
  }
  return true;
}

/**
 * join joins a group from a welcome made for one of this device's key
 * packages, if its members are devices of the chat's two accounts.
 * @param {{id: string, from: string, fromDevice: string, to: string, ts?: number, seq?: number, body: string}} env the envelope, its body in base64
 * @param {Uint8Array} body
 * @param {string} chat
 * @param {Batch} b
 */
async function join(env, body, chat, b) {
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
  if (!membersOk(info, chat)) {
    console.warn('mlschat: a welcome to a group with devices of another account was refused');
    b.refused.add(chat);
    return;
  }
  if (!m.isLastResort(kept[i].keyPackage)) b.usedKeyPackages.push(c.b64encode(kept[i].keyPackage));
  if (await b.group(gid)) return; // joined before
  b.groups.set(gid, { rec: { gid, chat, state: null, epoch: Number(info.epoch), joined: Number(info.epoch) }, group });
  b.dirty.add(gid);
  const list = await b.list(chat);
  b.lists.set(chat, [...new Set([...list, gid])].sort());
  await b.unpark(gid, Number(info.epoch));
}

/**
 * welcomeChats are the chats with welcomes kept to join later.
 * @returns {Promise<string[]>}
 */
export async function welcomeChats() {
  return (await store.metaKeys('mlsWelcomes:')).map((k) => k.slice('mlsWelcomes:'.length));
}
