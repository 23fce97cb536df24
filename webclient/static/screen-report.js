// screen-report.js: blocking a contact and reporting one (ADRs 0118,
// 0119): the section of a one-to-one chat's info panel, and the report
// dialog, which shows exactly what the operator will read.

import * as sync from './sync.js';
import { el, confirmDialog } from './dom.js';
import { full } from './time.js';

// blockSection is the info panel's Block and report section for the
// contact username, blocked or not.
export function blockSection(username, blocked) {
  const status = el('p', { id: 'block-status', role: 'status' });
  const error = el('p', { id: 'block-error', class: 'error', role: 'alert' });
  const toggle = el('button', {
    type: 'button', id: 'block-btn', class: blocked ? '' : 'danger',
    onclick: async () => {
      error.textContent = '';
      if (!blocked && !(await confirmDialog(`Block ${username}?`,
        `${username} will not be told. Nothing ${username} sends from now on reaches any of your devices, and ${username} gets no delivery or read receipts from you. Unblocking later does not bring back what was sent meanwhile.`,
        'Block'))) return;
      try {
        await sync.setBlocked(username, !blocked);
        status.textContent = blocked ? `You unblocked ${username}.` : `You blocked ${username}.`;
      } catch (e) {
        error.textContent = `${username} was not ${blocked ? 'unblocked' : 'blocked'}: ${e && e.message ? e.message : 'something went wrong'} Try again.`;
      }
    },
  }, blocked ? `Unblock ${username}` : `Block ${username}`);
  const report = el('button', { type: 'button', id: 'report-btn', onclick: () => openReport(username, username, null) }, `Report ${username}…`);
  return el('section', { class: 'block-box', 'aria-labelledby': 'block-title' },
    el('h4', { id: 'block-title' }, 'Block and report'),
    el('p', { class: 'muted', id: 'block-state' }, blocked
      ? `You blocked ${username}: what ${username} sends is dropped on all your devices, and ${username} was not told.`
      : `Blocking drops what ${username} sends on all your devices without telling ${username}. A report sends the messages you choose to the people who run this relay.`),
    el('p', { class: 'block-actions' }, toggle, ' ', report), status, error);
}

// openReport opens the report dialog about the account `about` from the
// chat chat, with the message chosen ticked (null for none).
export async function openReport(chat, about, chosen) {
  const draft = await sync.reportDraft(chat, about);
  const me = sync.me();
  const dlg = el('dialog', { id: 'report-dialog', 'aria-labelledby': 'report-title', 'aria-describedby': 'report-what' });
  const summary = el('p', { id: 'report-summary', role: 'status' });
  const error = el('p', { id: 'report-error', class: 'error', role: 'alert' });
  const boxes = draft.messages.map((m) => {
    const box = el('input', { type: 'checkbox', id: 'report-msg-' + m.id, value: m.id, checked: m.id === chosen ? '' : null });
    box.addEventListener('change', count);
    return el('li', { class: 'report-msg' }, box, ' ',
      el('label', { for: box.id }, el('span', { class: 'report-from' }, m.from === me ? 'You' : m.from, ', ', full(m.at)), el('span', { class: 'report-text' }, m.text)));
  });
  const picked = () => draft.messages.filter((m) => /** @type {HTMLInputElement} */ (dlg.querySelector('#report-msg-' + m.id)).checked);
  const reason = el('select', { id: 'report-reason' }, ...sync.REPORT_REASONS.map(([v, label]) => el('option', { value: v }, label)));
  const comment = el('textarea', { id: 'report-comment', maxlength: String(sync.MAX_COMMENT), rows: '2' });
  const block = el('input', { type: 'checkbox', id: 'report-block' });
  const send = el('button', { type: 'button', id: 'report-send', class: 'primary' }, 'Send report');
  const cancel = el('button', { type: 'button', id: 'report-cancel', class: 'dialog-cancel', onclick: () => dlg.close('') }, 'Cancel');
  function count() {
    const n = picked().length;
    send.disabled = n === 0 || n > sync.MAX_REPORT_MESSAGES;
    summary.textContent = n === 0 ? 'Tick at least one message.'
      : n > sync.MAX_REPORT_MESSAGES ? `A report holds at most ${sync.MAX_REPORT_MESSAGES} messages: untick ${n - sync.MAX_REPORT_MESSAGES}.`
        : `The operator will be able to read ${n === 1 ? 'this 1 message' : `these ${n} messages`}, with who wrote each and when, and your name and ${about}'s.`;
  }
  send.addEventListener('click', async () => {
    error.textContent = '';
    send.disabled = true;
    try {
      await sync.sendReport(draft, { ids: picked().map((m) => m.id), reason: reason.value, comment: comment.value.trim() });
      if (block.checked) await sync.setBlocked(about, true);
      sent();
    } catch (e) {
      error.textContent = 'The report was not sent: ' + (e && e.message ? e.message : 'something went wrong.') +
        (e && e.code === 'network' ? ' Nothing was lost: send it again when you are online.' : '');
      count();
    }
  });
  const list = draft.messages.length
    ? el('ul', { class: 'plain report-list', 'aria-label': 'Messages to include' }, ...boxes)
    : el('p', { class: 'muted' }, 'There is no message of this chat on this device to include.');
  dlg.append(el('h2', { id: 'report-title' }, `Report ${about}`),
    el('p', { id: 'report-what' }, `Tick the messages to send to the people who run this relay. They will read exactly those, as this device shows them, with who wrote each and when, and your name and ${about}'s. Nothing else of this chat is sent, and ${about} is not told.`),
    list,
    el('p', { class: 'report-field' }, el('label', { for: 'report-reason' }, 'Reason'), ' ', reason),
    el('p', { class: 'report-field' }, el('label', { for: 'report-comment' }, 'Anything to add (optional)'), comment),
    about === me ? null : el('p', { class: 'report-field report-check' }, block, el('label', { for: 'report-block' }, `Also block ${about}`)),
    summary, error,
    el('p', { class: 'dialog-actions' }, cancel, send));
  // Sent: the dialog says so until it is closed.
  function sent() {
    const close = el('button', { type: 'button', id: 'report-close', class: 'primary', onclick: () => dlg.close('sent') }, 'Close');
    dlg.replaceChildren(el('h2', { id: 'report-title' }, 'Report sent'),
      el('p', { id: 'report-what', role: 'status' }, `Your report about ${about} was sent to the people who run this relay.`,
        block.checked ? ` ${about} is blocked.` : ''),
      el('p', { class: 'dialog-actions' }, close));
    close.focus();
  }
  dlg.addEventListener('close', () => dlg.remove());
  document.body.append(dlg);
  count();
  dlg.showModal();
  const first = dlg.querySelector('input:checked') || dlg.querySelector('input[type=checkbox]') || reason;
  /** @type {HTMLElement} */ (first).focus();
}
