#!/usr/bin/env bash
# readme-screens.sh: take the pictures at the top of README.md again
# (docs/screens/*.png) in headless Chromium, with TestReadmeScreens. Run
# it after a change to how the client looks, and commit the pictures.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/ensure-chromium.sh
export GOTOOLCHAIN="${GOTOOLCHAIN:-go1.27.3}"
url="${RELAY_TEST_DATABASE_URL:-$(scripts/pgcluster.sh url)}"
RELAY_TEST_DATABASE_URL="$url" RELAY_README_SCREENS=1 go test -count=1 -run '^TestReadmeScreens$' ./webclient
ls -l docs/screens/
