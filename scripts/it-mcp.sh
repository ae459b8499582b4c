#!/usr/bin/env bash
# Integration suite: memgate's MCP server driven by the official TypeScript
# MCP client (@modelcontextprotocol/sdk, pinned in scripts/mcp/package.json
# and its lock file) over both transports: stdio (`memgate mcp`, spawned by
# the client) and streamable HTTP (`memgate serve` at /mcp, on 127.0.0.1).
# Everything it makes lives in a temporary directory, removed on exit, and
# the server it starts is stopped on exit (scripts/itlib.sh). Needs Go and
# Node.js with npm. Run by scripts/integration.sh; alone:
# bash scripts/it-mcp.sh
set -euo pipefail
cd "$(dirname "$0")/.."
it=it-mcp
. scripts/itlib.sh

it_require go node npm
it_build
export MEMGATE_BIN="$bin"

# store: a new store $db with one memory of alice's, and an agent key for
# alice only, printed. Each transport gets a store of its own: what one run
# revokes would otherwise weigh on the other's admissions.
store() {
  mg add --user alice --kind preference "alice takes her coffee black" >/dev/null
  it_key --principal mcp-client --role agent --users alice
}

it_npm scripts/mcp --ignore-scripts

echo "$it: stdio, memgate mcp"
db="$tmp/stdio.db"
key=$(store)
[ -n "$key" ] || { echo "$it: no key" >&2; exit 1; }
(cd "$tmp/npm" && MEMGATE_DB="$db" MEMGATE_KEY="$key" node test.mjs stdio)

echo "$it: streamable HTTP, memgate serve at /mcp"
db="$tmp/http.db"
key=$(store)
[ -n "$key" ] || { echo "$it: no key" >&2; exit 1; }
it_serve
(cd "$tmp/npm" && MEMGATE_DB="$db" MEMGATE_KEY="$key" MEMGATE_URL="$it_url/mcp" node test.mjs http)
it_stop
echo "$it: ok"
