// passwordform.js: the one form that asks for the account's password again
// before a step that cannot be undone (a reset of the account key, a new
// account key, the account's deletion), with one set of texts for what
// went wrong. Each says that nothing changed and what to do next.

import { el } from './dom.js';

// failureText says why the step failed, from the relay's error; nothing
// says what did not happen ("Nothing was changed", "Nothing was deleted").
export function failureText(ex, failed, nothing, extra = {}) {
  if (extra[ex.code]) return extra[ex.code];
  switch (ex.code) {
    case 'bad_credentials': return `That password is wrong. ${nothing}: type the password you log in with, then try again.`;
    case 'too_many_attempts': return `Too many tries. ${nothing}: wait ${ex.retryAfter || 60} seconds, then try again.`;
    default: return `${failed}: ${ex.message} ${nothing}; try again.`;
  }
}

// passwordForm builds the form: ids {password, error, button} name its
// field, its error line and its button; before and after are nodes around
// the field; need says what the password is for (shown when the field is
// short); confirm() asks the person and resolves to true to go on; busy is
// said while act(password) runs; failed begins the text of an error that
// is not the password's, nothing says what did not happen then (by
// default "Nothing was changed"), extra gives texts for codes of this
// step. Hooks, each optional: onSubmit runs first on every submit,
// onStart once the person confirmed, done(result of act) after act
// succeeded, onFail after it failed.
/**
 * @typedef {object} PasswordFormOptions
 * @property {{password: string, error: string, button: string}} ids
 * @property {string} button
 * @property {string} [buttonClass]
 * @property {Node[]} [before]
 * @property {Node[]} [after]
 * @property {string} need
 * @property {() => Promise<boolean>} confirm
 * @property {string} busy
 * @property {(password: string) => Promise<any>} act
 * @property {string} failed
 * @property {string} [nothing]
 * @property {Record<string, string>} [extra]
 * @property {() => void} [onSubmit]
 * @property {() => void} [onStart]
 * @property {(result: any) => void} [done]
 * @property {() => void} [onFail]
 */

/** @param {PasswordFormOptions} o */
export function passwordForm({ ids, button, buttonClass, before = [], after = [], need, confirm, busy, act, failed, nothing = 'Nothing was changed', extra, onSubmit, onStart, done, onFail }) {
  // No native validation: the form says in words what is missing.
  const pass = el('input', { id: ids.password, type: 'password', autocomplete: 'current-password', 'aria-describedby': ids.error });
  const err = el('p', { id: ids.error, class: 'error', role: 'alert' });
  const btn = el('button', { type: 'submit', id: ids.button, class: buttonClass }, button);
  const form = el('form', {
    onsubmit: async (e) => {
      e.preventDefault();
      err.textContent = '';
      if (onSubmit) onSubmit();
      if (pass.value.length < 8) {
        err.textContent = `Type the password of this account to ${need}.`;
        pass.focus();
        return;
      }
      if (!(await confirm())) return;
      btn.disabled = true;
      err.textContent = busy;
      if (onStart) onStart();
      try {
        const result = await act(pass.value);
        pass.value = '';
        err.textContent = '';
        if (done) done(result);
      } catch (ex) {
        if (onFail) onFail();
        err.textContent = failureText(ex, failed, nothing, extra);
        btn.disabled = false;
      }
    },
  }, ...before, el('label', { for: ids.password }, 'Password of this account'), pass, err, el('p', {}, btn), ...after);
  return form;
}
