// screen-group.js: the screens of group chats: the New group form (in the
// chat pane, beside the list), and a group's info panel, which lists its
// members with their safety codes, verified marks and roles.

import * as sync from './sync.js';
import * as groupchat from './groupchat.js';
import { el, confirmDialog } from './dom.js';
import { ui } from './ui.js';
import { splitView, chatListData, renderListPane } from './screen-chats.js';

// newGroupScreen shows the New group form in the chat pane: a name and
// the members' usernames, one or more, separated by commas or spaces.
export async function newGroupScreen() {
  const gen = ++ui.gen;
  const data = await chatListData();
  if (gen !== ui.gen) return;
  const d = splitView();
  d.split.dataset.open = 'chat';
  renderListPane(d, data);
  if (ui.chat) ui.chat.seen.stop();
  ui.chat = null;
  if (d.chatPane.querySelector('#new-group')) return;
  const name = el('input', { id: 'group-name', autocomplete: 'off', maxlength: '64', 'aria-describedby': 'group-error', required: true });
  const members = el('input', { id: 'group-members', autocomplete: 'off', autocapitalize: 'none', spellcheck: 'false', placeholder: 'bob, carol', 'aria-describedby': 'group-members-hint group-error', required: true });
  const err = el('p', { class: 'error', role: 'alert', id: 'group-error' });
  const progress = el('p', { class: 'muted', id: 'group-progress', role: 'status' });
  const submit = el('button', { type: 'submit', id: 'group-create', class: 'primary' }, 'Create group');
  const cancel = el('a', { href: '#/chats', class: 'button', id: 'group-cancel' }, 'Cancel');
  const form = el('form', {
    class: 'card group-form',
    onsubmit: async (e) => {
      e.preventDefault();
      err.textContent = '';
      name.removeAttribute('aria-invalid');
      members.removeAttribute('aria-invalid');
      const list = members.value.split(/[\s,;]+/).filter(Boolean);
      submit.disabled = true;
      progress.textContent = 'Making the group: fetching the keys of its members\u2019 devices\u2026';
      let made = false;
      try {
        const chat = await groupchat.create(name.value, list);
        progress.textContent = '';
        location.hash = '#/chat/' + chat;
      } catch (ex) {
        progress.textContent = '';
        const code = ex && ex.code;
        if (code === 'network') {
          // Made here, and sent by itself once the relay answers: making
          // it again would make a second group.
          made = true;
          progress.textContent = ex.message;
          name.disabled = true;
          members.disabled = true;
          cancel.textContent = 'Back to chats';
          cancel.focus();
          return;
        }
        (code === 'bad_name' ? name : members).setAttribute('aria-invalid', 'true');
        err.textContent = ex instanceof groupchat.GroupError ? ex.message : `Could not make the group: ${ex && ex.message}`;
        (code === 'bad_name' ? name : members).focus();
      } finally {
        submit.disabled = made;
      }
    },
  },
  el('label', { for: 'group-name' }, 'Group name'), name,
  el('label', { for: 'group-members' }, 'Members'), members,
  el('p', { class: 'hint', id: 'group-members-hint' }, 'Their usernames, separated by commas or spaces. You are the group\u2019s admin: you can add and remove members later.'),
  err, progress,
  el('div', { class: 'dialog-actions' }, cancel, submit));
  d.chatPane.replaceChildren(el('section', { class: 'new-group', id: 'new-group', 'aria-labelledby': 'new-group-title' },
    el('div', { class: 'chat-head' },
      el('a', { href: '#/chats', class: 'chat-back', 'aria-label': 'Back to chats' }, '\u2190'),
      el('h2', { id: 'new-group-title' }, 'New group')),
    el('div', { class: 'group-body' }, form)));
  name.focus();
}

/**
 * groupPanel fills the chat-info panel of a group chat: its name, its
 * members with their roles, safety codes and verified marks; for an
 * admin, adding, removing, renaming and naming admins; for everyone,
 * leaving.
 * @param {HTMLElement} panel
 * @param {HTMLElement} head the panel's title row
 * @param {groupchat.Info | null} info
 */
export function groupPanel(panel, head, info) {
  if (!info) {
    panel.replaceChildren(head, el('p', { class: 'muted' }, 'This device is not in this group.'));
    return;
  }
  const me = sync.me();
  const member = !info.removed && !info.leaving;
  const err = el('p', { class: 'error', role: 'alert', id: 'group-action-error' });
  const status = el('p', { class: 'muted', role: 'status', id: 'group-action-status' });
  // run does one change of the group, saying what it waits for and, if
  // it cannot be made, why.
  const run = async (what, fn) => {
    err.textContent = '';
    status.textContent = what + '\u2026';
    try {
      await fn();
      status.textContent = '';
    } catch (ex) {
      status.textContent = '';
      err.textContent = ex instanceof groupchat.GroupError ? ex.message : `Could not change the group: ${ex && ex.message}`;
    }
  };
  const rows = info.accounts.map((u) => el('li', { class: 'member', 'data-user': u },
    el('span', { class: 'member-name' }, u === me ? `${u} (you)` : u),
    info.admins.includes(u) ? el('span', { class: 'badge' }, 'Admin') : null,
    info.admin && member && u !== me ? el('span', { class: 'member-actions' },
      el('button', {
        type: 'button', class: 'admin-btn', 'aria-label': info.admins.includes(u) ? `Remove admin: ${u}` : `Make admin: ${u}`,
        onclick: () => run(info.admins.includes(u) ? `Taking admin rights from ${u}` : `Making ${u} an admin`, () => groupchat.setAdmin(info.chat, u, !info.admins.includes(u))),
      }, info.admins.includes(u) ? 'Remove admin' : 'Make admin'),
      el('button', {
        type: 'button', class: 'remove-btn danger', 'aria-label': `Remove ${u} from the group`,
        onclick: async () => {
          if (await confirmDialog(`Remove ${u}?`, `${u} will no longer receive what is sent in \u201c${info.name}\u201d. What they already have stays with them.`, 'Remove')) {
            run(`Removing ${u}`, () => groupchat.remove(info.chat, u));
          }
        },
      }, 'Remove')) : null,
    u === me ? null : el('span', { class: 'member-code muted', 'data-code-for': u }, 'Safety code: fetching\u2026')));
  const adminForms = info.admin && member ? [
    textForm('group-add', 'Add members', 'Usernames, separated by commas or spaces', 'Add', (v) => run('Adding', () => groupchat.add(info.chat, v.split(/[\s,;]+/).filter(Boolean)))),
    textForm('group-rename', 'Rename the group', null, 'Rename', (v) => run('Renaming', () => groupchat.rename(info.chat, v)), info.name),
  ] : [];
  panel.replaceChildren(...[head,
    el('p', { class: 'info-name', id: 'group-info-name' }, info.name),
    info.removed ? el('p', { class: 'warning', id: 'group-removed' }, 'You are no longer a member of this group: you cannot send in it, and nothing sent after your removal reaches you.') : null,
    info.leaving && !info.removed ? el('p', { class: 'warning', id: 'group-left' }, 'You left this group. Its members\u2019 devices remove you as soon as they are online.') : null,
    el('h4', {}, `${info.accounts.length} ${info.accounts.length === 1 ? 'member' : 'members'}`),
    el('ul', { class: 'plain members', id: 'group-members-list' }, ...rows),
    el('p', { class: 'muted' }, info.admin ? 'You are an admin: you can add and remove members, rename the group and name other admins.' : `Only admins (${info.admins.join(', ') || 'none'}) can add and remove members and rename the group.`),
    ...adminForms, err, status,
    member ? el('button', {
      type: 'button', id: 'group-leave', class: 'danger',
      onclick: async () => {
        if (await confirmDialog('Leave this group?', `You will no longer receive what is sent in \u201c${info.name}\u201d. What you have stays on your devices.`, 'Leave group')) {
          run('Leaving', () => groupchat.leave(info.chat));
        }
      },
    }, 'Leave group') : null,
    el('p', { class: 'muted' }, 'Compare a member\u2019s safety code with them in person or on a call, then mark it verified in your chat with them.')].filter(Boolean));
  fillCodes(panel, info.accounts.filter((u) => u !== me));
}

/**
 * textForm is a one-field form of the panel: a label, the field, a button.
 * @param {string} id
 * @param {string} label
 * @param {string | null} hint
 * @param {string} button
 * @param {(value: string) => Promise<void>} submit
 * @param {string} [value]
 */
function textForm(id, label, hint, button, submit, value = '') {
  const input = el('input', { id: id + '-input', autocomplete: 'off', autocapitalize: 'none', spellcheck: 'false', value, 'aria-describedby': hint ? id + '-hint' : null });
  return el('form', {
    class: 'group-action', id,
    onsubmit: async (e) => {
      e.preventDefault();
      await submit(input.value);
      if (!value) input.value = '';
    },
  }, el('label', { for: id + '-input' }, label), hint ? el('p', { class: 'hint', id: id + '-hint' }, hint) : null,
  el('div', { class: 'row' }, input, el('button', { type: 'submit', id: id + '-btn' }, button)));
}

/**
 * fillCodes writes each member's safety code and verified mark into the
 * panel, as the keys come.
 * @param {HTMLElement} panel
 * @param {string[]} users
 */
async function fillCodes(panel, users) {
  for (const u of users) {
    const slot = panel.querySelector(`[data-code-for="${u}"]`);
    if (!slot) return;
    const res = await sync.openChat(u);
    const ch = res.chat;
    const code = ch && ch.publicKey ? await sync.safetyCode(u) : null;
    if (!slot.isConnected) return;
    slot.replaceChildren(...[
      code ? 'Safety code: ' : 'Safety code unknown yet',
      code ? el('span', { class: 'code small-code' }, code) : null,
      ch && ch.verified ? el('span', { class: 'verified-state' }, ' \u2713 Verified') : null,
      ch && ch.keyChanged ? el('span', { class: 'error' }, ` ${u}'s key has changed: compare the code again.`) : null,
      ch && ch.keyChanged ? el('button', { type: 'button', class: 'key-accept', 'aria-label': `The codes match: ${u}`, onclick: () => sync.acceptKey(u) }, 'The codes match') : null].filter(Boolean));
  }
}
