// screen-leave.js: logging out, or removing this device, after a dialog
// that says what is lost here, and whether this is the last device.

import * as sync from './sync.js';
import { el, ask } from './dom.js';
import { ui, createKeyHash } from './ui.js';

// lastKeyWarning asks whether this device is the last that holds the
// account key and, if so, returns the warning to show: that the history
// here is on no other device, and whether the account itself survives,
// which depends on a recovery key ({node, keySet}: keySet when the
// account has one). When the relay cannot be asked, it warns: losing the
// account is worse than a warning too many.
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
  return { node: el('p', { class: 'warning', id: 'last-device-warning', role: 'alert' }, lost + left), keySet: !!(rec && rec.set) };
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
// (a logout, or removing this device, named name) and resolves to
// 'leave', 'recovery' (go to Settings first) or null. Making a recovery
// key first is offered only to an account that has none: a new one would
// replace the key saved.
async function confirmLeave(kind, name) {
  const warning = await lastKeyWarning();
  const body = [el('p', { id: 'leave-text' }, leaveText(kind, !!warning))];
  const actions = [];
  if (warning) {
    body.push(warning.node);
    if (!warning.keySet) actions.push({ id: 'leave-recovery', value: 'recovery', label: 'Create a recovery key first' });
  }
  actions.push({ id: 'leave-confirm', value: 'leave', class: 'danger',
    label: warning ? (kind === 'logout' ? 'Log out without a device left' : 'Remove my last device') : (kind === 'logout' ? (sync.isLinked() ? "Log out and delete this browser's history" : 'Log out') : 'Remove this device') });
  return ask({ id: 'leave-dialog', title: kind === 'logout' ? 'Log out of this browser?' : `Remove ${name}, this device?`, body, actions });
}

// leave logs out after confirmLeave: the device is revoked, the session
// ended and this browser's storage deleted (sync.logout). The dialog opens
// only once the relay has said whether this is the last device: a second
// press meanwhile joins the first (ui.leaving) instead of opening a
// second dialog.

export function leave(kind, name) {
  if (!ui.leaving) ui.leaving = leaveOnce(kind, name).finally(() => { ui.leaving = null; });
  return ui.leaving;
}

async function leaveOnce(kind, name) {
  const choice = await confirmLeave(kind, name);
  // Its button says it creates a key: Settings starts making one.
  if (choice === 'recovery') location.hash = createKeyHash;
  if (choice !== 'leave') return;
  // The logout's account event clears the screens (app.js).
  await sync.logout();
}
