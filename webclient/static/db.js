// db.js: the browser's IndexedDB store. Reads are open to every module;
// writes happen only in sync.js, which passes its transactions through
// tx() below.
//
// Stores:
//   meta      {k, v}: 'account' {username, publicKey, privateKey|null},
//                     'device' {id, publicKey, privateKey, name},
//                     'cursor' {lastSeq}
//   messages  {id, chat, from, to, dir ('in'|'out'), text, ts, sort, status,
//              error, seq}; index 'chat' on [chat, sort]
//   chats     {username, lastTs, preview, unread, readUpTo, publicKey,
//              keyChanged, safetyCode}

const NAME = 'relay';
const VERSION = 1;
let dbp = null;

export function openDB() {
  if (!dbp) {
    dbp = new Promise((resolve, reject) => {
      const req = indexedDB.open(NAME, VERSION);
      req.onupgradeneeded = () => {
        const db = req.result;
        db.createObjectStore('meta', { keyPath: 'k' });
        const m = db.createObjectStore('messages', { keyPath: 'id' });
        m.createIndex('chat', ['chat', 'sort']);
        db.createObjectStore('chats', { keyPath: 'username' });
      };
      req.onsuccess = () => resolve(req.result);
      req.onerror = () => reject(req.error);
      req.onblocked = () => reject(new Error('IndexedDB is blocked by another tab'));
    });
  }
  return dbp;
}

export function done(t) {
  return new Promise((resolve, reject) => {
    t.oncomplete = () => resolve();
    t.onerror = () => reject(t.error);
    t.onabort = () => reject(t.error || new Error('transaction aborted'));
  });
}

export function req(r) {
  return new Promise((resolve, reject) => {
    r.onsuccess = () => resolve(r.result);
    r.onerror = () => reject(r.error);
  });
}

// tx opens a transaction; used for writes by sync.js only.
export async function tx(stores, mode = 'readonly') {
  const db = await openDB();
  return db.transaction(stores, mode);
}

export async function getMeta(k) {
  const t = await tx(['meta']);
  const r = await req(t.objectStore('meta').get(k));
  return r ? r.v : undefined;
}

export async function getChats() {
  const t = await tx(['chats']);
  const all = await req(t.objectStore('chats').getAll());
  return all.sort((a, b) => (b.lastTs || 0) - (a.lastTs || 0));
}

export async function getChat(username) {
  const t = await tx(['chats']);
  return req(t.objectStore('chats').get(username));
}

export async function getMessages(chat) {
  const t = await tx(['messages']);
  const range = IDBKeyRange.bound([chat, -Infinity], [chat, Infinity]);
  return req(t.objectStore('messages').index('chat').getAll(range));
}

export async function getMessage(id) {
  const t = await tx(['messages']);
  return req(t.objectStore('messages').get(id));
}

export async function pendingMessages() {
  const t = await tx(['messages']);
  const all = await req(t.objectStore('messages').getAll());
  return all.filter((m) => m.dir === 'out' && m.status === 'pending').sort((a, b) => a.sort - b.sort);
}

export async function wipe() {
  const db = await openDB();
  db.close();
  dbp = null;
  await new Promise((resolve) => {
    const r = indexedDB.deleteDatabase(NAME);
    r.onsuccess = r.onerror = r.onblocked = () => resolve();
  });
}
