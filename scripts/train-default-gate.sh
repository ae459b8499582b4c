#!/usr/bin/env bash
# Regenerates gate/default.model, the gate built into memgate: trained on the
# built-in suite's train split (seed 1, 50 cases per family) and 80% of every
# public dataset in data/public, early-stopped and calibrated on the suite's
# dev split and the other 20% (chosen by a hash of the case id), with the
# default training options. internal/gatereport's TestDefaultModelIsCurrent
# checks the shipped model's training-data hash.
set -euo pipefail
cd "$(dirname "$0")/.."
go run ./scripts/gatereport -train-default gate/default.model
