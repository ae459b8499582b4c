#!/usr/bin/env bash
# Integration suite: memgate's MCP server driven by the official TypeScript
# MCP client (@modelcontextprotocol/sdk, pinned in scripts/mcp/package.json
# and its lock file) over both transports: stdio (`memgate mcp`, spawned by
# the client) and streamable HTTP (`memgate serve` at /mcp, on 127.0.0.1).
# Everything it makes lives in a temporary directory, removed on exit, and
# the server it starts is stopped on exit. Needs Go and Node.js with npm.
set -euo pipefail
cd "$(dirname "$0")/.."

tmp=$(mktemp -d)
server_pid=""
cleanup() {
  if [ -n "$server_pid" ]; then
    kill -TERM "$server_pid" 2>/dev/null || true
    wait "$server_pid" 2>/dev/null || true
  fi
  rm -rf "$tmp"
}
trap cleanup EXIT

echo "-- build memgate"
go build -o "$tmp/memgate" ./cmd/memgate
bin="$tmp/memgate"
export MEMGATE_BIN="$bin"

# store DB: a new store with one memory of alice's, and an agent key for
# alice only, printed. Each transport gets a store of its own: what one run
# revokes would otherwise weigh on the other's admissions.
store() {
  "$bin" --db "$1" add --user alice --kind preference "alice takes her coffee black" >/dev/null
  "$bin" --db "$1" keys create --principal mcp-client --role agent --users alice --json |
    node -e 'let s="";process.stdin.on("data",d=>s+=d).on("end",()=>process.stdout.write(JSON.parse(s).key))'
}

echo "-- install the TypeScript MCP client"
mkdir "$tmp/client"
cp scripts/mcp/package.json scripts/mcp/package-lock.json scripts/mcp/test.mjs "$tmp/client/"
(cd "$tmp/client" && npm ci --no-audit --no-fund --ignore-scripts --loglevel=error >/dev/null)

echo "-- stdio: memgate mcp"
db="$tmp/stdio.db"
key=$(store "$db")
[ -n "$key" ] || { echo "no key"; exit 1; }
(cd "$tmp/client" && MEMGATE_DB="$db" MEMGATE_KEY="$key" node test.mjs stdio)

echo "-- streamable HTTP: memgate serve, /mcp"
db="$tmp/http.db"
key=$(store "$db")
[ -n "$key" ] || { echo "no key"; exit 1; }
: >"$tmp/serve.log" # made before the server starts: the loop below may read it before the server's shell has opened it
"$bin" --db "$db" serve --addr 127.0.0.1:0 2>"$tmp/serve.log" &
server_pid=$!
addr=""
for _ in $(seq 1 100); do
  addr=$(sed -n 's|.* on http://\(127\.0\.0\.1:[0-9]*\)$|\1|p' "$tmp/serve.log" | head -n1)
  [ -n "$addr" ] && break
  kill -0 "$server_pid" 2>/dev/null || { cat "$tmp/serve.log"; echo "memgate serve exited"; exit 1; }
  sleep 0.1
done
[ -n "$addr" ] || { cat "$tmp/serve.log"; echo "memgate serve did not start"; exit 1; }
(cd "$tmp/client" && MEMGATE_DB="$db" MEMGATE_KEY="$key" MEMGATE_URL="http://$addr/mcp" node test.mjs http)

kill -TERM "$server_pid"
wait "$server_pid" || { cat "$tmp/serve.log"; echo "memgate serve did not stop cleanly"; exit 1; }
server_pid=""
echo "it-mcp: ok"
