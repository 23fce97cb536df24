// screen-messages.js: the rows of the open chat: what each message shows,
// its menu of actions (react, reply, edit, delete, mark as unread) and the
// dialogs they ask in.

import * as sync from './sync.js';
import { reactionsOf, filesLabel } from './records.js';
import { filesNode, filesSig, placeholderURL } from './screen-files.js';
import { linkified } from './links.js';
import * as time from './time.js';
import { el, ask } from './dom.js';
import { ui, view, retryable, plural } from './ui.js';
import { isGroup } from './groupmeta.js';
import { timerLabel, timerShort } from './expiry.js';
import { openReport } from './screen-report.js';

// bodyText is what a bubble says. A message waiting to decrypt says what
// it waits for; it opens by itself, so it offers nothing to press.
export function bodyText(m) {
  if (m.unknown) return 'This message needs a newer version of the app. Update the app to read it.';
  if (m.waiting) return `Waiting to decrypt… This message will appear when ${m.chat}'s key can be fetched from the relay.`;
  if (m.downgrade) return 'Refused: this message came without the chat\u2019s forward-secret encryption, which the sender\u2019s device already uses. Someone who holds the account key may have forged it.';
  if (m.undecryptable) return 'Could not decrypt this message.';
  if (m.files && m.files.length) return m.text ? `${filesLabel(m.files)}: ${m.text}` : filesLabel(m.files);
  return m.text;
}

// waitText says how long a message held back by the rate limit still
// waits, in whole seconds.
function waitText(until) {
  const n = Math.ceil((until - Date.now()) / 1000);
  if (n <= 0) return 'Sending now…';
  return `Waiting ${n} ${plural.select(n) === 'one' ? 'second' : 'seconds'} to send: too many messages in a short time. It will be sent by itself.`;
}

// The countdowns of the open chat tick once a second while there are any.
let ticker = null;

function tick() {
  /** @type {NodeListOf<HTMLElement>} */
  const waits = view.querySelectorAll('.msg .wait[data-until]');
  const list = ui.chat && view.contains(ui.chat.list) ? ui.chat.list : null;
  const atBottom = list && list.scrollHeight - list.scrollTop - list.clientHeight < 40;
  for (const w of waits) w.textContent = waitText(Number(w.dataset.until));
  if (atBottom) list.scrollTop = list.scrollHeight;
  if (!waits.length) {
    clearInterval(ticker);
    ticker = null;
  }
}

// REACTIONS are the emoji a message menu offers.
const REACTIONS = ['👍', '❤️', '😂', '😮', '😢', '🙏'];

// shownMessages turns the stored messages of a chat and the records of its
// outbox into what the bubbles show: an edit, a deletion or a reaction
// waiting for the relay shows at once, marked as not sent yet, and a
// failed one says so with Retry (docs/storage.md, "Records").
export function shownMessages(msgs, outRecs, me) {
  const byId = new Map(msgs.map((m) => [m.id, { ...m, pending: [] }]));
  for (const r of outRecs) {
    const t = byId.get(r.rec.target);
    if (!t || t.deleted) continue;
    t.pending.push(r);
    if (r.kind === 'edit') t.text = r.rec.text;
    if (r.kind === 'delete') t.deleted = { pending: true };
    if (r.kind === 'reaction') {
      const by = { ...((t.reactions || {})[r.rec.emoji] || {}) };
      by[me] = { on: r.rec.on };
      t.reactions = { ...(t.reactions || {}), [r.rec.emoji]: by };
    }
  }
  return { list: msgs.filter((m) => !m.hidden).map((m) => byId.get(m.id)), byId };
}

// quoteOf is what the quote of a reply says of the message it names.
function quoteOf(id, byId) {
  const q = byId.get(id);
  if (!q || q.hidden) return { gone: true, text: 'The quoted message is not on this device.' };
  if (q.deleted) return { gone: true, text: 'The quoted message was deleted.' };
  if (q.waiting || q.undecryptable || q.unknown) return { gone: true, text: 'The quoted message cannot be shown.' };
  const text = q.text || filesLabel(q.files);
  const photo = q.files && q.files.find((f) => f.kind === 'photo' && f.thumb);
  return { who: q.dir === 'out' ? 'You' : q.from, text: text.length > 90 ? text.slice(0, 90) + '…' : text, thumb: photo ? photo.thumb : null };
}

// tickOf is the state an outgoing message shows: sending, sent (the relay
// took it), delivered (a device of the other person stored it), read (they
// saw it; only when this device shows read receipts).
function tickOf(m, showRead) {
  if (m.status === 'pending') return m.error || m.queuedBehind ? 'waiting to send' : 'sending…';
  if (m.status === 'failed') return 'not sent';
  if (m.status !== 'sent') return '';
  if (m.chat === m.from) return 'sent';
  if (isGroup(m.chat)) return groupTick(m, showRead).key;
  if (m.tick === 'read') return showRead ? 'read' : 'delivered';
  return m.tick === 'delivered' ? 'delivered' : 'sent';
}

const tickMarks = { sent: '✓ ', delivered: '✓✓ ', read: '✓✓ ' };

/**
 * receiptsOf sorts the members a group chat's message was sent to by
 * what their receipts say: read, delivered (not read), and neither.
 * @param {any} m
 */
export function receiptsOf(m) {
  const to = Array.isArray(m.to) ? m.to : [];
  const by = m.receipts || {};
  return {
    to,
    read: to.filter((u) => by[u] === 'read'),
    delivered: to.filter((u) => by[u] === 'delivered'),
    none: to.filter((u) => !by[u]),
  };
}

/**
 * groupTick is what a group chat's own message shows: read by some of
 * its members (if this device shows read receipts), else delivered to
 * some, else sent; key is the mark's kind, text its words.
 * @param {any} m
 * @param {boolean} showRead
 */
function groupTick(m, showRead) {
  const r = receiptsOf(m);
  const n = r.to.length;
  const delivered = r.delivered.length + r.read.length;
  if (showRead && r.read.length) return { key: 'read', text: r.read.length === n ? 'read by all' : `read by ${r.read.length} of ${n}` };
  if (delivered) return { key: 'delivered', text: delivered === n ? 'delivered to all' : `delivered to ${delivered} of ${n}` };
  return { key: 'sent', text: 'sent' };
}

// markQueued notes on each message waiting behind another that waits (for
// the rate limit, or for the relay) what it waits for: a chat sends in its
// order, so they all wait for the same reason (docs/storage.md, "Order").
export function markQueued(shown) {
  let holder = null;
  for (const m of shown) {
    if (m.dir !== 'out' || m.status !== 'pending') continue;
    if (m.error) holder = m;
    else if (holder) m.queuedBehind = holder.error.code;
  }
}

function queuedText(code) {
  if (code === 'rate_limited') return 'Waiting to send: too many messages in a short time. It will be sent by itself after the ones before it.';
  if (code === 'network') return 'Not sent yet: the relay cannot be reached. It will be sent by itself after the ones before it.';
  return 'Waiting to send after the messages before it. It will be sent by itself.';
}

// cancellable: a message waiting to send that no attempt may have brought
// to the relay, so cancelling it means it never arrives.
function cancellable(m) {
  return m.dir === 'out' && m.status === 'pending' && !m.kind && !m.unanswered;
}

// expiresNode marks a message that disappears: ⏱ and its timer, and in
// words when it goes (a time, once its time started).
function expiresNode(m) {
  const at = m.expireAt;
  const words = at ? (at - Date.now() < 864e5 ? `Disappears at ${time.clock(at)}` : `Disappears ${time.full(at)}`) : m.dir === 'out'
    ? `Disappears ${timerLabel(m.expires)} after it is sent` : `Disappears ${timerLabel(m.expires)} after you read it`;
  return el('span', { class: 'expires', title: words }, ' · ', el('span', { 'aria-hidden': 'true' }, '⏱ ' + timerShort(m.expires)), el('span', { class: 'sr-only' }, words.toLowerCase()));
}

function messageNode(m, ctx) {
  const cls = ['msg', m.dir, m.mention ? 'mentioned' : '', m.status === 'failed' ? 'failed' : '', m.undecryptable ? 'undecryptable' : '', m.waiting ? 'waiting' : '', m.deleted ? 'deleted' : '', m.unknown ? 'unknown' : ''].filter(Boolean).join(' ');
  const waiting = m.status === 'pending' && m.error && m.error.code === 'rate_limited' && m.error.until;
  // A message that waits for the relay says so once, in the ink colour:
  // never "sending…" next to a red error.
  const held = m.status === 'pending' && m.error && !waiting;
  const shownTick = m.dir === 'out' ? tickOf(m, ctx.showRead) : '';
  const tickText = shownTick && m.status === 'sent' && isGroup(m.chat) ? groupTick(m, ctx.showRead).text : shownTick;
  const node = el('li', { class: cls, 'data-id': m.id, 'data-status': m.status, 'data-tick': shownTick || null, tabindex: '-1' });
  // In a group chat, each message from another says whose it is.
  if (m.dir === 'in' && isGroup(m.chat)) node.append(el('span', { class: 'sender' }, m.from));
  if (m.replyTo && !m.deleted) {
    const q = quoteOf(m.replyTo, ctx.byId);
    node.append(q.gone
      ? el('span', { class: 'quote gone' }, q.text)
      : el('button', { type: 'button', class: 'quote', 'data-target': m.replyTo, 'aria-label': `Quoted message from ${q.who}: ${q.text}. Show it`, onclick: () => showQuoted(m.replyTo) },
        q.thumb ? el('img', { class: 'quote-thumb', alt: '', src: placeholderURL(q.thumb) }) : null,
        el('span', { class: 'quote-who' }, q.who), ' ', el('span', { class: 'quote-text' }, q.text)));
  }
  if (m.files && !m.deleted) node.append(filesNode(m));
  // Only what the person wrote gets links, never the client's own words.
  const written = !m.deleted && !m.unknown && !m.waiting && !m.undecryptable;
  // A message of files without a caption has an empty text, hidden.
  node.append(el('span', { class: 'text', hidden: written && !!m.files && !m.text }, ...(written ? linkified(m.text) : [m.deleted ? 'This message was deleted' : bodyText(m)])));
  const edited = !m.deleted && (m.edited || m.pending.some((r) => r.kind === 'edit'));
  node.append(el('span', { class: 'meta' }, el('time', { datetime: new Date(m.ts).toISOString(), title: time.full(m.ts) }, time.clock(m.ts)),
    edited ? el('span', { class: 'edited' }, ' · edited') : null,
    m.expires && !m.deleted ? expiresNode(m) : null,
    shownTick ? ' · ' : '', shownTick ? el('span', { class: 'status' }, tickMarks[shownTick] ? el('span', { 'aria-hidden': 'true' }, tickMarks[shownTick]) : null, tickText) : null));
  if (waiting) {
    // role=timer: read on request, not announced every second.
    node.append(el('span', { class: 'wait', role: 'timer', 'data-until': m.error.until }, waitText(m.error.until)));
    if (!ticker) ticker = setInterval(tick, 1000);
  } else if (held) {
    node.append(el('span', { class: 'wait' }, m.error.text));
  } else if (m.queuedBehind) {
    node.append(el('span', { class: 'wait' }, queuedText(m.queuedBehind)));
  } else if (m.error && m.status !== 'sent') {
    const text = m.error.code === 'device_forbidden' ? 'Not sent: this browser was removed from your account.' : m.error.text;
    node.append(el('span', { class: 'error', role: 'alert' }, text));
    // A revoked device cannot send, nor can anyone to a deleted account:
    // a Retry could never work.
    if (m.status === 'failed' && retryable(m.chat)) node.append(' ', el('button', { type: 'button', class: 'retry', onclick: () => sync.retry(m.id) }, 'Retry'));
  }
  for (const r of m.pending) {
    const what = { edit: 'edit', delete: 'deletion', reaction: 'reaction' }[r.kind];
    if (r.status === 'failed') {
      node.append(el('span', { class: 'error record-error', role: 'alert' }, `Your ${what} was not sent: ${r.error ? r.error.text : 'the relay refused it'}.`),
        retryable(m.chat) ? el('button', { type: 'button', class: 'retry', onclick: () => sync.retry(r.id) }, 'Retry') : '',
        ' ', el('button', { type: 'button', class: 'discard', onclick: () => sync.discard(r.id) }, 'Discard'));
    } else if (r.error && r.error.code === 'network') {
      node.append(el('span', { class: 'muted record-wait' }, `Your ${what} is not sent yet: the relay cannot be reached. It will be retried.`));
    }
  }
  const reactions = m.deleted ? [] : reactionsOf(m);
  if (reactions.length) {
    node.append(el('span', { class: 'reactions' }, ...reactions.map((r) => {
      const mine = r.by.includes(ctx.me);
      const names = r.by.map((u) => (u === ctx.me ? 'you' : u)).join(', ');
      return el('button', {
        type: 'button', class: 'reaction', 'aria-pressed': String(mine), 'data-emoji': r.emoji, title: names,
        'aria-label': `${r.emoji} ${r.by.length}, from ${names}. ${mine ? 'Remove yours' : 'Add yours'}`,
        onclick: () => reactTo(m, r.emoji, !mine, ctx),
      }, r.emoji, ' ', el('span', { class: 'count' }, String(r.by.length)));
    })));
  }
  // In the meta line, after the time and the tick: a bubble keeps to two
  // rows; the menu opens below them.
  // A message waiting to send has one action: cancel it, while it can be.
  if ((!m.waiting && !(m.dir === 'out' && m.status === 'pending')) || cancellable(m)) node.querySelector('.meta').append(menuButton(m, ctx));
  return node;
}

async function reactTo(m, emoji, on, ctx) {
  try {
    await sync.react(m.chat, m.id, emoji, on);
  } catch (ex) {
    chatNotice(ex.message);
  }
  if (ctx.focusAfter) ctx.focusAfter();
}

// chatNotice says in the chat why an action could not be done.
export function chatNotice(text) {
  const slot = document.getElementById('chat-error');
  if (slot) slot.textContent = text;
}

// showQuoted scrolls to the message a reply quotes and marks it a moment.
function showQuoted(id) {
  const n = ui.chat && ui.chat.list.querySelector(`.msg[data-id="${id}"]`);
  if (!n) return;
  n.scrollIntoView({ block: 'center' });
  n.classList.add('highlight');
  n.focus({ preventScroll: true });
  setTimeout(() => n.classList.remove('highlight'), 2000);
}

// menuButton is the "Message actions" button of a bubble, with its menu:
// react, reply, edit, delete, mark as unread, report. Esc closes it.
function menuButton(m, ctx) {
  const wrap = el('span', { class: 'msg-menu' });
  const btn = el('button', { type: 'button', class: 'msg-actions', 'aria-haspopup': 'true', 'aria-expanded': 'false', 'aria-label': 'Message actions' }, '⋯');
  let menu = null;
  const close = (focus = true) => {
    if (!menu) return;
    menu.remove();
    menu = null;
    btn.setAttribute('aria-expanded', 'false');
    document.removeEventListener('pointerdown', outside, true);
    if (focus) btn.focus();
  };
  const outside = (e) => {
    if (!wrap.contains(e.target)) close(false);
  };
  const item = (label, cls, fn) => el('button', { type: 'button', class: 'menu-item ' + cls, onclick: () => { close(false); fn(); } }, label);
  btn.addEventListener('click', () => {
    if (menu) return close();
    const own = m.from === ctx.me && m.dir === 'out';
    const live = !m.deleted && !m.unknown && !m.undecryptable;
    const items = [];
    if (m.status === 'pending') items.push(item('Cancel sending', 'cancel-send-btn', () => cancelSend(m)));
    else if (live) {
      items.push(el('span', { class: 'react-row', role: 'group', 'aria-label': 'React' }, ...REACTIONS.map((e) => {
        const mine = !!(((m.reactions || {})[e] || {})[ctx.me] || {}).on;
        return el('button', { type: 'button', class: 'react-pick', 'aria-label': `React with ${e}`, 'aria-pressed': String(mine), onclick: () => { close(false); reactTo(m, e, !mine, ctx); } }, e);
      })));
      items.push(item('Reply', 'reply-btn', () => ctx.reply(m)));
      if (own && m.status === 'sent' && isGroup(m.chat)) items.push(item('Info', 'info-btn', () => messageInfo(m, ctx)));
      if (own && m.status === 'sent') {
        items.push(item('Edit', 'edit-btn', () => ctx.edit(m)));
        items.push(item('Delete for everyone', 'delete-all-btn', () => deleteEveryone(m)));
      }
    }
    if (m.status !== 'pending') items.push(item('Delete for me', 'delete-me-btn', () => deleteMine(m)));
    if (m.dir === 'in' && !m.waiting) items.push(item('Mark as unread', 'mark-unread', () => markUnreadFrom(m)));
    if (m.dir === 'in' && live && !m.event && m.from !== ctx.me) items.push(item('Report…', 'report-msg-btn', () => openReport(m.chat, m.from, m.id)));
    menu = el('span', { class: 'menu', role: 'group', 'aria-label': 'Message actions' }, ...items);
    menu.addEventListener('keydown', (e) => {
      if (e.key === 'Escape') {
        e.stopPropagation();
        close();
        return;
      }
      menuKey(e, menu);
    });
    wrap.append(menu);
    btn.setAttribute('aria-expanded', 'true');
    document.addEventListener('pointerdown', outside, true);
    menu.querySelector('button').focus();
  });
  wrap.append(btn);
  return wrap;
}

// messageInfo shows who of a group chat's members read one's message,
// who has it delivered, and who has neither yet.
async function messageInfo(m, ctx) {
  const r = receiptsOf(m);
  const line = (label, list, id) => el('p', { id }, el('strong', {}, label + ': '), list.length ? list.join(', ') : 'none');
  await ask({
    id: 'msg-info', title: 'Message info', cancelId: 'msg-info-close', cancelLabel: 'Close', actions: [],
    body: [
      ctx.showRead ? line('Read by', r.read, 'info-read') : null,
      line('Delivered to', ctx.showRead ? r.delivered : [...r.read, ...r.delivered], 'info-delivered'),
      line('Not yet', r.none, 'info-none'),
      ctx.showRead ? null : el('p', { class: 'muted' }, 'Read receipts are off on this device: who read it is not shown.'),
    ].filter(Boolean),
  });
}

// menuKey moves the focus between the buttons of an open menu: Down and
// Right to the next (from the last to the first), Up and Left back, Home
// and End to the first and the last.
function menuKey(e, menu) {
  if (e.altKey || e.ctrlKey || e.metaKey) return;
  const items = [...menu.querySelectorAll('button')];
  const at = items.indexOf(document.activeElement);
  const to = { ArrowDown: at + 1, ArrowRight: at + 1, ArrowUp: at - 1, ArrowLeft: at - 1, Home: 0, End: items.length - 1 }[e.key];
  if (to === undefined || !items.length) return;
  e.preventDefault();
  items[(to + items.length) % items.length].focus();
}

async function deleteEveryone(m) {
  const ok = await ask({
    id: 'delete-dialog', title: 'Delete for everyone?',
    body: [el('p', {}, `The message is deleted on your devices and on ${m.chat}'s: "This message was deleted" stays in its place.`)],
    actions: [{ id: 'delete-confirm', value: 'delete', class: 'danger', label: 'Delete for everyone' }],
  });
  if (!ok) return;
  try {
    await sync.deleteForEveryone(m.chat, m.id);
  } catch (ex) {
    chatNotice(ex.message);
  }
}

// cancelSend deletes a message waiting to send before it goes, after a
// confirmation; if it went meanwhile, the chat says so.
async function cancelSend(m) {
  const ok = await ask({
    id: 'cancel-dialog', title: "Don't send this message?",
    body: [el('p', {}, `It is deleted before it is sent: ${m.chat === sync.me() ? 'your other devices never get' : m.chat + ' never gets'} it.`)],
    actions: [{ id: 'cancel-confirm', value: 'cancel', class: 'danger', label: "Don't send it" }],
  });
  if (!ok) return;
  try {
    await sync.cancel(m.id);
  } catch (ex) {
    chatNotice(ex.message);
  }
  if (ui.chat) ui.chat.text.focus();
}

async function deleteMine(m) {
  const ok = await ask({
    id: 'delete-dialog', title: 'Delete for me?',
    body: [el('p', {}, `The message goes from this browser only. Your other devices and ${m.chat === sync.me() ? 'your notes' : m.chat} keep it.`)],
    actions: [{ id: 'delete-confirm', value: 'delete', class: 'danger', label: 'Delete for me' }],
  });
  if (ok) await sync.deleteForMe(m.id);
}

// chatRows returns the rows of a chat in the chat's order, each with a key,
// a signature of what it shows and, for a message, the message.
export function chatRows(shown, ctx) {
  const rows = [];
  let day = '';
  const now = Date.now();
  for (const m of shown) {
    const d = time.day(m.ts, now);
    if (d !== day) {
      day = d;
      rows.push({ key: 'day:' + d, sig: '', make: () => el('li', { class: 'day-sep' }, d) });
    }
    if (m.id === ui.dividerAt) rows.push({ key: 'new', sig: '', make: () => el('li', { class: 'new-divider', id: 'new-divider' }, 'New messages') });
    if (m.event) {
      // A change of a group: a line across the chat, not a bubble.
      rows.push({ key: 'msg:' + m.id, sig: m.line, make: () => el('li', { class: 'event', 'data-id': m.id }, m.line) });
      continue;
    }
    const quote = m.replyTo ? quoteOf(m.replyTo, ctx.byId) : null;
    const sig = JSON.stringify([m.text, m.ts, m.status, m.error, m.queuedBehind, cancellable(m), m.undecryptable, m.waiting, m.status === 'failed' && retryable(m.chat), m.deleted, m.edited, m.reactions, m.tick, m.receipts, m.mention, ctx.showRead, quote, filesSig(m),
      m.pending.map((r) => [r.id, r.status, r.error]), m.expires, m.expireAt]);
    rows.push({ key: 'msg:' + m.id, msg: m, sig, make: () => messageNode(m, ctx) });
  }
  if (!shown.length) rows.push({ key: 'empty', sig: '', make: () => el('li', { class: 'muted empty' }, 'No messages yet.') });
  return rows;
}

// markUnreadFrom makes m and what follows it unread, here and on the
// account's other devices, and goes back to the chat list: staying would
// read them again at once.
async function markUnreadFrom(m) {
  // Leaving is not reading: neither the leaving nor the change that comes
  // back while the chat is still on screen moves the position forward.
  ui.openChat = null;
  ui.current = null;
  await sync.markUnread(m.chat, m.id);
  location.hash = '#/chats';
}
