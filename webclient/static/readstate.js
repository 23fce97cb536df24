// readstate.js: read positions, shared with the account's other devices
// as encrypted read records to the account itself (ADR 0015). Records that
// arrive are applied by the inbox, in the batch's transaction.

import * as store from './store.js';
import * as api from './api.js';
import * as c from './crypto.js';
import * as account from './account.js';
import { notify } from './election.js';
import { ulid } from './ulid.js';

// markRead moves the chat's read position to its newest incoming message
// and tells the account's other devices, so read state converges.
export async function markRead(username) {
  const msgs = await store.getMessages(username);
  // A message still waiting to decrypt has not been read.
  const lastIn = msgs.filter((m) => m.dir === 'in' && !m.waiting).map((m) => m.id).sort().pop();
  const { advanced, touched } = await store.setReadPosition(username, lastIn);
  if (touched) notify({ type: 'changed', chats: [username] });
  if (advanced && account.isLinked()) {
    try {
      const me = account.me();
      const id = ulid();
      const { key } = await account.convKey(me);
      const body = await c.seal(key, c.randomIV(), id, me, me, JSON.stringify({ type: 'read', chat: username, upTo: lastIn }));
      await api.send(id, me, c.b64encode(body));
    } catch (e) {
      console.warn('sync: could not share the read position', e.code);
    }
  }
}
