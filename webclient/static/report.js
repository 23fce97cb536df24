// report.js: reporting a contact to the operator of this relay (ADR 0118).
// A report is the one thing this client ever sends the relay in the
// clear: the messages the person ticked, each with who wrote it and when,
// as this device shows them, and nothing else of the chat. The relay
// cannot check them (there is no message franking): a report is what the
// reporter says was written.

import * as store from './store.js';
import * as api from './api.js';
import * as account from './account.js';
import { ulid } from './ulid.js';
import { filesLabel, MAX_TEXT } from './records.js';

// The reasons the relay takes, with their words.
export const REASONS = [
  ['spam', 'Spam'],
  ['harassment', 'Harassment or threats'],
  ['illegal', 'Illegal content'],
  ['other', 'Something else'],
];
export const MAX_REPORT_MESSAGES = 50;
export const MAX_COMMENT = 1000;
// How many of the chat's last messages the dialog offers.
const OFFERED = 200;

// reportText is a message as a report holds it: its text, or for
// attachments their label and caption (their bytes are never sent).
export function reportText(m) {
  const label = m.files && m.files.length ? filesLabel(m.files) : '';
  const text = label ? (m.text ? `${label}: ${m.text}` : label) : m.text || '';
  return cut(noNul(text), MAX_TEXT);
}

// cut keeps the first n UTF-16 code units of s, less one where the last
// would be half of a pair: the relay refuses a lone surrogate.
function cut(s, n) {
  if (s.length <= n) return s;
  const c = s.charCodeAt(n - 1);
  return s.slice(0, c >= 0xd800 && c <= 0xdbff ? n - 1 : n);
}

// noNul replaces U+0000, which the relay cannot store in a report, by
// U+FFFD.
function noNul(s) {
  return s.replace(/\u0000/g, '\uFFFD');
}

function offered(m, about, me) {
  return !m.hidden && !m.kind && !m.event && !m.waiting && !m.undecryptable && !m.unknown && !m.deleted && !m.expired &&
    (m.status === 'sent' || m.status === 'received' || m.dir === 'in') && (m.from === about || m.from === me) && reportText(m) !== '';
}

// reportDraft is what a report about the account `about` from the chat
// chat can hold: its id (kept for every try, so that a report sent twice
// is stored once) and the chat's messages it may include, written by
// about or by this account, oldest first.
export async function reportDraft(chat, about) {
  const me = account.me();
  const msgs = (await store.getMessages(chat)).filter((m) => offered(m, about, me)).slice(-OFFERED);
  return { id: ulid(), chat, about, messages: msgs.map((m) => ({ id: m.id, from: m.from, at: m.ts, text: reportText(m) })) };
}

// sendReport sends the draft's report with the messages of ids, in the
// chat's order, its reason and an optional comment. It throws the relay's
// ApiError when refused.
export async function sendReport(draft, { ids, reason, comment }) {
  const chosen = new Set(ids);
  const messages = draft.messages.filter((m) => chosen.has(m.id));
  if (!messages.length) throw new Error('Choose at least one message.');
  if (messages.length > MAX_REPORT_MESSAGES) throw new Error(`A report holds at most ${MAX_REPORT_MESSAGES} messages.`);
  const body = { id: draft.id, about: draft.about, reason, messages };
  if (comment) body.comment = cut(noNul(comment), MAX_COMMENT);
  await api.report(body);
}
