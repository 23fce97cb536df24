// app.js: the screens of the web client. It reads IndexedDB through
// store.js and the relay's directory through api.js, and changes state only
// through sync.js (docs/storage.md). Every text a person sees is set with
// textContent: nothing received is ever parsed as HTML.

import * as store from './store.js';
import * as sync from './sync.js';
import * as api from './api.js';
import { reactionsOf, MAX_TEXT } from './records.js';
import { linkified } from './links.js';
import * as time from './time.js';
import { watchSeen } from './seen.js';
import { el, placeRows, ask, confirmDialog } from './dom.js';
import { passwordForm } from './passwordform.js';

const view = document.getElementById('view');
const nav = document.getElementById('nav');
const meBox = document.getElementById('me-box');
const bar = document.getElementById('conn-bar');
const purgeBox = document.getElementById('purge-notice');
let current = null; // {name, arg}
let openChatName = null;
let newDividerAt = null; // the first unread message id when the chat opened

// revoked: the relay said this device is no longer of the account, on the
// stream or by refusing its X-Device. Nothing can be sent from it.
function revoked() {
  return sync.connection() === 'revoked' || sync.isRevoked();
}

// retryable: a Retry of a message to chat could work. Not from a revoked
// device, nor to a contact whose account was deleted.
function retryable(chat) {
  return !revoked() && !sync.isDeleted(chat);
}

// Screens render asynchronously (they read IndexedDB). renderGen makes the
// render that started last win, so an older read never overwrites a newer.
let renderGen = 0;

function show(gen, ...nodes) {
  if (gen !== renderGen) return false;
  view.replaceChildren(...nodes);
  return true;
}

// ---- connection bar ----

const connTexts = {
  connecting: 'Connecting to the relay…',
  down: 'No connection to the relay. Trying again…',
  replaced: 'This device is connected in another window. Messages arrive there.',
  revoked: 'This device was removed from your account. Log out and log in again to use it.',
  loggedout: 'Your session ended. Log in again.',
  disabled: "The relay's operator disabled this account: you cannot send or receive messages until they enable it again. Ask them why. This page tries again every minute.",
};

function renderBar() {
  const state = sync.connection();
  if (!sync.me() || state === 'open') {
    bar.hidden = true;
    bar.textContent = '';
    return;
  }
  bar.hidden = false;
  bar.textContent = connTexts[state] || connTexts.down;
  bar.dataset.state = state;
  if (state === 'replaced') {
    bar.append(' ', el('button', { type: 'button', onclick: () => location.reload() }, 'Use this window'));
  }
}

// ---- messages the relay deleted undelivered ----

const purgeTexts = {
  age: 'Some messages sent to this device were deleted by the relay before they arrived here: they waited longer than the relay keeps messages. Ask your contacts to send anything important again.',
  size: 'Some messages sent to this device were deleted by the relay before they arrived here: too many were waiting for this device. Ask your contacts to send anything important again.',
  gap: 'Some messages sent to this device never arrived here: the relay no longer had them when this device asked again. Ask your contacts to send anything important again.',
  restored: 'Some messages sent to this device may be missing: the relay went back to an earlier copy of its data, and messages sent shortly before that may be lost. Ask your contacts to send anything important again.',
};

async function renderPurge() {
  const n = sync.me() ? await sync.purgeNotice() : null;
  if (!n) {
    purgeBox.hidden = true;
    purgeBox.textContent = '';
    return;
  }
  purgeBox.textContent = purgeTexts[n.reason] || purgeTexts.age;
  purgeBox.dataset.reason = n.reason;
  purgeBox.append(el('button', { type: 'button', onclick: () => sync.dismissPurgeNotice() }, 'Dismiss'));
  purgeBox.hidden = false;
}

// ---- screens ----

// authErrorText says in a sentence what went wrong with a login or a
// registration, and what to do.
function authErrorText(ex, mode) {
  switch (ex.code) {
    case 'bad_credentials': return 'That username and password do not match. Check both, then try again.';
    case 'username_taken': return 'That username is taken. Choose another one.';
    case 'username_held': return 'That username belonged to an account that was deleted, and is held back for a while so that nobody can pass for its owner. Choose another one.';
    case 'account_disabled': return "The relay's operator disabled this account. Ask them why; you can log in once they enable it again.";
    case 'bad_username': return 'A username is 3 to 32 characters: a–z, 0–9 and _.';
    case 'bad_password': return 'A password is at least 8 characters long.';
    case 'too_many_attempts': {
      const s = ex.retryAfter || 60;
      return `Too many attempts. Wait ${s} ${plural.select(s) === 'one' ? 'second' : 'seconds'}, then try again.`;
    }
    case 'network': return 'The relay cannot be reached. Check your connection, then try again.';
    case 'too_many_devices': return 'This account already has the most devices allowed. Revoke one it no longer uses on another device, then log in here.';
    default: {
      const m = (ex.message || String(ex)).replace(/[.\s]*$/, '');
      return (mode === 'login' ? 'Could not log in: ' : 'Could not create the account: ') + m + '. Try again.';
    }
  }
}

// authScreen is the first screen: Create account for a browser that never
// held an account, Log in for one that did (store.hadAccount). The two are
// tabs of one form, so switching keeps what was typed. notice is a
// sentence shown above them, such as that the account was deleted.
function authScreen(notice = '') {
  const gen = ++renderGen;
  let mode = store.hadAccount() ? 'login' : 'register';
  const user = el('input', {
    id: 'auth-username', name: 'username', autocomplete: 'username', required: true, maxlength: 32,
    autocapitalize: 'none', autocorrect: 'off', spellcheck: 'false', 'aria-describedby': 'auth-hint',
  });
  // A username is lower case: typing a capital writes the small letter.
  user.addEventListener('input', () => {
    const low = user.value.toLowerCase();
    if (low !== user.value) {
      const at = user.selectionStart;
      user.value = low;
      user.setSelectionRange(at, at);
    }
  });
  const pass = el('input', { id: 'auth-password', name: 'password', type: 'password', required: true, minlength: 8, 'aria-describedby': 'auth-pass-hint' });
  const pass2 = el('input', { id: 'auth-password2', name: 'password2', type: 'password', autocomplete: 'new-password', minlength: 8 });
  const pass2Row = el('div', {}, el('label', { for: 'auth-password2' }, 'Repeat the password'), pass2);
  const passHint = el('p', { id: 'auth-pass-hint', class: 'hint' }, 'At least 8 characters.');
  const err = el('p', { id: 'auth-error', class: 'error', role: 'alert' });
  const progress = el('p', { id: 'auth-progress', class: 'muted', role: 'status' });
  const submit = el('button', { type: 'submit', class: 'primary' });
  const tabs = {};
  const panel = el('div', { role: 'tabpanel', id: 'auth-panel' });
  const setMode = (m, focusTab) => {
    mode = m;
    for (const [k, t] of Object.entries(tabs)) {
      t.setAttribute('aria-selected', String(k === m));
      t.tabIndex = k === m ? 0 : -1;
    }
    panel.setAttribute('aria-labelledby', 'tab-' + m);
    submit.id = m === 'login' ? 'login-btn' : 'register-btn';
    submit.textContent = m === 'login' ? 'Log in' : 'Create account';
    pass.autocomplete = m === 'login' ? 'current-password' : 'new-password';
    pass2Row.hidden = m === 'login';
    // The rule is for a new password; logging in takes the one there is.
    passHint.hidden = m === 'login';
    if (m === 'login') pass.removeAttribute('aria-describedby');
    else pass.setAttribute('aria-describedby', 'auth-pass-hint');
    pass2.required = m === 'register';
    err.textContent = '';
    if (focusTab) tabs[m].focus();
  };
  const tab = (m, label) => {
    tabs[m] = el('button', { type: 'button', role: 'tab', id: 'tab-' + m, 'aria-controls': 'auth-panel', onclick: () => setMode(m) }, label);
    return tabs[m];
  };
  const tablist = el('div', { class: 'tabs', role: 'tablist', 'aria-label': 'Account' }, tab('register', 'Create account'), tab('login', 'Log in'));
  // Arrow keys move between the tabs, as in every tab list.
  tablist.addEventListener('keydown', (e) => {
    if (e.key === 'ArrowLeft' || e.key === 'ArrowRight' || e.key === 'Home' || e.key === 'End') {
      e.preventDefault();
      setMode(e.key === 'Home' ? 'register' : e.key === 'End' ? 'login' : mode === 'login' ? 'register' : 'login', true);
    }
  });
  const invalid = (input, text) => {
    err.textContent = text;
    input.setAttribute('aria-invalid', 'true');
    input.focus();
  };
  const form = el('form', {
    novalidate: true,
    onsubmit: async (e) => {
      e.preventDefault();
      for (const i of [user, pass, pass2]) i.removeAttribute('aria-invalid');
      const u = user.value.trim();
      if (!/^[a-z0-9_]{3,32}$/.test(u)) return invalid(user, u.length < 3 ? 'A username has at least 3 characters: a–z, 0–9 and _.' : 'A username may hold only a–z, 0–9 and _: no spaces or other signs.');
      if (pass.value.length < 8) return invalid(pass, 'The password is too short: use at least 8 characters.');
      if (mode === 'register' && pass2.value !== pass.value) return invalid(pass2, 'The two passwords differ. Type the same password in both fields.');
      submit.disabled = true;
      err.textContent = '';
      progress.textContent = mode === 'login' ? 'Logging in…' : 'Creating your keys and account…';
      try {
        if (mode === 'login') await sync.loginAccount(u, pass.value);
        else {
          await sync.registerAccount(u, pass.value);
          offerRecovery = true;
          focusNewChat = true;
        }
        pass.value = '';
        pass2.value = '';
        startSession();
      } catch (ex) {
        progress.textContent = '';
        err.textContent = authErrorText(ex, mode);
        submit.disabled = false;
      }
    },
  },
  el('label', { for: 'auth-username' }, 'Username'), user,
  el('p', { id: 'auth-hint', class: 'hint' }, '3 to 32 characters: lower-case letters a–z, digits 0–9 and _'),
  el('label', { for: 'auth-password' }, 'Password'), pass,
  passHint,
  pass2Row,
  el('p', {}, submit), progress, err);
  panel.append(form);
  setMode(mode);
  show(gen, el('section', { class: 'card auth', 'aria-label': 'Create an account or log in' },
    notice ? el('p', { id: 'auth-notice', class: 'warning', role: 'status' }, notice) : null,
    tablist, panel,
    el('p', { class: 'muted' }, 'Your messages are encrypted in this browser. The relay only ever stores ciphertext.')));
  user.focus();
}

// shownWaiting: this page showed the waiting screen; once the device is
// linked, the chat list says so once.
let shownWaiting = false;
/** @type {false | {how: string, others?: boolean}} */
let linkedNotice = false; // {how: 'approved'|'restored', others} once linked here
let resetNotice = false; // this device just reset the account key

// otherLinked says whether the relay lists another device of the account
// that holds the account key, one that could approve this browser; null
// when the relay cannot be asked.
async function otherLinked() {
  const mine = sync.currentDevice();
  try {
    return (await api.devices()).some((d) => d.id !== mine.id && d.linked);
  } catch {
    return null;
  }
}

async function waitingScreen() {
  const gen = ++renderGen;
  shownWaiting = true;
  const [code, others] = await Promise.all([sync.linkCode(), otherLinked()]);
  // Shown already (by this render's predecessor too, while it awaited):
  // rendering again would close an open reset form and drop what was
  // typed in it.
  if (gen === renderGen && document.getElementById('waiting') && document.getElementById('reset')) return;
  if (others === false) return aloneScreen(gen, code);
  show(gen, el('section', { class: 'card', id: 'waiting' },
    el('h2', {}, 'Waiting to be linked'),
    el('p', {}, 'This browser is a new device of ', el('strong', {}, sync.me()), '. To read and send messages here, it needs your account key from a device where you are already logged in.'),
    el('ol', {},
      el('li', {}, 'On that device, open Devices.'),
      el('li', {}, 'Find this device and check that it shows the same code:'),
    ),
    el('p', { class: 'code', id: 'link-code', 'aria-label': 'Verification code' }, code),
    el('ol', { start: 3 }, el('li', {}, 'If the codes match, press Approve there. This page continues by itself.')),
    el('p', { class: 'muted' }, 'History on this device starts when it was added: messages from before stay on your other devices.')),
  restoreCard(others),
  resetSection(false));
}

// aloneScreen is the waiting screen of an account with no other linked
// device: no approval can come, so it leads with the two ways that work,
// and keeps the link code last, for a device linked meanwhile.
function aloneScreen(gen, code) {
  show(gen, el('section', { class: 'card', id: 'waiting' },
    el('h2', {}, 'Use your account on this browser'),
    el('p', { id: 'no-other-device' }, 'This browser is a new device of ', el('strong', {}, sync.me()), '. Your account has no other linked device, so there is no device to approve this browser from. Two ways work from here:'),
    el('ul', {},
      el('li', {}, 'with the recovery key you saved, restore your account here: this browser becomes your device, with no history from before;'),
      el('li', {}, 'without it, reset the account key: you keep your username but start over with no history, and your contacts see a warning that your key changed.'))),
  restoreCard(false),
  resetSection(true),
  el('section', { class: 'card', id: 'link-later' },
    el('details', {},
      el('summary', { id: 'link-open' }, 'Linked another device meanwhile? Approve this browser from it'),
      el('p', {}, 'On that device, open Devices, find this device, and check that it shows the same code:'),
      el('p', { class: 'code', id: 'link-code', 'aria-label': 'Verification code' }, code),
      el('p', {}, 'If the codes match, press Approve there. This page continues by itself.'))));
}

// restoreErrorText says what went wrong with a recovery key typed, and
// what to do.
function restoreErrorText(ex, others) {
  if (ex.name === 'NotRecoveryKeyError') return 'This is not a recovery key: check for a typo. A recovery key has 33 letters and digits in 9 groups.';
  if (ex.name === 'WrongRecoveryKeyError' || ex.name === 'KeyMismatchError') return 'This recovery key does not fit this account. Check that it is the newest key you saved for ' + sync.me() + '.';
  if (ex.name === 'RecoveryBlobError') return 'The recovery data stored for this account cannot be read by this version of the client.';
  if (ex.code === 'no_recovery') {
    return others === false ? 'This account has no recovery key, and no other device can approve this browser: resetting the account key below is the only way left.'
      : 'This account has no recovery key; approve this browser from another device.';
  }
  if (ex.code === 'too_many_attempts') {
    const min = Math.max(1, Math.ceil((ex.retryAfter || 360) / 60));
    return `Too many attempts for this account. Try again in ${min} ${plural.select(min) === 'one' ? 'minute' : 'minutes'}.`;
  }
  return 'Could not restore: ' + ex.message;
}

// restoreCard lets an unlinked browser become a full device with the
// recovery key instead of an approval. others is otherLinked's answer.
function restoreCard(others) {
  const input = el('input', { id: 'restore-key', autocomplete: 'off', spellcheck: 'false', autocapitalize: 'characters', 'aria-describedby': 'restore-hint restore-error' });
  const err = el('p', { id: 'restore-error', class: 'error', role: 'alert' });
  const btn = el('button', { type: 'submit', id: 'restore-btn', class: 'primary' }, 'Restore');
  return el('section', { class: 'card', id: 'restore' },
    el('h2', {}, 'Restore with recovery key'),
    el('form', {
      onsubmit: async (e) => {
        e.preventDefault();
        btn.disabled = true;
        err.textContent = 'Checking the key…';
        try {
          await sync.restore(input.value);
          input.value = '';
        } catch (ex) {
          err.textContent = restoreErrorText(ex, others);
          btn.disabled = false;
        }
      },
    },
    el('label', { for: 'restore-key' }, 'Recovery key'), input,
    el('p', { id: 'restore-hint', class: 'muted' }, 'No other device? Type the recovery key you saved, like ABCD-EFGH-…-K. Case, spaces and dashes do not matter.'),
    el('p', {}, btn), err));
}

// resetSection is the way out for a person who lost every device and the
// recovery key: a new account key, made here. It says what is lost before
// anything is done, asks for the password again and for a confirmation.
// It is open from the start when it is one of the only two ways left.
function resetSection(open) {
  const form = passwordForm({
    ids: { password: 'reset-password', error: 'reset-error', button: 'reset-btn' },
    button: 'Reset the account key…',
    need: 'reset its key',
    before: [el('p', {}, 'Only if you lost every device where you are logged in and your recovery key. Resetting makes a new account key on this browser:'),
      el('ul', {},
        el('li', {}, 'your old messages cannot be read any more, here or anywhere;'),
        el('li', {}, 'every other device of this account is removed;'),
        el('li', {}, 'your contacts see a warning that your key changed.'))],
    confirm: () => confirmDialog('Reset your account key?',
      'Your old messages cannot be read any more, every other device of this account is removed, and your contacts see a warning that your key changed. This cannot be undone.',
      'Reset the account key'),
    busy: 'Making a new account key…',
    // Set before: the linked event of the reset routes to the chat list.
    onStart: () => {
      shownWaiting = false;
      resetNotice = true;
    },
    onFail: () => {
      shownWaiting = true;
      resetNotice = false;
    },
    act: (password) => sync.resetAccountKey(password),
    failed: 'The key could not be reset',
  });
  return el('section', { class: 'card', id: 'reset' },
    el('details', { open }, el('summary', { id: 'reset-open' }, 'Lost all your devices? Reset your account key'), form));
}

// ---- the chat list and the open chat, side by side ----

// The chat list and the open chat are two panes of one split view: side
// by side from 900 px, one at a time below (data-open says which). The
// list pane keeps its nodes while the split is on screen, so that what is
// typed in New chat survives every update.
let listDom = null;
let focusNewChat = false; // just registered: focus goes to New chat

function splitView() {
  if (listDom && view.contains(listDom.split)) return listDom;
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
  const list = el('ul', { class: 'plain', id: 'chat-list', 'aria-label': 'Chats', 'aria-describedby': 'chat-list-hint' });
  list.addEventListener('keydown', chatListKey);
  list.addEventListener('focusin', (e) => {
    const a = e.target.closest('a.chat-link');
    if (a) setChatStop(list, a);
  });
  const empty = el('p', { class: 'muted', id: 'no-chats' }, 'No chats yet. Write to someone by their username.');
  const notices = el('div', { class: 'list-notices' });
  const listPane = el('section', { class: 'list-pane', id: 'list-pane', 'aria-labelledby': 'chats-title' },
    notices, form, err, el('h2', { id: 'chats-title', class: 'pane-title' }, 'Chats'), list, empty,
    el('p', { id: 'chat-list-hint', class: 'sr-only' }, 'The up and down arrows move between chats, Home and End to the first and the last; Enter or Space opens the chat.'));
  const chatPane = el('div', { class: 'chat-pane', id: 'chat-pane' });
  const split = el('div', { class: 'split', id: 'split', 'data-open': 'list' }, listPane, chatPane);
  view.replaceChildren(split);
  listDom = { split, listPane, chatPane, input, list, empty, notices, noticeKey: '' };
  return listDom;
}

// chatListData is what the list shows: the chats by last activity and
// which of them hold unsent messages. A chat with no message yet (opened
// by username, or Notes to self) is listed while it is open, first, and
// not after.
async function chatListData() {
  const [chats, unsent] = await Promise.all([store.getChats(), store.unsentByChat()]);
  renderTitle(chats);
  const shown = chats.filter((c) => c.lastTs);
  if (openChatName && !shown.some((c) => c.username === openChatName)) shown.unshift({ username: openChatName, lastTs: 0, preview: '' });
  return { chats: shown, unsent };
}

// renderTitle puts the unread count of all chats in the tab's title.
function renderTitle(chats) {
  const n = sync.me() ? chats.reduce((sum, c) => sum + (c.unread || 0), 0) : 0;
  document.title = n ? `(${n}) relay` : 'relay';
}

function chatName(username) {
  return username === sync.me() ? 'Notes to self' : username;
}

// chatItem is one row of the chat list: name, time of the last message,
// its preview ("You:" when it was sent from the account), a marker for
// messages not sent, and the unread count, in bold when there is one.
function chatItem(c, unsent) {
  const name = chatName(c.username);
  const marker = unsent === 'failed' ? el('span', { class: 'marker failed-marker' }, 'Not sent')
    : unsent === 'pending' ? el('span', { class: 'marker pending-marker' }, 'Waiting to send') : null;
  return el('li', { class: 'chat-item' + (c.unread ? ' has-unread' : ''), 'data-user': c.username },
    el('a', { href: '#/chat/' + c.username, class: 'chat-link', tabindex: '-1', 'aria-current': c.username === openChatName ? 'true' : null },
      el('span', { class: 'chat-line' },
        el('span', { class: 'name', title: name }, name),
        c.lastTs ? el('time', { class: 'chat-time', datetime: new Date(c.lastTs).toISOString(), title: time.full(c.lastTs) }, time.short(c.lastTs)) : null),
      el('span', { class: 'chat-line' },
        el('span', { class: 'preview-line', title: c.preview || null }, c.lastOut && c.preview ? el('span', { class: 'you' }, 'You: ') : null, el('span', { class: 'preview' }, c.preview || '')),
        marker,
        c.unread ? el('span', { class: 'unread' }, String(c.unread)) : null,
        c.unread ? el('span', { class: 'sr-only' }, c.unread === 1 ? ' unread message' : ' unread messages') : null)));
}

// The chat list is one Tab stop (a roving tabindex): the arrows, Home and
// End move between its rows, Enter (a link's own key) and Space open one.
// The stop is the row last focused, else the open chat, else the first.
let chatStop = null; // the username of the row that takes the Tab stop

function chatLink(list, username) {
  const row = [...list.children].find((r) => r.dataset.user === username);
  return row ? row.querySelector('a.chat-link') : null;
}

function setChatStop(list, a) {
  chatStop = a.closest('.chat-item').dataset.user;
  placeChatStop(list);
}

function placeChatStop(list) {
  const stop = (chatStop && chatLink(list, chatStop)) || (openChatName && chatLink(list, openChatName)) || list.querySelector('a.chat-link');
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
  if (how !== 'restored') return 'This device is linked to your account: you can read and send messages here. Older messages stay on your other devices.';
  return 'Your account is restored on this browser: you can read and send messages here. Messages from before this browser was added are not on it' +
    (others === true ? ': they stay on your other devices.' : others === false ? ', and no other device of yours holds them.' : '.');
}

// renderListPane fills the list pane: the notices, and the rows in place.
function renderListPane(d, { chats, unsent }) {
  // A revoked device is linked no more: what the notices say is no
  // longer true, and the bar above says what is.
  const gone = revoked();
  const key = JSON.stringify([resetNotice, linkedNotice, offerRecovery, gone]);
  if (key !== d.noticeKey) {
    d.noticeKey = key;
    const linkedBox = linkedNotice && !resetNotice && !gone ? el('section', { class: 'card notice-card', id: 'linked-notice', role: 'status' },
      el('p', {}, linkedText(linkedNotice)),
      el('button', { type: 'button', onclick: () => { linkedNotice = false; route(); } }, 'Dismiss')) : null;
    const resetBox = resetNotice && !gone ? el('section', { class: 'card notice-card', id: 'reset-notice', role: 'status' },
      el('p', {}, 'Your account key was reset: this is now your only device, and your contacts will see that your key changed. Older messages are gone.'),
      el('p', {}, 'Create a recovery key now, so that losing this browser does not lose the account: ', el('a', { href: '#/settings', id: 'reset-settings' }, 'open Settings'), '.'),
      el('button', { type: 'button', onclick: () => { resetNotice = false; route(); } }, 'Dismiss')) : null;
    d.notices.replaceChildren(...[resetBox, linkedBox, gone ? null : recoveryOffer()].filter(Boolean));
  }
  const today = time.day(Date.now());
  // A row that moves or is rebuilt loses the focus: it goes back to the
  // row of the same chat.
  const focused = d.list.contains(document.activeElement) ? /** @type {HTMLElement} */ (document.activeElement.closest('.chat-item')) : null;
  const focusedUser = focused ? focused.dataset.user : null;
  placeRows(d.list, chats.map((c) => ({
    key: c.username,
    sig: JSON.stringify([c.lastTs, c.preview, c.lastOut, c.unread, unsent[c.username], c.username === openChatName, today]),
    make: () => chatItem(c, unsent[c.username]),
  })));
  placeChatStop(d.list);
  if (focusedUser && !d.list.contains(document.activeElement)) {
    const again = chatLink(d.list, focusedUser);
    if (again) again.focus({ preventScroll: true });
  }
  d.list.hidden = !chats.length;
  d.empty.hidden = !!chats.length;
  if (focusNewChat) {
    focusNewChat = false;
    d.input.focus();
  }
}

async function chatsScreen() {
  const gen = ++renderGen;
  const data = await chatListData();
  if (gen !== renderGen) return;
  const d = splitView();
  d.split.dataset.open = 'list';
  renderListPane(d, data);
  if (!d.chatPane.querySelector('.chat-empty')) {
    if (chatDom) chatDom.seen.stop();
    chatDom = null;
    d.chatPane.replaceChildren(el('div', { class: 'chat-empty' }, el('p', {}, 'Choose a chat, or start a new one with a username.')));
  }
}

// bodyText is what a bubble says. A message waiting to decrypt says what
// it waits for; it opens by itself, so it offers nothing to press.
function bodyText(m) {
  if (m.unknown) return 'This message needs a newer version of the app. Update the app to read it.';
  if (m.waiting) return `Waiting to decrypt… This message will appear when ${m.chat}'s key can be fetched from the relay.`;
  if (m.undecryptable) return 'Could not decrypt this message.';
  return m.text;
}

// waitText says how long a message held back by the rate limit still
// waits, in whole seconds.
const plural = new Intl.PluralRules('en');

function waitText(until) {
  const n = Math.ceil((until - Date.now()) / 1000);
  if (n <= 0) return 'Sending now…';
  return `Waiting ${n} ${plural.select(n) === 'one' ? 'second' : 'seconds'} to send: too many messages in a short time. It will be sent by itself.`;
}

// The countdowns of the open chat tick once a second while there are any.
let ticker = null;

function tick() {
  /** @type {NodeListOf<HTMLElement>} */
  const waits = view.querySelectorAll('.msg .wait[data-until]');
  const list = chatDom && view.contains(chatDom.list) ? chatDom.list : null;
  const atBottom = list && list.scrollHeight - list.scrollTop - list.clientHeight < 40;
  for (const w of waits) w.textContent = waitText(Number(w.dataset.until));
  if (atBottom) list.scrollTop = list.scrollHeight;
  if (!waits.length) {
    clearInterval(ticker);
    ticker = null;
  }
}

// REACTIONS are the emoji a message menu offers.
const REACTIONS = ['👍', '❤️', '😂', '😮', '😢', '🙏'];

// shownMessages turns the stored messages of a chat and the records of its
// outbox into what the bubbles show: an edit, a deletion or a reaction
// waiting for the relay shows at once, marked as not sent yet, and a
// failed one says so with Retry (docs/storage.md, "Records").
function shownMessages(msgs, outRecs, me) {
  const byId = new Map(msgs.map((m) => [m.id, { ...m, pending: [] }]));
  for (const r of outRecs) {
    const t = byId.get(r.rec.target);
    if (!t || t.deleted) continue;
    t.pending.push(r);
    if (r.kind === 'edit') t.text = r.rec.text;
    if (r.kind === 'delete') t.deleted = { pending: true };
    if (r.kind === 'reaction') {
      const by = { ...((t.reactions || {})[r.rec.emoji] || {}) };
      by[me] = { on: r.rec.on };
      t.reactions = { ...(t.reactions || {}), [r.rec.emoji]: by };
    }
  }
  return { list: msgs.filter((m) => !m.hidden).map((m) => byId.get(m.id)), byId };
}

// quoteOf is what the quote of a reply says of the message it names.
function quoteOf(id, byId) {
  const q = byId.get(id);
  if (!q || q.hidden) return { gone: true, text: 'The quoted message is not on this device.' };
  if (q.deleted) return { gone: true, text: 'The quoted message was deleted.' };
  if (q.waiting || q.undecryptable || q.unknown) return { gone: true, text: 'The quoted message cannot be shown.' };
  return { who: q.dir === 'out' ? 'You' : q.from, text: q.text.length > 90 ? q.text.slice(0, 90) + '…' : q.text };
}

// tickOf is the state an outgoing message shows: sending, sent (the relay
// took it), delivered (a device of the other person stored it), read (they
// saw it; only when this device shows read receipts).
function tickOf(m, showRead) {
  if (m.status === 'pending') return m.error || m.queuedBehind ? 'waiting to send' : 'sending…';
  if (m.status === 'failed') return 'not sent';
  if (m.status !== 'sent') return '';
  if (m.chat === m.from) return 'sent';
  if (m.tick === 'read') return showRead ? 'read' : 'delivered';
  return m.tick === 'delivered' ? 'delivered' : 'sent';
}

const tickMarks = { sent: '✓ ', delivered: '✓✓ ', read: '✓✓ ' };

// markQueued notes on each message waiting behind another that waits (for
// the rate limit, or for the relay) what it waits for: a chat sends in its
// order, so they all wait for the same reason (docs/storage.md, "Order").
function markQueued(shown) {
  let holder = null;
  for (const m of shown) {
    if (m.dir !== 'out' || m.status !== 'pending') continue;
    if (m.error) holder = m;
    else if (holder) m.queuedBehind = holder.error.code;
  }
}

function queuedText(code) {
  if (code === 'rate_limited') return 'Waiting to send: too many messages in a short time. It will be sent by itself after the ones before it.';
  if (code === 'network') return 'Not sent yet: the relay cannot be reached. It will be sent by itself after the ones before it.';
  return 'Waiting to send after the messages before it. It will be sent by itself.';
}

// cancellable: a message waiting to send that no attempt may have brought
// to the relay, so cancelling it means it never arrives.
function cancellable(m) {
  return m.dir === 'out' && m.status === 'pending' && !m.kind && !m.unanswered;
}

function messageNode(m, ctx) {
  const cls = ['msg', m.dir, m.status === 'failed' ? 'failed' : '', m.undecryptable ? 'undecryptable' : '', m.waiting ? 'waiting' : '', m.deleted ? 'deleted' : '', m.unknown ? 'unknown' : ''].filter(Boolean).join(' ');
  const waiting = m.status === 'pending' && m.error && m.error.code === 'rate_limited' && m.error.until;
  // A message that waits for the relay says so once, in the ink colour:
  // never "sending…" next to a red error.
  const held = m.status === 'pending' && m.error && !waiting;
  const shownTick = m.dir === 'out' ? tickOf(m, ctx.showRead) : '';
  const node = el('li', { class: cls, 'data-id': m.id, 'data-status': m.status, 'data-tick': shownTick || null, tabindex: '-1' });
  if (m.replyTo && !m.deleted) {
    const q = quoteOf(m.replyTo, ctx.byId);
    node.append(q.gone
      ? el('span', { class: 'quote gone' }, q.text)
      : el('button', { type: 'button', class: 'quote', 'data-target': m.replyTo, 'aria-label': `Quoted message from ${q.who}: ${q.text}. Show it`, onclick: () => showQuoted(m.replyTo) },
        el('span', { class: 'quote-who' }, q.who), ' ', el('span', { class: 'quote-text' }, q.text)));
  }
  // Only what the person wrote gets links, never the client's own words.
  const written = !m.deleted && !m.unknown && !m.waiting && !m.undecryptable;
  node.append(el('span', { class: 'text' }, ...(written ? linkified(m.text) : [m.deleted ? 'This message was deleted' : bodyText(m)])));
  const edited = !m.deleted && (m.edited || m.pending.some((r) => r.kind === 'edit'));
  node.append(el('span', { class: 'meta' }, el('time', { datetime: new Date(m.ts).toISOString(), title: time.full(m.ts) }, time.clock(m.ts)),
    edited ? el('span', { class: 'edited' }, ' · edited') : null,
    shownTick ? ' · ' : '', shownTick ? el('span', { class: 'status' }, tickMarks[shownTick] ? el('span', { 'aria-hidden': 'true' }, tickMarks[shownTick]) : null, shownTick) : null));
  if (waiting) {
    // role=timer: read on request, not announced every second.
    node.append(el('span', { class: 'wait', role: 'timer', 'data-until': m.error.until }, waitText(m.error.until)));
    if (!ticker) ticker = setInterval(tick, 1000);
  } else if (held) {
    node.append(el('span', { class: 'wait' }, m.error.text));
  } else if (m.queuedBehind) {
    node.append(el('span', { class: 'wait' }, queuedText(m.queuedBehind)));
  } else if (m.error && m.status !== 'sent') {
    const text = m.error.code === 'device_forbidden' ? 'Not sent: this browser was removed from your account.' : m.error.text;
    node.append(el('span', { class: 'error', role: 'alert' }, text));
    // A revoked device cannot send, nor can anyone to a deleted account:
    // a Retry could never work.
    if (m.status === 'failed' && retryable(m.chat)) node.append(' ', el('button', { type: 'button', class: 'retry', onclick: () => sync.retry(m.id) }, 'Retry'));
  }
  for (const r of m.pending) {
    const what = { edit: 'edit', delete: 'deletion', reaction: 'reaction' }[r.kind];
    if (r.status === 'failed') {
      node.append(el('span', { class: 'error record-error', role: 'alert' }, `Your ${what} was not sent: ${r.error ? r.error.text : 'the relay refused it'}.`),
        retryable(m.chat) ? el('button', { type: 'button', class: 'retry', onclick: () => sync.retry(r.id) }, 'Retry') : '',
        ' ', el('button', { type: 'button', class: 'discard', onclick: () => sync.discard(r.id) }, 'Discard'));
    } else if (r.error && r.error.code === 'network') {
      node.append(el('span', { class: 'muted record-wait' }, `Your ${what} is not sent yet: the relay cannot be reached. It will be retried.`));
    }
  }
  const reactions = m.deleted ? [] : reactionsOf(m);
  if (reactions.length) {
    node.append(el('span', { class: 'reactions' }, ...reactions.map((r) => {
      const mine = r.by.includes(ctx.me);
      const names = r.by.map((u) => (u === ctx.me ? 'you' : u)).join(', ');
      return el('button', {
        type: 'button', class: 'reaction', 'aria-pressed': String(mine), 'data-emoji': r.emoji, title: names,
        'aria-label': `${r.emoji} ${r.by.length}, from ${names}. ${mine ? 'Remove yours' : 'Add yours'}`,
        onclick: () => reactTo(m, r.emoji, !mine, ctx),
      }, r.emoji, ' ', el('span', { class: 'count' }, String(r.by.length)));
    })));
  }
  // In the meta line, after the time and the tick: a bubble keeps to two
  // rows; the menu opens below them.
  // A message waiting to send has one action: cancel it, while it can be.
  if ((!m.waiting && !(m.dir === 'out' && m.status === 'pending')) || cancellable(m)) node.querySelector('.meta').append(menuButton(m, ctx));
  return node;
}

async function reactTo(m, emoji, on, ctx) {
  try {
    await sync.react(m.chat, m.id, emoji, on);
  } catch (ex) {
    chatNotice(ex.message);
  }
  if (ctx.focusAfter) ctx.focusAfter();
}

// chatNotice says in the chat why an action could not be done.
function chatNotice(text) {
  const slot = document.getElementById('chat-error');
  if (slot) slot.textContent = text;
}

// showQuoted scrolls to the message a reply quotes and marks it a moment.
function showQuoted(id) {
  const n = chatDom && chatDom.list.querySelector(`.msg[data-id="${id}"]`);
  if (!n) return;
  n.scrollIntoView({ block: 'center' });
  n.classList.add('highlight');
  n.focus({ preventScroll: true });
  setTimeout(() => n.classList.remove('highlight'), 2000);
}

// menuButton is the "Message actions" button of a bubble, with its menu:
// react, reply, edit, delete, mark as unread. Esc closes it.
function menuButton(m, ctx) {
  const wrap = el('span', { class: 'msg-menu' });
  const btn = el('button', { type: 'button', class: 'msg-actions', 'aria-haspopup': 'true', 'aria-expanded': 'false', 'aria-label': 'Message actions' }, '⋯');
  let menu = null;
  const close = (focus = true) => {
    if (!menu) return;
    menu.remove();
    menu = null;
    btn.setAttribute('aria-expanded', 'false');
    document.removeEventListener('pointerdown', outside, true);
    if (focus) btn.focus();
  };
  const outside = (e) => {
    if (!wrap.contains(e.target)) close(false);
  };
  const item = (label, cls, fn) => el('button', { type: 'button', class: 'menu-item ' + cls, onclick: () => { close(false); fn(); } }, label);
  btn.addEventListener('click', () => {
    if (menu) return close();
    const own = m.from === ctx.me && m.dir === 'out';
    const live = !m.deleted && !m.unknown && !m.undecryptable;
    const items = [];
    if (m.status === 'pending') items.push(item('Cancel sending', 'cancel-send-btn', () => cancelSend(m)));
    else if (live) {
      items.push(el('span', { class: 'react-row', role: 'group', 'aria-label': 'React' }, ...REACTIONS.map((e) => {
        const mine = !!(((m.reactions || {})[e] || {})[ctx.me] || {}).on;
        return el('button', { type: 'button', class: 'react-pick', 'aria-label': `React with ${e}`, 'aria-pressed': String(mine), onclick: () => { close(false); reactTo(m, e, !mine, ctx); } }, e);
      })));
      items.push(item('Reply', 'reply-btn', () => ctx.reply(m)));
      if (own && m.status === 'sent') {
        items.push(item('Edit', 'edit-btn', () => ctx.edit(m)));
        items.push(item('Delete for everyone', 'delete-all-btn', () => deleteEveryone(m)));
      }
    }
    if (m.status !== 'pending') items.push(item('Delete for me', 'delete-me-btn', () => deleteMine(m)));
    if (m.dir === 'in' && !m.waiting) items.push(item('Mark as unread', 'mark-unread', () => markUnreadFrom(m)));
    menu = el('span', { class: 'menu', role: 'group', 'aria-label': 'Message actions' }, ...items);
    menu.addEventListener('keydown', (e) => {
      if (e.key === 'Escape') {
        e.stopPropagation();
        close();
        return;
      }
      menuKey(e, menu);
    });
    wrap.append(menu);
    btn.setAttribute('aria-expanded', 'true');
    document.addEventListener('pointerdown', outside, true);
    menu.querySelector('button').focus();
  });
  wrap.append(btn);
  return wrap;
}

// menuKey moves the focus between the buttons of an open menu: Down and
// Right to the next (from the last to the first), Up and Left back, Home
// and End to the first and the last.
function menuKey(e, menu) {
  if (e.altKey || e.ctrlKey || e.metaKey) return;
  const items = [...menu.querySelectorAll('button')];
  const at = items.indexOf(document.activeElement);
  const to = { ArrowDown: at + 1, ArrowRight: at + 1, ArrowUp: at - 1, ArrowLeft: at - 1, Home: 0, End: items.length - 1 }[e.key];
  if (to === undefined || !items.length) return;
  e.preventDefault();
  items[(to + items.length) % items.length].focus();
}

async function deleteEveryone(m) {
  const ok = await ask({
    id: 'delete-dialog', title: 'Delete for everyone?',
    body: [el('p', {}, `The message is deleted on your devices and on ${m.chat}'s: "This message was deleted" stays in its place.`)],
    actions: [{ id: 'delete-confirm', value: 'delete', class: 'danger', label: 'Delete for everyone' }],
  });
  if (!ok) return;
  try {
    await sync.deleteForEveryone(m.chat, m.id);
  } catch (ex) {
    chatNotice(ex.message);
  }
}

// cancelSend deletes a message waiting to send before it goes, after a
// confirmation; if it went meanwhile, the chat says so.
async function cancelSend(m) {
  const ok = await ask({
    id: 'cancel-dialog', title: "Don't send this message?",
    body: [el('p', {}, `It is deleted before it is sent: ${m.chat === sync.me() ? 'your other devices never get' : m.chat + ' never gets'} it.`)],
    actions: [{ id: 'cancel-confirm', value: 'cancel', class: 'danger', label: "Don't send it" }],
  });
  if (!ok) return;
  try {
    await sync.cancel(m.id);
  } catch (ex) {
    chatNotice(ex.message);
  }
  if (chatDom) chatDom.text.focus();
}

async function deleteMine(m) {
  const ok = await ask({
    id: 'delete-dialog', title: 'Delete for me?',
    body: [el('p', {}, `The message goes from this browser only. Your other devices and ${m.chat === sync.me() ? 'your notes' : m.chat} keep it.`)],
    actions: [{ id: 'delete-confirm', value: 'delete', class: 'danger', label: 'Delete for me' }],
  });
  if (ok) await sync.deleteForMe(m.id);
}

// chatRows returns the rows of a chat in the chat's order, each with a key,
// a signature of what it shows and, for a message, the message.
function chatRows(shown, ctx) {
  const rows = [];
  let day = '';
  const now = Date.now();
  for (const m of shown) {
    const d = time.day(m.ts, now);
    if (d !== day) {
      day = d;
      rows.push({ key: 'day:' + d, sig: '', make: () => el('li', { class: 'day-sep' }, d) });
    }
    if (m.id === newDividerAt) rows.push({ key: 'new', sig: '', make: () => el('li', { class: 'new-divider', id: 'new-divider' }, 'New messages') });
    const quote = m.replyTo ? quoteOf(m.replyTo, ctx.byId) : null;
    const sig = JSON.stringify([m.text, m.ts, m.status, m.error, m.queuedBehind, cancellable(m), m.undecryptable, m.waiting, m.status === 'failed' && retryable(m.chat), m.deleted, m.edited, m.reactions, m.tick, ctx.showRead, quote,
      m.pending.map((r) => [r.id, r.status, r.error])]);
    rows.push({ key: 'msg:' + m.id, msg: m, sig, make: () => messageNode(m, ctx) });
  }
  if (!shown.length) rows.push({ key: 'empty', sig: '', make: () => el('li', { class: 'muted empty' }, 'No messages yet.') });
  return rows;
}


// chatDom holds the open chat's live parts, so that updates change the
// rows in place and keep what is being typed in the composer.
let chatDom = null;

// markUnreadFrom makes m and what follows it unread, here and on the
// account's other devices, and goes back to the chat list: staying would
// read them again at once.
async function markUnreadFrom(m) {
  // Leaving is not reading: neither the leaving nor the change that comes
  // back while the chat is still on screen moves the position forward.
  openChatName = null;
  current = null;
  await sync.markUnread(m.chat, m.id);
  location.hash = '#/chats';
}

// renderComposer disables the composer of a revoked device, and of a chat
// whose contact deleted their account, and says why and what to do.
function renderComposer() {
  if (!chatDom || !view.contains(chatDom.text)) return;
  const gone = sync.isDeleted(chatDom.username);
  const off = revoked() || gone;
  chatDom.text.disabled = off;
  chatDom.sendBtn.disabled = off;
  chatDom.note.hidden = !off;
  chatDom.note.textContent = revoked() ? 'This browser was removed from your account, so it can no longer send or receive messages. To use it again, log out, then log in: it is added as a new device.'
    : gone ? `This account was deleted. ${chatDom.username} can no longer receive messages; what you already have stays here.` : '';
}

// nearBottom: the newest messages are in view, so new ones keep them in
// view; scrolled further up, they wait behind the "New messages" button.
function nearBottom(list) {
  return list.scrollHeight - list.scrollTop - list.clientHeight < 40;
}

// renderJump shows the "New messages ↓" button while unread messages wait
// below the visible part of the chat, with how many.
function renderJump() {
  const { count } = chatDom.seen.below();
  // The button going away with the focus on it leaves the focus in the
  // list, not on the page.
  if (!count && chatDom.jump.contains(document.activeElement)) chatDom.list.focus();
  chatDom.jump.hidden = !count;
  chatDom.jump.querySelector('.count').textContent = String(count);
}

// jumpToNew brings the first unread message below the view to its top,
// so that the next ones follow as the person reads on; with none, the
// newest.
function jumpToNew() {
  const { first } = chatDom.seen.below();
  if (first) chatDom.list.scrollTop = first.offsetTop - 8;
  else chatDom.list.scrollTop = chatDom.list.scrollHeight;
  renderJump();
}

// watchChat follows what of the open chat is read: the unread messages
// that the screen shows are marked seen (seen.js).
function watchChat(msgs, ch) {
  chatDom.seen.update(msgs.filter((m) => store.isUnread(m, ch)).map((m) => m.id));
  renderJump();
}

// announce reads new incoming messages out through the live region, and
// nothing else: the list itself is not live, so an update never reads
// the whole chat again.
function announce(msgs) {
  const box = document.getElementById('announce');
  if (!box || !msgs.length) return;
  box.textContent = msgs.map((m) => `${chatName(m.chat)}: ${bodyText(m)}`).join('\n');
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
// and makes the buttons of a message tabbable only while the focus is in
// it (focused: where the focus is, or goes).
function placeMsgStop(list, focused = document.activeElement) {
  const rows = msgNodes(list);
  const stop = rows.find((r) => r.dataset.id === chatDom.msgStop) || rows[rows.length - 1];
  list.tabIndex = stop ? -1 : 0;
  for (const r of rows) {
    r.tabIndex = r === stop ? 0 : -1;
    if (r === stop) r.setAttribute('aria-describedby', 'messages-hint');
    else r.removeAttribute('aria-describedby');
    const inside = r === stop && r.contains(focused);
    for (const b of r.querySelectorAll('button')) b.tabIndex = inside ? 0 : -1;
  }
}

function msgFocusIn(e) {
  const node = e.target.closest('.msg');
  if (!node || !chatDom || chatDom.list !== e.currentTarget) return;
  chatDom.msgStop = node.dataset.id;
  placeMsgStop(e.currentTarget, e.target);
}

function msgFocusOut(e) {
  const node = e.target.closest('.msg');
  if (node && !node.contains(e.relatedTarget) && chatDom && chatDom.list === e.currentTarget) placeMsgStop(e.currentTarget, e.relatedTarget);
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
    chatDom.enterOn = node;
  }
}

function messageListKeyUp(e) {
  if (e.key !== 'Enter' || !chatDom || chatDom.enterOn !== e.target) return;
  chatDom.enterOn = null;
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
  if (!chatDom || chatDom.list !== list || !list.clientHeight) return;
  const size = roomOf(list);
  // The browser's own scroll for a new room (its scroll anchoring) comes
  // before the resize is seen: the place from before it stays for
  // keepPlace. A scroll to the bottom counts all the same (one's own
  // message sent as the composer shrinks back).
  if (!resized && chatDom.place && chatDom.place.size !== size && !nearBottom(list)) return;
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
  chatDom.place = { size, bottom: nearBottom(list), id: node ? node.dataset.id : null, at: node ? node.getBoundingClientRect().top - top : 0 };
}

function keepPlace(list) {
  const p = chatDom && chatDom.list === list && list.clientHeight ? chatDom.place : null;
  if (!p) return;
  const node = p.id && list.querySelector(`.msg[data-id="${p.id}"]`);
  if (p.bottom) list.scrollTop = list.scrollHeight;
  else if (node) list.scrollTop += node.getBoundingClientRect().top - list.getBoundingClientRect().top - p.at;
  notePlace(list, true);
}

// infoPanel fills the chat-info panel: the safety code to compare, and
// whether this device marked it verified. Notes to self has none.
function infoPanel(username, ch) {
  const d = chatDom;
  const self = username === sync.me();
  const hadFocus = d.info.contains(document.activeElement) ? document.activeElement.id : null;
  const close = el('button', { type: 'button', id: 'chat-info-close', class: 'close-btn', 'aria-label': 'Close chat info', onclick: () => toggleInfo(false) }, 'Close');
  const head = el('div', { class: 'info-head' }, el('h3', { id: 'chat-info-title' }, self ? 'Notes to self' : 'Chat info'), close);
  if (self) {
    d.info.replaceChildren(head, el('p', {}, 'What you write here goes to your own devices only. There is no one to compare a safety code with.'));
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
    d.info.replaceChildren(head,
      el('p', { class: 'info-name' }, username),
      el('h4', {}, 'Safety code'), code, changed,
      el('p', { class: 'muted' }, 'Compare these digits with ', username, ' in person or on a call. If both of you see the same digits, nobody is in the middle.'),
      state, btn);
  }
  if (hadFocus) {
    const again = document.getElementById(hadFocus);
    if (again) again.focus();
  }
}

// toggleInfo opens or closes the chat-info panel. It opens with focus on
// its first button; closing gives focus back to the button that opens it.
async function toggleInfo(open) {
  const d = chatDom;
  if (!d) return;
  d.info.hidden = !open;
  d.infoBtn.setAttribute('aria-expanded', String(open));
  if (!open) {
    d.infoBtn.focus();
    return;
  }
  // A key to confirm: the panel opens at its top, the code in view.
  const btn = (!d.info.querySelector('#key-accept') && d.info.querySelector('#verify-btn')) || d.info.querySelector('#chat-info-close');
  if (btn) btn.focus();
  if (d.username !== sync.me()) {
    const code = await sync.safetyCode(d.username);
    if (chatDom !== d) return;
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
  if (e.key !== 'Escape' || !chatDom || chatDom.info.hidden || document.querySelector('dialog[open]')) return;
  e.preventDefault();
  toggleInfo(false);
});

// renderChatHead shows the verified mark beside the chat's name: not for a
// deleted account, whose key nobody holds any more.
function renderChatHead(username, ch) {
  chatDom.badge.hidden = !(ch && ch.verified) || username === sync.me() || sync.isDeleted(username);
}

// watchLength says in slot when the composer cut what was pasted or typed
// at the length a message may have (its maxlength), and how much it kept:
// the browser cuts without a word. The note goes with the next edit that
// cuts nothing.
function watchLength(text, slot) {
  const count = (n) => n.toLocaleString('en');
  const say = (t) => {
    slot.textContent = t;
    slot.hidden = false;
  };
  text.addEventListener('paste', (e) => {
    // The browser keeps line breaks as \n, as the limit counts them.
    const t = e.clipboardData ? e.clipboardData.getData('text/plain').replace(/\r\n?/g, '\n') : '';
    const room = Math.max(0, MAX_TEXT - (text.value.length - (text.selectionEnd - text.selectionStart)));
    if (t.length > room) say(`Only ${count(room)} of the ${count(t.length)} characters pasted were kept: a message holds at most ${count(MAX_TEXT)} characters. Send this part, then paste the rest in another message.`);
  });
  text.addEventListener('input', (e) => {
    if (e.inputType === 'insertFromPaste') return;
    if (text.value.length >= MAX_TEXT) say(`This message is full: a message holds at most ${count(MAX_TEXT)} characters. Send it, then write the rest in another message.`);
    else slot.hidden = true;
  });
}

// lastOwnOf is the last message this account sent that can be edited.
function lastOwnOf(shown, me) {
  const own = shown.filter((m) => m.dir === 'out' && m.from === me && m.status === 'sent' && !m.deleted && typeof m.text === 'string');
  return own.length ? own[own.length - 1] : null;
}

// composeMode puts the composer in reply or edit mode ({kind, m}) or back
// (null), with the bar above it that says so and cancels.
function composeMode(mode) {
  if (!chatDom) return;
  chatDom.mode = mode;
  const modeBar = chatDom.modeBar;
  if (!mode) {
    modeBar.hidden = true;
    modeBar.replaceChildren();
    return;
  }
  const cancel = el('button', {
    type: 'button', class: 'mode-cancel', 'aria-label': mode.kind === 'edit' ? 'Cancel editing' : 'Cancel the reply',
    onclick: () => {
      if (mode.kind === 'edit') chatDom.text.value = '';
      composeMode(null);
      chatDom.text.focus();
    },
  }, '✕');
  const snippet = mode.m.text.length > 90 ? mode.m.text.slice(0, 90) + '…' : mode.m.text;
  modeBar.replaceChildren(el('span', { class: 'mode-text' },
    el('strong', {}, mode.kind === 'edit' ? 'Editing your message' : `Replying to ${mode.m.dir === 'out' ? 'yourself' : mode.m.from}`), ' ', el('span', { class: 'muted' }, snippet)), cancel);
  modeBar.hidden = false;
  if (mode.kind === 'edit') chatDom.text.value = mode.m.text;
  chatDom.text.focus();
}

async function chatScreen(username, opening) {
  const gen = ++renderGen;
  const ch = await store.getChat(username);
  if (opening) {
    newDividerAt = null;
    if (ch && ch.unread) {
      const msgs = await store.getMessages(username);
      const first = msgs.find((m) => store.isUnread(m, ch));
      newDividerAt = first ? first.id : null;
    }
  }
  const msgs = await store.getMessages(username);
  const outRecs = await store.outgoingRecords(username);
  const showRead = await sync.readReceipts();
  const listData = await chatListData();
  if (gen !== renderGen) return;
  const me = sync.me();
  const { list: shownList, byId } = shownMessages(msgs, outRecs, me);
  markQueued(shownList);
  const ctx = { me, byId, showRead, reply: (m) => composeMode({ kind: 'reply', m }), edit: (m) => composeMode({ kind: 'edit', m }) };
  const rows = chatRows(shownList, ctx);
  const warning = ch && ch.keyChanged ? el('div', { class: 'warning', id: 'key-warning', role: 'alert' },
    `${username}'s key has changed. This happens when they create a new account key — or when someone is in the middle. Compare the safety code with ${username} in person or on a call before you trust new messages.`, ' ',
    el('button', { type: 'button', id: 'key-compare', onclick: () => toggleInfo(true) }, 'Compare the safety code')) : '';

  const d = splitView();
  d.split.dataset.open = 'chat';
  renderListPane(d, listData);

  if (!opening && chatDom && chatDom.username === username && view.contains(chatDom.list)) {
    const list = chatDom.list;
    const atBottom = nearBottom(list);
    const added = placeRows(list, rows).filter((r) => r.msg);
    placeMsgStop(list);
    chatDom.lastOwn = lastOwnOf(shownList, me);
    chatDom.warning.replaceChildren(warning);
    const newIn = added.filter((r) => r.msg.dir === 'in').map((r) => r.msg);
    const sentHere = added.some((r) => r.msg.dir === 'out' && chatDom.sending);
    if (sentHere) {
      chatDom.sending = false;
      // A reply answers what was new: the divider has done its work.
      newDividerAt = null;
      const divider = list.querySelector('.new-divider');
      if (divider) divider.remove();
    }
    announce(newIn);
    if (atBottom || sentHere) list.scrollTop = list.scrollHeight;
    watchChat(msgs, ch);
    if (ch && JSON.stringify([ch.verified, !!ch.publicKey, !!ch.keyChanged]) !== chatDom.infoSig) {
      chatDom.infoSig = JSON.stringify([ch.verified, !!ch.publicKey, !!ch.keyChanged]);
      if (!ch.verified) chatDom.code = null; // a new key has a new code
      infoPanel(username, ch);
      if (!chatDom.info.hidden) toggleInfo(true);
    }
    renderChatHead(username, ch);
    renderComposer();
    return;
  }

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
    if (chatDom && chatDom.list === list) renderJump();
  });
  const warningSlot = el('div', { class: 'warning-slot' }, warning);
  const text = el('textarea', { id: 'composer', 'data-chat': username, 'aria-label': `Message to ${chatName(username)}`, placeholder: 'Write a message', rows: 1, maxlength: MAX_TEXT, enterkeyhint: 'send', 'aria-describedby': 'composer-hint composer-note composer-limit' });
  const sendIt = async () => {
    const t = text.value.trim();
    if (revoked()) return;
    const mode = chatDom && chatDom.mode;
    if (mode && mode.kind === 'edit') {
      composeMode(null);
      text.value = '';
      if (t && t !== mode.m.text) {
        try {
          await sync.editMessage(username, mode.m.id, t);
        } catch (ex) {
          chatNotice(ex.message);
        }
      }
      text.focus();
      return;
    }
    if (!t) return;
    text.value = '';
    limit.hidden = true;
    composeMode(null);
    if (chatDom) chatDom.sending = true;
    await sync.sendText(username, t, mode && mode.kind === 'reply' ? mode.m.id : null);
    text.focus();
  };
  // Enter sends and Shift+Enter makes a new line, whatever the input
  // method: a keyboard's Enter arrives as a keydown, an on-screen
  // keyboard's often only as a line break to insert (beforeinput); an
  // Enter that ends a composition (IME) only confirms the word.
  let newline = false;
  text.addEventListener('keydown', (e) => {
    if (e.key === 'Escape' && chatDom && chatDom.mode) {
      e.preventDefault();
      if (chatDom.mode.kind === 'edit') text.value = '';
      composeMode(null);
      return;
    }
    if (e.key === 'ArrowUp' && !text.value.trim() && !e.isComposing) {
      // Up in an empty composer edits the last message this account sent.
      const last = chatDom && chatDom.lastOwn;
      if (last) {
        e.preventDefault();
        composeMode({ kind: 'edit', m: last });
      }
      return;
    }
    if (e.key !== 'Enter' || e.isComposing || e.keyCode === 229) return;
    if (e.shiftKey) {
      newline = true;
      return;
    }
    e.preventDefault();
    sendIt();
  });
  text.addEventListener('beforeinput', (e) => {
    if (e.inputType !== 'insertLineBreak' && e.inputType !== 'insertParagraph') return;
    if (newline || e.isComposing) {
      newline = false;
      return;
    }
    e.preventDefault();
    sendIt();
  });
  const sendBtn = el('button', { type: 'button', id: 'send-btn', class: 'primary', onclick: sendIt }, 'Send');
  const modeBar = el('div', { id: 'compose-mode', class: 'compose-mode', hidden: true });
  const note = el('p', { id: 'composer-note', class: 'warning', role: 'status', hidden: true });
  const limit = el('p', { id: 'composer-limit', class: 'warning', role: 'status', hidden: true });
  watchLength(text, limit);
  const info = el('section', { id: 'chat-info', class: 'chat-info', hidden: true, 'aria-labelledby': 'chat-info-title' });
  const infoBtn = el('button', {
    type: 'button', id: 'safety-btn', class: 'info-btn', 'aria-controls': 'chat-info', 'aria-expanded': 'false',
    onclick: () => toggleInfo(info.hidden),
  }, username === sync.me() ? 'Info' : 'Safety code');
  const badge = el('span', { class: 'badge verified-badge', id: 'verified-badge', hidden: true, title: 'You compared the safety code of this chat' }, '✓ Verified');
  const name = chatName(username);
  const section = el('section', { class: 'chat', 'aria-labelledby': 'chat-title', 'data-chat': username },
    el('div', { class: 'chat-head' },
      el('a', { href: '#/chats', class: 'chat-back', 'aria-label': 'Back to chats' }, '←'),
      el('h2', { id: 'chat-title', title: name }, name),
      badge, infoBtn),
    info, warningSlot, el('p', { id: 'chat-error', class: 'error', role: 'alert' }),
    el('div', { class: 'messages-wrap' }, list, jump), note, limit, modeBar,
    el('div', { class: 'composer' }, text, sendBtn),
    el('p', { id: 'composer-hint', class: 'sr-only' }, 'Enter sends, Shift+Enter makes a new line, the up arrow in an empty composer edits your last message.'),
    el('p', { id: 'messages-hint', class: 'sr-only' }, 'The up and down arrows move between messages, Home and End to the first and the last; Tab goes to the buttons of the message. Enter opens its actions, the arrows move between them and Escape closes them.'));
  d.chatPane.replaceChildren(section);
  if (chatDom) chatDom.seen.stop();
  const seen = watchSeen(list, (ids) => sync.markSeen(username, ids));
  chatDom = { username, list, seen, warning: warningSlot, text, sendBtn, note, info, infoBtn, badge, jump, modeBar, mode: null, lastOwn: lastOwnOf(shownList, me), sending: false, code: null, infoSig: JSON.stringify([ch && ch.verified, !!(ch && ch.publicKey), !!(ch && ch.keyChanged)]) };
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
}

// ---- devices ----

// lastKeyWarning asks whether this device is the last that holds the
// account key and, if so, returns the warning to show: that the history
// here is on no other device, and whether the account itself survives,
// which depends on a recovery key. When the relay cannot be asked, it
// warns: losing the account is worse than a warning too many.
async function lastKeyWarning() {
  // A device waiting to be linked holds no account key to lose.
  if (!sync.isLinked()) return null;
  let last = true;
  let checked = true;
  try { last = await sync.isLastLinked(); } catch { checked = false; }
  if (!last) return null;
  let rec = null;
  try { rec = await sync.recoveryStatus(); } catch { /* unknown */ }
  const lost = checked
    ? 'This is your only device: no other device holds your account key or your history, so the history on this browser is lost for good.'
    : 'The relay cannot be reached to check for your other devices. If this is your only device, the history on this browser is lost for good.';
  const left = !rec
    ? ' Whether this account has a recovery key could not be checked: with one, you can use the account again in a new browser, starting with no history; without one, the account is lost too.'
    : rec.set
      ? ` You saved a recovery key on ${new Date(rec.updatedAt).toLocaleString()}: with it, you can use your account again in a new browser, starting with no history. Keep it at hand.`
      : ' This account has no recovery key, so the account is lost too: no browser can read your messages again. Only your username stays: logging in with it, you can reset the account key and start over with no history, and your contacts see a warning that your key changed.';
  return el('p', { class: 'warning', id: 'last-device-warning', role: 'alert' }, lost + left);
}

// leaveText says what logging out (or removing this device) deletes here,
// and, when other devices hold the account key, what stays.
function leaveText(kind, last) {
  if (!sync.isLinked()) {
    return (kind === 'logout' ? 'Logging out removes this browser from your devices.' : 'This browser stops waiting to be linked and is removed from your devices.') +
      ' It holds no account key and no history yet: nothing of your account is lost.';
  }
  return (kind === 'logout'
    ? "Logging out deletes this browser's history and keys, and removes this browser from your devices."
    : "This browser stops receiving messages, and its history and keys are deleted.") +
    (last ? '' : ' Your account stays, and so does its history on your other devices.');
}

// confirmLeave asks before this browser's keys and history are deleted
// (a logout, or removing this device, named name) and resolves to 'leave', 'recovery'
// (go to Settings first) or null.
async function confirmLeave(kind, name) {
  const warning = await lastKeyWarning();
  const body = [el('p', { id: 'leave-text' }, leaveText(kind, !!warning))];
  const actions = [];
  if (warning) {
    body.push(warning);
    actions.push({ id: 'leave-recovery', value: 'recovery', label: 'Create a recovery key first' });
  }
  actions.push({ id: 'leave-confirm', value: 'leave', class: 'danger',
    label: warning ? (kind === 'logout' ? 'Log out without a device left' : 'Remove my last device') : (kind === 'logout' ? (sync.isLinked() ? "Log out and delete this browser's history" : 'Log out') : 'Remove this device') });
  return ask({ id: 'leave-dialog', title: kind === 'logout' ? 'Log out of this browser?' : `Remove ${name}, this device?`, body, actions });
}

// leave logs out after confirmLeave: the device is revoked, the session
// ended and this browser's storage deleted (sync.logout). The dialog opens
// only once the relay has said whether this is the last device: a second
// press meanwhile joins the first instead of opening a second dialog.
let leaving = null;

function leave(kind, name) {
  if (!leaving) leaving = leaveOnce(kind, name).finally(() => { leaving = null; });
  return leaving;
}

async function leaveOnce(kind, name) {
  const choice = await confirmLeave(kind, name);
  // Its button says it creates a key: Settings starts making one.
  if (choice === 'recovery') location.hash = createKeyHash;
  if (choice !== 'leave') return;
  await sync.logout();
  loggedOut();
}

// ---- settings ----

// settingsScreen shows whether the account has a recovery key, and makes
// a new one. saved: a recovery key was just saved, which it confirms;
// create: make one at once, if none is set.
async function settingsScreen({ saved = false, create: createNow = false } = {}) {
  const gen = ++renderGen;
  let status;
  try {
    status = await sync.recoveryStatus();
  } catch (ex) {
    status = { error: ex.code === 'too_many_attempts' ? 'Too many checks of the recovery key for this account: try again later.' : ex.message };
  }
  const slot = el('div', { id: 'recovery-slot' });
  const statusText = status.error ? el('p', { class: 'error', role: 'alert' }, status.error)
    : status.set ? el('p', { id: 'recovery-status' }, 'A recovery key is set (created ', new Date(status.updatedAt).toLocaleString(), ').')
      : el('p', { id: 'recovery-status', class: 'warning' }, 'No recovery key is set. If you lose every device of this account, it cannot be used again.');
  const create = el('button', {
    type: 'button', id: 'recovery-create', class: status.set ? '' : 'primary',
    onclick: async () => {
      create.disabled = true;
      try {
        const text = await sync.createRecoveryKey();
        slot.replaceChildren(recoveryKeyCard(text));
        document.getElementById('recovery-confirm').focus();
      } catch (ex) {
        slot.replaceChildren(el('p', { class: 'error', role: 'alert' }, 'Could not store the recovery key: ' + ex.message + ' Try again.'));
        create.disabled = false;
      }
    },
  }, status.set ? 'Create a new recovery key' : 'Create a recovery key');
  const notifications = await notificationsSection();
  if (gen !== renderGen) return;
  show(gen, el('section', { class: 'card', id: 'settings' },
    el('h2', {}, 'Settings'),
    notifications,
    el('h3', {}, 'Recovery key'),
    el('p', { class: 'muted' }, 'The recovery key lets you use this account in a new browser when no other device is left. The relay keeps your account key locked under it and never sees the key itself.'),
    statusText,
    status.set ? el('p', { class: 'muted' }, 'A new key replaces the old one: the old key stops working at once.') : null,
    el('p', {}, create), slot), await receiptsSection(), deleteSection());
  if (saved && !status.error) {
    slot.replaceChildren(savedNote());
    slot.firstChild.focus();
  }
  if (createNow && !status.error && !status.set && gen === renderGen) create.click();
}

// deleteSection is Settings' last part: it says what deleting the account
// does, asks for the password again and for a confirmation in a dialog,
// and deletes (sync.deleteAccount). Every device is then logged out.
function deleteSection() {
  const form = passwordForm({
    ids: { password: 'delete-password', error: 'delete-error', button: 'delete-account' },
    button: 'Delete account…', buttonClass: 'danger',
    need: 'delete it',
    confirm: async () => (await ask({
      id: 'delete-dialog', title: 'Delete your account?',
      body: [el('p', {}, `This deletes the account ${sync.me()} for good, on the relay and on every device. It cannot be undone.`)],
      actions: [{ id: 'delete-confirm', value: 'delete', class: 'danger', label: 'Delete my account' }],
    })) === 'delete',
    busy: 'Deleting…',
    act: (password) => sync.deleteAccount(password),
    done: () => loggedOut('deleted'),
    failed: 'The account could not be deleted',
    nothing: 'Nothing was deleted',
  });
  return el('section', { class: 'card', id: 'delete-section', 'aria-labelledby': 'delete-title' },
    el('h3', { id: 'delete-title' }, 'Delete account'),
    el('p', {}, 'Deleting your account:'),
    el('ul', {},
      el('li', {}, 'logs out every device of this account, this browser included, and erases what they stored;'),
      el('li', {}, 'deletes the messages waiting on the relay, for you and from you;'),
      el('li', {}, 'leaves your contacts what they already received;'),
      el('li', {}, 'blocks your username from being registered again for a while, so that nobody can pass for you while your contacts still know the name.')),
    form);
}

// receiptsSection is the read receipts setting of this device: on by
// default; off, this device neither sends read receipts nor shows those
// of others, as in Signal.
async function receiptsSection() {
  const box = el('input', { type: 'checkbox', id: 'read-receipts', 'aria-describedby': 'read-receipts-hint' });
  box.checked = await sync.readReceipts();
  box.addEventListener('change', () => sync.setReadReceipts(box.checked));
  return el('section', { class: 'card', id: 'privacy' },
    el('h3', {}, 'Read receipts'),
    el('p', { class: 'check' }, box, ' ', el('label', { for: 'read-receipts', class: 'inline' }, 'Send and show read receipts')),
    el('p', { id: 'read-receipts-hint', class: 'muted' }, 'When this is off, people you write to do not see when you read their messages, and you do not see when they read yours. Delivery ticks stay. This setting is kept on this device.'));
}

// notificationsSection is the Notifications switch of Settings (ADR 0056):
// it says what a notification shows and what the push service learns, and
// asks for the browser's permission only when it is switched on.
async function notificationsSection() {
  let st;
  try {
    st = await sync.notificationState();
  } catch (ex) {
    st = 'error';
  }
  const msg = el('p', { id: 'notify-msg', role: 'status' });
  const box = el('input', { type: 'checkbox', id: 'notify-switch', role: 'switch', 'aria-describedby': 'notify-about notify-msg' });
  box.checked = st === 'on';
  box.setAttribute('aria-checked', String(st === 'on'));
  box.disabled = st !== 'on' && st !== 'off';
  const says = {
    unsupported: 'This browser cannot show notifications for this app.',
    disabled: 'This relay does not send notifications.',
    denied: 'Notifications are blocked for this site. Allow them in the browser\'s site settings, then come back here.',
    error: 'Could not check the notification setting: the relay could not be reached. Open Settings again later.',
  };
  if (says[st]) msg.textContent = says[st];
  box.addEventListener('change', async () => {
    const on = box.checked;
    box.disabled = true;
    msg.textContent = on ? 'Turning notifications on…' : 'Turning notifications off…';
    try {
      if (on) await sync.enableNotifications();
      else await sync.disableNotifications();
      msg.textContent = on ? 'Notifications are on for this device.' : 'Notifications are off for this device.';
    } catch (ex) {
      box.checked = !on;
      msg.textContent = (on ? 'Could not turn notifications on: ' : 'Could not turn notifications off: ') + ex.message + (ex.code === 'network' ? ' Try again.' : '');
    }
    box.setAttribute('aria-checked', String(box.checked));
    box.disabled = false;
  });
  return el('div', { id: 'notifications' },
    el('h3', {}, 'Notifications'),
    el('p', { class: 'switch' }, box, ' ', el('label', { for: 'notify-switch' }, 'Notify me of new messages when the app is not on screen')),
    el('p', { id: 'notify-about', class: 'muted' },
      'A notification says only “New message”: never who wrote it or what. To deliver it, your browser’s push service learns that this device got something, and when; not the content, the sender or how many messages.'),
    msg);
}

// recoveryKeyCard shows a new recovery key once, with Copy and Download,
// and asks for its last group back before it goes away.
function recoveryKeyCard(text) {
  const groups = text.split('-');
  const msg = el('p', { id: 'recovery-msg', role: 'status' });
  const input = el('input', { id: 'recovery-confirm', autocomplete: 'off', spellcheck: 'false', maxlength: 9, 'aria-describedby': 'recovery-confirm-hint recovery-msg' });
  const card = el('div', { class: 'recovery-key', id: 'recovery-new' });
  const copy = el('button', {
    type: 'button', id: 'recovery-copy',
    onclick: async () => {
      try {
        await navigator.clipboard.writeText(text);
        msg.textContent = 'Copied. Paste it somewhere safe outside this browser.';
      } catch {
        msg.textContent = 'This browser did not allow copying: select the key and copy it, or download it.';
      }
    },
  }, 'Copy');
  const download = el('button', {
    type: 'button', id: 'recovery-download',
    onclick: () => {
      const url = URL.createObjectURL(new Blob([`relay recovery key for ${sync.me()}\n\n${text}\n`], { type: 'text/plain' }));
      const a = el('a', { href: url, download: `relay-recovery-key-${sync.me()}.txt` });
      document.body.append(a);
      a.click();
      a.remove();
      setTimeout(() => URL.revokeObjectURL(url), 0);
    },
  }, 'Download');
  const done = el('form', {
    onsubmit: (e) => {
      e.preventDefault();
      if (input.value.trim().toUpperCase() !== groups[7]) {
        msg.textContent = 'That is not group 8 of your key (the last group of four characters, before the single one at the end). Look at the key again and type those four characters.';
        input.focus();
        return;
      }
      offerRecovery = false;
      // Settings is drawn again to say the key is set; the confirmation
      // takes the focus the form had, so that it is read out and Tab
      // goes on from there.
      if (current && current.name === 'settings') return settingsScreen({ saved: true });
      card.replaceChildren(savedNote());
      card.firstChild.focus();
    },
  },
  el('label', { for: 'recovery-confirm' }, 'To check that you saved it, type group 8: the last group of four characters, before the single one at the end'), input,
  el('p', { id: 'recovery-confirm-hint', class: 'muted' }, 'The key is shown only now. It is not kept in this browser.'),
  el('p', {}, el('button', { type: 'submit', id: 'recovery-done', class: 'primary' }, 'I saved it')));
  card.append(
    el('p', {}, 'Your new recovery key. Write it down or download it, and keep it safe: anyone with it and your password can read your messages.'),
    el('p', { class: 'code recovery-text', id: 'recovery-key-text', 'aria-label': 'Recovery key' }, text),
    el('p', {}, copy, ' ', download), msg, done);
  return card;
}

// savedNote confirms that the new recovery key was saved.
function savedNote() {
  return el('p', { id: 'recovery-saved', role: 'status', tabindex: '-1' }, 'Recovery key saved. Keep it where you can find it without this browser.');
}

// offerRecovery: the account was just created here and has no recovery
// key; the chat list offers one until it is made or put off.
let offerRecovery = false;

// createKeyHash opens Settings and starts making a recovery key at once:
// the offer's button says it creates one.
const createKeyHash = '#/settings/create-recovery-key';

function recoveryOffer() {
  if (!offerRecovery) return null;
  const box = el('section', { class: 'card warning', id: 'recovery-offer', role: 'region', 'aria-label': 'Recovery key' },
    el('p', {}, 'Save a recovery key now. If you lose this browser and have no other device, it is the only way back into your account.'),
    el('p', {}, el('a', { href: createKeyHash, id: 'recovery-offer-go', class: 'button primary' }, 'Create a recovery key'), ' ',
      el('button', {
        type: 'button', id: 'recovery-later',
        onclick: () => {
          offerRecovery = false;
          box.replaceChildren(el('p', { id: 'recovery-reminder' }, 'No recovery key yet. You can create one any time in ', el('a', { href: '#/settings' }, 'Settings'), '.'));
        },
      }, 'Later')));
  return box;
}

// The account's devices come from devicewatch.js (through sync): the
// banner of waiting devices and the Devices screen follow its events.
let rotateNote = null; // what the last rotation did, shown on the Devices screen

function waitingDevices() {
  const mine = sync.currentDevice();
  return (sync.devices() || []).filter((d) => !d.linked && (!mine || d.id !== mine.id));
}

function renderDeviceBanner() {
  let banner = document.getElementById('device-banner');
  const waiting = sync.me() && sync.isLinked() && !revoked() ? waitingDevices() : [];
  if (!waiting.length) {
    if (banner) banner.remove();
    return;
  }
  if (!banner) {
    banner = el('div', { id: 'device-banner', class: 'notice', role: 'status' });
    purgeBox.after(banner);
  }
  const text = waiting.length === 1
    ? `A new device (${waiting[0].name}) is waiting for approval. Approve it only if you just logged in there.`
    : `${waiting.length} new devices are waiting for approval. Approve them only if you just logged in there.`;
  banner.replaceChildren(text, ' ', el('a', { href: '#/devices' }, 'Open Devices'));
}

// devicesChanged follows a poll of the account's devices: the banner, the
// open Devices screen (unless the person is renaming or rotating) and
// whether that screen's list may be old.
function devicesChanged(ev) {
  renderDevicesOffline(ev.offline);
  renderDeviceBanner();
  if (!ev.changed || !ev.list) return;
  if (current && current.name === 'devices' && !document.querySelector('#device-list .rename-form') && !document.querySelector('#rotate[open]')) devicesScreen(ev.list);
}

// renderDevicesOffline marks the Devices screen while the relay cannot
// be reached: the list shown is the last one known.
function renderDevicesOffline(offline) {
  const slot = document.getElementById('devices-stale');
  if (!slot) return;
  slot.hidden = !offline;
  slot.textContent = offline ? 'You are offline: this list is the last one known and may be out of date. It updates by itself when the connection is back.' : '';
}

function renameForm(d, msg, done) {
  const input = el('input', { class: 'rename-input', value: d.name, maxlength: 64, required: true, 'aria-label': 'New name for ' + d.name, autocomplete: 'off' });
  const form = el('form', {
    class: 'rename-form',
    onsubmit: async (e) => {
      e.preventDefault();
      const name = input.value.trim();
      if (!name || new TextEncoder().encode(name).length > 64) {
        msg.textContent = 'A device name has 1 to 64 characters. Type a shorter name.';
        return;
      }
      try {
        await sync.rename(d.id, name);
        done();
      } catch (ex) {
        msg.textContent = ex.code === 'bad_device_name' ? 'That name cannot be used: use 1 to 64 letters, digits or spaces.' : 'Could not rename the device: ' + ex.message;
      }
    },
    onkeydown: (e) => { if (e.key === 'Escape') done(); },
  }, input, el('button', { type: 'submit', class: 'primary save-name-btn' }, 'Save'), el('button', { type: 'button', onclick: done }, 'Cancel'));
  return { form, input };
}

async function devicesScreen(known) {
  const gen = ++renderGen;
  const list = el('ul', { class: 'plain', id: 'device-list', 'aria-label': 'Devices' });
  let devices = known;
  if (!devices) {
    try {
      devices = await api.devices();
    } catch (e) {
      // Offline, or the relay refused: say which, and try again by
      // itself while the screen is open.
      const text = e.code === 'network'
        ? 'You are offline: the relay cannot be reached, so your devices cannot be listed. This screen loads by itself when the connection is back.'
        : 'Could not load your devices: ' + e.message + ' This screen tries again by itself.';
      show(gen, el('section', { class: 'card' }, el('h2', {}, 'Devices'), el('p', { class: e.code === 'network' ? 'warning' : 'error', id: 'devices-offline', role: 'status' }, text)));
      setTimeout(() => {
        if (gen === renderGen && current && current.name === 'devices') devicesScreen();
      }, sync.DEVICE_POLL_MS);
      return;
    }
  }
  sync.knownDevices(devices);
  renderDeviceBanner();
  const mine = sync.currentDevice();
  for (const d of devices) {
    const self = d.id === mine.id;
    const code = self ? null : await sync.deviceCode(d.publicKey);
    const msg = el('span', { class: 'muted', role: 'status' });
    const actions = el('span', { class: 'actions' });
    const nameSlot = el('span', { class: 'device-name-slot' }, el('strong', { class: 'device-name' }, d.name));
    const marks = el('span', { class: 'marks' });
    if (self) marks.append(el('span', { class: 'badge self-badge' }, 'This device'));
    marks.append(d.linked
      ? el('span', { class: 'badge linked-badge' }, 'Linked')
      : el('span', { class: 'badge waiting-badge' }, 'Waiting for approval'));
    if (!self && !d.linked && sync.isLinked()) {
      actions.append(el('button', {
        type: 'button', class: 'approve-btn primary',
        onclick: async (e) => {
          e.target.disabled = true;
          try {
            await sync.approve(d);
            msg.textContent = 'Account key sent. The device continues by itself.';
          } catch (ex) {
            msg.textContent = 'Could not send the key: ' + ex.message + ' Press Approve again.';
            e.target.disabled = false;
          }
        },
      }, 'Approve'));
    }
    const renameBtn = el('button', {
      type: 'button', class: 'rename-btn', 'aria-label': 'Rename ' + d.name,
      onclick: () => {
        const { form, input } = renameForm(d, msg, () => devicesScreen());
        nameSlot.replaceChildren(form);
        renameBtn.hidden = true;
        input.focus();
        input.select();
      },
    }, 'Rename');
    actions.append(renameBtn);
    actions.append(el('button', {
      type: 'button', class: 'revoke-btn',
      onclick: async () => {
        if (self) return leave('remove', d.name);
        const ok = await ask({
          id: 'revoke-dialog', title: `Revoke ${d.name}?`,
          body: [el('p', {}, `${d.name} (added ${new Date(d.createdAt).toLocaleString()}) stops receiving messages and can no longer send. What it already shows stays on it. To use it again, it must log in and be approved or restored.`)],
          actions: [{ id: 'revoke-confirm', value: 'revoke', class: 'danger', label: `Revoke ${d.name}` }],
        });
        if (!ok) return;
        try {
          await sync.revoke(d.id);
          devicesScreen();
        } catch (ex) {
          msg.textContent = 'Could not revoke the device: ' + ex.message;
        }
      },
    }, self ? 'Remove this device' : 'Revoke'));
    list.append(el('li', { class: 'device', 'data-id': d.id, 'data-linked': d.linked ? 'true' : 'false' },
      el('span', { class: 'device-info' }, nameSlot, ' ', marks, el('br'),
        // This device needs no code to compare, and is in use now: the
        // relay's last seen is when its stream last checked in.
        ...(self ? [] : [el('span', { class: 'muted' }, 'Code: '), el('span', { class: 'device-code' }, code), el('br')]),
        el('span', { class: 'muted' }, 'Added ', new Date(d.createdAt).toLocaleString(), self ? ' · in use now, in this browser' : d.lastSeenAt ? ' · last seen ' + new Date(d.lastSeenAt).toLocaleString() : '')),
      actions, msg));
  }
  show(gen, el('section', { class: 'card' }, el('h2', {}, 'Devices'),
    el('p', { class: 'warning', id: 'devices-stale', role: 'status', hidden: true }),
    el('p', { class: 'muted' }, 'Approve a new device only if it shows exactly the same code as here. Approving sends it your account key. This list updates by itself.'),
    list), sync.isLinked() ? rotateSection(devices.filter((d) => d.id !== mine.id)) : null);
}

function rotateNoteText({ dropped, sentTo }) {
  const devices = (n) => n + (n === 1 ? ' device' : ' devices');
  return [`New account key made${dropped ? ', ' + devices(dropped) + ' removed' : ''}. It is being sent to your ${sentTo} other ${sentTo === 1 ? 'device' : 'devices'}. Your old recovery key no longer works: `,
    el('a', { href: '#/settings', id: 'rotate-settings' }, 'create a new recovery key'), '.'];
}

// rotateSection replaces the account key on purpose, after a device was
// lost: the person picks the devices to drop and gives the password again.
function rotateSection(others) {
  const done = el('p', { id: 'rotate-done', role: 'status' }, ...(rotateNote ? rotateNoteText(rotateNote) : []));
  const boxes = others.map((d) => {
    const id = 'drop-' + d.id;
    const box = el('input', { type: 'checkbox', id, class: 'drop-box', value: d.id });
    return { d, box, row: el('li', {}, box, el('label', { for: id }, el('strong', {}, d.name), d.linked ? '' : ' (waiting for approval)', ' · code ', el('span', { class: 'drop-code', 'data-id': d.id }))) };
  });
  for (const b of boxes) sync.deviceCode(b.d.publicKey).then((code) => { b.row.querySelector('.drop-code').textContent = code; });
  const chosen = () => boxes.filter((b) => b.box.checked);
  const form = passwordForm({
    ids: { password: 'rotate-password', error: 'rotate-error', button: 'rotate-btn' },
    button: 'Make a new account key…',
    need: 'make a new account key',
    before: [el('p', {}, 'If a device was lost or stolen, make a new account key and remove that device. Tick the devices to remove:'),
      boxes.length ? el('ul', { class: 'plain', id: 'drop-list' }, ...boxes.map((b) => b.row)) : el('p', { class: 'muted' }, 'This is your only device.')],
    onSubmit: () => {
      done.textContent = '';
      rotateNote = null;
    },
    confirm: () => confirmDialog('Make a new account key?',
      (chosen().length ? `These devices are removed: ${chosen().map((b) => b.d.name).join(', ')}. ` : 'No device is removed. ') +
      'Your other devices get the new key by themselves and keep their history. Your contacts see a warning that your key changed, and your recovery key stops working: create a new one afterwards.',
      'Make a new key'),
    busy: 'Making a new account key…',
    act: (password) => {
      const drop = chosen().map((b) => b.d.id);
      return sync.rotateAccountKey(password, drop).then((sentTo) => ({ dropped: drop.length, sentTo }));
    },
    done: (note) => {
      rotateNote = note;
      devicesScreen();
    },
    failed: 'The key could not be replaced',
    extra: { unknown_device: 'One of the devices chosen was removed meanwhile. Nothing was changed: choose again.' },
  });
  return el('section', { class: 'card' }, done,
    el('details', { id: 'rotate' }, el('summary', { id: 'rotate-open' }, 'Lost a device? Make a new account key'), form));
}


// ---- routing ----

// markScreen tells the page's layout (body[data-screen]) and the main
// navigation (aria-current) which screen is shown.
function markScreen(name) {
  document.body.dataset.screen = name;
  const at = { chats: 'nav-chats', chat: 'nav-chats', devices: 'nav-devices', settings: 'nav-settings' }[name];
  for (const a of nav.querySelectorAll('a')) {
    if (a.id === at) a.setAttribute('aria-current', 'page');
    else a.removeAttribute('aria-current');
  }
}

async function route() {
  if (!sync.me()) {
    markScreen('auth');
    return authScreen();
  }
  // Waiting to be linked, every screen is the waiting one: links to
  // them would lead back to it.
  nav.hidden = !sync.isLinked();
  meBox.hidden = false;
  const who = document.getElementById('whoami');
  who.textContent = sync.me();
  who.title = sync.me();
  if (!sync.isLinked()) {
    markScreen('waiting');
    return waitingScreen();
  }
  if (shownWaiting) {
    shownWaiting = false;
    linkedNotice = linkedNotice || { how: 'approved' };
  }
  const h = location.hash || '#/chats';
  const m = h.match(/^#\/chat\/([a-z0-9_]{3,32})$/);
  // Leaving a chat: what it shows now was seen, measured before the next
  // screen changes the page.
  if (chatDom && (!m || m[1] !== chatDom.username)) chatDom.seen.flush();
  if (m) {
    const opening = !current || current.name !== 'chat' || current.arg !== m[1];
    current = { name: 'chat', arg: m[1] };
    markScreen('chat');
    openChatName = m[1];
    if (opening) {
      chatStop = null; // the list's Tab stop goes to the chat opened
      await chatScreen(m[1], true);
      const res = await sync.openChat(m[1]);
      if (!res.error || current.name !== 'chat' || current.arg !== m[1]) return;
      const slot = document.getElementById('chat-error');
      // The history stays; the composer says why it is off.
      if (res.error.code === 'account_deleted' && slot) return renderComposer();
      if (res.error.code === 'unknown_account' || !slot) show(++renderGen, el('p', { class: 'error', role: 'alert' }, res.error.code === 'unknown_account' ? `There is no account named ${m[1]}.` : res.error.message));
      // The history stays readable; what waits for the key opens by itself.
      else slot.textContent = `Could not fetch ${m[1]}'s key: ${res.error.message} Messages waiting for it will appear by themselves.`;
      return;
    }
    return chatScreen(m[1], false);
  }
  openChatName = null;
  if (h === '#/devices') {
    current = { name: 'devices' };
    markScreen('devices');
    return devicesScreen();
  }
  if (h === '#/settings' || h === createKeyHash) {
    current = { name: 'settings' };
    markScreen('settings');
    // The address goes back to Settings' own, so that a reload or Back
    // never makes a second key, which would replace the first.
    if (h === createKeyHash) history.replaceState(null, '', '#/settings');
    return settingsScreen({ create: h === createKeyHash });
  }
  current = { name: 'chats' };
  markScreen('chats');
  return chatsScreen();
}

function startSession() {
  current = null;
  sync.start();
  sync.watchDevices();
  route();
  renderBar();
  renderPurge();
}

// loggedOut clears the screens: a logout in this tab or in another tab of
// the profile, or the account's deletion (why 'deleted'), here or on
// another device. Nothing decrypted stays on the page.
function loggedOut(why) {
  nav.hidden = true;
  meBox.hidden = true;
  offerRecovery = false;
  sync.unwatchDevices();
  shownWaiting = false;
  linkedNotice = false;
  resetNotice = false;
  rotateNote = null;
  current = null;
  openChatName = null;
  if (chatDom) chatDom.seen.stop();
  chatDom = null;
  listDom = null;
  chatStop = null;
  document.title = 'relay';
  markScreen('auth');
  renderBar();
  renderPurge();
  authScreen(loggedOutTexts[why] || '');
}

// loggedOutTexts say why a tab shows the login: the account was deleted,
// or another tab of this browser logged out ('elsewhere'). A logout
// made in this tab needs no reason.
const loggedOutTexts = {
  deleted: "This account was deleted: every device was logged out, and this browser's copy of it was erased.",
  elsewhere: "This browser was logged out in another tab: its history and keys here were deleted. Log in again to use your account.",
};

sync.subscribe(async (ev) => {
  if (ev.type === 'devices') devicesChanged(ev);
  if (ev.type === 'conn') renderBar();
  if (ev.type === 'purge') renderPurge();
  if (ev.type === 'account') {
    // A logout is this tab's own while it is leaving; any other came
    // from another tab.
    loggedOut(ev.why === 'logout' && !leaving ? 'elsewhere' : ev.why);
    return;
  }
  if ((ev.type === 'conn' && ev.state === 'revoked') || ev.type === 'revoked') {
    // The Retry buttons go, the composer says why it is off; the
    // notices of a linked device go.
    if (current && current.name === 'chat') chatScreen(current.arg, false);
    else if (current && current.name === 'chats') chatsScreen();
  }
  // The open chat of a contact who deleted their account: composer off,
  // no verified mark, no Retry.
  if (ev.type === 'contact-deleted' && current && current.name === 'chat' && current.arg === ev.chat) chatScreen(ev.chat, false);
  if (ev.type === 'linked') {
    await sync.load();
    // Restored with the recovery key: whether another device holds the
    // older history is asked, not assumed.
    if (shownWaiting && ev.how === 'restored') linkedNotice = { how: 'restored', others: await otherLinked() };
    route();
    sync.watchDevices();
  }
  if (ev.type === 'changed') {
    if (!current) return;
    if (current.name === 'chat') {
      // The list beside the chat follows the other chats' changes too.
      chatScreen(current.arg, false);
    } else if (current.name === 'chats') {
      chatsScreen();
    } else {
      store.getChats().then(renderTitle);
    }
  }
});

// A tab that becomes visible reads what its open chat shows.
document.addEventListener('visibilitychange', () => {
  if (document.visibilityState === 'visible' && chatDom) chatDom.seen.flush();
});

// booted: this profile's account (or that it has none) was read from
// IndexedDB. Until then a change of the hash does not route: the first
// route reads the hash as it is then, so the first screen is drawn once.
let booted = false;

window.addEventListener('hashchange', () => {
  if (booted) route();
});
document.getElementById('logout').addEventListener('click', () => leave('logout'));

(async () => {
  // The app shell is cached for offline use (ADR 0065). The app starts on
  // what IndexedDB holds, with or without the relay: the stream says
  // whether it can be reached, and a 401 means logged out.
  sync.installShell();
  const has = await sync.load();
  booted = true;
  if (has) startSession();
  else {
    markScreen('auth');
    authScreen();
  }
})();
