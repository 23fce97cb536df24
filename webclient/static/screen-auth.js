// screen-auth.js: the screens of a browser with no usable account yet:
// Create account and Log in, and for a device waiting to be linked the
// waiting screen, the restore with the recovery key and the reset of the
// account key.

import * as store from './store.js';
import * as sync from './sync.js';
import * as api from './api.js';
import { el, confirmDialog } from './dom.js';
import { passwordForm } from './passwordform.js';
import { ui, show, request, plural } from './ui.js';

// authErrorText says in a sentence what went wrong with a login or a
// registration, and what to do.
function authErrorText(ex, mode) {
  switch (ex.code) {
    case 'bad_credentials': return 'That username and password do not match. Check both, then try again.';
    case 'username_taken': return 'That username is taken. Choose another one.';
    case 'username_held': return 'That username belonged to an account that was deleted, and is held back for a while so that nobody can pass for its owner. Choose another one.';
    case 'account_disabled': return "The relay's operator disabled this account. Ask them why; you can log in once they enable it again.";
    case 'bad_username': return 'A username is 3 to 32 characters: a–z, 0–9 and _.';
    case 'bad_password': return 'A password is at least 8 characters long.';
    case 'too_many_attempts': {
      const s = ex.retryAfter || 60;
      return `Too many attempts. Wait ${s} ${plural.select(s) === 'one' ? 'second' : 'seconds'}, then try again.`;
    }
    case 'network': return 'The relay cannot be reached. Check your connection, then try again.';
    case 'too_many_devices': return 'This account already has the most devices allowed. Revoke one it no longer uses on another device, then log in here.';
    case 'registration_closed': return CLOSED;
    case 'invite_required': return 'This relay creates accounts only with an invite code. Ask its operator for one, then type it under Invite code.';
    case 'bad_invite': return 'That is not an invite code: a code has 20 letters and digits, like 7K2QD-9XW4M-RT8VB-3HNPF. Check it for a typo.';
    case 'invalid_invite': return "This invite code does not work: it is unknown, used up or expired. Check it for a typo, or ask the relay's operator for a new one.";
    default: {
      const m = (ex.message || String(ex)).replace(/[.\s]*$/, '');
      return (mode === 'login' ? 'Could not log in: ' : 'Could not create the account: ') + m + '. Try again.';
    }
  }
}

const CLOSED = 'This relay does not take new accounts: its operator has closed registration. If you already have an account, log in.';

// authScreen is the first screen: Create account for a browser that never
// held an account, Log in for one that did (store.hadAccount). The two are
// tabs of one form, so switching keeps what was typed. notice is a
// sentence shown above them, such as that the account was deleted.
export function authScreen(notice = '') {
  const gen = ++ui.gen;
  let mode = store.hadAccount() ? 'login' : 'register';
  const user = el('input', {
    id: 'auth-username', name: 'username', autocomplete: 'username', required: true, maxlength: 32,
    autocapitalize: 'none', autocorrect: 'off', spellcheck: 'false', 'aria-describedby': 'auth-hint',
  });
  // A username is lower case: typing a capital writes the small letter.
  user.addEventListener('input', () => {
    const low = user.value.toLowerCase();
    if (low !== user.value) {
      const at = user.selectionStart;
      user.value = low;
      user.setSelectionRange(at, at);
    }
  });
  const pass = el('input', { id: 'auth-password', name: 'password', type: 'password', required: true, minlength: 8, 'aria-describedby': 'auth-pass-hint' });
  const pass2 = el('input', { id: 'auth-password2', name: 'password2', type: 'password', autocomplete: 'new-password', minlength: 8 });
  const pass2Row = el('div', {}, el('label', { for: 'auth-password2' }, 'Repeat the password'), pass2);
  // Who may register (docs/protocol.md, "GET /api/registration"): asked of
  // the relay below, and learnt from its refusals too. Until it answers
  // the form is as on an open relay.
  let registration = 'open';
  const invite = el('input', {
    id: 'auth-invite', name: 'invite', autocomplete: 'off', spellcheck: 'false', autocapitalize: 'characters',
    maxlength: 40, 'aria-describedby': 'auth-invite-hint',
  });
  const inviteRow = el('div', { id: 'auth-invite-row' },
    el('label', { for: 'auth-invite' }, 'Invite code'), invite,
    el('p', { id: 'auth-invite-hint', class: 'hint' }, 'This relay creates accounts only with an invite code from its operator. Type the code you were given, like ',
      el('span', { class: 'example-code' }, '7K2QD-9XW4M-RT8VB-3HNPF'), '.'));
  const toLogin = el('button', { type: 'button', id: 'auth-closed-login', onclick: () => setMode('login', true) }, 'Log in instead');
  const closedNote = el('div', { id: 'auth-closed' }, el('p', { class: 'warning', role: 'status' }, CLOSED), el('p', {}, toLogin));
  const passHint = el('p', { id: 'auth-pass-hint', class: 'hint' }, 'At least 8 characters.');
  const err = el('p', { id: 'auth-error', class: 'error', role: 'alert' });
  const progress = el('p', { id: 'auth-progress', class: 'muted', role: 'status' });
  const submit = el('button', { type: 'submit', class: 'primary' });
  const fields = el('div', {});
  const tabs = {};
  const panel = el('div', { role: 'tabpanel', id: 'auth-panel' });
  const setMode = (m, focusTab) => {
    mode = m;
    for (const [k, t] of Object.entries(tabs)) {
      t.setAttribute('aria-selected', String(k === m));
      t.tabIndex = k === m ? 0 : -1;
    }
    panel.setAttribute('aria-labelledby', 'tab-' + m);
    submit.id = m === 'login' ? 'login-btn' : 'register-btn';
    submit.textContent = m === 'login' ? 'Log in' : 'Create account';
    pass.autocomplete = m === 'login' ? 'current-password' : 'new-password';
    pass2Row.hidden = m === 'login';
    // The rule is for a new password; logging in takes the one there is.
    passHint.hidden = m === 'login';
    if (m === 'login') pass.removeAttribute('aria-describedby');
    else pass.setAttribute('aria-describedby', 'auth-pass-hint');
    pass2.required = m === 'register';
    err.textContent = '';
    showRegistration();
    if (focusTab) tabs[m].focus();
  };
  // showRegistration shows, under Create account, the invite field when
  // the relay wants a code, and instead of the form that it takes no new
  // accounts when it is closed.
  const showRegistration = () => {
    const closed = mode === 'register' && registration === 'closed';
    inviteRow.hidden = mode !== 'register' || registration !== 'invite';
    invite.required = !inviteRow.hidden;
    closedNote.hidden = !closed;
    fields.hidden = closed;
  };
  const learn = (r) => {
    registration = r;
    showRegistration();
  };
  const tab = (m, label) => {
    tabs[m] = el('button', { type: 'button', role: 'tab', id: 'tab-' + m, 'aria-controls': 'auth-panel', onclick: () => setMode(m) }, label);
    return tabs[m];
  };
  const tablist = el('div', { class: 'tabs', role: 'tablist', 'aria-label': 'Account' }, tab('register', 'Create account'), tab('login', 'Log in'));
  // Arrow keys move between the tabs, as in every tab list.
  tablist.addEventListener('keydown', (e) => {
    if (e.key === 'ArrowLeft' || e.key === 'ArrowRight' || e.key === 'Home' || e.key === 'End') {
      e.preventDefault();
      setMode(e.key === 'Home' ? 'register' : e.key === 'End' ? 'login' : mode === 'login' ? 'register' : 'login', true);
    }
  });
  const invalid = (input, text) => {
    err.textContent = text;
    input.setAttribute('aria-invalid', 'true');
    input.focus();
  };
  const form = el('form', {
    novalidate: true,
    onsubmit: async (e) => {
      e.preventDefault();
      for (const i of [user, pass, pass2, invite]) i.removeAttribute('aria-invalid');
      const u = user.value.trim();
      if (!/^[a-z0-9_]{3,32}$/.test(u)) return invalid(user, u.length < 3 ? 'A username has at least 3 characters: a–z, 0–9 and _.' : 'A username may hold only a–z, 0–9 and _: no spaces or other signs.');
      if (pass.value.length < 8) return invalid(pass, 'The password is too short: use at least 8 characters.');
      if (mode === 'register' && pass2.value !== pass.value) return invalid(pass2, 'The two passwords differ. Type the same password in both fields.');
      const code = mode === 'register' && registration === 'invite' ? invite.value.trim() : '';
      if (mode === 'register' && registration === 'invite' && !code) return invalid(invite, 'Type the invite code you were given: this relay creates accounts only with one.');
      submit.disabled = true;
      err.textContent = '';
      progress.textContent = mode === 'login' ? 'Logging in…' : 'Creating your keys and account…';
      try {
        if (mode === 'login') await sync.loginAccount(u, pass.value);
        else {
          await sync.registerAccount(u, pass.value, code);
          ui.offerRecovery = true;
          ui.focusNewChat = true;
        }
        pass.value = '';
        pass2.value = '';
        request('session');
      } catch (ex) {
        progress.textContent = '';
        submit.disabled = false;
        // A refusal says what the relay wants, whatever it said before.
        if (ex.code === 'registration_closed') return learn('closed');
        if (ex.code === 'invite_required') learn('invite');
        if (['invite_required', 'bad_invite', 'invalid_invite'].includes(ex.code)) return invalid(invite, authErrorText(ex, mode));
        err.textContent = authErrorText(ex, mode);
      }
    },
  },
  fields);
  fields.append(
    el('label', { for: 'auth-username' }, 'Username'), user,
    el('p', { id: 'auth-hint', class: 'hint' }, '3 to 32 characters: lower-case letters a–z, digits 0–9 and _'),
    el('label', { for: 'auth-password' }, 'Password'), pass,
    passHint,
    pass2Row,
    inviteRow,
    el('p', {}, submit), progress, err);
  panel.append(closedNote, form);
  setMode(mode);
  sync.registrationMode().then((r) => { if (gen === ui.gen) learn(r); }, () => { /* offline: the relay's refusal will say */ });
  show(gen, el('section', { class: 'card auth', 'aria-label': 'Create an account or log in' },
    notice ? el('p', { id: 'auth-notice', class: 'warning', role: 'status' }, notice) : null,
    tablist, panel,
    el('p', { class: 'muted' }, 'Your messages are encrypted in this browser. The relay only ever stores ciphertext.')));
  user.focus();
}

// otherLinked says whether the relay lists another device of the account
// that holds the account key, one that could approve this browser; null
// when the relay cannot be asked.
export async function otherLinked() {
  const mine = sync.currentDevice();
  try {
    return (await api.devices()).some((d) => d.id !== mine.id && d.linked);
  } catch {
    return null;
  }
}

export async function waitingScreen() {
  const gen = ++ui.gen;
  ui.shownWaiting = true;
  const [code, others] = await Promise.all([sync.linkCode(), otherLinked()]);
  // Shown already (by this render's predecessor too, while it awaited):
  // rendering again would close an open reset form and drop what was
  // typed in it.
  if (gen === ui.gen && document.getElementById('waiting') && document.getElementById('reset')) return;
  if (others === false) return aloneScreen(gen, code);
  show(gen, el('section', { class: 'card', id: 'waiting' },
    el('h2', {}, 'Waiting to be linked'),
    el('p', {}, 'This browser is a new device of ', el('strong', {}, sync.me()), '. To read and send messages here, it needs your account key from a device where you are already logged in.'),
    el('ol', {},
      el('li', {}, 'On that device, open Devices.'),
      el('li', {}, 'Find this device and check that it shows the same code:'),
    ),
    el('p', { class: 'code', id: 'link-code', 'aria-label': 'Verification code' }, code),
    el('ol', { start: 3 }, el('li', {}, 'If the codes match, press Approve there. This page continues by itself.')),
    el('p', { class: 'muted' }, 'History on this device starts when it was added: messages from before stay on your other devices.')),
  restoreCard(others),
  resetSection(false));
}

// aloneScreen is the waiting screen of an account with no other linked
// device: no approval can come, so it leads with the two ways that work,
// and keeps the link code last, for a device linked meanwhile.
function aloneScreen(gen, code) {
  show(gen, el('section', { class: 'card', id: 'waiting' },
    el('h2', {}, 'Use your account on this browser'),
    el('p', { id: 'no-other-device' }, 'This browser is a new device of ', el('strong', {}, sync.me()), '. Your account has no other linked device, so there is no device to approve this browser from. Two ways work from here:'),
    el('ul', {},
      el('li', {}, 'with the recovery key you saved, restore your account here: this browser becomes your device, with no history from before;'),
      el('li', {}, 'without it, reset the account key: you keep your username but start over with no history, and your contacts see a warning that your key changed.'))),
  restoreCard(false),
  resetSection(true),
  el('section', { class: 'card', id: 'link-later' },
    el('details', {},
      el('summary', { id: 'link-open' }, 'Linked another device meanwhile? Approve this browser from it'),
      el('p', {}, 'On that device, open Devices, find this device, and check that it shows the same code:'),
      el('p', { class: 'code', id: 'link-code', 'aria-label': 'Verification code' }, code),
      el('p', {}, 'If the codes match, press Approve there. This page continues by itself.'))));
}

// restoreErrorText says what went wrong with a recovery key typed, and
// what to do.
function restoreErrorText(ex, others) {
  if (ex.name === 'NotRecoveryKeyError') return 'This is not a recovery key: check for a typo. A recovery key has 33 letters and digits in 9 groups.';
  if (ex.name === 'WrongRecoveryKeyError' || ex.name === 'KeyMismatchError') return 'This recovery key does not fit this account. Check that it is the newest key you saved for ' + sync.me() + '.';
  if (ex.name === 'RecoveryBlobError') return 'The recovery data stored for this account cannot be read by this version of the client.';
  if (ex.code === 'no_recovery') {
    return others === false ? 'This account has no recovery key, and no other device can approve this browser: resetting the account key below is the only way left.'
      : 'This account has no recovery key; approve this browser from another device.';
  }
  if (ex.code === 'too_many_attempts') {
    const min = Math.max(1, Math.ceil((ex.retryAfter || 360) / 60));
    return `Too many attempts for this account. Try again in ${min} ${plural.select(min) === 'one' ? 'minute' : 'minutes'}.`;
  }
  return 'Could not restore: ' + ex.message;
}

// restoreCard lets an unlinked browser become a full device with the
// recovery key instead of an approval. others is otherLinked's answer.
function restoreCard(others) {
  const input = el('input', { id: 'restore-key', autocomplete: 'off', spellcheck: 'false', autocapitalize: 'characters', 'aria-describedby': 'restore-hint restore-error' });
  const err = el('p', { id: 'restore-error', class: 'error', role: 'alert' });
  const btn = el('button', { type: 'submit', id: 'restore-btn', class: 'primary' }, 'Restore');
  return el('section', { class: 'card', id: 'restore' },
    el('h2', {}, 'Restore with recovery key'),
    el('form', {
      onsubmit: async (e) => {
        e.preventDefault();
        btn.disabled = true;
        err.textContent = 'Checking the key…';
        try {
          await sync.restore(input.value);
          input.value = '';
        } catch (ex) {
          err.textContent = restoreErrorText(ex, others);
          btn.disabled = false;
        }
      },
    },
    el('label', { for: 'restore-key' }, 'Recovery key'), input,
    el('p', { id: 'restore-hint', class: 'muted' }, 'No other device? Type the recovery key you saved, like ABCD-EFGH-…-K. Case, spaces and dashes do not matter.'),
    el('p', {}, btn), err));
}

// resetSection is the way out for a person who lost every device and the
// recovery key: a new account key, made here. It says what is lost before
// anything is done, asks for the password again and for a confirmation.
// It is open from the start when it is one of the only two ways left.
function resetSection(open) {
  const form = passwordForm({
    ids: { password: 'reset-password', error: 'reset-error', button: 'reset-btn' },
    button: 'Reset the account key…',
    need: 'reset its key',
    before: [el('p', {}, 'Only if you lost every device where you are logged in and your recovery key. Resetting makes a new account key on this browser:'),
      el('ul', {},
        el('li', {}, 'your old messages cannot be read any more, here or anywhere;'),
        el('li', {}, 'every other device of this account is removed;'),
        el('li', {}, 'your contacts see a warning that your key changed.'))],
    confirm: () => confirmDialog('Reset your account key?',
      'Your old messages cannot be read any more, every other device of this account is removed, and your contacts see a warning that your key changed. This cannot be undone.',
      'Reset the account key'),
    busy: 'Making a new account key…',
    // Set before: the linked event of the reset routes to the chat list.
    onStart: () => {
      ui.shownWaiting = false;
      ui.resetNotice = true;
    },
    onFail: () => {
      ui.shownWaiting = true;
      ui.resetNotice = false;
    },
    act: (password) => sync.resetAccountKey(password),
    failed: 'The key could not be reset',
  });
  return el('section', { class: 'card', id: 'reset' },
    el('details', { open }, el('summary', { id: 'reset-open' }, 'Lost all your devices? Reset your account key'), form));
}
