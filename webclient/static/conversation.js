// conversation.js: what a person does to a chat on this device only:
// "Delete for me", the setting for read receipts, and dismissing the
// notices of a chat's encryption.

import * as store from './store.js';
import { notify } from './election.js';

// deleteForMe hides a message on this device; nothing is sent.
export async function deleteForMe(id) {
  const chat = await store.hideMessage(id);
  if (chat) notify({ type: 'changed', chats: [chat] });
}

// readReceipts reports whether this device sends read receipts and shows
// those of others (both people must allow them, as in Signal).
export async function readReceipts() {
  return (await store.prefs()).readReceipts;
}

export async function setReadReceipts(on) {
  await store.setPrefs({ ...(await store.prefs()), readReceipts: !!on });
  notify({ type: 'prefs' });
}

// dismissNotice hides a notice of the chat's encryption: 'rejoined' (this
// device fell behind and joined it again), 'refused' (a device that its
// account key did not certify was refused) or 'behind' (this device is
// stuck behind in a group chat).
export async function dismissNotice(chat, kind) {
  await store.setNotice(chat, kind, null);
  notify({ type: 'changed', chats: [chat] });
}
