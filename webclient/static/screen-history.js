// screen-history.js: Settings › History backup: writing the history to a
// file under the recovery key, and importing such a file (history.js).
// Each step says how far it is; each error says what went wrong, that
// nothing changed, and what to do.

import * as sync from './sync.js';
import { el } from './dom.js';

/** @param {any} ex */
function backupError(ex) {
  switch (ex && ex.code) {
    case 'not_recovery_key': return `${ex.message}. Check the key and type it again.`;
    case 'wrong_recovery_key': return 'This recovery key does not fit this account. Type the key you saved last: a newer key replaces the older ones.';
    case 'key_mismatch': return 'This recovery key opens an older account key, not the one this account has now. Type the key you saved last.';
    case 'no_recovery': return 'This account has no recovery key: create one above first.';
    case 'network': return 'The relay cannot be reached, so the recovery key cannot be checked. Try again when the connection is back.';
    case 'not_backup': return 'This file is not a relay backup. Choose the file whose name ends in .relaybackup.';
    case 'wrong_backup_key': return 'This backup does not open with this recovery key: it was made for another account, or with a recovery key you replaced since. Try the key you had when you made it.';
    case 'damaged_backup': return 'This backup is damaged (cut short or changed since it was written), so it cannot be read.';
    case 'other_account': return `This backup is of the account ${ex.message.replace(/^other_account: /, '')}, not of ${sync.me()}.`;
    case 'no_key': return 'Type your recovery key to open the backup.';
    default: return `Something went wrong: ${ex && ex.message ? ex.message : ex}.`;
  }
}

/** @param {number} done @param {number} total */
function percent(done, total) {
  return `${Math.floor((done * 100) / Math.max(1, total))} %`;
}

/**
 * historySection is the card of backups; hasKey: the account has a
 * recovery key, which a backup needs.
 * @param {boolean} hasKey
 */
export function historySection(hasKey) {
  const status = el('p', { id: 'backup-status', role: 'status' });
  const keyInput = /** @type {HTMLInputElement} */ (el('input', { id: 'backup-key', autocomplete: 'off', spellcheck: 'false', autocapitalize: 'characters', 'aria-describedby': 'backup-key-hint backup-status' }));
  const go = /** @type {HTMLButtonElement} */ (el('button', { type: 'submit', id: 'backup-go', class: 'primary' }, 'Back up history'));
  const save = el('p', { id: 'backup-save-line', hidden: true });
  const form = el('form', {
    id: 'backup-form',
    onsubmit: async (/** @type {Event} */ e) => {
      e.preventDefault();
      go.disabled = true;
      save.hidden = true;
      status.textContent = 'Checking the recovery key…';
      try {
        const r = await sync.makeBackup(keyInput.value, (done, total) => { status.textContent = `Reading the history… ${percent(done, total)}`; });
        keyInput.value = '';
        const old = save.querySelector('a');
        if (old) URL.revokeObjectURL(/** @type {HTMLAnchorElement} */ (old).href);
        const url = URL.createObjectURL(r.file);
        const a = el('a', { href: url, download: r.name, id: 'backup-save', class: 'button' }, 'Save the backup again');
        save.replaceChildren(a);
        save.hidden = false;
        status.textContent = `Backup written: ${r.messages} ${r.messages === 1 ? 'message' : 'messages'} and ${r.files} ${r.files === 1 ? 'file' : 'files'}, in ${r.name} (${(r.file.size / 1048576).toFixed(1)} MiB). Keep it somewhere outside this browser.`;
        /** @type {HTMLElement} */ (a).click();
      } catch (ex) {
        status.textContent = 'No backup was written. ' + backupError(ex);
        keyInput.focus();
      }
      go.disabled = false;
    },
  },
  el('label', { for: 'backup-key' }, 'Your recovery key'), keyInput,
  el('p', { id: 'backup-key-hint', class: 'muted' }, 'The backup is locked with it: only this key opens the file. The key is checked with the relay and not kept.'),
  el('p', {}, go));
  form.hidden = !hasKey;
  return el('section', { class: 'card', id: 'history', 'aria-labelledby': 'history-title' },
    el('h3', { id: 'history-title' }, 'History backup'),
    el('p', { class: 'muted' }, 'A backup is a file of the messages on this device, with the photos and files it keeps, encrypted in this browser under your recovery key. The relay never sees it. With it, a new browser where you restore your account gets the history back.'),
    hasKey ? null : el('p', { id: 'backup-needs-key', class: 'warning' }, 'A backup is locked with your recovery key: create a recovery key above first.'),
    form, status, save, importPart());
}

/** @param {HTMLInputElement} input */
function typedKey(input) {
  return el('div', {}, el('label', { for: 'import-key' }, 'The recovery key it was made with'), input);
}

// importPart reads a backup file into this device: with the recovery key
// typed, or the one this page restored the account with.
function importPart() {
  const restored = sync.hasRestoredKey();
  const status = el('p', { id: 'import-status', role: 'status' });
  const file = /** @type {HTMLInputElement} */ (el('input', { type: 'file', id: 'import-file', accept: '.relaybackup,application/octet-stream' }));
  const keyInput = /** @type {HTMLInputElement} */ (el('input', { id: 'import-key', autocomplete: 'off', spellcheck: 'false', autocapitalize: 'characters' }));
  const go = /** @type {HTMLButtonElement} */ (el('button', { type: 'submit', id: 'import-go' }, 'Import'));
  const keyPart = restored ? el('p', { id: 'import-restored', class: 'muted' }, 'The recovery key you restored this browser with opens it.') : typedKey(keyInput);
  const form = el('form', {
    id: 'import-form',
    onsubmit: async (/** @type {Event} */ e) => {
      e.preventDefault();
      const f = file.files && file.files[0];
      if (!f) {
        status.textContent = 'Choose a backup file first.';
        file.focus();
        return;
      }
      go.disabled = true;
      status.textContent = 'Opening the backup…';
      try {
        const useRestored = restored && sync.hasRestoredKey();
        const r = await sync.importBackup(f, useRestored ? null : keyInput.value, (done, total) => { status.textContent = `Opening the backup… ${percent(done, total)}`; });
        keyInput.value = '';
        // The key of the restore is forgotten once used: a next import
        // asks for one.
        if (useRestored && keyPart.isConnected) keyPart.replaceWith(typedKey(keyInput));
        status.textContent = r.messages ? `Imported ${r.messages} ${r.messages === 1 ? 'message' : 'messages'} into ${r.chats} ${r.chats === 1 ? 'chat' : 'chats'} from the backup of ${new Date(r.made).toLocaleString()}.`
          : `Nothing to add: every message of the backup of ${new Date(r.made).toLocaleString()} is on this device already.`;
      } catch (ex) {
        status.textContent = 'Nothing was imported, and nothing on this device changed. ' + backupError(ex);
      }
      go.disabled = false;
    },
  },
  el('h4', {}, 'Import a backup'),
  el('p', { class: 'muted' }, 'Adds the messages of a backup file that this device does not have; what is here stays as it is.'),
  el('label', { for: 'import-file' }, 'Backup file'), file, keyPart, el('p', {}, go));
  return el('div', { id: 'import-part' }, form, status);
}
