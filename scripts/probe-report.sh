#!/usr/bin/env bash
# Regenerates the hand-written probes' reports, each evaluated in admit mode
# with all three baselines and the built-in gate:
#   eval/probe/probe.jsonl    -> docs/probe-report
#   eval/probe/updates.jsonl  -> docs/probe-report/updates
#   eval/probe/feedback.jsonl -> docs/probe-report/feedback
# eval's TestCommittedProbeReport checks that the committed counts are current.
set -euo pipefail
cd "$(dirname "$0")/.."
report() { # cases dir
  go run ./cmd/memgate eval --cases "$1" --mode admit --report "$2"
  # The report names the command that made it; name this script.
  sed -i "s|memgate eval --cases $1 --mode admit --report $2|scripts/probe-report.sh|" "$2/report.md" "$2/report.html"
}
report eval/probe/probe.jsonl docs/probe-report
report eval/probe/updates.jsonl docs/probe-report/updates
report eval/probe/feedback.jsonl docs/probe-report/feedback
