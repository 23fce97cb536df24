// screen-devices.js: the Devices screen (approve, rename, revoke, a new
// account key) and the banner of devices waiting for approval.

import * as sync from './sync.js';
import * as api from './api.js';
import { el, ask, confirmDialog } from './dom.js';
import { passwordForm } from './passwordform.js';
import { ui, show, revoked } from './ui.js';
import { leave } from './screen-leave.js';
import { offerHistory } from './screen-transfer.js';

// The account's devices come from devicewatch.js (through sync): the
// banner of waiting devices and the Devices screen follow its events;
// ui.rotateNote keeps what the last new account key did.

function waitingDevices() {
  const mine = sync.currentDevice();
  return (sync.devices() || []).filter((d) => !d.linked && (!mine || d.id !== mine.id));
}

function renderDeviceBanner() {
  let banner = document.getElementById('device-banner');
  const waiting = sync.me() && sync.isLinked() && !revoked() ? waitingDevices() : [];
  if (!waiting.length) {
    if (banner) banner.remove();
    return;
  }
  if (!banner) {
    banner = el('div', { id: 'device-banner', class: 'notice', role: 'status' });
    document.getElementById('purge-notice').after(banner);
  }
  const text = waiting.length === 1
    ? `A new device (${waiting[0].name}) is waiting for approval. Approve it only if you just logged in there.`
    : `${waiting.length} new devices are waiting for approval. Approve them only if you just logged in there.`;
  banner.replaceChildren(text, ' ', el('a', { href: '#/devices' }, 'Open Devices'));
}

// devicesChanged follows a poll of the account's devices: the banner, the
// open Devices screen (unless the person is renaming or rotating) and
// whether that screen's list may be old.
export function devicesChanged(ev) {
  renderDevicesOffline(ev.offline);
  renderDeviceBanner();
  if (!ev.changed || !ev.list) return;
  if (ui.current && ui.current.name === 'devices' && !document.querySelector('#device-list .rename-form') && !document.querySelector('#rotate[open]')) devicesScreen(ev.list);
}

// renderDevicesOffline marks the Devices screen while the relay cannot
// be reached: the list shown is the last one known.
function renderDevicesOffline(offline) {
  const slot = document.getElementById('devices-stale');
  if (!slot) return;
  slot.hidden = !offline;
  slot.textContent = offline ? 'You are offline: this list is the last one known and may be out of date. It updates by itself when the connection is back.' : '';
}

function renameForm(d, msg, done) {
  const input = el('input', { class: 'rename-input', value: d.name, maxlength: 64, required: true, 'aria-label': 'New name for ' + d.name, autocomplete: 'off' });
  const form = el('form', {
    class: 'rename-form',
    onsubmit: async (e) => {
      e.preventDefault();
      const name = input.value.trim();
      if (!name || new TextEncoder().encode(name).length > 64) {
        msg.textContent = 'A device name has 1 to 64 characters. Type a shorter name.';
        return;
      }
      try {
        await sync.rename(d.id, name);
        done();
      } catch (ex) {
        msg.textContent = ex.code === 'bad_device_name' ? 'That name cannot be used: use 1 to 64 letters, digits or spaces.' : 'Could not rename the device: ' + ex.message;
      }
    },
    onkeydown: (e) => { if (e.key === 'Escape') done(); },
  }, input, el('button', { type: 'submit', class: 'primary save-name-btn' }, 'Save'), el('button', { type: 'button', onclick: done }, 'Cancel'));
  return { form, input };
}

export async function devicesScreen(known) {
  const gen = ++ui.gen;
  const list = el('ul', { class: 'plain', id: 'device-list', 'aria-label': 'Devices' });
  let devices = known;
  if (!devices) {
    try {
      devices = await api.devices();
    } catch (e) {
      // Offline, or the relay refused: say which, and try again by
      // itself while the screen is open.
      const text = e.code === 'network'
        ? 'You are offline: the relay cannot be reached, so your devices cannot be listed. This screen loads by itself when the connection is back.'
        : 'Could not load your devices: ' + e.message + ' This screen tries again by itself.';
      show(gen, el('section', { class: 'card' }, el('h2', {}, 'Devices'), el('p', { class: e.code === 'network' ? 'warning' : 'error', id: 'devices-offline', role: 'status' }, text)));
      setTimeout(() => {
        if (gen === ui.gen && ui.current && ui.current.name === 'devices') devicesScreen();
      }, sync.DEVICE_POLL_MS);
      return;
    }
  }
  sync.knownDevices(devices);
  renderDeviceBanner();
  const mine = sync.currentDevice();
  for (const d of devices) {
    const self = d.id === mine.id;
    const code = self ? null : await sync.deviceCode(d.publicKey);
    const msg = el('span', { class: 'muted', role: 'status' });
    const actions = el('span', { class: 'actions' });
    const nameSlot = el('span', { class: 'device-name-slot' }, el('strong', { class: 'device-name' }, d.name));
    const marks = el('span', { class: 'marks' });
    if (self) marks.append(el('span', { class: 'badge self-badge' }, 'This device'));
    marks.append(d.linked
      ? el('span', { class: 'badge linked-badge' }, 'Linked')
      : el('span', { class: 'badge waiting-badge' }, 'Waiting for approval'));
    if (!self && !d.linked && sync.isLinked()) {
      actions.append(el('button', {
        type: 'button', class: 'approve-btn primary',
        onclick: async (e) => {
          e.target.disabled = true;
          try {
            await sync.approve(d);
            msg.textContent = 'Account key sent. The device continues by itself.';
            // The new device starts empty: this one offers its history.
            await offerHistory(d);
          } catch (ex) {
            msg.textContent = 'Could not send the key: ' + ex.message + ' Press Approve again.';
            e.target.disabled = false;
          }
        },
      }, 'Approve'));
    }
    const renameBtn = el('button', {
      type: 'button', class: 'rename-btn', 'aria-label': 'Rename ' + d.name,
      onclick: () => {
        const { form, input } = renameForm(d, msg, () => devicesScreen());
        nameSlot.replaceChildren(form);
        renameBtn.hidden = true;
        input.focus();
        input.select();
      },
    }, 'Rename');
    actions.append(renameBtn);
    actions.append(el('button', {
      type: 'button', class: 'revoke-btn',
      onclick: async () => {
        if (self) return leave('remove', d.name);
        const ok = await ask({
          id: 'revoke-dialog', title: `Revoke ${d.name}?`,
          body: [el('p', {}, `${d.name} (added ${new Date(d.createdAt).toLocaleString()}) stops receiving messages and can no longer send. What it already shows stays on it. To use it again, it must log in and be approved or restored.`)],
          actions: [{ id: 'revoke-confirm', value: 'revoke', class: 'danger', label: `Revoke ${d.name}` }],
        });
        if (!ok) return;
        try {
          await sync.revoke(d.id);
          devicesScreen();
        } catch (ex) {
          msg.textContent = 'Could not revoke the device: ' + ex.message;
        }
      },
    }, self ? 'Remove this device' : 'Revoke'));
    list.append(el('li', { class: 'device', 'data-id': d.id, 'data-linked': d.linked ? 'true' : 'false' },
      el('span', { class: 'device-info' }, nameSlot, ' ', marks, el('br'),
        // This device needs no code to compare, and is in use now: the
        // relay's last seen is when its stream last checked in.
        ...(self ? [] : [el('span', { class: 'muted' }, 'Code: '), el('span', { class: 'device-code' }, code), el('br')]),
        el('span', { class: 'muted' }, 'Added ', new Date(d.createdAt).toLocaleString(), self ? ' · in use now, in this browser' : d.lastSeenAt ? ' · last seen ' + new Date(d.lastSeenAt).toLocaleString() : '')),
      actions, msg));
  }
  show(gen, el('section', { class: 'card' }, el('h2', {}, 'Devices'),
    el('p', { class: 'warning', id: 'devices-stale', role: 'status', hidden: true }),
    el('p', { class: 'muted' }, 'Approve a new device only if it shows exactly the same code as here. Approving sends it your account key. This list updates by itself.'),
    list), sync.isLinked() ? rotateSection(devices.filter((d) => d.id !== mine.id)) : null);
}

function rotateNoteText({ dropped, sentTo }) {
  const devices = (n) => n + (n === 1 ? ' device' : ' devices');
  return [`New account key made${dropped ? ', ' + devices(dropped) + ' removed' : ''}. It is being sent to your ${sentTo} other ${sentTo === 1 ? 'device' : 'devices'}. Your old recovery key no longer works: `,
    el('a', { href: '#/settings', id: 'rotate-settings' }, 'create a new recovery key'), '.'];
}

// rotateSection replaces the account key on purpose, after a device was
// lost: the person picks the devices to drop and gives the password again.
function rotateSection(others) {
  const done = el('p', { id: 'rotate-done', role: 'status' }, ...(ui.rotateNote ? rotateNoteText(ui.rotateNote) : []));
  const boxes = others.map((d) => {
    const id = 'drop-' + d.id;
    const box = el('input', { type: 'checkbox', id, class: 'drop-box', value: d.id });
    return { d, box, row: el('li', {}, box, el('label', { for: id }, el('strong', {}, d.name), d.linked ? '' : ' (waiting for approval)', ' · code ', el('span', { class: 'drop-code', 'data-id': d.id }))) };
  });
  for (const b of boxes) sync.deviceCode(b.d.publicKey).then((code) => { b.row.querySelector('.drop-code').textContent = code; });
  const chosen = () => boxes.filter((b) => b.box.checked);
  const form = passwordForm({
    ids: { password: 'rotate-password', error: 'rotate-error', button: 'rotate-btn' },
    button: 'Make a new account key…',
    need: 'make a new account key',
    before: [el('p', {}, 'If a device was lost or stolen, make a new account key and remove that device. Tick the devices to remove:'),
      boxes.length ? el('ul', { class: 'plain', id: 'drop-list' }, ...boxes.map((b) => b.row)) : el('p', { class: 'muted' }, 'This is your only device.')],
    onSubmit: () => {
      done.textContent = '';
      ui.rotateNote = null;
    },
    confirm: () => confirmDialog('Make a new account key?',
      (chosen().length ? `These devices are removed: ${chosen().map((b) => b.d.name).join(', ')}. ` : 'No device is removed. ') +
      'Your other devices get the new key by themselves and keep their history. Your contacts see a warning that your key changed, and your recovery key stops working: create a new one afterwards.',
      'Make a new key'),
    busy: 'Making a new account key…',
    act: (password) => {
      const drop = chosen().map((b) => b.d.id);
      return sync.rotateAccountKey(password, drop).then((sentTo) => ({ dropped: drop.length, sentTo }));
    },
    done: (note) => {
      ui.rotateNote = note;
      devicesScreen();
    },
    failed: 'The key could not be replaced',
    extra: { unknown_device: 'One of the devices chosen was removed meanwhile. Nothing was changed: choose again.' },
  });
  return el('section', { class: 'card' }, done,
    el('details', { id: 'rotate' }, el('summary', { id: 'rotate-open' }, 'Lost a device? Make a new account key'), form));
}
