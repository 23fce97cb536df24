// app.js: the router of the web client, its boot, and the subscription to
// sync.js's events; the connection bar and the purge notice above every
// screen. Each screen is a module of its own (screen-*.js) sharing one
// state object (ui.js); a screen reaches the router only by the address
// or by an event (ui.request), so the router imports the screens and no
// screen imports the router. Screens read IndexedDB through store.js and
// change state only through sync.js (docs/storage.md). Every text a
// person sees is set with textContent: nothing received is ever parsed as
// HTML.

import * as store from './store.js';
import * as sync from './sync.js';
import { el } from './dom.js';
import { ui, show, createKeyHash } from './ui.js';
import { authScreen, waitingScreen, otherLinked } from './screen-auth.js';
import { chatsScreen, renderTitle } from './screen-chats.js';
import { chatScreen } from './screen-chat.js';
import { newGroupScreen } from './screen-group.js';
import { isGroup } from './groupmeta.js';
import { renderComposer } from './screen-composer.js';
import { devicesScreen, devicesChanged } from './screen-devices.js';
import { settingsScreen } from './screen-settings.js';
import { leave } from './screen-leave.js';
import * as search from './search.js';
import { renderHistoryBanner } from './screen-transfer.js';
import { lockScreen, watchLock } from './screen-lock.js';

const nav = document.getElementById('nav');
const meBox = document.getElementById('me-box');
const bar = document.getElementById('conn-bar');
const purgeBox = document.getElementById('purge-notice');

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

// ---- routing ----

// markScreen tells the page's layout (body[data-screen]) and the main
// navigation (aria-current) which screen is shown.
function markScreen(name) {
  document.body.dataset.screen = name;
  const at = { chats: 'nav-chats', chat: 'nav-chats', 'new-group': 'nav-chats', devices: 'nav-devices', settings: 'nav-settings' }[name];
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
  if (ui.shownWaiting) {
    ui.shownWaiting = false;
    ui.linkedNotice = ui.linkedNotice || { how: 'approved' };
  }
  const h = location.hash || '#/chats';
  // A chat is a username's, or a group chat's ('g:' and its group's id).
  const m = h.match(/^#\/chat\/([a-z0-9_]{3,32}|g:[0-9a-f]{64})$/);
  // Leaving a chat: what it shows now was seen, measured before the next
  // screen changes the page.
  if (ui.chat && (!m || m[1] !== ui.chat.username)) ui.chat.seen.flush();
  if (m) {
    const opening = !ui.current || ui.current.name !== 'chat' || ui.current.arg !== m[1];
    ui.current = { name: 'chat', arg: m[1] };
    markScreen('chat');
    ui.openChat = m[1];
    if (opening) {
      ui.chatStop = null; // the list's Tab stop goes to the chat opened
      await chatScreen(m[1], true);
      if (isGroup(m[1])) return; // no one key to fetch: each member's is the info panel's
      const res = await sync.openChat(m[1]);
      if (!res.error || ui.current.name !== 'chat' || ui.current.arg !== m[1]) return;
      const slot = document.getElementById('chat-error');
      // The history stays; the composer says why it is off.
      if (res.error.code === 'account_deleted' && slot) return renderComposer();
      if (res.error.code === 'unknown_account' || !slot) show(++ui.gen, el('p', { class: 'error', role: 'alert' }, res.error.code === 'unknown_account' ? `There is no account named ${m[1]}.` : res.error.message));
      // The history stays readable; what waits for the key opens by itself.
      else slot.textContent = `Could not fetch ${m[1]}'s key: ${res.error.message} Messages waiting for it will appear by themselves.`;
      return;
    }
    return chatScreen(m[1], false);
  }
  ui.openChat = null;
  if (h === '#/new-group') {
    ui.current = { name: 'new-group' };
    markScreen('new-group');
    return newGroupScreen();
  }
  if (h === '#/devices') {
    ui.current = { name: 'devices' };
    markScreen('devices');
    return devicesScreen();
  }
  if (h === '#/settings' || h === createKeyHash) {
    ui.current = { name: 'settings' };
    markScreen('settings');
    // The address goes back to Settings' own, so that a reload or Back
    // never makes a second key, which would replace the first.
    if (h === createKeyHash) history.replaceState(null, '', '#/settings');
    return settingsScreen({ create: h === createKeyHash });
  }
  ui.current = { name: 'chats' };
  markScreen('chats');
  return chatsScreen();
}

function startSession() {
  ui.current = null;
  sync.start();
  sync.watchDevices();
  route();
  renderBar();
  renderPurge();
  renderHistoryBanner();
}

// loggedOut clears the screens: a logout in this tab or in another tab of
// the profile, or the account's deletion (why 'deleted'), here or on
// another device. Nothing decrypted stays on the page.
function loggedOut(why) {
  nav.hidden = true;
  meBox.hidden = true;
  // The live region may still hold the last message read out.
  const announced = document.getElementById('announce');
  if (announced) announced.textContent = '';
  ui.offerRecovery = false;
  sync.unwatchDevices();
  ui.shownWaiting = false;
  ui.linkedNotice = false;
  ui.resetNotice = false;
  ui.rotateNote = null;
  ui.current = null;
  ui.openChat = null;
  if (ui.chat) ui.chat.seen.stop();
  ui.chat = null;
  ui.split = null;
  ui.chatStop = null;
  document.title = 'relay';
  markScreen('auth');
  renderBar();
  renderPurge();
  renderHistoryBanner();
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
  // The search index reads the chats that changed again (search.js);
  // a logout leaves nothing of it in memory.
  if (ev.type === 'changed') search.changed(ev.chats);
  if (ev.type === 'account') search.reset();
  if (ev.type === 'devices') devicesChanged(ev);
  if (ev.type === 'history' || ev.type === 'devices' || ev.type === 'linked') renderHistoryBanner();
  if (ev.type === 'conn') renderBar();
  if (ev.type === 'purge') renderPurge();
  if (ev.type === 'account') {
    // A logout is this tab's own while it is leaving; any other came
    // from another tab.
    loggedOut(ev.why === 'logout' && !ui.leaving ? 'elsewhere' : ev.why);
    return;
  }
  if ((ev.type === 'conn' && ev.state === 'revoked') || ev.type === 'revoked') {
    // The Retry buttons go, the composer says why it is off; the
    // notices of a linked device go.
    if (ui.current && ui.current.name === 'chat') chatScreen(ui.current.arg, false);
    else if (ui.current && ui.current.name === 'chats') chatsScreen();
  }
  // The open chat of a contact who deleted their account: composer off,
  // no verified mark, no Retry.
  if (ev.type === 'contact-deleted' && ui.current && ui.current.name === 'chat' && ui.current.arg === ev.chat) chatScreen(ev.chat, false);
  // The open chat's first key: the info panel gets its code and the
  // Mark as verified button.
  if (ev.type === 'key' && ui.current && ui.current.name === 'chat' && ui.current.arg === ev.chat) chatScreen(ev.chat, false);
  if (ev.type === 'linked') {
    await sync.load();
    // Restored with the recovery key: whether another device holds the
    // older history is asked, not assumed.
    if (ui.shownWaiting && ev.how === 'restored') ui.linkedNotice = { how: 'restored', others: await otherLinked() };
    route();
    sync.watchDevices();
  }
  if (ev.type === 'changed') {
    if (!ui.current) return;
    if (ui.current.name === 'chat') {
      // The list beside the chat follows the other chats' changes too.
      chatScreen(ui.current.arg, false);
    } else if (ui.current.name === 'chats') {
      chatsScreen();
    } else if (ui.current.name === 'new-group') {
      // The list beside the form (which stays as it is) follows too.
      newGroupScreen();
    } else {
      store.getChats().then(renderTitle);
    }
  }
});

// A tab that becomes visible reads what its open chat shows.
document.addEventListener('visibilitychange', () => {
  if (document.visibilityState === 'visible' && ui.chat) ui.chat.seen.flush();
});

// booted: this profile's account (or that it has none) was read from
// IndexedDB. Until then a change of the hash does not route: the first
// route reads the hash as it is then, so the first screen is drawn once.
let booted = false;

window.addEventListener('hashchange', () => {
  if (booted) route();
});

// What a screen asks of the router (ui.request): the screen of the
// address again, or the session a login or registration just opened.
document.addEventListener('relay-screen', (e) => {
  const what = /** @type {CustomEvent} */ (e).detail;
  if (what === 'session') startSession();
  else if (what === 'route') route();
});
document.getElementById('logout').addEventListener('click', () => leave('logout'));

(async () => {
  // The app shell is cached for offline use (ADR 0065). The app starts on
  // what IndexedDB holds, with or without the relay: the stream says
  // whether it can be reached, and a 401 means logged out.
  sync.installShell();
  // With the app lock on, nothing is read before the passphrase, unless
  // another tab of the profile is unlocked and gives this one the key.
  const lock = await store.lockStatus();
  if (lock.state === 'locked' && !(await store.askOtherTabs())) {
    // What arrives meanwhile is kept and ACKed by the stream owner.
    sync.whileLocked();
    await lockScreen();
  } else if (lock.state === 'unlocked' && lock.converting) await store.resumeConversion();
  watchLock();
  const has = await sync.load();
  booted = true;
  if (has) startSession();
  else {
    markScreen('auth');
    authScreen();
  }
})();
