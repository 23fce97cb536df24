// lockcost.js: the page side of lock-bench. It fills the client's own
// IndexedDB (the store's schema, written directly: the bench is not the
// client) with a history of made-up messages over many chats, then times
// the client's own app lock on it, through store.js: reading every chat
// with the lock off and on, a write with the lock off and on, turning the
// lock on (the passphrase's key, then sealing every row) and off; and
// apart, scrypt alone and one message row sealed and opened.

import * as store from '/store.js';
import * as lc from '/lockcrypto.js';
import { text } from '/bench/lib/history.js';

const PASS = 'correct horse battery staple';

const now = () => performance.now();
const chatName = (c) => 'user' + c;

// raw runs f over a transaction of stores of the database as stored,
// beside the client's own connection, and settles when it commits.
function raw(stores, mode, f) {
  return new Promise((resolve, reject) => {
    const r = indexedDB.open('relay');
    r.onerror = () => reject(r.error);
    r.onsuccess = () => {
      const db = r.result;
      const t = db.transaction(stores, mode);
      const out = f(t);
      t.oncomplete = () => {
        db.close();
        resolve(out);
      };
      t.onerror = () => reject(t.error);
    };
  });
}

// stored counts the rows of meta (but the lock's own record), chats and
// messages as stored, and how many of them are sealed.
function stored() {
  return raw(['meta', 'chats', 'messages'], 'readonly', (t) => {
    const out = { rows: 0, sealed: 0 };
    for (const s of ['meta', 'chats', 'messages']) {
      const g = t.objectStore(s).getAll();
      g.onsuccess = () => {
        for (const row of g.result) {
          if (s === 'meta' && row.k === 'lock') continue;
          out.rows++;
          if (row.sealed instanceof Uint8Array) out.sealed++;
        }
      };
    }
    return out;
  });
}

// fill makes a fresh database holding n messages over chats chats (1 in
// 100 with a file's description, not its bytes), and a row for each chat
// with a key, so that store.setVerified has something to change. It
// returns the rows stored and the average length of a text.
export async function fill(n, chats) {
  await store.clearAll();
  await store.startDevice({ username: 'bench', publicKey: new Uint8Array(65), privateKey: null }, { id: 'bench-device', name: 'bench' });
  const start = Date.UTC(2025, 0, 1);
  const last = new Map();
  let chars = 0;
  for (let at = 0; at < n; at += 5000) {
    const rows = [];
    for (let i = at; i < Math.min(n, at + 5000); i++) {
      const t = text();
      chars += t.length;
      const ts = start + i * 60000;
      const chat = chatName(i % chats);
      const m = { id: 'm' + String(i).padStart(8, '0'), chat, from: i % 2 ? chat : 'bench', fromDevice: 'd', to: i % 2 ? 'bench' : chat, dir: i % 2 ? 'in' : 'out', text: t, ts, sort: ts, status: 'read' };
      if (i % 100 === 50) m.files = [{ ref: 'f' + i, name: `IMG_${i}.jpg`, kind: 'photo', size: 123456 }];
      rows.push(m);
      last.set(chat, m);
    }
    await raw(['messages'], 'readwrite', (t) => {
      for (const m of rows) t.objectStore('messages').put(m);
    });
  }
  await raw(['chats'], 'readwrite', (t) => {
    for (const [username, m] of last) {
      const read = { sort: m.sort, id: m.id, v: 0 };
      t.objectStore('chats').put({ username, lastTs: m.ts, preview: m.text, lastOut: m.dir === 'out', unread: 0, read, publicKey: new Uint8Array(65) });
    }
  });
  return { rows: (await stored()).rows, chars: chars / n };
}

// readChats reads every chat's messages through the store, as the chat
// screen does when a chat opens.
export async function readChats(chats) {
  const t0 = now();
  let rows = 0;
  for (let c = 0; c < chats; c++) rows += (await store.getMessages(chatName(c))).length;
  return { ms: now() - t0, rows };
}

// writes times store.setVerified runs times over the chats, turning the
// mark on and off: one transaction that reads a chat's row and writes it.
export async function writes(chats, runs) {
  const ms = [];
  for (let i = 0; i < runs; i++) {
    const t0 = now();
    const ok = await store.setVerified(chatName(i % chats), Math.floor(i / chats) % 2 === 0);
    ms.push(now() - t0);
    if (!ok) throw new Error('setVerified found no chat with a key');
  }
  return ms;
}

// convert times one of the lock's conversions: the passphrase's key (its
// last progress comes as scrypt ends), then every row; state is the
// lock's after it, sealed the rows left sealed.
async function convert(how) {
  let keyAt = 0;
  const t0 = now();
  await how((phase) => {
    if (phase === 'key') keyAt = now();
  });
  const ms = now() - t0;
  const after = await stored();
  return { ms, keyMs: keyAt - t0, rows: after.rows, sealed: after.sealed, state: store.lockState().state };
}

export function enable() {
  return convert((p) => store.enableLock(PASS, 5, p));
}

export function disable() {
  return convert((p) => store.disableLock(PASS, p));
}

// scrypt times the passphrase's key alone, runs times.
export async function scrypt(runs) {
  const salt = crypto.getRandomValues(new Uint8Array(lc.SALT_BYTES));
  const ms = [];
  for (let i = 0; i < runs; i++) {
    const t0 = now();
    await lc.passphraseKey(PASS, salt);
    ms.push(now() - t0);
  }
  return ms;
}

// rowCrypto times sealRow and openRow of up to n message rows as the
// store reads them, in batches of 100 (the clock's step is 5 µs): the
// microseconds a row in each batch, the rows done and their average
// size as sealRow writes them before padding.
export async function rowCrypto(chats, n) {
  const rows = [];
  for (let c = 0; c < chats && rows.length < n; c++) rows.push(...(await store.getMessages(chatName(c))));
  rows.length = Math.min(rows.length, n);
  const keys = lc.rowKeys(lc.newDataKey());
  const seal = [];
  const open = [];
  const BATCH = 100;
  for (let at = 0; at + BATCH <= rows.length; at += BATCH) {
    const batch = rows.slice(at, at + BATCH);
    let t0 = now();
    const sealed = batch.map((m) => lc.sealRow(keys, 'messages', m.id, m));
    seal.push(((now() - t0) * 1000) / BATCH);
    t0 = now();
    for (let i = 0; i < BATCH; i++) {
      if (lc.openRow(keys, 'messages', batch[i].id, sealed[i]).id !== batch[i].id) throw new Error('a row opened as another');
    }
    open.push(((now() - t0) * 1000) / BATCH);
  }
  const te = new TextEncoder();
  return { seal, open, rows: seal.length * BATCH, bytes: rows.reduce((s, m) => s + te.encode(lc.pack(m)).length, 0) / rows.length };
}
