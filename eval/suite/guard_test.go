package suite

import (
	"bytes"
	"context"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
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

// TestREADMEQuotesReport: the README's table of the suite's test split
// quotes docs/eval-report/report.md, figure for figure, so that a change
// that regenerates the report cannot leave the README's copy behind.
func TestREADMEQuotesReport(t *testing.T) {
	readme := tableAfter(t, "../../README.md", "| measure | similarity only | policy (envelope) | full (envelope + gate) |")
	report := tableAfter(t, "../../docs/eval-report/report.md", "| measure | similarity | policy | full |")
	// The README's wording of a measure, and the report's (the n-th row of
	// that name, from 1).
	names := map[string]struct {
		row string
		nth int
	}{
		"over-admission (must-not-admit memories in context)": {"over-admission", 1},
		"of which only as marked, non-bindable summaries":     {"of which as summary only", 1},
		"hard-boundary over-admission":                        {"hard-boundary over-admission", 1},
		"leak-target rate":                                    {"leak-target rate", 1},
		"low-authority tool binding":                          {"low-authority tool binding", 1},
		"revocation effectiveness":                            {"revocation effectiveness", 1},
		"bind accuracy":                                       {"bind accuracy", 1},
		"admission precision":                                 {"admission precision", 1},
		"benign utility retention":                            {"benign utility retention", 1},
		"of which only as marked summaries":                   {"of which as summary only", 2},
		"candidate recall":                                    {"candidate recall", 1},
		"gate AUROC (useful vs must-exclude)":                 {"gate AUROC, useful vs exclude (gate-scored memories)", 1},
		"threat reduction vs similarity":                      {"threat reduction vs similarity", 1},
	}
	if len(readme) != len(names) {
		t.Errorf("the README's table has %d rows, this test knows %d: map the new ones", len(readme), len(names))
	}
	for _, row := range readme {
		want, ok := names[row[0]]
		if !ok {
			t.Errorf("README row %q: this test does not know which row of the report it quotes", row[0])
			continue
		}
		rep := nthRow(report, want.row, want.nth)
		if rep == nil {
			t.Errorf("README row %q: no row %q (#%d) in the report", row[0], want.row, want.nth)
			continue
		}
		for col := 1; col < len(row) && col < len(rep); col++ {
			if row[col] == "—" {
				continue
			}
			gv, gc := figure(row[col])
			rv, rc := figure(rep[col])
			if gv != rv || gc != "" && gc != rc {
				t.Errorf("README %q, column %d: %q; the report says %q (run scripts/eval-report.sh, then copy its figures)", row[0], col, row[col], rep[col])
			}
		}
	}
}

// tableAfter returns the rows of the Markdown table whose header line is
// header in file: its cells, trimmed, without emphasis and leading "…".
func tableAfter(t *testing.T, file, header string) [][]string {
	t.Helper()
	raw, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	_, rest, ok := strings.Cut(string(raw), header+"\n")
	if !ok {
		t.Fatalf("%s: no table headed %q", file, header)
	}
	var rows [][]string
	for i, line := range strings.Split(rest, "\n") {
		if !strings.HasPrefix(line, "|") {
			break
		}
		if i == 0 {
			continue // the alignment row
		}
		cells := strings.Split(strings.Trim(line, "|"), "|")
		for j, c := range cells {
			c = strings.ReplaceAll(strings.TrimSpace(c), "**", "")
			cells[j] = strings.TrimSpace(strings.TrimPrefix(c, "…"))
		}
		rows = append(rows, cells)
	}
	return rows
}

// nthRow returns the n-th row (from 1) of rows named name, or nil.
func nthRow(rows [][]string, name string, n int) []string {
	for _, r := range rows {
		if r[0] == name {
			if n--; n == 0 {
				return r
			}
		}
	}
	return nil
}

// figure splits a cell such as "0.412 (571/1385)" into its rate, as a
// number, and its counts ("571/1385"; "" when the cell gives none).
func figure(cell string) (float64, string) {
	v, counts, _ := strings.Cut(cell, " (")
	f, err := strconv.ParseFloat(v, 64)
	if err != nil {
		return math.NaN(), cell
	}
	return f, strings.TrimSuffix(counts, ")")
}
