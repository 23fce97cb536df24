// mls.js: the client's one door to MLS (RFC 9420), through the vendored
// ts-mls (ADR 0098). It wraps only what the chats need: a device's
// signature key and credential, key packages, a group per chat, adding
// members, joining, application messages, commits, the state as bytes for
// IndexedDB, and a message's header read without keys. Everything crosses
// this module as bytes or as an opaque group; no other module imports the
// library, so that it can be replaced here alone.
//
// Ciphersuite 2, MLS_128_DHKEMP256_AES128GCM_SHA256_P256: P-256 like the
// account keys, AES-128-GCM and SHA-256 from WebCrypto, ECDSA through
// @noble/curves (the library's choice for P-256 signatures).
//
// The library hands back the key material each call used up ("consumed")
// for the caller to overwrite. This module does not: in Chromium, doing so
// broke the decryption of a later message of another member
// (TestMLSInterface). Forward secrecy rests on what the saved state holds,
// which no longer has those keys; JavaScript cannot promise to erase
// memory.
//
// A group is immutable: each function that changes it returns the next
// one and leaves the one it was given as it was, so that a caller whose
// commit the relay refuses (another commit won the epoch) still holds the
// state from before.

import {
  createApplicationMessage,
  createCommit,
  createGroup as libCreateGroup,
  decodeGroupState,
  defaultCapabilities,
  defaultKeyPackageEqualityConfig,
  defaultLifetime,
  defaultLifetimeConfig,
  emptyPskIndex,
  encodeGroupState,
  encodeMlsMessage,
  generateKeyPackageWithKey,
  getCiphersuiteFromName,
  getCiphersuiteImpl,
  joinGroup as libJoinGroup,
  joinGroupExternal,
  createGroupInfoWithExternalPubAndRatchetTree,
  processPrivateMessage,
  processPublicMessage,
} from './vendor/ts-mls@1.6.4/dist/src/index.js';
// Two functions the index does not export: who sent a private message
// (its sender data, which the library decrypts again to open it), and a
// key package's reference, which a welcome names its new members by.
import { decryptSenderData } from './vendor/ts-mls@1.6.4/dist/src/privateMessage.js';
import { makeKeyPackageRef } from './vendor/ts-mls@1.6.4/dist/src/keyPackage.js';
import { LAST_RESORT, carryEpochs, decode, decodeKeyPackage, hex, joinBytes, knownCheck, splitSecret } from './mlswire.js';

export { isLastResort, keyPackageMember, readHeader, knownCheck } from './mlswire.js';

/** @typedef {import('./vendor/ts-mls@1.6.4/dist/src/index.js').ClientState} Group */
/** @typedef {import('./vendor/ts-mls@1.6.4/dist/src/index.js').ClientConfig} ClientConfig */

export const CIPHERSUITE = 'MLS_128_DHKEMP256_AES128GCM_SHA256_P256';

/** @type {Promise<import('./vendor/ts-mls@1.6.4/dist/src/index.js').CiphersuiteImpl> | null} */
let suite = null;
function impl() {
  suite ??= getCiphersuiteImpl(getCiphersuiteFromName(CIPHERSUITE));
  return suite;
}

// RETENTION: what a state keeps to open messages that come late. A
// message's keys are kept for 64 generations after a later one of the same
// sender opened (receipts and read positions are sealed apart from the
// chat's messages and may overtake them), up to 1000 generations are
// skipped ahead (messages sealed and never sent), and the secrets of the 8
// epochs before the current one stay (a message sealed before commits it
// did not wait for). Kept keys are what a stolen state opens: no more.
const RETENTION = { retainKeysForGenerations: 64, retainKeysForEpochs: 8, maximumForwardRatchetSteps: 1000 };

// NO_PADDING: the chats pad each record to the buckets of docs/crypto.md
// before it is encrypted, so MLS adds none of its own.
const NO_PADDING = /** @type {const} */ ({ kind: 'alwaysPad', paddingLength: 0 });

// GROUP_EXTENSION is the GroupContext extension of a group chat (a type
// of the private range of RFC 9420, section 17.3): its name, admins and
// creator, as bytes the chats encode (groupchat.js). Being in the group's
// context, it changes only by a commit, which the relay orders, and it
// reaches a new member inside the welcome, encrypted: every member holds
// the same at each epoch. A one-to-one chat's group has none. A device
// joins such a group only from a key package that lists the type among
// its capabilities, which this client's packages do (KEY_PACKAGE_VERSION).
export const GROUP_EXTENSION = 0xf2a7;
// KEY_PACKAGE_VERSION counts changes to what this client's key packages
// say: 2 lists GROUP_EXTENSION. A device whose published packages are of
// an older version publishes a new last-resort one (mlsidentity.js).
export const KEY_PACKAGE_VERSION = 2;

/** capabilities are the library's defaults and the group chats' extension. */
function capabilities() {
  const caps = defaultCapabilities();
  return { ...caps, extensions: [...caps.extensions, GROUP_EXTENSION] };
}

/**
 * Validate says whether a member's credential and signature key are to be
 * trusted: the chats check the device's certification by its account key.
 * The library calls it for each member it adds or meets in a welcome or a
 * commit (TestMLSInterface: a refused identity is not added).
 * @typedef {(identity: Uint8Array, signaturePublicKey: Uint8Array) => Promise<boolean>} Validate
 */

// checks: each config's Validate, which receive makes a config anew with.
const checks = new WeakMap();

/**
 * @param {Validate} validate
 * @param {any[]} [tree] members already in it pass as they are (knownCheck)
 * @returns {ClientConfig}
 */
function config(validate, tree = []) {
  if (typeof validate !== 'function') throw new TypeError('mls: a group needs a credential check');
  const check = knownCheck(tree, validate);
  const cfg = {
    keyRetentionConfig: RETENTION,
    lifetimeConfig: defaultLifetimeConfig,
    keyPackageEqualityConfig: defaultKeyPackageEqualityConfig,
    paddingConfig: NO_PADDING,
    authService: {
      validateCredential: async (credential, key) => credential.credentialType === 'basic' && check(credential.identity, key),
    },
  };
  checks.set(cfg, validate);
  return cfg;
}

/** acceptAll is the Validate that trusts every member, for tests. */
export const acceptAll = /** @type {Validate} */ (async () => true);

/**
 * A device's MLS identity: its signature key pair, kept by the device, and
 * the identity its basic credential names.
 * @typedef {{identity: Uint8Array, signaturePublicKey: Uint8Array, signaturePrivateKey: Uint8Array}} Device
 */

/**
 * newDevice makes this device's signature key pair for the credential
 * that names identity.
 * @param {Uint8Array} identity
 * @returns {Promise<Device>}
 */
export async function newDevice(identity) {
  const { signKey, publicKey } = await (await impl()).signature.keygen();
  return { identity: identity.slice(), signaturePublicKey: publicKey, signaturePrivateKey: signKey };
}

/**
 * A key package: what the relay hands to whoever adds the device
 * (keyPackage, an MLSMessage), and what the device keeps to join from it
 * (secret).
 * @typedef {{keyPackage: Uint8Array, secret: Uint8Array}} KeyPackageBundle
 */

/**
 * makeKeyPackages makes count one-time key packages, or one last resort
 * key package when lastResort is set.
 * @param {Device} device
 * @param {number} count
 * @param {boolean} [lastResort]
 * @returns {Promise<KeyPackageBundle[]>}
 */
export async function makeKeyPackages(device, count, lastResort = false) {
  const cs = await impl();
  const ext = lastResort ? [{ extensionType: LAST_RESORT, extensionData: new Uint8Array() }] : [];
  const out = [];
  for (let i = 0; i < (lastResort ? 1 : count); i++) {
    const { publicPackage, privatePackage } = await generateKeyPackageWithKey(
      { credentialType: 'basic', identity: device.identity }, capabilities(), defaultLifetime, ext,
      { signKey: device.signaturePrivateKey, publicKey: device.signaturePublicKey }, cs);
    out.push({
      keyPackage: encodeMlsMessage({ version: 'mls10', wireformat: 'mls_key_package', keyPackage: publicPackage }),
      secret: joinBytes([privatePackage.initPrivateKey, privatePackage.hpkePrivateKey]),
    });
  }
  return out;
}

/**
 * createGroup makes a group of one, this device, named groupId; with
 * meta, a group chat's group whose GROUP_EXTENSION holds it.
 * @param {Device} device
 * @param {Uint8Array} groupId
 * @param {Validate} validate
 * @param {Uint8Array | null} [meta]
 * @returns {Promise<Group>}
 */
export async function createGroup(device, groupId, validate, meta = null) {
  const cfg = config(validate);
  const [bundle] = await makeKeyPackages(device, 1);
  const { initPrivateKey, hpkePrivateKey } = splitSecret(bundle.secret);
  return libCreateGroup(groupId, decodeKeyPackage(bundle.keyPackage),
    { initPrivateKey, hpkePrivateKey, signaturePrivateKey: device.signaturePrivateKey }, metaExtensions(meta), await impl(), cfg);
}

/**
 * @param {Uint8Array | null} meta
 */
function metaExtensions(meta) {
  return meta ? [{ extensionType: GROUP_EXTENSION, extensionData: meta }] : [];
}

/**
 * groupMeta is the bytes of the group's GROUP_EXTENSION, or null when it
 * has none (a one-to-one chat's group).
 * @param {Group} group
 * @returns {Uint8Array | null}
 */
export function groupMeta(group) {
  const e = group.groupContext.extensions.find((x) => x.extensionType === GROUP_EXTENSION);
  return e ? e.extensionData : null;
}

/**
 * isRemoved says whether this member was removed from the group by the
 * last commit it applied: the group opens and seals nothing more.
 * @param {Group} group
 */
export function isRemoved(group) {
  return group.groupActiveState.kind === 'removedFromGroup';
}

/**
 * keyPackageHasGroups says whether a key package (an MLSMessage) lists
 * GROUP_EXTENSION among its capabilities: a device can join a group
 * chat's group only from one that does.
 * @param {Uint8Array} kp
 */
export function keyPackageHasGroups(kp) {
  return decodeKeyPackage(kp).leafNode.capabilities.extensions.includes(GROUP_EXTENSION);
}

/**
 * addMembers commits the addition of the devices whose key packages are
 * given. The commit goes to the group's members, the welcome to the new
 * ones; it carries the ratchet tree, so a welcome is all a joiner needs.
 * @param {Group} group
 * @param {Uint8Array[]} keyPackages
 * @returns {Promise<{group: Group, commit: Uint8Array, welcome: Uint8Array}>}
 */
export async function addMembers(group, keyPackages) {
  const r = await changeMembers(group, keyPackages, []);
  if (!r.welcome) throw new Error('mls: an addition without a welcome');
  return { ...r, welcome: r.welcome };
}

/**
 * changeMembers commits, in one commit, the addition of the devices whose
 * key packages are given and the removal of the members at the leaf
 * indexes given. The welcome (for the added devices) carries the ratchet
 * tree; it is null when nobody is added.
 * @param {Group} group
 * @param {Uint8Array[]} keyPackages
 * @param {number[]} removeLeaves
 * @param {Uint8Array | null} [meta] a group chat's new GROUP_EXTENSION, committed with the rest
 * @returns {Promise<{group: Group, commit: Uint8Array, welcome: Uint8Array | null}>}
 */
export async function changeMembers(group, keyPackages, removeLeaves, meta = null) {
  /** @type {any[]} */
  const proposals = [
    ...removeLeaves.map((removed) => ({ proposalType: /** @type {const} */ ('remove'), remove: { removed } })),
    ...keyPackages.map((kp) => ({ proposalType: /** @type {const} */ ('add'), add: { keyPackage: decodeKeyPackage(kp) } })),
  ];
  // A commit of ts-mls 1.6.4 that removes members and changes the group's
  // context does not open at the other members (TestGroupMembership): a
  // group chat's record changes in a commit of its own.
  if (meta && removeLeaves.length) throw new Error('mls: a group\u2019s record changes in a commit without removals');
  if (meta) {
    const others = group.groupContext.extensions.filter((x) => x.extensionType !== GROUP_EXTENSION);
    proposals.push({ proposalType: 'group_context_extensions', groupContextExtensions: { extensions: [...others, ...metaExtensions(meta)] } });
  }
  const r = await createCommit({ state: group, cipherSuite: await impl() }, { extraProposals: proposals, ratchetTreeExtension: true });
  return {
    group: r.newState,
    commit: encodeMlsMessage(r.commit),
    welcome: r.welcome ? encodeMlsMessage({ version: 'mls10', wireformat: 'mls_welcome', welcome: r.welcome }) : null,
  };
}

/**
 * updateLeaf commits a new key for this device's leaf (and the path above
 * it): after it, a state stolen before opens nothing new.
 * @param {Group} group
 * @returns {Promise<{group: Group, commit: Uint8Array}>}
 */
export async function updateLeaf(group) {
  const r = await createCommit({ state: group, cipherSuite: await impl() }, {});
  return { group: r.newState, commit: encodeMlsMessage(r.commit) };
}

/**
 * joinGroup joins from a welcome with the key package it was made for.
 * @param {Device} device
 * @param {Uint8Array} welcome
 * @param {KeyPackageBundle} bundle
 * @param {Validate} validate
 * @returns {Promise<Group>}
 */
export async function joinGroup(device, welcome, bundle, validate) {
  const m = decode(welcome);
  if (m.wireformat !== 'mls_welcome') throw new Error('mls: not a welcome');
  const { initPrivateKey, hpkePrivateKey } = splitSecret(bundle.secret);
  return libJoinGroup(m.welcome, decodeKeyPackage(bundle.keyPackage),
    { initPrivateKey, hpkePrivateKey, signaturePrivateKey: device.signaturePrivateKey },
    emptyPskIndex, await impl(), undefined, undefined, config(validate));
}

/**
 * welcomeFor is the index of the key package (of those given, each an
 * MLSMessage) that a welcome was made for, or -1: a welcome names each
 * new member by its key package's reference.
 * @param {Uint8Array} welcome
 * @param {Uint8Array[]} keyPackages
 * @returns {Promise<number>}
 */
export async function welcomeFor(welcome, keyPackages) {
  const m = decode(welcome);
  if (m.wireformat !== 'mls_welcome') throw new Error('mls: not a welcome');
  const cs = await impl();
  const named = new Set(m.welcome.secrets.map((s) => hex(s.newMember)));
  for (let i = 0; i < keyPackages.length; i++) {
    if (named.has(hex(await makeKeyPackageRef(decodeKeyPackage(keyPackages[i]), cs.hash)))) return i;
  }
  return -1;
}

/**
 * exportGroupInfo is the group's GroupInfo (an MLSMessage), signed by this
 * member, with the ratchet tree and the key that an external commit is
 * made to: all a device needs to join the group by itself.
 * @param {Group} group
 * @returns {Promise<Uint8Array>}
 */
export async function exportGroupInfo(group) {
  const info = await createGroupInfoWithExternalPubAndRatchetTree(group, [], await impl());
  return encodeMlsMessage({ version: 'mls10', wireformat: 'mls_group_info', groupInfo: info });
}

/**
 * joinExternal joins a group by an external commit from its GroupInfo,
 * with a key package made for it; with resync, the leaf of this device's
 * signature key is removed in the same commit (a device that fell
 * behind). The commit (a public message) goes to the group's members.
 * @param {Device} device
 * @param {Uint8Array} info
 * @param {boolean} resync
 * @param {Validate} validate
 * @param {Group} [from] this device's state the GroupInfo was made from, whose epochs' keys the new state keeps (carryEpochs)
 * @returns {Promise<{group: Group, commit: Uint8Array, groupId: Uint8Array, epoch: bigint}>}
 */
export async function joinExternal(device, info, resync, validate, from) {
  const m = decode(info);
  if (m.wireformat !== 'mls_group_info') throw new Error('mls: not a GroupInfo');
  const [bundle] = await makeKeyPackages(device, 1);
  const { initPrivateKey, hpkePrivateKey } = splitSecret(bundle.secret);
  const r = await joinGroupExternal(m.groupInfo, decodeKeyPackage(bundle.keyPackage),
    { initPrivateKey, hpkePrivateKey, signaturePrivateKey: device.signaturePrivateKey }, resync, await impl(), undefined, config(validate));
  return {
    group: from ? carryEpochs(from, r.newState) : r.newState,
    commit: encodeMlsMessage({ version: 'mls10', wireformat: 'mls_public_message', publicMessage: r.publicMessage }),
    groupId: m.groupInfo.groupContext.groupId,
    epoch: m.groupInfo.groupContext.epoch,
  };
}

/**
 * encrypt seals plaintext as an application message of the group, with
 * authenticatedData bound to it (sent in the clear, authenticated).
 * @param {Group} group
 * @param {Uint8Array} plaintext
 * @param {Uint8Array} [authenticatedData]
 * @returns {Promise<{group: Group, message: Uint8Array}>}
 */
export async function encrypt(group, plaintext, authenticatedData = new Uint8Array()) {
  const r = await createApplicationMessage(group, plaintext, await impl(), authenticatedData);
  return { group: r.newState, message: encodeMlsMessage({ version: 'mls10', wireformat: 'mls_private_message', privateMessage: r.privateMessage }) };
}

/**
 * A message opened: an application message gives its plaintext, the
 * identity of the member that sent it and the data it authenticated; a
 * commit (or proposal) the group it leads to, and the identity of the
 * member that made it (null for an external join, sent in the clear).
 * @typedef {{group: Group, kind: 'application', plaintext: Uint8Array, sender: Uint8Array | null, authenticatedData: Uint8Array}
 *   | {group: Group, kind: 'commit' | 'proposal', plaintext: null, sender: Uint8Array | null, authenticatedData: Uint8Array}} Received
 */

/**
 * receive opens a message of the group. The keys that opened it are gone
 * from the group it returns.
 * @param {Group} group
 * @param {Uint8Array} message
 * @returns {Promise<Received>}
 */
export async function receive(group, message) {
  const m = decode(message);
  // Only the members the message brings are checked: those of the tree
  // before it pass as they are (knownCheck).
  group = { ...group, clientConfig: config(checks.get(group.clientConfig), group.ratchetTree) };
  if (m.wireformat === 'mls_public_message') {
    // A commit sent in the clear: an external join.
    const c = m.publicMessage.content;
    if (c.contentType !== 'commit') throw new Error('mls: a public message that is not a commit');
    const r = await processPublicMessage(group, m.publicMessage, emptyPskIndex, await impl());
    return { group: r.newState, kind: 'commit', plaintext: null, sender: null, authenticatedData: c.authenticatedData };
  }
  if (m.wireformat !== 'mls_private_message') throw new Error('mls: not a private message');
  const pm = m.privateMessage;
  const cs = await impl();
  // The sender, from the sender data of the epoch the message names,
  // before the library opens it with the same.
  const sender = await senderOf(group, pm, cs);
  const r = await processPrivateMessage(group, pm, emptyPskIndex, cs);
  if (r.kind === 'applicationMessage') {
    return { group: r.newState, kind: 'application', plaintext: r.message, sender, authenticatedData: pm.authenticatedData };
  }
  return { group: r.newState, kind: pm.contentType === 'commit' ? 'commit' : 'proposal', plaintext: null, sender, authenticatedData: pm.authenticatedData };
}

/**
 * senderOf is the credential identity of the leaf that sent pm, in the
 * tree of the epoch pm names, or null when that epoch is not kept.
 * @param {Group} group
 * @param {import('./vendor/ts-mls@1.6.4/dist/src/index.js').PrivateMessage} pm
 * @param {import('./vendor/ts-mls@1.6.4/dist/src/index.js').CiphersuiteImpl} cs
 */
async function senderOf(group, pm, cs) {
  const past = pm.epoch === group.groupContext.epoch ? null : group.historicalReceiverData.get(pm.epoch);
  if (pm.epoch !== group.groupContext.epoch && !past) return null;
  const secret = past ? past.senderDataSecret : group.keySchedule.senderDataSecret;
  const tree = past ? past.ratchetTree : group.ratchetTree;
  const data = await decryptSenderData(pm, secret, cs);
  const n = data && tree[data.leafIndex * 2];
  const cred = n && n.nodeType === 'leaf' ? n.leaf.credential : null;
  return cred && cred.credentialType === 'basic' ? cred.identity : null;
}

/**
 * isRepeat says whether receive failed because the message's keys were
 * used already or dropped: a message opened before (a replay), or one
 * older than what the state keeps.
 * @param {unknown} e
 */
export function isRepeat(e) {
  const msg = e instanceof Error ? e.message : '';
  return msg === 'Desired gen in the past' || msg === 'Cannot process message, epoch too old';
}

/**
 * isRefusedMember says whether joining or applying a commit failed
 * because the credential check (Validate) refused a member.
 * @param {unknown} e
 */
export function isRefusedMember(e) {
  const msg = e instanceof Error ? e.message : '';
  return msg === 'Could not validate credential' || msg === 'Could not validate external credential';
}

/**
 * saveGroup is the group as bytes (its secrets included: store them as
 * the device's keys are stored).
 * @param {Group} group
 * @returns {Uint8Array}
 */
export function saveGroup(group) {
  return encodeGroupState(group);
}

/**
 * loadGroup is the group saveGroup wrote.
 * @param {Uint8Array} bytes
 * @param {Validate} validate
 * @returns {Group}
 */
export function loadGroup(bytes, validate) {
  const r = decodeGroupState(bytes, 0);
  if (!r || r[1] !== bytes.length) throw new Error('mls: not a saved group');
  return { ...r[0], clientConfig: config(validate) };
}

/**
 * groupInfo is what a group is now: its id, epoch, members' identities
 * in leaf order (null for an empty leaf), and this member's leaf.
 * @param {Group} group
 * @returns {{groupId: Uint8Array, epoch: bigint, members: (Uint8Array | null)[], self: number}}
 */
export function groupInfo(group) {
  const members = [];
  for (let i = 0; i < group.ratchetTree.length; i += 2) {
    const n = group.ratchetTree[i];
    const cred = n && n.nodeType === 'leaf' ? n.leaf.credential : null;
    members.push(cred && cred.credentialType === 'basic' ? cred.identity : null);
  }
  return { groupId: group.groupContext.groupId, epoch: group.groupContext.epoch, members, self: Number(group.privatePath.leafIndex) };
}
