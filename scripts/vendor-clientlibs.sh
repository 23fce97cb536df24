#!/usr/bin/env bash
# vendor-clientlibs.sh: the one command that refreshes the third-party
# modules the web client serves (ADR 0098). `npm ci` installs exactly what
# tools/clientlibs/package-lock.json pins, checking each package's
# integrity, into tools/clientlibs/node_modules (git ignores it); then
# tools/clientlibs/vendor.mjs copies the modules the client reaches into
# webclient/static/vendor, bare imports made relative, with their licences,
# and writes webclient/vendored.json (the sha256 of each file, checked by
# `make test`). Nothing is fetched when the client runs.
#
# To move to another version: cd tools/clientlibs && npm install
# --save-exact ts-mls@VERSION (and its peers, package.json), then run this
# script, the vectors (scripts/mls-vectors.sh) and `make test`, and record
# the change in an ADR that refines ADR 0098.
set -euo pipefail
cd "$(dirname "$0")/../tools/clientlibs"
command -v npm >/dev/null 2>&1 || { echo "vendor-clientlibs: needs Node.js and npm (scripts/typecheck.sh installs Debian's)" >&2; exit 1; }
npm ci --no-audit --no-fund --loglevel=error >&2
node vendor.mjs
