// screen-lock.js: the app lock's screens (ADR 0113): the lock screen, which
// shows no chat, name or preview, unlocks with the passphrase and offers
// to wipe this browser's data when it is forgotten; Settings › App lock
// (turn it on with a passphrase and its strength, the time without use
// after which it locks, Lock now, turn it off); and the auto-lock itself.

import * as store from './store.js';
import * as sync from './sync.js';
import { el, ask } from './dom.js';
import { ui, show } from './ui.js';

// AUTO_LOCK are the choices of minutes without use before the app locks.
const AUTO_LOCK = [1, 5, 15, 60];
const MIN_LENGTH = 8;

const phaseText = {
  key: 'Checking the passphrase…',
  sealing: 'Encrypting what this browser keeps…',
  opening: 'Decrypting what this browser keeps…',
};

// progressLine is a progress bar and its words; set(phase, done) moves it.
function progressLine(id) {
  const bar = el('progress', { id: id + '-bar', max: '100', value: '0', 'aria-labelledby': id + '-text' });
  const text = el('span', { id: id + '-text' });
  const box = el('p', { id, class: 'lock-progress', hidden: true }, text, ' ', bar);
  return {
    box,
    set(phase, done) {
      box.hidden = false;
      text.textContent = phaseText[phase] || '';
      bar.value = Math.round(done * 100);
    },
    hide() {
      box.hidden = true;
    },
  };
}

/**
 * strength is a hint of how hard a passphrase is to guess: its length
 * over the kinds of characters it mixes, in bits.
 * @param {string} p
 */
export function strength(p) {
  const pool = KINDS.filter(([r]) => r.test(p)).reduce((n, [, k]) => n + k, 0);
  // A character repeated adds little: at most twice the distinct ones count.
  const bits = Math.min(p.length, new Set(p).size * 2) * Math.log2(Math.max(2, pool));
  if (p.length < MIN_LENGTH) return { level: 'short', text: `Too short: at least ${MIN_LENGTH} characters.` };
  if (bits < 45) return { level: 'weak', text: 'Weak: easy to guess. Add words or characters.' };
  if (bits < 70) return { level: 'fair', text: 'Fair. A few more words make it strong.' };
  return { level: 'strong', text: 'Strong.' };
}

// KINDS are the kinds of characters, and how many each has.
const KINDS = /** @type {[RegExp, number][]} */ ([[/[a-z]/, 26], [/[A-Z]/, 26], [/[0-9]/, 10], [/[^a-zA-Z0-9\s]/, 33], [/\s/, 1]]);

// wipe deletes this browser's copy of the account, after a confirmation:
// the way out of a forgotten passphrase.
async function wipe() {
  const ok = (await ask({
    id: 'wipe-dialog', title: "Wipe this browser's data?",
    body: [el('p', {}, 'This deletes the messages, keys and settings this browser keeps. Your account and your other devices are not touched. Then log in, and approve this browser from another of your devices, or restore the account with your recovery key.')],
    actions: [{ id: 'wipe-confirm', value: 'wipe', class: 'danger', label: "Wipe this browser's data" }],
  })) === 'wipe';
  if (!ok) return;
  await store.clearAll();
  location.reload();
}

/**
 * lockScreen shows the lock screen until the app is unlocked, here or in
 * another tab, and any conversion a reload stopped has finished.
 */
export function lockScreen() {
  document.body.dataset.screen = 'lock';
  document.title = 'relay (locked)';
  const gen = ++ui.gen;
  return new Promise((resolve) => {
    const pass = el('input', { id: 'unlock-passphrase', type: 'password', autocomplete: 'current-password', 'aria-describedby': 'unlock-error' });
    const err = el('p', { id: 'unlock-error', class: 'error', role: 'alert' });
    const btn = el('button', { type: 'submit', id: 'unlock-btn', class: 'primary' }, 'Unlock');
    const prog = progressLine('unlock-progress');
    // What arrives while locked is kept unread; the screen says only that.
    const news = el('p', { id: 'lock-news', role: 'status' });
    sync.subscribe((ev) => {
      if (ev.type === 'heldNews' && gen === ui.gen) news.textContent = 'New messages arrived. Unlock to read them.';
    });
    let busy = false;
    const finish = async () => {
      prog.set('key', 1);
      await store.resumeConversion((phase, d) => prog.set(phase, d));
      resolve(undefined);
    };
    store.onLockChange((what) => {
      if (what === 'unlocked' && !busy) {
        busy = true;
        finish();
      }
    });
    const form = el('form', {
      id: 'unlock-form',
      onsubmit: async (e) => {
        e.preventDefault();
        if (busy) return;
        err.textContent = '';
        if (!pass.value) {
          err.textContent = 'Type the passphrase of the app lock.';
          pass.focus();
          return;
        }
        busy = true;
        btn.disabled = true;
        try {
          await store.unlock(pass.value, (phase, d) => prog.set(phase, d));
          pass.value = '';
          await finish();
        } catch (ex) {
          busy = false;
          btn.disabled = false;
          prog.hide();
          err.textContent = ex instanceof store.WrongPassphrase ? 'That is not the passphrase of this lock. Nothing was changed: try again.' : 'Could not unlock: ' + ex.message;
          pass.select();
          pass.focus();
        }
      },
    }, el('label', { for: 'unlock-passphrase' }, 'Passphrase'), pass, err, el('p', {}, btn), prog.box);
    show(gen, el('section', { class: 'card', id: 'lock-screen' },
      el('h2', {}, 'relay is locked'),
      el('p', {}, 'Type the passphrase of the app lock to open your chats.'),
      form,
      // Below the form: news that comes in does not move the Unlock
      // button under a pointer on its way to it.
      news,
      el('h3', {}, 'Forgot the passphrase?'),
      el('p', { class: 'muted' }, 'Nobody can recover it, not even the relay. You can wipe the data this browser keeps and then log in again: approve this browser from another of your devices, or restore your account with its recovery key.'),
      el('p', {}, el('button', { type: 'button', id: 'lock-wipe', class: 'danger', onclick: wipe }, "Wipe this browser's data…"))));
    pass.focus();
  });
}

// autoLockChoice is the select of minutes without use before the app
// locks.
function autoLockChoice(id, value, onchange) {
  const sel = el('select', { id }, ...AUTO_LOCK.map((m) => el('option', { value: String(m), selected: m === value }, m === 1 ? 'after 1 minute' : `after ${m} minutes`)));
  if (onchange) sel.addEventListener('change', () => onchange(Number(sel.value)));
  return el('p', {}, el('label', { for: id }, 'Lock when unused '), sel);
}

/**
 * lockSection is Settings › App lock.
 */
export function lockSection() {
  const st = store.lockState();
  const box = el('section', { class: 'card', id: 'app-lock' }, el('h2', {}, 'App lock'));
  box.append(el('p', { class: 'muted' }, 'With the app lock on, this browser keeps your messages, contacts and keys encrypted under a passphrase: a copy of its files reveals no message. The app locks itself when unused, and shows nothing until the passphrase is typed. A forgotten passphrase cannot be recovered: you would wipe this browser and log in again.'));
  const prog = progressLine('lock-progress');
  const err = el('p', { id: 'lock-error', class: 'error', role: 'alert' });
  if (st.state === 'off') {
    const pass = el('input', { id: 'lock-passphrase', type: 'password', autocomplete: 'new-password', 'aria-describedby': 'lock-strength' });
    const again = el('input', { id: 'lock-again', type: 'password', autocomplete: 'new-password', 'aria-describedby': 'lock-error' });
    const hint = el('p', { id: 'lock-strength', class: 'hint', 'aria-live': 'polite' });
    pass.addEventListener('input', () => {
      const s = strength(pass.value);
      hint.textContent = pass.value ? s.text : '';
      hint.dataset.level = s.level;
    });
    const minutes = autoLockChoice('lock-after', 5, null);
    const btn = el('button', { type: 'submit', id: 'lock-on', class: 'primary' }, 'Turn on the app lock');
    box.append(el('form', {
      id: 'lock-form',
      onsubmit: async (e) => {
        e.preventDefault();
        err.textContent = '';
        if (pass.value.length < MIN_LENGTH) {
          err.textContent = `The passphrase needs at least ${MIN_LENGTH} characters.`;
          pass.focus();
          return;
        }
        if (pass.value !== again.value) {
          err.textContent = 'The two passphrases differ: type the same one twice.';
          again.focus();
          return;
        }
        btn.disabled = true;
        try {
          const device = sync.isLinked() ? sync.currentDevice().id : null;
          await store.enableLock(pass.value, Number(/** @type {HTMLSelectElement} */ (minutes.querySelector('select')).value), (phase, d) => prog.set(phase, d), device);
          used(); // the time unused counts from now, not from an earlier lock
          box.replaceWith(lockSection());
          const now = document.getElementById('lock-now');
          if (now) now.focus();
        } catch (ex) {
          btn.disabled = false;
          prog.hide();
          err.textContent = 'Could not turn the app lock on: ' + ex.message + ' Try again.';
        }
      },
    }, el('label', { for: 'lock-passphrase' }, 'Passphrase'), pass, hint,
    el('label', { for: 'lock-again' }, 'The same passphrase again'), again, minutes, err, el('p', {}, btn), prog.box));
    return box;
  }
  box.append(el('p', { id: 'lock-status' }, 'The app lock is on.'),
    autoLockChoice('lock-after', st.autoLock || 5, (m) => store.setAutoLock(m)),
    el('p', {}, el('button', { type: 'button', id: 'lock-now', onclick: () => lockNow() }, 'Lock now')));
  const pass = el('input', { id: 'lock-off-passphrase', type: 'password', autocomplete: 'current-password', 'aria-describedby': 'lock-error' });
  const off = el('button', { type: 'submit', id: 'lock-off' }, 'Turn off the app lock');
  box.append(el('form', {
    id: 'lock-off-form',
    onsubmit: async (e) => {
      e.preventDefault();
      err.textContent = '';
      off.disabled = true;
      try {
        await store.disableLock(pass.value, (phase, d) => prog.set(phase, d));
        box.replaceWith(lockSection());
      } catch (ex) {
        off.disabled = false;
        prog.hide();
        err.textContent = ex instanceof store.WrongPassphrase ? 'That is not the passphrase of this lock. The lock stays on.' : 'Could not turn the app lock off: ' + ex.message;
      }
    },
  }, el('label', { for: 'lock-off-passphrase' }, 'Passphrase, to turn the lock off'), pass, err, el('p', {}, off), prog.box));
  return box;
}

/**
 * lockNow locks every tab of the profile: each reloads onto the lock
 * screen, so that nothing it showed or held stays.
 */
export function lockNow() {
  store.lockApp();
  location.reload();
}

// lastUse is when the profile was last used, in any tab: a time, nothing
// more, kept where every tab reads it.
const LAST_USE = 'relay.lastUse';
let lastWrite = 0;

function used() {
  if (store.lockState().state === 'off') return; // nothing to count
  const now = Date.now();
  if (now - lastWrite < 5000) return;
  lastWrite = now;
  try {
    localStorage.setItem(LAST_USE, String(now));
  } catch { /* the tab's own time still counts */ }
}

function lastUsed() {
  try {
    return Math.max(lastWrite, Number(localStorage.getItem(LAST_USE)) || 0);
  } catch {
    return lastWrite;
  }
}

/**
 * watchLock locks the app after its minutes without use in any tab, and
 * follows a lock made in another tab.
 */
export function watchLock() {
  for (const ev of ['pointerdown', 'keydown', 'touchstart', 'wheel']) addEventListener(ev, used, { passive: true, capture: true });
  used(); // opening or unlocking the app is a use
  store.onLockChange((what) => {
    if (what === 'locked') location.reload();
  });
  const check = () => {
    const st = store.lockState();
    if (st.state !== 'unlocked' || st.converting || !st.autoLock) return;
    if (Date.now() - lastUsed() >= st.autoLock * 60000) lockNow();
  };
  // Also as soon as the page is shown again, as a computer waking up
  // would show it: before anything it held is seen.
  setInterval(check, 15000);
  addEventListener('focus', check);
  document.addEventListener('visibilitychange', () => {
    if (document.visibilityState === 'visible') check();
  });
}
