// conversation.js: what a person does to a chat on this device only:
// "Delete for me", the setting for read receipts, and dismissing the
// notices of a chat's encryption.

import * as store from './store.js';
import { notify } from './election.js';
import * as api from './api.js';

// deleteForMe hides a message on this device; the other person is told
// nothing. Its attachments that this device had not confirmed yet are
// confirmed to the relay, so that it does not keep them for a device that
// will never fetch them.
export async function deleteForMe(id) {
  const m = await store.getMessage(id);
  const chat = await store.hideMessage(id);
  if (chat) notify({ type: 'changed', chats: [chat] });
  for (const f of (m && m.files) || []) {
    if (f.id && f.digest && !f.confirmed) await api.attachmentReceived(f.id).catch(() => {});
  }
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
