#!/usr/bin/env bash
# ensure-chromium.sh: make sure headless Chromium is installed for the
# browser tests, installing Debian's chromium package when it is missing.
# The browser tests fail, never skip, when there is no browser.
set -euo pipefail
if [ -n "${CHROMIUM:-}" ] || command -v chromium >/dev/null 2>&1; then
	exit 0
fi
echo "ensure-chromium: Chromium is missing; installing Debian's chromium package" >&2
sudo=""
[ "$(id -u)" -eq 0 ] || sudo="sudo"
command -v apt-get >/dev/null || { echo "ensure-chromium: no apt-get: install Chromium by hand or set CHROMIUM" >&2; exit 1; }
$sudo env DEBIAN_FRONTEND=noninteractive apt-get update -q >&2
$sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -q chromium >&2
command -v chromium >/dev/null || { echo "ensure-chromium: the chromium package installed no chromium command" >&2; exit 1; }
