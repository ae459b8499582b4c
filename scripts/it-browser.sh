#!/usr/bin/env bash
# Integration suite: memgate serve called from a real browser. Headless
# chromium loads a page (scripts/browser/page.js, bundled by esbuild with
# npm mem0ai and @modelcontextprotocol/sdk, pinned in scripts/browser) from
# an origin memgate serve allows with --cors-origin, and from one it does
# not. The first must add, admit, search (fetch, Mem0's MemoryClient) and
# call MCP tools with its key, and still be kept to its key's user; the
# second must get no answer, and its write must not reach the store.
#
# It builds memgate and a store in a temporary directory, creates an agent
# key for user alice and one for user bob, installs scripts/browser with
# npm ci into the temporary directory (scripts/itlib.sh), and runs
# scripts/browser/test.mjs, which starts memgate serve, the pages' servers
# and chromium on 127.0.0.1 and stops them. Needs Go, Node.js (18 or later)
# with npm, and chromium (Debian's chromium package; $CHROMIUM names
# another); without chromium it is skipped, unless
# MEMGATE_IT_BROWSER=required or CI=true. Run by scripts/integration.sh;
# alone: bash scripts/it-browser.sh
set -euo pipefail
cd "$(dirname "$0")/.."

it=it-browser
. scripts/itlib.sh

chromium=${CHROMIUM:-$(command -v chromium || command -v chromium-browser || true)}
it_require go node npm
if [ -z "$chromium" ]; then
  # .ci/run installs chromium and requires this suite; elsewhere it is
  # skipped, loudly.
  if [ "${MEMGATE_IT_BROWSER:-}" = required ] || [ "${CI:-}" = true ]; then
    echo "$it: chromium is required (apt-get install chromium, or set CHROMIUM)" >&2
    exit 1
  fi
  echo "$it: SKIPPED: no chromium (apt-get install chromium, or set CHROMIUM)" >&2
  exit 0
fi

it_build
db="$tmp/store.db"
key_alice=$(it_key --principal web-app --role agent --users alice)
key_bob=$(it_key --principal web-app-bob --role agent --users bob)

it_npm scripts/browser
echo "$it: $("$chromium" --version 2>/dev/null | head -n 1)"

cd "$tmp/npm"
MEMGATE_BIN="$bin" MEMGATE_DB="$db" MEMGATE_KEY="$key_alice" MEMGATE_KEY_OTHER="$key_bob" \
  CHROMIUM="$chromium" node test.mjs
