#!/usr/bin/env bash
# Regenerates docs/probe-report: the hand-written probe (eval/probe), evaluated
# in admit mode with all three baselines and the built-in gate.
# eval's TestCommittedProbeReport checks that the committed counts are current.
set -euo pipefail
cd "$(dirname "$0")/.."
go run ./cmd/memgate eval --cases eval/probe/probe.jsonl --mode admit --report docs/probe-report
# The report names the command that made it; name this script.
sed -i "s|memgate eval --cases eval/probe/probe.jsonl --mode admit --report docs/probe-report|scripts/probe-report.sh|" \
  docs/probe-report/report.md docs/probe-report/report.html
