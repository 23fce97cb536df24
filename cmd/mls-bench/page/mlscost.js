// mlscost.js: the page side of mls-bench. It drives the client's own
// mls.js (and crypto.js's padding) the way the chats will: devices of two
// accounts, each with a credential certified by its account key and
// checked on every join and commit as mlsidentity.js checks it, a group
// per chat, records padded to their bucket before MLS seals them. The Go
// side calls one step at a time, so that it can read the renderer's CPU
// time around exactly the operations a step times; each step returns
// sizes in bytes and the time of each operation in milliseconds.
//
// Everything lives in this page: S holds the groups, one member's state
// per device.

import * as m from '/mls.js';
import * as c from '/crypto.js';
import { ulid } from '/ulid.js';

const te = new TextEncoder();
const td = new TextDecoder();

/** @type {{accounts: Map<string, {privateKey: CryptoKey, publicKey: Uint8Array}>, groups: Map<number, any>, queued: Uint8Array[], sent: Uint8Array | null}} */
const S = { accounts: new Map(), groups: new Map(), queued: [], sent: null };

// ---- devices, as mlsidentity.js makes them ----

/** identity = 0x01 ‖ u8 len ‖ username ‖ u8 len ‖ device id ‖ u8 len ‖ certificate (docs/crypto.md) */
function encodeIdentity(username, deviceId, cert) {
  const parts = [te.encode(username), te.encode(deviceId), cert];
  const out = new Uint8Array(1 + parts.reduce((n, p) => n + 1 + p.length, 0));
  let at = 0;
  out[at++] = 1;
  for (const p of parts) {
    out[at++] = p.length;
    out.set(p, at);
    at += p.length;
  }
  return out;
}

function parseIdentity(b) {
  const parts = [];
  let at = 1;
  while (parts.length < 3) {
    const n = b[at++];
    parts.push(b.subarray(at, at + n));
    at += n;
  }
  return { username: td.decode(parts[0]), deviceId: td.decode(parts[1]), certificate: parts[2].slice() };
}

// validate is checkMember without the directory: the account's key is
// held here, so each call costs the parse and one ECDSA verification.
async function validate(identity, sigPub) {
  const id = parseIdentity(identity);
  const acct = S.accounts.get(id.username);
  return !!acct && c.checkDeviceCertificate(acct.publicKey, id.username, id.deviceId, sigPub, id.certificate);
}

async function account(username) {
  let a = S.accounts.get(username);
  if (!a) {
    const kp = await c.generateKeyPair();
    a = { privateKey: kp.privateKey, publicKey: await c.exportPublic(kp.publicKey) };
    S.accounts.set(username, a);
  }
  return a;
}

async function newDevice(username) {
  const acct = await account(username);
  const d = await m.newDevice(new Uint8Array());
  const id = ulid();
  d.identity = encodeIdentity(username, id, await c.certifyDevice(acct.privateKey, username, id, d.signaturePublicKey));
  return d;
}

// A chat's devices: alice's and bob's, alternating, alice's first.
const owner = (i) => (i % 2 ? 'bob' : 'alice');

function groupId() {
  return crypto.getRandomValues(new Uint8Array(32));
}

// ---- records, as the outbox pads them ----

const bytesOf = (rec) => te.encode(JSON.stringify(rec));
const ids = (n) => Array.from({ length: n }, () => ulid());

// letters is n random characters from the from..from+span code points:
// each seal of a record signs other bytes, so that the signature's length
// (DER, 70 to 72 bytes) varies as it does between real messages.
function letters(n, from, span) {
  const r = crypto.getRandomValues(new Uint16Array(n));
  return String.fromCharCode(...Array.from(r, (x) => from + (x % span)));
}

/** The records whose bodies are measured: [name, make the record's bytes]. */
const RECORDS = [
  ['text, 13 characters', () => bytesOf({ type: 'text', text: letters(13, 0x61, 26) })],
  ['reaction', () => bytesOf({ type: 'reaction', target: ulid(), emoji: '\u{1F44D}', on: true })],
  ['receipt, 1 id', () => bytesOf({ type: 'receipt', status: 'read', ids: ids(1) })],
  ['text, 700 characters, a reply', () => bytesOf({ type: 'text', text: letters(700, 0x61, 26), replyTo: ulid() })],
  ['receipt, 100 ids', () => bytesOf({ type: 'receipt', status: 'delivered', ids: ids(100) })],
  ['text, 16,000 ASCII characters', () => bytesOf({ type: 'text', text: letters(16000, 0x61, 26) })],
  // CJK ideographs, 3 bytes of UTF-8 each: about the longest text a record holds
  ['text, 16,000 CJK characters', () => bytesOf({ type: 'text', text: letters(16000, 0x4e00, 0x5000) })],
];

// ---- steps ----

/**
 * keyPackages: the size of a one-time and of a last resort key package.
 */
export async function keyPackages() {
  const d = await newDevice('alice');
  const [one] = await m.makeKeyPackages(d, 1);
  const [last] = await m.makeKeyPackages(d, 0, true);
  return { oneTime: one.keyPackage.length, lastResort: last.keyPackage.length };
}

/**
 * build makes the group of n devices that the later steps use: alice's
 * first device creates it and adds the n-1 others in one commit, and each
 * joins from the welcome. Sizes of that commit and welcome; times of the
 * commit and of each join.
 * @param {number} n
 */
export async function build(n) {
  const devs = [];
  for (let i = 0; i < n; i++) devs.push(await newDevice(owner(i)));
  const bundles = [];
  for (let i = 1; i < n; i++) bundles.push((await m.makeKeyPackages(devs[i], 1))[0]);
  const g = await m.createGroup(devs[0], groupId(), validate);
  let t = performance.now();
  const r = await m.addMembers(g, bundles.map((b) => b.keyPackage));
  const addMs = performance.now() - t;
  const members = [r.group];
  const joinMs = [];
  for (let i = 1; i < n; i++) {
    t = performance.now();
    members.push(await m.joinGroup(devs[i], r.welcome, bundles[i - 1], validate));
    joinMs.push(performance.now() - t);
  }
  for (const x of members) {
    const seen = m.groupInfo(x).members.filter((id) => id).length;
    if (seen !== n) throw new Error(`mlscost: a member sees ${seen} members, not ${n}`);
  }
  S.groups.set(n, { devs, members });
  return { commit: r.commit.length, welcome: r.welcome.length, addMs, joinMs };
}

/**
 * addOne adds one more device to the group of n that build made, and
 * gives the sizes of that commit and welcome. The group is left as it
 * was: the addition is not merged.
 * @param {number} n
 */
export async function addOne(n) {
  const { members } = S.groups.get(n);
  const [b] = await m.makeKeyPackages(await newDevice('bob'), 1);
  const r = await m.addMembers(members[0], [b.keyPackage]);
  return { commit: r.commit.length, welcome: r.welcome.length };
}

/**
 * scale gives the sizes for a larger group, seen from its creator alone
 * (nobody joins, so it stays cheap): the commit and welcome that make a
 * group of n in one commit, then those adding one more device to it; then
 * the creator commits `updates` updates of its leaf, timed, and its state
 * after them is saved and loaded `updates` times, timed (the state holds
 * the secrets of the last few epochs, so it has grown by then).
 * @param {number} n
 * @param {number} updates
 */
export async function scale(n, updates) {
  const bundles = [];
  for (let i = 0; i <= n; i++) bundles.push((await m.makeKeyPackages(await newDevice(owner(i)), 1))[0]);
  const g = await m.createGroup(await newDevice('alice'), groupId(), validate);
  const all = await m.addMembers(g, bundles.slice(1, n).map((b) => b.keyPackage));
  const one = await m.addMembers(all.group, [bundles[n].keyPackage]);
  let state = all.group;
  const joined = m.saveGroup(state).length;
  const updateMs = [];
  let update = 0;
  for (let i = 0; i < updates; i++) {
    const t = performance.now();
    const u = await m.updateLeaf(state);
    updateMs.push(performance.now() - t);
    state = u.group;
    update = u.commit.length;
  }
  const save = [];
  const load = [];
  let saved = new Uint8Array();
  for (let i = 0; i < updates; i++) {
    let t = performance.now();
    saved = m.saveGroup(state);
    save.push(performance.now() - t);
    t = performance.now();
    m.loadGroup(saved, validate);
    load.push(performance.now() - t);
  }
  return {
    commit: all.commit.length, welcome: all.welcome.length,
    addOneCommit: one.commit.length, addOneWelcome: one.welcome.length,
    update, updateMs, joined, saved: saved.length, save, load,
  };
}

/**
 * bodies seals each record, padded to its bucket, repeat times in the
 * group of n, and has the second device open each again. A body's size
 * varies by a byte or two with the length of the ECDSA signature in it
 * (DER), so each record gives its smallest and largest.
 * @param {number} n
 * @param {number} repeat
 */
export async function bodies(n, repeat) {
  const g = S.groups.get(n);
  const out = [];
  for (const [name, make] of RECORDS) {
    let min = Infinity;
    let max = 0;
    let record = 0;
    let bucket = 0;
    for (let i = 0; i < repeat; i++) {
      const rec = make();
      const padded = c.pad(rec);
      const r = await m.encrypt(g.members[0], padded);
      g.members[0] = r.group;
      const got = await m.receive(g.members[1], r.message);
      g.members[1] = got.group;
      if (got.kind !== 'application' || c.unpad(got.plaintext).length !== rec.length) throw new Error(`mlscost: ${name} did not come back`);
      if (i > 0 && (rec.length !== record || padded.length !== bucket)) throw new Error(`mlscost: ${name} changed its size`);
      record = rec.length;
      bucket = padded.length;
      min = Math.min(min, r.message.length);
      max = Math.max(max, r.message.length);
    }
    out.push({ name, record, bucket, min, max });
  }
  return out;
}

/**
 * encrypt has the first device seal count records of the given size,
 * padded, and keeps them for decrypt. Only the encryptions are timed.
 * @param {number} n
 * @param {number} count
 * @param {number} size the record's length in bytes
 */
export async function encrypt(n, count, size) {
  const g = S.groups.get(n);
  const padded = c.pad(new Uint8Array(size).fill(0x61));
  const ms = [];
  S.queued = [];
  for (let i = 0; i < count; i++) {
    const t = performance.now();
    const r = await m.encrypt(g.members[0], padded);
    ms.push(performance.now() - t);
    g.members[0] = r.group;
    S.queued.push(r.message);
  }
  S.sent = padded;
  return { ms };
}

/**
 * decrypt has the second device open what encrypt sealed, in order.
 * @param {number} n
 */
export async function decrypt(n) {
  const g = S.groups.get(n);
  const ms = [];
  for (const msg of S.queued) {
    const t = performance.now();
    const r = await m.receive(g.members[1], msg);
    ms.push(performance.now() - t);
    g.members[1] = r.group;
    if (r.kind !== 'application' || r.plaintext.length !== S.sent?.length) throw new Error('mlscost: a message did not open');
  }
  S.queued = [];
  return { ms };
}

/**
 * commit has the first device commit count updates of its leaf, one
 * after the other, and keeps them for processCommits.
 * @param {number} n
 * @param {number} count
 */
export async function commit(n, count) {
  const g = S.groups.get(n);
  const ms = [];
  const sizes = [];
  S.queued = [];
  for (let i = 0; i < count; i++) {
    const t = performance.now();
    const r = await m.updateLeaf(g.members[0]);
    ms.push(performance.now() - t);
    g.members[0] = r.group;
    S.queued.push(r.commit);
    sizes.push(r.commit.length);
  }
  return { ms, sizes };
}

/**
 * processCommits has the second device process what commit made, in
 * order; the other devices fall behind, which the later steps do not
 * mind (they use the first two only).
 * @param {number} n
 */
export async function processCommits(n) {
  const g = S.groups.get(n);
  const ms = [];
  for (const msg of S.queued) {
    const t = performance.now();
    const r = await m.receive(g.members[1], msg);
    ms.push(performance.now() - t);
    g.members[1] = r.group;
    if (r.kind !== 'commit') throw new Error('mlscost: a commit was not processed');
  }
  S.queued = [];
  if (m.groupInfo(g.members[1]).epoch !== m.groupInfo(g.members[0]).epoch) throw new Error('mlscost: the two devices are in different epochs');
  return { ms };
}

/**
 * saved is the size of the second device's state as saveGroup writes it,
 * and checks that it loads again.
 * @param {number} n
 */
export async function saved(n) {
  const g = S.groups.get(n);
  const bytes = m.saveGroup(g.members[1]);
  const back = m.loadGroup(bytes, validate);
  if (m.groupInfo(back).epoch !== m.groupInfo(g.members[1]).epoch) throw new Error('mlscost: a saved group did not load');
  return { bytes: bytes.length, epoch: Number(m.groupInfo(g.members[1]).epoch) };
}

/**
 * saving times saveGroup and loadGroup of the second device's state,
 * count times each: the chats write the next state after every message.
 * @param {number} n
 * @param {number} count
 */
export async function saving(n, count) {
  const g = S.groups.get(n);
  const save = [];
  const load = [];
  let bytes = new Uint8Array();
  for (let i = 0; i < count; i++) {
    let t = performance.now();
    bytes = m.saveGroup(g.members[1]);
    save.push(performance.now() - t);
    t = performance.now();
    m.loadGroup(bytes, validate);
    load.push(performance.now() - t);
  }
  return { save, load, bytes: bytes.length };
}

/** isolated says whether the page's clock is the fine one (5 µs, not 100 µs). */
export function isolated() {
  return self.crossOriginIsolated;
}
