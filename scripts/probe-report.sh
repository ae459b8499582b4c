#!/usr/bin/env bash
# Regenerates the hand-written probes' reports, each evaluated in admit mode
# with all three baselines and the built-in gate: eval/probe/probe.jsonl
# into docs/probe-report, every other eval/probe/NAME.jsonl into
# docs/probe-report/NAME (eval's probeReports makes the same pairs).
# eval's TestCommittedProbeReport checks that the committed counts are current.
set -euo pipefail
cd "$(dirname "$0")/.."
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
go build -o "$tmp/memgate" ./cmd/memgate
for cases in eval/probe/*.jsonl; do
  name=$(basename "$cases" .jsonl)
  dir=docs/probe-report
  [ "$name" = probe ] || dir=$dir/$name
  "$tmp/memgate" eval --cases "$cases" --mode admit --report "$dir"
  # The report names the command that made it; name this script.
  sed -i "s|memgate eval --cases $cases --mode admit --report $dir|scripts/probe-report.sh|" "$dir/report.md" "$dir/report.html"
done
