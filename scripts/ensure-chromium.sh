#!/usr/bin/env bash
# ensure-chromium.sh: make sure headless Chromium is installed for the
# browser tests, installing Debian's chromium package when it is missing,
# and a colour emoji font (fonts-noto-color-emoji), so that reactions show
# in the screenshots as a person sees them. The browser tests fail, never
# skip, when there is no browser; a missing font only changes the pictures.
set -euo pipefail
sudo=""
[ "$(id -u)" -eq 0 ] || sudo="sudo"
apt() {
	$sudo env DEBIAN_FRONTEND=noninteractive apt-get update -q >&2
	$sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -q "$@" >&2
}
have_emoji() { [ -e /usr/share/fonts/truetype/noto/NotoColorEmoji.ttf ]; }
if [ -n "${CHROMIUM:-}" ] || command -v chromium >/dev/null 2>&1; then
	if ! have_emoji && command -v apt-get >/dev/null; then
		echo "ensure-chromium: installing Debian's fonts-noto-color-emoji for the screenshots" >&2
		apt fonts-noto-color-emoji || echo "ensure-chromium: no emoji font; the tests run without it" >&2
	fi
	exit 0
fi
echo "ensure-chromium: Chromium is missing; installing Debian's chromium package" >&2
command -v apt-get >/dev/null || { echo "ensure-chromium: no apt-get: install Chromium by hand or set CHROMIUM" >&2; exit 1; }
apt chromium fonts-noto-color-emoji
command -v chromium >/dev/null || { echo "ensure-chromium: the chromium package installed no chromium command" >&2; exit 1; }
