// vectors.js checks the vendored ts-mls against the RFC 9420 interop test
// vectors of the MLS working group (README.md here says where they come
// from): tree math, the key schedule, message protection and welcome. It
// is the library's own vector tests (test/test-vectors in its repository)
// in plain JavaScript, run in Chromium by webclient/mls_vectors_test.go and
// in Node.js by scripts/mls-vectors.sh. It is test data: the relay never
// serves it.
//
// run(base, v) imports the library's modules from base (the URL of the
// vendored dist/src/ folder) and checks v = {treeMath, keySchedule,
// messageProtection, welcome}, each a vector file's parsed JSON. It
// returns {checks, bad, suites}: the number of comparisons, the name of
// each that failed, and the ciphersuites checked. A vector of a suite the
// vendored files do not implement (they carry only what the client needs,
// see ADR 0098) is counted in skipped, never silently.

const unhex = (s) => new Uint8Array((s.match(/../g) || []).map((b) => parseInt(b, 16)));
const hex = (b) => Array.from(b, (x) => x.toString(16).padStart(2, '0')).join('');

export async function run(base, v) {
  const lib = async (name) => import(base + name);
  const treemath = await lib('treemath.js');
  const { getCiphersuiteFromId, getCiphersuiteNameFromId } = await lib('crypto/ciphersuite.js');
  const { getCiphersuiteImpl } = await lib('crypto/getCiphersuiteImpl.js');
  const { encodeGroupContext } = await lib('groupContext.js');
  const { initializeEpoch, mlsExporter } = await lib('keySchedule.js');
  const { decodeMlsMessage } = await lib('message.js');
  const { unprotectPrivateMessage, protectApplicationData } = await lib('messageProtection.js');
  const { unprotectPublicMessage } = await lib('messageProtectionPublic.js');
  const { createSecretTree } = await lib('secretTree.js');
  const { encodeProposal } = await lib('proposal.js');
  const { encodeCommit } = await lib('commit.js');
  const { defaultKeyRetentionConfig } = await lib('keyRetentionConfig.js');
  const { defaultCapabilities } = await lib('defaultCapabilities.js');
  const { defaultPaddingConfig } = await lib('paddingConfig.js');
  const { makeKeyPackageRef } = await lib('keyPackage.js');
  const { verifyGroupInfoConfirmationTag, verifyGroupInfoSignature } = await lib('groupInfo.js');
  const { decryptGroupInfo, decryptGroupSecrets } = await lib('welcome.js');

  const bad = [];
  let checks = 0;
  const check = (ok, what) => { checks++; if (!ok) bad.push(what); };
  const same = (got, want, what) => check(got !== undefined && got !== null && hex(got) === want, what);
  // attempt runs a step whose failure (a throw) is a failed check of what.
  const attempt = async (what, f) => {
    try { return await f(); } catch (e) { checks++; bad.push(what + ': ' + (e && e.message)); return undefined; }
  };
  const suites = new Set();
  const skipped = [];
  const impls = new Map();
  const implOf = async (id, what) => {
    if (!impls.has(id)) {
      try { impls.set(id, await getCiphersuiteImpl(getCiphersuiteFromId(id))); } catch (e) { impls.set(id, null); }
    }
    const impl = impls.get(id);
    if (impl) suites.add(id); else skipped.push(what + ' suite ' + id);
    return impl;
  };

  // Tree math: a null expected value means the function must refuse.
  for (const [n, t] of v.treeMath.entries()) {
    const at = `tree-math ${n}`;
    check(treemath.nodeWidth(t.n_leaves) === t.n_nodes, at + ' n_nodes');
    check(treemath.root(t.n_leaves) === t.root, at + ' root');
    const fns = {
      left: (i) => treemath.left(treemath.toNodeIndex(i)),
      right: (i) => treemath.right(treemath.toNodeIndex(i)),
      parent: (i) => treemath.parent(treemath.toNodeIndex(i), t.n_leaves),
      sibling: (i) => treemath.sibling(treemath.toNodeIndex(i), t.n_leaves),
    };
    for (const [name, f] of Object.entries(fns)) {
      for (const [i, want] of t[name].entries()) {
        let got;
        try { got = f(i); } catch { got = null; }
        check(got === want, `${at} ${name}[${i}]`);
      }
    }
  }

  // The key schedule, epoch by epoch from the initial init secret.
  for (const x of v.keySchedule) {
    const at = `key-schedule suite ${x.cipher_suite}`;
    const impl = await implOf(x.cipher_suite, 'key-schedule');
    if (!impl) continue;
    let initSecret = unhex(x.initial_init_secret);
    for (const [n, e] of x.epochs.entries()) {
      const ep = `${at} epoch ${n}`;
      const gc = {
        version: 'mls10', cipherSuite: getCiphersuiteNameFromId(x.cipher_suite), groupId: unhex(x.group_id),
        epoch: BigInt(n), treeHash: unhex(e.tree_hash), confirmedTranscriptHash: unhex(e.confirmed_transcript_hash), extensions: [],
      };
      same(encodeGroupContext(gc), e.group_context, ep + ' group_context');
      const r = await attempt(ep, () => initializeEpoch(initSecret, unhex(e.commit_secret), gc, unhex(e.psk_secret), impl.kdf));
      if (!r) break;
      const ks = r.keySchedule;
      same(r.joinerSecret, e.joiner_secret, ep + ' joiner_secret');
      same(r.welcomeSecret, e.welcome_secret, ep + ' welcome_secret');
      same(r.encryptionSecret, e.encryption_secret, ep + ' encryption_secret');
      for (const [k, want] of [['initSecret', 'init_secret'], ['senderDataSecret', 'sender_data_secret'], ['exporterSecret', 'exporter_secret'],
        ['externalSecret', 'external_secret'], ['confirmationKey', 'confirmation_key'], ['membershipKey', 'membership_key'],
        ['resumptionPsk', 'resumption_psk'], ['epochAuthenticator', 'epoch_authenticator']]) {
        same(ks[k], e[want], `${ep} ${want}`);
      }
      const kp = await attempt(ep + ' external key pair', () => impl.hpke.deriveKeyPair(unhex(e.external_secret)));
      if (kp) same(await impl.hpke.exportPublicKey(kp.publicKey), e.external_pub, ep + ' external_pub');
      same(await mlsExporter(ks.exporterSecret, e.exporter.label, unhex(e.exporter.context), e.exporter.length, impl), e.exporter.secret, ep + ' exporter');
      initSecret = ks.initSecret;
    }
  }

  // Message protection: the private and public messages of the vector
  // open to its proposal, commit and application data; and data the
  // library protects opens to the same bytes.
  const leaf1 = [undefined, undefined, {
    nodeType: 'leaf',
    leaf: {
      leafNodeSource: 'commit', hpkePublicKey: new Uint8Array(), signaturePublicKey: new Uint8Array(), capabilities: defaultCapabilities(),
      parentHash: new Uint8Array(), extensions: [], signature: new Uint8Array(), credential: { credentialType: 'basic', identity: new Uint8Array() },
    },
  }];
  for (const x of v.messageProtection) {
    const at = `message-protection suite ${x.cipher_suite}`;
    const impl = await implOf(x.cipher_suite, 'message-protection');
    if (!impl) continue;
    const gc = {
      version: 'mls10', cipherSuite: getCiphersuiteNameFromId(x.cipher_suite), groupId: unhex(x.group_id), epoch: BigInt(x.epoch),
      treeHash: unhex(x.tree_hash), confirmedTranscriptHash: unhex(x.confirmed_transcript_hash), extensions: [],
    };
    const openPrivate = async (what, bytes) => {
      const m = decodeMlsMessage(unhex(bytes), 0);
      if (!m || m[0].wireformat !== 'mls_private_message') { check(false, what + ': not a private message'); return undefined; }
      const tree = await createSecretTree(2, unhex(x.encryption_secret), impl.kdf);
      return attempt(what, () => unprotectPrivateMessage(unhex(x.sender_data_secret), m[0].privateMessage, tree, leaf1, gc,
        defaultKeyRetentionConfig, impl, unhex(x.signature_pub)));
    };
    const openPublic = async (what, bytes) => {
      const m = decodeMlsMessage(unhex(bytes), 0);
      if (!m || m[0].wireformat !== 'mls_public_message') { check(false, what + ': not a public message'); return undefined; }
      return attempt(what, () => unprotectPublicMessage(unhex(x.membership_key), gc, [], m[0].publicMessage, impl, unhex(x.signature_pub)));
    };
    const app = await openPrivate(at + ' application_priv', x.application_priv);
    if (app) same(app.content.content.applicationData, x.application, at + ' application');
    const prop = await openPrivate(at + ' proposal_priv', x.proposal_priv);
    if (prop) same(encodeProposal(prop.content.content.proposal), x.proposal, at + ' proposal_priv');
    const com = await openPrivate(at + ' commit_priv', x.commit_priv);
    if (com) same(encodeCommit(com.content.content.commit), x.commit, at + ' commit_priv');
    const pprop = await openPublic(at + ' proposal_pub', x.proposal_pub);
    if (pprop) same(encodeProposal(pprop.content.proposal), x.proposal, at + ' proposal_pub');
    const pcom = await openPublic(at + ' commit_pub', x.commit_pub);
    if (pcom) same(encodeCommit(pcom.content.commit), x.commit, at + ' commit_pub');
    const tree = await createSecretTree(2, unhex(x.encryption_secret), impl.kdf);
    const sealed = await attempt(at + ' protect application', () => protectApplicationData(unhex(x.signature_priv), unhex(x.sender_data_secret),
      unhex(x.application), new Uint8Array(), gc, tree, 1, defaultPaddingConfig, impl));
    if (sealed) {
      const back = await attempt(at + ' unprotect application', () => unprotectPrivateMessage(unhex(x.sender_data_secret), sealed.privateMessage,
        tree, leaf1, gc, defaultKeyRetentionConfig, impl, unhex(x.signature_pub)));
      if (back) same(back.content.content.applicationData, x.application, at + ' application round trip');
    }
  }

  // Welcome: the new member's init key opens the group secrets, and the
  // group info they open carries a valid confirmation tag and signature.
  for (const x of v.welcome) {
    const at = `welcome suite ${x.cipher_suite}`;
    const impl = await implOf(x.cipher_suite, 'welcome');
    if (!impl) continue;
    const w = decodeMlsMessage(unhex(x.welcome), 0);
    const kp = decodeMlsMessage(unhex(x.key_package), 0);
    if (!w || w[0].wireformat !== 'mls_welcome' || !kp || kp[0].wireformat !== 'mls_key_package') { check(false, at + ': not a welcome and a key package'); continue; }
    const ref = await makeKeyPackageRef(kp[0].keyPackage, impl.hash);
    check(w[0].welcome.secrets.some((s) => hex(s.newMember) === hex(ref)), at + ' key package ref');
    const priv = await attempt(at + ' init_priv', () => impl.hpke.importPrivateKey(unhex(x.init_priv)));
    if (!priv) continue;
    const secrets = await attempt(at + ' group secrets', () => decryptGroupSecrets(priv, ref, w[0].welcome, impl.hpke));
    check(secrets !== undefined, at + ' group secrets');
    if (!secrets) continue;
    const psk = new Uint8Array(impl.kdf.size);
    const gi = await attempt(at + ' group info', () => decryptGroupInfo(w[0].welcome, secrets.joinerSecret, psk, impl));
    check(gi !== undefined, at + ' group info');
    if (!gi) continue;
    check(await attempt(at + ' confirmation tag', () => verifyGroupInfoConfirmationTag(gi, secrets.joinerSecret, psk, impl)) === true, at + ' confirmation tag');
    check(await attempt(at + ' signature', () => verifyGroupInfoSignature(gi, unhex(x.signer_pub), impl.signature)) === true, at + ' signature');
  }
  return { checks, bad, suites: [...suites].sort(), skipped };
}
