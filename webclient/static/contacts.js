// contacts.js: the people this account writes to: their keys from the
// directory, key-change warnings and safety codes.

import * as store from './store.js';
import * as api from './api.js';
import * as c from './crypto.js';
import * as account from './account.js';
import { notify } from './election.js';
import { markRead } from './readstate.js';

// openChat refreshes the contact's key from the directory, flags a changed
// key, and records the chat as read on all own devices.
export async function openChat(username) {
  let res;
  try {
    res = await api.lookup(username);
  } catch (e) {
    return { error: e };
  }
  // A key that changed is a new account key, or someone in the middle:
  // use the new key, and warn until the person checked the code.
  const { replaced, keyChanged } = await store.setContactKey(username, c.b64decode(res.publicKey));
  if (replaced) account.forgetKey(username);
  if (keyChanged) notify({ type: 'changed', chats: [username] });
  await markRead(username);
  return { chat: await store.getChat(username) };
}

// acceptKey clears a key-change warning after the person compared the new
// safety code.
export async function acceptKey(username) {
  await store.acceptContactKey(username);
  notify({ type: 'changed', chats: [username] });
}

export async function safetyCode(username) {
  const ch = await store.getChat(username);
  const pub = ch && ch.publicKey;
  if (!pub) return null;
  const me = account.current();
  return c.safetyCode(me.username, me.publicKey, username, pub);
}
