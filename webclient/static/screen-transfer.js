// screen-transfer.js: the history handed to a newly linked device, as
// people see it (historyxfer.js does it): one banner above every screen,
// with the offer on the approving device (what each choice carries), how
// a transfer goes on either device, Ask again and Dismiss.

import * as sync from './sync.js';
import { el } from './dom.js';

/** @param {number} b */
function size(b) {
  return b < 1048576 ? `${Math.max(1, Math.round(b / 1024))} KB` : `${(b / 1048576).toFixed(1)} MB`;
}

/** @param {number} n @param {string} one @param {string} many */
function count(n, one, many) {
  return `${n.toLocaleString('en')} ${n === 1 ? one : many}`;
}

/** @param {string | undefined} id */
function deviceName(id) {
  const d = (sync.devices() || []).find((x) => x.id === id);
  return d ? d.name : 'your other device';
}

/** @type {{d: {id: string, name: string, publicKey: string}, all: any, recent: any, since: number} | null} */
let offering = null;

/**
 * offerHistory offers, on the device that just approved device d, to
 * bring it the history: everything, the last 30 days, or none, each with
 * what it carries. The offer is in the banner, so that nothing else on
 * the page waits for it; the focus goes to it.
 * @param {{id: string, name: string, publicKey: string}} d
 */
export async function offerHistory(d) {
  const since = sync.since30();
  const { all, recent } = await sync.estimateHistory(since);
  offering = { d, all, recent, since };
  await renderHistoryBanner();
  const b = document.getElementById('history-all');
  if (b) b.focus();
}

/** @param {{messages: number, files: number, bytes: number}} e */
function what(e) {
  return `${count(e.messages, 'message', 'messages')}${e.files ? ', ' + count(e.files, 'file', 'files') : ''}, about ${size(e.bytes)}`;
}

/** @param {number | null} since */
function choose(since) {
  const o = offering;
  offering = null;
  if (o && since !== null) sync.sendHistory(o.d, since);
  renderHistoryBanner();
}

// The banner is drawn again every few seconds while a transfer to this
// device is announced and not there: a device that stopped is noticed.
let ticker = /** @type {ReturnType<typeof setInterval> | null} */ (null);

/** @param {any} o */
function stale(o) {
  return o.state === 'coming' && Date.now() - o.at > 60000 + (o.estimate || 0) / 200;
}

/**
 * banner is the text and the buttons of what is under way, or null.
 * @returns {Promise<Node[] | null>}
 */
async function bannerParts() {
  if (offering) {
    const { d, all, recent, since } = offering;
    return [el('span', { id: 'history-offer' }, `Bring your history to ${d.name}? It starts empty. It is sent encrypted for ${d.name} alone, and the relay deletes it once ${d.name} has it (within an hour).`), ' ',
      el('button', { type: 'button', id: 'history-all', class: 'primary', onclick: () => choose(0) }, `Everything (${what(all)})`), ' ',
      el('button', { type: 'button', id: 'history-30', onclick: () => choose(since) }, `The last 30 days (${what(recent)})`), ' ',
      el('button', { type: 'button', id: 'history-none', onclick: () => choose(null) }, 'None')];
  }
  const s = sync.historySendState();
  if (s) {
    const pct = Math.floor((s.done * 100) / Math.max(1, s.total));
    const text = s.step === 'reading' ? `Sending your history to ${s.name}: reading it… ${pct} %`
      : s.step === 'uploading' ? `Sending your history to ${s.name}: uploading… ${pct} %`
        : s.step === 'sent' ? `Your history was sent to ${s.name}. It arrives there when ${s.name} is open.`
          : `Your history could not be sent to ${s.name}: ${s.error} Approving again is not needed: ${s.name} can ask again.`;
    const busy = s.step === 'uploading' || s.step === 'reading';
    return [el('span', { id: 'history-send' }, text), ' ', busy ? el('progress', { max: String(s.total), value: String(s.done), 'aria-label': 'Sending the history' })
      : el('button', { type: 'button', id: 'history-sent-dismiss', onclick: () => sync.dismissHistorySent() }, 'Dismiss')];
  }
  const askRec = await sync.historyAsked();
  if (askRec) {
    const d = (sync.devices() || []).find((x) => x.id === askRec.from);
    return [el('span', { id: 'history-asked' }, `${deviceName(askRec.from)} asks for your history again.`), ' ',
      d ? el('button', { type: 'button', id: 'history-resend', onclick: async () => { await sync.dismissHistory('ask'); await offerHistory(d); } }, 'Send history…') : null,
      ' ', el('button', { type: 'button', id: 'history-ask-dismiss', onclick: () => sync.dismissHistory('ask') }, 'Dismiss')].filter((x) => x !== null);
  }
  const o = await sync.historyIncoming();
  if (!o) return null;
  const from = deviceName(o.from);
  const again = el('button', { type: 'button', id: 'history-ask-again', onclick: () => sync.askHistoryAgain().catch((e) => alertText(e)) }, 'Ask again');
  const dismiss = el('button', { type: 'button', id: 'history-dismiss', onclick: () => sync.dismissHistory('in') }, 'Dismiss');
  const p = sync.historyProgress();
  if (o.state === 'ready' || p) {
    return [el('span', { id: 'history-in' }, `Bringing your history from ${from}…`), p ? el('progress', { max: String(p.total), value: String(p.done), 'aria-label': 'Downloading the history' }) : null].filter((x) => x !== null);
  }
  if (o.state === 'coming') {
    if (stale(o)) return [el('span', { id: 'history-in' }, `${from} has not sent your history yet: it may have closed or lost its connection.`), ' ', again, ' ', dismiss];
    return [el('span', { id: 'history-in' }, `${from} is preparing your history (about ${size(o.estimate || 0)}). Keep this page open.`)];
  }
  if (o.state === 'done') {
    return [el('span', { id: 'history-in' }, `Your history from ${from} is here: ${count(o.messages, 'message', 'messages')} in ${count(o.chats, 'chat', 'chats')}.`), ' ', dismiss];
  }
  if (o.state === 'asked') return [el('span', { id: 'history-in' }, `Asked ${from} for your history again. It sends it when it is open.`), ' ', dismiss];
  const why = o.state === 'stopped' ? `${from} could not finish sending your history.`
    : o.reason === 'gone' ? `Your history from ${from} is no longer on the relay, which keeps it for an hour.`
      : o.reason === 'digest' ? `Your history from ${from} was changed on its way, so nothing of it was imported.`
        : `Your history from ${from} could not be downloaded.`;
  return [el('span', { id: 'history-in' }, why), ' ', again, ' ', dismiss];
}

/** @param {any} e */
function alertText(e) {
  const b = document.getElementById('history-in');
  if (b) b.textContent = 'Could not ask again: ' + (e instanceof Error ? e.message : e);
}

// renderHistoryBanner draws the banner of the history transfer, or
// takes it away.
export async function renderHistoryBanner() {
  const parts = sync.me() && sync.isLinked() ? await bannerParts() : null;
  let banner = document.getElementById('history-banner');
  if (!parts) {
    if (banner) banner.remove();
    return;
  }
  if (!banner) {
    banner = el('div', { id: 'history-banner', class: 'notice', role: 'status' });
    /** @type {HTMLElement} */ (document.getElementById('purge-notice')).after(banner);
  }
  // Drawn again only when what it says changed: a status region that is
  // rebuilt unchanged is read out again, and its buttons would move under
  // a pointer on its way to them.
  const next = el('div', {}, ...parts);
  if (next.innerHTML !== banner.innerHTML) {
    const focused = banner.contains(document.activeElement) ? /** @type {HTMLElement} */ (document.activeElement).id : null;
    banner.replaceChildren(...next.childNodes);
    if (focused) {
      const again = document.getElementById(focused);
      if (again) again.focus();
    }
  }
  const o = await sync.historyIncoming();
  if (o && o.state === 'coming' && !ticker) ticker = setInterval(() => renderHistoryBanner(), 5000);
  if (!(o && o.state === 'coming') && ticker) {
    clearInterval(ticker);
    ticker = null;
  }
}
