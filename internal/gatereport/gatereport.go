// Package gatereport builds the gate's training data from the built-in suite
// and the public datasets, trains the shipped model, and measures the gate on
// data it never saw: leave-one-source-out over the public sources at equal
// context size, beside the suite's unseen test families. scripts/gate-report.sh
// runs it and writes docs/gate-report.md; scripts/train-default-gate.sh uses
// the same training sets for gate/default.model.
package gatereport

import (
	"context"
	"errors"
	"fmt"
	"hash/fnv"
	"io"
	"reflect"
	"slices"
	"strings"
	"time"

	"github.com/memgate/memgate/eval"
	"github.com/memgate/memgate/eval/public"
	"github.com/memgate/memgate/eval/suite"
	"github.com/memgate/memgate/gate"
	"github.com/memgate/memgate/gate/train"
)

// Suite parameters of the training data: the seed and cases per family
// the shipped model is trained with.
const (
	SuiteSeed      = 1
	SuitePerFamily = 50
)

// DevShare is the share of each public source's cases, chosen by a hash of
// the case id, that goes to the dev set (early stopping and calibration)
// rather than to training.
const DevShare = 0.2

// Data is everything the gate is trained and measured on.
type Data struct {
	Suite  map[string][]eval.Case // by split
	Public map[string][]eval.Case // by source
}

// Load generates the suite and converts the public sources under root
// (data/public).
func Load(root string) (*Data, error) {
	pub, err := public.Convert(root)
	if err != nil {
		return nil, err
	}
	return &Data{Suite: suite.Generate(SuiteSeed, SuitePerFamily), Public: pub}, nil
}

// Sources are the public sources, in order.
func (d *Data) Sources() []string {
	out := make([]string, 0, len(d.Public))
	for s := range d.Public {
		out = append(out, s)
	}
	slices.Sort(out)
	return out
}

// IsDev reports whether a public case goes to dev.
func IsDev(id string) bool {
	h := fnv.New32a()
	h.Write([]byte(id))
	return float64(h.Sum32()%1000) < DevShare*1000
}

// TrainingSets returns the training and dev cases: the suite's train and dev
// splits, and every public source but those in leaveOut, split by DevShare.
func (d *Data) TrainingSets(leaveOut ...string) (trainSet, devSet []eval.Case) {
	trainSet = slices.Clone(d.Suite[suite.Train])
	devSet = slices.Clone(d.Suite[suite.Dev])
	for _, s := range d.Sources() {
		if slices.Contains(leaveOut, s) {
			continue
		}
		for _, c := range d.Public[s] {
			if IsDev(c.ID) {
				devSet = append(devSet, c)
			} else {
				trainSet = append(trainSet, c)
			}
		}
	}
	return trainSet, devSet
}

// samples caches the samples of each case, so that the folds of
// leave-one-source-out share one feature extraction.
type samples struct {
	byCase map[string][]train.Sample
}

func (d *Data) samples(ctx context.Context, o train.Options) (*samples, error) {
	s := &samples{byCase: map[string][]train.Sample{}}
	add := func(cs []eval.Case) error {
		for i := range cs {
			ss, err := train.Samples(ctx, cs[i:i+1], o)
			if err != nil {
				return err
			}
			s.byCase[key(&cs[i])] = ss
		}
		return nil
	}
	for _, split := range []string{suite.Train, suite.Dev} {
		if err := add(d.Suite[split]); err != nil {
			return nil, err
		}
	}
	for _, src := range d.Sources() {
		if err := add(d.Public[src]); err != nil {
			return nil, err
		}
	}
	return s, nil
}

func key(c *eval.Case) string {
	if c.Origin != nil {
		return c.Origin.Benchmark + "/" + c.ID
	}
	return "suite/" + c.ID
}

func (s *samples) of(cs []eval.Case) []train.Sample {
	var out []train.Sample
	for i := range cs {
		out = append(out, s.byCase[key(&cs[i])]...)
	}
	return out
}

// Train trains a model on the training sets without the sources in leaveOut.
func (d *Data) Train(ctx context.Context, o train.Options, leaveOut ...string) (*gate.Model, error) {
	tr, dev := d.TrainingSets(leaveOut...)
	trs, err := train.Samples(ctx, tr, o)
	if err != nil {
		return nil, err
	}
	devs, err := train.Samples(ctx, dev, o)
	if err != nil {
		return nil, err
	}
	m, err := train.Train(trs, devs, o)
	if err != nil {
		return nil, err
	}
	m.Header.TrainingDataHash = train.Hash(tr, dev)
	return m, nil
}

// SuiteTest names the row of the suite's unseen test families.
const SuiteTest = "suite test split"

// Row is one held-out measurement.
type Row struct {
	Held   string        // the held-out source, or SuiteTest
	Cases  int           // cases evaluated
	Full   *eval.Metrics // envelope and gate
	Policy *eval.Metrics // envelope alone
	Sim    *eval.Metrics // similarity alone
}

// Report is the leave-one-source-out result.
type Report struct {
	Rows    []Row
	K       int           // the context size every baseline was held to
	Elapsed time.Duration // wall time of the whole run
	Options train.Options // how each gate was trained
}

// Trainer extracts the features of every case once and returns a
// function that trains a model, as Train does, on the training sets
// without the sources in leaveOut (the model records no training-data
// hash): the folds of a leave-one-source-out run share one extraction.
func (d *Data) Trainer(ctx context.Context, o train.Options) (func(leaveOut ...string) (*gate.Model, error), error) {
	cache, err := d.samples(ctx, o)
	if err != nil {
		return nil, err
	}
	return func(leaveOut ...string) (*gate.Model, error) {
		tr, dev := d.TrainingSets(leaveOut...)
		return train.Train(cache.of(tr), cache.of(dev), o)
	}, nil
}

// LOSO trains one model per public source on everything else and measures
// it on the held-out source, then measures the model trained on everything
// but the suite's test split on that split. Every measurement is at equal
// context size (k).
func (d *Data) LOSO(ctx context.Context, o train.Options, k int, progress func(string)) (*Report, error) {
	return d.loso(ctx, o, k, false, progress)
}

// DevLOSO is LOSO measured on each held-out source's dev share only (the
// cases DevShare sends to dev), without the suite's test split: an estimate
// of how the gate does on a source it was not trained on, for choosing
// features and hyperparameters without looking at a test set. Each model
// is trained, as in LOSO, without any case of the held-out source.
func (d *Data) DevLOSO(ctx context.Context, o train.Options, k int, progress func(string)) (*Report, error) {
	return d.loso(ctx, o, k, true, progress)
}

func (d *Data) loso(ctx context.Context, o train.Options, k int, devOnly bool, progress func(string)) (*Report, error) {
	start := time.Now()
	if progress == nil {
		progress = func(string) {}
	}
	progress("extracting features")
	trainWithout, err := d.Trainer(ctx, o)
	if err != nil {
		return nil, err
	}
	rep := &Report{K: k, Options: o}
	run := func(held string, cases []eval.Case, leaveOut ...string) error {
		m, err := trainWithout(leaveOut...)
		if err != nil {
			return fmt.Errorf("train without %s: %w", held, err)
		}
		r, err := eval.Run(ctx, cases, eval.Options{Mode: eval.ModeAdmit, K: k, Gate: gate.New(m), Now: suite.Now})
		if err != nil {
			return fmt.Errorf("evaluate %s: %w", held, err)
		}
		rep.Rows = append(rep.Rows, Row{Held: held, Cases: len(cases), Full: r.ByBaseline[string(eval.Full)],
			Policy: r.ByBaseline[string(eval.PolicyOnly)], Sim: r.ByBaseline[string(eval.Similarity)]})
		progress(fmt.Sprintf("%s: done", held))
		return nil
	}
	for _, src := range d.Sources() {
		cases := d.Public[src]
		if devOnly {
			cases = slices.DeleteFunc(slices.Clone(cases), func(c eval.Case) bool { return !IsDev(c.ID) })
		}
		if err := run(src, cases, src); err != nil {
			return nil, err
		}
	}
	if !devOnly {
		if err := run(SuiteTest, d.Suite[suite.Test]); err != nil {
			return nil, err
		}
	}
	rep.Elapsed = time.Since(start)
	return rep, nil
}

// Markdown writes the report as a table.
func (r *Report) Markdown(w io.Writer) error {
	var b strings.Builder
	r.markdown(&b)
	_, err := io.WriteString(w, b.String())
	return err
}

func (r *Report) markdown(w io.Writer) {
	fmt.Fprintf(w, "| held out | cases | gate AUROC | utility (full) | of it as a marked summary | utility (policy) | over-admission: similarity | policy | full | full, not as a marked summary | rank-down rate (full) | out of range |\n")
	fmt.Fprintf(w, "|---|---|---|---|---|---|---|---|---|---|---|---|\n")
	for _, row := range r.Rows {
		f, p, s := row.Full, row.Policy, row.Sim
		if f == nil {
			fmt.Fprintf(w, "| %s | %d | — | — | — | %s | %s | %s | — | — | — | — |\n", row.Held, row.Cases,
				count(p, eval.MUtility), count(s, eval.MOverAdmission), count(p, eval.MOverAdmission))
			continue
		}
		fmt.Fprintf(w, "| %s | %d | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n", row.Held, row.Cases,
			num(f.GateAUROC), count(f, eval.MUtility), count(f, eval.MUsefulSummary), count(p, eval.MUtility),
			count(s, eval.MOverAdmission), count(p, eval.MOverAdmission), count(f, eval.MOverAdmission),
			notSummary(f), num(f.RankDownRate), num(f.GateOutOfRangeRate))
	}
}

func num(v *float64) string {
	if v == nil {
		return "—"
	}
	return fmt.Sprintf("%.3f", *v)
}

func count(m *eval.Metrics, name string) string {
	if m == nil {
		return "—"
	}
	c, ok := m.Counts[name]
	if !ok || c.Den == 0 {
		return "—"
	}
	return fmt.Sprintf("%.3f (%d/%d)", float64(c.Num)/float64(c.Den), c.Num, c.Den)
}

// notSummary is the over-admission that entered the context other than as a
// marked, non-bindable summary.
func notSummary(m *eval.Metrics) string {
	if m == nil {
		return "—"
	}
	all, part := m.Counts[eval.MOverAdmission], m.Counts[eval.MPartialOverAdmission]
	if all.Den == 0 {
		return "—"
	}
	n := all.Num - part.Num
	return fmt.Sprintf("%.3f (%d/%d)", float64(n)/float64(all.Den), n, all.Den)
}

// Check compares the report with the floors and returns one line per
// row that misses one; empty when every floor holds.
func (r *Report) Check(poisoning []string) []string {
	var out []string
	for _, row := range r.Rows {
		f := row.Full
		if f == nil {
			continue
		}
		var miss []string
		if row.Held != SuiteTest {
			if f.GateAUROC != nil && *f.GateAUROC < 0.85 {
				miss = append(miss, fmt.Sprintf("gate AUROC %.3f < 0.85", *f.GateAUROC))
			}
		}
		if u := f.Counts[eval.MUtility]; u.Den > 0 && float64(u.Num)/float64(u.Den) < 0.97 {
			miss = append(miss, fmt.Sprintf("utility %d/%d < 0.97", u.Num, u.Den))
		}
		all, part := f.Counts[eval.MOverAdmission], f.Counts[eval.MPartialOverAdmission]
		limit := 0.30
		if slices.Contains(poisoning, row.Held) {
			limit = 0.25
		}
		if all.Den > 0 && float64(all.Num-part.Num)/float64(all.Den) > limit {
			miss = append(miss, fmt.Sprintf("over-admission not as a summary %.3f > %.2f", float64(all.Num-part.Num)/float64(all.Den), limit))
		}
		if len(miss) > 0 {
			out = append(out, row.Held+": "+strings.Join(miss, "; "))
		}
	}
	slices.Sort(out)
	return out
}

// Seeds writes, for reports of one configuration trained with different
// seeds, each source's gate AUROC per seed and its mean, the lowest utility
// any seed gave it, and the mean AUROC over the sources with threats per
// seed and over all seeds: a comparison on dev needs several seeds, since
// one source's AUROC moves by more from seed to seed than most changes do.
func Seeds(w io.Writer, seeds []uint64, reps []*Report) error {
	if len(seeds) != len(reps) || len(reps) == 0 {
		return fmt.Errorf("%d seeds for %d reports", len(seeds), len(reps))
	}
	var b strings.Builder
	b.WriteString("| held out |")
	for _, s := range seeds {
		fmt.Fprintf(&b, " AUROC, seed %d |", s)
	}
	b.WriteString(" mean AUROC | lowest utility |\n|---|")
	b.WriteString(strings.Repeat("---|", len(seeds)+2) + "\n")
	means := make([]float64, len(reps)) // per seed: mean over the sources with threats
	counted := make([]int, len(reps))
	for j, r := range reps {
		if len(r.Rows) != len(reps[0].Rows) {
			return fmt.Errorf("seed %d's report holds other sources than seed %d's", seeds[j], seeds[0])
		}
	}
	for i, row := range reps[0].Rows {
		fmt.Fprintf(&b, "| %s |", row.Held)
		sum, n, lowest := 0.0, 0, -1.0
		for j, r := range reps {
			if r.Rows[i].Held != row.Held {
				return fmt.Errorf("seed %d's report holds other sources than seed %d's", seeds[j], seeds[0])
			}
			f := r.Rows[i].Full
			if f == nil { // a row without the gate's measurement
				f = &eval.Metrics{}
			}
			fmt.Fprintf(&b, " %s |", num(f.GateAUROC))
			if f.GateAUROC != nil {
				sum, n = sum+*f.GateAUROC, n+1
				if row.Held != SuiteTest {
					means[j], counted[j] = means[j]+*f.GateAUROC, counted[j]+1
				}
			}
			if u := f.Counts[eval.MUtility]; u.Den > 0 {
				if v := float64(u.Num) / float64(u.Den); lowest < 0 || v < lowest {
					lowest = v
				}
			}
		}
		mean, low := "—", "—"
		if n > 0 {
			mean = fmt.Sprintf("%.3f", sum/float64(n))
		}
		if lowest >= 0 {
			low = fmt.Sprintf("%.3f", lowest)
		}
		fmt.Fprintf(&b, " %s | %s |\n", mean, low)
	}
	b.WriteString("| **mean over the sources with threats** |")
	all := 0.0
	for j := range reps {
		if counted[j] == 0 {
			return fmt.Errorf("seed %d's report has no source with threats", seeds[j])
		}
		means[j] /= float64(counted[j])
		all += means[j]
		fmt.Fprintf(&b, " %.4f |", means[j])
	}
	fmt.Fprintf(&b, " %.4f | |\n", all/float64(len(reps)))
	_, err := io.WriteString(w, b.String())
	return err
}

// Pool merges reports of one configuration trained with different seeds
// into one, so that a held-out look judges the training procedure rather
// than one draw of its initial weights (a source's AUROC moves by up to
// 0.08 from the seed alone). Every seed measures the same cases, and the
// measures the report shows count over what the envelope and similarity
// decide (useful memories, must-exclude memories), so each row's counts
// are summed (a pooled rate of those is the mean of the seeds' rates) and
// its gate AUROC, rank-down and out-of-range rates are averaged. Only what
// Markdown and Check read is filled. The reports must differ in their
// training seed only.
func Pool(reps []*Report) (*Report, error) {
	if len(reps) == 0 {
		return nil, errors.New("pooling reports: none given")
	}
	out := &Report{K: reps[0].K, Options: reps[0].Options}
	for j, r := range reps {
		o, o0 := r.Options, reps[0].Options
		o.Seed, o0.Seed = 0, 0
		if len(r.Rows) != len(reps[0].Rows) || r.K != reps[0].K || !reflect.DeepEqual(o, o0) {
			return nil, fmt.Errorf("report %d holds other sources, another k or other training options than report 1", j+1)
		}
	}
	for i, row := range reps[0].Rows {
		var full, pol, sim []*eval.Metrics
		for j, r := range reps {
			if r.Rows[i].Held != row.Held || r.Rows[i].Cases != row.Cases {
				return nil, fmt.Errorf("report %d holds other sources or cases than report 1", j+1)
			}
			full, pol, sim = append(full, r.Rows[i].Full), append(pol, r.Rows[i].Policy), append(sim, r.Rows[i].Sim)
		}
		p := Row{Held: row.Held, Cases: row.Cases}
		var err error
		if p.Full, err = poolMetrics(full); err == nil {
			if p.Policy, err = poolMetrics(pol); err == nil {
				p.Sim, err = poolMetrics(sim)
			}
		}
		if err != nil {
			return nil, fmt.Errorf("pooling %s: %w", row.Held, err)
		}
		out.Rows = append(out.Rows, p)
	}
	for _, r := range reps {
		out.Elapsed += r.Elapsed
	}
	return out, nil
}

// poolMetrics sums counts and averages the rates the report shows; nil
// when no report has such a measurement.
func poolMetrics(ms []*eval.Metrics) (*eval.Metrics, error) {
	missing := 0
	for _, m := range ms {
		if m == nil {
			missing++
		}
	}
	switch missing {
	case len(ms):
		return nil, nil
	case 0:
	default:
		return nil, fmt.Errorf("%d of %d reports lack a measurement the others have", missing, len(ms))
	}
	out := &eval.Metrics{Cases: ms[0].Cases, Counts: map[string]eval.Count{}}
	for _, m := range ms {
		for k, c := range m.Counts {
			s := out.Counts[k]
			s.Num += c.Num
			s.Den += c.Den
			out.Counts[k] = s
		}
	}
	mean := func(get func(*eval.Metrics) *float64) *float64 {
		sum := 0.0
		for _, m := range ms {
			v := get(m)
			if v == nil {
				return nil
			}
			sum += *v
		}
		sum /= float64(len(ms))
		return &sum
	}
	out.GateAUROC = mean(func(m *eval.Metrics) *float64 { return m.GateAUROC })
	out.RankDownRate = mean(func(m *eval.Metrics) *float64 { return m.RankDownRate })
	out.GateOutOfRangeRate = mean(func(m *eval.Metrics) *float64 { return m.GateOutOfRangeRate })
	return out, nil
}
