#!/usr/bin/env bash
# package.sh: build the relay's Debian package into build/ (or $OUT) with
# nfpm, pinned and run through the Go module proxy like staticcheck (ADR
# 0115): a static binary, the systemd unit, /etc/relay/relay.toml as a
# conffile, the README of the first steps and a full example configuration.
#
# VERSION defaults to 0.0~git<commit time>.<commit>, which rises with every
# commit; ARCH is Go's (amd64, arm64, ...), the same names as Debian's for
# the common ones.
set -euo pipefail
cd "$(dirname "$0")/.."

GO=${GO:-go}
NFPM=github.com/goreleaser/nfpm/v2/cmd/nfpm@v2.48.0
OUT=${OUT:-build}
if [ -z "${VERSION:-}" ]; then
	VERSION="0.0~git$(git log -1 --format=%cd.%h --date=format-local:%Y%m%d%H%M%S 2>/dev/null || echo unknown)"
	if [ -n "$(git status --porcelain 2>/dev/null)" ]; then
		VERSION="$VERSION.dirty"
	fi
fi
ARCH=$("$GO" env GOARCH)
STAGE="$OUT/stage"

rm -rf "$STAGE"
mkdir -p "$STAGE"
# No cgo: the binary needs no C library, so the package depends on none.
# No symbol table (-s -w): a quarter smaller; a panic's stack still names
# its functions.
CGO_ENABLED=0 "$GO" build -trimpath -ldflags='-s -w' -o "$STAGE/relay" ./cmd/relay
"$STAGE/relay" config example >"$STAGE/relay.toml.example"
# The file the package installs must be one the relay takes.
"$STAGE/relay" config check packaging/relay.toml >/dev/null

VERSION="$VERSION" ARCH="$ARCH" STAGE="$STAGE" \
	"$GO" run "$NFPM" package --config packaging/nfpm.yaml --packager deb --target "$OUT/"
rm -rf "$STAGE"
echo "package: $OUT/relay_${VERSION}_${ARCH}.deb"
