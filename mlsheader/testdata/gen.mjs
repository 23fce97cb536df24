// Makes the real MLS messages in messages/, the seed corpus of FuzzParse and
// the cases of TestParseRealMessages, with ts-mls (RFC 9420, ciphersuite 1).
// Run from an empty folder, never committing its node_modules:
//   npm install ts-mls@1.6.4 @noble/hashes @noble/curves
//   node gen.mjs <this folder>/messages
// Every run draws new keys, so the bytes differ; the headers do not.
import * as m from "ts-mls"
import { writeFileSync, mkdirSync } from "node:fs"
const out = process.argv[2]
mkdirSync(out, { recursive: true })
const impl = await m.getCiphersuiteImpl(m.getCiphersuiteFromName("MLS_128_DHKEMX25519_AES128GCM_SHA256_Ed25519"))
const cred = (n) => ({ credentialType: "basic", identity: new TextEncoder().encode(n) })
const kp = async (n) => m.generateKeyPackage(cred(n), m.defaultCapabilities(), m.defaultLifetime, [], impl)
const enc = (msg) => m.encodeMlsMessage(msg)
const save = (name, bytes) => { writeFileSync(`${out}/${name}`, bytes); console.log(name, bytes.length) }
const alice = await kp("alice"), bob = await kp("bob"), carol = await kp("carol")
const groupId = new Uint8Array(32); for (let i = 0; i < 32; i++) groupId[i] = i + 1
let a = await m.createGroup(groupId, alice.publicPackage, alice.privatePackage, [], impl)
save("keypackage", enc({ keyPackage: bob.publicPackage, wireformat: "mls_key_package", version: "mls10" }))
// epoch 0 → 1: add bob, as a public message
let c = await m.createCommit({ state: a, cipherSuite: impl }, { wireAsPublicMessage: true, extraProposals: [{ proposalType: "add", add: { keyPackage: bob.publicPackage } }] })
a = c.newState
save("commit-public-epoch0", enc(c.commit))
save("welcome", enc({ welcome: c.welcome, wireformat: "mls_welcome", version: "mls10" }))
let b = await m.joinGroup(c.welcome, bob.publicPackage, bob.privatePackage, m.emptyPskIndex, impl, a.ratchetTree)
// epoch 1 → 2: an empty (update) commit, as a private message
c = await m.createCommit({ state: a, cipherSuite: impl })
a = c.newState
save("commit-private-epoch1", enc(c.commit))
// epoch 2 → 3: add carol, private, with authenticated data
c = await m.createCommit({ state: a, cipherSuite: impl }, { authenticatedData: new Uint8Array(100).fill(7), extraProposals: [{ proposalType: "add", add: { keyPackage: carol.publicPackage } }] })
a = c.newState
save("commit-private-epoch2", enc(c.commit))
// an application message at epoch 3
const app = await m.createApplicationMessage(a, new TextEncoder().encode("hello"), impl)
a = app.newState
save("application-private-epoch3", enc({ privateMessage: app.privateMessage, wireformat: "mls_private_message", version: "mls10" }))
// a proposal at epoch 3, public
const prop = await m.createProposal(a, true, { proposalType: "remove", remove: { removed: 1 } }, impl)
save("proposal-public-epoch3", enc(prop.message))
// an external join at epoch 3 (sender new_member_commit)
try {
  const gi = await m.createGroupInfoWithExternalPubAndRatchetTree(a, [], impl)
  save("groupinfo", enc({ groupInfo: gi, wireformat: "mls_group_info", version: "mls10" }))
  const d = await kp("dave")
  const j = await m.joinGroupExternal(gi, d.publicPackage, d.privatePackage, false, impl)
  save("commit-external-epoch3", enc({ publicMessage: j.publicMessage, wireformat: "mls_public_message", version: "mls10" }))
} catch (e) { console.error("external join:", e.message) }
