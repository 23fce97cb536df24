// searchtext.js: how search compares words (docs/storage.md, "Search"):
// pure functions over strings, with no store and no page. A text and a
// query are folded alike: compatibility forms decomposed (NFKD), the
// marks they leave dropped (accents, the dakuten of kana), lower case,
// the final sigma as σ and ß as ss. A message matches a query when its
// folded text holds every folded word of the query.

const MARKS = /\p{M}/gu;

/**
 * fold is the form in which text is compared.
 * @param {string} s
 */
export function fold(s) {
  return s.normalize('NFKD').replace(MARKS, '').toLowerCase().replace(/ς/g, 'σ').replace(/ß/g, 'ss');
}

/**
 * foldMap folds s code point by code point, as fold does, and gives for
 * each character of the result the index in s of the code point it came
 * from (at), with s.length last: where a match in the folded text lies
 * in s.
 * @param {string} s
 */
export function foldMap(s) {
  let out = '';
  /** @type {number[]} */
  const at = [];
  let i = 0;
  for (const ch of s) {
    const f = fold(ch);
    for (let k = 0; k < f.length; k++) at.push(i);
    out += f;
    i += ch.length;
  }
  at.push(s.length);
  return { out, at };
}

/**
 * terms are the folded words of a query, each once, longest first (a
 * highlight of a longer word is not cut by a shorter one within it).
 * @param {string} query
 */
export function terms(query) {
  const words = fold(query).split(/\s+/).filter(Boolean);
  return [...new Set(words)].sort((a, b) => b.length - a.length);
}

/**
 * matches reports whether the folded text holds every term.
 * @param {string} folded
 * @param {string[]} ts
 */
export function matches(folded, ts) {
  for (const t of ts) if (!folded.includes(t)) return false;
  return ts.length > 0;
}

/**
 * marks are the ranges [start, end) of s where the terms are, merged
 * and in order.
 * @param {string} s
 * @param {string[]} ts
 */
export function marks(s, ts) {
  const { out, at } = foldMap(s);
  /** @type {[number, number][]} */
  const found = [];
  for (const t of ts) {
    for (let i = out.indexOf(t); i >= 0; i = out.indexOf(t, i + 1)) {
      found.push([at[i], at[i + t.length - 1] + nextLength(s, at[i + t.length - 1])]);
    }
  }
  found.sort((a, b) => a[0] - b[0] || b[1] - a[1]);
  /** @type {[number, number][]} */
  const merged = [];
  for (const r of found) {
    const last = merged[merged.length - 1];
    if (last && r[0] <= last[1]) last[1] = Math.max(last[1], r[1]);
    else merged.push([r[0], r[1]]);
  }
  return merged;
}

// nextLength is the length in s of the code point at i, and of the marks
// that follow it: a highlight covers a letter with its accents.
function nextLength(s, i) {
  const cp = s.codePointAt(i);
  let j = i + (cp !== undefined && cp > 0xffff ? 2 : 1);
  while (j < s.length && /\p{M}/u.test(String.fromCodePoint(/** @type {number} */ (s.codePointAt(j))))) {
    const c = /** @type {number} */ (s.codePointAt(j));
    j += c > 0xffff ? 2 : 1;
  }
  return j - i;
}

/**
 * snippet is the part of s to show for a match: from a little before the
 * first term found (at a word's start, with … when something is left
 * out) for at most max characters, as pieces [text, marked].
 * @param {string} s
 * @param {string[]} ts
 * @param {number} [max]
 * @returns {[string, boolean][]}
 */
export function snippet(s, ts, max = 160) {
  const ranges = marks(s, ts);
  let from = 0;
  if (ranges.length && ranges[0][0] > 40) {
    from = ranges[0][0] - 30;
    const space = s.indexOf(' ', from);
    if (space >= 0 && space < ranges[0][0]) from = space + 1;
  }
  let to = Math.min(s.length, from + max);
  // Not between the two halves of a character outside the BMP.
  if (to < s.length && /[\ud800-\udbff]/.test(s[to - 1])) to--;
  /** @type {[string, boolean][]} */
  const out = [];
  let at = from;
  for (const [a, b] of ranges) {
    if (b <= from || a >= to) continue;
    const start = Math.max(a, from);
    const end = Math.min(b, to);
    if (start > at) out.push([s.slice(at, start), false]);
    out.push([s.slice(start, end), true]);
    at = end;
  }
  if (at < to) out.push([s.slice(at, to), false]);
  if (from > 0) out.unshift(['…', false]);
  if (to < s.length) out.push(['…', false]);
  return out;
}
