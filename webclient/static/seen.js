// seen.js: what of a chat is on the reader's screen. A message is read when
// at least half of it (or, for one taller than that, half of the list's
// height) was in view in a visible tab, never because its chat was open
// (docs/storage.md, "Read positions"). The chat screen hands its list to a
// watcher and tells it, after each render, which messages are unread; the
// watcher reports those it sees, and says how many wait below the view.

// A short wait gathers what one scroll brings into view into one report.
const GATHER_MS = 100;

// watchSeen watches the incoming rows (li.msg.in[data-id]) of list and
// calls report(ids) with unread ones seen, each once.
export function watchSeen(list, report) {
  let unread = new Set(); // ids the store counts unread now
  const watched = new Set(); // rows observed
  let timer = null;
  // The observer only says when to look: what is in view is measured when
  // reporting, so a report made at once (the chat is left, the tab comes
  // back) sees the screen as it is.
  const io = new IntersectionObserver(() => soon(), { root: list, threshold: [0, 0.25, 0.5, 0.75, 1] });

  function soon() {
    if (!timer) timer = setTimeout(flush, GATHER_MS);
  }

  // halfIn reports whether row n is at least half in the list's view, or
  // fills at least half of it.
  function halfIn(n, view) {
    const r = n.getBoundingClientRect();
    const shown = Math.min(r.bottom, view.bottom) - Math.max(r.top, view.top);
    return r.height > 0 && shown > 0 && (shown >= r.height / 2 || shown >= view.height / 2);
  }

  // flush reports the unread rows in view, while the tab is visible.
  function flush() {
    clearTimeout(timer);
    timer = null;
    if (document.visibilityState !== 'visible' || !list.isConnected || !unread.size) return;
    const view = list.getBoundingClientRect();
    const ids = [];
    for (const n of list.querySelectorAll('li.msg.in[data-id]')) {
      if (unread.has(n.dataset.id) && halfIn(n, view)) ids.push(n.dataset.id);
    }
    if (!ids.length) return;
    for (const id of ids) unread.delete(id);
    report(ids);
  }

  return {
    // update takes the ids unread now and watches rows new to the list
    // (a row rebuilt is a new element); rows gone are let go.
    update(ids) {
      unread = new Set(ids);
      for (const n of watched) {
        if (n.isConnected) continue;
        io.unobserve(n);
        watched.delete(n);
      }
      for (const n of list.querySelectorAll('li.msg.in[data-id]')) {
        if (watched.has(n)) continue;
        watched.add(n);
        io.observe(n);
      }
      soon();
    },
    // flush reports at once: the tab became visible, or the chat is left.
    flush,
    // below is the first unread row below the view, and how many unread
    // rows wait there: those not in view by the measure of flush, under
    // the view's top.
    below() {
      const view = list.getBoundingClientRect();
      const rows = [...list.querySelectorAll('li.msg.in[data-id]')].filter((n) => unread.has(n.dataset.id) && n.getBoundingClientRect().top > view.top && !halfIn(n, view));
      return { first: rows[0] || null, count: rows.length };
    },
    stop() {
      clearTimeout(timer);
      io.disconnect();
      watched.clear();
    },
  };
}
