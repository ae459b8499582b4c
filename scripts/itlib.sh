# What the integration suites (scripts/it-*.sh) share; not a suite itself.
# A suite sets it=NAME (its name in messages), cds to the repository's root
# and sources this file, which makes a temporary directory $tmp and, on
# exit, stops the server it_serve started, shows the end of its log if the
# suite failed, and removes $tmp. Then:
#
#   it_require TOOL...   exit unless every tool is on PATH
#   it_build             build memgate into $tmp/memgate ($bin)
#   mg ARG...            run it on the store $db (set it first)
#   it_key ARG...        print the key `mg keys create ARG... --json` makes
#   it_npm DIR [FLAG...] copy DIR's files (a package.json, its lock file,
#                        the test) into $tmp/npm and install them there with
#                        npm ci, so node_modules never lands in the repository
#   it_serve [ARG...]    start `mg serve --addr 127.0.0.1:0 ARG...` (the
#                        system picks a free port), wait until its /healthz
#                        answers, and set $it_url to its address
#   it_stop              stop it with SIGTERM; fail unless it exits cleanly
#
# The store is the one a suite names, with the built-in gate, whatever the
# environment says: MEMGATE_STORE, MEMGATE_INDEX and MEMGATE_GATE are unset
# for the suite and every process it starts.
# shellcheck shell=bash

unset MEMGATE_STORE MEMGATE_INDEX MEMGATE_GATE
tmp=$(mktemp -d "${TMPDIR:-/tmp}/memgate-$it.XXXXXX")
bin="$tmp/memgate"
it_pid=""
it_url=""

it_cleanup() {
  local status=$?
  if [ -n "$it_pid" ] && kill -0 "$it_pid" 2>/dev/null; then
    kill -TERM "$it_pid" 2>/dev/null || true
    wait "$it_pid" 2>/dev/null || true
  fi
  if [ "$status" -ne 0 ] && [ -s "$tmp/serve.log" ]; then
    echo "--- $it: end of the memgate serve log" >&2
    tail -n 50 "$tmp/serve.log" >&2
  fi
  rm -rf "$tmp"
  exit "$status"
}
trap it_cleanup EXIT
trap 'exit 130' INT TERM

it_require() {
  local tool
  for tool in "$@"; do
    command -v "$tool" >/dev/null || { echo "$it: $tool is required" >&2; exit 1; }
  done
}

it_build() {
  echo "$it: building memgate"
  go build -o "$bin" ./cmd/memgate
}

mg() { "$bin" --db "$db" "$@"; }

it_key() {
  mg keys create "$@" --json |
    node -e 'let s="";process.stdin.on("data",d=>s+=d).on("end",()=>process.stdout.write(JSON.parse(s).key))'
}

it_npm() {
  local dir=$1
  shift
  echo "$it: installing $dir/package-lock.json"
  mkdir -p "$tmp/npm"
  find "$dir" -maxdepth 1 -type f -exec cp {} "$tmp/npm/" \;
  (cd "$tmp/npm" && npm ci --no-audit --no-fund --loglevel=error "$@" >/dev/null)
}

it_serve() {
  : >"$tmp/serve.log" # there before the server's shell opens it: the loop below reads it
  # Run directly, not through mg, so that $! is memgate's pid.
  "$bin" --db "$db" serve --addr 127.0.0.1:0 "$@" 2>"$tmp/serve.log" &
  it_pid=$!
  it_url=""
  local _
  for _ in $(seq 300); do
    it_url=$(grep -o 'http://127\.0\.0\.1:[0-9]*' "$tmp/serve.log" | head -n 1 || true)
    [ -n "$it_url" ] && break
    kill -0 "$it_pid" 2>/dev/null || { echo "$it: memgate serve exited" >&2; exit 1; }
    sleep 0.1
  done
  [ -n "$it_url" ] || { echo "$it: memgate serve did not start" >&2; exit 1; }
  node -e '
const url = process.argv[1] + "/healthz";
const deadline = Date.now() + 30000;
(async function wait() {
  try { if ((await fetch(url)).ok) return; } catch {}
  if (Date.now() > deadline) { console.error(url + " did not answer"); process.exit(1); }
  setTimeout(wait, 100);
})();' "$it_url"
  echo "$it: memgate serve on $it_url"
}

it_stop() {
  kill -TERM "$it_pid"
  if ! wait "$it_pid"; then
    it_pid=""
    echo "$it: memgate serve did not stop cleanly" >&2
    exit 1
  fi
  it_pid=""
}
