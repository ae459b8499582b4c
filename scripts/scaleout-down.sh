#!/usr/bin/env bash
# scaleout-down.sh DIR: stop what scripts/scaleout-up.sh DIR started: the
# PostgreSQL cluster whose data is in DIR/postgres/data, and nothing else
# (pg_ctl stop on that data directory). The data stays in DIR; remove DIR to
# drop it. Stopping a DIR whose cluster is not running does nothing.
set -euo pipefail

die() { echo "scaleout-down: $*" >&2; exit 1; }

[ $# -eq 1 ] && [ -n "$1" ] || die "usage: scaleout-down.sh DIR"
[ -d "$1" ] || die "$1 is not a directory"
dir=$(cd "$1" && pwd -P)
pgbin=${PGBIN:-/usr/lib/postgresql/15/bin}
data="$dir/postgres/data"

if [ ! -f "$data/PG_VERSION" ]; then
  echo "scaleout-down: no PostgreSQL cluster in $data" >&2
  exit 0
fi
if [ ! -f "$data/postmaster.pid" ]; then
  echo "scaleout-down: PostgreSQL in $data is not running" >&2
  exit 0
fi

# pg_ctl refuses to run as root: run it as the cluster's owner.
owner=$(stat -c %U "$data")
if [ "$(id -u)" -eq 0 ] && [ "$owner" != root ]; then
  as_owner() { runuser -u "$owner" -- "$@"; }
else
  as_owner() { "$@"; }
fi
echo "scaleout-down: stopping PostgreSQL in $data" >&2
as_owner "$pgbin/pg_ctl" -D "$data" -m fast -w -t 60 stop >&2
