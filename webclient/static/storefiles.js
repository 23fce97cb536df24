// storefiles.js: the store's writes and reads of attachments' bytes on
// this device (the 'files' store, storedb.js): a file chosen to send,
// kept with its message so that an upload resumes after a reload; a file
// received, kept once downloaded and checked. They go with their message
// (deleted for everyone or for me, or cancelled: dropFiles in
// storerows.js, in the transaction that deletes it).

import { tx, req, done, lockedFile, openedFile } from './storedb.js';

// putFile keeps the bytes of file ref of message msg of chat.
// While the app lock is on, the bytes are sealed before the transaction.
export async function putFile(ref, msg, chat, blob) {
  const kept = await lockedFile(ref, blob);
  const t = await tx(['files'], 'readwrite');
  t.objectStore('files').put({ ref, msg, chat, blob: kept });
  await done(t);
}

// keepDownloaded keeps the checked bytes of file ref of message id, and
// marks the file got, unless the message is gone, deleted or no longer
// has it (deleted while it downloaded). It returns whether it kept them.
export async function keepDownloaded(id, ref, blob) {
  const kept = await lockedFile(ref, blob);
  const t = await tx(['messages', 'files'], 'readwrite');
  const ms = t.objectStore('messages');
  const m = await req(ms.get(id));
  const at = m && !m.hidden && !m.deleted && m.files ? m.files.findIndex((f) => f.ref === ref) : -1;
  if (at >= 0) {
    m.files[at] = { ...m.files[at], got: true, state: null };
    ms.put(m);
    t.objectStore('files').put({ ref, msg: id, chat: m.chat, blob: kept });
  }
  await done(t);
  return at >= 0;
}

// getFile is the bytes of file ref on this device, or null.
export async function getFile(ref) {
  const t = await tx(['files']);
  const r = await req(t.objectStore('files').get(ref));
  return r ? openedFile(ref, r.blob) : null;
}

// setFileFields changes the entry ref of message id's files (an upload's
// id at the relay, its digest, a download's outcome) unless the message
// is gone or no longer has it. It returns the message as written, or null.
export async function setFileFields(id, ref, fields) {
  const t = await tx(['messages'], 'readwrite');
  const ms = t.objectStore('messages');
  const m = await req(ms.get(id));
  const at = m && m.files ? m.files.findIndex((f) => f.ref === ref) : -1;
  if (at < 0) {
    await done(t);
    return null;
  }
  m.files[at] = { ...m.files[at], ...fields };
  ms.put(m);
  await done(t);
  return m;
}
