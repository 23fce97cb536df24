// records.js: the records inside the ciphertext (docs/crypto.md,
// "Records"): what parses, what the store writes for a record opened
// (interpret), and how a record changes the message it names. Pure
// functions (interpret logs a record that does not parse): the store applies them inside its transactions, and the
// Go twin (relayclient/seal, ParseRecord) is bound to the same rules by the
// known-answer vectors.

import { after } from './order.js';

export const MAX_TEXT = 16000;
export const MAX_IDS = 100;
export const MAX_EMOJI_BYTES = 32;
// MAX_DEPTH bounds the nesting of a record: the record object is one
// level, each object or array in it one more (docs/crypto.md).
export const MAX_DEPTH = 32;

// The types this client knows. A record of any other type is kept as it
// is and read again by a newer client.
export const KNOWN = ['text', 'files', 'edit', 'delete', 'reaction', 'receipt', 'read', 'leave', 'timer', 'block'];

// MAX_TIMER is the longest a disappearing message may last, in seconds: a
// year (the screens offer up to 4 weeks, expiry.js).
export const MAX_TIMER = 31536000;

// MAX_BLOCK_NAME is the longest username a block record names.
export const MAX_BLOCK_NAME = 64;

// The limits of a files record (docs/crypto.md, "Records"): files in one
// message, characters of a file name and of a type, characters of a
// placeholder in base64, and the largest width, height and duration.
export const MAX_FILES = 10;
export const MAX_NAME = 255;
export const MAX_TYPE = 100;
export const MAX_THUMB = 4096;
export const MAX_SIDE = 65535;
export const MAX_DURATION = 86400000;
export const FILE_KINDS = ['photo', 'voice', 'file'];

// An attachment id of the relay: 16 bytes in unpadded base64url. A key
// and a digest: 32 bytes so. A placeholder: base64url of a small JPEG.
const ATTACHMENT_ID = /^[A-Za-z0-9_-]{21}[AQgw]$/;
const BYTES32 = /^[A-Za-z0-9_-]{42}[AEIMQUYcgkosw048]$/;
const B64URL = /^[A-Za-z0-9_-]+$/;
// A media type without parameters, as RFC 6838 names them, lower case.
const MEDIA_TYPE = /^[a-z0-9][a-z0-9!#$&^_.+-]*\/[a-z0-9][a-z0-9!#$&^_.+-]*$/;

const ID = /^[0-7][0-9A-HJKMNP-TV-Z]{25}$/;
// C0 and C1 control characters, and DEL.
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/;

export function isId(s) {
  return typeof s === 'string' && ID.test(s);
}

function isText(s) {
  return typeof s === 'string' && s.length >= 1 && s.length <= MAX_TEXT;
}

function isEmoji(s) {
  if (typeof s !== 'string' || CONTROL.test(s)) return false;
  const n = new TextEncoder().encode(s).length;
  return n >= 1 && n <= MAX_EMOJI_BYTES;
}

// tooDeep reports whether value v nests more than MAX_DEPTH objects and
// arrays, itself included.
function tooDeep(v) {
  const stack = [[v, 1]];
  while (stack.length) {
    const [x, d] = stack.pop();
    if (d > MAX_DEPTH) return true;
    for (const y of Object.values(x)) if (y && typeof y === 'object') stack.push([y, d + 1]);
  }
  return false;
}

function isCount(v, min, max) {
  return Number.isSafeInteger(v) && v >= min && v <= max;
}

// parseFile checks one entry of a files record's files and returns it
// with only its fields, the optional ones null when not given; null when
// any is wrong.
function parseFile(f) {
  if (!f || typeof f !== 'object' || Array.isArray(f)) return null;
  if (typeof f.id !== 'string' || !ATTACHMENT_ID.test(f.id)) return null;
  if (typeof f.key !== 'string' || !BYTES32.test(f.key)) return null;
  if (typeof f.digest !== 'string' || !BYTES32.test(f.digest)) return null;
  if (!isCount(f.size, 1, Number.MAX_SAFE_INTEGER)) return null;
  if (typeof f.type !== 'string' || f.type.length > MAX_TYPE || !MEDIA_TYPE.test(f.type)) return null;
  if (typeof f.name !== 'string' || f.name.length < 1 || f.name.length > MAX_NAME || CONTROL.test(f.name)) return null;
  if (!FILE_KINDS.includes(f.kind)) return null;
  const opt = (v, ok) => (v === undefined || v === null ? null : ok(v) ? v : undefined);
  const width = opt(f.width, (v) => isCount(v, 1, MAX_SIDE));
  const height = opt(f.height, (v) => isCount(v, 1, MAX_SIDE));
  const duration = opt(f.duration, (v) => isCount(v, 0, MAX_DURATION));
  const thumb = opt(f.thumb, (v) => typeof v === 'string' && v.length <= MAX_THUMB && B64URL.test(v));
  if (width === undefined || height === undefined || duration === undefined || thumb === undefined) return null;
  return { id: f.id, key: f.key, digest: f.digest, size: f.size, type: f.type, name: f.name, kind: f.kind, width, height, duration, thumb };
}

function invalid(reason) {
  return { type: 'invalid', reason };
}

// expiresOf reads a message's lifetime: left out or null is none (null),
// else 1 to MAX_TIMER seconds; undefined when it is wrong.
function expiresOf(v) {
  if (v === undefined || v === null) return null;
  return isCount(v, 1, MAX_TIMER) ? v : undefined;
}

// withExpiry adds a message's lifetime to its parsed record, only when it
// has one.
function withExpiry(out, expires) {
  return expires ? { ...out, expires } : out;
}

// parseRecord checks a decrypted record and returns it with only the fields
// of its type: {type: 'text', text, replyTo}, {type: 'edit', target, text},
// {type: 'delete', target}, {type: 'reaction', target, emoji, on},
// {type: 'leave'}, {type: 'timer', seconds}; text and files add expires
// (seconds) when the message disappears, read adds at when given;
// {type: 'receipt', status, ids}, {type: 'read', chat, upTo, sort, v,
// base?, ids?};
// {type: 'unknown', name} for a type this client does not know, and
// {type: 'invalid', reason} for a known type with a missing or bad field.
export function parseRecord(r) {
  if (!r || typeof r !== 'object' || Array.isArray(r) || typeof r.type !== 'string' || tooDeep(r)) return invalid('not a record');
  switch (r.type) {
    case 'text': {
      if (!isText(r.text)) return invalid('text');
      if (r.replyTo !== undefined && r.replyTo !== null && !isId(r.replyTo)) return invalid('replyTo');
      const expires = expiresOf(r.expires);
      if (expires === undefined) return invalid('expires');
      return withExpiry({ type: 'text', text: r.text, replyTo: r.replyTo || null }, expires);
    }
    case 'files': {
      // A message of attachments: text, its caption, may be left out.
      const text = r.text === undefined || r.text === null ? null : r.text;
      if (text !== null && !isText(text)) return invalid('text');
      if (r.replyTo !== undefined && r.replyTo !== null && !isId(r.replyTo)) return invalid('replyTo');
      if (!Array.isArray(r.files) || r.files.length < 1 || r.files.length > MAX_FILES) return invalid('files');
      const files = r.files.map(parseFile);
      if (files.some((f) => !f) || new Set(files.map((f) => f.id)).size !== files.length) return invalid('files');
      const expires = expiresOf(r.expires);
      if (expires === undefined) return invalid('expires');
      return withExpiry({ type: 'files', text, replyTo: r.replyTo || null, files }, expires);
    }
    case 'edit':
      if (!isId(r.target)) return invalid('target');
      if (!isText(r.text)) return invalid('text');
      return { type: 'edit', target: r.target, text: r.text };
    case 'delete':
      if (!isId(r.target)) return invalid('target');
      return { type: 'delete', target: r.target };
    case 'reaction':
      if (!isId(r.target)) return invalid('target');
      if (!isEmoji(r.emoji)) return invalid('emoji');
      if (typeof r.on !== 'boolean') return invalid('on');
      return { type: 'reaction', target: r.target, emoji: r.emoji, on: r.on };
    case 'receipt': {
      if (r.status !== 'delivered' && r.status !== 'read') return invalid('status');
      if (!Array.isArray(r.ids) || r.ids.length < 1 || r.ids.length > MAX_IDS || !r.ids.every(isId)) return invalid('ids');
      if (new Set(r.ids).size !== r.ids.length) return invalid('ids');
      return { type: 'receipt', status: r.status, ids: r.ids.slice() };
    }
    case 'read': {
      // A record of an older client has no sort and no v: the store takes
      // the sort of the message it names, and v is 0. base and ids are
      // newer still (ADR 0091): without them, nothing was undone and no
      // late message was seen.
      if (typeof r.chat !== 'string' || typeof r.upTo !== 'string') return invalid('chat or upTo');
      const sort = Number.isSafeInteger(r.sort) && r.sort >= 0 ? r.sort : null;
      const v = Number.isSafeInteger(r.v) && r.v >= 0 ? r.v : 0;
      const out = { type: 'read', chat: r.chat, upTo: r.upTo, sort, v };
      if (r.base !== undefined) {
        const b = r.base;
        if (!b || typeof b !== 'object' || !Number.isSafeInteger(b.sort) || b.sort < 0 || typeof b.id !== 'string') return invalid('base');
        out.base = { sort: b.sort, id: b.id };
      }
      if (r.ids !== undefined) {
        if (!Array.isArray(r.ids) || r.ids.length > MAX_IDS || !r.ids.every(isId)) return invalid('ids');
        out.ids = [...new Set(r.ids)];
      }
      // When it was read (newer than base): not given unless a
      // non-negative safe integer, as sort.
      if (isCount(r.at, 0, Number.MAX_SAFE_INTEGER)) out.at = r.at;
      return out;
    }
    case 'timer':
      // How long the chat's messages sent after it last; 0: for ever.
      if (!isCount(r.seconds, 0, MAX_TIMER)) return invalid('seconds');
      return { type: 'timer', seconds: r.seconds };
    case 'leave':
      // Its sender asks a group chat's members to remove its account.
      return { type: 'leave' };
    case 'block':
      // From this account to its own devices: a contact blocked or not,
      // from at (docs/crypto.md).
      if (typeof r.chat !== 'string' || r.chat.length < 1 || r.chat.length > MAX_BLOCK_NAME) return invalid('chat');
      if (typeof r.on !== 'boolean') return invalid('on');
      if (!isCount(r.at, 0, Number.MAX_SAFE_INTEGER)) return invalid('at');
      return { type: 'block', chat: r.chat, on: r.on, at: r.at };
    default:
      return { type: 'unknown', name: r.type };
  }
}

// isMessage reports whether a stored row is a message a record may name:
// opened, of a known type, not a record of the outbox, and not gone (a
// disappearing message whose time was up keeps nothing, an edit neither).
export function isMessage(m) {
  return !!m && !m.kind && !m.unknown && !m.waiting && !m.undecryptable && !m.event && !m.expired;
}

// apply changes target, the stored message a record names, in place, and
// says what happened: 'applied', or why not. ctx is {key, author, chat, me}:
// the record's order key {sort, id}, its authenticated sender, its chat and
// this account. 'forged' is a record that would change another person's
// words; the caller counts and logs it. Every other refusal is silent: a
// target this device never had, a deleted one, or a record older than what
// the target holds (a replay, or a record that lost the order).
export function apply(target, rec, ctx) {
  if (!isMessage(target) || target.chat !== ctx.chat) return 'missing';
  switch (rec.type) {
    case 'edit':
      if (target.from !== ctx.author) return 'forged';
      if (target.deleted) return 'deleted';
      if (target.edited && !after(ctx.key, target.edited)) return 'stale';
      target.text = rec.text;
      target.edited = ctx.key;
      return 'applied';
    case 'delete':
      if (target.from !== ctx.author) return 'forged';
      if (target.deleted) return 'stale';
      target.deleted = ctx.key;
      target.text = null;
      target.reactions = {};
      target.replyTo = null;
      if (target.files) target.files = null;
      return 'applied';
    case 'reaction': {
      if (target.deleted) return 'deleted';
      const reactions = target.reactions || {};
      const by = reactions[rec.emoji] || {};
      const cur = by[ctx.author];
      if (cur && !after(ctx.key, cur)) return 'stale';
      by[ctx.author] = { on: rec.on, sort: ctx.key.sort, id: ctx.key.id };
      reactions[rec.emoji] = by;
      target.reactions = reactions;
      return 'applied';
    }
    case 'receipt': {
      const rank = { sent: 0, delivered: 1, read: 2 };
      // In a group chat, from a member about this account's own message:
      // each member's is kept (read by 3 of 5).
      if (ctx.chat.startsWith('g:')) {
        if (ctx.author === ctx.me || target.from !== ctx.me) return 'forged';
        const by = target.receipts || {};
        if (rank[rec.status] <= rank[by[ctx.author] || 'sent']) return 'stale';
        target.receipts = { ...by, [ctx.author]: rec.status };
        return 'applied';
      }
      // From the other person only, about this account's own messages.
      if (ctx.author === ctx.me || target.from !== ctx.me || ctx.chat !== ctx.author) return 'forged';
      if (rank[rec.status] <= rank[target.tick || 'sent']) return 'stale';
      target.tick = rec.status;
      return 'applied';
    }
    default:
      return 'missing';
  }
}

// filesLabel is what a message of attachments says in a preview or a
// quote when it has no caption: "Photo", "Voice message", a file's name,
// or how many files.
export function filesLabel(files) {
  if (!files || !files.length) return '';
  if (files.length > 1) return files.every((f) => f.kind === 'photo') ? `${files.length} photos` : `${files.length} files`;
  const f = files[0];
  return f.kind === 'photo' ? 'Photo' : f.kind === 'voice' ? 'Voice message' : f.name;
}

// reactionsOf lists a message's reactions that are there, by emoji in the
// order first seen: [{emoji, by: [usernames]}].
export function reactionsOf(m) {
  const out = [];
  for (const [emoji, by] of Object.entries(m.reactions || {})) {
    const who = Object.entries(by).filter(([, r]) => r.on).map(([u]) => u).sort();
    if (who.length) out.push({ emoji, by: who });
  }
  return out;
}

// interpret turns a decrypted record into what the store writes: a
// message; a record to apply to the message it names; a read position; a
// row that keeps a record of a type this client does not know, read again
// by a newer one; or a record that does not parse, counted and dropped
// (docs/crypto.md, "Records"). base is the envelope's row as the inbox
// makes it ({id, chat, from, dir, sort, …}); self says the envelope is
// from this account to itself (a read position and a block are taken
// only then).
export function interpret(record, base, self) {
  const r = parseRecord(record);
  switch (r.type) {
    case 'text':
      return { kind: 'message', msg: { ...base, text: r.text, replyTo: r.replyTo, ...(r.expires ? { expires: r.expires } : {}) } };
    case 'files':
      // The caption is the message's text, '' for none, so that an edit
      // gives it one; each file keeps its ref, where its bytes are kept
      // on this device once downloaded (storefiles.js).
      return { kind: 'message', msg: { ...base, text: r.text || '', replyTo: r.replyTo, files: r.files.map((f) => ({ ...f, ref: f.id })), ...(r.expires ? { expires: r.expires } : {}) } };
    case 'read':
      return self ? { kind: 'read', chat: r.chat, upTo: r.upTo, sort: r.sort, v: r.v, base: r.base, ids: r.ids, at: r.at } : { kind: 'skip' };
    case 'timer':
      return { kind: 'timer', chat: base.chat, seconds: r.seconds, key: { sort: base.sort, id: base.id }, author: base.from, msg: base };
    case 'edit':
    case 'delete':
    case 'reaction':
    case 'receipt':
      // A receipt of this account's own (another device acknowledging to
      // the other person) is not for this device.
      if (r.type === 'receipt' && base.dir === 'out') return { kind: 'skip' };
      return { kind: 'record', rec: r, key: { sort: base.sort, id: base.id }, author: base.from, chat: base.chat };
    case 'leave':
      return base.chat.startsWith('g:') ? { kind: 'leave', chat: base.chat, from: base.from } : { kind: 'skip' };
    case 'block':
      // Taken only from this account to itself, and only for a person.
      return self && !r.chat.startsWith('g:') ? { kind: 'block', chat: r.chat, on: r.on, at: r.at } : { kind: 'skip' };
    case 'unknown':
      return { kind: 'message', msg: { ...base, text: null, unknown: true, record: JSON.stringify(record) } };
    default:
      console.warn('sync: a record that does not parse was dropped (bad ' + r.reason + ')');
      return { kind: 'invalid' };
  }
}
