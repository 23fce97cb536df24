#!/usr/bin/env bash
# mls-vectors.sh: the RFC 9420 test vectors (webclient/testdata/mls) run
# through the vendored MLS library in Node.js, a quick check after
# scripts/vendor-clientlibs.sh. `make test` runs the same checks in
# Chromium (TestMLSVectorsInBrowser), as the client loads the library.
set -euo pipefail
cd "$(dirname "$0")/.."
command -v node >/dev/null 2>&1 || { echo "mls-vectors: needs Node.js" >&2; exit 1; }
node --input-type=module - <<'JS'
import { readFileSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
const dir = 'webclient/testdata/mls/';
const read = (f) => JSON.parse(readFileSync(dir + f, 'utf8'));
const entry = JSON.parse(readFileSync('webclient/vendored.json', 'utf8')).entry;
const base = pathToFileURL('webclient/static/' + entry.slice(0, entry.lastIndexOf('/') + 1)).href;
const { run } = await import(pathToFileURL(dir + 'vectors.js').href);
const r = await run(base, {
  treeMath: read('tree-math.json'), keySchedule: read('key-schedule.json'),
  messageProtection: read('message-protection.json'), welcome: read('welcome.json'),
});
for (const b of r.bad) console.error('mls-vectors: FAIL ' + b);
console.error(`mls-vectors: ${r.checks} checks, ${r.bad.length} failed, suites ${r.suites.join(', ')}; skipped (not vendored): ${r.skipped.join(', ')}`);
process.exit(r.bad.length === 0 && r.suites.includes(2) ? 0 : 1);
JS
