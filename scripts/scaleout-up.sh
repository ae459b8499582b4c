#!/usr/bin/env bash
# scaleout-up.sh DIR: start the scale-out backends with their data under DIR
# and print, on standard output, the shell lines that point memgate (and its
# tests) at them:
#
#   eval "$(bash scripts/scaleout-up.sh "$dir")"   # sets MEMGATE_STORE, MEMGATE_TEST_POSTGRES,
#                                                  # MEMGATE_INDEX, MEMGATE_TEST_WEAVIATE
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
# Weaviate 1.35 (the scale-out index): the weaviate-server binary
# ($WEAVIATE_BIN, default $HOME/go/bin/weaviate-server; if it is missing,
# it is built with `go install
# github.com/weaviate/weaviate/cmd/weaviate-server@v1.35.2`, about ten
# minutes cold), one node listening for REST on 127.0.0.1, with its data in
# DIR/weaviate/data, API-key authentication with a random key (kept in
# DIR/weaviate/apikey; anonymous access off), no vectorizer, no telemetry,
# and every port it opens (REST, gRPC, gossip, data, Raft, Raft RPC) a free
# one; its pid is kept in DIR/weaviate/pid for scaleout-down.sh. Weaviate
# 1.35.2 binds two of those ports, gRPC and the cluster data (internal API)
# port, on all interfaces (its code listens on ":PORT"; no setting changes
# that): on a host reachable from others, firewall them. It prints
# MEMGATE_INDEX (weaviate://127.0.0.1:PORT?grpc=GRPCPORT),
# MEMGATE_TEST_WEAVIATE (http://127.0.0.1:PORT?grpc=GRPCPORT) and
# MEMGATE_WEAVIATE_API_KEY.
#
# Running it again on a DIR whose servers are running prints the same lines;
# on a DIR whose servers were stopped, it starts them again. Everything but
# the export lines goes to standard error.
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
  pg_reused=yes
fi
if [ -z "${pg_reused:-}" ]; then
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
  echo "export MEMGATE_STORE='$url'"
  echo "export MEMGATE_TEST_POSTGRES='$url'"
} >"$envfile"
chmod 600 "$envfile"
fi

# --- Weaviate ---------------------------------------------------------------

wvbin=${WEAVIATE_BIN:-$HOME/go/bin/weaviate-server}
wvversion=v1.35.2
wv="$dir/weaviate"
wvdata="$wv/data"
wvpidfile="$wv/pid"
wvlog="$wv/weaviate.log"
wvenv="$wv/env"

if [ ! -x "$wvbin" ]; then
  command -v go >/dev/null 2>&1 || die "no weaviate-server at $wvbin and no go to build it (set WEAVIATE_BIN)"
  log "building weaviate-server $wvversion into $(dirname "$wvbin") (go install; ~10 minutes cold)"
  GOBIN=$(dirname "$wvbin") go install "github.com/weaviate/weaviate/cmd/weaviate-server@$wvversion" >&2 \
    || die "go install weaviate-server@$wvversion failed"
  [ -x "$wvbin" ] || die "go install did not produce $wvbin"
fi

# wv_alive reports whether the pid in DIR/weaviate/pid is a running
# weaviate-server (not some other process that reused the pid).
wv_alive() {
  local pid
  [ -f "$wvpidfile" ] || return 1
  pid=$(cat "$wvpidfile")
  [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null || return 1
  tr '\0' ' ' <"/proc/$pid/cmdline" 2>/dev/null | grep weaviate-server >/dev/null
}

wv_ready() {
  curl -fsS -o /dev/null --max-time 2 "http://127.0.0.1:$1/v1/.well-known/ready" 2>/dev/null
}

# wv_start starts weaviate-server on the ports in DIR/weaviate/ports and
# waits until it is ready; it fails if the server exits first (a port taken
# meanwhile, say) or is not ready within two minutes.
wv_start() {
  # shellcheck disable=SC1090
  . "$wv/ports"
  log "starting Weaviate on 127.0.0.1:$http_port (gRPC $grpc_port)"
  # Quote nothing from the environment into the server: it gets only what
  # it needs, plus PATH and HOME.
  nohup env -i PATH="$PATH" HOME="$HOME" \
    PERSISTENCE_DATA_PATH="$wvdata" \
    AUTHENTICATION_ANONYMOUS_ACCESS_ENABLED=false \
    AUTHENTICATION_APIKEY_ENABLED=true \
    AUTHENTICATION_APIKEY_ALLOWED_KEYS="$wvkey" \
    AUTHENTICATION_APIKEY_USERS=memgate \
    DEFAULT_VECTORIZER_MODULE=none \
    ENABLE_MODULES= \
    DISABLE_TELEMETRY=true \
    GO_PROFILING_DISABLE=true \
    PROMETHEUS_MONITORING_ENABLED=false \
    QUERY_DEFAULTS_LIMIT=25 \
    QUERY_MAXIMUM_RESULTS=10000 \
    CLUSTER_HOSTNAME=node1 \
    CLUSTER_ADVERTISE_ADDR=127.0.0.1 \
    CLUSTER_BIND_ADDR=127.0.0.1 \
    CLUSTER_GOSSIP_BIND_PORT="$gossip_port" \
    CLUSTER_DATA_BIND_PORT="$data_port" \
    RAFT_PORT="$raft_port" \
    RAFT_INTERNAL_RPC_PORT="$raft_rpc_port" \
    RAFT_BOOTSTRAP_EXPECT=1 \
    RAFT_JOIN=node1 \
    GRPC_PORT="$grpc_port" \
    "$wvbin" --host 127.0.0.1 --port "$http_port" --scheme http \
    >>"$wvlog" 2>&1 </dev/null &
  local pid=$! i
  echo "$pid" >"$wvpidfile"
  for i in $(seq 1 240); do
    # Not wv_alive: until nohup and env have exec'd, the pid's command
    # line is theirs.
    if ! kill -0 "$pid" 2>/dev/null; then
      return 1
    fi
    if wv_ready "$http_port"; then
      return 0
    fi
    sleep 0.5
  done
  return 1
}

mkdir -p "$wv" "$wvdata"
chmod 700 "$wv"
# The server's API key, made once per DIR. A server that an older version
# of this script started without one (anonymous) is left as it is, and no
# key is printed for it.
wvkeyfile="$wv/apikey"
if [ ! -f "$wvkeyfile" ] && ! wv_alive; then
  (umask 077 && od -An -tx1 -N24 /dev/urandom | tr -d ' \n' >"$wvkeyfile")
fi
wvkey=$(cat "$wvkeyfile" 2>/dev/null || true)
if wv_alive; then
  # shellcheck disable=SC1090
  . "$wv/ports"
  for i in $(seq 1 240); do wv_ready "$http_port" && break; sleep 0.5; done
  wv_ready "$http_port" || die "Weaviate (pid $(cat "$wvpidfile")) is running but not ready; see $wvlog"
elif [ -f "$wv/ports" ]; then
  # A server this script started before, now stopped: start it again on
  # the same ports (the Raft state remembers them).
  wv_start || die "could not start Weaviate again; see $wvlog"
else
  started=""
  for attempt in 1 2 3; do
    {
      echo "http_port=$(free_port)"
      echo "grpc_port=$(free_port)"
      echo "gossip_port=$(free_port)"
      echo "data_port=$(free_port)"
      echo "raft_port=$(free_port)"
      echo "raft_rpc_port=$(free_port)"
    } >"$wv/ports"
    if wv_start; then
      started=yes
      break
    fi
    # The server this attempt started, if it is still up (not ready in
    # time): stop it before trying again.
    pid=$(cat "$wvpidfile")
    if kill -0 "$pid" 2>/dev/null; then
      kill -TERM "$pid" 2>/dev/null || true
      for _ in $(seq 1 60); do kill -0 "$pid" 2>/dev/null || break; sleep 0.5; done
      kill -KILL "$pid" 2>/dev/null || true
    fi
    rm -f "$wvpidfile"
    rm -rf "$wvdata" && mkdir -p "$wvdata"
    log "Weaviate did not start (a port taken meanwhile?); trying other ports"
  done
  [ -n "$started" ] || { rm -f "$wv/ports"; die "could not start Weaviate; see $wvlog"; }
fi
# shellcheck disable=SC1090
. "$wv/ports"
{
  echo "# Weaviate in $wvdata (127.0.0.1:$http_port, gRPC $grpc_port, pid $(cat "$wvpidfile")); stop it with scripts/scaleout-down.sh $dir"
  echo "export MEMGATE_INDEX='weaviate://127.0.0.1:$http_port?grpc=$grpc_port'"
  echo "export MEMGATE_TEST_WEAVIATE='http://127.0.0.1:$http_port?grpc=$grpc_port'"
  [ -z "$wvkey" ] || echo "export MEMGATE_WEAVIATE_API_KEY='$wvkey'"
} >"$wvenv"
chmod 600 "$wvenv"

cat "$envfile" "$wvenv"
