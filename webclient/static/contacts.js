// contacts.js: the people this account writes to: their keys from the
// directory, key-change warnings and safety codes.

import * as store from './store.js';
import * as api from './api.js';
import * as c from './crypto.js';
import * as account from './account.js';
import { notify, onRemote } from './election.js';

// refreshKey fetches the contact's key from the directory (fresh: past
// the relay's memory) and records it. A key that changed is a new account
// key, or someone in the middle: it is used, and the chat warns until the
// person checked the code. Every tab hears 'key', so that messages
// waiting for this key are tried again. It returns the key and whether it
// replaced the one recorded; a failed lookup throws.
export async function refreshKey(username, fresh = false) {
  const res = await api.lookup(username, fresh);
  const publicKey = c.b64decode(res.publicKey);
  const { replaced, keyChanged } = await store.setContactKey(username, publicKey);
  if (replaced) account.forgetKey(username);
  if (keyChanged) notify({ type: 'changed', chats: [username] });
  notify({ type: 'key', chat: username });
  return { replaced, publicKey };
}

// deleted are the contacts the relay said were deleted (410
// account_deleted), as this tab heard: nothing can be sent to them.
const deleted = new Set();

// isDeleted reports whether the directory said the contact's account was
// deleted.
export function isDeleted(username) {
  return deleted.has(username);
}

// markDeleted records that the relay said the contact's account was
// deleted (a lookup, or a message refused as account_deleted), and tells
// every tab before the change that shows it: an open chat turns its
// composer off at once.
export function markDeleted(username) {
  deleted.add(username);
  notify({ type: 'contact-deleted', chat: username });
}

onRemote((ev) => {
  if (ev.type === 'contact-deleted') deleted.add(ev.chat);
});

// openChat refreshes the contact's key from the directory. Opening a chat
// reads nothing: what is read is what the screen shows (readpos.js).
export async function openChat(username) {
  try {
    await refreshKey(username);
    deleted.delete(username);
  } catch (e) {
    if (e.code === 'account_deleted') markDeleted(username);
    // Offline, a chat whose key is known opens with it, as it did before
    // the outage (the connection bar says why nothing arrives); the next
    // open asks again.
    const ch = e.code === 'network' ? await store.getChat(username) : null;
    if (!ch || !ch.publicKey) return { error: e };
  }
  return { chat: await store.getChat(username) };
}

// acceptKey clears a key-change warning after the person compared the new
// safety code.
export async function acceptKey(username) {
  await store.acceptContactKey(username);
  notify({ type: 'changed', chats: [username] });
  notify({ type: 'key', chat: username });
}

export async function safetyCode(username) {
  const ch = await store.getChat(username);
  const pub = ch && ch.publicKey;
  if (!pub) return null;
  const me = account.current();
  return c.safetyCode(me.username, me.publicKey, username, pub);
}

// setVerified records on this device that the person compared the
// chat's safety code (on), or takes it back. A key change clears it.
export async function setVerified(username, on) {
  await store.setVerified(username, on);
  notify({ type: 'changed', chats: [username] });
}
