// attachcrypto.js: the encryption of an attachment, with WebCrypto.
// docs/crypto.md ("Attachments") is the specification; relayclient/attach
// is the Go twin, and both pass the known-answer vectors in
// relayclient/attach/testdata/vectors.json.
//
// An attachment is padded (Padmé, at least MIN_PADDED bytes), cut into
// chunks of CHUNK bytes, and each chunk sealed with AES-256-GCM under a
// fresh key: the nonce is the chunk's index, and the index and whether it
// is the last chunk are bound in, so that chunks cannot be reordered,
// dropped from the end or moved to another attachment. The digest is a
// SHA-256 over the SHA-256 of each sealed chunk, made as the chunks come:
// WebCrypto hashes nothing in pieces, and no attachment is ever hashed,
// sealed or opened whole. Nothing here talks to the network.

const subtle = crypto.subtle;
const te = new TextEncoder();

export const KEY_SIZE = 32;
export const CHUNK = 65536;
export const OVERHEAD = 16;
export const MIN_PADDED = 256;
const AAD_LABEL = te.encode('relay/v1 attachment\u0000');
const DIGEST_LABEL = te.encode('relay/v1 attachment digest\u0000');

/**
 * paddedSize is the length an attachment of n bytes (n ≥ 1) is padded to.
 * @param {number} n
 */
export function paddedSize(n) {
  if (n <= MIN_PADDED) return MIN_PADDED;
  const e = Math.floor(Math.log2(n));
  const s = Math.floor(Math.log2(e)) + 1;
  const unit = 2 ** (e - s);
  return Math.ceil(n / unit) * unit;
}

/** chunks is the number of chunks of an attachment of n bytes. */
export function chunks(n) {
  return Math.ceil(paddedSize(n) / CHUNK);
}

/** sealedSize is the length of the ciphertext of n bytes: what is uploaded. */
export function sealedSize(n) {
  return paddedSize(n) + chunks(n) * OVERHEAD;
}

function nonce(i) {
  const n = new Uint8Array(12);
  new DataView(n.buffer).setBigUint64(4, BigInt(i));
  return n;
}

function aad(i, last) {
  const a = new Uint8Array(AAD_LABEL.length + 5);
  a.set(AAD_LABEL);
  new DataView(a.buffer).setUint32(AAD_LABEL.length, i);
  a[a.length - 1] = last ? 1 : 0;
  return a;
}

/** newKey draws the raw bytes of an attachment key. */
export function newKey() {
  return crypto.getRandomValues(new Uint8Array(KEY_SIZE));
}

/** @param {Uint8Array<ArrayBuffer>} raw */
export function importKey(raw) {
  if (raw.length !== KEY_SIZE) throw new Error('attachcrypto: a key is 32 bytes');
  return subtle.importKey('raw', raw, { name: 'AES-GCM' }, false, ['encrypt', 'decrypt']);
}

/**
 * plainChunk is chunk i of the padded plaintext of blob (n = blob.size):
 * the file's bytes, then zeros.
 * @param {Blob} blob
 * @param {number} i
 */
export async function plainChunk(blob, i) {
  const n = blob.size;
  const start = i * CHUNK;
  const end = Math.min(paddedSize(n), start + CHUNK);
  const out = new Uint8Array(end - start);
  if (start < n) out.set(new Uint8Array(await blob.slice(start, Math.min(n, end)).arrayBuffer()));
  return out;
}

/**
 * sealChunk seals chunk i of an attachment of n bytes. The same key, index
 * and bytes always give the same ciphertext: an upload that resumes seals
 * again what it lost.
 * @param {CryptoKey} key
 * @param {number} i
 * @param {number} n
 * @param {Uint8Array<ArrayBuffer>} plain
 */
export async function sealChunk(key, i, n, plain) {
  const last = i === chunks(n) - 1;
  return new Uint8Array(await subtle.encrypt({ name: 'AES-GCM', iv: nonce(i), additionalData: aad(i, last) }, key, plain));
}

/**
 * openChunk opens sealed chunk i of an attachment of n bytes; one that does
 * not open throws an Error whose message is 'chunk'.
 */
export async function openChunk(key, i, n, sealed) {
  const last = i === chunks(n) - 1;
  try {
    return new Uint8Array(await subtle.decrypt({ name: 'AES-GCM', iv: nonce(i), additionalData: aad(i, last) }, key, sealed));
  } catch {
    throw new Error('chunk');
  }
}

/** Digest makes an attachment's digest from its sealed chunks, in order. */
export class Digest {
  constructor() {
    /** @type {Uint8Array<ArrayBuffer>[]} */
    this.hashes = [];
  }

  /** @param {Uint8Array<ArrayBuffer>} sealed */
  async add(sealed) {
    this.hashes.push(new Uint8Array(await subtle.digest('SHA-256', sealed)));
  }

  async done() {
    const all = new Uint8Array(DIGEST_LABEL.length + 32 * this.hashes.length);
    all.set(DIGEST_LABEL);
    this.hashes.forEach((h, i) => all.set(h, DIGEST_LABEL.length + 32 * i));
    return new Uint8Array(await subtle.digest('SHA-256', all));
  }
}

/**
 * seal seals all of blob under raw, for the vectors and for small
 * attachments; an upload seals chunk by chunk instead.
 * @param {Uint8Array<ArrayBuffer>} raw
 * @param {Blob} blob
 * @returns {Promise<{sealed: Uint8Array, digest: Uint8Array}>}
 */
export async function seal(raw, blob) {
  const key = await importKey(raw);
  const n = blob.size;
  const sealed = new Uint8Array(sealedSize(n));
  const d = new Digest();
  for (let i = 0, at = 0; i < chunks(n); i++) {
    const c = await sealChunk(key, i, n, await plainChunk(blob, i));
    sealed.set(c, at);
    at += c.length;
    await d.add(c);
  }
  return { sealed, digest: await d.done() };
}

/**
 * Opener opens a downloaded attachment as its bytes arrive, in order: push
 * them in any pieces, then done() checks the digest and the padding and
 * gives the file. Nothing it opened is given out before done() has
 * checked the whole; a failure throws an Error whose message is 'size',
 * 'digest', 'chunk' or 'padding', checked in that order, as the Go twin
 * does.
 */
export class Opener {
  /**
   * @param {CryptoKey} key
   * @param {number} n the attachment's size, from its message
   * @param {Uint8Array} digest from its message
   * @param {string} type the file's type, from its message
   */
  constructor(key, n, digest, type = 'application/octet-stream') {
    this.key = key;
    this.n = n;
    this.digest = digest;
    this.type = type;
    this.i = 0;
    this.have = 0;
    /** @type {Uint8Array[]} */
    this.pending = [];
    /** @type {Blob[]} */
    this.parts = [];
    this.sum = new Digest();
    this.bad = false;
  }

  /** received is the number of sealed bytes pushed so far. */
  get received() {
    return this.have;
  }

  /** @param {Uint8Array} bytes */
  async push(bytes) {
    this.have += bytes.length;
    if (this.have > sealedSize(this.n)) throw new Error('size');
    this.pending.push(bytes);
    const want = CHUNK + OVERHEAD;
    while (this.pending.reduce((a, b) => a + b.length, 0) >= want && this.i < chunks(this.n) - 1) {
      await this.chunk(this.take(want));
    }
  }

  take(len) {
    const out = new Uint8Array(len);
    let at = 0;
    while (at < len) {
      const p = this.pending[0];
      const k = Math.min(p.length, len - at);
      out.set(p.subarray(0, k), at);
      at += k;
      if (k === p.length) this.pending.shift();
      else this.pending[0] = p.subarray(k);
    }
    return out;
  }

  // chunk hashes every chunk and opens it; one that does not open is
  // noted, and told by done() once the digest is known to match: a
  // download that does not match its digest says so, whatever else is
  // wrong with it.
  async chunk(sealed) {
    await this.sum.add(sealed);
    const i = this.i++;
    if (this.bad) return;
    try {
      this.parts.push(new Blob([await openChunk(this.key, i, this.n, sealed)]));
    } catch {
      this.bad = true;
      this.parts = [];
    }
  }

  /** @returns {Promise<Blob>} */
  async done() {
    if (this.have !== sealedSize(this.n)) throw new Error('size');
    await this.chunk(this.take(this.pending.reduce((a, b) => a + b.length, 0)));
    const got = await this.sum.done();
    if (got.length !== this.digest.length || got.some((b, i) => b !== this.digest[i])) throw new Error('digest');
    if (this.bad) throw new Error('chunk');
    const whole = new Blob(this.parts);
    const tail = new Uint8Array(await whole.slice(this.n).arrayBuffer());
    if (tail.some((b) => b !== 0)) throw new Error('padding');
    return new Blob([whole.slice(0, this.n)], { type: this.type });
  }
}
