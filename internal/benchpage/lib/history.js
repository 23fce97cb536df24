// history.js: the made-up texts of the benchmarks' histories (search-bench,
// lock-bench), served to their pages under /bench/lib/: 3 to 18 words,
// half of them common, the rest made-up words with accents, from a seeded
// generator, so that every run writes the same history.

let seed = 0x2545f491;
function rnd() {
  seed ^= seed << 13;
  seed ^= seed >>> 17;
  seed ^= seed << 5;
  return (seed >>> 0) / 4294967296;
}

// The words of the history: a few very common ones, many rare made-up
// ones, some with accents.
const COMMON = ['the', 'and', 'you', 'see', 'tomorrow', 'what', 'yes', 'ok', 'later', 'thanks', 'good', 'time', 'come', 'home', 'call'];
const SYL = ['ka', 'lo', 'mi', 'ré', 'tu', 'sa', 'ne', 'vo', 'pi', 'dé', 'ga', 'ru', 'zo', 'ben', 'tal', 'kor', 'mé', 'lin'];
function madeUp() {
  let w = '';
  const n = 2 + Math.floor(rnd() * 3);
  for (let i = 0; i < n; i++) w += SYL[Math.floor(rnd() * SYL.length)];
  return w;
}
const RARE = Array.from({ length: 5000 }, madeUp);

/**
 * text is the next made-up message text.
 */
export function text() {
  const n = 3 + Math.floor(rnd() * 16);
  const ws = [];
  for (let i = 0; i < n; i++) ws.push(rnd() < 0.5 ? COMMON[Math.floor(rnd() * COMMON.length)] : RARE[Math.floor(rnd() * RARE.length)]);
  return ws.join(' ');
}
