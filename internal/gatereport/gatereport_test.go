package gatereport

import (
	"strings"
	"sync"
	"testing"

	"github.com/memgate/memgate/eval"
	"github.com/memgate/memgate/gate"
	"github.com/memgate/memgate/gate/train"
)

var loadOnce = sync.OnceValues(func() (*Data, error) { return Load("../../data/public") })

func load(t *testing.T) *Data {
	t.Helper()
	d, err := loadOnce()
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// The shipped model must be the one its training data makes: its recorded
// hash is that of today's suite and public cases.
func TestDefaultModelIsCurrent(t *testing.T) {
	g, err := gate.Default()
	if err != nil {
		t.Fatal(err)
	}
	tr, dev := load(t).TrainingSets()
	if got, want := g.Model().Header.TrainingDataHash, train.Hash(tr, dev); got != want {
		t.Fatalf("gate/default.model was trained on data %s, the generators now make %s: run scripts/train-default-gate.sh", got, want)
	}
	if got, want := g.Model().Header.Features, gate.FeatureFingerprint(); got != want {
		t.Fatalf("gate/default.model was trained on features %s, this build computes %s: run scripts/train-default-gate.sh", got, want)
	}
}

func TestTrainingSets(t *testing.T) {
	d := load(t)
	if len(d.Sources()) < 9 {
		t.Fatalf("sources %v", d.Sources())
	}
	tr, dev := d.TrainingSets()
	held := d.Sources()[0]
	tr2, dev2 := d.TrainingSets(held)
	if n := len(d.Public[held]); len(tr)+len(dev)-len(tr2)-len(dev2) != n {
		t.Fatalf("leaving %s out removed %d cases, it has %d", held, len(tr)+len(dev)-len(tr2)-len(dev2), n)
	}
	for _, c := range append(tr2, dev2...) {
		if c.Origin != nil && c.Origin.Benchmark == held {
			t.Fatalf("case %s of the held-out source in training", c.ID)
		}
	}
	// Every source contributes to both sets, and the split is by case id.
	for _, s := range d.Sources() {
		var inTrain, inDev int
		for _, c := range d.Public[s] {
			if IsDev(c.ID) {
				inDev++
			} else {
				inTrain++
			}
		}
		if share := float64(inDev) / float64(inDev+inTrain); inTrain == 0 || share < 0.1 || share > 0.3 {
			t.Errorf("%s: %d train, %d dev", s, inTrain, inDev)
		}
	}
}

func TestSeeds(t *testing.T) {
	f := func(v float64) *float64 { return &v }
	row := func(held string, auroc *float64, useful, of int) Row {
		return Row{Held: held, Full: &eval.Metrics{GateAUROC: auroc, Counts: map[string]eval.Count{eval.MUtility: {Num: useful, Den: of}}}}
	}
	reps := []*Report{
		{Rows: []Row{row("a", f(0.8), 99, 100), row("b", f(0.6), 100, 100), row("none", nil, 50, 50), row(SuiteTest, f(0.9), 10, 10)}},
		{Rows: []Row{row("a", f(0.7), 96, 100), row("b", f(0.7), 100, 100), row("none", nil, 49, 50), row(SuiteTest, f(0.5), 10, 10)}},
	}
	var b strings.Builder
	if err := Seeds(&b, []uint64{1, 2}, reps); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"| a | 0.800 | 0.700 | 0.750 | 0.960 |",
		"| b | 0.600 | 0.700 | 0.650 | 1.000 |",
		"| none | — | — | — | 0.980 |",
		// The suite's test split is shown, and left out of the means.
		"| " + SuiteTest + " | 0.900 | 0.500 | 0.700 | 1.000 |",
		"| **mean over the sources with threats** | 0.7000 | 0.7000 | 0.7000 | |",
	} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("missing %q in\n%s", want, b.String())
		}
	}
	reps[1].Rows[0].Held = "other"
	if err := Seeds(&b, []uint64{1, 2}, reps); err == nil {
		t.Error("reports of different sources were compared")
	}
	if err := Seeds(&b, []uint64{1}, reps); err == nil {
		t.Error("one seed for two reports was accepted")
	}
	reps[1].Rows = reps[1].Rows[:1]
	if err := Seeds(&b, []uint64{1, 2}, reps); err == nil {
		t.Error("a report with fewer sources was compared")
	}
	// A row without the gate's measurement is written, not a panic.
	b.Reset()
	reps[0].Rows = []Row{row("a", f(0.8), 99, 100), row("b", f(0.6), 100, 100)}
	reps[1].Rows = []Row{{Held: "a"}, row("b", f(0.7), 100, 100)}
	if err := Seeds(&b, []uint64{1, 2}, reps); err != nil || !strings.Contains(b.String(), "| a | 0.800 | — | 0.800 | 0.990 |") {
		t.Errorf("row without the gate: %v\n%s", err, b.String())
	}
}

func TestPool(t *testing.T) {
	f := func(v float64) *float64 { return &v }
	m := func(auroc *float64, useful, over, partial int) *eval.Metrics {
		return &eval.Metrics{GateAUROC: auroc, RankDownRate: f(0.1), Counts: map[string]eval.Count{
			eval.MUtility:              {Num: useful, Den: 100},
			eval.MOverAdmission:        {Num: over, Den: 40},
			eval.MPartialOverAdmission: {Num: partial, Den: 40},
		}}
	}
	reps := []*Report{
		{K: 10, Rows: []Row{{Held: "a", Cases: 5, Full: m(f(0.90), 99, 12, 2), Policy: m(nil, 100, 30, 0)}}},
		{K: 10, Rows: []Row{{Held: "a", Cases: 5, Full: m(f(0.82), 95, 14, 4), Policy: m(nil, 100, 30, 0)}}},
	}
	p, err := Pool(reps)
	if err != nil {
		t.Fatal(err)
	}
	full := p.Rows[0].Full
	if got := *full.GateAUROC; got < 0.8599 || got > 0.8601 {
		t.Errorf("pooled AUROC %v, want the mean 0.86", got)
	}
	if got := full.Counts[eval.MUtility]; got != (eval.Count{Num: 194, Den: 200}) {
		t.Errorf("pooled utility %+v, want 194/200", got)
	}
	if p.Rows[0].Sim != nil || p.Rows[0].Policy.GateAUROC != nil {
		t.Error("a measurement no report has appeared in the pool")
	}
	// The pooled figures are judged, not one seed's: AUROC 0.86 (seed 2
	// alone: 0.82), utility 194/200 = 0.97 (seed 2: 0.95), over-admission
	// not as a summary (12-2 + 14-4)/80 = 0.25, a poisoning source's limit.
	if miss := p.Check([]string{"a"}); len(miss) != 0 {
		t.Errorf("floors missed: %v", miss)
	}
	if miss := reps[1].Check([]string{"a"}); len(miss) != 1 || !strings.Contains(miss[0], "AUROC 0.820") || !strings.Contains(miss[0], "utility 95/100") {
		t.Errorf("seed 2 alone missed %v, want its AUROC and utility", miss)
	}
	reps[1].Rows[0].Policy = nil
	if _, err := Pool(reps); err == nil {
		t.Error("a measurement one report lacks was pooled")
	}
	reps[1].Rows[0].Policy = reps[0].Rows[0].Policy
	reps[1].Options.Members = 5
	if _, err := Pool(reps); err == nil {
		t.Error("reports of different training options were pooled")
	}
	reps[1].Options.Members, reps[1].Options.Seed = 0, 7
	if _, err := Pool(reps); err != nil {
		t.Errorf("reports of two seeds were not pooled: %v", err)
	}
	reps[1].Rows[0].Cases = 6
	if _, err := Pool(reps); err == nil {
		t.Error("reports of different cases were pooled")
	}
	reps[1].Rows = append(reps[1].Rows, reps[0].Rows[0])
	if _, err := Pool(reps); err == nil {
		t.Error("reports of different sources were pooled")
	}
	if _, err := Pool(nil); err == nil {
		t.Error("nothing was pooled without an error")
	}
	// A row without a gate's measurement is written and judged, not a panic.
	var md strings.Builder
	none := &Report{Rows: []Row{{Held: "a", Cases: 5, Policy: m(nil, 100, 30, 0)}}}
	if err := none.Markdown(&md); err != nil || !strings.Contains(md.String(), "| a | 5 | — |") {
		t.Errorf("row without the gate: %v\n%s", err, md.String())
	}
	if miss := none.Check(nil); len(miss) != 0 {
		t.Errorf("row without the gate missed floors: %v", miss)
	}
}
