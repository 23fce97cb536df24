// store.js: the browser's IndexedDB, the one import of the client for it.
// Every other module reads through the functions it exports and changes
// what is stored only by asking for one of its operations, each one
// transaction (docs/storage.md). The store's modules behind it are the
// only writers: no other module opens the database or a readwrite
// transaction (TestOneWriterOfIndexedDB), and none imports them but
// store.js (TestOnlyTheStoreImportsItsModules):
//   storedb.js     the database: its stores, opening, transactions, the
//                  meta records, deleting it
//   storeread.js   the reads
//   storerows.js   what the writes share within their transaction
//   storebatch.js  what the stream brings
//   storeout.js    the outbox
//   storechat.js   a chat's key, verification, read position, receipts,
//                  "delete for me"
//   storefiles.js  attachments' bytes on this device
//   storeimport.js a history brought from a backup or another device
//   storeexpire.js a chat's timer, and disappearing messages erased
//   storeblock.js  blocking a contact
//   storelock.js   the app lock: turning it on and off, unlocking
//   storesealed.js the rows as the app lock seals them

// ---- the database and the meta records ----

export { NoDatabase, getMeta, hadAccount, clearAll, startDevice, setAccount, setPurgeNotice, rewind, setPrefs, keepMLSIdentity, keepGroups, setHistoryState } from './storedb.js';

// ---- reads ----

export {
  getChats, getChat, getMessages, outgoingRecords, unknownMessages, receiptsToSend, prefs, ignoredRecords,
  getMessage, unsentByChat, readRecordsToSend, waitingMessages, pendingMessages, metaKeys, messageRows, messageCount,
} from './storeread.js';

// ---- the order of a chat and read positions (docs/storage.md, "Read
// positions") ----

// after reports whether a comes after b in a chat's order: by the order key
// sort (the relay's ts), ties by id.
export { after } from './order.js';

// The read positions themselves are readpos.js's (pure functions).
export { readPosition, supersedes, isUnread } from './readpos.js';

// ---- writes: the only ones ----

export { storeBatch, resolveWaiting, resolveUnknown } from './storebatch.js';

export {
  putOutgoing, renewOutgoing, claimOutgoing, cancelOutgoing, markSent, recordSent, dropOutgoing, markFailed, markWaiting,
} from './storeout.js';

export {
  setContactKey, acceptContactKey, setVerified, setNotice, markSeen, markUnread, readRecordSent, receiptsSent, hideMessage,
} from './storechat.js';

export { putFile, keepDownloaded, getFile, setFileFields } from './storefiles.js';

export { importHistory } from './storeimport.js';

export { expireDue, nextExpiry } from './storeexpire.js';

export { setBlock, blockSent, blocksToTellAgain } from './storeblock.js';

// ---- the app lock (storelock.js) ----

export { Locked } from './storesealed.js';
export { WrongPassphrase } from './lockcrypto.js';
export {
  lockState, lockStatus, onLockChange, askOtherTabs, enableLock, unlock, resumeConversion, lockApp, setAutoLock, disableLock,
  holdEvents, nextHeld, dropHeld, setLockDevice, lockDevice,
} from './storelock.js';
