#!/usr/bin/env bash
# scaleout-down.sh DIR: stop what scripts/scaleout-up.sh DIR started: the
# Weaviate server whose pid is in DIR/weaviate/pid (SIGTERM, then SIGKILL
# after 30 seconds; only if that pid is still a weaviate-server) and the
# PostgreSQL cluster whose data is in DIR/postgres/data (pg_ctl stop on that
# data directory), and nothing else. The data stays in DIR; remove DIR to
# drop it. Stopping a DIR whose servers are not running does nothing.
set -euo pipefail

die() { echo "scaleout-down: $*" >&2; exit 1; }

[ $# -eq 1 ] && [ -n "$1" ] || die "usage: scaleout-down.sh DIR"
[ -d "$1" ] || die "$1 is not a directory"
dir=$(cd "$1" && pwd -P)

# Weaviate: the one process whose pid scaleout-up.sh recorded.
wvpidfile="$dir/weaviate/pid"
if [ -f "$wvpidfile" ]; then
  pid=$(cat "$wvpidfile")
  if [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null &&
    tr '\0' ' ' <"/proc/$pid/cmdline" 2>/dev/null | grep weaviate-server >/dev/null; then
    echo "scaleout-down: stopping Weaviate (pid $pid)" >&2
    kill -TERM "$pid" 2>/dev/null || true
    for _ in $(seq 1 60); do
      kill -0 "$pid" 2>/dev/null || break
      sleep 0.5
    done
    if kill -0 "$pid" 2>/dev/null; then
      echo "scaleout-down: Weaviate (pid $pid) did not stop in 30s; killing it" >&2
      kill -KILL "$pid" 2>/dev/null || true
    fi
  else
    echo "scaleout-down: Weaviate (pid ${pid:-?}) is not running" >&2
  fi
  rm -f "$wvpidfile"
else
  echo "scaleout-down: no Weaviate started in $dir/weaviate" >&2
fi

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
