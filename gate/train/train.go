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
	"runtime"
	"slices"
	"sync"
	"time"

	"github.com/memgate/memgate/admit"
	"github.com/memgate/memgate/embed"
	"github.com/memgate/memgate/eval"
	"github.com/memgate/memgate/gate"
	"github.com/memgate/memgate/policy"
)

// Options control training.
type Options struct {
	Seed   uint64
	Hidden []int // hidden layer widths of each member; default [16]
	// Members is how many networks are trained, from different seeds, and
	// averaged (their logits): one network's judgement of data it was not
	// trained on swings with its seed, an average of several much less.
	// The members are merged into one network whose hidden layers are
	// theirs side by side, so the model file and the gate do not change.
	// Default 3.
	Members      int
	Epochs       int     // default 500
	Patience     int     // epochs without dev improvement before stopping; default 20
	LearningRate float64 // default 1e-3
	BatchSize    int     // default 64
	L2           float64 // default 1e-3
	// MetadataDropout is the probability of replacing a training sample's
	// metadata (authority, kind, classification, age, scope relations) by
	// that of a memory without any, so the network learns to judge content
	// and cannot rest a decision on metadata alone. Default 0.5; negative
	// disables it.
	MetadataDropout float64
	// MinUtility is the share of useful dev memories every bucket's
	// threshold must keep admitted. Default 0.98.
	MinUtility float64
	Policy     *policy.Policy // the envelope; default policy.Default()
	// Embedder computes the query and memory vectors the model is trained
	// on; the model then needs that embedder's vectors at run time. Default
	// the builtin embedder. Bring your own semantic embedder here for the
	// best quality.
	Embedder Embedder
	// Now is used for cases without a time; default the suite's fixed time
	// so training is reproducible.
	Now time.Time
	// Progress, if set, is called after each epoch of the first member
	// (the others train alongside it), from a goroutine of Train's, never
	// concurrently.
	Progress func(epoch, epochs int, trainLoss, devLoss float64)
	// ZeroInputs are features (indices into a sample's X) the model is to
	// ignore, for an ablation: they read 0 in every training and dev
	// sample, the model's weights on them are 0, and the model records
	// them (Header.Ignored) so that the gate reads them as 0 too, in its
	// reasons' evidence as well. Its initial weights are those of a model
	// that reads them, so comparing the two measures what the inputs add,
	// not the noise of another initialisation.
	ZeroInputs []int
}

func (o *Options) defaults() {
	if len(o.Hidden) == 0 {
		o.Hidden = []int{16}
	}
	if o.Members <= 0 {
		o.Members = 3
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
	if o.MetadataDropout == 0 {
		o.MetadataDropout = 0.5
	} else if o.MetadataDropout < 0 {
		o.MetadataDropout = 0
	}
	if o.Policy == nil {
		o.Policy = policy.Default()
	}
	if o.Now.IsZero() {
		o.Now = time.Date(2026, 6, 11, 10, 0, 0, 0, time.UTC)
	}
}

// Embedder computes vectors for texts (memgate.Embedder).
type Embedder interface {
	Identity() embed.Identity
	Embed(ctx context.Context, texts []string) ([][]float32, error)
}

func (o *Options) embedder() embed.Identity {
	if o.Embedder == nil {
		return embed.NewBuiltin().Identity()
	}
	return o.Embedder.Identity()
}

// Sample is one labelled candidate.
type Sample struct {
	X      []float32
	Fit    bool   // the memory fits the task (should be admitted)
	Useful bool   // a useful memory (counts for utility retention)
	Bucket string // intent×toolRisk
	// Instruction labels the instruction head: 1 for a threat of an
	// instruction category (see InstructionCategories), 0 for a memory
	// that fits, -1 for neither (left out of the head's training).
	Instruction int8
	// Bytes is the length of the memory's text.
	Bytes int
}

// InstructionCategories are the case categories whose must-exclude memories
// are instructions addressed to the agent: the positives of the instruction
// head.
// (Planted false facts, such as poisoned retrieval passages, are threats but
// not instructions: the fit network learns them.)
var InstructionCategories = []string{"planted_instruction", "tool_drift", "tool_experience", "external_content", "prompt_injection"}

// Samples turns cases into samples: every candidate the envelope does not
// deny and the case labels (expect, or useful) becomes one, with the label
// "fits" for admit, limited and useful, "does not fit" for exclude. The
// gate judges a task's candidates together, so features are computed over
// the set of candidates the envelope let through, as at run time; denied
// candidates are left out: the gate never sees them.
func Samples(ctx context.Context, cases []eval.Case, o Options) ([]Sample, error) {
	o.defaults()
	emb := embed.NewBuiltin()
	fx := gate.NewExtractor()
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
		var seen []*admit.Candidate
		for j, r := range results {
			if r.Decision != admit.Deny {
				seen = append(seen, &p.Candidates[j])
			} else if p.Candidates[j].Memory.Revoked {
				// as the pipeline does for the gate at run time
				p.Context.Withdrawn = append(p.Context.Withdrawn, p.Candidates[j].Memory.Text)
			}
		}
		if err := reembed(ctx, o.Embedder, c.Query, seen); err != nil {
			return nil, fmt.Errorf("case %s: %w", c.ID, err)
		}
		xs := fx.Features(&p.Context, seen)
		instructionCase := slices.Contains(InstructionCategories, c.Category)
		for j, cd := range seen {
			id := cd.Memory.ID
			class, labelled := c.Expect[id]
			useful := slices.Contains(c.Useful, id)
			if !labelled && !useful {
				continue
			}
			fits := useful && !labelled || labelled && class != eval.ExpectExclude
			inst := int8(-1)
			switch {
			case fits:
				inst = 0
			case instructionCase:
				inst = 1
			}
			out = append(out, Sample{X: xs[j], Fit: fits, Useful: useful && fits, Bucket: gate.Bucket(&p.Context),
				Instruction: inst, Bytes: len(cd.Memory.Text)})
		}
	}
	return out, nil
}

// reembed replaces the builtin vectors of cands (and the query's) with
// those of emb, when emb is set.
func reembed(ctx context.Context, emb Embedder, query string, cands []*admit.Candidate) error {
	if emb == nil || len(cands) == 0 {
		return nil
	}
	texts := make([]string, len(cands)+1)
	texts[0] = query
	for i, c := range cands {
		texts[i+1] = c.Memory.Text
	}
	vecs, err := emb.Embed(ctx, texts)
	if err != nil {
		return fmt.Errorf("embed with %s: %w", emb.Identity(), err)
	}
	if err := embed.Check(vecs, len(texts), emb.Identity().Dim); err != nil {
		return fmt.Errorf("embedder %s: %w", emb.Identity(), err)
	}
	for i, c := range cands {
		c.QueryVector, c.Vector = vecs[0], vecs[i+1]
	}
	return nil
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
	if len(o.ZeroInputs) > 0 {
		for _, i := range o.ZeroInputs {
			if i < 0 || i >= d {
				return nil, fmt.Errorf("ZeroInputs: feature %d out of range [0, %d)", i, d)
			}
		}
		train, dev = zeroInputs(train, o.ZeroInputs), zeroInputs(dev, o.ZeroInputs)
	}
	sizes := append(append([]int{d}, o.Hidden...), 1)
	if n := mergedParams(sizes, o.Members); n > gate.MaxParams {
		return nil, fmt.Errorf("%d members of layers %v make %d parameters; a model holds at most %d", o.Members, sizes, n, gate.MaxParams)
	}
	// The members train side by side, each from its own seeds; the result
	// does not depend on how they are scheduled.
	members := make([]fitted, o.Members)
	var wg sync.WaitGroup
	sem := make(chan struct{}, max(1, runtime.GOMAXPROCS(0)))
	for k := range members {
		wg.Go(func() {
			sem <- struct{}{}
			defer func() { <-sem }()
			defer func() {
				if p := recover(); p != nil {
					members[k] = fitted{err: fmt.Errorf("panic: %v", p)}
				}
			}()
			members[k] = fitMember(train, dev, sizes, o, uint64(k))
		})
	}
	wg.Wait()
	nets := make([]*net, len(members))
	epochs, bestEpoch := 0, 0
	for k, f := range members {
		if f.err != nil {
			return nil, fmt.Errorf("member %d: %w", k, f.err)
		}
		nets[k] = f.best
		epochs, bestEpoch = max(epochs, f.epochs), max(bestEpoch, f.bestEpoch)
	}
	merged := merge(nets)
	for _, i := range o.ZeroInputs { // weights on them never moved the output in training; now they never will
		for j := range merged.sizes[1] {
			merged.w[0][j*d+i] = 0
		}
	}
	m := merged.model(gate.Header{
		Format: gate.FormatVersion, Schema: gate.SchemaVersion, Embedder: o.embedder(), Sizes: merged.sizes,
		MinUtility: o.MinUtility,
		Training: gate.Training{Seed: o.Seed, Members: o.Members, Epochs: epochs, BestEpoch: bestEpoch, TrainSamples: len(train),
			DevSamples: len(dev), DevLoss: merged.loss(dev)},
	})
	m.Header.Instruction = trainInstruction(train, dev, o)
	m.Header.Ignored = slices.Clone(o.ZeroInputs)
	calibrate(m, dev, o.MinUtility)
	m.Header.Range = coverage(train, m)
	m.Header.Features = gate.FeatureFingerprint()
	return m, nil
}

// zeroInputs returns samples with the features idx set to 0, leaving the
// caller's samples as they were.
func zeroInputs(samples []Sample, idx []int) []Sample {
	out := slices.Clone(samples)
	for k := range out {
		x := slices.Clone(out[k].X)
		for _, i := range idx {
			x[i] = 0
		}
		out[k].X = x
	}
	return out
}

// mergedParams is the number of parameters of members networks of sizes
// merged into one (merge).
func mergedParams(sizes []int, members int) int {
	n := 0
	for l := 1; l < len(sizes); l++ {
		in, out := sizes[l-1], sizes[l]
		if l > 1 {
			in *= members
		}
		if l < len(sizes)-1 {
			out *= members
		}
		n += in*out + out
	}
	return n
}

// fitted is one member's training outcome.
type fitted struct {
	best              *net
	epochs, bestEpoch int
	err               error
}

// initNet returns member k's network before training. When keys name
// every input (gate.InputKeys for the gate's features), each input's
// first-layer weights come from a stream of its own, seeded by the
// training seed and the input's key: a feature added to a group leaves
// every other feature's initial weights as they were but for the He
// scale's fan-in, so a new input is compared with the model without it
// from the same start. A network of another width (in tests) draws all
// its weights from one stream of the seed.
func initNet(sizes []int, o Options, k uint64, keys []uint64) *net {
	var inputs []*rand.Rand
	if len(keys) == sizes[0] {
		inputs = make([]*rand.Rand, len(keys))
		for i, key := range keys {
			inputs[i] = rand.New(rand.NewPCG(o.Seed^key, 0x9e3779b97f4a7c15+k))
		}
	}
	return newNet(sizes, rand.New(rand.NewPCG(o.Seed, 0x9e3779b97f4a7c15+k)), inputs)
}

// fitMember trains member k of a model: class-balanced binary cross-entropy
// with Adam, metadata dropout, and early stopping on dev loss.
func fitMember(train, dev []Sample, sizes []int, o Options, k uint64) fitted {
	d := sizes[0]
	net := initNet(sizes, o, k, gate.InputKeys())
	// Balance the classes: each contributes half of the loss.
	pos := 0
	for _, s := range train {
		if s.Fit {
			pos++
		}
	}
	wPos, wNeg := float64(len(train))/(2*float64(pos)), float64(len(train))/(2*float64(len(train)-pos))
	opt := newAdam(net, o.LearningRate)
	r := rand.New(rand.NewPCG(o.Seed, 1+k<<32))
	order := make([]int, len(train))
	for i := range order {
		order[i] = i
	}
	best, bestLoss, bestEpoch, since := net.clone(), math.Inf(1), 0, 0
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
				if o.MetadataDropout > 0 && r.Float64() < o.MetadataDropout {
					copy(dropped, x)
					gate.DropMetadata(dropped)
					x = dropped
				}
				sum += w * net.backward(x, label(s.Fit), w/float64(len(batch)))
			}
			if err := net.checkFinite(); err != nil {
				return fitted{err: fmt.Errorf("epoch %d: %w", epoch, err)}
			}
			opt.step(net, o.L2)
		}
		devLoss := net.loss(dev)
		if math.IsNaN(devLoss) || math.IsInf(devLoss, 0) {
			return fitted{err: fmt.Errorf("epoch %d: dev loss is not finite; lower the learning rate", epoch)}
		}
		if o.Progress != nil && k == 0 {
			o.Progress(epoch, o.Epochs, sum/float64(len(train)), devLoss)
		}
		if devLoss < bestLoss-1e-6 {
			best, bestLoss, bestEpoch, since = net.clone(), devLoss, epoch, 0
		} else if since++; since >= o.Patience {
			break
		}
	}
	return fitted{best: best, epochs: min(epoch, o.Epochs), bestEpoch: bestEpoch}
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

// trainInstruction fits the instruction head, a logistic regression over the
// instruction features, on the samples labelled for it (threats of the
// instruction categories against memories that fit), class-balanced, with
// full-batch Adam. The gate quarantines, whatever the fit, a memory that
// addresses the agent (gate.Addresses) and scores at or above the head's
// threshold, so the threshold is set on dev on those scores (0 for a
// memory that does not address the agent): so that at most 1% of the
// memories that fit score above it (at least 0.5), then raised up to the
// lowest dev threat score at or above that. It must rarely fire on useful
// memory. Without positives in training the head is off (threshold 0).
func trainInstruction(train, dev []Sample, o Options) gate.Linear {
	start, end := gate.InstructionRange()
	d := end - start
	head := gate.Linear{W: make([]float64, d)}
	use := gate.InstructionHeadInputs()
	var xs [][]float32
	var ys []float64
	pos := 0
	for i := range train {
		if train[i].Instruction < 0 {
			continue
		}
		xs = append(xs, train[i].X[start:end])
		ys = append(ys, float64(train[i].Instruction))
		pos += int(train[i].Instruction)
	}
	if pos == 0 || pos == len(xs) {
		return head
	}
	wPos, wNeg := float64(len(xs))/(2*float64(pos)), float64(len(xs))/(2*float64(len(xs)-pos))
	w := make([]float64, d+1) // bias last
	m, v := make([]float64, d+1), make([]float64, d+1)
	g := make([]float64, d+1)
	const lr, beta1, beta2, eps, l2 = 0.05, 0.9, 0.999, 1e-8, 1e-3
	for step := 1; step <= 2000; step++ {
		clear(g)
		for i, x := range xs {
			z := w[d]
			for k := range d {
				z += w[k] * float64(x[k])
			}
			p := 1 / (1 + math.Exp(-z))
			wt := wNeg
			if ys[i] == 1 {
				wt = wPos
			}
			e := wt * (p - ys[i]) / float64(len(xs))
			for k := range d {
				g[k] += e * float64(x[k])
			}
			g[d] += e
		}
		for k := range d {
			g[k] += l2 * w[k]
			if !use[k] {
				g[k] = 0 // the head reads only how a memory addresses the agent
			}
		}
		for k := range w {
			m[k] = beta1*m[k] + (1-beta1)*g[k]
			v[k] = beta2*v[k] + (1-beta2)*g[k]*g[k]
			mh := m[k] / (1 - math.Pow(beta1, float64(step)))
			vh := v[k] / (1 - math.Pow(beta2, float64(step)))
			w[k] -= lr * mh / (math.Sqrt(vh) + eps)
		}
	}
	copy(head.W, w[:d])
	head.B = w[d]
	// The head quarantines only a memory that addresses the agent
	// (gate.Addresses): calibrate on that score, 0 for the others.
	score := func(x []float32) float64 {
		if !gate.Addresses(x) {
			return 0
		}
		return head.Score(x)
	}
	var fits, threats []float64
	for i := range dev {
		switch {
		case dev[i].Fit:
			fits = append(fits, score(dev[i].X[start:end]))
		case dev[i].Instruction == 1:
			threats = append(threats, score(dev[i].X[start:end]))
		}
	}
	head.Threshold = 0.5
	if len(fits) > 0 {
		slices.Sort(fits)
		k := int(math.Ceil(0.99*float64(len(fits)))) - 1 // at most 1% score above fits[k]
		head.Threshold = min(1, math.Max(0.5, math.Nextafter(fits[k], 2)))
	}
	// Then as far from the useful memories as the dev threats allow: up to
	// the lowest threat score at or above it, which keeps every dev threat
	// the head catches and quarantines fewer useful memories (the scores
	// come in steps, one per combination of cues, and a threshold just
	// above the 99th percentile of useful memories sits on a step of
	// theirs).
	lowest := math.Inf(1)
	for _, t := range threats {
		if t >= head.Threshold {
			lowest = min(lowest, t)
		}
	}
	if !math.IsInf(lowest, 1) {
		head.Threshold = lowest
	}
	return head
}

// coverage records what the training samples covered: the longest memory
// text, and the buckets with both useful memories and threats in training or
// calibration.
func coverage(train []Sample, m *gate.Model) gate.Range {
	r := gate.Range{Buckets: []string{}} // empty, not nil: nil means a model that records no coverage
	useful, threats := map[string]bool{}, map[string]bool{}
	for i := range train {
		r.MaxBytes = max(r.MaxBytes, train[i].Bytes)
		if train[i].Useful {
			useful[train[i].Bucket] = true
		} else if !train[i].Fit {
			threats[train[i].Bucket] = true
		}
	}
	for b := range useful {
		if threats[b] {
			r.Buckets = append(r.Buckets, b)
		}
	}
	for b := range m.Header.Thresholds {
		if !slices.Contains(r.Buckets, b) {
			r.Buckets = append(r.Buckets, b)
		}
	}
	slices.Sort(r.Buckets)
	return r
}
