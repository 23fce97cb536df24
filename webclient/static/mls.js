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
// for the caller to overwrite. This module does not: in Chromium,
// overwriting what a received message used up broke the decryption of a
// later message from another member (TestMLSInterface found it; Node.js
// did not show it), as if the state still used some of them. Forward
// secrecy rests on what the saved state holds, which no longer has those
// keys (TestMLSInterface); JavaScript cannot promise to erase memory.
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
  decodeMlsMessage,
  defaultCapabilities,
  defaultKeyPackageEqualityConfig,
  defaultKeyRetentionConfig,
  defaultLifetime,
  defaultLifetimeConfig,
  defaultPaddingConfig,
  emptyPskIndex,
  encodeGroupState,
  encodeMlsMessage,
  generateKeyPackageWithKey,
  getCiphersuiteFromName,
  getCiphersuiteImpl,
  joinGroup as libJoinGroup,
  processPrivateMessage,
} from './vendor/ts-mls@1.6.4/dist/src/index.js';

/** @typedef {import('./vendor/ts-mls@1.6.4/dist/src/index.js').ClientState} Group */
/** @typedef {import('./vendor/ts-mls@1.6.4/dist/src/index.js').ClientConfig} ClientConfig */
/** @typedef {import('./vendor/ts-mls@1.6.4/dist/src/index.js').KeyPackage} LibKeyPackage */
/** @typedef {import('./vendor/ts-mls@1.6.4/dist/src/index.js').MLSMessage} LibMessage */

export const CIPHERSUITE = 'MLS_128_DHKEMP256_AES128GCM_SHA256_P256';

// LAST_RESORT is the key package extension that marks a device's last
// resort key package (draft-ietf-mls-extensions, "last_resort", 0x000A):
// the relay hands it out when the one-time ones are gone, and the device
// keeps its private keys after a join from it.
const LAST_RESORT = 0x000a;

/** @type {Promise<import('./vendor/ts-mls@1.6.4/dist/src/index.js').CiphersuiteImpl> | null} */
let suite = null;
function impl() {
  suite ??= getCiphersuiteImpl(getCiphersuiteFromName(CIPHERSUITE));
  return suite;
}

/**
 * Validate says whether a member's credential and signature key are to be
 * trusted: the chats check the device's certification by its account key.
 * The library calls it for each member it adds or meets in a welcome or a
 * commit (TestMLSInterface: a refused identity is not added).
 * @typedef {(identity: Uint8Array, signaturePublicKey: Uint8Array) => Promise<boolean>} Validate
 */

/**
 * @param {Validate} validate
 * @returns {ClientConfig}
 */
function config(validate) {
  if (typeof validate !== 'function') throw new TypeError('mls: a group needs a credential check');
  return {
    keyRetentionConfig: defaultKeyRetentionConfig,
    lifetimeConfig: defaultLifetimeConfig,
    keyPackageEqualityConfig: defaultKeyPackageEqualityConfig,
    paddingConfig: defaultPaddingConfig,
    authService: {
      validateCredential: async (credential, key) => credential.credentialType === 'basic' && validate(credential.identity, key),
    },
  };
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
      { credentialType: 'basic', identity: device.identity }, defaultCapabilities(), defaultLifetime, ext,
      { signKey: device.signaturePrivateKey, publicKey: device.signaturePublicKey }, cs);
    out.push({
      keyPackage: encodeMlsMessage({ version: 'mls10', wireformat: 'mls_key_package', keyPackage: publicPackage }),
      secret: joinBytes([privatePackage.initPrivateKey, privatePackage.hpkePrivateKey]),
    });
  }
  return out;
}

/**
 * isLastResort says whether a key package is marked last resort.
 * @param {Uint8Array} keyPackage
 */
export function isLastResort(keyPackage) {
  return decodeKeyPackage(keyPackage).extensions.some((e) => e.extensionType === LAST_RESORT);
}

/**
 * keyPackageMember is who a key package says it is: its credential's
 * identity and its signature key, to be checked before it is added.
 * @param {Uint8Array} keyPackage
 * @returns {{identity: Uint8Array | null, signaturePublicKey: Uint8Array}}
 */
export function keyPackageMember(keyPackage) {
  const leaf = decodeKeyPackage(keyPackage).leafNode;
  const cred = leaf.credential;
  return { identity: cred.credentialType === 'basic' ? cred.identity : null, signaturePublicKey: leaf.signaturePublicKey };
}

/**
 * createGroup makes a group of one, this device, named groupId.
 * @param {Device} device
 * @param {Uint8Array} groupId
 * @param {Validate} validate
 * @returns {Promise<Group>}
 */
export async function createGroup(device, groupId, validate) {
  const cfg = config(validate);
  const [bundle] = await makeKeyPackages(device, 1);
  const { initPrivateKey, hpkePrivateKey } = splitSecret(bundle.secret);
  return libCreateGroup(groupId, decodeKeyPackage(bundle.keyPackage),
    { initPrivateKey, hpkePrivateKey, signaturePrivateKey: device.signaturePrivateKey }, [], await impl(), cfg);
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
  const proposals = keyPackages.map((kp) => ({ proposalType: /** @type {const} */ ('add'), add: { keyPackage: decodeKeyPackage(kp) } }));
  const r = await createCommit({ state: group, cipherSuite: await impl() }, { extraProposals: proposals, ratchetTreeExtension: true });
  if (!r.welcome) throw new Error('mls: an addition without a welcome');
  return {
    group: r.newState,
    commit: encodeMlsMessage(r.commit),
    welcome: encodeMlsMessage({ version: 'mls10', wireformat: 'mls_welcome', welcome: r.welcome }),
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
 * encrypt seals plaintext as an application message of the group.
 * @param {Group} group
 * @param {Uint8Array} plaintext
 * @returns {Promise<{group: Group, message: Uint8Array}>}
 */
export async function encrypt(group, plaintext) {
  const r = await createApplicationMessage(group, plaintext, await impl());
  return { group: r.newState, message: encodeMlsMessage({ version: 'mls10', wireformat: 'mls_private_message', privateMessage: r.privateMessage }) };
}

/**
 * receive opens a message of the group: an application message gives its
 * plaintext, a commit (or proposal) the group it leads to. The keys that
 * opened it are gone from the group it returns.
 * @param {Group} group
 * @param {Uint8Array} message
 * @returns {Promise<{group: Group, kind: 'application', plaintext: Uint8Array} | {group: Group, kind: 'commit' | 'proposal', plaintext: null}>}
 */
export async function receive(group, message) {
  const m = decode(message);
  if (m.wireformat !== 'mls_private_message') throw new Error('mls: not a private message');
  const r = await processPrivateMessage(group, m.privateMessage, emptyPskIndex, await impl());
  if (r.kind === 'applicationMessage') return { group: r.newState, kind: 'application', plaintext: r.message };
  return { group: r.newState, kind: m.privateMessage.contentType === 'commit' ? 'commit' : 'proposal', plaintext: null };
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
 * groupInfo is what a group is now: its id, epoch and members' identities
 * in leaf order (null for an empty leaf).
 * @param {Group} group
 * @returns {{groupId: Uint8Array, epoch: bigint, members: (Uint8Array | null)[]}}
 */
export function groupInfo(group) {
  const members = [];
  for (let i = 0; i < group.ratchetTree.length; i += 2) {
    const n = group.ratchetTree[i];
    const cred = n && n.nodeType === 'leaf' ? n.leaf.credential : null;
    members.push(cred && cred.credentialType === 'basic' ? cred.identity : null);
  }
  return { groupId: group.groupContext.groupId, epoch: group.groupContext.epoch, members };
}

/**
 * readHeader reads what a message says of itself without any key: its
 * wire format and, for a group's message (private or public), the group's
 * id, the epoch and the content type. Null for bytes that are not one
 * whole MLSMessage.
 * @param {Uint8Array} bytes
 * @returns {{wireformat: string, groupId: Uint8Array | null, epoch: bigint | null, contentType: string | null} | null}
 */
export function readHeader(bytes) {
  let m;
  try { m = decode(bytes); } catch { return null; }
  if (m.wireformat === 'mls_private_message') {
    const p = m.privateMessage;
    return { wireformat: m.wireformat, groupId: p.groupId, epoch: p.epoch, contentType: p.contentType };
  }
  if (m.wireformat === 'mls_public_message') {
    const c = m.publicMessage.content;
    return { wireformat: m.wireformat, groupId: c.groupId, epoch: c.epoch, contentType: c.contentType };
  }
  return { wireformat: m.wireformat, groupId: null, epoch: null, contentType: null };
}

// ---- bytes ----

/**
 * decode reads one whole MLSMessage, or throws.
 * @param {Uint8Array} bytes
 * @returns {LibMessage}
 */
function decode(bytes) {
  const r = decodeMlsMessage(bytes, 0);
  if (!r || r[1] !== bytes.length) throw new Error('mls: not an MLS message');
  return r[0];
}

/**
 * @param {Uint8Array} bytes
 * @returns {LibKeyPackage}
 */
function decodeKeyPackage(bytes) {
  const m = decode(bytes);
  if (m.wireformat !== 'mls_key_package') throw new Error('mls: not a key package');
  return m.keyPackage;
}

// A key package's secret is its two HPKE private keys, each after its
// length in one byte (32 for P-256).

/** @param {Uint8Array[]} parts */
function joinBytes(parts) {
  const out = new Uint8Array(parts.reduce((n, p) => n + 1 + p.length, 0));
  let at = 0;
  for (const p of parts) {
    if (p.length > 255) throw new Error('mls: a private key too long');
    out[at++] = p.length;
    out.set(p, at);
    at += p.length;
  }
  return out;
}

/** @param {Uint8Array} secret */
function splitSecret(secret) {
  const parts = [];
  let at = 0;
  while (at < secret.length) {
    const n = secret[at++];
    if (at + n > secret.length) break;
    parts.push(secret.slice(at, at + n));
    at += n;
  }
  if (parts.length !== 2 || at !== secret.length) throw new Error('mls: not a key package secret');
  return { initPrivateKey: parts[0], hpkePrivateKey: parts[1] };
}
