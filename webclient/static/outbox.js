// outbox.js: sending. A message is written as pending before anything is
// sent; the stream owner sends each chat's pending messages one at a time,
// in the chat's order, with the id rules of ADR 0010 and the outcomes of
// ADR 0012. Chats are independent: one chat waiting holds back no other.

import * as store from './store.js';
import * as api from './api.js';
import * as c from './crypto.js';
import * as account from './account.js';
import { isOwner, notify, onRemote, post } from './election.js';
import { markDeleted } from './contacts.js';
import * as mlschat from './mlschat.js';
import { isGroup } from './groupmeta.js';
import { ulid, ulidTime } from './ulid.js';
import { connection } from './stream.js';
import * as transfer from './transfer.js';
import { newKey } from './attachcrypto.js';
import { timerOf, TIMER_CHOICES } from './expiry.js';

// REUSE_WINDOW: an id never sent is renewed before its first attempt when
// its time is further than this from the device clock, behind or ahead:
// one minute under the relay's ±5 minute window. An id sent once is kept
// whatever its age (ADR 0084).
const REUSE_WINDOW = 4 * 60 * 1000;

// FIRST_BACKOFF and MAX_BACKOFF bound the wait before sending again to a
// relay that cannot be reached; a ready stream sends again at once.
const FIRST_BACKOFF = 3000;
const MAX_BACKOFF = 60000;

// lanes holds, for each chat, its sending state:
// {busy, again, timer, backoff}. busy: a pass over the chat is running;
// again: something was written during it, run once more; timer: the next
// pass after a wait.
const lanes = new Map();

function lane(chat) {
  let l = lanes.get(chat);
  if (!l) {
    l = { busy: false, again: false, timer: null, backoff: FIRST_BACKOFF };
    lanes.set(chat, l);
  }
  return l;
}

// Another tab wrote a pending message: the owner sends it.
onRemote((ev) => {
  if (ev.type === 'kick' && isOwner()) flushOutbox();
});

function changed(chat) {
  notify({ type: 'changed', chats: [chat] });
}

// sendText records a message as pending and hands it to the stream owner.
// replyTo is the id of the message it quotes, or null.
export async function sendText(chat, text, replyTo = null) {
  const now = Date.now();
  // Not attempted yet: after everything in the chat, in the order typed,
  // until its first attempt gives it a time (docs/storage.md, "Order").
  const m = { id: ulid(now), chat, from: account.me(), to: chat, dir: 'out', text, replyTo, ts: now, sort: Infinity, status: 'pending', tries: 0 };
  await store.putOutgoing(m);
  changed(chat);
  kick();
  return m.id;
}

/**
 * sendFiles records a message of attachments as pending, with its
 * caption text ('' for none), and hands it to the stream owner, which
 * uploads them, then sends the message (attempt). Each file is
 * {blob, name, type, kind, width?, height?, duration?, thumb?}, as
 * attach.js prepared it; its bytes are kept on this device with a fresh
 * key, so that the upload resumes after a reload.
 * @param {string} chat
 * @param {string} text
 * @param {string | null} replyTo
 * @param {any[]} files
 */
export async function sendFiles(chat, text, replyTo, files) {
  const now = Date.now();
  const id = ulid(now);
  const entries = [];
  for (const f of files) {
    const ref = ulid();
    await store.putFile(ref, id, chat, f.blob);
    entries.push({
      ref, key: c.b64url(newKey()), size: f.blob.size, type: f.type, name: f.name, kind: f.kind,
      width: f.width || null, height: f.height || null, duration: f.duration ?? null, thumb: f.thumb || null, got: true, confirmed: true,
    });
  }
  const m = { id, chat, from: account.me(), to: chat, dir: 'out', text, replyTo, files: entries, ts: now, sort: Infinity, status: 'pending', tries: 0 };
  await store.putOutgoing(m);
  changed(chat);
  kick();
  return m.id;
}

// finishList names the accounts a chat's attachments go to: the relay
// deletes one once their devices (and this account's others) fetched it.
async function finishList(chat) {
  const me = account.me();
  if (!isGroup(chat)) return chat === me ? [] : [chat];
  return ((await mlschat.groupAccounts(chat)) || []).filter((u) => u !== me);
}

// sendRecord puts a record (edit, delete, reaction) in the chat's outbox,
// after everything before it in the chat: it names a message the relay
// has accepted, and goes with the same rules as a message (ADR 0010).
async function sendRecord(chat, kind, rec) {
  const now = Date.now();
  const m = { id: ulid(now), chat, from: account.me(), to: chat, dir: 'out', kind, rec, text: null, ts: now, sort: Infinity, status: 'pending', tries: 0 };
  await store.putOutgoing(m);
  changed(chat);
  kick();
  return m.id;
}

// onDeleted is told of the accounts of a group chat that the relay said
// were deleted when it accepted a message to it (groupchat.js removes
// them from the group).
let onDeleted = (/** @type {string} */ _chat, /** @type {string[]} */ _users) => {};

/**
 * deletedMembers sets who is told of a group chat's deleted members.
 * @param {(chat: string, users: string[]) => void} fn
 */
export function deletedMembers(fn) {
  onDeleted = fn;
}

// setTimer sets how long the chat's messages sent from now on last, in
// seconds (0: for ever), on every device of everyone in it: a timer
// record in the chat's order (docs/crypto.md, "Disappearing messages").
// Choosing the timer the chat has (or will have) already sends nothing.
export async function setTimer(chat, seconds) {
  if (!TIMER_CHOICES.includes(seconds)) throw new Error('No such timer.');
  const pending = (await store.outgoingRecords(chat)).filter((r) => r.kind === 'timer').pop();
  if ((pending ? pending.rec.seconds : timerOf(await store.getChat(chat))) === seconds) return null;
  return sendRecord(chat, 'timer', { seconds });
}

// sendLeave puts a group chat's leave record in its outbox: the members
// remove this account when it reaches them (groupchat.js).
export function sendLeave(chat) {
  return sendRecord(chat, 'leave', {});
}

// target returns message id of chat if a record may name it: opened, not
// deleted, and accepted by the relay (an id not yet accepted may still be
// replaced, ADR 0010). own asks that this account wrote it.
async function target(chat, id, own) {
  const m = await store.getMessage(id);
  if (!m || m.chat !== chat || m.kind || m.unknown || m.waiting || m.undecryptable || m.deleted) return null;
  if (m.dir === 'out' && m.status !== 'sent') return null;
  if (own && m.from !== account.me()) return null;
  return m;
}

// editMessage replaces the text of an own message, on every device of
// both people.
export async function editMessage(chat, id, text) {
  if (!(await target(chat, id, true))) throw new Error('This message can no longer be edited.');
  return sendRecord(chat, 'edit', { target: id, text });
}

// deleteForEveryone deletes an own message on every device of both
// people: a tombstone stays.
export async function deleteForEveryone(chat, id) {
  if (!(await target(chat, id, true))) throw new Error('This message can no longer be deleted for everyone.');
  return sendRecord(chat, 'delete', { target: id });
}

// react adds (on) or removes this account's reaction emoji to a message.
export async function react(chat, id, emoji, on) {
  if (!(await target(chat, id, false))) throw new Error('This message cannot get reactions.');
  return sendRecord(chat, 'reaction', { target: id, emoji, on });
}

// cancel deletes a message waiting to send before it goes, if no attempt
// of it may have reached the relay. It throws, saying why, when it cannot.
export async function cancel(id) {
  const m = await store.getMessage(id);
  const result = await store.cancelOutgoing(id);
  if (m) changed(m.chat);
  // The messages behind a cancelled one go now, or say themselves why
  // they wait: none waits on the one that is gone.
  if (result === 'cancelled') kick();
  if (result === 'sending') throw new Error('This message may already be at the relay, so it can no longer be cancelled. Once it is sent, you can delete it for everyone.');
  if (result === 'gone') throw new Error('This message is no longer waiting to send: it was sent or refused meanwhile.');
}

// discard drops a record that failed, unsent.
export async function discard(id) {
  const m = await store.getMessage(id);
  await store.dropOutgoing(id);
  if (m) changed(m.chat);
}

export async function retry(id) {
  const m = await store.getMessage(id);
  if (!m || m.status !== 'failed') return;
  await store.putOutgoing({ ...m, status: 'pending', error: null });
  changed(m.chat);
  kick();
}

function kick() {
  if (isOwner()) flushOutbox();
  else post({ type: 'kick' });
}

// flushOutbox sends the pending messages of every chat. Only the stream
// owner does it; each chat has one pass at a time.
export async function flushOutbox() {
  if (!isOwner() || !account.isLinked()) return;
  const chats = new Set((await store.pendingMessages()).map((m) => m.chat));
  await Promise.all([...chats].map(flushChat));
}

// flushChat sends one chat's pending messages in the chat's order. A
// message goes only once the one before it was accepted or failed for
// good (docs/storage.md, "Order"): a message waiting for the network or
// for the rate limit stops the pass, and its timer starts the next one.
async function flushChat(chat) {
  const l = lane(chat);
  if (l.busy) {
    l.again = true;
    return;
  }
  l.busy = true;
  try {
    do {
      l.again = false;
      for (const m of await store.pendingMessages(chat)) {
        const left = rateWait(m) - Date.now();
        if (left > 0) {
          later(chat, left);
          break;
        }
        if (!(await attempt(m))) break;
      }
    } while (l.again);
  } finally {
    l.busy = false;
  }
}

// rateWait is when a message refused by the rate limit may go again, or 0.
function rateWait(m) {
  return m.error && m.error.code === 'rate_limited' ? m.error.until || 0 : 0;
}

// later runs the chat's next pass in ms.
function later(chat, ms) {
  const l = lane(chat);
  clearTimeout(l.timer);
  l.timer = setTimeout(() => {
    l.timer = null;
    if (isOwner()) flushChat(chat);
  }, ms);
}

function humanDuration(ms) {
  const s = Math.round(Math.abs(ms) / 1000);
  if (s < 90) return `${s} seconds`;
  const m = Math.round(s / 60);
  if (m < 90) return `${m} minutes`;
  return `${Math.round(m / 60)} hours`;
}

// fail records a refusal and tells the screens.
async function fail(m, error) {
  await store.markFailed(m, error);
  changed(m.chat);
  return true;
}

// recordOf is the record an outbox row is sent as (docs/crypto.md,
// "Records"): the type first.
function recordOf(m) {
  if (m.kind) return { type: m.kind, ...m.rec };
  if (m.files) {
    const files = m.files.map((f) => {
      const out = { id: f.id, key: f.key, digest: f.digest, size: f.size, type: f.type, name: f.name, kind: f.kind };
      for (const k of ['width', 'height', 'duration', 'thumb']) if (f[k] !== null && f[k] !== undefined) out[k] = f[k];
      return out;
    });
    return { type: 'files', ...(m.text ? { text: m.text } : {}), ...(m.replyTo ? { replyTo: m.replyTo } : {}), files, ...expiresOf(m) };
  }
  return { type: 'text', text: m.text, ...(m.replyTo ? { replyTo: m.replyTo } : {}), ...expiresOf(m) };
}

function expiresOf(m) {
  return m.expires ? { expires: m.expires } : {};
}

// withTimer is message m with the lifetime of chat ch's timer, or none.
function withTimer(m, ch) {
  const out = { ...m };
  delete out.expires;
  const seconds = timerOf(ch);
  return seconds ? { ...out, expires: seconds } : out;
}

// sendTo sends a sealed message. A group chat's message goes to its
// members as they were when it was sealed (a retry sends the very same
// envelope), but not to an account removed from the group since: only a
// copy the relay already accepted reached it. The relay holds the id
// with the first list when an attempt it accepted went unanswered
// (id_conflict): it is asked again with that list, and answers from its
// record.
async function sendTo(m) {
  const to = m.to || m.chat;
  if (!Array.isArray(to)) return api.send(m.id, to, m.body);
  const now = await mlschat.groupAccounts(m.chat);
  const kept = now ? to.filter((u) => now.includes(u)) : to;
  if (kept.length === to.length) return api.send(m.id, to, m.body);
  try {
    return await api.send(m.id, kept.length ? kept : [account.me()], m.body);
  } catch (e) {
    if (e instanceof api.ApiError && e.code === 'id_conflict') return api.send(m.id, to, m.body);
    throw e;
  }
}

// attempt sends one pending message, with the id rules of ADR 0010 and
// ADR 0084. It returns true when the message was accepted or failed for
// good, false when it waits: for the network, or for the rate limit.
async function attempt(m, freshOnly = false) {
  // A group chat's message goes only while the stream is caught up: a
  // removal that came meanwhile is known first (the message is sealed
  // without the removed member, or sent past them, below). The ready of
  // the next stream sends it.
  if (isGroup(m.chat) && connection() !== 'open') {
    if (!m.error || m.error.code !== 'network') {
      await store.markWaiting(m, { code: 'network', text: 'Not sent yet: waiting for the connection to the relay. It will be sent by itself.' });
      changed(m.chat);
    }
    return false;
  }
  // Its attachments go first, or go on from where they stopped; a message
  // cancelled meanwhile is done.
  if (m.files && m.files.some((f) => !f.digest) && m.bodyFor !== m.id) {
    try {
      const up = await transfer.upload(m, await finishList(m.chat));
      if (!up) return true;
      m = { ...m, files: up.files };
    } catch (e) {
      // The upload wrote what the relay holds (its ids) to the row; a
      // message cancelled meanwhile is done, and is not written back.
      const now = await store.getMessage(m.id);
      if (!now) return true;
      m = now;
      if (!(e instanceof api.ApiError)) return fail(m, { code: 'internal', text: 'Not sent: ' + e.message });
      if (e.code === 'attachment_too_large') return fail(m, { code: e.code, text: 'Not sent: a file is larger than this relay takes. Send a smaller one.' });
      if (e.code === 'attachment_quota_exceeded') {
        return fail(m, { code: e.code, text: 'Not sent: your account holds as many files at the relay as it may for now. They go once delivered; retry later.' });
      }
      return waitOrFail(m, e);
    }
  }
  // The first attempt places the message at its time, kept through
  // retries and renewals until the 202 brings the relay's (ADR 0010).
  if (!Number.isFinite(m.sort)) m = { ...m, sort: Date.now() };
  if (!(m.tries > 0) && Math.abs(Date.now() - ulidTime(m.id)) > REUSE_WINDOW) {
    // Never sent, and too far from this clock for the relay's window: no
    // copy of it can be at the relay, so a fresh id loses nothing, where
    // the old one would be refused as if this clock were wrong. Same
    // place, and no error of an attempt it never had. An id sent once is
    // kept: its lost 202 is answered again while the relay remembers it.
    const oldId = m.id;
    m = { ...m, id: ulid(), tries: 0, error: null };
    // Cancelled meanwhile: nothing to send.
    if (!(await store.renewOutgoing(m, oldId))) return true;
    changed(m.chat);
  }
  // Sealed the old way before the chat had an MLS group, and never at the
  // relay (every attempt was answered, none accepted): sealed again in the
  // group, under the same id, so that nothing new goes the old way.
  if (m.bodyFor === m.id && !m.unanswered && m.body && !mlschat.looksMLS(c.b64decode(m.body)) && (await mlschat.hasGroup(m.chat))) {
    m = { ...m, bodyFor: null };
  }
  const reused = m.tries > 0;
  // A rate-limit wait that ended is over: the message is sending again.
  const attempted = (x) => ({ ...x, tries: x.tries + 1, error: rateWait(x) ? null : x.error, unanswered: true });
  try {
    let claimed = null;
    if (m.bodyFor !== m.id) {
      // Sealed once per id: a retry must send the very same bytes, or the
      // relay would see a different envelope under a known id. In a chat's
      // MLS group, the attempt is written with the group's next state.
      // A message takes the chat's timer as it is when sealed: every
      // record before it in the chat, a timer's among them, went first.
      if (!m.kind) m = withTimer(m, await store.getChat(m.chat));
      const record = JSON.stringify(recordOf(m));
      const inGroup = await mlschat.seal(m.chat, m.id, record, async (body, metas, to) => {
        m = attempted({ ...m, body: c.b64encode(body), bodyFor: m.id, to });
        claimed = await store.claimOutgoing(m, metas);
      });
      if (!inGroup) {
        const { key } = await account.convKey(m.chat);
        const body = await c.seal(key, c.randomIV(), m.id, account.me(), m.chat, record);
        m = { ...m, body: c.b64encode(body), bodyFor: m.id };
      }
    }
    if (claimed === null) {
      m = attempted(m);
      claimed = await store.claimOutgoing(m);
    }
    // Cancelled meanwhile: it never goes (docs/storage.md, "Cancelling a
    // message").
    if (!claimed) return true;
    changed(m.chat);
    const res = await sendTo(m);
    if (Array.isArray(res.deleted) && res.deleted.length) onDeleted(m.chat, res.deleted);
    // A message deleted for everyone takes its attachments from the relay.
    const gone = m.kind === 'delete' ? await store.getMessage(m.rec.target) : null;
    if (m.kind) await store.recordSent(m, res.ts, account.me());
    else await store.markSent(m, res.ts);
    changed(m.chat);
    lane(m.chat).backoff = FIRST_BACKOFF;
    if (gone && gone.from === account.me()) transfer.forget(gone);
    return true;
  } catch (e) {
    if (e && e.code === 'not_member') {
      return fail(m, { code: 'not_member', text: 'Not sent: you are no longer a member of this group.' });
    }
    if (!(e instanceof api.ApiError)) {
      return fail(m, { code: 'internal', text: 'Could not encrypt this message: ' + e.message });
    }
    // These refusals come only for an id the relay does not hold (it
    // answers a known one from its record, ADR 0084): no attempt of it
    // reached the relay, and it may be cancelled again.
    if (e.code === 'rate_limited' || e.code === 'clock_skew' || e.code === 'unknown_recipient') m = { ...m, unanswered: false };
    if (e.code === 'clock_skew') {
      if (reused && !freshOnly) {
        // The relay knows no envelope of this id (it would have answered
        // from its record, ADR 0084), and its time is too far from the
        // relay's: nothing of it was accepted. Once more, fresh.
        const fresh = { ...m, id: ulid(), tries: 0, error: null };
        await store.renewOutgoing(fresh, m.id);
        changed(m.chat);
        return attempt(fresh, true);
      }
      const off = Date.now() - e.serverTime;
      const how = off > 0 ? 'ahead of' : 'behind';
      return fail(m, { code: 'clock_skew', text: `Not sent: this device's clock is ${humanDuration(off)} ${how} the relay's. Set the correct time, then retry.` });
    }
    if (e.code === 'account_deleted' && isGroup(m.chat)) {
      return fail(m, { code: 'account_deleted', text: 'Not sent: every other member of this group deleted their account.' });
    }
    if (e.code === 'account_deleted') {
      // No Retry can ever work: the chat learns it before it shows this.
      markDeleted(m.chat);
      return fail(m, { code: 'account_deleted', text: `Not sent: ${m.chat} deleted their account, so nothing can be sent to them any more.` });
    }
    if (e.code === 'unknown_recipient') {
      return fail(m, { code: 'unknown_recipient', text: `Not sent: there is no account named ${m.chat}.` });
    }
    return waitOrFail(m, e);
  }
}

// waitOrFail handles a refusal that is not one of a message's own: the
// rate limit and a relay that cannot be reached are waits, the chat's next
// pass sends it by itself; anything else fails, with Retry.
async function waitOrFail(m, e) {
  if (e.code === 'rate_limited') {
    // A wait, not a failure: the chat's next pass sends it by itself
    // when Retry-After has passed, and the ones after it in order.
    const secs = e.retryAfter > 0 ? e.retryAfter : 60;
    await store.markWaiting(m, { code: 'rate_limited', until: Date.now() + secs * 1000, text: 'Waiting to send: too many messages in a short time. It will be sent by itself.' });
    changed(m.chat);
    later(m.chat, secs * 1000);
    return false;
  }
  if (api.transient(e)) {
    await store.markWaiting(m, { code: 'network', text: 'Not sent yet: the relay cannot be reached. It will be retried.' });
    changed(m.chat);
    const l = lane(m.chat);
    later(m.chat, l.backoff);
    l.backoff = Math.min(l.backoff * 2, MAX_BACKOFF);
    return false;
  }
  return fail(m, { code: e.code, text: 'Not sent: ' + e.message });
}
