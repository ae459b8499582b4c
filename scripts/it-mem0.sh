#!/usr/bin/env bash
# Integration suite: memgate serve driven by the real Mem0 platform client,
# the npm package mem0ai's MemoryClient (pinned in scripts/mem0), pointed at
# memgate by its host option. See server/mem0.go for the routes and shapes.
#
# It builds memgate and a store in a temporary directory, creates an agent
# key for user alice and one for user bob, starts memgate serve on
# 127.0.0.1 (a port the system picks), waits for /healthz, installs
# scripts/mem0 with npm ci into the temporary directory (node_modules never
# lands in the repository), runs scripts/mem0/test.mjs, and stops the server
# on exit. Needs Go and Node.js (18 or later) with npm. Run by
# scripts/integration.sh; alone: bash scripts/it-mem0.sh
set -euo pipefail
cd "$(dirname "$0")/.."

for tool in go node npm; do
  command -v "$tool" >/dev/null || { echo "it-mem0: $tool is required" >&2; exit 1; }
done

tmp=$(mktemp -d "${TMPDIR:-/tmp}/memgate-it-mem0.XXXXXX")
pid=""
cleanup() {
  status=$?
  if [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null; then
    kill -TERM "$pid" 2>/dev/null || true
    wait "$pid" 2>/dev/null || true
  fi
  if [ "$status" -ne 0 ] && [ -s "$tmp/serve.log" ]; then
    echo "--- memgate serve log" >&2
    tail -n 50 "$tmp/serve.log" >&2
  fi
  rm -rf "$tmp"
  exit "$status"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

echo "it-mem0: building memgate"
go build -o "$tmp/memgate" ./cmd/memgate

db="$tmp/store.db"
# The store is the one named here, with the built-in gate, whatever the
# environment says. (env execs memgate: in the background, $! is its pid.)
mgenv=(env -u MEMGATE_STORE -u MEMGATE_INDEX -u MEMGATE_GATE "$tmp/memgate" --db "$db")
mg() { "${mgenv[@]}" "$@"; }
jsonkey() { node -e 'let s="";process.stdin.on("data",d=>s+=d).on("end",()=>console.log(JSON.parse(s).key))'; }

key_alice=$(mg keys create --principal app --role agent --users alice --json | jsonkey)
key_bob=$(mg keys create --principal other-app --role agent --users bob --json | jsonkey)

echo "it-mem0: installing mem0ai (scripts/mem0/package-lock.json)"
mkdir -p "$tmp/npm"
cp scripts/mem0/package.json scripts/mem0/package-lock.json scripts/mem0/.npmrc scripts/mem0/test.mjs "$tmp/npm/"
(cd "$tmp/npm" && npm ci --no-audit --no-fund --loglevel=error >/dev/null)
echo "it-mem0: mem0ai $(node -p 'require(process.argv[1]).version' "$tmp/npm/node_modules/mem0ai/package.json")"

# Port 0: the system picks a free port; serve logs the address it bound.
"${mgenv[@]}" serve --addr 127.0.0.1:0 2>"$tmp/serve.log" &
pid=$!
host=""
for _ in $(seq 300); do
  host=$(grep -o 'http://127\.0\.0\.1:[0-9]*' "$tmp/serve.log" | head -n 1 || true)
  [ -n "$host" ] && break
  kill -0 "$pid" 2>/dev/null || { echo "it-mem0: memgate serve exited" >&2; exit 1; }
  sleep 0.1
done
[ -n "$host" ] || { echo "it-mem0: memgate serve did not start" >&2; exit 1; }
node -e '
const url = process.argv[1] + "/healthz";
const deadline = Date.now() + 30000;
(async function wait() {
  try { if ((await fetch(url)).ok) return; } catch {}
  if (Date.now() > deadline) { console.error("it-mem0: " + url + " did not answer"); process.exit(1); }
  setTimeout(wait, 100);
})();' "$host"
echo "it-mem0: memgate serve on $host"

cd "$tmp/npm"
MEMGATE_HOST="$host" MEMGATE_KEY="$key_alice" MEMGATE_KEY_OTHER="$key_bob" \
  MEM0_TELEMETRY=false MEM0_DIR="$tmp/mem0-home" \
  node test.mjs
