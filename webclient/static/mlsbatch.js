// mlsbatch.js: what a batch of envelopes changes in the MLS groups of
// chats (mlschat.js opens them), held under the chats' locks until the
// store writes it with the batch: the groups' next states, the chats'
// lists of groups, the devices seen sending, the key packages a welcome
// used, and the envelopes kept to read later (messages of a group this
// device is not in yet, welcomes whose members could not be checked).

import * as store from './store.js';
import * as c from './crypto.js';
import { checkMember } from './mlsidentity.js';
import { notify } from './election.js';
import { mls, acquire, groupKey, listKey, parkedKey, welcomesKey, describe } from './mlsgroups.js';
import { rejoinLater } from './mlsmembers.js';

// meta 'mlsSpeakers:<chat>' [device ids]: the devices seen sending in the
// chat's MLS group, whose version 1 envelopes are refused from then on.
export const speakersKey = (/** @type {string} */ chat) => 'mlsSpeakers:' + chat;

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
    /** @type {Set<string>} accounts whose devices came back into a group chat with a new certificate (their key changed) */
    this.rekeyed = new Set();
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
   * heldBehind says whether a commit of the chat waits, kept with its
   * welcomes, to be applied again: what comes after it waits behind it.
   * @param {string} chat
   */
  async heldBehind(chat) {
    return (await this.welcomesOf(chat)).some((e) => e.held);
  }

  /**
   * keepBehind keeps an envelope of the chat after those kept already,
   * to be read again in order with them.
   * @param {string} chat
   * @param {any} env
   */
  async keepBehind(chat, env) {
    const list = await this.welcomesOf(chat);
    if (!list.some((e) => e.id === env.id)) list.push(env);
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
      if (g) puts.push([groupKey(gid), { ...g.rec, state: m.saveGroup(g.group), epoch: Number(m.groupInfo(g.group).epoch), ...describe(m, g.group) }]);
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
export function keptForm(env, body) {
  return { id: env.id, from: env.from, fromDevice: env.fromDevice, to: env.to, ts: env.ts, seq: env.seq, body: c.b64encode(body) };
}
