#!/usr/bin/env bash
# typecheck.sh: TypeScript's checker over the web client's JavaScript
# (checkJs, JSDoc types where they matter), then ESLint for what types do
# not show (a shadowed name, an unused one; ADR 0095). Nothing of it is
# served: the client stays static modules with no build step. The tools'
# exact versions and their integrity are in tools/typecheck/package-lock.json;
# `npm ci` installs exactly that into tools/typecheck/node_modules (git
# ignores it). Node.js and npm come from Debian's packages when missing.
# The vendored libraries (webclient/static/vendor, ADR 0098) are not
# checked: both read the top folder's modules only, and mls.js's import of
# ts-mls resolves to the library's own .d.ts files beside its modules.
# To refresh them: cd tools/typecheck && npm install --save-exact
# typescript@VERSION eslint@VERSION, then run this script and fix what it
# finds.
set -euo pipefail
cd "$(dirname "$0")/../tools/typecheck"
if ! command -v npm >/dev/null 2>&1; then
	sudo=""
	[ "$(id -u)" -eq 0 ] || sudo="sudo"
	command -v apt-get >/dev/null || { echo "typecheck: no npm and no apt-get: install Node.js and npm by hand" >&2; exit 1; }
	echo "typecheck: installing Debian's nodejs and npm" >&2
	$sudo env DEBIAN_FRONTEND=noninteractive apt-get update -q >&2
	$sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -q nodejs npm >&2
fi
if ! node_modules/.bin/tsc --version 2>/dev/null | grep -qx "Version $(node -p 'require("./package-lock.json").packages["node_modules/typescript"].version')"; then
	npm ci --no-audit --no-fund --loglevel=error >&2
fi
node_modules/.bin/tsc -p tsconfig.json
node_modules/.bin/tsc -p tsconfig.sw.json
cd ../..
tools/typecheck/node_modules/.bin/eslint --max-warnings 0 -c tools/typecheck/eslint.config.js webclient/static/*.js
echo "typecheck: the web client's modules check clean" >&2
