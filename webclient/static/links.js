// links.js: the http and https addresses in a message's text, made links.
// Nodes are built one by one, never parsed from HTML, and nothing is
// fetched: no preview, so neither the relay nor the linked site learns that
// a message named the address until the person opens it
// (docs/security.md, "Links in messages").

// urlPattern finds candidates: http:// or https:// at the start of a word,
// up to the next space or a character that never ends an address in text.
const urlPattern = /\bhttps?:\/\/[^\s<>"]+/gi;

// trailing is punctuation that ends a sentence rather than the address.
const trailing = /[.,;:!?'*]$/;

function count(s, ch) {
  return s.split(ch).length - 1;
}

// trimmed drops what follows an address in a sentence: a full stop, a
// comma, a closing bracket without its opening one inside the address.
function trimmed(s) {
  for (;;) {
    if (trailing.test(s)) s = s.slice(0, -1);
    else if (s.endsWith(')') && count(s, ')') > count(s, '(')) s = s.slice(0, -1);
    else if (s.endsWith(']') && count(s, ']') > count(s, '[')) s = s.slice(0, -1);
    else return s;
  }
}

// linkOf returns the address a candidate opens, or null when it is not an
// http or https URL with a host.
function linkOf(candidate) {
  let url;
  try {
    url = new URL(candidate);
  } catch {
    return null;
  }
  if ((url.protocol !== 'http:' && url.protocol !== 'https:') || !url.hostname) return null;
  return url.href;
}

// linkified returns the nodes that show text: text nodes, and for each
// address a link that opens it in a new tab, with no opener and no
// referrer. The link shows the address as it was written.
export function linkified(text) {
  const nodes = [];
  let at = 0;
  for (const match of text.matchAll(urlPattern)) {
    const shown = trimmed(match[0]);
    const href = linkOf(shown);
    if (!href) continue;
    if (match.index > at) nodes.push(document.createTextNode(text.slice(at, match.index)));
    const a = document.createElement('a');
    a.href = href;
    a.target = '_blank';
    a.rel = 'noopener noreferrer';
    a.className = 'msg-link';
    a.textContent = shown;
    nodes.push(a);
    at = match.index + shown.length;
  }
  if (at < text.length || !nodes.length) nodes.push(document.createTextNode(text.slice(at)));
  return nodes;
}
