#!/usr/bin/env bash
# Integration suite: memgate serve driven by the real Mem0 platform client,
# the npm package mem0ai's MemoryClient (pinned in scripts/mem0), pointed at
# memgate by its host option. See server/mem0.go for the routes and shapes.
#
# It builds memgate and a store in a temporary directory, creates an agent
# key for user alice and one for user bob, starts memgate serve on
# 127.0.0.1 (a port the system picks), installs scripts/mem0 with npm ci
# into the temporary directory, runs scripts/mem0/test.mjs, and stops the
# server on exit (scripts/itlib.sh). Needs Go and Node.js (18 or later)
# with npm. Run by scripts/integration.sh; alone: bash scripts/it-mem0.sh
set -euo pipefail
cd "$(dirname "$0")/.."
it=it-mem0
. scripts/itlib.sh

it_require go node npm
it_build
db="$tmp/store.db"
key_alice=$(it_key --principal app --role agent --users alice)
key_bob=$(it_key --principal other-app --role agent --users bob)

it_npm scripts/mem0
echo "$it: mem0ai $(node -p 'require(process.argv[1]).version' "$tmp/npm/node_modules/mem0ai/package.json")"

it_serve
cd "$tmp/npm"
MEMGATE_HOST="$it_url" MEMGATE_KEY="$key_alice" MEMGATE_KEY_OTHER="$key_bob" \
  MEM0_TELEMETRY=false MEM0_DIR="$tmp/mem0-home" \
  node test.mjs
