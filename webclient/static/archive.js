// archive.js: a history as bytes (docs/crypto.md, "History archive" and
// "Backup file"): the archive, gzip of JSON lines, and the backup file
// that seals it under a key derived from the recovery key. The Go twin is
// relayclient/backup; both pass the vectors in
// relayclient/backup/testdata/vectors.json. Nothing here reads the store
// or talks to the network: history.js does.

import { SALT, b64encode, b64decode } from './crypto.js';
import { seal as sealAttachment, importKey, Opener, newKey, sealedSize } from './attachcrypto.js';

const te = new TextEncoder();
const td = new TextDecoder('utf-8', { fatal: true });
const subtle = crypto.subtle;

export const MAGIC = 'RELAYBAK';
export const VERSION = 1;
const IV_SIZE = 12;
const PLAIN_HEADER = 32 + 8 + 32;
export const HEADER_SIZE = MAGIC.length + 1 + IV_SIZE + PLAIN_HEADER + 16;
const INFO = 'relay/v1 backup\u0000';

/**
 * BackupError is a backup that cannot be read, with the code of the
 * vectors: not_backup (not a backup file of version 1), wrong_backup_key
 * (its header does not open with this recovery key and account),
 * damaged_backup (the header opened, the archive does not).
 */
export class BackupError extends Error {
  /** @param {string} code @param {string} [detail] */
  constructor(code, detail = '') {
    super(code + (detail ? ': ' + detail : ''));
    this.name = 'BackupError';
    this.code = code;
  }
}

/**
 * backupKey derives the key that seals the header of username's backups.
 * @param {Uint8Array} recoveryKey 20 bytes
 * @param {string} username
 */
export async function backupKey(recoveryKey, username) {
  const ikm = await subtle.importKey('raw', /** @type {Uint8Array<ArrayBuffer>} */ (recoveryKey), 'HKDF', false, ['deriveBits']);
  return new Uint8Array(await subtle.deriveBits({ name: 'HKDF', hash: 'SHA-256', salt: SALT, info: te.encode(INFO + username) }, ikm, 256));
}

function aad() {
  const a = te.encode(INFO + MAGIC);
  const out = new Uint8Array(a.length + 1);
  out.set(a);
  out[a.length] = VERSION;
  return out;
}

/**
 * sealBackup makes username's backup file of archive, with a fresh
 * archive key and IV (given ones are for the vectors only).
 * @param {Uint8Array} recoveryKey
 * @param {string} username
 * @param {Blob} archive
 * @param {{archiveKey?: Uint8Array, iv?: Uint8Array}} [fixed]
 * @returns {Promise<Blob>}
 */
export async function sealBackup(recoveryKey, username, archive, fixed = {}) {
  const archiveKey = /** @type {Uint8Array<ArrayBuffer>} */ (fixed.archiveKey || newKey());
  const iv = fixed.iv || crypto.getRandomValues(new Uint8Array(IV_SIZE));
  const { sealed, digest } = await sealAttachment(archiveKey, archive);
  const plain = new Uint8Array(PLAIN_HEADER);
  plain.set(archiveKey, 0);
  new DataView(plain.buffer).setBigUint64(32, BigInt(archive.size));
  plain.set(digest, 40);
  const key = await subtle.importKey('raw', await backupKey(recoveryKey, username), 'AES-GCM', false, ['encrypt']);
  const header = new Uint8Array(await subtle.encrypt({ name: 'AES-GCM', iv: /** @type {Uint8Array<ArrayBuffer>} */ (iv), additionalData: aad() }, key, plain));
  const head = new Uint8Array(MAGIC.length + 1 + IV_SIZE);
  head.set(te.encode(MAGIC));
  head[MAGIC.length] = VERSION;
  head.set(iv, MAGIC.length + 1);
  return new Blob([head, header, /** @type {Uint8Array<ArrayBuffer>} */ (sealed)], { type: 'application/octet-stream' });
}

/**
 * openBackup checks username's backup file with the recovery key and
 * returns its archive, in the order of docs/crypto.md; progress(done,
 * total) follows the archive's bytes.
 * @param {Uint8Array} recoveryKey
 * @param {string} username
 * @param {Blob} file
 * @param {(done: number, total: number) => void} [progress]
 * @returns {Promise<Blob>}
 */
export async function openBackup(recoveryKey, username, file, progress = () => {}) {
  const head = new Uint8Array(await file.slice(0, HEADER_SIZE).arrayBuffer());
  if (head.length < HEADER_SIZE || new TextDecoder().decode(head.subarray(0, MAGIC.length)) !== MAGIC || head[MAGIC.length] !== VERSION) {
    throw new BackupError('not_backup');
  }
  const key = await subtle.importKey('raw', await backupKey(recoveryKey, username), 'AES-GCM', false, ['decrypt']);
  const at = MAGIC.length + 1;
  let plain;
  try {
    plain = new Uint8Array(await subtle.decrypt({ name: 'AES-GCM', iv: head.subarray(at, at + IV_SIZE), additionalData: aad() }, key, head.subarray(at + IV_SIZE)));
  } catch {
    throw new BackupError('wrong_backup_key');
  }
  const n = Number(new DataView(plain.buffer).getBigUint64(32));
  const body = file.slice(HEADER_SIZE);
  if (n < 1 || !Number.isSafeInteger(n) || body.size !== sealedSize(n)) throw new BackupError('damaged_backup', 'size');
  const opener = new Opener(await importKey(plain.slice(0, 32)), n, plain.slice(40, 72));
  const STEP = 4 << 20;
  try {
    for (let i = 0; i < body.size; i += STEP) {
      await opener.push(new Uint8Array(await body.slice(i, i + STEP).arrayBuffer()));
      progress(Math.min(body.size, i + STEP), body.size);
    }
    return await opener.done();
  } catch (e) {
    throw new BackupError('damaged_backup', e instanceof Error ? e.message : String(e));
  }
}

// ---- the archive: gzip of JSON lines ----

// Bytes in a row (a contact's key) are written as {"$bytes": base64}.
/** @param {string} _k @param {any} v */
function replacer(_k, v) {
  return v instanceof Uint8Array ? { $bytes: b64encode(v) } : v;
}
/** @param {string} _k @param {any} v */
function reviver(_k, v) {
  if (v && typeof v === 'object' && !Array.isArray(v) && typeof v.$bytes === 'string' && Object.keys(v).length === 1) return b64decode(v.$bytes);
  return v;
}

/**
 * @typedef {{relay: string, v: number, account: string, made: number, since: number, chats: number, messages: number, files: number}} Head
 * @typedef {{chat?: any, msg?: any, file?: any, data?: Uint8Array}} Line
 */

/**
 * writeArchive makes an archive of head and lines (the counts of head
 * are set from lines); a file's data is written as base64.
 * @param {{account: string, made: number, since?: number}} head
 * @param {Line[]} lines
 * @returns {Promise<Blob>}
 */
export async function writeArchive(head, lines) {
  const h = { relay: 'history', v: 1, account: head.account, made: head.made, since: head.since || 0, chats: 0, messages: 0, files: 0 };
  for (const l of lines) {
    if (l.chat) h.chats++;
    else if (l.msg) h.messages++;
    else if (l.file) h.files++;
  }
  const parts = [JSON.stringify(h) + '\n'];
  for (const l of lines) {
    parts.push(JSON.stringify(l.file ? { file: l.file, data: b64encode(/** @type {Uint8Array} */ (l.data)) } : l, replacer) + '\n');
  }
  const gz = new Blob(parts).stream().pipeThrough(new CompressionStream('gzip'));
  return new Response(gz).blob();
}

/**
 * readArchive reads an archive: its head, then its lines, each exactly
 * one of chat, msg or file (with its data), their counts as the head
 * says. Anything else is a damaged_backup.
 * @param {Blob} archive
 * @returns {Promise<{head: Head, lines: Line[]}>}
 */
export async function readArchive(archive) {
  let text;
  try {
    text = td.decode(await new Response(archive.stream().pipeThrough(new DecompressionStream('gzip'))).arrayBuffer());
  } catch (e) {
    throw new BackupError('damaged_backup', 'not gzip: ' + (e instanceof Error ? e.message : String(e)));
  }
  const rows = text.split('\n');
  if (rows[rows.length - 1] === '') rows.pop();
  /** @type {Head} */
  let head;
  try {
    head = JSON.parse(rows[0]);
  } catch {
    throw new BackupError('damaged_backup', 'no head');
  }
  if (!head || head.relay !== 'history' || head.v !== 1 || typeof head.account !== 'string' || !head.account) throw new BackupError('damaged_backup', 'not a history archive of version 1');
  /** @type {Line[]} */
  const lines = [];
  const n = { chats: 0, messages: 0, files: 0 };
  for (let i = 1; i < rows.length; i++) {
    let l;
    try {
      l = JSON.parse(rows[i], reviver);
    } catch {
      throw new BackupError('damaged_backup', `line ${i + 1}`);
    }
    const keys = l && typeof l === 'object' ? Object.keys(l).sort().join(',') : '';
    if (keys === 'chat' && l.chat && typeof l.chat.username === 'string') n.chats++;
    else if (keys === 'msg' && l.msg && typeof l.msg.id === 'string' && typeof l.msg.chat === 'string') n.messages++;
    else if (keys === 'data,file' && l.file && typeof l.file.ref === 'string' && typeof l.data === 'string') {
      n.files++;
      try {
        l.data = b64decode(l.data);
      } catch {
        throw new BackupError('damaged_backup', `line ${i + 1}: data`);
      }
    } else throw new BackupError('damaged_backup', `line ${i + 1} is not one chat, message or file`);
    lines.push(l);
  }
  if (n.chats !== head.chats || n.messages !== head.messages || n.files !== head.files) throw new BackupError('damaged_backup', 'the counts differ from the head');
  return { head, lines };
}

// ---- the history transfer's bodies (docs/crypto.md, "History transfer") ----

export const TRANSFER_BODY_SIZE = 128;
const TRANSFER_PLAIN = 100;
export const COMING = 1;
export const READY = 2;
export const STOPPED = 3;
export const ASK = 4;
const USED = { [COMING]: 17, [READY]: 97, [STOPPED]: 1, [ASK]: 1 };

/**
 * @typedef {{kind: number, estimate?: number, since?: number, id?: Uint8Array, key?: Uint8Array, size?: number, digest?: Uint8Array}} Offer
 */

/** isTransfer reports whether a body has a transfer body's size. */
export function isTransfer(/** @type {Uint8Array} */ body) {
  return body.length === TRANSFER_BODY_SIZE;
}

/** @param {string} id @param {string} username */
function transferAAD(id, username) {
  return te.encode(`relay/v1 history\u0000${id}\u0000${username}`);
}

/**
 * sealTransfer seals offer for the envelope id of username under the
 * transfer key (crypto.historyKeyBytes).
 * @param {Uint8Array} keyBytes
 * @param {Uint8Array} iv
 * @param {string} id
 * @param {string} username
 * @param {Offer} o
 */
export async function sealTransfer(keyBytes, iv, id, username, o) {
  if (!USED[o.kind]) throw new Error('no such kind of transfer body');
  const p = new Uint8Array(TRANSFER_PLAIN);
  const v = new DataView(p.buffer);
  p[0] = o.kind;
  if (o.kind === COMING) {
    v.setBigUint64(1, BigInt(o.estimate || 0));
    v.setBigUint64(9, BigInt(o.since || 0));
  } else if (o.kind === READY) {
    p.set(/** @type {Uint8Array} */ (o.id), 1);
    p.set(/** @type {Uint8Array} */ (o.key), 17);
    v.setBigUint64(49, BigInt(o.size || 0));
    p.set(/** @type {Uint8Array} */ (o.digest), 57);
    v.setBigUint64(89, BigInt(o.since || 0));
  }
  const key = await subtle.importKey('raw', /** @type {Uint8Array<ArrayBuffer>} */ (keyBytes), 'AES-GCM', false, ['encrypt']);
  const ct = new Uint8Array(await subtle.encrypt({ name: 'AES-GCM', iv: /** @type {Uint8Array<ArrayBuffer>} */ (iv), additionalData: transferAAD(id, username) }, key, p));
  const out = new Uint8Array(iv.length + ct.length);
  out.set(iv);
  out.set(ct, iv.length);
  return out;
}

/**
 * openTransfer opens a transfer body: its size, its tag, a known kind and
 * zeros past what the kind uses; else it throws.
 * @param {Uint8Array} keyBytes
 * @param {string} id
 * @param {string} username
 * @param {Uint8Array} body
 * @returns {Promise<Offer>}
 */
export async function openTransfer(keyBytes, id, username, body) {
  if (!isTransfer(body)) throw new Error('not a transfer body');
  const key = await subtle.importKey('raw', /** @type {Uint8Array<ArrayBuffer>} */ (keyBytes), 'AES-GCM', false, ['decrypt']);
  let p;
  try {
    p = new Uint8Array(await subtle.decrypt({ name: 'AES-GCM', iv: /** @type {Uint8Array<ArrayBuffer>} */ (body.subarray(0, 12)), additionalData: transferAAD(id, username) }, key, /** @type {Uint8Array<ArrayBuffer>} */ (body.subarray(12))));
  } catch {
    throw new Error('not a transfer body');
  }
  const n = USED[p[0]];
  if (!n || p.subarray(n).some((x) => x !== 0)) throw new Error('not a transfer body');
  const v = new DataView(p.buffer);
  const num = (/** @type {number} */ at) => {
    const x = v.getBigUint64(at);
    if (x > BigInt(Number.MAX_SAFE_INTEGER)) throw new Error('not a transfer body');
    return Number(x);
  };
  if (p[0] === COMING) return { kind: COMING, estimate: num(1), since: num(9) };
  if (p[0] === READY) return { kind: READY, id: p.slice(1, 17), key: p.slice(17, 49), size: num(49), digest: p.slice(57, 89), since: num(89) };
  return { kind: p[0] };
}
