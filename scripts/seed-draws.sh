#!/usr/bin/env bash
# Retrains the shipped gate's setup (as scripts/train-default-gate.sh does,
# with the same data and options) with other seeds, and runs the gate
# package's tests against each retraining ($MEMGATE_TEST_GATE): which of the
# tests that read the shipped model's fit another draw of its training
# passes. The shipped model is one draw; a test that only it passes guards
# that draw, not the design (docs/gate.md, "One training's draw").
#
# Usage: scripts/seed-draws.sh [SEED...]   (default: 2 3)
# Other training flags of scripts/gatereport go in $SEED_DRAWS_FLAGS,
# e.g. SEED_DRAWS_FLAGS="-members 9". About 20 s of training per seed.
set -euo pipefail
cd "$(dirname "$0")/.."
seeds=("$@")
[ ${#seeds[@]} -gt 0 ] || seeds=(2 3)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
go build -o "$tmp/gatereport" ./scripts/gatereport
go test -c -o "$tmp/gate.test" ./gate
for s in "${seeds[@]}"; do
  # shellcheck disable=SC2086 # the flags are words
  if ! "$tmp/gatereport" -train-default "$tmp/seed$s.model" -seed "$s" ${SEED_DRAWS_FLAGS:-} >"$tmp/train.log" 2>&1; then
    cat "$tmp/train.log" >&2
    exit 1
  fi
  rc=0
  (cd gate && MEMGATE_TEST_GATE="$tmp/seed$s.model" "$tmp/gate.test" -test.count=1) >"$tmp/test.log" 2>&1 || rc=$?
  failed=$(sed -n 's/^--- FAIL: \([^ ]*\).*/\1/p' "$tmp/test.log" | sort -u | tr '\n' ' ')
  if [ "$rc" -eq 0 ]; then
    echo "seed $s: every test passes"
  elif [ -n "$failed" ]; then
    echo "seed $s: fails ${failed% }"
  else
    echo "seed $s: the tests did not run to the end:" >&2
    tail -20 "$tmp/test.log" >&2
    exit 1
  fi
done
