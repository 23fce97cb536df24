// mlswire.js: what MLS bytes say of themselves without any key, through
// the vendored ts-mls (ADR 0098): a whole MLSMessage decoded strictly, a
// message's header, who a key package says it is, and how a key
// package's secret is kept; and two rules of what a group's state holds:
// the members already in its tree (knownCheck) and the past epochs a
// device's own external commit keeps (carryEpochs). Part of the door
// that mls.js is: only mls.js imports it, and re-exports what others use.

import { decodeMlsMessage } from './vendor/ts-mls@1.6.4/dist/src/index.js';
import { addHistoricalReceiverData } from './vendor/ts-mls@1.6.4/dist/src/clientState.js';

/** @typedef {import('./vendor/ts-mls@1.6.4/dist/src/index.js').KeyPackage} LibKeyPackage */
/** @typedef {import('./vendor/ts-mls@1.6.4/dist/src/index.js').MLSMessage} LibMessage */

// LAST_RESORT is the key package extension that marks a device's last
// resort key package (draft-ietf-mls-extensions, "last_resort", 0x000A):
// the relay hands it out when the one-time ones are gone, and the device
// keeps its private keys after a join from it.
export const LAST_RESORT = 0x000a;

/**
 * decode reads one whole MLSMessage, or throws.
 * @param {Uint8Array} bytes
 * @returns {LibMessage}
 */
export function decode(bytes) {
  const r = decodeMlsMessage(bytes, 0);
  if (!r || r[1] !== bytes.length) throw new Error('mls: not an MLS message');
  return r[0];
}

/**
 * @param {Uint8Array} bytes
 * @returns {LibKeyPackage}
 */
export function decodeKeyPackage(bytes) {
  const m = decode(bytes);
  if (m.wireformat !== 'mls_key_package') throw new Error('mls: not a key package');
  return m.keyPackage;
}

/** @param {Uint8Array} b */
export function hex(b) {
  return Array.from(b, (x) => x.toString(16).padStart(2, '0')).join('');
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

// A key package's secret is its two HPKE private keys, each after its
// length in one byte (32 for P-256).

/** @param {Uint8Array[]} parts the init and the HPKE private keys */
export function joinBytes([init, hpke]) {
  if (init.length > 255 || hpke.length > 255) throw new Error('mls: a private key too long');
  return Uint8Array.of(init.length, ...init, hpke.length, ...hpke);
}

/** @param {Uint8Array} secret */
export function splitSecret(secret) {
  const n = secret[0];
  if (secret.length < 2 + n || secret.length !== 2 + n + secret[1 + n]) throw new Error('mls: not a key package secret');
  return { initPrivateKey: secret.slice(1, 1 + n), hpkePrivateKey: secret.slice(2 + n) };
}

/**
 * knownCheck is validate for members not in tree: a leaf of tree with the
 * same credential identity and signature key passes as it is. The group
 * holds that leaf already; a commit that carries it again (an update of
 * its leaf) brings no one new, so only the members a message brings are
 * checked (docs/crypto.md, "Who is checked").
 * @param {any[]} tree the group's ratchet tree before the message
 * @param {(identity: Uint8Array, key: Uint8Array) => Promise<boolean>} validate
 * @returns {(identity: Uint8Array, key: Uint8Array) => Promise<boolean>}
 */
export function knownCheck(tree, validate) {
  const known = new Set();
  for (let i = 0; i < tree.length; i += 2) {
    const n = tree[i];
    if (n && n.nodeType === 'leaf' && n.leaf.credential.credentialType === 'basic') known.add(hex(n.leaf.credential.identity) + '/' + hex(n.leaf.signaturePublicKey));
  }
  return async (identity, key) => known.has(hex(identity) + '/' + hex(key)) || validate(identity, key);
}

/**
 * carryEpochs is next, the state a device's external commit from its own
 * state from made (a new certificate for its leaf), with the keys of from's
 * current and past epochs (as many as a commit keeps): a message sealed
 * in one of them before the commit, and read after it, still opens.
 * @template T
 * @param {any} from
 * @param {T} next
 * @returns {T}
 */
export function carryEpochs(from, next) {
  return { ...next, historicalReceiverData: addHistoricalReceiverData(from)[0] };
}
