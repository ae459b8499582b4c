#!/usr/bin/env bash
# Regenerates docs/eval-report: the built-in suite's test split (seed 1, 50
# cases per family), evaluated in admit mode with all three baselines.
# eval/suite's TestCommittedReport checks that the committed counts are current.
set -euo pipefail
cd "$(dirname "$0")/.."
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
go run ./cmd/memgate suite generate --out "$tmp/suite" --seed 1 --per-family 50
go run ./cmd/memgate eval --cases "$tmp/suite/test.jsonl" --mode admit --report docs/eval-report
# The report names the command that made it; name this script, not the temp path.
sed -i "s|memgate eval --cases $tmp/suite/test.jsonl --mode admit --report docs/eval-report|scripts/eval-report.sh|" \
  docs/eval-report/report.md docs/eval-report/report.html
