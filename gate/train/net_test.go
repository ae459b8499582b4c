package train

import (
	"math"
	"math/rand/v2"
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
				nets[k] = newNet(tc.sizes, r)
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
