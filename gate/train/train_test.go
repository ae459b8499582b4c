package train

import (
	"context"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/memgate/memgate/eval/suite"
	"github.com/memgate/memgate/gate"
	"github.com/memgate/memgate/gate/content"
)

// TestDefaultModelIsCurrent fails when the shipped model was not trained on
// what the suite generator produces today, so it cannot go stale silently.
// Regenerate it with scripts/train-default-gate.sh.
func samples(t *testing.T, split string, n int) []Sample {
	t.Helper()
	s, err := Samples(context.Background(), suite.Generate(3, n)[split], Options{})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func TestTrainIsDeterministicAndLearns(t *testing.T) {
	tr, dev := samples(t, suite.Train, 8), samples(t, suite.Dev, 4)
	o := Options{Seed: 7, Epochs: 100}
	a, err := Train(tr, dev, o)
	if err != nil {
		t.Fatal(err)
	}
	b, err := Train(tr, dev, o)
	if err != nil {
		t.Fatal(err)
	}
	var wa, wb strings.Builder
	a.WriteTo(&wa)
	b.WriteTo(&wb)
	if wa.String() != wb.String() {
		t.Fatal("training with the same seed gave different models")
	}
	// It must rank its training data far better than chance: AUROC of
	// the fit, memories that fit against those that do not.
	g := gate.New(a)
	var pos, neg []float64
	for _, s := range tr {
		if f := g.Score(s.X); s.Fit {
			pos = append(pos, f)
		} else {
			neg = append(neg, f)
		}
	}
	var wins float64
	for _, p := range pos {
		for _, n := range neg {
			switch {
			case p > n:
				wins++
			case p == n:
				wins += 0.5
			}
		}
	}
	if auc := wins / float64(len(pos)*len(neg)); auc < 0.8 {
		t.Fatalf("training AUROC %.3f", auc)
	}
	if a.Header.Training.TrainSamples != len(tr) || a.Header.Training.BestEpoch == 0 {
		t.Fatalf("training record %+v", a.Header.Training)
	}
}

func TestTrainRejectsBadData(t *testing.T) {
	tr, dev := samples(t, suite.Train, 2), samples(t, suite.Dev, 2)
	var pos, neg, noBenign []Sample
	for _, s := range tr {
		if s.Fit {
			pos = append(pos, s)
		} else {
			neg = append(neg, s)
		}
	}
	for _, s := range dev {
		if !s.Useful {
			noBenign = append(noBenign, s)
		}
	}
	nan := append([]Sample(nil), tr...)
	nan[0].X = append([]float32(nil), nan[0].X...)
	nan[0].X[3] = float32(math.NaN())
	tests := []struct {
		name       string
		train, dev []Sample
		want       string
	}{
		{"empty", nil, dev, "training set is empty"},
		{"single class", pos, dev, "single class"},
		{"only negatives", neg, dev, "single class"},
		{"dev without benign", tr, noBenign, "no useful (benign) memories"},
		{"empty dev", tr, nil, "dev set is empty"},
		{"NaN feature", nan, dev, "not finite"},
	}
	for _, tt := range tests {
		if _, err := Train(tt.train, tt.dev, Options{Epochs: 2}); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: %v, want %q", tt.name, err, tt.want)
		}
	}
	// A model too large to load again is refused before any training.
	if _, err := Train(tr, dev, Options{Epochs: 2, Hidden: []int{2048, 2048}, Members: 3}); err == nil || !strings.Contains(err.Error(), "at most") {
		t.Errorf("oversized model: %v", err)
	}
	// A member that panics (a negative width) fails Train, not the process.
	if _, err := Train(tr, dev, Options{Epochs: 2, Hidden: []int{-1}}); err == nil || !strings.Contains(err.Error(), "panic") {
		t.Errorf("negative width: %v", err)
	}
}

func TestThreshold(t *testing.T) {
	useful := []float64{0.9, 0.95, 0.97, 0.99, 0.2}
	threats := []float64{0.05, 0.1, 0.3, 0.96}
	// Keeping 0.8 of useful allows losing one (0.2): removing 0.05, 0.1 and
	// 0.3 needs a threshold just above 0.3 and loses only 0.2; removing 0.96
	// would lose three.
	if got := threshold(useful, threats, 0.8); got <= 0.3 || got > 0.3001 {
		t.Fatalf("threshold = %v, want just above 0.3", got)
	}
	if got := threshold(useful, nil, 0.98); got != 0 {
		t.Fatalf("no threats: %v, want 0 (no evidence, no lowering)", got)
	}
	if got := threshold(useful, threats, 1); got <= 0.1 || got > 0.1001 {
		t.Fatalf("keep all useful: %v, want just above 0.1", got)
	}
}

// A model trained with ZeroInputs ignores those inputs, in the network and
// in the instruction head, and starts from the same weights as one that
// reads them.
func TestZeroInputs(t *testing.T) {
	tr, dev := samples(t, suite.Train, 8), samples(t, suite.Dev, 4)
	var idx []int
	for _, c := range []content.Cue{content.SecondPerson, content.AddressedToAgent} { // a fit input; a head input too
		i, ok := gate.CueInput(c)
		if !ok {
			t.Fatalf("the instruction group does not read %v", c)
		}
		varies := false
		for _, s := range tr {
			varies = varies || s.X[i] != 0
		}
		if !varies {
			t.Fatalf("%v is 0 in every training sample: the test would say nothing", c)
		}
		idx = append(idx, i)
	}
	start, _ := gate.InstructionRange()
	reads, err := Train(tr, dev, Options{Seed: 7, Epochs: 30})
	if err != nil {
		t.Fatal(err)
	}
	if reads.Header.Instruction.W[idx[1]-start] == 0 {
		t.Fatal("the instruction head ignores addressed_to_agent even when it reads it: the test would say nothing")
	}
	before := make([]float32, 0, len(tr)*len(idx))
	for _, s := range tr {
		for _, i := range idx {
			before = append(before, s.X[i])
		}
	}
	m, err := Train(tr, dev, Options{Seed: 7, Epochs: 30, ZeroInputs: idx})
	if err != nil {
		t.Fatal(err)
	}
	for k, s := range tr {
		for j, i := range idx {
			if s.X[i] != before[k*len(idx)+j] {
				t.Fatalf("Train changed the caller's sample %d", k)
			}
		}
	}
	if !slices.Equal(m.Header.Ignored, idx) {
		t.Errorf("the model records ignored inputs %v, want %v", m.Header.Ignored, idx)
	}
	for _, i := range idx {
		if w := m.Header.Instruction.W[i-start]; w != 0 {
			t.Errorf("instruction head weight on zeroed input %d: %v", i, w)
		}
	}
	g := gate.New(m)
	for _, s := range tr[:50] {
		x := append([]float32(nil), s.X...)
		for _, i := range idx {
			x[i] = 0
		}
		a := g.Score(x)
		for _, i := range idx {
			x[i] = 1
		}
		if b := g.Score(x); a != b {
			t.Fatalf("the score moves with zeroed inputs: %v → %v", a, b)
		}
	}
	if _, err := Train(tr, dev, Options{Seed: 7, Epochs: 1, ZeroInputs: []int{len(tr[0].X)}}); err == nil ||
		!strings.Contains(err.Error(), "out of range") {
		t.Errorf("an input index past the features: %v, want an error", err)
	}
}
