#!/usr/bin/env bash
# Integration tests against a running memgate serve, with real clients from
# npm: each scripts/it-*.sh is one suite. It builds memgate, installs the npm
# clients into a temporary directory, starts what each suite needs on
# 127.0.0.1 and stops it. Needs Go and Node.js (with npm); it-browser.sh
# also needs chromium, and is skipped without it unless
# MEMGATE_IT_BROWSER=required (as .ci/run sets) or CI=true.
set -euo pipefail
cd "$(dirname "$0")/.."
shopt -s nullglob
suites=(scripts/it-*.sh)
if [ ${#suites[@]} -eq 0 ]; then
  echo "integration: no suites"
  exit 0
fi
for s in "${suites[@]}"; do
  echo "== $s"
  bash "$s"
done
