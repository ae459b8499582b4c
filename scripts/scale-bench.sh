#!/usr/bin/env bash
# scale-bench.sh [--memories N] [--users U] [--clients C] [--ingest-clients C]
#                [--duration D] [--out DIR] [--keep]
#
# Speed and scale, embedded vs scale-out, one run side by side (issue 12):
# N memories over U users (N/U each), 384-dimensional vectors, ingested
# through `memgate serve` (POST /v1/memories/batch, 1,000 per request, from
# --ingest-clients clients), then search and admit (k=50) from --clients
# concurrent clients for --duration each, on
#
#   embedded:  memgate serve on a SQLite file with the exact index;
#   scaleout:  memgate serve on PostgreSQL with the Weaviate index
#              (scripts/scaleout-up.sh starts both in a temporary directory).
#
# Both servers embed with `--embedder openai` against a deterministic local
# embedding server (`go run ./scripts/load -embed-server`, 384-d feature
# hashing), and both get the same generated memories and the same queries
# (scripts/load, -seed 1). The backends run one after the other: embedded
# ingest, first search of every user, search, admit, then the same on the
# scale-out pair. Ingest into the scale-out pair is also timed until
# Weaviate holds every memory (an index fed asynchronously may lag the
# acknowledgement). It prints one Markdown table and keeps the JSON results,
# the server logs and a summary of the machine and its load in --out.
#
# Everything it starts (the embedding server, both memgate servers,
# PostgreSQL and Weaviate) is stopped on exit, and the temporary data is
# removed unless --keep is given.
#
#   scripts/scale-bench.sh                                   # 1,000,000 / 1,000
#   scripts/scale-bench.sh --memories 20000 --users 20 --duration 10s
#
# Needs: go, curl, jq, PostgreSQL 15 and weaviate-server (see
# scripts/scaleout-up.sh, which installs or builds them when missing).
set -euo pipefail
cd "$(dirname "$0")/.."
repo=$(pwd)

memories=1000000
users=1000
clients=32
ingest_clients=4
duration=30s
out=""
keep=""
while [ $# -gt 0 ]; do
  case "$1" in
    --memories) memories=$2; shift 2 ;;
    --users) users=$2; shift 2 ;;
    --clients) clients=$2; shift 2 ;;
    --ingest-clients) ingest_clients=$2; shift 2 ;;
    --duration) duration=$2; shift 2 ;;
    --out) out=$2; shift 2 ;;
    --keep) keep=yes; shift ;;
    -h|--help) sed -n '2,34p' "$0"; exit 0 ;;
    *) echo "scale-bench: unknown argument $1 (see --help)" >&2; exit 2 ;;
  esac
done
[ "$memories" -gt 0 ] && [ "$users" -gt 0 ] && [ $((memories % users)) -eq 0 ] ||
  { echo "scale-bench: --memories must be a positive multiple of --users" >&2; exit 2; }
per_user=$((memories / users))
for tool in go curl jq; do
  command -v "$tool" >/dev/null || { echo "scale-bench: $tool is required" >&2; exit 2; }
done

log() { echo "scale-bench: $(date -u +%H:%M:%S) $*" >&2; }

tmp=$(mktemp -d "${TMPDIR:-/tmp}/memgate-scale.XXXXXX")
chmod 755 "$tmp" # scaleout-up.sh hands a subdirectory to the postgres OS user when run as root
[ -n "$out" ] || out=$(mktemp -d "${TMPDIR:-/tmp}/memgate-scale-results.XXXXXX")
mkdir -p "$out"
out=$(cd "$out" && pwd -P)
pids=()
backends=""

cleanup() {
  local status=$?
  set +e
  for pid in "${pids[@]}"; do
    if kill -0 "$pid" 2>/dev/null; then
      kill -TERM "$pid" 2>/dev/null
      for _ in $(seq 1 60); do kill -0 "$pid" 2>/dev/null || break; sleep 0.5; done
      kill -KILL "$pid" 2>/dev/null
    fi
  done
  [ -z "$backends" ] || bash "$repo/scripts/scaleout-down.sh" "$backends" >/dev/null 2>&1
  if [ -n "$keep" ]; then
    log "kept the data in $tmp"
  else
    rm -rf "$tmp"
  fi
  exit "$status"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# wait_addr LOGFILE PATTERN PID: waits for PATTERN's line in LOGFILE (where
# a server prints the address it bound) and prints the address.
wait_addr() {
  local i addr
  for i in $(seq 1 600); do
    # The log may not exist yet: the server's shell opens it after the fork.
    addr=$(sed -n "s|.*$2 http://\([0-9.:]*\).*|\1|p" "$1" 2>/dev/null | head -1 || true)
    if [ -n "$addr" ]; then echo "$addr"; return 0; fi
    kill -0 "$3" 2>/dev/null || { cat "$1" >&2; return 1; }
    sleep 0.2
  done
  cat "$1" >&2
  return 1
}

machine() {
  echo "date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
  echo "commit: $(git -C "$repo" rev-parse --short HEAD 2>/dev/null || echo unknown)$(git -C "$repo" diff --quiet HEAD -- 2>/dev/null || echo ' (with uncommitted changes)')"
  echo "cpus: $(nproc), $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ *//')"
  echo "memory: $(free -g | awk '/^Mem:/ {print $2 " GiB total, " $7 " GiB available"}')"
  echo "go: $(go version | cut -d' ' -f3)"
  echo "memories: $memories, users: $users ($per_user each), clients: $clients, ingest clients: $ingest_clients, duration: $duration"
}

loadavg() { cut -d' ' -f1-3 /proc/loadavg; }

# ticks PID...: the CPU time (user + system, in clock ticks) the processes
# have used so far.
ticks() {
  local t=0 p v
  for p in "$@"; do
    v=$(awk '{print $14 + $15}' "/proc/$p/stat" 2>/dev/null) || continue
    t=$((t + ${v:-0}))
  done
  echo "$t"
}
hz=$(getconf CLK_TCK)
# pg_pids: the postmaster and its children (the backends serving memgate).
pg_pids() {
  local pm
  pm=$(head -1 "$backends/postgres/data/postmaster.pid" 2>/dev/null) || return 0
  echo "$pm" $(pgrep -P "$pm")
}
# cpu_mark: the CPU ticks so far of the memgate server ($1), Weaviate,
# PostgreSQL and the embedding server, space-separated.
cpu_mark() {
  echo "$(ticks "$1") $(ticks "$weaviate_pid") $(ticks $(pg_pids)) $(ticks "$embed_pid")"
}
# cpu_report BEFORE AFTER SECONDS: the CPU seconds each used in between.
cpu_report() {
  local -a a=($1) b=($2)
  awk -v hz="$hz" -v s="$3" -v m=$((b[0] - a[0])) -v w=$((b[1] - a[1])) -v p=$((b[2] - a[2])) -v e=$((b[3] - a[3])) \
    'BEGIN { printf "CPU seconds in %.0f s of wall time: memgate %.1f, weaviate %.1f, postgres %.1f, embedder %.1f\n", s, m/hz, w/hz, p/hz, e/hz }'
}
rss_mib() { awk '/^VmRSS:/ {printf "%.0f", $2/1024}' "/proc/$1/status" 2>/dev/null || echo "?"; }

log "building memgate and scripts/load into $tmp/bin"
go build -o "$tmp/bin/memgate" ./cmd/memgate
go build -o "$tmp/bin/load" ./scripts/load
memgate="$tmp/bin/memgate"
load="$tmp/bin/load"
machine >"$out/machine.txt"
echo "load average at start: $(loadavg)" >>"$out/machine.txt"

# The embedding server, shared by both memgate servers.
"$load" -embed-server 127.0.0.1:0 -dim 384 2>"$out/embed.log" &
embed_pid=$!
pids+=("$embed_pid")
embed_addr=$(wait_addr "$out/embed.log" "embeddings on" "$embed_pid")
export MEMGATE_EMBED_BASE_URL="http://$embed_addr/v1"
export MEMGATE_EMBED_MODEL=memgate-scale-hash-384
export MEMGATE_EMBED_DIM=384
unset MEMGATE_EMBED_API_KEY OPENAI_API_KEY MEMGATE_CONFIG MEMGATE_GATE
log "embedding server on $embed_addr"

# Weaviate keeps a few files open per tenant (one per user): lift the
# limit of open files where we may.
ulimit -n 65536 2>/dev/null || ulimit -n "$(ulimit -Hn)" 2>/dev/null || true
log "starting PostgreSQL and Weaviate (scripts/scaleout-up.sh)"
backends="$tmp/backends"
scaleout_env=$(bash scripts/scaleout-up.sh "$backends")
scaleout_store=$(eval "$scaleout_env"; echo "$MEMGATE_STORE")
scaleout_index=$(eval "$scaleout_env"; echo "$MEMGATE_INDEX")
weaviate_url=$(eval "$scaleout_env"; echo "$MEMGATE_TEST_WEAVIATE")
# The Weaviate server takes an API key (scaleout-up.sh): memgate serve and
# the load generator's -wait-weaviate read it from here.
MEMGATE_WEAVIATE_API_KEY=$(eval "$scaleout_env"; echo "${MEMGATE_WEAVIATE_API_KEY:-}")
export MEMGATE_WEAVIATE_API_KEY
weaviate_pid=$(cat "$backends/weaviate/pid")

# bench NAME STORE INDEX: one backend's whole run.
bench() {
  local name=$1 store=$2 index=$3 key pid addr wait=()
  [ "$name" != scaleout ] || wait=(-wait-weaviate "$weaviate_url")
  key=$(env -u MEMGATE_STORE -u MEMGATE_INDEX "$memgate" --store "$store" --index "$index" --embedder openai \
    keys create --principal scale-bench --role admin --users '*' 2>>"$out/$name-serve.log")
  env -u MEMGATE_STORE -u MEMGATE_INDEX "$memgate" --store "$store" --index "$index" --embedder openai \
    serve --addr 127.0.0.1:0 2>>"$out/$name-serve.log" &
  pid=$!
  pids+=("$pid")
  addr=$(wait_addr "$out/$name-serve.log" "on" "$pid")
  log "$name: memgate serve (pid $pid) on $addr"
  export MEMGATE_KEY=$key
  local common=(-server "http://$addr" -users "$users" -seed 1)
  echo "$name ingest: load average before $(loadavg)" >>"$out/machine.txt"
  log "$name: ingesting $memories memories ($users users × $per_user) with $ingest_clients clients"
  local c0 c1 t0 t1
  c0=$(cpu_mark "$pid") t0=$(date +%s.%N)
  "$load" "${common[@]}" -op ingest -per-user "$per_user" -batch 1000 -clients "$ingest_clients" "${wait[@]}" \
    >"$out/$name-ingest.json" 2>>"$out/$name-load.log"
  c1=$(cpu_mark "$pid") t1=$(date +%s.%N)
  echo "$name ingest: $(cpu_report "$c0" "$c1" "$(awk -v a="$t0" -v b="$t1" 'BEGIN { print b - a }')")" >>"$out/machine.txt"
  log "$name: ingest $(jq -c '{memoriesPerSecond, indexedPerSecond, seconds, errors}' "$out/$name-ingest.json")"
  echo "$name after ingest: memgate serve RSS $(rss_mib "$pid") MiB, weaviate RSS $(rss_mib "$weaviate_pid") MiB ($(ls "/proc/$weaviate_pid/fd" 2>/dev/null | wc -l) open files), /tmp $(df -h /tmp | awk 'NR==2 {print $4}') free" >>"$out/machine.txt"
  echo "$name warm: load average before $(loadavg)" >>"$out/machine.txt"
  "$load" "${common[@]}" -op warm -clients "$clients" >"$out/$name-warm.json" 2>>"$out/$name-load.log"
  log "$name: first search of every user $(jq -c '{seconds, errors}' "$out/$name-warm.json")"
  for op in search admit; do
    echo "$name $op: load average before $(loadavg)" >>"$out/machine.txt"
    c0=$(cpu_mark "$pid") t0=$(date +%s.%N)
    "$load" "${common[@]}" -op "$op" -clients "$clients" -duration "$duration" \
      >"$out/$name-$op.json" 2>>"$out/$name-load.log" || log "$name: $op had errors (see $out/$name-load.log)"
    c1=$(cpu_mark "$pid") t1=$(date +%s.%N)
    echo "$name $op: $(cpu_report "$c0" "$c1" "$(awk -v a="$t0" -v b="$t1" 'BEGIN { print b - a }')")" >>"$out/machine.txt"
    log "$name: $op $(jq -c '{requestsPerSecond, p50ms, p99ms, errors}' "$out/$name-$op.json")"
  done
  echo "$name after the run: load average $(loadavg), memgate serve RSS $(rss_mib "$pid") MiB, weaviate RSS $(rss_mib "$weaviate_pid") MiB" >>"$out/machine.txt"
  kill -TERM "$pid"
  wait "$pid" 2>/dev/null || true
}

bench embedded "sqlite:$tmp/embedded.db" exact
echo "embedded disk: $(du -sh "$tmp"/embedded.db* 2>/dev/null | awk '{print $1}' | paste -sd+ -) (SQLite file, WAL)" >>"$out/machine.txt"
bench scaleout "$scaleout_store" "$scaleout_index"
echo "scaleout disk: PostgreSQL $(du -sh "$backends/postgres/data" | cut -f1), Weaviate $(du -sh "$backends/weaviate/data" | cut -f1)" >>"$out/machine.txt"
echo "load average at the end: $(loadavg)" >>"$out/machine.txt"

"$load" -table "$out" | tee "$out/table.md"
echo
cat "$out/machine.txt"
log "results in $out"
