#!/usr/bin/env bash
# pgcluster.sh: a private PostgreSQL cluster for `make run` and `make test`.
#
#   scripts/pgcluster.sh url [DB]  start the cluster if needed and print its
#                                  admin URL, or with DB the URL of that
#                                  database, created when missing
#   scripts/pgcluster.sh stop    stop it
#   scripts/pgcluster.sh status  say whether it runs
#
# The cluster lives in $RELAY_PGDIR (default: .pg/ at the top of the checkout,
# which git ignores) and listens only on 127.0.0.1:$RELAY_PGPORT (default
# 54329), never on a Unix socket, so it neither needs nor disturbs a system
# cluster. When no PostgreSQL server binaries are installed it installs
# Debian's `postgresql` package. initdb refuses to run as root, so as root the
# cluster belongs to an unprivileged system user (postgres, created by that
# package). Progress goes to stderr; stdout carries only the URL.
set -euo pipefail

top=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
pgdir=${RELAY_PGDIR:-$top/.pg}
port=${RELAY_PGPORT:-54329}
data=$pgdir/data
log=$pgdir/postgres.log

say() { printf 'pgcluster: %s\n' "$*" >&2; }
die() { say "$*"; exit 1; }

find_bin() {
	local d
	d=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1 || true)
	[ -n "$d" ] && [ -x "$d/initdb" ] && printf '%s\n' "$d"
}

install_server() {
	say "no PostgreSQL server binaries found; installing Debian's postgresql package"
	local sudo=""
	[ "$(id -u)" -eq 0 ] || sudo="sudo"
	command -v apt-get >/dev/null || die "apt-get is missing: install the PostgreSQL server (15 or newer) by hand, or set DATABASE_URL"
	$sudo env DEBIAN_FRONTEND=noninteractive apt-get update -q >&2
	$sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -q postgresql >&2
}

bin=$(find_bin || true)

# as_owner runs a command as the cluster's owner: ourselves, or when we are
# root an unprivileged user, because postgres will not run as root.
owner=$(id -un)
as_owner() { "$@"; }
if [ "$(id -u)" -eq 0 ]; then
	owner=postgres
	as_owner() { (cd / && runuser -u "$owner" -- "$@"); }
fi

# resolve_dir makes sure the cluster's owner can reach the cluster folder.
# The default folder moves to the temporary directory, under a name made
# from this checkout, when a parent folder is private to root; a folder
# given in RELAY_PGDIR is never moved: it must be reachable.
resolve_dir() {
	[ "$(id -u)" -eq 0 ] && id -u "$owner" >/dev/null 2>&1 || return 0
	local up
	up=$(dirname "$pgdir")
	while [ ! -d "$up" ]; do up=$(dirname "$up"); done
	as_owner test -x "$up" && return 0
	if [ -n "${RELAY_PGDIR:-}" ]; then
		die "user $owner cannot reach $RELAY_PGDIR (a parent folder is private); choose a folder it can reach"
	fi
	pgdir=${TMPDIR:-/tmp}/relay-pg-$(printf '%s' "$top" | md5sum | cut -c1-12)
	data=$pgdir/data log=$pgdir/postgres.log
	say "user $owner cannot reach $top (a parent folder is private); the cluster lives in $pgdir"
}
resolve_dir

cmd=${1:-url}
case "$cmd" in
url) ;;
stop)
	if [ -n "$bin" ] && [ -f "$data/postmaster.pid" ]; then
		as_owner "$bin/pg_ctl" -D "$data" -m fast -w stop >&2
	else
		say "not running"
	fi
	exit 0
	;;
status)
	if [ -n "$bin" ] && [ -d "$data" ] && as_owner "$bin/pg_ctl" -D "$data" status >/dev/null 2>&1; then
		say "running on 127.0.0.1:$port, data in $data"
	else
		say "not running"
		exit 3
	fi
	exit 0
	;;
*) die "unknown command $cmd (want url, stop or status)" ;;
esac

if [ -z "$bin" ]; then
	install_server
	bin=$(find_bin || true)
	[ -n "$bin" ] || die "the postgresql package installed no server binaries under /usr/lib/postgresql"
fi

if [ "$(id -u)" -eq 0 ] && ! id -u "$owner" >/dev/null 2>&1; then
	useradd --system --home-dir /nonexistent --shell /usr/sbin/nologin "$owner"
	resolve_dir
fi

mkdir -p "$pgdir"
if [ "$(id -u)" -eq 0 ]; then
	chown "$owner" "$pgdir"
	chmod 700 "$pgdir"
fi

if [ ! -f "$data/PG_VERSION" ]; then
	say "creating a private cluster in $data"
	rm -rf "$data"
	# trust is safe here: the cluster listens on 127.0.0.1 only and has no
	# Unix socket; it is for development and tests, never for production.
	as_owner "$bin/initdb" -D "$data" -U postgres --auth=trust --encoding=UTF8 --no-locale >"$pgdir/initdb.log" 2>&1 ||
		{ cat "$pgdir/initdb.log" >&2; die "initdb failed"; }
fi

if ! as_owner "$bin/pg_ctl" -D "$data" status >/dev/null 2>&1; then
	if (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then
		die "port $port on 127.0.0.1 is taken by another program; set RELAY_PGPORT to a free port"
	fi
	say "starting PostgreSQL on 127.0.0.1:$port (log: $log)"
	touch "$log"
	[ "$(id -u)" -eq 0 ] && chown "$owner" "$log"
	as_owner "$bin/pg_ctl" -D "$data" -l "$log" -w -t 60 \
		-o "-c listen_addresses=127.0.0.1 -p $port -c unix_socket_directories='' -c max_connections=300 -c autovacuum_naptime=10s" start >&2 ||
		{ tail -n 20 "$log" >&2; die "PostgreSQL did not start"; }
fi

admin="postgres://postgres@127.0.0.1:$port/postgres?sslmode=disable"
db=${2:-}
if [ -z "$db" ]; then
	printf '%s\n' "$admin"
	exit 0
fi
[[ "$db" =~ ^[a-z_][a-z0-9_]*$ ]] || die "database name $db: use lower-case letters, digits and _"
if [ -z "$("$bin/psql" "$admin" -tAc "SELECT 1 FROM pg_database WHERE datname = '$db'")" ]; then
	say "creating database $db"
	"$bin/psql" "$admin" -qc "CREATE DATABASE $db" >&2
fi
printf 'postgres://postgres@127.0.0.1:%s/%s?sslmode=disable\n' "$port" "$db"
