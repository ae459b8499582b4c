#!/usr/bin/env bash
# Regenerates gate/default.model, the gate built into memgate: trained on the
# built-in suite's train split and calibrated on its dev split (seed 1, 50
# cases per family), with the default training options. gate/train's
# TestDefaultModelIsCurrent checks the shipped model's training-data hash.
set -euo pipefail
cd "$(dirname "$0")/.."
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
go run ./cmd/memgate suite generate --out "$tmp/suite" --seed 1 --per-family 50
go run ./cmd/memgate train --cases "$tmp/suite/train.jsonl" --dev "$tmp/suite/dev.jsonl" --seed 1 --out gate/default.model
