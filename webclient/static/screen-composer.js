// screen-composer.js: the open chat's composer: Enter sends and
// Shift+Enter makes a new line, Up edits the last message, Esc leaves a
// reply or an edit; and what it says when it is off or a message is full.

import * as sync from './sync.js';
import { MAX_TEXT, filesLabel } from './records.js';
import { attachParts } from './screen-attach.js';
import { el } from './dom.js';
import { ui, view, revoked, chatName } from './ui.js';
import { chatNotice } from './screen-messages.js';

// renderComposer disables the composer of a revoked device, and of a chat
// whose contact deleted their account, and says why and what to do.
export function renderComposer() {
  if (!ui.chat || !view.contains(ui.chat.text)) return;
  const gone = sync.isDeleted(ui.chat.username);
  const removed = !!ui.chat.removed;
  const blocked = !!ui.chat.blocked;
  const off = revoked() || gone || removed || blocked;
  ui.chat.text.disabled = off;
  ui.chat.sendBtn.disabled = off;
  if (ui.chat.att) {
    ui.chat.att.attachBtn.disabled = off;
    ui.chat.att.micBtn.disabled = off;
  }
  ui.chat.note.hidden = !off;
  ui.chat.note.textContent = revoked() ? 'This browser was removed from your account, so it can no longer send or receive messages. To use it again, log out, then log in: it is added as a new device.'
    : gone ? `This account was deleted. ${ui.chat.username} can no longer receive messages; what you already have stays here.`
      : ui.chat.removed === 'left' ? 'You left this group, so you cannot send in it. What you already have stays here.'
        : removed ? 'You are no longer a member of this group, so you cannot send in it. What you already have stays here.'
          : blocked ? `You blocked ${ui.chat.username}, so you cannot send to them. To write again, unblock them in this chat's Safety code panel.` : '';
}

// watchLength says in slot when the composer cut what was pasted or typed
// at the length a message may have (its maxlength), and how much it kept:
// the browser cuts without a word. The note goes with the next edit that
// cuts nothing.
function watchLength(text, slot) {
  const count = (n) => n.toLocaleString('en');
  const say = (t) => {
    slot.textContent = t;
    slot.hidden = false;
  };
  text.addEventListener('paste', (e) => {
    // The browser keeps line breaks as \n, as the limit counts them.
    const t = e.clipboardData ? e.clipboardData.getData('text/plain').replace(/\r\n?/g, '\n') : '';
    const room = Math.max(0, MAX_TEXT - (text.value.length - (text.selectionEnd - text.selectionStart)));
    if (t.length > room) say(`Only ${count(room)} of the ${count(t.length)} characters pasted were kept: a message holds at most ${count(MAX_TEXT)} characters. Send this part, then paste the rest in another message.`);
  });
  text.addEventListener('input', (e) => {
    if (e.inputType === 'insertFromPaste') return;
    if (text.value.length >= MAX_TEXT) say(`This message is full: a message holds at most ${count(MAX_TEXT)} characters. Send it, then write the rest in another message.`);
    else slot.hidden = true;
  });
}

// lastOwnOf is the last message this account sent that can be edited.
export function lastOwnOf(shown, me) {
  const own = shown.filter((m) => m.dir === 'out' && m.from === me && m.status === 'sent' && !m.deleted && typeof m.text === 'string');
  return own.length ? own[own.length - 1] : null;
}

// composeMode puts the composer in reply or edit mode ({kind, m}) or back
// (null), with the bar above it that says so and cancels.
export function composeMode(mode) {
  if (!ui.chat) return;
  ui.chat.mode = mode;
  const modeBar = ui.chat.modeBar;
  if (!mode) {
    modeBar.hidden = true;
    modeBar.replaceChildren();
    return;
  }
  const cancel = el('button', {
    type: 'button', class: 'mode-cancel', 'aria-label': mode.kind === 'edit' ? 'Cancel editing' : 'Cancel the reply',
    onclick: () => {
      if (mode.kind === 'edit') ui.chat.text.value = '';
      composeMode(null);
      ui.chat.text.focus();
    },
  }, '✕');
  const words = mode.m.text || filesLabel(mode.m.files);
  const snippet = words.length > 90 ? words.slice(0, 90) + '…' : words;
  modeBar.replaceChildren(el('span', { class: 'mode-text' },
    el('strong', {}, mode.kind === 'edit' ? 'Editing your message' : `Replying to ${mode.m.dir === 'out' ? 'yourself' : mode.m.from}`), ' ', el('span', { class: 'muted' }, snippet)), cancel);
  modeBar.hidden = false;
  if (mode.kind === 'edit') ui.chat.text.value = mode.m.text;
  ui.chat.text.focus();
}

// composerParts builds the composer of the chat with username: the text
// area, Send, the bar of the reply or edit mode, the notes under it, and
// its attachments (screen-attach.js): with files in the tray, Send sends
// them with the text as their caption.
export function composerParts(username) {
  const text = el('textarea', { id: 'composer', 'data-chat': username, 'aria-label': `Message to ${chatName(username)}`, placeholder: 'Write a message', rows: 1, maxlength: MAX_TEXT, enterkeyhint: 'send', 'aria-describedby': 'composer-hint composer-note composer-limit' });
  const sendIt = async () => {
    const t = text.value.trim();
    if (revoked()) return;
    const mode = ui.chat && ui.chat.mode;
    if (mode && mode.kind === 'edit') {
      composeMode(null);
      text.value = '';
      if (t && t !== mode.m.text) {
        try {
          await sync.editMessage(username, mode.m.id, t);
        } catch (ex) {
          chatNotice(ex.message);
        }
      }
      text.focus();
      return;
    }
    const replyTo = mode && mode.kind === 'reply' ? mode.m.id : null;
    if (att.has()) {
      text.value = '';
      limit.hidden = true;
      composeMode(null);
      const files = await att.take();
      if (ui.chat) ui.chat.sending = true;
      if (files.length) await sync.sendFiles(username, t, replyTo, files);
      else if (t) await sync.sendText(username, t, replyTo);
      text.focus();
      return;
    }
    if (!t) return;
    text.value = '';
    limit.hidden = true;
    composeMode(null);
    if (ui.chat) ui.chat.sending = true;
    await sync.sendText(username, t, replyTo);
    text.focus();
  };
  // Enter sends and Shift+Enter makes a new line, whatever the input
  // method: a keyboard's Enter arrives as a keydown, an on-screen
  // keyboard's often only as a line break to insert (beforeinput); an
  // Enter that ends a composition (IME) only confirms the word.
  let newline = false;
  text.addEventListener('keydown', (e) => {
    if (e.key === 'Escape' && ui.chat && ui.chat.mode) {
      e.preventDefault();
      if (ui.chat.mode.kind === 'edit') text.value = '';
      composeMode(null);
      return;
    }
    if (e.key === 'ArrowUp' && !text.value.trim() && !e.isComposing) {
      // Up in an empty composer edits the last message this account sent.
      const last = ui.chat && ui.chat.lastOwn;
      if (last) {
        e.preventDefault();
        composeMode({ kind: 'edit', m: last });
      }
      return;
    }
    if (e.key !== 'Enter' || e.isComposing || e.keyCode === 229) return;
    if (e.shiftKey) {
      newline = true;
      return;
    }
    e.preventDefault();
    sendIt();
  });
  text.addEventListener('beforeinput', (e) => {
    if (e.inputType !== 'insertLineBreak' && e.inputType !== 'insertParagraph') return;
    if (newline || e.isComposing) {
      newline = false;
      return;
    }
    e.preventDefault();
    sendIt();
  });
  const sendBtn = el('button', { type: 'button', id: 'send-btn', class: 'primary', onclick: sendIt }, 'Send');
  const modeBar = el('div', { id: 'compose-mode', class: 'compose-mode', hidden: true });
  const note = el('p', { id: 'composer-note', class: 'warning', role: 'status', hidden: true });
  const limit = el('p', { id: 'composer-limit', class: 'warning', role: 'status', hidden: true });
  watchLength(text, limit);
  const attachNote = el('p', { id: 'attach-note', class: 'warning', role: 'status', hidden: true });
  const att = attachParts((words) => {
    attachNote.textContent = words || '';
    attachNote.hidden = !words;
  }, async (file) => {
    if (ui.chat) ui.chat.sending = true;
    await sync.sendFiles(username, '', null, [file]);
  });
  return { text, sendBtn, modeBar, note, limit, att, attachNote };
}
