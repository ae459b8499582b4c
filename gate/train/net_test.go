package train

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// TestMergeAveragesLogits: the merged network's output is the sigmoid of
// the mean of its members' logits, for any depth, so a model of several
// members needs no other format or inference code.
func TestMergeAveragesLogits(t *testing.T) {
	for _, tc := range []struct {
		name    string
		sizes   []int
		members int
	}{
		{"one member", []int{7, 4, 1}, 1},
		{"one hidden layer", []int{7, 4, 1}, 5},
		{"two hidden layers", []int{7, 4, 3, 1}, 3},
		{"no hidden layer", []int{7, 1}, 4},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := rand.New(rand.NewPCG(1, 2))
			nets := make([]*net, tc.members)
			for k := range nets {
				nets[k] = newNet(tc.sizes, r, nil)
				for l := range nets[k].b {
					for j := range nets[k].b[l] {
						nets[k].b[l][j] = r.NormFloat64()
					}
				}
			}
			m := merge(nets)
			params := 0
			for l := range m.w {
				params += len(m.w[l]) + len(m.b[l])
			}
			if want := mergedParams(tc.sizes, tc.members); params != want {
				t.Fatalf("merged network has %d parameters, mergedParams says %d", params, want)
			}
			for l := 1; l < len(tc.sizes)-1; l++ {
				if m.sizes[l] != tc.sizes[l]*tc.members {
					t.Fatalf("hidden layer %d has %d units, want %d", l, m.sizes[l], tc.sizes[l]*tc.members)
				}
			}
			logit := func(p float64) float64 { return math.Log(p / (1 - p)) }
			for range 20 {
				x := make([]float32, tc.sizes[0])
				for i := range x {
					x[i] = float32(r.NormFloat64())
				}
				var mean float64
				for _, n := range nets {
					mean += logit(n.forward(x)) / float64(len(nets))
				}
				if got := logit(m.forward(x)); math.Abs(got-mean) > 1e-9*max(1, math.Abs(mean)) {
					t.Fatalf("merged logit %v, mean of members %v", got, mean)
				}
			}
		})
	}
}

// TestInitNetKeepsOtherInputs: a training's initial network, with an
// input added, keeps every other input's first-layer weights but for the
// fan-in's scale, the same for all of them, and its output layer as it
// was; another seed or member draws others.
func TestInitNetKeepsOtherInputs(t *testing.T) {
	const hidden = 5
	o := Options{Seed: 3}
	before := initNet([]int{3, hidden, 1}, o, 1, []uint64{10, 20, 30})
	after := initNet([]int{4, hidden, 1}, o, 1, []uint64{10, 99, 20, 30})
	scale := math.Sqrt(3.0 / 4.0) // He: sqrt(2/fan-in)
	for j := range hidden {
		for i, ai := range []int{0, 2, 3} { // inputs 10, 20, 30 in the new layout
			b, a := before.w[0][j*3+i], after.w[0][j*4+ai]
			if math.Abs(a-b*scale) > 1e-12 {
				t.Fatalf("unit %d, input %d: %v before, %v after an input was added", j, i, b, a)
			}
		}
	}
	if !slices.Equal(before.w[1], after.w[1]) {
		t.Error("the output layer's initial weights moved with the inputs")
	}
	for _, other := range []*net{
		initNet([]int{3, hidden, 1}, Options{Seed: 4}, 1, []uint64{10, 20, 30}),
		initNet([]int{3, hidden, 1}, o, 2, []uint64{10, 20, 30}),
	} {
		if other.w[0][0] == before.w[0][0] || other.w[1][0] == before.w[1][0] {
			t.Error("another seed or member drew the same initial weights")
		}
	}
	// Without a key per input, one stream: an added input reshuffles all.
	plain := initNet([]int{4, hidden, 1}, o, 1, nil)
	if plain.w[0][0] == after.w[0][0] {
		t.Error("keys changed nothing")
	}
}
