// screen-settings.js: Settings: notifications, the recovery key, the
// history backup (screen-history.js), read receipts and the deletion of
// the account.

import * as sync from './sync.js';
import { el, ask } from './dom.js';
import { passwordForm } from './passwordform.js';
import { ui, show } from './ui.js';
import { historySection } from './screen-history.js';
import { lockSection } from './screen-lock.js';

// settingsScreen shows whether the account has a recovery key, and makes
// a new one. saved: a recovery key was just saved, which it confirms;
// create: make one at once, if none is set.
export async function settingsScreen({ saved = false, create: createNow = false } = {}) {
  const gen = ++ui.gen;
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
  if (gen !== ui.gen) return;
  show(gen, el('section', { class: 'card', id: 'settings' },
    el('h2', {}, 'Settings'),
    notifications,
    el('h3', {}, 'Recovery key'),
    el('p', { class: 'muted' }, 'The recovery key lets you use this account in a new browser when no other device is left. The relay keeps your account key locked under it and never sees the key itself.'),
    statusText,
    status.set ? el('p', { class: 'muted' }, 'A new key replaces the old one: the old key stops working at once.') : null,
    el('p', {}, create), slot), historySection(!!status.set), lockSection(), await receiptsSection(), deleteSection());
  // The offer after a restore leads to Import a backup.
  if (ui.focusImport) {
    ui.focusImport = false;
    const f = document.getElementById('import-file');
    if (f) f.focus();
  }
  if (saved && !status.error) {
    slot.replaceChildren(savedNote());
    slot.firstChild.focus();
  }
  if (createNow && !status.error && !status.set && gen === ui.gen) create.click();
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
      ui.offerRecovery = false;
      // Settings is drawn again to say the key is set; the confirmation
      // takes the focus the form had, so that it is read out and Tab
      // goes on from there.
      if (ui.current && ui.current.name === 'settings') return settingsScreen({ saved: true });
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
