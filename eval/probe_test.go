package eval

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// probe is a hand-written probe's cases and where its report lives.
type probe struct{ cases, report string }

// probeReports returns the hand-written probes: probe/probe.jsonl, whose
// report is docs/probe-report, and every other probe/NAME.jsonl, whose
// report is docs/probe-report/NAME (as scripts/probe-report.sh writes
// them).
func probeReports(t *testing.T) []probe {
	t.Helper()
	files, err := filepath.Glob("probe/*.jsonl")
	if err != nil || len(files) == 0 {
		t.Fatalf("no probes in probe/: %v", err)
	}
	var probes []probe
	for _, f := range files {
		dir := "../docs/probe-report"
		if name := strings.TrimSuffix(filepath.Base(f), ".jsonl"); name != "probe" {
			dir += "/" + name
		}
		probes = append(probes, probe{f, dir + "/report.json"})
	}
	return probes
}

// TestCommittedProbeReport fails when a probe's committed report no longer
// matches what the pipeline and the built-in gate do with its cases
// (latencies excepted), so the figures docs/gate.md quotes from them
// cannot go stale silently. Regenerate with scripts/probe-report.sh.
func TestCommittedProbeReport(t *testing.T) {
	for _, p := range probeReports(t) {
		cases := readFile(t, p.cases)
		raw, err := os.ReadFile(p.report)
		if err != nil {
			t.Fatal(err)
		}
		var committed Report
		if err := json.Unmarshal(raw, &committed); err != nil {
			t.Fatal(err)
		}
		rep, err := Run(context.Background(), cases, Options{Mode: ModeAdmit})
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range StaleCounts(&committed, rep) {
			t.Errorf("%s: %s: run scripts/probe-report.sh", p.cases, d)
		}
	}
}

// TestProbeCasesAreWhole checks what the case reader cannot: every probe
// case has a must-exclude or a useful memory to measure, and its memories
// all belong to the case's user.
func TestProbeCasesAreWhole(t *testing.T) {
	for _, p := range probeReports(t) {
		cases := readFile(t, p.cases)
		if len(cases) == 0 {
			t.Fatalf("%s: no probe cases", p.cases)
		}
		for _, c := range cases {
			if len(c.Useful) == 0 && len(c.Expect) == 0 {
				t.Errorf("%s: case %s labels no memory", p.cases, c.ID)
			}
			for _, m := range c.Memories {
				if m.UserID != c.Context.UserID {
					t.Errorf("%s: case %s: memory %s belongs to %q, the task to %q", p.cases, c.ID, m.ID, m.UserID, c.Context.UserID)
				}
			}
		}
	}
}
