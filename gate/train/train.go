// Package train fits memgate's learned gate: it turns labelled cases (the
// evaluation case format) and reviewers' verdicts into training samples,
// trains the gate's network with Adam and early stopping on a dev set,
// deterministically for a seed, and calibrates per-bucket thresholds on dev.
package train

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"time"

	"github.com/memgate/memgate/admit"
	"github.com/memgate/memgate/embed"
	"github.com/memgate/memgate/eval"
	"github.com/memgate/memgate/gate"
	"github.com/memgate/memgate/policy"
)

// Options control training.
type Options struct {
	Seed         uint64
	Hidden       []int   // hidden layer widths; default [16]
	Epochs       int     // default 500
	Patience     int     // epochs without dev improvement before stopping; default 20
	LearningRate float64 // default 1e-3
	BatchSize    int     // default 64
	L2           float64 // default 1e-3
	// BlockDropout is the probability of zeroing the whole embedding
	// interaction block of a training sample, so the network cannot lean on
	// the wording of its training templates alone. Default 0.5; negative
	// disables it.
	BlockDropout float64
	// MinUtility is the share of useful dev memories every bucket's
	// threshold must keep admitted. Default 0.98.
	MinUtility float64
	Policy     *policy.Policy // the envelope; default policy.Default()
	// Now is used for cases without a time; default the suite's fixed time
	// so training is reproducible.
	Now      time.Time
	Progress func(epoch, epochs int, trainLoss, devLoss float64)
}

func (o *Options) defaults() {
	if len(o.Hidden) == 0 {
		o.Hidden = []int{16}
	}
	if o.Epochs <= 0 {
		o.Epochs = 500
	}
	if o.Patience <= 0 {
		o.Patience = 20
	}
	if o.LearningRate <= 0 {
		o.LearningRate = 1e-3
	}
	if o.BatchSize <= 0 {
		o.BatchSize = 64
	}
	if o.L2 < 0 {
		o.L2 = 0
	} else if o.L2 == 0 {
		o.L2 = 1e-3
	}
	if o.MinUtility <= 0 {
		o.MinUtility = 0.98
	}
	if o.BlockDropout == 0 {
		o.BlockDropout = 0.5
	} else if o.BlockDropout < 0 {
		o.BlockDropout = 0
	}
	if o.Policy == nil {
		o.Policy = policy.Default()
	}
	if o.Now.IsZero() {
		o.Now = time.Date(2026, 6, 11, 10, 0, 0, 0, time.UTC)
	}
}

// Sample is one labelled candidate.
type Sample struct {
	X      []float32
	Fit    bool   // the memory fits the task (should be admitted)
	Useful bool   // a useful memory (counts for utility retention)
	Bucket string // intent×toolRisk
}

// Samples turns cases into samples: every candidate the envelope does not
// deny and the case labels (expect, or useful) becomes one, with the label
// "fits" for admit, limited and useful, "does not fit" for exclude. Denied
// candidates are left out: the gate never sees them.
func Samples(ctx context.Context, cases []eval.Case, o Options) ([]Sample, error) {
	o.defaults()
	emb := embed.NewBuiltin()
	fx := gate.NewExtractor(embed.BuiltinDim)
	var out []Sample
	for i := range cases {
		c := &cases[i]
		if err := c.Check(); err != nil {
			return nil, fmt.Errorf("case %s: %w", c.ID, err)
		}
		p, err := eval.Prepare(ctx, c, o.Now, emb)
		if err != nil {
			return nil, fmt.Errorf("case %s: %w", c.ID, err)
		}
		pl := admit.Pipeline{Policy: o.Policy}
		results, err := pl.Run(ctx, &p.Context, p.Candidates)
		if err != nil {
			return nil, err
		}
		for j, r := range results {
			if r.Decision == admit.Deny {
				continue
			}
			id := r.MemoryID
			class, labelled := c.Expect[id]
			useful := slices.Contains(c.Useful, id)
			if !labelled && !useful {
				continue
			}
			fits := useful && !labelled || labelled && class != eval.ExpectExclude
			x := fx.Features(&p.Context, &p.Candidates[j], r.Decision)
			out = append(out, Sample{X: x, Fit: fits, Useful: useful && fits, Bucket: gate.Bucket(&p.Context)})
		}
	}
	return out, nil
}

// Hash returns the SHA-256 of cases' canonical JSON, recorded in a model so
// a shipped model can be checked against the data it claims.
func Hash(sets ...[]eval.Case) string {
	h := sha256.New()
	enc := json.NewEncoder(h)
	for _, cs := range sets {
		for i := range cs {
			enc.Encode(&cs[i])
		}
		h.Write([]byte{0})
	}
	return hex.EncodeToString(h.Sum(nil))
}

// Train fits a model on train samples, stops early on dev, and calibrates
// thresholds on dev.
func Train(train, dev []Sample, o Options) (*gate.Model, error) {
	o.defaults()
	if err := checkSamples("training", train, true); err != nil {
		return nil, err
	}
	if err := checkSamples("dev", dev, false); err != nil {
		return nil, err
	}
	benign := 0
	for _, s := range dev {
		if s.Useful {
			benign++
		}
	}
	if benign == 0 {
		return nil, errors.New("dev set has no useful (benign) memories: thresholds cannot be calibrated to keep utility")
	}
	d := len(train[0].X)
	sizes := append(append([]int{d}, o.Hidden...), 1)
	net := newNet(sizes, rand.New(rand.NewPCG(o.Seed, 0x9e3779b97f4a7c15)))
	// Balance the classes: each contributes half of the loss.
	pos := 0
	for _, s := range train {
		if s.Fit {
			pos++
		}
	}
	wPos, wNeg := float64(len(train))/(2*float64(pos)), float64(len(train))/(2*float64(len(train)-pos))
	opt := newAdam(net, o.LearningRate)
	r := rand.New(rand.NewPCG(o.Seed, 1))
	order := make([]int, len(train))
	for i := range order {
		order[i] = i
	}
	best, bestLoss, bestEpoch, since := net.clone(), math.Inf(1), 0, 0
	interaction := 2 * embed.BuiltinDim // the q⊙m and |q−m| block leads the features
	dropped := make([]float32, d)
	epoch := 0
	for epoch = 1; epoch <= o.Epochs; epoch++ {
		r.Shuffle(len(order), func(i, j int) { order[i], order[j] = order[j], order[i] })
		var sum float64
		for start := 0; start < len(order); start += o.BatchSize {
			batch := order[start:min(start+o.BatchSize, len(order))]
			net.zeroGrad()
			for _, i := range batch {
				s := &train[i]
				w := wNeg
				if s.Fit {
					w = wPos
				}
				x := s.X
				if o.BlockDropout > 0 {
					copy(dropped, x)
					if r.Float64() < o.BlockDropout {
						clear(dropped[:interaction])
					} else {
						for k := range interaction { // inverted dropout keeps the expected input
							dropped[k] /= float32(1 - o.BlockDropout)
						}
					}
					x = dropped
				}
				sum += w * net.backward(x, label(s.Fit), w/float64(len(batch)))
			}
			if err := net.checkFinite(); err != nil {
				return nil, fmt.Errorf("epoch %d: %w", epoch, err)
			}
			opt.step(net, o.L2)
		}
		devLoss := net.loss(dev)
		if math.IsNaN(devLoss) || math.IsInf(devLoss, 0) {
			return nil, fmt.Errorf("epoch %d: dev loss is not finite; lower the learning rate", epoch)
		}
		if o.Progress != nil {
			o.Progress(epoch, o.Epochs, sum/float64(len(train)), devLoss)
		}
		if devLoss < bestLoss-1e-6 {
			best, bestLoss, bestEpoch, since = net.clone(), devLoss, epoch, 0
		} else if since++; since >= o.Patience {
			break
		}
	}
	m := best.model(gate.Header{
		Format: gate.FormatVersion, Schema: gate.SchemaVersion, Embedder: embed.NewBuiltin().Identity(), Sizes: sizes,
		MinUtility: o.MinUtility,
		Training: gate.Training{Seed: o.Seed, Epochs: min(epoch, o.Epochs), BestEpoch: bestEpoch, TrainSamples: len(train),
			DevSamples: len(dev), DevLoss: bestLoss},
	})
	calibrate(m, dev, o.MinUtility)
	return m, nil
}

func label(fit bool) float64 {
	if fit {
		return 1
	}
	return 0
}

func checkSamples(name string, s []Sample, needBoth bool) error {
	if len(s) == 0 {
		return fmt.Errorf("%s set is empty", name)
	}
	pos := 0
	for i := range s {
		for _, v := range s[i].X {
			if math.IsNaN(float64(v)) || math.IsInf(float64(v), 0) {
				return fmt.Errorf("%s sample %d has a feature that is not finite", name, i)
			}
		}
		if len(s[i].X) != len(s[0].X) {
			return fmt.Errorf("%s sample %d has %d features, sample 0 has %d", name, i, len(s[i].X), len(s[0].X))
		}
		if s[i].Fit {
			pos++
		}
	}
	if needBoth && (pos == 0 || pos == len(s)) {
		return fmt.Errorf("%s set has a single class (%d of %d samples fit): a gate cannot learn from it", name, pos, len(s))
	}
	return nil
}

// MinBucketSamples is the dev evidence a bucket needs, in useful memories and
// in threats each, for a threshold of its own; other buckets use the
// threshold calibrated on the whole dev set.
const MinBucketSamples = 20

// calibrate sets thresholds on dev that maximise threat reduction (dev
// memories that do not fit and fall below the threshold) subject to keeping
// at least minUtility of the useful dev memories; among thresholds that
// remove as many threats it takes the lowest, which keeps the widest margin
// for useful memories the dev set does not show.
func calibrate(m *gate.Model, dev []Sample, minUtility float64) {
	g := gate.New(m)
	type scored struct {
		fit    float64
		fits   bool
		useful bool
	}
	byBucket := map[string][]scored{}
	var all []scored
	for i := range dev {
		s := scored{g.Score(dev[i].X), dev[i].Fit, dev[i].Useful}
		byBucket[dev[i].Bucket] = append(byBucket[dev[i].Bucket], s)
		all = append(all, s)
	}
	pick := func(ss []scored) float64 {
		var useful, threats []float64
		for _, s := range ss {
			if s.useful {
				useful = append(useful, s.fit)
			} else if !s.fits {
				threats = append(threats, s.fit)
			}
		}
		return threshold(useful, threats, minUtility)
	}
	m.Header.Thresholds = map[string]float64{}
	for b, ss := range byBucket {
		u, t := 0, 0
		for _, s := range ss {
			if s.useful {
				u++
			} else if !s.fits {
				t++
			}
		}
		if u >= MinBucketSamples && t >= MinBucketSamples {
			m.Header.Thresholds[b] = pick(ss)
		}
	}
	m.Header.DefaultThreshold = pick(all)
}

// threshold returns the lowest threshold that removes the most threats
// (fit < threshold) while keeping at least minUtility of useful (fit ≥
// threshold). With no threats it returns 0: no evidence, no lowering.
func threshold(useful, threats []float64, minUtility float64) float64 {
	slices.Sort(threats)
	kept := func(t float64) float64 {
		if len(useful) == 0 {
			return 1
		}
		n := 0
		for _, f := range useful {
			if f >= t {
				n++
			}
		}
		return float64(n) / float64(len(useful))
	}
	best := 0.0
	// Removing the k smallest threats needs a threshold just above the k-th.
	for k := 1; k <= len(threats); k++ {
		t := math.Nextafter(threats[k-1], 2)
		if k < len(threats) && threats[k] == threats[k-1] {
			continue // ties are removed together
		}
		if kept(t) < minUtility {
			break
		}
		best = t
	}
	return best
}
