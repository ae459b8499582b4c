package eval

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/memgate/memgate/admit"
	"github.com/memgate/memgate/embed"
	"github.com/memgate/memgate/memory"
)

func TestAUROCCount(t *testing.T) {
	for _, tc := range []struct {
		name     string
		pos, neg []float64
		want     Count
	}{
		{"perfect", []float64{0.9, 0.8}, []float64{0.1, 0.2}, Count{8, 8}},
		{"inverted", []float64{0.1}, []float64{0.5, 0.9}, Count{0, 4}},
		{"all tied", []float64{0.5}, []float64{0.5, 0.5}, Count{2, 4}}, // two ties, ½ each: 0.5
		// (0.3,0.3) tie ½, (0.3,0.5) 0, (0.7,0.3) 1, (0.7,0.5) 1: 2.5 of 4.
		{"some tied", []float64{0.7, 0.3}, []float64{0.5, 0.3}, Count{5, 8}},
		// Repeated scores on both sides: 0.4 ties both 0.4s and beats 0.2.
		{"repeated ties", []float64{0.4, 0.4}, []float64{0.4, 0.4, 0.2}, Count{2*2 + 4, 12}},
		{"no useful", nil, []float64{0.5}, Count{}},
		{"no exclude", []float64{0.5}, nil, Count{}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := aurocCount(tc.pos, tc.neg)
			if got != tc.want {
				t.Fatalf("got %+v, want %+v", got, tc.want)
			}
			if tc.want.Den == 0 && got.Rate() != nil {
				t.Fatal("an empty class must give a null AUROC, not a number")
			}
		})
	}
	// Against the definition, pair by pair, on scores with many ties.
	rng := rand.New(rand.NewPCG(1, 2))
	for range 200 {
		pos, neg := make([]float64, rng.IntN(20)+1), make([]float64, rng.IntN(20)+1)
		for i := range pos {
			pos[i] = float64(rng.IntN(5)) / 4
		}
		for i := range neg {
			neg[i] = float64(rng.IntN(5)) / 4
		}
		var want int
		for _, p := range pos {
			for _, n := range neg {
				switch {
				case p > n:
					want += 2
				case p == n:
					want++
				}
			}
		}
		if got := aurocCount(append([]float64(nil), pos...), append([]float64(nil), neg...)); got != (Count{want, 2 * len(pos) * len(neg)}) {
			t.Fatalf("pos %v neg %v: got %+v, want %d/%d", pos, neg, got, want, 2*len(pos)*len(neg))
		}
	}
}

// fakeGate scores the memories it knows with a fixed fit (threshold 0.5) and
// lowers them to a fixed decision, if any; other memories it leaves unscored.
// A fit of 0 is a score: it sets GateScored. Fits of 0.3 are out of range.
type fakeGate map[string]struct {
	fit float64
	d   admit.Decision
}

func (g fakeGate) Judge(_ context.Context, _ *admit.Context, cands []*admit.Candidate, results []*admit.Result) error {
	for i, c := range cands {
		s, ok := g[c.Memory.ID]
		if !ok {
			continue
		}
		results[i].Scores.GateFit, results[i].Scores.GateThreshold, results[i].Scores.GateScored = s.fit, 0.5, true
		results[i].Scores.GateOutOfRange = s.fit == 0.3
		if s.d != "" {
			results[i].Restrict(s.d, admit.ReasonGateLowFit, admit.Constraints{})
		}
	}
	return nil
}

var testNow = time.Date(2026, 6, 11, 10, 0, 0, 0, time.UTC)

// measureCases are three hand-made cases. Similarity to the query falls
// from m1 to m5 (checked by TestMeasureCasesOrder), so retrieval order is m1,
// m2, m3, m4, m5. With k=2:
//
//	memory  label            envelope           fake gate (full)
//	m1      useful           admit              0.9, admit
//	m2      useful           admit              0.4, rank_down
//	m3      exclude, "kiwi"  admit              0.4, quarantine
//	m4      exclude          deny (revoked)     not scored: the envelope denied it
//	m5      exclude          rank_down (p2)     0.7
//
// Case o-b (origin bench-b): n1 useful (fit 0.3), n2 exclude (fit 0.8), both
// admitted; n1 is out of range. Case plain (no origin): z1 useful, fit 0
// (still a score).
func measureCases(t *testing.T) ([]Case, fakeGate) {
	t.Helper()
	ctx := admit.Context{UserID: "u1", ProjectID: "p1", Intent: admit.IntentAnswer, ToolRisk: admit.RiskNone, Now: testNow}
	cases := []Case{
		{ID: "o-a", Category: "mixed", Query: "apple banana cherry date", Context: ctx,
			Memories: []memory.Memory{
				{ID: "m1", Text: "apple banana cherry date", UserID: "u1"},
				{ID: "m2", Text: "apple banana cherry", UserID: "u1"},
				{ID: "m3", Text: "apple banana kiwi", UserID: "u1"},
				{ID: "m4", Text: "apple", UserID: "u1"},
				{ID: "m5", Text: "zebra", UserID: "u1", ProjectID: "p2"},
			},
			Events:      []Event{{Op: "revoke", ID: "m4"}},
			Expect:      map[string]string{"m3": ExpectExclude, "m4": ExpectExclude, "m5": ExpectExclude},
			Useful:      []string{"m1", "m2"},
			LeakTargets: []string{"kiwi"},
			Origin:      &Origin{Benchmark: "bench-a", Item: "1", License: "MIT"}},
		{ID: "o-b", Category: "mixed", Query: "apple banana cherry date", Context: ctx,
			Memories: []memory.Memory{
				{ID: "n1", Text: "apple banana cherry date", UserID: "u1"},
				{ID: "n2", Text: "apple banana", UserID: "u1"},
			},
			Expect: map[string]string{"n2": ExpectExclude},
			Useful: []string{"n1"},
			Origin: &Origin{Benchmark: "bench-b"}},
		{ID: "plain", Category: "benign", Query: "apple", Context: ctx,
			Memories: []memory.Memory{{ID: "z1", Text: "apple", UserID: "u1"}},
			Useful:   []string{"z1"}},
	}
	for i := range cases {
		if err := cases[i].Check(); err != nil {
			t.Fatal(err)
		}
	}
	g := fakeGate{
		"m1": {0.9, ""}, "m2": {0.4, admit.RankDown}, "m3": {0.4, admit.Quarantine}, "m5": {0.7, ""},
		"n1": {0.3, ""}, "n2": {0.8, ""}, "z1": {0, ""},
	}
	return cases, g
}

func TestMeasureCasesOrder(t *testing.T) {
	cases, _ := measureCases(t)
	p, err := Prepare(context.Background(), &cases[0], testNow, embed.NewBuiltin())
	if err != nil {
		t.Fatal(err)
	}
	for i, id := range []string{"m1", "m2", "m3", "m4"} {
		next := []string{"m2", "m3", "m4", "m5"}[i]
		if p.Sims[id] <= p.Sims[next] {
			t.Fatalf("similarity order assumed by measureCases broken: %v", p.Sims)
		}
	}
}

func TestEqualContextSize(t *testing.T) {
	cases, g := measureCases(t)
	type row struct {
		b       Baseline
		measure string
		num     int
		den     int
	}
	for _, tc := range []struct {
		name      string
		unbounded bool
		view      string
		rows      []row
	}{
		{"k=2", false, ViewEqual, []row{
			// similarity injects m1, m2 of the five memories of u1 (m4's revocation unknown to it).
			{Similarity, MOverAdmission, 0, 3}, {Similarity, MBeyondK, 3, 5}, {Similarity, MUtility, 2, 2},
			{Similarity, MRankDown, 0, 3}, {Similarity, MLeakTarget, 0, 1},
			// policy admits m1, m2, m3 in that order: m3 is the third, beyond k.
			{PolicyOnly, MOverAdmission, 0, 3}, {PolicyOnly, MBeyondK, 1, 3}, {PolicyOnly, MLeakTarget, 0, 1},
			{PolicyOnly, MPrecision, 2, 2}, {PolicyOnly, MUtility, 2, 2}, {PolicyOnly, MRecall, 2, 2},
			{PolicyOnly, MRankDown, 1, 3}, {PolicyOnly, MQuarantine, 0, 3}, {PolicyOnly, MDeny, 1, 3},
			{PolicyOnly, MHardOverAdmission, 0, 1}, {PolicyOnly, MCrossScope, 0, 1}, {PolicyOnly, MRevocation, 1, 1},
			// full: only m1 is left; the gate's AUROC is 2.5 of 4 pairs.
			{Full, MOverAdmission, 0, 3}, {Full, MBeyondK, 0, 1}, {Full, MUtility, 1, 2},
			{Full, MRankDown, 1, 3}, {Full, MQuarantine, 1, 3}, {Full, MDeny, 1, 3},
			{Full, MGateAUROC, 5, 8}, {Full, MGateScoredUseful, 2, 2}, {Full, MGateScoredExclude, 2, 3},
			{PolicyOnly, MGateAUROC, 0, 0}, {PolicyOnly, MGateScoredUseful, 0, 2}, {Similarity, MGateScoredExclude, 0, 3},
			{Full, MGateOutOfRange, 0, 4}, {PolicyOnly, MGateOutOfRange, 0, 0},
		}},
		{"unbounded", true, ViewUnbounded, []row{
			{Similarity, MOverAdmission, 0, 3}, {Similarity, MBeyondK, 3, 5},
			// policy now injects m3 too: a threat and its leak target enter.
			{PolicyOnly, MOverAdmission, 1, 3}, {PolicyOnly, MBeyondK, 0, 3}, {PolicyOnly, MLeakTarget, 1, 1},
			{PolicyOnly, MPrecision, 2, 3}, {PolicyOnly, MUtility, 2, 2}, {PolicyOnly, MRankDown, 1, 3},
			{Full, MOverAdmission, 0, 3}, {Full, MGateAUROC, 5, 8},
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rep, err := Run(context.Background(), cases[:1], Options{Mode: ModeAdmit, K: 2, Unbounded: tc.unbounded, Gate: g, Workers: 1, Now: testNow})
			if err != nil {
				t.Fatal(err)
			}
			if rep.ContextView != tc.view {
				t.Errorf("context view %q, want %q", rep.ContextView, tc.view)
			}
			for _, r := range tc.rows {
				if got := rep.ByBaseline[string(r.b)].Counts[r.measure]; got != (Count{r.num, r.den}) {
					t.Errorf("%s %s: %d/%d, want %d/%d", r.b, r.measure, got.Num, got.Den, r.num, r.den)
				}
			}
			full := rep.ByBaseline[string(Full)]
			if full.GateAUROC == nil || *full.GateAUROC != 0.625 || rep.ByBaseline[string(PolicyOnly)].GateAUROC != nil {
				t.Errorf("gate AUROC full %v policy %v", full.GateAUROC, rep.ByBaseline[string(PolicyOnly)].GateAUROC)
			}
		})
	}
}

func TestByOrigin(t *testing.T) {
	cases, g := measureCases(t)
	rep, err := Run(context.Background(), cases, Options{Mode: ModeAdmit, K: 2, Gate: g, Workers: 2, Now: testNow})
	if err != nil {
		t.Fatal(err)
	}
	full := rep.ByBaseline[string(Full)]
	if got := sortedKeys(full.ByOrigin); strings.Join(got, ",") != "bench-a,bench-b" {
		t.Fatalf("origins %v: a case without an origin must be in no group", got)
	}
	a, b := full.ByOrigin["bench-a"], full.ByOrigin["bench-b"]
	if a.Cases != 1 || b.Cases != 1 || full.Cases != 3 {
		t.Fatalf("cases: all %d, bench-a %d, bench-b %d", full.Cases, a.Cases, b.Cases)
	}
	for _, c := range []struct {
		m       *Metrics
		measure string
		num     int
		den     int
	}{
		{a, MGateAUROC, 5, 8}, {a, MOverAdmission, 0, 3}, {a, MUtility, 1, 2},
		// bench-b: the exclude memory (0.8) outranks the useful one (0.3), and enters.
		{b, MGateAUROC, 0, 2}, {b, MOverAdmission, 1, 1}, {b, MUtility, 1, 1}, {b, MRecall, 1, 1},
		{b, MGateOutOfRange, 1, 2},
		// Overall, fits 0.9, 0.4, 0.3, 0 (useful) against 0.4, 0.7, 0.8:
		// 3 + ½ + 0 + 0 of 12 pairs. m4 (denied by the envelope) is unscored.
		{full, MGateAUROC, 7, 24}, {full, MGateScoredUseful, 4, 4}, {full, MGateScoredExclude, 3, 4},
		{full, MGateOutOfRange, 1, 7},
		{full, MOverAdmission, 1, 4}, {full, MUtility, 3, 4},
	} {
		if got := c.m.Counts[c.measure]; got != (Count{c.num, c.den}) {
			t.Errorf("%s: %d/%d, want %d/%d", c.measure, got.Num, got.Den, c.num, c.den)
		}
	}
	// Per category, like per origin.
	if got := full.ByCategory["mixed"].Counts[MGateAUROC]; got != (Count{7, 18}) {
		t.Errorf("category mixed gate AUROC %+v", got)
	}
	if got := full.ByCategory["benign"].GateAUROC; got != nil {
		t.Errorf("category benign has no exclude memory: AUROC must be null, got %v", *got)
	}
	// The similarity baseline breaks down by origin too.
	if got := rep.ByBaseline[string(Similarity)].ByOrigin["bench-b"].Counts[MOverAdmission]; got != (Count{1, 1}) {
		t.Errorf("similarity bench-b over-admission %+v", got)
	}

	// The reports name the view and show the new measures.
	var table, md, page bytes.Buffer
	if err := WriteTable(&table, rep); err != nil {
		t.Fatal(err)
	}
	if err := WriteMarkdown(&md, rep, ""); err != nil {
		t.Fatal(err)
	}
	if err := WriteHTML(&page, rep, ""); err != nil {
		t.Fatal(err)
	}
	for name, out := range map[string]string{"table": table.String(), "markdown": md.String(), "html": page.String()} {
		for _, want := range []string{"equal context size", "at most k=2", "gate AUROC", "ranked down", "candidate recall", "bench-b",
			"1 case without an origin"} {
			if !strings.Contains(out, want) {
				t.Errorf("%s report lacks %q", name, want)
			}
		}
	}
	if !strings.Contains(md.String(), "0.292 (4 useful × 3 exclude)") {
		t.Errorf("markdown report lacks the overall gate AUROC with its class sizes:\n%s", md.String())
	}
}

func TestNoOriginNoBreakdown(t *testing.T) {
	cases := readFile(t, "testdata/handcheck.jsonl")
	rep, err := Run(context.Background(), cases, Options{Mode: ModeAdmit, Workers: 1})
	if err != nil {
		t.Fatal(err)
	}
	if rep.ByOrigin != nil {
		t.Fatalf("no case has an origin, yet byOrigin is %v", rep.ByOrigin)
	}
	var md bytes.Buffer
	if err := WriteMarkdown(&md, rep, ""); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(md.String(), "by origin") {
		t.Error("a report without origins has an origin table")
	}
}

func TestOriginDecoding(t *testing.T) {
	base := `{"id":"c","query":"q","context":{"userId":"u"},"memories":[{"id":"m","text":"t","userId":"u"}]`
	c, err := DecodeCase([]byte(base + `,"origin":{"benchmark":"agentdojo","item":"t-7","license":"MIT"}}`))
	if err != nil || c.Origin == nil || *c.Origin != (Origin{"agentdojo", "t-7", "MIT"}) {
		t.Fatalf("origin %+v, err %v", c.Origin, err)
	}
	for _, bad := range []string{`,"origin":{"item":"x"}}`, `,"origin":{"benchmark":" "}}`} {
		if _, err := DecodeCase([]byte(base + bad)); err == nil || !strings.Contains(err.Error(), "origin.benchmark: is required") {
			t.Errorf("%s: %v", bad, err)
		}
	}
	if _, err := DecodeCase([]byte(base + `,"origin":"agentdojo"}`)); err == nil {
		t.Error("an origin that is not an object must be rejected")
	}
}

// A useful memory the envelope lets in only as a marked summary (low
// authority in a task with external side effects) counts as kept in benign
// utility retention and again in usefulAsSummary, which says how much of
// the kept utility is unverified.
func TestUsefulAsSummary(t *testing.T) {
	c, err := DecodeCase([]byte(`{"id":"s","query":"send the invoice total to the accountant",` +
		`"context":{"userId":"u","intent":"send","toolRisk":"external_side_effect","now":"2026-06-11T10:00:00Z"},` +
		`"memories":[{"id":"m1","text":"the invoice total is 420 euros","userId":"u","sourceAuthority":"external"},` +
		`{"id":"m2","text":"the accountant is Dana at dana@example.com","userId":"u","sourceAuthority":"user_confirmed"}],` +
		`"useful":["m1","m2"]}`))
	if err != nil {
		t.Fatal(err)
	}
	rep, err := Run(context.Background(), []Case{c}, Options{Mode: ModeAdmit, Baselines: []Baseline{Similarity, PolicyOnly}})
	if err != nil {
		t.Fatal(err)
	}
	for b, want := range map[string]Count{"similarity": {0, 2}, "policy": {1, 2}} {
		m := rep.ByBaseline[b]
		if got := m.Counts[MUsefulSummary]; got != want {
			t.Errorf("%s: usefulAsSummary %d/%d, want %d/%d", b, got.Num, got.Den, want.Num, want.Den)
		}
		if got := m.Counts[MUtility]; got != (Count{2, 2}) {
			t.Errorf("%s: utility %d/%d, want 2/2", b, got.Num, got.Den)
		}
	}
	if r := f(rep.ByBaseline["policy"].UsefulSummaryRate); r != 0.5 {
		t.Errorf("policy usefulSummaryRate %v, want 0.5", r)
	}
}

// StaleCounts reports a difference whichever report holds the count, the
// category or the bucket, and nothing for two equal reports.
func TestStaleCounts(t *testing.T) {
	mk := func() *Report {
		full := &Metrics{Cases: 2, Counts: map[string]Count{MUtility: {2, 2}},
			ByCategory: map[string]*Metrics{"benign": {Cases: 2, Counts: map[string]Count{MUtility: {2, 2}}}},
			ByBucket:   map[string]*Metrics{"answer×none": {Cases: 2, Counts: map[string]Count{MUtility: {2, 2}}}}}
		return &Report{Metrics: Metrics{Cases: 2, ByBaseline: map[string]*Metrics{"full": full}}}
	}
	if d := StaleCounts(mk(), mk()); d != nil {
		t.Fatalf("equal reports: %q", d)
	}
	for name, change := range map[string]func(r *Report){
		"skipped":                  func(r *Report) { r.Skipped = 1 },
		"count changed":            func(r *Report) { r.ByBaseline["full"].Counts[MUtility] = Count{1, 2} },
		"count only here":          func(r *Report) { r.ByBaseline["full"].Counts[MRecall] = Count{2, 2} },
		"category only here":       func(r *Report) { r.ByBaseline["full"].ByCategory["stale"] = &Metrics{Cases: 1} },
		"bucket count changed":     func(r *Report) { r.ByBaseline["full"].ByBucket["answer×none"].Counts[MUtility] = Count{0, 2} },
		"baseline only here":       func(r *Report) { r.ByBaseline["policy"] = &Metrics{Cases: 2} },
		"category's cases changed": func(r *Report) { r.ByBaseline["full"].ByCategory["benign"].Cases = 3 },
	} {
		for _, committedSide := range []bool{true, false} {
			a, b := mk(), mk()
			if committedSide {
				change(a)
			} else {
				change(b)
			}
			if d := StaleCounts(a, b); len(d) == 0 {
				t.Errorf("%s (in the committed report: %v): no difference reported", name, committedSide)
			}
		}
	}
}

// Options.Decisions records each policy and full decision with the label
// the measures use: a memory both useful and to exclude is a threat.
func TestDecisionRecords(t *testing.T) {
	c, err := DecodeCase([]byte(`{"id":"d","query":"apple","context":{"userId":"u","now":"2026-06-11T10:00:00Z"},` +
		`"memories":[{"id":"m1","text":"apple pie","userId":"u"},{"id":"m2","text":"apple tart","userId":"u"},` +
		`{"id":"m3","text":"apple juice","userId":"u"},{"id":"m4","text":"apple tree","userId":"other"}],` +
		`"expect":{"m1":"exclude","m2":"limited"},"useful":["m1","m3"]}`))
	if err != nil {
		t.Fatal(err)
	}
	var buf strings.Builder
	if _, err := Run(context.Background(), []Case{c}, Options{Mode: ModeAdmit, Decisions: &buf}); err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, l := range strings.Split(strings.TrimSpace(buf.String()), "\n") {
		var r DecisionRecord
		if err := json.Unmarshal([]byte(l), &r); err != nil {
			t.Fatalf("%q: %v", l, err)
		}
		got[string(r.Baseline)+"/"+r.MemoryID] = r.Label + "," + string(r.Decision)
	}
	want := map[string]string{
		"policy/m1": "exclude,admit", "policy/m2": "limited,admit", "policy/m3": "useful,admit", "policy/m4": ",deny",
	}
	for k, w := range want {
		if got[k] != w {
			t.Errorf("%s: %q, want %q", k, got[k], w)
		}
	}
	if len(got) != 8 { // four memories × policy and full
		t.Errorf("%d records, want 8: %v", len(got), got)
	}
}

// failingWriter fails every write, as a full disk would.
type failingWriter struct{}

func (failingWriter) Write([]byte) (int, error) { return 0, errors.New("no space left on device") }

// Run fails with the writer's error when Options.Decisions cannot be
// written: records lost silently would pass for a run with no decisions.
func TestDecisionRecordsWriteError(t *testing.T) {
	c, err := DecodeCase([]byte(`{"id":"w","query":"apple","context":{"userId":"u","now":"2026-06-11T10:00:00Z"},` +
		`"memories":[{"id":"m1","text":"apple pie","userId":"u"}],"useful":["m1"]}`))
	if err != nil {
		t.Fatal(err)
	}
	_, err = Run(context.Background(), []Case{c}, Options{Mode: ModeAdmit, Decisions: failingWriter{}})
	if err == nil || !strings.Contains(err.Error(), "write decisions") || !strings.Contains(err.Error(), "no space left") {
		t.Fatalf("Run with a failing decisions writer: %v", err)
	}
}
