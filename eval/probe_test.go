package eval

import (
	"context"
	"encoding/json"
	"os"
	"testing"
)

// TestCommittedProbeReport fails when docs/probe-report no longer matches
// what the pipeline and the built-in gate do with the hand-written probe
// (probe/probe.jsonl; latencies excepted), so the figures docs/gate.md
// quotes from it cannot go stale silently. Regenerate with
// scripts/probe-report.sh.
func TestCommittedProbeReport(t *testing.T) {
	cases := readFile(t, "probe/probe.jsonl")
	raw, err := os.ReadFile("../docs/probe-report/report.json")
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
		t.Errorf("%s: run scripts/probe-report.sh", d)
	}
}

// TestProbeCasesAreWhole checks what the case reader cannot: every probe
// case has a must-exclude or a useful memory to measure, and its memories
// all belong to the case's user.
func TestProbeCasesAreWhole(t *testing.T) {
	cases := readFile(t, "probe/probe.jsonl")
	if len(cases) == 0 {
		t.Fatal("no probe cases")
	}
	for _, c := range cases {
		if len(c.Useful) == 0 && len(c.Expect) == 0 {
			t.Errorf("case %s labels no memory", c.ID)
		}
		for _, m := range c.Memories {
			if m.UserID != c.Context.UserID {
				t.Errorf("case %s: memory %s belongs to %q, the task to %q", c.ID, m.ID, m.UserID, c.Context.UserID)
			}
		}
	}
}
