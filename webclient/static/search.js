// search.js: the search of the messages on this device (docs/storage.md,
// "Search"). It runs in the page and asks nothing of the relay. The index
// is in memory only: for each message that shows a text or file names,
// its id, chat and order key and its text folded (searchtext.js), in one
// list, newest first, so that a search needs no sort. It is
// read from IndexedDB in pieces the first time a person searches, and
// kept up to date from then on by the chats that change (changed), each
// read again when the next search comes. A logout drops it (reset).

import * as store from './store.js';
import { fold, terms, matches } from './searchtext.js';

/** @typedef {{id: string, chat: string, sort: number, folded: string}} Entry */

/** @type {Entry[] | null} every entry, newest first */
let all = null;
/** @type {Promise<void> | null} */
let building = null;
/** @type {Set<string>} chats changed since they were read */
const dirty = new Set();
// epoch changes at each reset: a build or a read under way from before
// it is not kept.
let epoch = 0;

/**
 * newer orders entries newest first: by order key, then by id, as a
 * chat's order has it (order.js), reversed.
 * @param {Entry} a
 * @param {Entry} b
 */
function newer(a, b) {
  return b.sort - a.sort || (a.id < b.id ? 1 : a.id > b.id ? -1 : 0);
}

// PIECE is how many rows a read of the build takes at once: the page
// stays responsive between pieces, and progress can be shown.
const PIECE = 5000;

/**
 * searchable is what of a stored row a search looks at, or null for a
 * row that shows nothing to find: a record of the outbox, a message
 * hidden, deleted, not decrypted, refused, or an event of a group.
 * @param {any} m
 */
export function searchable(m) {
  if (m.kind || m.hidden || m.deleted || m.unknown || m.waiting || m.undecryptable || m.downgrade || m.event) return null;
  const names = (m.files || []).map((/** @type {any} */ f) => f.name).filter(Boolean);
  if (!m.text && !names.length) return null;
  return { names, text: m.text || '' };
}

/** @param {any} m @returns {Entry | null} */
function entryOf(m) {
  const s = searchable(m);
  if (!s) return null;
  return { id: m.id, chat: m.chat, sort: m.sort, folded: fold([...s.names, s.text].join('\n')) };
}

/**
 * build reads every message into the index, telling progress(done,
 * total) after each piece.
 * @param {(done: number, total: number) => void} progress
 */
async function build(progress) {
  const mine = epoch;
  dirty.clear();
  /** @type {Entry[]} */
  const list = [];
  const total = await store.messageCount();
  let after = null;
  let done = 0;
  for (;;) {
    const rows = await store.messageRows(after, PIECE);
    if (mine !== epoch) return;
    for (const m of rows) {
      const e = entryOf(m);
      if (e) list.push(e);
    }
    done += rows.length;
    progress(Math.min(done, total), total);
    if (rows.length < PIECE) break;
    after = rows[rows.length - 1].id;
  }
  all = list.sort(newer);
}

// refresh reads the chats that changed since they were read again: their
// entries leave the list, and those read now are merged into it in
// order.
async function refresh() {
  const mine = epoch;
  while (dirty.size && all) {
    const chat = /** @type {string} */ (dirty.values().next().value);
    dirty.delete(chat);
    const rows = await store.getMessages(chat);
    if (mine !== epoch || !all) return;
    const fresh = /** @type {Entry[]} */ (rows.map(entryOf).filter(Boolean)).sort(newer);
    const kept = all.filter((e) => e.chat !== chat);
    /** @type {Entry[]} */
    const merged = [];
    let i = 0;
    let j = 0;
    while (i < kept.length || j < fresh.length) {
      if (j >= fresh.length || (i < kept.length && newer(kept[i], fresh[j]) <= 0)) merged.push(kept[i++]);
      else merged.push(fresh[j++]);
    }
    all = merged;
  }
}

/**
 * ready resolves once the index holds every message stored now; the
 * first time it is built, with progress told.
 * @param {(done: number, total: number) => void} [progress]
 */
export async function ready(progress = () => {}) {
  if (!all) {
    if (!building) {
      const b = build(progress).finally(() => {
        if (building === b) building = null;
      });
      building = b;
    }
    await building;
  }
  await refresh();
}

/**
 * search finds the messages that hold every word of query, newest first:
 * {total, found: [{id, chat, sort}]} with at most limit of them.
 * @param {string} query
 * @param {number} limit
 * @param {(done: number, total: number) => void} [progress]
 */
export async function search(query, limit, progress) {
  const ts = terms(query);
  if (!ts.length) return { total: 0, found: [], terms: ts };
  await ready(progress);
  // The list is newest first: the first limit hits are the results.
  /** @type {Entry[]} */
  const found = [];
  let total = 0;
  for (const e of all || []) {
    if (!matches(e.folded, ts)) continue;
    if (total++ < limit) found.push(e);
  }
  return { total, found, terms: ts };
}

/**
 * changed marks chats to read again before the next search.
 * @param {string[]} chats
 */
export function changed(chats) {
  for (const c of chats || []) dirty.add(c);
}

// reset drops the index: nothing of an account logged out stays in
// memory, and the next search reads the store anew.
export function reset() {
  epoch++;
  all = null;
  building = null;
  dirty.clear();
}
