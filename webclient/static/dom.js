// dom.js: the DOM helpers every screen uses: el builds an element, placeRows
// keeps a keyed list in place, ask is the one modal dialog. Nothing here
// knows a screen, the store or the relay.

// el builds an element: attributes (on… handlers for click, submit and
// keydown; class; true as an empty attribute; null, undefined and false
// left out) and children (nodes, or anything else as text).
export function el(tag, attrs = {}, ...children) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (v === undefined || v === null || v === false) continue;
    if (k === 'onclick' || k === 'onsubmit' || k === 'onkeydown') e.addEventListener(k.slice(2), v);
    else if (k === 'class') e.className = v;
    else e.setAttribute(k, v === true ? '' : v);
  }
  for (const c of children) {
    if (c === null || c === undefined || c === false) continue;
    e.append(c instanceof Node ? c : document.createTextNode(String(c)));
  }
  return e;
}

// rowInfo holds the key and signature of each row node.
const rowInfo = new WeakMap();

// The elements of a row that can hold the focus, in document order.
const FOCUSABLE = 'a[href], button, input, select, textarea, [tabindex]';

// focusPlace is where the focus is in row n: the row itself (-1), the
// index of the focused element among the row's focusable ones, or null.
function focusPlace(n) {
  const a = document.activeElement;
  if (!n || !a || !n.contains(a)) return null;
  return a === n ? -1 : [...n.querySelectorAll(FOCUSABLE)].indexOf(a);
}

// openPopup is the index of the row's open popup among the buttons that
// open one (aria-haspopup), or null.
function openPopup(n) {
  if (!n) return null;
  const i = [...n.querySelectorAll('[aria-haspopup]')].findIndex((b) => b.getAttribute('aria-expanded') === 'true');
  return i < 0 ? null : i;
}

// placeRows makes list show rows ({key, sig, make}), in place: a row keeps
// its node while what it shows (sig) is unchanged, is rebuilt alone when it
// changed, and is moved when its place in the order changed. Nothing else
// is touched. A row rebuilt with the focus in it gives the focus to the
// element in the same place of the new one (the row itself, or its n-th
// focusable element), and a menu open in it is opened again: a tick or a
// receipt that arrives while someone is choosing does not take the menu
// from under their hand. It returns the rows whose key was not on the list
// before.
export function placeRows(list, rows) {
  const old = new Map();
  for (const n of list.children) {
    const info = rowInfo.get(n);
    if (info) old.set(info.key, n);
  }
  const seen = new Set();
  const added = [];
  let i = 0;
  for (const r of rows) {
    if (seen.has(r.key)) continue;
    seen.add(r.key);
    let n = old.get(r.key);
    old.delete(r.key);
    if (!n) added.push(r);
    if (!n || rowInfo.get(n).sig !== r.sig) {
      const fresh = r.make();
      rowInfo.set(fresh, { key: r.key, sig: r.sig });
      const place = focusPlace(n);
      const popup = openPopup(n);
      if (n) n.replaceWith(fresh);
      if (popup !== null) {
        const b = /** @type {HTMLElement | undefined} */ (fresh.querySelectorAll('[aria-haspopup]')[popup]);
        if (b) b.click();
      }
      if (place !== null) {
        const again = place < 0 ? fresh : fresh.querySelectorAll(FOCUSABLE)[place];
        if (again) again.focus();
      }
      n = fresh;
    }
    if (list.children[i] !== n) list.insertBefore(n, list.children[i] || null);
    i++;
  }
  for (const n of old.values()) n.remove();
  while (list.children.length > i) list.lastElementChild.remove();
  return added;
}

// ask shows a modal <dialog> and resolves to the value of the button
// pressed, or null on Esc or Cancel. Focus goes to Cancel, so that Enter
// never confirms something destructive by accident. id names the dialog
// (its title is id-title); cancelId, if given, is Cancel's id, and
// cancelLabel its words (Close, for a dialog that only tells).
/**
 * @param {{id: string, title: string, body: Node[], cancelId?: string, cancelLabel?: string,
 *   actions: {id?: string, class?: string, label: string, value: string}[]}} o
 * @returns {Promise<string | null>}
 */
export function ask({ id, title, body, actions, cancelId, cancelLabel = 'Cancel' }) {
  return new Promise((resolve) => {
    const dlg = el('dialog', { id, 'aria-labelledby': id + '-title' });
    const cancel = el('button', { type: 'button', id: cancelId, class: 'dialog-cancel', onclick: () => dlg.close('') }, cancelLabel);
    dlg.append(el('h2', { id: id + '-title' }, title), ...body,
      el('p', { class: 'dialog-actions' }, cancel, ...actions.map((a) => el('button', {
        type: 'button', id: a.id, class: a.class, onclick: () => dlg.close(a.value),
      }, a.label))));
    dlg.addEventListener('close', () => {
      dlg.remove();
      resolve(dlg.returnValue || null);
    });
    document.body.append(dlg);
    dlg.showModal();
    cancel.focus();
  });
}

// confirmDialog asks a yes-or-no question with ask and resolves to true
// only when the person confirms.
export async function confirmDialog(title, text, confirmLabel) {
  const v = await ask({
    id: 'dialog', title, body: [el('p', {}, text)], cancelId: 'dialog-cancel',
    actions: [{ id: 'dialog-confirm', class: 'primary', label: confirmLabel, value: 'ok' }],
  });
  return v === 'ok';
}
