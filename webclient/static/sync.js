// sync.js: what the screens may ask for, in one import. Each function
// belongs to the module of its role (docs/storage.md):
//   store.js     the store: its modules are the only writers of IndexedDB
//   account.js   this profile's account and device, and the key cache
//   election.js  which tab owns the stream; events between tabs
//   stream.js    the event stream: EventSource, reconnects, ACK timing
//   inbox.js     what the stream brings: decrypt, write, then ACK
//   outbox.js    sending, with the retry rules of ADR 0010
//   readstate.js read positions shared with the account's other devices
//   records.js   the records of a conversation: what parses, what applies
//   receipts.js  delivery and read receipts, batched
//   conversation.js delete for me, and this device's chat settings
//   contacts.js  contacts' keys, safety codes and their verification
//   notifications.js  Web Push on this device, with sw.js
//   shell.js     the offline app shell: registers sw.js
//   devicewatch.js  the account's devices, polled while visible
//   mlsidentity.js  this device's MLS identity and key packages, and the
//                check of another member's
//   mlsgroups.js, mlschat.js  the chats' MLS groups; sealing and opening
//                records in them
//   mlsmembers.js  this account's devices added to and removed from them
//   history.js   the history as an archive: backups written and read
//   historyxfer.js  the history handed to a newly linked device
//   disappear.js the sweep that erases disappearing messages
//   heldstream.js the stream owner while the app is locked
// Screens read what is stored through store.js and change it only here.

import * as account from './account.js';
import * as election from './election.js';
import * as stream from './stream.js';
import './inbox.js'; // the stream's reader: it registers itself with stream.js
import './mlsmembers.js'; // the groups' upkeep: it listens to the owner's events
import './disappear.js'; // the sweep of disappearing messages: it runs by itself
import * as notifications from './notifications.js';
import { drainHeld } from './heldstream.js';

export { subscribe, isOwner } from './election.js';
export { me, isLinked, isRevoked, currentDevice, load, registerAccount, registrationMode, loginAccount, linkCode, deviceCode, approve, revoke, recoveryStatus, createRecoveryKey, isLastLinked, rename, syncLinked } from './account.js';
export { connection, streaming } from './stream.js';
export { purgeNotice, dismissPurgeNotice } from './inbox.js';
export { sendText, sendFiles, retry, flushOutbox, editMessage, deleteForEveryone, react, discard, cancel, setTimer } from './outbox.js';
export { deleteForMe, setReadReceipts, readReceipts, dismissNotice } from './conversation.js';
export { markSeen, markUnread } from './readstate.js';
export { openChat, acceptKey, safetyCode, setVerified, isDeleted } from './contacts.js';
export { state as notificationState, enable as enableNotifications, disable as disableNotifications } from './notifications.js';
export { install as installShell } from './shell.js';
export { makeBackup, importBackup, hasRestoredKey } from './history.js';
export { sendHistory, estimate as estimateHistory, since30, sendState as historySendState, dismissSent as dismissHistorySent, incoming as historyIncoming, asked as historyAsked, askAgain as askHistoryAgain, dismiss as dismissHistory, receiveProgress as historyProgress } from './historyxfer.js';
export { checkMember } from './mlsidentity.js';
export { whileLocked } from './heldstream.js';
export { isBlocked, setBlocked } from './block.js';
export { reportDraft, sendReport, REASONS as REPORT_REASONS, MAX_REPORT_MESSAGES, MAX_COMMENT } from './report.js';
export { checkNow as checkGroupMembers } from './mlsmembers.js';
export { start as watchDevices, stop as unwatchDevices, devices, known as knownDevices, POLL_MS as DEVICE_POLL_MS } from './devicewatch.js';

// A push came while this tab is open: the stream owner syncs now if its
// stream is down, instead of waiting for the reconnect's backoff.
notifications.onPush(() => {
  if (election.isOwner() && account.currentDevice() && stream.connection() === 'down') stream.openStream();
});

// start joins the election for the stream owner of this browser profile;
// the owner reads what was kept while the app was locked, then opens the
// stream of this device.
export function start() {
  election.start({ canOwn: () => !!account.currentDevice(), open: () => stream.openAfter(drainHeld) });
}

// A tab that hears another tab log out closes its stream and leaves the
// election, releasing the stream lock.
election.onRemote((ev) => {
  if (ev.type === 'account') {
    stream.stopStream();
    election.stop();
  }
  // Another tab restored the account key: the stream owner starts over,
  // so that what waited unread while unlinked is replayed and read.
  if (ev.type === 'restored') {
    account.load().then(() => { if (election.isOwner()) stream.openStream(); });
  }
});

// restore links this device with the recovery key typed
// (account.restore), then the stream starts over as after a link.
export async function restore(text) {
  await account.restore(text);
  election.post({ type: 'restored' });
  if (election.isOwner()) stream.openStream();
}

// The stream owner heard that the account was deleted (event: deleted):
// it clears the profile, and every tab hears it as a logout.
election.subscribe((ev) => {
  if (ev.type === 'conn' && ev.state === 'deleted' && election.isOwner()) {
    account.accountGone(stream.stopStream).finally(() => election.stop());
  }
});

// deleteAccount deletes the account (account.deleteAccount) and leaves the
// election, as a logout does.
export async function deleteAccount(password) {
  await account.deleteAccount(password, stream.stopStream);
  election.stop();
}

// logout leaves the election last, once the database is gone, so that no
// other tab takes the stream for the account being logged out.
export async function logout() {
  try {
    await account.logout(stream.stopStream);
  } finally {
    election.stop();
  }
}

// resetAccountKey replaces the account key from this waiting device
// (account.resetKey); the stream owner starts its stream over, now linked,
// as after a link envelope.
export async function resetAccountKey(password) {
  await account.resetKey(password);
  if (election.isOwner()) stream.openStream();
}

// rotateAccountKey replaces the account key from this linked device,
// revoking the devices in drop (account.rotateKey).
export function rotateAccountKey(password, drop) {
  return account.rotateKey(password, drop);
}
