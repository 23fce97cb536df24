// readstate.js: read positions, shared with the account's other devices
// as encrypted read records to the account itself (ADR 0015, refined by
// ADRs 0041 and 0091). What a position means, and what is unread, is
// readpos.js's. Records that arrive are applied by the inbox, in the
// batch's transaction; records this device made are kept by the store and
// sent by the stream owner until the relay accepts them.

import * as store from './store.js';
import { isOwner, notify, onRemote, post, subscribe } from './election.js';
import { kickReceipts } from './receipts.js';
import { selfSender } from './selfrecords.js';


// Another tab moved a position: the owner sends it. The owner sends what
// is left when it takes the stream and whenever the stream is ready again.
onRemote((ev) => {
  if (ev.type === 'reads' && isOwner()) flushReads();
});
subscribe((ev) => {
  if (ev.type === 'owner' || (ev.type === 'conn' && ev.state === 'open')) flushReads();
});

function kick() {
  if (isOwner()) flushReads();
  else post({ type: 'reads' });
}

// markSeen reads the messages ids of chat username: they were on this
// device's screen, in a visible tab (the chat screen watches what is in
// view). The position moves to the newest of them and a late one is read
// itself (readpos.js); the change is sent to the other devices, and a read
// receipt to the other person.
export async function markSeen(username, ids) {
  if (!ids.length) return;
  const { advanced, receipted } = await store.markSeen(username, ids);
  if (advanced) {
    notify({ type: 'changed', chats: [username] });
    kick();
  }
  if (receipted) kickReceipts();
}

// markUnread moves the chat's read position back to just before message
// id, on this device and, by a record with a higher version, on the
// account's other devices.
export async function markUnread(username, id) {
  const msgs = await store.getMessages(username);
  const i = msgs.findIndex((m) => m.id === id);
  if (i < 0) return;
  // Just before the message: the one before it, or, for the first this
  // device holds, its own sort with the least id.
  const prev = msgs[i - 1];
  await store.markUnread(username, prev ? { sort: prev.sort, id: prev.id } : { sort: msgs[i].sort, id: '' });
  notify({ type: 'changed', chats: [username] });
  kick();
}

// flushReads sends the read records not yet accepted (selfrecords.js).
export const flushReads = selfSender('read record', store.readRecordsToSend, (rec) => ({ type: 'read', ...rec }), store.readRecordSent);
