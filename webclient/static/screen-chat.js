// screen-chat.js: the open chat: its message list (one Tab stop, its
// place kept through resizes, what is read watched by seen.js), the
// chat-info panel with the safety code, and its composer
// (screen-composer.js). The rows themselves are screen-messages.js's.

import * as store from './store.js';
import * as sync from './sync.js';
import { watchSeen } from './seen.js';
import { el, placeRows } from './dom.js';
import { ui, view, chatName } from './ui.js';
import { bodyText, shownMessages, markQueued, chatRows } from './screen-messages.js';
import { splitView, chatListData, renderListPane, avatar } from './screen-chats.js';
import { groupPanel } from './screen-group.js';
import { timerSection } from './screen-timer.js';
import { blockSection } from './screen-report.js';
import { timerOf } from './expiry.js';
import * as groupchat from './groupchat.js';
import { composerParts, composeMode, lastOwnOf, renderComposer } from './screen-composer.js';
import { acceptDrops } from './screen-attach.js';

// nearBottom: the newest messages are in view, so new ones keep them in
// view; scrolled further up, they wait behind the "New messages" button.
function nearBottom(list) {
  return list.scrollHeight - list.scrollTop - list.clientHeight < 40;
}

// renderJump shows the "New messages ↓" button while unread messages wait
// below the visible part of the chat, with how many.
function renderJump() {
  const { count } = ui.chat.seen.below();
  // The button going away with the focus on it leaves the focus in the
  // list, not on the page.
  if (!count && ui.chat.jump.contains(document.activeElement)) ui.chat.list.focus();
  ui.chat.jump.hidden = !count;
  ui.chat.jump.querySelector('.count').textContent = String(count);
}

// jumpToNew brings the first unread message below the view to its top,
// so that the next ones follow as the person reads on; with none, the
// newest.
function jumpToNew() {
  const { first } = ui.chat.seen.below();
  if (first) ui.chat.list.scrollTop = first.offsetTop - 8;
  else ui.chat.list.scrollTop = ui.chat.list.scrollHeight;
  renderJump();
}

// watchChat follows what of the open chat is read: the unread messages
// that the screen shows are marked seen (seen.js).
function watchChat(msgs, ch) {
  ui.chat.seen.update(msgs.filter((m) => store.isUnread(m, ch)).map((m) => m.id));
  renderJump();
}

// announce reads new incoming messages out through the live region, and
// nothing else: the list itself is not live, so an update never reads
// the whole chat again.
function announce(msgs) {
  const box = document.getElementById('announce');
  if (!box || !msgs.length) return;
  box.textContent = msgs.map((m) => `${groupchat.isGroup(m.chat) ? m.from + ' in ' : ''}${chatName(m.chat)}: ${bodyText(m)}`).join('\n');
}

// The message list is one Tab stop, as the chat list is: the arrows, Home
// and End move between the messages, Tab goes on to the buttons of the
// message focused (its ⋯, reactions, Retry) and Enter or the context-menu
// key opens its actions. The stop is the message last focused, else the
// newest; the list itself takes it while there is no message.
function msgNodes(list) {
  return [...list.querySelectorAll(':scope > .msg')];
}

// placeMsgStop gives the stop, and the hint on the keys, to its message
// and makes the buttons of a message (and its files' Save and players)
// tabbable only while the focus is in it (focused: where the focus is, or
// goes).
function placeMsgStop(list, focused = document.activeElement) {
  const rows = msgNodes(list);
  const stop = rows.find((r) => r.dataset.id === ui.chat.msgStop) || rows[rows.length - 1];
  list.tabIndex = stop ? -1 : 0;
  for (const r of rows) {
    r.tabIndex = r === stop ? 0 : -1;
    if (r === stop) r.setAttribute('aria-describedby', 'messages-hint');
    else r.removeAttribute('aria-describedby');
    const inside = r === stop && r.contains(focused);
    for (const b of r.querySelectorAll('button, .files a, .files audio')) b.tabIndex = inside ? 0 : -1;
  }
}

function msgFocusIn(e) {
  const node = e.target.closest('.msg');
  if (!node || !ui.chat || ui.chat.list !== e.currentTarget) return;
  ui.chat.msgStop = node.dataset.id;
  placeMsgStop(e.currentTarget, e.target);
}

function msgFocusOut(e) {
  const node = e.target.closest('.msg');
  if (node && !node.contains(e.relatedTarget) && ui.chat && ui.chat.list === e.currentTarget) placeMsgStop(e.currentTarget, e.relatedTarget);
}

function messageListKey(e) {
  const node = e.target;
  if (!node.matches('.msg') || e.altKey || e.ctrlKey || e.metaKey) return;
  const rows = msgNodes(e.currentTarget);
  const at = rows.indexOf(node);
  const to = { ArrowDown: at + 1, ArrowUp: at - 1, Home: 0, End: rows.length - 1 }[e.key];
  if (to !== undefined) {
    e.preventDefault();
    rows[Math.max(0, Math.min(rows.length - 1, to))].focus();
    return;
  }
  // Enter opens the actions when it is let go: opened at its press, the
  // key's character could go on to press the menu's first item.
  if (e.key === 'Enter') {
    e.preventDefault();
    ui.chat.enterOn = node;
  }
}

function messageListKeyUp(e) {
  if (e.key !== 'Enter' || !ui.chat || ui.chat.enterOn !== e.target) return;
  ui.chat.enterOn = null;
  openActions(e);
}

// openActions opens the menu of the message focused (Enter, the
// context-menu key, Shift+F10).
function openActions(e) {
  const btn = e.target.matches('.msg') ? e.target.querySelector('.msg-actions') : null;
  if (!btn) return;
  e.preventDefault();
  btn.click();
}

// The message list keeps its place when its room changes (a resize, a
// zoom, the chat-info panel, the composer growing): at the bottom it stays
// at the bottom, else the message at its top stays where it was. The place
// is noted at every scroll; a hidden list (size 0) has none. The room is
// the list's wrapper: the New messages button shortens the list itself,
// along with scrolls of the chat's own that must not be undone.
function roomOf(list) {
  const w = list.parentElement;
  return w.clientWidth + 'x' + w.clientHeight;
}

function keepPlaceOnResize(list) {
  const sizes = new ResizeObserver(() => {
    if (!list.isConnected) sizes.disconnect();
    else keepPlace(list);
  });
  sizes.observe(list.parentElement);
}

function notePlace(list, resized = false) {
  if (!ui.chat || ui.chat.list !== list || !list.clientHeight) return;
  const size = roomOf(list);
  // The browser's own scroll for a new room (its scroll anchoring) comes
  // before the resize is seen: the place from before it stays for
  // keepPlace. A scroll to the bottom counts all the same (one's own
  // message sent as the composer shrinks back).
  if (!resized && ui.chat.place && ui.chat.place.size !== size && !nearBottom(list)) return;
  const top = list.getBoundingClientRect().top;
  const rows = msgNodes(list);
  // The first message not wholly above the top: the rows are in order.
  let lo = 0;
  let hi = rows.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (rows[mid].getBoundingClientRect().bottom > top) hi = mid;
    else lo = mid + 1;
  }
  const node = rows[lo];
  ui.chat.place = { size, bottom: nearBottom(list), id: node ? node.dataset.id : null, at: node ? node.getBoundingClientRect().top - top : 0 };
}

function keepPlace(list) {
  const p = ui.chat && ui.chat.list === list && list.clientHeight ? ui.chat.place : null;
  if (!p) return;
  const node = p.id && list.querySelector(`.msg[data-id="${p.id}"]`);
  if (p.bottom) list.scrollTop = list.scrollHeight;
  else if (node) list.scrollTop += node.getBoundingClientRect().top - list.getBoundingClientRect().top - p.at;
  notePlace(list, true);
}

// infoPanel fills the chat-info panel: the safety code to compare, and
// whether this device marked it verified. Notes to self has none.
function infoPanel(username, ch) {
  const d = ui.chat;
  const self = username === sync.me();
  const group = groupchat.isGroup(username);
  const hadFocus = d.info.contains(document.activeElement) ? document.activeElement.id : null;
  const close = el('button', { type: 'button', id: 'chat-info-close', class: 'close-btn', 'aria-label': 'Close chat info', onclick: () => toggleInfo(false) }, 'Close');
  const head = el('div', { class: 'info-head' }, el('h3', { id: 'chat-info-title' }, self ? 'Notes to self' : group ? 'Group info' : 'Chat info'), close);
  const seconds = ch ? timerOf(ch) : d.timer || 0;
  if (group) {
    groupPanel(d.info, head, d.group);
    if (d.group && !d.group.removed && !d.group.leaving) d.info.append(timerSection(username, seconds, d.group.admin));
  } else if (self) {
    d.info.replaceChildren(head, el('p', {}, 'What you write here goes to your own devices only. There is no one to compare a safety code with.'),
      timerSection(username, seconds, true));
  } else {
    const verified = !!(ch && ch.verified);
    const known = !!(ch && ch.publicKey);
    const code = el('p', { id: 'safety-code', class: 'code' }, d.code || (known ? '' : 'Unknown yet'));
    const state = verified
      ? el('p', { id: 'verified-state', class: 'verified-state' }, '✓ You marked this safety code as verified on this device.')
      : el('p', { id: 'verified-state', class: 'muted' }, 'Not verified yet.');
    const btn = known ? el('button', {
      type: 'button', id: 'verify-btn', class: verified ? '' : 'primary',
      onclick: () => sync.setVerified(username, !verified),
    }, verified ? 'Remove verification' : 'Mark as verified') : null;
    // After a key change the warning is cleared here, beside the code to
    // compare, never without it.
    const changed = ch && ch.keyChanged ? el('div', { class: 'warning', id: 'key-confirm' },
      el('p', {}, `${username}'s key has changed. Do not confirm until ${username} read you these digits and they match.`),
      el('button', { type: 'button', id: 'key-accept', onclick: () => sync.acceptKey(username) }, 'The codes match')) : null;
    d.info.replaceChildren(...[head,
      el('p', { class: 'info-name' }, username),
      el('h4', {}, 'Safety code'), code, changed,
      el('p', { class: 'muted' }, 'Compare these digits with ', username, ' in person or on a call. If both of you see the same digits, nobody is in the middle.'),
      state, btn, timerSection(username, seconds, true), blockSection(username, blockedIn(ch))].filter(Boolean));
  }
  if (hadFocus) {
    const again = document.getElementById(hadFocus);
    if (again) again.focus();
  }
}

// blockedIn says whether a one-to-one chat's contact is blocked.
function blockedIn(ch) {
  return !!(ch && ch.block && ch.block.on);
}

// toggleInfo opens or closes the chat-info panel. It opens with focus on
// its first button; closing gives focus back to the button that opens it.
async function toggleInfo(open) {
  const d = ui.chat;
  if (!d) return;
  d.info.hidden = !open;
  d.infoBtn.setAttribute('aria-expanded', String(open));
  if (!open) {
    d.infoBtn.focus();
    return;
  }
  // A group's panel reads its members' codes again each time it opens: a
  // key may have changed since.
  if (groupchat.isGroup(d.username) && d.info.hidden === false) {
    infoPanel(d.username, null);
    // A member whose devices all left is brought back with the ones the
    // relay lists for it now (mlsmembers.js).
    sync.checkGroupMembers(d.username);
  }
  // A key to confirm: the panel opens at its top, the code in view.
  const btn = (!d.info.querySelector('#key-accept') && d.info.querySelector('#verify-btn')) || d.info.querySelector('#chat-info-close');
  if (btn) btn.focus();
  if (d.username !== sync.me() && !groupchat.isGroup(d.username)) {
    const code = await sync.safetyCode(d.username);
    if (ui.chat !== d) return;
    d.code = code;
    const slot = document.getElementById('safety-code');
    if (slot) slot.textContent = code || 'Unknown yet';
    // The code came after the focus: the button focused stays in view.
    if (btn && document.activeElement === btn) btn.scrollIntoView({ block: 'nearest' });
  }
}

// Esc closes the chat-info panel, unless a dialog is open: Esc is the
// dialog's then.
document.addEventListener('keydown', (e) => {
  if (e.key !== 'Escape' || !ui.chat || ui.chat.info.hidden || document.querySelector('dialog[open]')) return;
  e.preventDefault();
  toggleInfo(false);
});

// infoSig is what the info panel shows, to draw it again when it changes.
function infoSig(ch, group) {
  return JSON.stringify([ch && ch.verified, !!(ch && ch.publicKey), !!(ch && ch.keyChanged), group, blockedIn(ch)]);
}

// renderChatHead shows the verified mark beside the chat's name: not for a
// deleted account, whose key nobody holds any more.
function renderChatHead(username, ch) {
  ui.chat.badge.hidden = !(ch && ch.verified) || username === sync.me() || sync.isDeleted(username);
}

// chatScreen shows the chat with username beside the chat list: built
// when it opens (or was not on screen), updated in place after, so that
// the composer keeps what is typed and the list its place.
export async function chatScreen(username, opening) {
  const gen = ++ui.gen;
  const ch = await store.getChat(username);
  if (opening) {
    ui.dividerAt = null;
    if (ch && ch.unread) {
      const msgs = await store.getMessages(username);
      const first = msgs.find((m) => store.isUnread(m, ch));
      ui.dividerAt = first ? first.id : null;
    }
  }
  const msgs = await store.getMessages(username);
  const outRecs = await store.outgoingRecords(username);
  const showRead = await sync.readReceipts();
  const listData = await chatListData();
  const group = await groupchat.info(username);
  if (gen !== ui.gen) return;
  const me = sync.me();
  const { list: shownList, byId } = shownMessages(msgs, outRecs, me);
  markQueued(shownList);
  const ctx = { me, byId, showRead, reply: (m) => composeMode({ kind: 'reply', m }), edit: (m) => composeMode({ kind: 'edit', m }) };
  const warning = ch && ch.keyChanged ? el('div', { class: 'warning', id: 'key-warning', role: 'alert' },
    `${username}'s key has changed. This happens when they create a new account key — or when someone is in the middle. Compare the safety code with ${username} in person or on a call before you trust new messages.`, ' ',
    el('button', { type: 'button', id: 'key-compare', onclick: () => toggleInfo(true) }, 'Compare the safety code')) : '';
  const rejoined = ch && ch.rejoined ? el('div', { class: 'warning', id: 'rejoined-notice', role: 'status' },
    'This device fell behind the encryption of this chat and joined it again. Messages sent in between may be missing here.', ' ',
    el('button', { type: 'button', id: 'rejoined-dismiss', onclick: () => sync.dismissNotice(username, 'rejoined') }, 'Dismiss')) : '';
  const stuck = ch && ch.behind ? el('div', { class: 'warning', id: 'behind-notice', role: 'alert' },
    'This device missed a change of this group, so it cannot read what is sent in it now. Ask an admin of the group to remove you and add you again: this device then reads from that moment on.', ' ',
    el('button', { type: 'button', id: 'behind-dismiss', onclick: () => sync.dismissNotice(username, 'behind') }, 'Dismiss')) : '';
  const refused = ch && ch.refused ? el('div', { class: 'warning', id: 'refused-notice', role: 'alert' },
    `A device was refused in this chat: its account's key, as the relay serves it, did not certify it. Someone may be trying to listen in. Compare the safety code with ${username}.`, ' ',
    el('button', { type: 'button', id: 'refused-compare', onclick: () => toggleInfo(true) }, 'Compare the safety code'), ' ',
    el('button', { type: 'button', id: 'refused-dismiss', onclick: () => sync.dismissNotice(username, 'refused') }, 'Dismiss')) : '';
  // In a group chat, the members whose key changed, as their one-to-one
  // chats know: the warning is the same, the codes in Group info.
  const rekeyed = group ? (await Promise.all(group.accounts.filter((u) => u !== me).map(async (u) => (((await store.getChat(u)) || {}).keyChanged ? u : null)))).filter(Boolean) : [];
  if (gen !== ui.gen) return;
  const groupKeys = rekeyed.length ? el('div', { class: 'warning', id: 'group-key-warning', role: 'alert' },
    `${rekeyed.join(', ')} ${rekeyed.length > 1 ? 'have' : 'has'} a new key. This happens when someone creates a new account key \u2014 or when someone is in the middle. Compare the safety code in person or on a call before you trust new messages.`, ' ',
    el('button', { type: 'button', id: 'group-key-compare', onclick: () => toggleInfo(true) }, 'Compare the safety codes')) : '';
  const c = { username, ch, msgs, shown: shownList, rows: chatRows(shownList, ctx), warning: [warning, refused, rejoined, stuck, groupKeys], me, group };
  const d = splitView();
  d.split.dataset.open = 'chat';
  renderListPane(d, listData);
  if (!opening && ui.chat && ui.chat.username === username && view.contains(ui.chat.list)) updateChat(c);
  else buildChat(d.chatPane, c);
}

// updateChat brings the open chat up to date in place: the rows that
// changed, the warning, the info panel, the head and the composer.
function updateChat({ username, ch, msgs, shown, rows, warning, me, group }) {
  const list = ui.chat.list;
  const atBottom = nearBottom(list);
  const added = placeRows(list, rows).filter((r) => r.msg);
  placeMsgStop(list);
  ui.chat.lastOwn = lastOwnOf(shown, me);
  ui.chat.warning.replaceChildren(...warning);
  const newIn = added.filter((r) => r.msg.dir === 'in').map((r) => r.msg);
  const sentHere = added.some((r) => r.msg.dir === 'out' && ui.chat.sending);
  if (sentHere) {
    ui.chat.sending = false;
    // A reply answers what was new: the divider has done its work.
    ui.dividerAt = null;
    const divider = list.querySelector('.new-divider');
    if (divider) divider.remove();
  }
  announce(newIn);
  if (atBottom || sentHere) list.scrollTop = list.scrollHeight;
  watchChat(msgs, ch);
  ui.chat.group = group;
  ui.chat.removed = group ? (group.removed ? 'removed' : group.leaving ? 'left' : null) : null;
  ui.chat.blocked = blockedIn(ch);
  if (group) ui.chat.title.textContent = group.name;
  // The timer's choice follows the chat's, unless it is being changed.
  ui.chat.timer = timerOf(ch);
  const timer = /** @type {HTMLSelectElement | null} */ (document.getElementById('timer-select'));
  if (timer && document.activeElement !== timer) timer.value = String(ui.chat.timer);
  if (ch && infoSig(ch, group) !== ui.chat.infoSig) {
    ui.chat.infoSig = infoSig(ch, group);
    if (!ch.verified) ui.chat.code = null; // a new key has a new code
    infoPanel(username, ch);
    if (!ui.chat.info.hidden) toggleInfo(true);
  }
  renderChatHead(username, ch);
  renderComposer();
  revealAsked(username);
}

// revealAsked brings the message a search result named (ui.openAt) into
// the middle of the list, marked, with the focus and the list's stop on
// it; a message no longer shown leaves the chat where it is.
function revealAsked(username) {
  const at = ui.openAt;
  if (!at || at.chat !== username || !ui.chat) return;
  ui.openAt = null;
  const list = ui.chat.list;
  const node = /** @type {HTMLElement | null} */ (list.querySelector(`.msg[data-id="${CSS.escape(at.id)}"]`));
  if (!node) return;
  for (const old of list.querySelectorAll('.msg.found')) old.classList.remove('found');
  ui.chat.msgStop = at.id;
  node.classList.add('found');
  const leave = (/** @type {FocusEvent} */ e) => {
    if (node.contains(/** @type {Node | null} */ (e.relatedTarget))) return;
    node.classList.remove('found');
    node.removeEventListener('focusout', leave);
  };
  node.addEventListener('focusout', leave);
  node.scrollIntoView({ block: 'center' });
  node.focus({ preventScroll: true });
  placeMsgStop(list, node);
  notePlace(list);
}

// buildChat draws the chat in pane, its composer empty, landing at the
// first unread message, else at the newest.
function buildChat(pane, { username, ch, msgs, shown, rows, warning, me, group }) {
  const list = el('ol', { class: 'messages plain', id: 'messages', 'aria-label': 'Messages', 'aria-describedby': 'messages-hint', tabindex: '0' });
  placeRows(list, rows);
  list.addEventListener('keydown', messageListKey);
  list.addEventListener('keyup', messageListKeyUp);
  list.addEventListener('contextmenu', openActions);
  list.addEventListener('focusin', msgFocusIn);
  list.addEventListener('focusout', msgFocusOut);
  list.addEventListener('scroll', () => notePlace(list));
  const jump = el('button', { type: 'button', id: 'jump-new', class: 'jump-new', hidden: true, onclick: () => jumpToNew() },
    'New messages ', el('span', { class: 'count' }), ' ↓');
  list.addEventListener('scroll', () => {
    if (ui.chat && ui.chat.list === list) renderJump();
  });
  const warningSlot = el('div', { class: 'warning-slot' }, ...warning);
  const { text, sendBtn, modeBar, note, limit, att, attachNote } = composerParts(username);
  const info = el('section', { id: 'chat-info', class: 'chat-info', hidden: true, 'aria-labelledby': 'chat-info-title' });
  const infoBtn = el('button', {
    type: 'button', id: 'safety-btn', class: 'info-btn', 'aria-controls': 'chat-info', 'aria-expanded': 'false',
    onclick: () => toggleInfo(info.hidden),
  }, username === sync.me() ? 'Info' : group || groupchat.isGroup(username) ? 'Group info' : 'Safety code');
  const badge = el('span', { class: 'badge verified-badge', id: 'verified-badge', hidden: true, title: 'You compared the safety code of this chat' }, '✓ Verified');
  const name = group ? group.name : chatName(username);
  const title = el('h2', { id: 'chat-title', title: name }, name);
  const section = el('section', { class: 'chat', 'aria-labelledby': 'chat-title', 'data-chat': username },
    el('div', { class: 'chat-head' },
      el('a', { href: '#/chats', class: 'chat-back', 'aria-label': 'Back to chats' }, '←'),
      groupchat.isGroup(username) ? avatar(name) : null,
      title,
      badge, infoBtn),
    info, warningSlot, el('p', { id: 'chat-error', class: 'error', role: 'alert' }),
    el('div', { class: 'messages-wrap' }, list, jump), note, limit, attachNote, modeBar, att.tray, att.recBar,
    el('div', { class: 'composer' }, att.attachBtn, text, att.micBtn, sendBtn, att.input),
    el('p', { id: 'composer-hint', class: 'sr-only' }, 'Enter sends, Shift+Enter makes a new line, the up arrow in an empty composer edits your last message.'),
    el('p', { id: 'messages-hint', class: 'sr-only' }, 'The up and down arrows move between messages, Home and End to the first and the last; Tab goes to the buttons of the message. Enter opens its actions, the arrows move between them and Escape closes them.'));
  acceptDrops(section, text, att.add);
  pane.replaceChildren(section);
  if (ui.chat) ui.chat.seen.stop();
  const seen = watchSeen(list, (ids) => sync.markSeen(username, ids));
  ui.chat = { username, list, seen, warning: warningSlot, text, sendBtn, att, note, info, infoBtn, badge, jump, modeBar, title, group, removed: group ? (group.removed ? 'removed' : group.leaving ? 'left' : null) : null, mode: null, lastOwn: lastOwnOf(shown, me), sending: false, code: null, infoSig: infoSig(ch, group), timer: timerOf(ch), blocked: blockedIn(ch) };
  placeMsgStop(list);
  keepPlaceOnResize(list);
  infoPanel(username, ch);
  renderChatHead(username, ch);
  renderComposer();
  // Opening lands at the first unread message, else at the newest.
  const divider = list.querySelector('.new-divider');
  if (divider) list.scrollTop = divider.offsetTop - 8;
  else list.scrollTop = list.scrollHeight;
  notePlace(list);
  watchChat(msgs, ch);
  text.focus({ preventScroll: true });
  revealAsked(username);
}
