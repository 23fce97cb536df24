// account.js: who this profile is. It holds the account and device of this
// browser profile, logs in, registers, links and logs out, and keeps the
// cache of conversation keys.

import * as store from './store.js';
import * as api from './api.js';
import * as c from './crypto.js';
import { notify, onRemote } from './election.js';
import { ulid } from './ulid.js';

let account = null; // {username, publicKey, privateKey|null}
let device = null; // {id, publicKey, privateKey, name}
const keys = new Map(); // username -> {key: AES key of the conversation, pub}

let revoked = false; // the relay said this device is revoked

// recovery is what this tab knows of the account's recovery blob:
// {set, updatedAt}, or null when not asked yet. Each GET /api/recovery
// takes one of the account's 10 fetches an hour, so it is asked once.
let recovery = null;
// restoredKey: the recovery key this page restored the account with, kept
// in memory only until the history import it offers is done
// (forgetRestoredKey), so that the person does not type it twice.
/** @type {Uint8Array | null} */
let restoredKey = null;

// Another tab logged out: this one is logged out too, at once. Another
// tab heard that this device is revoked: so is this one.
onRemote((ev) => {
  if (ev.type === 'account') forget();
  if (ev.type === 'revoked') revoked = true;
});

// A 403 device_forbidden to this device's X-Device: it was revoked.
api.onDeviceForbidden(() => {
  if (!device || revoked) return;
  revoked = true;
  notify({ type: 'revoked' });
});

// isRevoked reports whether the relay refused this device as revoked.
export function isRevoked() {
  return revoked;
}

function forget() {
  keys.clear();
  recovery = null;
  restoredKey = null;
  account = null;
  device = null;
  revoked = false;
  api.setDevice(null);
}

export function me() {
  return account ? account.username : null;
}

export function isLinked() {
  return !!(account && account.privateKey);
}

export function currentDevice() {
  return device;
}

// current returns the account: {username, publicKey, privateKey|null}.
export function current() {
  return account;
}

// load restores the account and device of this profile, if any.
export async function load() {
  account = (await store.getMeta('account')) || null;
  device = (await store.getMeta('device')) || null;
  revoked = false;
  if (device) api.setDevice(device.id);
  return !!(account && device);
}

// deviceName is the name a new device gets: its browser and system, as
// "Chrome on Linux", from navigator.userAgentData where there is one, else
// from the user-agent string. The person can rename it on the Devices
// screen.
export function deviceName(ua = navigator.userAgent, data = /** @type {any} */ (navigator).userAgentData) {
  const brands = data && Array.isArray(data.brands) ? data.brands.map((b) => b.brand) : [];
  const brand = ['Microsoft Edge', 'Opera', 'Firefox', 'Google Chrome', 'Chromium'].find((b) => brands.includes(b));
  const browserNames = { 'Microsoft Edge': 'Edge', 'Google Chrome': 'Chrome', Chromium: 'Chrome' };
  const browser = brand ? (browserNames[brand] || brand)
    : /Firefox\//.test(ua) ? 'Firefox' : /Edg\//.test(ua) ? 'Edge' : /OPR\//.test(ua) ? 'Opera' : /Chrome\//.test(ua) ? 'Chrome' : /Safari\//.test(ua) ? 'Safari' : 'Browser';
  const platform = data && typeof data.platform === 'string' && data.platform ? data.platform : '';
  const os = platform === 'macOS' || platform === 'Windows' || platform === 'Linux' || platform === 'Android' || platform === 'Chrome OS' || platform === 'iOS' ? platform
    : /Android/.test(ua) ? 'Android' : /iPhone|iPad/.test(ua) ? 'iOS' : /CrOS/.test(ua) ? 'Chrome OS' : /Mac OS/.test(ua) ? 'macOS' : /Windows/.test(ua) ? 'Windows' : /Linux/.test(ua) ? 'Linux' : '';
  return (browser + (os ? ' on ' + os : '')).slice(0, 64);
}

async function newDevice() {
  const pair = await c.generateKeyPair();
  const pub = await c.exportPublic(pair.publicKey);
  const name = deviceName();
  const { id } = await api.addDevice(name, c.b64encode(pub));
  api.setDevice(id);
  return { id, name, publicKey: pub, privateKey: pair.privateKey };
}

// registerAccount creates the account and its first device, which holds the
// account key from the start. invite is the code a relay whose
// registration is by invite asks for; "" elsewhere.
export async function registerAccount(username, password, invite = '') {
  await store.clearAll();
  const pair = await c.generateKeyPair();
  const pub = await c.exportPublic(pair.publicKey);
  await api.register(username, password, c.b64encode(pub), invite);
  const dev = await newDevice();
  account = { username, publicKey: pub, privateKey: pair.privateKey };
  device = dev;
  revoked = false;
  recovery = { set: false, updatedAt: null };
  await store.startDevice(account, device);
}

// registrationMode says who may create an account on the relay: 'open',
// 'invite' or 'closed' (docs/protocol.md, "GET /api/registration").
export async function registrationMode() {
  const r = await api.registration();
  return r && ['open', 'invite', 'closed'].includes(r.mode) ? r.mode : 'open';
}

// loginAccount logs in. A profile that already holds a live device of this
// account keeps it; otherwise a new device is registered and waits to be
// linked.
export async function loginAccount(username, password) {
  const res = await api.login(username, password);
  const pub = c.b64decode(res.publicKey);
  const stored = await store.getMeta('account');
  const storedDevice = await store.getMeta('device');
  if (stored && storedDevice && stored.username === username) {
    api.setDevice(storedDevice.id);
    const list = await api.devices();
    if (list.some((d) => d.id === storedDevice.id)) {
      account = stored;
      device = storedDevice;
      revoked = false;
      return;
    }
  }
  await store.clearAll();
  api.setDevice(null);
  const dev = await newDevice();
  account = { username, publicKey: pub, privateKey: null };
  device = dev;
  revoked = false;
  await store.startDevice(account, device);
}

// logout ends the session and clears this profile, in every tab of it.
// stopStream closes this tab's event stream (the inbox's, passed in to keep
// the modules apart). The other tabs hear it before the database is
// deleted: they forget the account, stop their streams and close their
// connections, so the delete is not blocked. The caller then leaves the
// stream election.
//
// The logout wipes this device's keys, so it revokes the device on the
// relay first: a device that can never read again is not listed as live.
export async function logout(stopStream) {
  stopStream();
  if (device && !revoked) {
    try { await api.revoke(device.id); } catch { /* revoked or offline: the session still ends */ }
  }
  api.setDevice(null);
  try { await api.logout(); } catch { /* the session may be gone already */ }
  await wipe(stopStream, 'logout');
}

// wipe forgets the account in this tab and in every other tab of the
// profile, then deletes this browser's storage: the end of a logout, and
// all there is to do here once the account is deleted. why ('logout' or
// 'deleted') travels with the event, so that every tab can say it.
async function wipe(stopStream, why) {
  stopStream();
  api.setDevice(null);
  forget();
  notify({ type: 'account', why });
  await store.clearAll();
}

// deleteAccount deletes the account on the relay, with its password asked
// again (docs/protocol.md "DELETE /api/account"), then clears this
// profile like a logout. A refusal (a wrong password, too many tries, no
// connection) throws before anything here changed.
export async function deleteAccount(password, stopStream) {
  await api.deleteAccount(password);
  await wipe(stopStream, 'deleted');
}

// accountGone clears this profile after the relay said the account was
// deleted (event: deleted, from another device): there is nothing left
// to log out of.
export function accountGone(stopStream) {
  return wipe(stopStream, 'deleted');
}

// linked records the account key a link envelope brought, publishes this
// device's MLS key packages, and then tells the relay that this device
// now holds the key (docs/protocol.md "PATCH /api/devices/:id"), so that
// the other devices know they are not the last, and that a device the
// relay lists as linked can be added to a chat's group at once. If the
// report fails they warn once too often, never too rarely; a failed
// publish is made again at the next ready (mlsidentity.js).
export async function linked(privateKey) {
  await keep(privateKey, 'approved');
  try {
    await (await import('./mlsidentity.js')).keepPublished();
  } catch { /* see above */ }
  try { await api.reportLinked(device.id); } catch { /* see above */ }
}

// keep stores the account key this device now holds; how ('approved' or
// 'restored') travels with the event, so that every tab can say where the
// older history is.
async function keep(privateKey, how) {
  account = { ...account, privateKey };
  await store.setAccount(account);
  notify({ type: 'linked', how });
}

// reportLinked tells the relay that this device holds the account key, so
// that the other devices stop listing it as waiting for approval. Only the
// device itself may say so (PATCH /api/devices/:id with X-Device = :id).
export async function reportLinked() {
  if (!isLinked() || !device) return;
  await api.reportLinked(device.id);
}

// syncLinked reports this device linked if it holds the account key and the
// relay still lists it as waiting: a report lost to a closed tab or a
// network error is made on the next load. list is GET /api/devices.
export async function syncLinked(list) {
  if (!isLinked() || !device) return;
  const self = list.find((d) => d.id === device.id);
  if (self && self.linked === false) await reportLinked();
}

// resetKey is for a person who lost every device and the recovery key: on
// this (waiting) device it makes a new account key pair and replaces the
// account's key with it, revoking every other live device of the account,
// with the password asked again (PUT /api/account/key). The relay deletes
// the recovery blob, which wrapped the old key. Nothing of the old key is
// recovered: messages sealed to it cannot be read here.
export async function resetKey(password) {
  const pair = await c.generateKeyPair();
  const pub = await c.exportPublic(pair.publicKey);
  const others = (await api.devices()).filter((d) => d.id !== device.id).map((d) => d.id);
  const res = await api.replaceAccountKey(c.b64encode(pub), others, password);
  if (c.b64encode(c.b64decode(res.publicKey)) !== c.b64encode(pub)) throw new Error('The relay serves another account key than the one just made. Try again.');
  keys.clear();
  account = { ...account, publicKey: pub, privateKey: pair.privateKey };
  await store.setAccount(account);
  notify({ type: 'linked' });
}

// rotateKey replaces the account key on purpose, from this linked device,
// revoking the devices in drop (a lost one), with the password asked again.
// The order keeps every remaining device able to decrypt (docs/crypto.md,
// "Account key rotation"): the relay replaces the key first, in one
// transaction with the revocations (and deletes the recovery blob); then
// this device adopts the new key and sends it to each remaining linked
// device in a link envelope, each tried again until the relay accepts it.
// It returns how many devices the key is being sent to.
export async function rotateKey(password, drop) {
  const pair = await c.generateKeyPair();
  const pub = await c.exportPublic(pair.publicKey);
  const others = (await api.devices()).filter((d) => d.id !== device.id && d.linked && !drop.includes(d.id));
  const res = await api.replaceAccountKey(c.b64encode(pub), drop, password);
  if (c.b64encode(c.b64decode(res.publicKey)) !== c.b64encode(pub)) throw new Error('The relay serves another account key than the one just made. Try again.');
  await adoptKey(pair.privateKey, pub);
  for (const d of others) sendKeyUntilAccepted(d);
  return others.length;
}

// sendKeyUntilAccepted sends the account key to a remaining device, again
// with backoff while the relay cannot be reached or is busy, until it is
// accepted or refused for good (the device was revoked meanwhile).
async function sendKeyUntilAccepted(target) {
  let delay = 1000;
  for (;;) {
    try {
      await approve(target);
      return;
    } catch (e) {
      const retryable = !e.status || e.status === 429 || e.status >= 500;
      if (!retryable || !account || !device) return;
      await new Promise((r) => setTimeout(r, e.retryAfter ? e.retryAfter * 1000 : delay));
      delay = Math.min(delay * 2, 30000);
    }
  }
}

// adoptKey makes a new account key this device's own: after this device
// rotated it, or when a device of the account sent it in a link envelope
// (inbox.js). Stored messages are plaintext and stay readable; cached
// conversation keys were made from the old key and are dropped.
export async function adoptKey(privateKey, publicKey) {
  keys.clear();
  account = { ...account, publicKey, privateKey };
  await store.setAccount(account);
  notify({ type: 'linked' });
}

// directoryKey is this account's key as the directory serves it now. It
// differs from the key held while a rotation made on another device has not
// reached this one yet.
export async function directoryKey() {
  return c.b64decode((await api.lookup(account.username)).publicKey);
}

// rename gives a device of this account a new name (1 to 64 bytes).
export function rename(id, name) {
  return api.updateDevice(id, { name });
}

export async function linkCode() {
  return c.linkCode(account.publicKey, device.publicKey);
}

export async function deviceCode(publicKeyB64) {
  return c.linkCode(account.publicKey, c.b64decode(publicKeyB64));
}

// approve sends the account key to another device of this account, sealed to
// that device's key (docs/crypto.md, "Device linking").
export async function approve(target) {
  const pub = c.b64decode(target.publicKey);
  const key = await c.aesKey(await c.linkKeyBytes(device.privateKey, pub, device.id, target.id));
  const id = ulid();
  const body = await c.sealLink(key, c.randomIV(), id, account.username, account.privateKey, account.publicKey);
  await api.send(id, account.username, c.b64encode(body));
}

// revoke removes a device of this account from the relay.
export function revoke(id) {
  return api.revoke(id);
}

// convKey returns the conversation key with username, the contact's
// public key it was made from, and whether that key came from the
// directory just now (fetched) rather than from what this device knew.
export async function convKey(username) {
  if (keys.has(username)) return { ...keys.get(username), fetched: false };
  let chat = await store.getChat(username);
  let pub = chat && chat.publicKey;
  let fetched = false;
  if (!pub) {
    fetched = username !== account.username;
    pub = fetched ? c.b64decode((await api.lookup(username)).publicKey) : account.publicKey;
  }
  const k = await c.aesKey(await c.conversationKeyBytes(account.privateKey, pub, account.username, username));
  keys.set(username, { key: k, pub });
  return { key: k, pub, fetched };
}

// forgetKey drops a cached conversation key: the contact's key changed.
export function forgetKey(username) {
  keys.delete(username);
}

// ---- recovery key (docs/crypto.md "Recovery key", ADR 0047) ----

// recoveryStatus says whether the account has a recovery blob:
// {set, updatedAt}. It asks the relay once per tab.
export async function recoveryStatus() {
  if (recovery) return recovery;
  try {
    const r = await api.getRecovery();
    recovery = { set: true, updatedAt: r.updatedAt };
  } catch (e) {
    if (e.code !== 'no_recovery') throw e;
    recovery = { set: false, updatedAt: null };
  }
  return recovery;
}

// createRecoveryKey makes a new recovery key, wraps the account key under
// it and stores the blob on the relay, replacing the old one: the old key
// stops working. It returns the key's written form, which is kept nowhere.
export async function createRecoveryKey() {
  const { key, text } = await c.newRecoveryKey();
  const blob = await c.wrapAccountKey(key, account.username, account.privateKey, account.publicKey);
  await api.putRecovery(c.b64encode(blob));
  recovery = { set: true, updatedAt: new Date().toISOString() };
  return text;
}

// restore makes this unlinked device a full device with the recovery key
// typed: the account key is unwrapped here and must be the directory's key
// that the login returned. Any error leaves everything as it was: nothing
// is stored before the relay took the device as linked.
export async function restore(text) {
  const key = await c.parseRecoveryKey(text);
  const { blob } = await api.getRecovery();
  const got = await c.unwrapAccountKey(key, account.username, c.b64decode(blob));
  if (c.hex(got.publicKey) !== c.hex(account.publicKey)) throw new c.KeyMismatchError();
  await api.reportLinked(device.id);
  recovery = null;
  await keep(got.privateKey, 'restored');
  restoredKey = key;
}

// hasRestoredKey reports whether this page restored the account with a
// recovery key that it still holds for a history import.
export function hasRestoredKey() {
  return !!restoredKey;
}

// restoredRecoveryKey is that key, or null.
export function restoredRecoveryKey() {
  return restoredKey;
}

// forgetRestoredKey forgets it: the import is done, or declined.
export function forgetRestoredKey() {
  restoredKey = null;
}

// checkRecoveryKey parses the recovery key typed and checks that it is
// the account's: it unwraps the relay's blob to the account key. It
// returns the key's bytes (for a backup), or throws as restore does.
export async function checkRecoveryKey(text) {
  const key = await c.parseRecoveryKey(text);
  const { blob } = await api.getRecovery();
  const got = await c.unwrapAccountKey(key, account.username, c.b64decode(blob));
  if (c.hex(got.publicKey) !== c.hex(account.publicKey)) throw new c.KeyMismatchError();
  return key;
}

// isLastLinked reports whether no other live device of the account holds
// the account key: removing this one would leave only the recovery key.
export async function isLastLinked() {
  const list = await api.devices();
  return !list.some((d) => d.id !== device.id && d.linked);
}
