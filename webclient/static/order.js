// order.js: the order of a chat (docs/storage.md, "Order"). Messages and
// records are ordered by the order key sort (the relay's ts of their
// envelope), ties by id.

// after reports whether a comes after b in a chat's order.
export function after(a, b) {
  return a.sort !== b.sort ? a.sort > b.sort : a.id > b.id;
}
