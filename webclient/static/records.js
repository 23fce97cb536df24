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
export const KNOWN = ['text', 'edit', 'delete', 'reaction', 'receipt', 'read', 'leave'];

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

function invalid(reason) {
  return { type: 'invalid', reason };
}

// parseRecord checks a decrypted record and returns it with only the fields
// of its type: {type: 'text', text, replyTo}, {type: 'edit', target, text},
// {type: 'delete', target}, {type: 'reaction', target, emoji, on},
// {type: 'leave'},
// {type: 'receipt', status, ids}, {type: 'read', chat, upTo, sort, v,
// base?, ids?};
// {type: 'unknown', name} for a type this client does not know, and
// {type: 'invalid', reason} for a known type with a missing or bad field.
export function parseRecord(r) {
  if (!r || typeof r !== 'object' || Array.isArray(r) || typeof r.type !== 'string' || tooDeep(r)) return invalid('not a record');
  switch (r.type) {
    case 'text':
      if (!isText(r.text)) return invalid('text');
      if (r.replyTo !== undefined && r.replyTo !== null && !isId(r.replyTo)) return invalid('replyTo');
      return { type: 'text', text: r.text, replyTo: r.replyTo || null };
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
      return out;
    }
    case 'leave':
      // Its sender asks a group chat's members to remove its account.
      return { type: 'leave' };
    default:
      return { type: 'unknown', name: r.type };
  }
}

// isMessage reports whether a stored row is a message a record may name:
// opened, of a known type, and not a record of the outbox.
export function isMessage(m) {
  return !!m && !m.kind && !m.unknown && !m.waiting && !m.undecryptable && !m.event;
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
// from this account to itself (a read position is taken only then).
export function interpret(record, base, self) {
  const r = parseRecord(record);
  switch (r.type) {
    case 'text':
      return { kind: 'message', msg: { ...base, text: r.text, replyTo: r.replyTo } };
    case 'read':
      return self ? { kind: 'read', chat: r.chat, upTo: r.upTo, sort: r.sort, v: r.v, base: r.base, ids: r.ids } : { kind: 'skip' };
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
    case 'unknown':
      return { kind: 'message', msg: { ...base, text: null, unknown: true, record: JSON.stringify(record) } };
    default:
      console.warn('sync: a record that does not parse was dropped (bad ' + r.reason + ')');
      return { kind: 'invalid' };
  }
}
