#!/usr/bin/env bash
# fuzz.sh: run every fuzz target of the module for FUZZTIME each (default
# 10s; 0 skips), one `go test -fuzz` per target, since -fuzz takes one
# target per package run. Stops at the first failure.
#
# A failing input is written by Go to <package>/testdata/fuzz/<Target>/;
# commit it with the fix: from then on plain `go test` runs it as a
# regular test case.
set -euo pipefail
cd "$(dirname "$0")/.."

GO=${GO:-go}
FUZZTIME=${FUZZTIME:-10s}
case "$FUZZTIME" in
0 | 0s | 0x | "")
	echo "fuzz: skipped (FUZZTIME=$FUZZTIME)"
	exit 0
	;;
esac

# The targets are read from the test files that `go list` reports for each
# package, so build constraints apply, without building any test binary.
targets=()
while read -r pkg dir files; do
	for f in $files; do
		for fn in $(sed -n 's/^func \(Fuzz[A-Za-z0-9_]*\)([A-Za-z_]* \*testing\.F).*/\1/p' "$dir/$f"); do
			targets+=("$pkg $dir $fn")
		done
	done
done < <("$GO" list -f '{{.ImportPath}} {{.Dir}} {{join .TestGoFiles " "}} {{join .XTestGoFiles " "}}' ./...)

if [ ${#targets[@]} -eq 0 ]; then
	echo "fuzz: no fuzz targets found"
	exit 0
fi

# Files newer than this marker are the inputs a failing run wrote.
marker=$(mktemp)
trap 'rm -f "$marker"' EXIT

start=$SECONDS
for t in "${targets[@]}"; do
	read -r pkg dir fn <<<"$t"
	echo "fuzz: $fn in $pkg for $FUZZTIME"
	t0=$SECONDS
	touch "$marker"
	if ! "$GO" test -run '^$' -fuzz "^$fn\$" -fuzztime "$FUZZTIME" "$pkg"; then
		corpus="${dir#"$PWD"/}/testdata/fuzz/$fn"
		echo "fuzz: $fn in $pkg failed. Fix the code and commit the failing input, now in $corpus/, with the fix; plain go test then runs it as a test case." >&2
		# Printed too, since CI's clone is thrown away: save it under the same name.
		if [ -d "$corpus" ]; then
			find "$corpus" -type f -newer "$marker" | while read -r f; do
				echo "fuzz: --- $f" >&2
				cat "$f" >&2
			done
		fi
		exit 1
	fi
	echo "fuzz: $fn done in $((SECONDS - t0))s"
done
echo "fuzz: ${#targets[@]} targets, $FUZZTIME each, in $((SECONDS - start))s"
