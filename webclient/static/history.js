// history.js: this device's history as an archive (docs/storage.md,
// "History archives"; the format is archive.js's): made from what the
// store holds, written to a backup file under a key derived from the
// recovery key, and a backup read back into the store.

import * as store from './store.js';
import * as account from './account.js';
import * as c from './crypto.js';
import { notify } from './election.js';
import { writeArchive, readArchive, sealBackup, openBackup, BackupError } from './archive.js';

// What a row holds of this device only: a chat's counts and notices, a
// message's sealed body, tries and errors. They stay out of an archive.
const DEVICE_CHAT = ['unread', 'mentions', 'late', 'readAhead', 'rejoined', 'refused', 'behind'];
const DEVICE_MSG = ['body', 'bodyFor', 'tries', 'error', 'queuedBehind'];
const PIECE = 5000;

/**
 * archived reports whether a stored row goes into an archive: a message
 * received or sent, shown in its chat (deleted for everyone included, as
 * the line that says so), not one waiting in the outbox, hidden on this
 * device, or not decrypted, nor one that disappears: it is to last only
 * its set time on the devices it reached (docs/storage.md).
 * @param {any} m
 */
export function archived(m) {
  return !m.kind && !m.hidden && !m.expires && !m.waiting && !m.undecryptable && !m.downgrade && (m.dir === 'in' || m.status === 'sent');
}

/**
 * archiveLines reads the history into the lines of an archive: every
 * chat, the messages from since on, and the bytes of their files held
 * here. progress(done, total) follows the messages read.
 * @param {{since?: number, progress?: (done: number, total: number) => void}} [o]
 */
export async function archiveLines({ since = 0, progress = () => {} } = {}) {
  /** @type {{chat?: any, msg?: any, file?: any, data?: Uint8Array}[]} */
  const lines = [];
  for (const ch of await store.getChats()) {
    const a = { ...ch };
    for (const k of DEVICE_CHAT) delete a[k];
    lines.push({ chat: a });
  }
  const total = await store.messageCount();
  const withFiles = [];
  let after = null;
  let done = 0;
  for (;;) {
    const rows = await store.messageRows(after, PIECE);
    for (const m of rows) {
      if (!archived(m) || (m.ts || 0) < since) continue;
      const x = { ...m };
      for (const k of DEVICE_MSG) delete x[k];
      if (Array.isArray(x.files)) x.files = x.files.map((/** @type {any} */ f) => ({ ...f, confirmed: undefined, state: undefined }));
      lines.push({ msg: x });
      if (Array.isArray(m.files)) withFiles.push(m);
    }
    done += rows.length;
    progress(Math.min(done, total), total);
    if (rows.length < PIECE) break;
    after = rows[rows.length - 1].id;
  }
  for (const m of withFiles) {
    for (const f of m.files) {
      const blob = f.got ? await store.getFile(f.ref) : null;
      if (blob) lines.push({ file: { ref: f.ref, msg: m.id, chat: m.chat, type: blob.type }, data: new Uint8Array(await blob.arrayBuffer()) });
    }
  }
  return lines;
}

/**
 * makeBackup checks the recovery key typed against the account's and
 * writes the whole history to a backup file. progress(done, total)
 * follows the messages read.
 * @param {string} text the recovery key as typed
 * @param {(done: number, total: number) => void} [progress]
 */
export async function makeBackup(text, progress) {
  const me = /** @type {string} */ (account.me());
  const key = await account.checkRecoveryKey(text);
  const lines = await archiveLines({ progress });
  const made = Date.now();
  const archive = await writeArchive({ account: me, made }, lines);
  const file = await sealBackup(key, me, archive);
  const day = new Date(made).toISOString().slice(0, 10);
  return {
    file, name: `relay-backup-${me}-${day}.relaybackup`,
    messages: lines.filter((l) => l.msg).length, files: lines.filter((l) => l.file).length,
  };
}

/**
 * importBackup reads a backup file into the store: all of it, or nothing
 * when any check fails (archive.js's BackupError, with its code, or
 * other_account for a backup of another account). The key is the one
 * typed, or (text null) the one this page restored the account with.
 * progress(done, total) follows the bytes opened.
 * @param {Blob} file
 * @param {string | null} text
 * @param {(done: number, total: number) => void} [progress]
 */
export async function importBackup(file, text, progress) {
  const me = /** @type {string} */ (account.me());
  const key = text === null ? account.restoredRecoveryKey() : await c.parseRecoveryKey(text);
  if (!key) throw new BackupError('no_key');
  const archive = await openBackup(key, me, file, progress);
  const { head, lines } = await readArchive(archive);
  if (head.account !== me) throw new BackupError('other_account', head.account);
  const r = await store.importHistory(lines);
  account.forgetRestoredKey();
  const chats = [...new Set(lines.map((l) => (l.msg ? l.msg.chat : l.chat ? l.chat.username : null)).filter(Boolean))];
  notify({ type: 'changed', chats });
  return { ...r, made: head.made };
}

export { hasRestoredKey } from './account.js';
