#!/usr/bin/env bash
# scaleout-up.sh DIR: start the scale-out backends with their data under DIR
# and print, on standard output, the shell lines that point memgate (and its
# tests) at them:
#
#   eval "$(bash scripts/scaleout-up.sh "$dir")"   # sets MEMGATE_STORE, MEMGATE_TEST_POSTGRES
#   ...
#   bash scripts/scaleout-down.sh "$dir"            # stops exactly what this started
#
# PostgreSQL 15 (Debian's postgresql-15): a private cluster in DIR/postgres,
# listening on 127.0.0.1 only, on a free port, with its unix socket in
# DIR/postgres/run; a database "memgate" owned by a role "memgate" (with a
# random password, allowed to CREATE DATABASE so that the integration tests
# can make one database per check). Run as root, the cluster runs as the
# postgres OS user, which gets DIR. If the binaries are missing and this runs
# as root where apt-get exists, it installs postgresql-15.
#
# Weaviate (the scale-out index) is left out for now: no MEMGATE_INDEX line
# is printed, and the index stays the default (exact, in memory).
#
# Running it again on a DIR whose cluster is running prints the same lines;
# on a DIR whose cluster was stopped, it starts it again. Everything but the
# export lines goes to standard error.
set -euo pipefail

die() { echo "scaleout-up: $*" >&2; exit 1; }
log() { echo "scaleout-up: $*" >&2; }

[ $# -eq 1 ] && [ -n "$1" ] || die "usage: scaleout-up.sh DIR"
mkdir -p "$1"
dir=$(cd "$1" && pwd -P)

pgbin=${PGBIN:-/usr/lib/postgresql/15/bin}
if [ ! -x "$pgbin/initdb" ]; then
  if [ "$(id -u)" -eq 0 ] && command -v apt-get >/dev/null 2>&1; then
    log "installing postgresql-15 (apt-get)"
    export DEBIAN_FRONTEND=noninteractive
    { apt-get update -qq && apt-get install -y -qq postgresql-15; } >&2 \
      || die "apt-get install postgresql-15 failed"
  fi
  [ -x "$pgbin/initdb" ] || die "no PostgreSQL 15 at $pgbin: apt-get install -y postgresql-15 (or set PGBIN)"
fi

pg="$dir/postgres"
data="$pg/data"
run="$pg/run"
logfile="$pg/postgres.log"
envfile="$pg/env"

# as_owner runs a command as the user the cluster runs as: postgres when
# this runs as root (PostgreSQL refuses to run as root), else the caller.
if [ "$(id -u)" -eq 0 ]; then
  owner=postgres
  id "$owner" >/dev/null 2>&1 || die "there is no postgres OS user to run the cluster as (apt-get install -y postgresql-15 creates it)"
  as_owner() { runuser -u "$owner" -- "$@"; }
else
  owner=$(id -un)
  as_owner() { "$@"; }
fi

# free_port prints a TCP port nobody listens on at 127.0.0.1.
free_port() {
  local p tries
  for tries in $(seq 1 200); do
    p=$(( 20000 + (RANDOM * 32768 + RANDOM) % 40000 ))
    if ! (exec 3<>"/dev/tcp/127.0.0.1/$p") 2>/dev/null; then
      echo "$p"
      return 0
    fi
  done
  return 1
}

running() { [ -f "$data/postmaster.pid" ] && as_owner "$pgbin/pg_ctl" -D "$data" status >/dev/null 2>&1; }

start() {
  as_owner "$pgbin/pg_ctl" -D "$data" -l "$logfile" -w -t 60 start >&2
}

wait_ready() {
  local port=$1 i
  for i in $(seq 1 120); do
    if as_owner "$pgbin/pg_isready" -q -h "$run" -p "$port" -d postgres -U postgres; then
      return 0
    fi
    sleep 0.5
  done
  die "PostgreSQL in $data did not become ready; see $logfile"
}

if [ -f "$envfile" ] && [ -f "$data/PG_VERSION" ]; then
  # A cluster this script made before: start it if it is stopped.
  port=$(sed -n 's/^port=//p' "$pg/port")
  if ! running; then
    log "starting the PostgreSQL cluster in $data (port $port)"
    start || die "could not start PostgreSQL; see $logfile"
  fi
  wait_ready "$port"
  cat "$envfile"
  exit 0
fi
[ ! -e "$data" ] || die "$data exists but was not made by this script; use another DIR"

mkdir -p "$pg" "$run"
if [ "$(id -u)" -eq 0 ]; then
  chown "$owner:" "$dir" "$pg" "$run"
  as_owner test -w "$pg" || die "the $owner OS user cannot write $pg: pick a DIR it can reach (e.g. one from mktemp -d)"
fi
chmod 700 "$pg" "$run"

superpw=$(od -An -tx1 -N16 /dev/urandom | tr -d ' \n')
userpw=$(od -An -tx1 -N16 /dev/urandom | tr -d ' \n')
pwfile=$(mktemp "$pg/pw.XXXXXX")
printf '%s\n' "$superpw" >"$pwfile"
[ "$(id -u)" -ne 0 ] || chown "$owner:" "$pwfile"

log "initdb $data (as $owner)"
as_owner "$pgbin/initdb" -D "$data" -U postgres --pwfile="$pwfile" -E UTF8 --no-locale \
  --auth-local=trust --auth-host=scram-sha-256 >"$pg/initdb.log" 2>&1 \
  || { rm -f "$pwfile"; die "initdb failed; see $pg/initdb.log"; }
rm -f "$pwfile"

# Only 127.0.0.1, and a unix socket in DIR/postgres/run (mode 0700: local
# connections are trusted, since only the owner can reach the socket).
started=""
for attempt in 1 2 3 4 5; do
  port=$(free_port) || die "no free TCP port found"
  as_owner sh -c "cat >>'$data/postgresql.conf'" <<EOF

# scaleout-up.sh (attempt $attempt)
listen_addresses = '127.0.0.1'
port = $port
unix_socket_directories = '$run'
max_connections = 200
EOF
  log "starting PostgreSQL on 127.0.0.1:$port"
  if start; then
    started=yes
    break
  fi
  log "PostgreSQL did not start on port $port (taken meanwhile?); trying another"
done
[ -n "$started" ] || die "could not start PostgreSQL; see $logfile"
echo "port=$port" >"$pg/port"
wait_ready "$port"

as_owner "$pgbin/psql" -X -q -v ON_ERROR_STOP=1 -h "$run" -p "$port" -U postgres -d postgres >&2 <<EOF
CREATE ROLE memgate LOGIN CREATEDB PASSWORD '$userpw';
CREATE DATABASE memgate OWNER memgate;
EOF

url="postgres://memgate:$userpw@127.0.0.1:$port/memgate?sslmode=disable"
{
  echo "# PostgreSQL in $data (127.0.0.1:$port); stop it with scripts/scaleout-down.sh $dir"
  echo "# Weaviate is not started yet: MEMGATE_INDEX stays the default (exact)."
  echo "export MEMGATE_STORE='$url'"
  echo "export MEMGATE_TEST_POSTGRES='$url'"
} >"$envfile"
chmod 600 "$envfile"
cat "$envfile"
