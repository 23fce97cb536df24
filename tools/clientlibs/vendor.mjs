// vendor.mjs copies the web client's third-party modules from
// node_modules (installed by `npm ci` from package-lock.json) into
// webclient/static/vendor, as the browser loads them with no build step:
//
// - Only the files the entry modules reach: their static imports,
//   and its dynamic imports that name an installed package. A dynamic
//   import of an optional package that is not installed (a ciphersuite we
//   do not use) stays as it is and fails when called, as the library
//   intends ("not installed" errors).
// - Each file as the package ships it, with two mechanical changes: a bare
//   import ("@hpke/core") becomes the relative path of the vendored file,
//   so that no import map is needed and the CSP stays 'self'; the
//   sourceMappingURL comment is dropped, since the maps are not vendored.
// - Next to each package, its LICENSE, and for the MLS library and the
//   noble packages (which the app lock imports itself) their .d.ts files,
//   which the type checker reads instead of the libraries' JavaScript.
//
// It then writes webclient/vendored.json: each package's version and the
// integrity npm checked, each served file's sha256. A Go test compares it
// with the embedded files, so a hand edit of a vendored file fails.
import { readFileSync, writeFileSync, mkdirSync, rmSync, existsSync, readdirSync } from 'node:fs';
import { createHash } from 'node:crypto';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { init, parse } from 'es-module-lexer';

const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.resolve(here, '../..');
const modules = path.join(here, 'node_modules');
const outDir = path.join(root, 'webclient/static/vendor');
const manifestFile = path.join(root, 'webclient/vendored.json');
const lock = JSON.parse(readFileSync(path.join(here, 'package-lock.json'), 'utf8'));

// ENTRIES are the modules the client imports, the MLS library first (ADR
// 0098); the rest come with them. scrypt and HKDF key the app lock (ADR
// 0113).
const ENTRIES = ['ts-mls', '@noble/hashes/scrypt.js', '@noble/hashes/hkdf.js'];
const ENTRY = ENTRIES[0];

function fail(msg) {
  console.error('vendor-clientlibs: ' + msg);
  process.exit(1);
}

// pkgOf is the installed package a file belongs to.
function pkgOf(file) {
  const rel = path.relative(modules, file).split(path.sep);
  const name = rel[0].startsWith('@') ? rel[0] + '/' + rel[1] : rel[0];
  const dir = path.join(modules, name);
  const meta = JSON.parse(readFileSync(path.join(dir, 'package.json'), 'utf8'));
  const locked = lock.packages['node_modules/' + name];
  if (!locked || locked.version !== meta.version) fail(`${name} is not the locked version: run npm ci`);
  return { name, dir, version: meta.version, license: meta.license, integrity: locked.integrity, exports: meta.exports };
}

// target picks the ES module of an exports entry.
function target(entry) {
  if (typeof entry === 'string') return entry;
  if (entry && typeof entry === 'object') return target(entry.import ?? entry.module ?? entry.default);
  return null;
}

// resolveBare finds the file a bare specifier names through the package's
// exports map, or null when the package is not installed.
function resolveBare(spec) {
  const parts = spec.split('/');
  const name = spec.startsWith('@') ? parts.slice(0, 2).join('/') : parts[0];
  const sub = '.' + spec.slice(name.length);
  const dir = path.join(modules, name);
  if (!existsSync(path.join(dir, 'package.json'))) return null;
  const { exports } = JSON.parse(readFileSync(path.join(dir, 'package.json'), 'utf8'));
  if (!exports) fail(`${name} has no exports map`);
  let t = target(exports[sub]);
  if (!t) {
    for (const [key, val] of Object.entries(exports)) {
      const star = key.indexOf('*');
      if (star < 0) continue;
      const pre = key.slice(0, star), post = key.slice(star + 1);
      if (sub.startsWith(pre) && sub.endsWith(post) && sub.length >= key.length - 1) {
        t = target(val)?.replace('*', sub.slice(pre.length, sub.length - post.length));
        break;
      }
    }
  }
  if (!t) fail(`${spec}: not in ${name}'s exports`);
  return path.join(dir, t);
}

// servedPath is where a package file is served under vendor/.
function servedPath(file) {
  const p = pkgOf(file);
  return path.join(`${p.name}@${p.version}`, path.relative(p.dir, file));
}

function relImport(fromServed, toServed) {
  let r = path.relative(path.dirname(fromServed), toServed).split(path.sep).join('/');
  if (!r.startsWith('.')) r = './' + r;
  return r;
}

await init;
const entryFile = resolveBare(ENTRY);
const queue = ENTRIES.map(resolveBare);
const seen = new Set(queue);
const out = new Map(); // served path -> bytes
const packages = new Map();
const leftBare = new Set();
while (queue.length) {
  const file = queue.shift();
  const src = readFileSync(file, 'utf8');
  const [imports] = parse(src, file);
  const served = servedPath(file);
  packages.set(pkgOf(file).name, pkgOf(file));
  let text = '';
  let last = 0;
  for (const im of imports) {
    if (im.n === undefined) {
      if (im.d > -1) fail(`${file}: a dynamic import of a computed name`);
      continue; // import.meta
    }
    const spec = im.n;
    let dep;
    if (spec.startsWith('.')) {
      dep = path.resolve(path.dirname(file), spec);
      if (!existsSync(dep)) fail(`${file}: ${spec} does not exist`);
    } else {
      dep = resolveBare(spec);
      if (!dep) {
        if (im.d === -1) fail(`${file}: a static import of ${spec}, which is not installed`);
        leftBare.add(spec);
        continue;
      }
      // A dynamic import's span holds its quotes; a static one's does not.
      const q = im.d > -1 ? src[im.s] : '';
      text += src.slice(last, im.s) + q + relImport(served, servedPath(dep)) + q;
      last = im.e;
    }
    if (!seen.has(dep)) {
      seen.add(dep);
      queue.push(dep);
    }
  }
  text += src.slice(last);
  text = text.replace(/\n\/\/# sourceMappingURL=\S+\s*$/, '\n');
  out.set(served, Buffer.from(text));
  if (pkgOf(file).name === ENTRY || pkgOf(file).name.startsWith('@noble/')) {
    const dts = file.replace(/\.js$/, '.d.ts');
    if (existsSync(dts)) out.set(served.replace(/\.js$/, '.d.ts'), readFileSync(dts));
  }
}
for (const p of packages.values()) {
  const lic = readdirSync(p.dir).filter((f) => /^(LICEN[CS]E|COPYING)/i.test(f));
  if (lic.length === 0) fail(`${p.name} ships no licence file`);
  for (const f of lic) out.set(path.join(`${p.name}@${p.version}`, f), readFileSync(path.join(p.dir, f)));
}

rmSync(outDir, { recursive: true, force: true });
const files = {};
for (const [served, bytes] of [...out].sort(([a], [b]) => (a < b ? -1 : 1))) {
  const dest = path.join(outDir, served);
  mkdirSync(path.dirname(dest), { recursive: true });
  writeFileSync(dest, bytes);
  files['vendor/' + served.split(path.sep).join('/')] = createHash('sha256').update(bytes).digest('hex');
}
const manifest = {
  comment: 'Written by scripts/vendor-clientlibs.sh: the vendored packages and the sha256 of each served file (webclient/vendored_test.go checks them).',
  entry: `vendor/${ENTRY}@${packages.get(ENTRY).version}/${path.relative(packages.get(ENTRY).dir, entryFile)}`,
  entries: ENTRIES,
  packages: [...packages.values()]
    .sort((a, b) => (a.name < b.name ? -1 : 1))
    .map((p) => ({ name: p.name, version: p.version, license: p.license, integrity: p.integrity })),
  unvendoredImports: [...leftBare].sort(),
  files,
};
writeFileSync(manifestFile, JSON.stringify(manifest, null, 2) + '\n');
const size = Object.keys(files).reduce((n, f) => n + out.get(f.slice('vendor/'.length).split('/').join(path.sep)).length, 0);
console.error(`vendor-clientlibs: ${Object.keys(files).length} files, ${size} bytes, in webclient/static/vendor`);
