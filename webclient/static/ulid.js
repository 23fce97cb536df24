// ulid.js: ULIDs for envelope ids, made at the moment a send is attempted.
const ALPHABET = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';

// last is the previous ULID's time and random digits: ids made in the same
// millisecond count up from it, so that they sort in the order they were
// made (the ULID spec's monotonic ids) and ties of the order key broken by
// id keep that order.
let last = { ms: -1, digits: null };

function increment(digits) {
  const d = digits.slice();
  for (let i = d.length - 1; i >= 0; i--) {
    if (d[i] < 31) {
      d[i]++;
      return d;
    }
    d[i] = 0;
  }
  return null; // 80 bits used up within one millisecond: start afresh
}

// ulid returns a canonical 26-character ULID for the time ms.
export function ulid(ms = Date.now()) {
  let digits = ms === last.ms ? increment(last.digits) : null;
  if (!digits) digits = [...crypto.getRandomValues(new Uint8Array(16))].map((b) => b % 32);
  last = { ms, digits };
  let t = '';
  for (let i = 0; i < 10; i++) {
    t = ALPHABET[ms % 32] + t;
    ms = Math.floor(ms / 32);
  }
  return t + digits.map((d) => ALPHABET[d]).join('');
}

// ulidTime returns the Unix milliseconds inside a ULID.
export function ulidTime(id) {
  let ms = 0;
  for (let i = 0; i < 10; i++) ms = ms * 32 + ALPHABET.indexOf(id[i]);
  return ms;
}
