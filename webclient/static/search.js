// search.js: the search of the messages on this device (docs/storage.md,
// "Search"). It runs in the page and asks nothing of the relay. The index
// is in memory only: for each message that shows a text or file names,
// its id, chat and order key and its text folded (searchtext.js). It is
// read from IndexedDB in pieces the first time a person searches, and
// kept up to date from then on by the chats that change (changed), each
// read again when the next search comes. A logout drops it (reset).

import * as store from './store.js';
import { fold, terms, matches } from './searchtext.js';

/** @typedef {{id: string, chat: string, sort: number, folded: string}} Entry */

/** @type {Map<string, Entry[]> | null} */
let byChat = null;
/** @type {Promise<void> | null} */
let building = null;
/** @type {Set<string>} chats changed since they were read */
const dirty = new Set();
// epoch changes at each reset: a build or a read under way from before
// it is not kept.
let epoch = 0;

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
  /** @type {Map<string, Entry[]>} */
  const map = new Map();
  const total = await store.messageCount();
  let after = null;
  let done = 0;
  for (;;) {
    const rows = await store.messageRows(after, PIECE);
    if (mine !== epoch) return;
    for (const m of rows) {
      const e = entryOf(m);
      if (!e) continue;
      const list = map.get(e.chat);
      if (list) list.push(e);
      else map.set(e.chat, [e]);
    }
    done += rows.length;
    progress(Math.min(done, total), total);
    if (rows.length < PIECE) break;
    after = rows[rows.length - 1].id;
  }
  byChat = map;
}

// refresh reads the chats that changed since they were read again.
async function refresh() {
  const mine = epoch;
  while (dirty.size && byChat) {
    const chat = /** @type {string} */ (dirty.values().next().value);
    dirty.delete(chat);
    const rows = await store.getMessages(chat);
    if (mine !== epoch || !byChat) return;
    const list = /** @type {Entry[]} */ (rows.map(entryOf).filter(Boolean));
    if (list.length) byChat.set(chat, list);
    else byChat.delete(chat);
  }
}

/**
 * ready resolves once the index holds every message stored now; the
 * first time it is built, with progress told.
 * @param {(done: number, total: number) => void} [progress]
 */
export async function ready(progress = () => {}) {
  if (!byChat) {
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
  /** @type {Entry[]} */
  const hits = [];
  for (const list of (byChat || new Map()).values()) {
    for (const e of list) if (matches(e.folded, ts)) hits.push(e);
  }
  hits.sort((a, b) => b.sort - a.sort || (a.id < b.id ? 1 : a.id > b.id ? -1 : 0));
  return { total: hits.length, found: hits.slice(0, limit), terms: ts };
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
  byChat = null;
  building = null;
  dirty.clear();
}
