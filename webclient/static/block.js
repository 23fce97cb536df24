// block.js: blocking a contact (ADR 0119). A block is this account's: the
// device that blocks writes it at once and tells the account's other
// devices with an encrypted block record to the account itself, which the
// stream owner sends until the relay accepts it (as read records), and
// again when a device joins the account's own group. Every
// device then drops what the contact sends from the block on, without
// showing it, notifying it or sending it a receipt (storeblock.js). The
// contact is not told, and the relay does not learn it: it still queues
// the contact's envelopes, which the devices ACK and drop.

import * as store from './store.js';
import * as account from './account.js';
import { isOwner, notify, onRemote, post, subscribe } from './election.js';
import { isGroup } from './groupmeta.js';
import { selfSender } from './selfrecords.js';

onRemote((ev) => {
  if (ev.type === 'blocks' && isOwner()) flushBlocks();
});
subscribe((ev) => {
  if (ev.type === 'owner' || (ev.type === 'conn' && ev.state === 'open')) flushBlocks();
  // A device linked since never had the records: they go again.
  if (ev.type === 'ownDeviceAdded') store.blocksToTellAgain().then(flushBlocks, () => {});
});

// isBlocked reports whether this account blocks username now.
export async function isBlocked(username) {
  const ch = await store.getChat(username);
  return !!(ch && ch.block && ch.block.on);
}

// setBlocked blocks the contact username (on) or unblocks it, on every
// device of the account. Unblocking does not bring back what was dropped.
export async function setBlocked(username, on) {
  if (!username || username === account.me() || isGroup(username)) throw new Error('Only a contact can be blocked.');
  await store.setBlock(username, !!on, Date.now());
  notify({ type: 'changed', chats: [username] });
  if (isOwner()) flushBlocks();
  else post({ type: 'blocks' });
}

// flushBlocks sends the block records not yet accepted (selfrecords.js):
// the newest at wins, so a record sent twice changes nothing.
export const flushBlocks = selfSender('block record',
  async () => (await store.getChats()).filter((ch) => ch.block && !ch.block.sent),
  (ch) => ({ type: 'block', chat: ch.username, on: ch.block.on, at: ch.block.at }),
  (ch) => store.blockSent(ch.username, ch.block.at));
