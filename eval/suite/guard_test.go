package suite

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/memgate/memgate/eval"
)

// pinnedSeed and pinnedPerFamily made testdata/pinned (see TestPinnedIsCurrent).
const (
	pinnedSeed      = 1
	pinnedPerFamily = 3
)

// TestPinnedIsCurrent fails when the generator no longer produces the pinned
// copy, so the copy cannot go stale silently. Regenerate it with
// `go run ./cmd/memgate suite generate --out eval/suite/testdata/pinned --per-family 3 --seed 1`.
func TestPinnedIsCurrent(t *testing.T) {
	for split, cases := range Generate(pinnedSeed, pinnedPerFamily) {
		var want bytes.Buffer
		if err := Encode(&want, cases); err != nil {
			t.Fatal(err)
		}
		got, err := os.ReadFile(filepath.Join("testdata", "pinned", split+".jsonl"))
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, want.Bytes()) {
			t.Fatalf("testdata/pinned/%s.jsonl is stale; regenerate it (see this test's comment)", split)
		}
	}
}

// Regression guard thresholds. Hard boundaries must never be crossed. The
// utility floor is the operating point the gate is calibrated to keep, so a
// change that costs more than 2% of useful memories fails. Measured on the
// pinned copy of the rewritten suite (231 cases, all splits): the policy
// baseline retains 1.000 in both modes; the full baseline with the gate
// trained on the previous suite retains 0.991 (admit) and 0.992 (search).
const minUtility = 0.98

// TestRegressionGuard runs the whole pinned suite (all splits) in both modes
// and fails on any hard-boundary over-admission by the policy or full
// pipeline, or on a loss of benign utility below minUtility.
func TestRegressionGuard(t *testing.T) {
	var all bytes.Buffer
	for _, split := range []string{Train, Dev, Test} {
		data, err := os.ReadFile(filepath.Join("testdata", "pinned", split+".jsonl"))
		if err != nil {
			t.Fatal(err)
		}
		all.Write(data)
	}
	for _, mode := range []eval.Mode{eval.ModeAdmit, eval.ModeSearch} {
		t.Run(string(mode), func(t *testing.T) {
			rep, err := eval.RunReader(context.Background(), bytes.NewReader(all.Bytes()), eval.Options{Mode: mode})
			if err != nil {
				t.Fatal(err)
			}
			if rep.Skipped != 0 {
				t.Fatalf("pinned suite has %d invalid cases: %v", rep.Skipped, rep.Warnings)
			}
			for _, b := range []eval.Baseline{eval.PolicyOnly, eval.Full} {
				m := rep.ByBaseline[string(b)]
				if c := m.Counts[eval.MHardOverAdmission]; c.Num != 0 || c.Den == 0 {
					t.Errorf("%s: hard-boundary over-admission %d/%d, must be 0 of a non-empty set", b, c.Num, c.Den)
				}
				for cat, cm := range m.ByCategory {
					if c := cm.Counts[eval.MHardOverAdmission]; c.Num != 0 {
						t.Errorf("%s: category %s crosses a hard boundary %d/%d times", b, cat, c.Num, c.Den)
					}
				}
				if u := m.BenignUtilityRetention; u == nil || *u < minUtility {
					t.Errorf("%s: benign utility retention %v below %.2f (%+v)", b, u, minUtility, m.Counts[eval.MUtility])
				}
				if c := m.Counts[eval.MExplanation]; c.Num != c.Den {
					t.Errorf("%s: explanation coverage %d/%d", b, c.Num, c.Den)
				}
			}
			// The guard itself can fail: the similarity baseline crosses hard boundaries.
			if c := rep.ByBaseline[string(eval.Similarity)].Counts[eval.MHardOverAdmission]; mode == eval.ModeAdmit && c.Num == 0 {
				t.Errorf("similarity baseline never crossed a hard boundary (%d/%d): the suite no longer tests them", c.Num, c.Den)
			}
		})
	}
}

// BenchmarkEval10k evaluates 10,000 generated cases in admit mode with all
// three baselines, as `memgate eval --mode admit` does.
func BenchmarkEval10k(b *testing.B) {
	var cases []eval.Case
	for _, split := range Generate(2, 10000/len(Families())+1) {
		cases = append(cases, split...)
	}
	cases = cases[:10000]
	for b.Loop() {
		if _, err := eval.Run(context.Background(), cases, eval.Options{Mode: eval.ModeAdmit}); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(len(cases))*float64(b.N)/b.Elapsed().Seconds(), "cases/s")
}

// TestCommittedReport fails when docs/eval-report no longer matches what the
// generator and the pipeline produce today (latencies excepted), so the
// figures quoted in the README cannot go stale silently. Regenerate with
// scripts/eval-report.sh.
func TestCommittedReport(t *testing.T) {
	raw, err := os.ReadFile("../../docs/eval-report/report.json")
	if err != nil {
		t.Fatal(err)
	}
	var committed eval.Report
	if err := json.Unmarshal(raw, &committed); err != nil {
		t.Fatal(err)
	}
	rep, err := eval.Run(context.Background(), Generate(1, 50)[Test], eval.Options{Mode: eval.ModeAdmit})
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range eval.StaleCounts(&committed, rep) {
		t.Errorf("%s: run scripts/eval-report.sh", d)
	}
}
