// searchcost.js: the page side of search-bench. It fills the client's own
// IndexedDB (the store's schema, written directly: the bench is not the
// client) with a history of made-up messages over many chats, then times
// the client's own search.js on it: the index built the first time, each
// query, a chat read again after a change; and, as references measured in
// the same tab, reading the same rows from IndexedDB alone and scanning
// the same folded texts with a bare loop.

import * as store from '/store.js';
import * as search from '/search.js';
import { fold, terms } from '/searchtext.js';
import { text } from '/bench/lib/history.js';

const now = () => performance.now();

function put(rows) {
  return new Promise((resolve, reject) => {
    const r = indexedDB.open('relay');
    r.onerror = () => reject(r.error);
    r.onsuccess = () => {
      const db = r.result;
      const t = db.transaction(['messages'], 'readwrite');
      for (const m of rows) t.objectStore('messages').put(m);
      t.oncomplete = () => { db.close(); resolve(); };
      t.onerror = () => reject(t.error);
    };
  });
}

// fill makes a fresh database holding n messages over chats chats, 1 in
// 100 with a file, and the word "Zürich" in exactly needles of them. It
// returns the average length of a text.
export async function fill(n, chats, needles) {
  search.reset();
  await store.clearAll();
  await store.startDevice({ username: 'bench', publicKey: new Uint8Array(65), privateKey: null }, { id: 'bench-device', name: 'bench' });
  const start = Date.UTC(2025, 0, 1);
  let chars = 0;
  const every = Math.floor(n / needles);
  for (let at = 0; at < n; at += 5000) {
    const rows = [];
    for (let i = at; i < Math.min(n, at + 5000); i++) {
      let t = text();
      if (i % every === 0 && i / every < needles) t += ' Zürich';
      chars += t.length;
      const ts = start + i * 60000;
      const chat = 'user' + (i % chats);
      const m = { id: 'm' + String(i).padStart(8, '0'), chat, from: i % 2 ? chat : 'bench', fromDevice: 'd', to: i % 2 ? 'bench' : chat, dir: i % 2 ? 'in' : 'out', text: t, ts, sort: ts, status: 'read' };
      if (i % 100 === 50) m.files = [{ ref: 'f' + i, name: `IMG_${i}.jpg`, kind: 'photo', size: 123456 }];
      rows.push(m);
    }
    await put(rows);
  }
  return { chars: chars / n };
}

// readAll reads every row of the messages store in the pieces the index
// reads them in, and does nothing with them: the floor of a first search.
export async function readAll() {
  const t0 = now();
  let after = null;
  let rows = 0;
  for (;;) {
    const got = await store.messageRows(after, 5000);
    rows += got.length;
    if (got.length < 5000) break;
    after = got[got.length - 1].id;
  }
  return { ms: now() - t0, rows };
}

// build times search.js making its index from nothing.
export async function build() {
  search.reset();
  const t0 = now();
  await search.ready();
  return now() - t0;
}

// query times search.search(q) runs times, with the count found.
export async function query(q, runs) {
  const ms = [];
  let total = 0;
  for (let i = 0; i < runs; i++) {
    const t0 = now();
    total = (await search.search(q, 50)).total;
    ms.push(now() - t0);
  }
  return { ms, total };
}

// reference times a bare loop over the same folded texts (the index's
// strings, made here again) looking for q, runs times: what any scan of
// the texts costs, with no chats, order or results.
export async function reference(q, runs) {
  const rows = [];
  let after = null;
  for (;;) {
    const got = await store.messageRows(after, 5000);
    for (const m of got) rows.push(fold(m.text));
    if (got.length < 5000) break;
    after = got[got.length - 1].id;
  }
  const [t] = terms(q);
  const ms = [];
  let total = 0;
  for (let i = 0; i < runs; i++) {
    const t0 = now();
    total = 0;
    for (const s of rows) if (s.includes(t)) total++;
    ms.push(now() - t0);
  }
  return { ms, total };
}

// changed times a search just after a chat of perChat messages changed:
// the chat is read again first.
export async function changed(runs) {
  const ms = [];
  for (let i = 0; i < runs; i++) {
    search.changed(['user' + i]);
    const t0 = now();
    await search.search('zurich', 50);
    ms.push(now() - t0);
  }
  return ms;
}
