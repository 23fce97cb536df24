// ui.js: what the screens share (docs/storage.md, "Modules"). The state
// they all read is one object, ui; the router (app.js) is reached by
// events, never by a call, so that no screen imports another screen's
// caller and the modules form no loop.

import * as sync from './sync.js';
import { isGroup } from './groupmeta.js';

export const view = /** @type {HTMLElement} */ (document.getElementById('view'));

/**
 * The state of the screens, one object for all of them.
 * @type {{
 *   current: null | {name: string, arg?: string},
 *   gen: number,
 *   openChat: string | null,
 *   dividerAt: string | null,
 *   chat: any,
 *   split: any,
 *   chatStop: string | null,
 *   focusNewChat: boolean,
 *   shownWaiting: boolean,
 *   linkedNotice: false | {how: string, others?: boolean},
 *   resetNotice: boolean,
 *   offerRecovery: boolean,
 *   rotateNote: null | {dropped: number, sentTo: number},
 *   leaving: null | Promise<void>,
 *   titles: Map<string, string>,
 *   openAt: null | {chat: string, id: string},
 *   focusImport: boolean,
 * }}
 */
export const ui = {
  // current: the screen shown, {name, arg}, set by the router.
  current: null,
  // gen: screens render asynchronously (they read IndexedDB); the render
  // that started last wins, so an older read never overwrites a newer.
  gen: 0,
  // openChat: the username of the chat open, listed while it is open.
  openChat: null,
  // dividerAt: the first unread message's id when the chat opened.
  dividerAt: null,
  // chat: the open chat's live parts (screen-chat.js), so that updates
  // change the rows in place and keep what is being typed.
  chat: null,
  // split: the chat list and chat panes while they are on screen
  // (screen-chats.js), so that what is typed in New chat survives.
  split: null,
  // chatStop: the username of the chat list's row that takes the Tab stop.
  chatStop: null,
  // focusNewChat: just registered, the focus goes to New chat.
  focusNewChat: false,
  // shownWaiting: this page showed the waiting screen; once the device is
  // linked, the chat list says so once.
  shownWaiting: false,
  // linkedNotice: {how: 'approved'|'restored', others} once linked here.
  linkedNotice: false,
  // resetNotice: this device just reset the account key.
  resetNotice: false,
  // offerRecovery: the account was just created here and has no recovery
  // key; the chat list offers one until it is made or put off.
  offerRecovery: false,
  // rotateNote: what the last rotation did, shown on the Devices screen.
  rotateNote: null,
  // leaving: a logout (or this device's removal) under way.
  leaving: null,
  // titles: the names of the group chats, by chat id, as the list read
  // them last.
  titles: new Map(),
  // openAt: a message found by search, for its chat to open at.
  openAt: null,
  // focusImport: Settings opens with the focus on Import a backup (the
  // offer after a restore with the recovery key).
  focusImport: false,
};

// show draws a screen's nodes, unless a newer render started since gen.
export function show(gen, ...nodes) {
  if (gen !== ui.gen) return false;
  view.replaceChildren(...nodes);
  return true;
}

// request tells the router to draw the screen of the address again
// ('route') or to start the session just opened ('session'). Screens
// reach it this way only: the router imports them, not they it.
export function request(what) {
  document.dispatchEvent(new CustomEvent('relay-screen', { detail: what }));
}

// revoked: the relay said this device is no longer of the account, on the
// stream or by refusing its X-Device. Nothing can be sent from it.
export function revoked() {
  return sync.connection() === 'revoked' || sync.isRevoked();
}

// retryable: a Retry of a message to chat could work. Not from a revoked
// device, nor to a contact whose account was deleted.
export function retryable(chat) {
  // Nor in a group chat this account is no longer in.
  if (ui.chat && ui.chat.username === chat && ui.chat.removed) return false;
  return !revoked() && !sync.isDeleted(chat);
}

export function chatName(username) {
  if (isGroup(username)) return ui.titles.get(username) || 'Group';
  return username === sync.me() ? 'Notes to self' : username;
}

export const plural = new Intl.PluralRules('en');

// createKeyHash opens Settings and starts making a recovery key at once:
// the offer's button says it creates one.
export const createKeyHash = '#/settings/create-recovery-key';
