// ulid.js: ULIDs for envelope ids, made at the moment a send is attempted.
const ALPHABET = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';

// ulid returns a canonical 26-character ULID for the time ms.
export function ulid(ms = Date.now()) {
  let t = '';
  for (let i = 0; i < 10; i++) {
    t = ALPHABET[ms % 32] + t;
    ms = Math.floor(ms / 32);
  }
  const rnd = crypto.getRandomValues(new Uint8Array(16));
  let r = '';
  for (let i = 0; i < 16; i++) r += ALPHABET[rnd[i] % 32];
  return t + r;
}

// ulidTime returns the Unix milliseconds inside a ULID.
export function ulidTime(id) {
  let ms = 0;
  for (let i = 0; i < 10; i++) ms = ms * 32 + ALPHABET.indexOf(id[i]);
  return ms;
}
