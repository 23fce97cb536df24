#!/usr/bin/env bash
# govulncheck.sh: report the known vulnerabilities that the relay's code
# reaches, in its dependencies and in the Go standard library it is built
# with (ADR 0021). Exits non-zero when there is any.
#
# By default it works offline: the database is a snapshot, the module
# golang.org/x/vulndb at VULNDB_VERSION, indexed once into
# .artifacts/vulndb/<version>/ (git-ignored) and read from there. Set
# VULNDB to use another database, for example VULNDB=https://vuln.go.dev
# where that is reachable, or VULNDB=file:///some/dir.
set -euo pipefail
cd "$(dirname "$0")/.."

GO=${GO:-go}
GOVULNCHECK=golang.org/x/vuln/cmd/govulncheck@v1.9.0
# To update the snapshot, set this to a newer pseudo-version of
# golang.org/x/vulndb (ADR 0021 says how).
VULNDB_VERSION=v0.0.0-20261105234957-e22db6528018

db=${VULNDB:-}
if [ -z "$db" ]; then
	dir="$PWD/.artifacts/vulndb/$VULNDB_VERSION"
	if [ ! -e "$dir/index/db.json" ] && [ ! -e "$dir/index/db.json.gz" ]; then
		echo "govulncheck: building the vulnerability database from golang.org/x/vulndb@$VULNDB_VERSION, once (up to 2 minutes)" >&2
		tmp=$(mktemp -d)
		mkdir -p "$(dirname "$dir")"
		part="$dir.partial.$$" # renamed into place only when whole
		trap 'rm -rf "$tmp" "$part"' EXIT
		# Outside this module, so that nothing here touches go.mod or go.sum.
		moddir=$(cd "$tmp" && "$GO" mod download -json "golang.org/x/vulndb@$VULNDB_VERSION" |
			sed -n 's/^[[:space:]]*"Dir": "\(.*\)",\{0,1\}$/\1/p')
		if [ -z "$moddir" ] || [ ! -d "$moddir/data/osv" ]; then
			echo "govulncheck: golang.org/x/vulndb@$VULNDB_VERSION has no data/osv folder" >&2
			exit 1
		fi
		echo "govulncheck: indexing $(find "$moddir/data/osv" -name '*.json' | wc -l) reports" >&2
		(cd "$tmp" && "$GO" run "golang.org/x/vulndb/cmd/indexdb@$VULNDB_VERSION" \
			-vulns "$moddir/data/osv" -out "$part")
		rm -rf "$dir"
		mv "$part" "$dir"
		echo "govulncheck: database ready in ${dir#"$PWD"/}" >&2
	fi
	db="file://$dir"
fi

echo "govulncheck: database $db, $("$GO" env GOVERSION)" >&2
exec "$GO" run "$GOVULNCHECK" -db "$db" ./...
