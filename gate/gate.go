package gate

import (
	"context"
	"fmt"
	"sync"

	"github.com/memgate/memgate/admit"
	"github.com/memgate/memgate/embed"
)

// Gate is a learned admission gate (an admit.Gate). It is safe for
// concurrent use.
type Gate struct {
	m    *Model
	pool sync.Pool
	emb  *embed.Builtin // embeds texts whose vectors the caller did not supply
	// group layout for factor attribution
	names        []string
	starts, ends []int
}

// New returns a gate running model m.
func New(m *Model) *Gate {
	g := &Gate{m: m}
	g.pool.New = func() any { return m.newScratch() }
	if m.Header.Embedder.Name == embed.BuiltinName {
		g.emb = embed.NewBuiltin()
	}
	g.names, g.starts, g.ends = groupRanges(m.Header.Embedder.Dim)
	return g
}

// Model returns the gate's model.
func (g *Gate) Model() *Model { return g.m }

// Embedder is the identity of the embedder the model was trained for.
// Callers whose vectors come from another embedder pass none, and the gate
// embeds the texts itself when it can.
func (g *Gate) Embedder() embed.Identity { return g.m.Header.Embedder }

// CheckEmbedder reports an error if the gate's model was trained for vectors
// of another embedder than id.
func (g *Gate) CheckEmbedder(id embed.Identity) error {
	if id != g.m.Header.Embedder {
		return fmt.Errorf("gate model was trained for embedder %s, but the store uses %s: train a model for it with `memgate train`", g.m.Header.Embedder, id)
	}
	return nil
}

// Bucket names the threshold bucket of a task.
func Bucket(actx *admit.Context) string { return string(actx.Intent) + "×" + string(actx.ToolRisk) }

// Judge scores every candidate's fit to the task and lowers the decision of
// those below their bucket's threshold: to quarantine when the memory reads
// like an instruction to the agent, to rank_down otherwise. A model trained
// on the builtin embedder computes the query and memory embeddings itself
// when a candidate carries none, or carries vectors of another dimension.
func (g *Gate) Judge(ctx context.Context, actx *admit.Context, cands []*admit.Candidate, results []*admit.Result) error {
	if len(cands) == 0 {
		return nil
	}
	s := g.pool.Get().(*scratch)
	defer g.pool.Put(s)
	d := g.m.Header.Embedder.Dim
	q := cands[0].QueryVector
	if len(q) != d {
		if g.emb == nil || d != embed.BuiltinDim {
			return fmt.Errorf("gate: query vector has dimension %d; the model needs %s", len(q), g.m.Header.Embedder)
		}
		s.q = grow(s.q, d)
		g.emb.EmbedInto(s.q, cands[0].Query)
		q = s.q
	}
	t := g.m.Threshold(Bucket(actx))
	var factors []string // one backing array per call, sliced per lowered candidate
	for i, c := range cands {
		m := c.Vector
		if len(m) != d {
			if g.emb == nil || d != embed.BuiltinDim {
				return fmt.Errorf("gate: memory %s vector has dimension %d; the model needs %s", c.Memory.ID, len(m), g.m.Header.Embedder)
			}
			s.v = grow(s.v, d)
			g.emb.EmbedInto(s.v, c.Memory.Text)
			m = s.v
		}
		r := results[i]
		fired := s.ext.features(s.x, actx, &Input{Candidate: c, Decision: r.Decision}, q, m, actx.Now)
		fit := g.m.forward(s)
		r.Scores.GateFit, r.Scores.GateThreshold = fit, t
		if fit >= t {
			continue
		}
		decision := admit.RankDown
		if fired&signalInstruction != 0 {
			decision = admit.Quarantine
		}
		r.Restrict(decision, admit.ReasonGateLowFit, admit.Constraints{})
		if fired&signalInstruction != 0 {
			r.Restrict(decision, admit.ReasonInstructionLike, admit.Constraints{})
		}
		if relation(actx.Domain, c.Memory.Domain) == 1 {
			r.Restrict(decision, admit.ReasonGateDomainMismatch, admit.Constraints{})
		}
		if factors == nil {
			factors = make([]string, 0, 3*len(cands))
		}
		start := len(factors)
		factors = g.topFactors(s, fit, factors, 3)
		r.Scores.GateFactors = factors[start:len(factors):len(factors)]
	}
	return ctx.Err()
}

// topFactors appends the names of the n feature groups whose removal raises
// the fit most: the ones that drove it down. It must follow the forward pass
// that produced fit.
func (g *Gate) topFactors(s *scratch, fit float64, dst []string, n int) []string {
	type delta struct {
		group int
		d     float64
	}
	var ds [32]delta
	k := 0
	z := append(s.zTmp[:0], s.z1...)
	for gi := range g.names {
		if up := g.m.without(s, g.starts[gi], g.ends[gi], z) - fit; up > 0 && k < len(ds) {
			ds[k] = delta{gi, up}
			k++
		}
	}
	s.zTmp = z
	for i := 0; i < n && i < k; i++ { // partial selection sort: n is tiny
		best := i
		for j := i + 1; j < k; j++ {
			if ds[j].d > ds[best].d {
				best = j
			}
		}
		ds[i], ds[best] = ds[best], ds[i]
		dst = append(dst, g.names[ds[i].group])
	}
	return dst
}

func grow(b []float32, n int) []float32 {
	if cap(b) < n {
		return make([]float32, n)
	}
	return b[:n]
}

// Score returns the model's fit for a feature vector (from an Extractor).
func (g *Gate) Score(x []float32) float64 {
	s := g.pool.Get().(*scratch)
	defer g.pool.Put(s)
	copy(s.x, x)
	return g.m.forward(s)
}
