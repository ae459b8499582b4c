package train

import (
	"errors"
	"math"
	"math/rand/v2"
	"slices"

	"github.com/memgate/memgate/gate"
)

// net is the gate's network in float64 for training: dense layers with SiLU
// between them and a sigmoid output, trained on binary cross-entropy.
type net struct {
	sizes      []int
	w, b       [][]float64
	gw, gb     [][]float64
	acts, pres [][]float64 // per layer: activations (input first) and pre-activations
}

// newNet returns a network of the given layer sizes with He-initialised
// weights drawn from r. With inputs, one stream per input (as many as
// sizes[0]), the first layer's weights of input i are drawn from
// inputs[i] instead, so that they do not depend on how many inputs come
// before it (initNet).
func newNet(sizes []int, r *rand.Rand, inputs []*rand.Rand) *net {
	n := &net{sizes: sizes}
	for l := 1; l < len(sizes); l++ {
		in, out := sizes[l-1], sizes[l]
		w := make([]float64, in*out)
		scale := math.Sqrt(2 / float64(in)) // He initialisation, suited to SiLU
		if l == 1 && len(inputs) == in {
			for i, ri := range inputs {
				for j := range out {
					w[j*in+i] = ri.NormFloat64() * scale
				}
			}
		} else {
			for i := range w {
				w[i] = r.NormFloat64() * scale
			}
		}
		n.w, n.b = append(n.w, w), append(n.b, make([]float64, out))
		n.gw, n.gb = append(n.gw, make([]float64, in*out)), append(n.gb, make([]float64, out))
	}
	for _, s := range sizes {
		n.acts = append(n.acts, make([]float64, s))
		n.pres = append(n.pres, make([]float64, s))
	}
	return n
}

func (n *net) clone() *net {
	c := &net{sizes: n.sizes}
	for l := range n.w {
		c.w = append(c.w, append([]float64(nil), n.w[l]...))
		c.b = append(c.b, append([]float64(nil), n.b[l]...))
	}
	return c
}

func (n *net) zeroGrad() {
	for l := range n.gw {
		clear(n.gw[l])
		clear(n.gb[l])
	}
}

func silu(z float64) float64 { return z / (1 + math.Exp(-z)) }

func dsilu(z float64) float64 {
	s := 1 / (1 + math.Exp(-z))
	return s * (1 + z*(1-s))
}

// forward returns the output probability, keeping activations for backward.
func (n *net) forward(x []float32) float64 {
	for i, v := range x {
		n.acts[0][i] = float64(v)
	}
	last := len(n.w) - 1
	for l := range n.w {
		in, out := n.acts[l], n.pres[l+1]
		k := len(in)
		for j := range out {
			z := n.b[l][j]
			row := n.w[l][j*k : (j+1)*k]
			for i, v := range in {
				z += row[i] * v
			}
			out[j] = z
			if l < last {
				n.acts[l+1][j] = silu(z)
			} else {
				n.acts[l+1][j] = 1 / (1 + math.Exp(-z))
			}
		}
	}
	return n.acts[len(n.acts)-1][0]
}

// backward adds the gradient of weight·BCE(x, y) (scaled by scale) and
// returns the unweighted loss.
func (n *net) backward(x []float32, y, scale float64) float64 {
	p := n.forward(x)
	const eps = 1e-7
	loss := -(y*math.Log(p+eps) + (1-y)*math.Log(1-p+eps))
	delta := []float64{(p - y) * scale} // d loss / d z at the output
	for l := len(n.w) - 1; l >= 0; l-- {
		in := n.acts[l]
		k := len(in)
		prev := make([]float64, k)
		for j, dj := range delta {
			n.gb[l][j] += dj
			row, grow := n.w[l][j*k:(j+1)*k], n.gw[l][j*k:(j+1)*k]
			for i := range in {
				grow[i] += dj * in[i]
				prev[i] += dj * row[i]
			}
		}
		if l > 0 {
			for i := range prev {
				prev[i] *= dsilu(n.pres[l][i])
			}
		}
		delta = prev
	}
	return loss
}

func (n *net) loss(samples []Sample) float64 {
	var sum float64
	const eps = 1e-7
	for i := range samples {
		p := n.forward(samples[i].X)
		y := label(samples[i].Fit)
		sum += -(y*math.Log(p+eps) + (1-y)*math.Log(1-p+eps))
	}
	return sum / float64(len(samples))
}

func (n *net) checkFinite() error {
	for l := range n.gw {
		for _, g := range n.gw[l] {
			if math.IsNaN(g) || math.IsInf(g, 0) {
				return errors.New("gradient is not finite")
			}
		}
	}
	return nil
}

// merge puts networks of one shape side by side into one network whose
// output logit is the mean of theirs: each hidden layer is theirs
// concatenated, block-diagonal (no unit sees another network's units), and
// the output layer averages. One network merges into a copy of itself.
func merge(nets []*net) *net {
	k := len(nets)
	sizes := slices.Clone(nets[0].sizes)
	for l := 1; l < len(sizes)-1; l++ {
		sizes[l] *= k
	}
	m := &net{sizes: sizes}
	last := len(sizes) - 2
	for l := 0; l <= last; l++ {
		in, out := sizes[l], sizes[l+1]
		inOne, outOne := nets[0].sizes[l], nets[0].sizes[l+1]
		w, b := make([]float64, in*out), make([]float64, out)
		for n, src := range nets {
			inOff, outOff := 0, n*outOne // the member's block
			if l > 0 {
				inOff = n * inOne
			}
			if l == last {
				outOff = 0
			}
			for j := range outOne {
				for i := range inOne {
					v := src.w[l][j*inOne+i]
					if l == last {
						v /= float64(k)
					}
					w[(outOff+j)*in+inOff+i] += v
				}
				if l == last {
					b[j] += src.b[l][j] / float64(k)
				} else {
					b[outOff+j] = src.b[l][j]
				}
			}
		}
		m.w, m.b = append(m.w, w), append(m.b, b)
	}
	for _, s := range sizes {
		m.acts = append(m.acts, make([]float64, s))
		m.pres = append(m.pres, make([]float64, s))
	}
	return m
}

// model converts the trained network to an inference model.
func (n *net) model(h gate.Header) *gate.Model {
	var w, b [][]float32
	for l := range n.w {
		w, b = append(w, f32(n.w[l])), append(b, f32(n.b[l]))
	}
	return gate.NewModel(h, w, b)
}

func f32(v []float64) []float32 {
	out := make([]float32, len(v))
	for i, x := range v {
		out[i] = float32(x)
	}
	return out
}

// adam is the Adam optimiser (Kingma and Ba) with decoupled L2 decay.
type adam struct {
	lr, b1, b2 float64
	t          int
	mw, vw     [][]float64
	mb, vb     [][]float64
}

func newAdam(n *net, lr float64) *adam {
	a := &adam{lr: lr, b1: 0.9, b2: 0.999}
	for l := range n.w {
		a.mw, a.vw = append(a.mw, make([]float64, len(n.w[l]))), append(a.vw, make([]float64, len(n.w[l])))
		a.mb, a.vb = append(a.mb, make([]float64, len(n.b[l]))), append(a.vb, make([]float64, len(n.b[l])))
	}
	return a
}

func (a *adam) step(n *net, l2 float64) {
	a.t++
	c1, c2 := 1-math.Pow(a.b1, float64(a.t)), 1-math.Pow(a.b2, float64(a.t))
	upd := func(p, g, m, v []float64, decay float64) {
		for i := range p {
			m[i] = a.b1*m[i] + (1-a.b1)*g[i]
			v[i] = a.b2*v[i] + (1-a.b2)*g[i]*g[i]
			p[i] -= a.lr * ((m[i]/c1)/(math.Sqrt(v[i]/c2)+1e-8) + decay*p[i])
		}
	}
	for l := range n.w {
		upd(n.w[l], n.gw[l], a.mw[l], a.vw[l], l2)
		upd(n.b[l], n.gb[l], a.mb[l], a.vb[l], 0)
	}
}
