// screen-search.js: the search field above the chat list, and what it
// finds: the messages of every chat on this device that hold every word
// typed, newest first, with their chat, time and the words marked. A
// result opens its chat at the message. While the field holds a query
// the results take the chat list's place (search.js finds them; nothing
// leaves the browser).

import * as search from './search.js';
import * as store from './store.js';
import * as time from './time.js';
import { el, placeRows } from './dom.js';
import { ui, chatName, request, plural } from './ui.js';
import { snippet } from './searchtext.js';
import { isGroup } from './groupmeta.js';

// STEP is how many results are shown at first, and how many more each
// Show more adds.
const STEP = 50;

/**
 * @typedef {{form: HTMLElement, input: HTMLInputElement, status: HTMLElement,
 *   list: HTMLElement, more: HTMLElement, results: HTMLElement, limit: number,
 *   gen: number, stop: string | null, onActive: (active: boolean) => void}} SearchParts
 */

/**
 * searchParts builds the field and the results pane; onActive(active)
 * tells the list pane whether a query is shown, in place of the chats.
 * @param {(active: boolean) => void} onActive
 * @returns {SearchParts}
 */
export function searchParts(onActive) {
  const input = /** @type {HTMLInputElement} */ (el('input', {
    type: 'search', id: 'search-input', placeholder: 'Search messages', 'aria-label': 'Search messages',
    autocomplete: 'off', spellcheck: 'false', 'aria-describedby': 'search-hint',
  }));
  const form = el('form', { class: 'search-form', role: 'search', onsubmit: (/** @type {Event} */ e) => e.preventDefault() },
    input, el('p', { id: 'search-hint', class: 'sr-only' }, 'Finds messages on this device. The down arrow goes to the results, Escape clears the field.'));
  const status = el('p', { id: 'search-status', class: 'muted search-status', role: 'status' });
  const list = el('ul', { class: 'plain', id: 'search-list', 'aria-label': 'Messages found' });
  const more = el('button', { type: 'button', id: 'search-more', hidden: true }, 'Show more');
  const results = el('section', { id: 'search-results', class: 'search-results', hidden: true, 'aria-label': 'Search results' }, status, list, more);
  /** @type {SearchParts} */
  const s = { form, input, status, list, more, results, limit: STEP, gen: 0, stop: null, onActive };
  input.addEventListener('input', () => {
    s.limit = STEP;
    s.stop = null;
    runSearch(s);
  });
  input.addEventListener('keydown', (e) => {
    if (e.key === 'Escape' && input.value) {
      e.preventDefault();
      input.value = '';
      runSearch(s);
    } else if (e.key === 'ArrowDown') {
      const first = list.querySelector('a.result-link');
      if (first) {
        e.preventDefault();
        /** @type {HTMLElement} */ (first).focus();
      }
    }
  });
  more.addEventListener('click', () => {
    s.limit += STEP;
    runSearch(s);
  });
  list.addEventListener('keydown', (e) => resultKey(s, e));
  list.addEventListener('focusin', (e) => {
    const row = /** @type {HTMLElement} */ (e.target).closest('.result-item');
    if (row) {
      s.stop = /** @type {HTMLElement} */ (row).dataset.id || null;
      placeStop(s);
    }
  });
  return s;
}

/**
 * runSearch shows what the field's query finds now: called as it is
 * typed, and again when the stored messages change.
 * @param {SearchParts} s
 */
export async function runSearch(s) {
  const q = s.input.value;
  const gen = ++s.gen;
  const active = q.trim() !== '';
  s.results.hidden = !active;
  s.onActive(active);
  if (!active) {
    s.list.replaceChildren();
    say(s, '');
    s.more.hidden = true;
    return;
  }
  const res = await search.search(q, s.limit, (done, total) => {
    if (gen === s.gen) say(s, `Searching ${total.toLocaleString('en')} messages… ${Math.floor((done * 100) / Math.max(1, total))} %`);
  });
  if (gen !== s.gen) return;
  // The rows themselves, for what the results show: a message changed
  // since the index read it shows as it is now.
  const rows = (await Promise.all(res.found.map((f) => store.getMessage(f.id)))).filter((m) => m && search.searchable(m));
  if (gen !== s.gen) return;
  const n = res.total;
  say(s, n ? `${n.toLocaleString('en')} ${plural.select(n) === 'one' ? 'message' : 'messages'} found${n > rows.length ? `, the newest ${rows.length} shown` : ''}.`
    : `No message on this device holds \u201c${q.trim()}\u201d.`);
  const focusedId = s.list.contains(document.activeElement) ? s.stop : null;
  placeRows(s.list, rows.map((m) => ({
    key: m.id,
    sig: JSON.stringify([m.text, m.files && m.files.map((/** @type {any} */ f) => f.name), m.ts, chatName(m.chat), res.terms]),
    make: () => resultItem(m, res.terms),
  })));
  s.more.hidden = n <= rows.length;
  placeStop(s);
  if (focusedId && !s.list.contains(document.activeElement)) {
    const again = s.list.querySelector('a.result-link[tabindex="0"]');
    if (again) /** @type {HTMLElement} */ (again).focus({ preventScroll: true });
  }
}

// say sets the status line, only when what it says changes: a live
// region set again reads the same words out again.
/** @param {SearchParts} s @param {string} text */
function say(s, text) {
  if (s.status.textContent !== text) s.status.textContent = text;
}

/**
 * resultItem is one message found: its chat, its time, and the part of
 * its text with the words marked ("You:" before one's own, the author
 * in a group).
 * @param {any} m
 * @param {string[]} ts
 */
function resultItem(m, ts) {
  const s = /** @type {{names: string[], text: string}} */ (search.searchable(m));
  const text = s.names.length ? `\u{1F4CE} ${s.names.join(', ')}${s.text ? ': ' + s.text : ''}` : s.text;
  const who = m.dir === 'out' ? 'You: ' : isGroup(m.chat) && m.from ? `${m.from}: ` : '';
  const name = chatName(m.chat);
  return el('li', { class: 'result-item', 'data-id': m.id, 'data-chat': m.chat },
    el('a', {
      href: '#/chat/' + m.chat, class: 'result-link', tabindex: '-1',
      onclick: () => {
        ui.openAt = { chat: m.chat, id: m.id };
        // The chat open already: the address does not change, the
        // router is asked to draw it again.
        if (location.hash === '#/chat/' + m.chat) request('route');
      },
    },
    el('span', { class: 'chat-line' },
      el('span', { class: 'name', title: name }, name),
      el('time', { class: 'chat-time', datetime: new Date(m.ts).toISOString(), title: time.full(m.ts) }, time.short(m.ts))),
    el('span', { class: 'result-text' },
      who ? el('span', { class: 'you' }, who) : null,
      ...snippet(text, ts).map(([t, marked]) => (marked ? el('mark', {}, t) : t)))));
}

// The results are one Tab stop, as the chat list is: the arrows, Home
// and End move between them; the up arrow from the first goes back to
// the field.

/** @param {SearchParts} s */
function placeStop(s) {
  const links = [...s.list.querySelectorAll('a.result-link')];
  const stop = links.find((a) => /** @type {HTMLElement} */ (a.closest('.result-item')).dataset.id === s.stop) || links[0];
  for (const a of links) /** @type {HTMLElement} */ (a).tabIndex = a === stop ? 0 : -1;
}

/**
 * @param {SearchParts} s
 * @param {KeyboardEvent} e
 */
function resultKey(s, e) {
  const a = /** @type {HTMLElement} */ (e.target).closest('a.result-link');
  if (!a || e.altKey || e.ctrlKey || e.metaKey) return;
  const links = /** @type {HTMLElement[]} */ ([...s.list.querySelectorAll('a.result-link')]);
  const at = links.indexOf(/** @type {HTMLElement} */ (a));
  if (e.key === 'ArrowUp' && at === 0) {
    e.preventDefault();
    s.input.focus();
    return;
  }
  const to = { ArrowDown: at + 1, ArrowUp: at - 1, Home: 0, End: links.length - 1 }[e.key];
  if (to !== undefined) {
    e.preventDefault();
    links[Math.max(0, Math.min(links.length - 1, to))].focus();
    return;
  }
  if (e.key === ' ') {
    e.preventDefault();
    /** @type {HTMLElement} */ (a).click();
  }
}
