package webclient_test

import (
	"testing"
)

// domJS drives dom.js on a page of the client and returns what it saw, one
// entry per check: "ok", or what went wrong.
const domJS = `import('/dom.js').then(async ({ el, placeRows, ask, confirmDialog }) => {
  const out = {};
  const list = el('ol', {});
  document.body.append(list);
  const row = (key, sig, label) => ({ key, sig, make: () => el('li', { tabindex: '-1', 'data-k': key }, label, el('button', { type: 'button', class: 'a' }, 'first'), el('button', { type: 'button', class: 'a' }, 'second')) });

  const added = placeRows(list, [row('x', '1', 'X'), row('y', '1', 'Y'), row('z', '1', 'Z')]);
  out.added = added.map((r) => r.key).join() === 'x,y,z' ? 'ok' : 'added ' + added.map((r) => r.key).join();
  const [x, y, z] = list.children;

  // Unchanged rows keep their nodes; a reordered one is moved, not rebuilt.
  placeRows(list, [row('z', '1', 'Z'), row('x', '1', 'X'), row('y', '1', 'Y')]);
  out.kept = list.children[0] === z && list.children[1] === x && list.children[2] === y ? 'ok' : 'nodes replaced or misplaced';

  // A changed row is rebuilt; the focus on its second button, whose class
  // is the same as the first's, stays on the second.
  y.querySelectorAll('button')[1].focus();
  placeRows(list, [row('z', '1', 'Z'), row('x', '1', 'X'), row('y', '2', 'Y2')]);
  const y2 = list.children[2];
  out.rebuilt = y2 !== y && y2.firstChild.textContent === 'Y2' ? 'ok' : 'not rebuilt';
  out.focusButton = document.activeElement === y2.querySelectorAll('button')[1] ? 'ok' : 'focus on ' + (document.activeElement.textContent || document.activeElement.tagName);

  // The focus on the row itself stays on the row.
  y2.focus();
  placeRows(list, [row('z', '1', 'Z'), row('x', '1', 'X'), row('y', '3', 'Y3')]);
  out.focusRow = document.activeElement === list.children[2] ? 'ok' : 'focus on ' + document.activeElement.tagName;

  // Rows gone are removed; a key given twice is placed once.
  placeRows(list, [row('x', '1', 'X'), row('x', '1', 'X')]);
  out.removed = list.children.length === 1 && list.children[0] === x ? 'ok' : list.children.length + ' rows left';

  // A row rebuilt while its menu is open has it open again: the new
  // row's button that opens a popup is pressed once.
  const popRow = (sig) => ({ key: 'p', sig, make: () => {
    const b = el('button', { type: 'button', 'aria-haspopup': 'true', 'aria-expanded': 'false' }, 'menu');
    b.addEventListener('click', () => { b.setAttribute('aria-expanded', 'true'); b.after(el('span', { class: 'menu' }, 'items of ' + sig)); });
    return el('li', {}, el('button', { type: 'button', 'aria-haspopup': 'true', 'aria-expanded': 'false' }, 'other'), b);
  } });
  placeRows(list, [popRow('1')]);
  list.children[0].querySelectorAll('[aria-haspopup]')[1].click();
  placeRows(list, [popRow('2')]);
  const pops = [...list.children[0].querySelectorAll('[aria-haspopup]')].map((b) => b.getAttribute('aria-expanded')).join();
  out.menuKept = pops === 'false,true' && list.children[0].querySelector('.menu')?.textContent === 'items of 2' ? 'ok' : 'popups ' + pops;
  list.children[0].querySelector('.menu')?.remove();
  list.children[0].querySelectorAll('[aria-haspopup]')[1].setAttribute('aria-expanded', 'false');
  placeRows(list, [popRow('3')]);
  out.menuClosed = list.children[0].querySelectorAll('.menu').length === 0 ? 'ok' : 'a closed menu opened';

  // ask: the value of the button pressed, null on Cancel; the focus starts
  // on Cancel.
  let p = ask({ id: 'probe', title: 'Sure?', body: [el('p', {}, 'Really')], actions: [{ id: 'probe-yes', label: 'Yes', value: 'yes' }] });
  out.askFocus = document.activeElement.classList.contains('dialog-cancel') ? 'ok' : 'focus on ' + document.activeElement.textContent;
  document.getElementById('probe-yes').click();
  out.askYes = (await p) === 'yes' ? 'ok' : 'not yes';
  p = ask({ id: 'probe', title: 'Sure?', body: [], actions: [{ id: 'probe-yes', label: 'Yes', value: 'yes' }] });
  document.querySelector('#probe .dialog-cancel').click();
  out.askCancel = (await p) === null && !document.getElementById('probe') ? 'ok' : 'not null, or left on the page';

  p = confirmDialog('Remove?', 'It goes.', 'Remove');
  out.confirmTitle = document.getElementById('dialog-title').textContent === 'Remove?' ? 'ok' : 'no title';
  document.getElementById('dialog-confirm').click();
  out.confirmYes = (await p) === true ? 'ok' : 'not true';
  p = confirmDialog('Remove?', 'It goes.', 'Remove');
  document.getElementById('dialog-cancel').click();
  out.confirmNo = (await p) === false ? 'ok' : 'not false';
  list.remove();
  return out;
})`

// TestDomHelpers checks dom.js, the helpers of every screen: placeRows
// keeps unchanged rows, moves reordered ones, rebuilds changed ones with
// the focus in the same place (by position, not by class: the two buttons
// of a row share one), and ask and confirmDialog resolve to what was
// pressed.
func TestDomHelpers(t *testing.T) {
	r := startRelay(t)
	_, tb := r.newProfile(t)
	tb.waitFor("the page", `document.getElementById('view')`)
	got := eval[map[string]string](tb, domJS)
	for _, k := range []string{"added", "kept", "rebuilt", "focusButton", "focusRow", "menuKept", "menuClosed", "removed", "askFocus", "askYes", "askCancel", "confirmTitle", "confirmYes", "confirmNo"} {
		if got[k] != "ok" {
			t.Errorf("%s: %s", k, got[k])
		}
	}
}
