// screen-chats.js: the chat list, the left pane of the split view the
// open chat shares (screen-chat.js), with the notices above it.

import * as store from './store.js';
import * as sync from './sync.js';
import * as api from './api.js';
import * as time from './time.js';
import { timerLabel, timerShort } from './expiry.js';
import { el, placeRows } from './dom.js';
import { ui, view, revoked, request, chatName, createKeyHash } from './ui.js';
import { isGroup, initials } from './groupmeta.js';
import { searchParts, runSearch } from './screen-search.js';

/**
 * avatar is a chat's round mark in the list and the head: the initials
 * of its name.
 * @param {string} name
 */
export function avatar(name) {
  return el('span', { class: 'avatar', 'aria-hidden': 'true' }, initials(name));
}

// The chat list and the open chat are two panes of one split view: side
// by side from 900 px, one at a time below (data-open says which). The
// list pane keeps its nodes while the split is on screen, so that what is
// typed in New chat survives every update.

export function splitView() {
  if (ui.split && view.contains(ui.split.split)) return ui.split;
  const input = el('input', { id: 'new-chat-username', placeholder: 'username', autocomplete: 'off', autocapitalize: 'none', spellcheck: 'false', 'aria-describedby': 'new-chat-error' });
  const err = el('p', { class: 'error', role: 'alert', id: 'new-chat-error' });
  const form = el('form', {
    class: 'row new-chat',
    onsubmit: async (e) => {
      e.preventDefault();
      const u = input.value.trim().toLowerCase();
      if (!/^[a-z0-9_]{3,32}$/.test(u)) {
        err.textContent = 'A username is 3 to 32 characters: a–z, 0–9 and _.';
        return;
      }
      err.textContent = '';
      try {
        await api.lookup(u);
        input.value = '';
        location.hash = '#/chat/' + u;
      } catch (ex) {
        err.textContent = ex.code === 'unknown_account' ? `There is no account named ${u}. Check the spelling.`
          : ex.code === 'account_deleted' ? `This account was deleted: ${u} can no longer receive messages.`
          : ex.code === 'network' ? 'The relay cannot be reached, so the name cannot be checked. Try again when the connection is back.'
          : `Could not look up ${u}: ${ex.message}`;
      }
    },
  }, el('div', {}, el('label', { for: 'new-chat-username' }, 'New chat'), input), el('button', { type: 'submit', id: 'new-chat-btn', class: 'primary' }, 'Open'));
  const newGroup = el('p', { class: 'new-group-line' }, el('a', { href: '#/new-group', id: 'new-group-link', class: 'button' }, 'New group'));
  const list = el('ul', { class: 'plain', id: 'chat-list', 'aria-label': 'Chats', 'aria-describedby': 'chat-list-hint' });
  list.addEventListener('keydown', chatListKey);
  list.addEventListener('focusin', (e) => {
    const a = e.target.closest('a.chat-link');
    if (a) setChatStop(list, a);
  });
  const empty = el('p', { class: 'muted', id: 'no-chats' }, 'No chats yet. Write to someone by their username.');
  const notices = el('div', { class: 'list-notices' });
  // While the search field holds a query, its results take the place of
  // New chat and the chat list.
  const browse = el('div', { class: 'browse' }, form, err, newGroup, el('h2', { id: 'chats-title', class: 'pane-title' }, 'Chats'), list, empty,
    el('p', { id: 'chat-list-hint', class: 'sr-only' }, 'The up and down arrows move between chats, Home and End to the first and the last; Enter or Space opens the chat.'));
  const search = searchParts((active) => { browse.hidden = active; });
  const listPane = el('section', { class: 'list-pane', id: 'list-pane', 'aria-labelledby': 'chats-title' },
    notices, search.form, search.results, browse);
  const chatPane = el('div', { class: 'chat-pane', id: 'chat-pane' });
  const split = el('div', { class: 'split', id: 'split', 'data-open': 'list' }, listPane, chatPane);
  view.replaceChildren(split);
  ui.split = { split, listPane, chatPane, input, list, empty, notices, search, noticeKey: '' };
  return ui.split;
}

// chatListData is what the list shows: the chats by last activity and
// which of them hold unsent messages. A chat with no message yet (opened
// by username, or Notes to self) is listed while it is open, first, and
// not after.
export async function chatListData() {
  const [chats, unsent] = await Promise.all([store.getChats(), store.unsentByChat()]);
  for (const c of chats) if (c.title) ui.titles.set(c.username, c.title);
  renderTitle(chats);
  const shown = chats.filter((c) => c.lastTs);
  if (ui.openChat && !shown.some((c) => c.username === ui.openChat)) shown.unshift({ username: ui.openChat, lastTs: 0, preview: '' });
  return { chats: shown, unsent };
}

// renderTitle puts the unread count of all chats in the tab's title.
export function renderTitle(chats) {
  const n = sync.me() ? chats.reduce((sum, c) => sum + (c.unread || 0), 0) : 0;
  document.title = n ? `(${n}) relay` : 'relay';
}

// chatItem is one row of the chat list: name, time of the last message,
// its preview ("You:" when it was sent from the account), a marker for
// messages not sent, and the unread count, in bold when there is one.
function chatItem(c, unsent) {
  const name = chatName(c.username);
  // In a group chat, who wrote the last message.
  const who = c.lastOut ? 'You: ' : isGroup(c.username) && c.lastFrom ? `${c.lastFrom}: ` : '';
  const marker = unsent === 'failed' ? el('span', { class: 'marker failed-marker' }, 'Not sent')
    : unsent === 'pending' ? el('span', { class: 'marker pending-marker' }, 'Waiting to send')
      : c.block && c.block.on ? el('span', { class: 'marker blocked-marker' }, 'Blocked') : null;
  return el('li', { class: 'chat-item' + (c.unread ? ' has-unread' : ''), 'data-user': c.username },
    el('a', { href: '#/chat/' + c.username, class: 'chat-link', tabindex: '-1', 'aria-current': c.username === ui.openChat ? 'true' : null },
      avatar(name),
      el('span', { class: 'chat-line' },
        el('span', { class: 'name', title: name }, name),
        c.lastTs ? el('time', { class: 'chat-time', datetime: new Date(c.lastTs).toISOString(), title: time.full(c.lastTs) }, time.short(c.lastTs)) : null),
      el('span', { class: 'chat-line' },
        el('span', { class: 'preview-line', title: c.preview || null }, who && c.preview ? el('span', { class: 'you' }, who) : null, el('span', { class: 'preview' }, c.preview || '')),
        marker,
        c.timer && c.timer.seconds ? el('span', { class: 'timer-badge', title: `Messages disappear after ${timerLabel(c.timer.seconds)}` },
          el('span', { 'aria-hidden': 'true' }, '⏱ ' + timerShort(c.timer.seconds)), el('span', { class: 'sr-only' }, ` messages disappear after ${timerLabel(c.timer.seconds)},`)) : null,
        c.mentions ? el('span', { class: 'mention-badge', title: 'You are mentioned' }, '@') : null,
        c.mentions ? el('span', { class: 'sr-only' }, ' you are mentioned,') : null,
        c.unread ? el('span', { class: 'unread' }, String(c.unread)) : null,
        c.unread ? el('span', { class: 'sr-only' }, c.unread === 1 ? ' unread message' : ' unread messages') : null)));
}

// The chat list is one Tab stop (a roving tabindex): the arrows, Home and
// End move between its rows, Enter (a link's own key) and Space open one.
// The stop is the row last focused (ui.chatStop), else the open chat,
// else the first.

function chatLink(list, username) {
  const row = [...list.children].find((r) => r.dataset.user === username);
  return row ? row.querySelector('a.chat-link') : null;
}

function setChatStop(list, a) {
  ui.chatStop = a.closest('.chat-item').dataset.user;
  placeChatStop(list);
}

function placeChatStop(list) {
  const stop = (ui.chatStop && chatLink(list, ui.chatStop)) || (ui.openChat && chatLink(list, ui.openChat)) || list.querySelector('a.chat-link');
  for (const l of list.querySelectorAll('a.chat-link')) l.tabIndex = l === stop ? 0 : -1;
}

function chatListKey(e) {
  const a = e.target.closest('a.chat-link');
  if (!a || e.altKey || e.ctrlKey || e.metaKey) return;
  const links = [...e.currentTarget.querySelectorAll('a.chat-link')];
  const at = links.indexOf(a);
  const to = { ArrowDown: at + 1, ArrowUp: at - 1, Home: 0, End: links.length - 1 }[e.key];
  if (to !== undefined) {
    e.preventDefault();
    const next = links[Math.max(0, Math.min(links.length - 1, to))];
    setChatStop(e.currentTarget, next);
    next.focus();
    return;
  }
  if (e.key === ' ') {
    e.preventDefault();
    a.click();
  }
}

// linkedText says where the history from before lies, for a device just
// linked: approved, the approving device holds it; restored with the
// recovery key, only another linked device can, if there is one.
/** @param {{how: string, others?: boolean}} n */
function linkedText({ how, others }) {
  if (how !== 'restored') return 'This device is linked to your account: you can read and send messages here. The device that approved it can send it your history; older messages stay on your other devices otherwise.';
  return 'Your account is restored on this browser: you can read and send messages here. Messages from before this browser was added are not on it' +
    (others === true ? ': they stay on your other devices.' : others === false ? ', and no other device of yours holds them.' : '.');
}

// renderListPane fills the list pane: the notices, and the rows in place.
export function renderListPane(d, { chats, unsent }) {
  // A revoked device is linked no more: what the notices say is no
  // longer true, and the bar above says what is.
  const gone = revoked();
  const key = JSON.stringify([ui.resetNotice, ui.linkedNotice, ui.offerRecovery, gone]);
  if (key !== d.noticeKey) {
    d.noticeKey = key;
    const linkedBox = ui.linkedNotice && !ui.resetNotice && !gone ? el('section', { class: 'card notice-card', id: 'linked-notice', role: 'status' },
      el('p', {}, linkedText(ui.linkedNotice)),
      ui.linkedNotice.how === 'restored' && sync.hasRestoredKey() ? el('p', {}, 'Have a backup of your history? ',
        el('a', { href: '#/settings', id: 'import-offer', onclick: () => { ui.focusImport = true; } }, 'Import it'), ' with the recovery key you just typed.') : null,
      el('button', { type: 'button', onclick: () => { ui.linkedNotice = false; request('route'); } }, 'Dismiss')) : null;
    const resetBox = ui.resetNotice && !gone ? el('section', { class: 'card notice-card', id: 'reset-notice', role: 'status' },
      el('p', {}, 'Your account key was reset: this is now your only device, and your contacts will see that your key changed. Older messages are gone.'),
      el('p', {}, 'Create a recovery key now, so that losing this browser does not lose the account: ', el('a', { href: '#/settings', id: 'reset-settings' }, 'open Settings'), '.'),
      el('button', { type: 'button', onclick: () => { ui.resetNotice = false; request('route'); } }, 'Dismiss')) : null;
    d.notices.replaceChildren(...[resetBox, linkedBox, gone ? null : recoveryOffer()].filter(Boolean));
  }
  const today = time.day(Date.now());
  // A row that moves or is rebuilt loses the focus: it goes back to the
  // row of the same chat.
  const focused = d.list.contains(document.activeElement) ? /** @type {HTMLElement} */ (document.activeElement.closest('.chat-item')) : null;
  const focusedUser = focused ? focused.dataset.user : null;
  placeRows(d.list, chats.map((c) => ({
    key: c.username,
    sig: JSON.stringify([c.lastTs, c.preview, c.lastOut, c.lastFrom, c.title, c.unread, c.mentions, c.timer && c.timer.seconds, unsent[c.username], c.username === ui.openChat, today, !!(c.block && c.block.on)]),
    make: () => chatItem(c, unsent[c.username]),
  })));
  placeChatStop(d.list);
  if (focusedUser && !d.list.contains(document.activeElement)) {
    const again = chatLink(d.list, focusedUser);
    if (again) again.focus({ preventScroll: true });
  }
  d.list.hidden = !chats.length;
  d.empty.hidden = !!chats.length;
  // What was found follows what changed.
  if (d.search.input.value.trim()) runSearch(d.search);
  if (ui.focusNewChat) {
    ui.focusNewChat = false;
    d.input.focus();
  }
}

export async function chatsScreen() {
  const gen = ++ui.gen;
  const data = await chatListData();
  if (gen !== ui.gen) return;
  const d = splitView();
  d.split.dataset.open = 'list';
  renderListPane(d, data);
  if (!d.chatPane.querySelector('.chat-empty')) {
    if (ui.chat) ui.chat.seen.stop();
    ui.chat = null;
    d.chatPane.replaceChildren(el('div', { class: 'chat-empty' }, el('p', {}, 'Choose a chat, or start a new one with a username.')));
  }
}

function recoveryOffer() {
  if (!ui.offerRecovery) return null;
  const box = el('section', { class: 'card warning', id: 'recovery-offer', role: 'region', 'aria-label': 'Recovery key' },
    el('p', {}, 'Save a recovery key now. If you lose this browser and have no other device, it is the only way back into your account.'),
    el('p', {}, el('a', { href: createKeyHash, id: 'recovery-offer-go', class: 'button primary' }, 'Create a recovery key'), ' ',
      el('button', {
        type: 'button', id: 'recovery-later',
        onclick: () => {
          ui.offerRecovery = false;
          box.replaceChildren(el('p', { id: 'recovery-reminder' }, 'No recovery key yet. You can create one any time in ', el('a', { href: '#/settings' }, 'Settings'), '.'));
        },
      }, 'Later')));
  return box;
}
