// screen-timer.js: the chat-info panel's "Disappearing messages": the
// chat's timer, changed for everyone in the chat (docs/crypto.md,
// "Disappearing messages").

import * as sync from './sync.js';
import { el } from './dom.js';
import { TIMER_CHOICES, timerLabel } from './expiry.js';

/**
 * timerSection is the panel's part for chat: a choice of the timer, set to
 * seconds (the chat's timer now), or its value alone when this account may
 * not change it (a group chat's member who is not an admin).
 * @param {string} chat
 * @param {number} seconds
 * @param {boolean} canSet
 */
export function timerSection(chat, seconds, canSet) {
  const error = el('p', { id: 'timer-error', class: 'error', role: 'alert' });
  const select = el('select', { id: 'timer-select', disabled: canSet ? null : '', 'aria-describedby': 'timer-hint' },
    ...TIMER_CHOICES.map((s) => el('option', { value: String(s), selected: s === seconds ? '' : null }, timerLabel(s))));
  select.addEventListener('change', async () => {
    error.textContent = '';
    try {
      await sync.setTimer(chat, Number(select.value));
    } catch (e) {
      error.textContent = 'The timer was not changed: ' + (e && e.message ? e.message : 'something went wrong') + ' Try again.';
    }
  });
  const hint = canSet
    ? 'Messages sent from now on disappear from every device of everyone in this chat this long after they were read there; yours, after they were sent. Anyone can still copy or photograph a message before it goes.'
    : 'Only the group\u2019s admins can change this.';
  return el('section', { class: 'timer-box', 'aria-labelledby': 'timer-title' },
    el('h4', { id: 'timer-title' }, 'Disappearing messages'),
    el('label', { for: 'timer-select' }, 'Messages disappear after'), ' ', select,
    el('p', { id: 'timer-hint', class: 'muted' }, hint), error);
}
