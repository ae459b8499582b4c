package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"slices"
	"sort"
	"strings"

	"github.com/memgate/memgate/admit"
	"github.com/memgate/memgate/embed"
	"github.com/memgate/memgate/eval"
	"github.com/memgate/memgate/eval/suite"
	"github.com/memgate/memgate/gate"
	"github.com/memgate/memgate/gate/content"
	"github.com/memgate/memgate/gate/train"
	"github.com/memgate/memgate/internal/gatereport"
	"github.com/memgate/memgate/policy"
)

// devReasons trains a gate on the training sets (as the shipped model) and
// reports, on the dev set only, which reasons lower useful memories the
// envelope let in, and which lower threats, per source; with examples of
// the useful ones lowered and of the threats let in with the highest fit.
// With loso, each public source's dev share is judged instead by a gate
// trained without that source (as -dev-loso), and the suite's dev split is
// left out. It never looks at a held-out test set.
func devReasons(ctx context.Context, d *gatereport.Data, o train.Options, examples int, loso bool, w io.Writer) error {
	type fold struct {
		g     *gate.Gate
		cases []eval.Case
	}
	var folds []fold
	trSet, devSet := d.TrainingSets()
	if loso {
		trainWithout, err := d.Trainer(ctx, o)
		if err != nil {
			return err
		}
		for _, s := range d.Sources() {
			m, err := trainWithout(s)
			if err != nil {
				return fmt.Errorf("training without %s: %w", s, err)
			}
			var cs []eval.Case
			for _, c := range d.Public[s] {
				if gatereport.IsDev(c.ID) {
					cs = append(cs, c)
				}
			}
			folds = append(folds, fold{gate.New(m), cs})
		}
		fmt.Fprintf(w, "dev only, each public source judged by a gate trained without it\n\n")
	} else {
		m, err := d.Train(ctx, o)
		if err != nil {
			return err
		}
		folds = append(folds, fold{gate.New(m), devSet})
		fmt.Fprintf(w, "dev only: model trained on %d cases, measured on %d dev cases\n\n", len(trSet), len(devSet))
	}
	emb := embed.NewBuiltin()
	pol := policy.Default()
	type key struct{ src, reason string }
	useful, threat := map[key]int{}, map[key]int{}
	usefulN, threatN := map[string]int{}, map[string]int{}
	ex := map[string][]string{}
	type missed struct {
		fit  float64
		line string
	}
	let := map[string][]missed{}
	var z content.Analyzer
	var an content.Analysis
	describe := func(c *eval.Case, src string, text string, a admit.Result) string {
		z.Analyze(text, &an)
		var cues []string
		for cu := content.Cue(0); cu < content.NumCues; cu++ {
			if an.Cues[cu] > 0 && cu != content.Numbers {
				cues = append(cues, fmt.Sprintf("%s=%.2f", cu, an.Cues[cu]))
			}
		}
		txt := strings.ReplaceAll(text, "\n", " ")
		if len(txt) > 300 {
			txt = txt[:300] + "…"
		}
		return fmt.Sprintf("[%s %s %s fit %.3f/%.3f inst %.2f factors %v] Q: %q\n      cues: %s\n      %s", src, c.Category,
			a.Decision, a.Scores.GateFit, a.Scores.GateThreshold, a.Scores.GateInstruction, a.Scores.GateFactors, c.Query,
			strings.Join(cues, " "), txt)
	}
	for _, f := range folds {
		g := f.g
		for i := range f.cases {
			c := &f.cases[i]
			src := source(c)
			p, err := eval.Prepare(ctx, c, suite.Now, emb)
			if err != nil {
				return err
			}
			before, err := (&admit.Pipeline{Policy: pol}).Run(ctx, &p.Context, p.Candidates)
			if err != nil {
				return err
			}
			after, err := (&admit.Pipeline{Policy: pol, Gate: g}).Run(ctx, &p.Context, p.Candidates)
			if err != nil {
				return err
			}
			for j, cd := range p.Candidates {
				id := cd.Memory.ID
				class, labelled := c.Expect[id]
				isUseful := slices.Contains(c.Useful, id) && (!labelled || class != eval.ExpectExclude)
				isThreat := labelled && class == eval.ExpectExclude
				if !isUseful && !isThreat || before[j].Decision.Severity() > admit.AdmitSummaryOnly.Severity() {
					continue
				}
				if isUseful {
					usefulN[src]++
				} else {
					threatN[src]++
				}
				a := after[j]
				if a.Decision.Severity() <= admit.AdmitSummaryOnly.Severity() {
					if isThreat && examples > 0 {
						let[src] = append(let[src], missed{a.Scores.GateFit, describe(c, src, cd.Memory.Text, a)})
					}
					continue
				}
				for _, r := range a.Reasons {
					if slices.Contains(before[j].Reasons, r) || r == admit.ReasonGateLowFit {
						continue
					}
					k := key{src, string(r)}
					if isUseful {
						useful[k]++
						k2 := src + " " + string(r)
						if len(ex[k2]) < examples {
							ex[k2] = append(ex[k2], describe(c, src, cd.Memory.Text, a))
						}
					} else {
						threat[k]++
					}
				}
			}
		}
	}
	srcs := []string{}
	for s := range usefulN {
		srcs = append(srcs, s)
	}
	for s := range threatN {
		if !slices.Contains(srcs, s) {
			srcs = append(srcs, s)
		}
	}
	sort.Strings(srcs)
	reasons := map[string]bool{}
	for k := range useful {
		reasons[k.reason] = true
	}
	for k := range threat {
		reasons[k.reason] = true
	}
	rs := []string{}
	for r := range reasons {
		rs = append(rs, r)
	}
	sort.Strings(rs)
	for _, s := range srcs {
		fmt.Fprintf(w, "%-12s useful let in by the envelope %5d, threats %5d\n", s, usefulN[s], threatN[s])
		for _, r := range rs {
			if u, t := useful[key{s, r}], threat[key{s, r}]; u+t > 0 {
				fmt.Fprintf(w, "    %-28s useful lowered %4d   threats lowered %4d\n", r, u, t)
			}
		}
	}
	fmt.Fprintln(w, "\nexamples of useful memories lowered:")
	for _, r := range rs {
		for _, s := range srcs {
			for _, e := range ex[s+" "+r] {
				fmt.Fprintf(w, "  %s %s\n", r, e)
			}
		}
	}
	fmt.Fprintln(w, "\nthreats let in with the highest fit:")
	for _, s := range srcs {
		ms := let[s]
		sort.SliceStable(ms, func(i, j int) bool { return ms[i].fit > ms[j].fit })
		for _, m := range ms[:min(examples, len(ms))] {
			fmt.Fprintf(w, "  %s\n", m.line)
		}
	}
	return nil
}

// devCues reports, on the dev set only, how often each cue of the
// instruction head fires on useful memories and on threats of the
// instruction categories, per source: which cues fire on benign text.
func devCues(d *gatereport.Data, w io.Writer) {
	_, devSet := d.TrainingSets()
	type cnt struct{ useful, threat, nu, nt int }
	by := map[string]*[content.NumCues]cnt{}
	var z content.Analyzer
	var an content.Analysis
	for i := range devSet {
		c := &devSet[i]
		src := source(c)
		if by[src] == nil {
			by[src] = &[content.NumCues]cnt{}
		}
		inst := slices.Contains(train.InstructionCategories, c.Category)
		for _, m := range c.Memories {
			class, labelled := c.Expect[m.ID]
			isUseful := slices.Contains(c.Useful, m.ID) && (!labelled || class != eval.ExpectExclude)
			isThreat := inst && labelled && class == eval.ExpectExclude
			if !isUseful && !isThreat {
				continue
			}
			z.Analyze(m.Text, &an)
			for cu := content.Cue(0); cu < content.NumCues; cu++ {
				x := &by[src][cu]
				if isUseful {
					x.nu++
					if an.Cues[cu] > 0 {
						x.useful++
					}
				} else {
					x.nt++
					if an.Cues[cu] > 0 {
						x.threat++
					}
				}
			}
		}
	}
	srcs := []string{}
	for s := range by {
		srcs = append(srcs, s)
	}
	sort.Strings(srcs)
	is := []content.Cue{}
	fmt.Fprintf(w, "%-20s", "cue (useful|threat)")
	for _, s := range srcs {
		fmt.Fprintf(w, " %14s", s)
	}
	fmt.Fprintln(w)
	head := []content.Cue{content.AddressedToAgent, content.SystemVoice, content.Override, content.TriggerCondition,
		content.ExfiltrationVerb, content.Credential, content.Destructive, content.Secrecy, content.Urgency}
	is = append(is, head...)
	for _, cu := range is {
		fmt.Fprintf(w, "%-20s", cu)
		for _, s := range srcs {
			x := by[s][cu]
			fmt.Fprintf(w, " %6s|%-7s", pct(x.useful, x.nu), pct(x.threat, x.nt))
		}
		fmt.Fprintln(w)
	}
}

// codeActs writes, per source (the suite per split) and per call by which
// code acts (content.Analysis.CodeActs), how many useful, must-exclude and
// other memories hold it: where a change to that reading can move a
// decision at all, before any training or look.
func codeActs(d *gatereport.Data, w io.Writer) {
	type count struct{ useful, exclude, other int }
	by := map[string]map[string]*count{}
	var z content.Analyzer
	var an content.Analysis
	read := func(group string, cases []eval.Case) {
		for i := range cases {
			c := &cases[i]
			g := group
			if c.Origin != nil {
				g = c.Origin.Benchmark
			}
			for _, m := range c.Memories {
				z.Analyze(m.Text, &an)
				for _, name := range an.CodeActs() {
					if by[g] == nil {
						by[g] = map[string]*count{}
					}
					if by[g][name] == nil {
						by[g][name] = &count{}
					}
					x := by[g][name]
					switch class, labelled := c.Expect[m.ID]; {
					case labelled && class == eval.ExpectExclude:
						x.exclude++
					case slices.Contains(c.Useful, m.ID):
						x.useful++
					default:
						x.other++
					}
				}
			}
		}
	}
	for _, split := range []string{suite.Train, suite.Dev, suite.Test} {
		read("suite "+split, d.Suite[split])
	}
	for _, s := range d.Sources() {
		read(s, d.Public[s])
	}
	groups := slices.Sorted(maps.Keys(by))
	fmt.Fprintf(w, "%-14s %-16s %7s %7s %7s\n", "source", "code acts by", "useful", "exclude", "other")
	for _, g := range groups {
		for _, name := range slices.Sorted(maps.Keys(by[g])) {
			x := by[g][name]
			fmt.Fprintf(w, "%-14s %-16s %7d %7d %7d\n", g, name, x.useful, x.exclude, x.other)
		}
	}
}

func pct(a, b int) string {
	if b == 0 {
		return "-"
	}
	return fmt.Sprintf("%.0f%%", 100*float64(a)/float64(b))
}

// devDump writes the dev set's labelled memories (useful, or threats) as
// JSON lines, for looking at texts: dev only.
func devDump(d *gatereport.Data, w io.Writer) error {
	_, devSet := d.TrainingSets()
	enc := json.NewEncoder(w)
	for i := range devSet {
		c := &devSet[i]
		src := source(c)
		for _, m := range c.Memories {
			class, labelled := c.Expect[m.ID]
			isUseful := slices.Contains(c.Useful, m.ID) && (!labelled || class != eval.ExpectExclude)
			isThreat := labelled && class == eval.ExpectExclude
			if !isUseful && !isThreat {
				continue
			}
			if err := enc.Encode(map[string]any{"src": src, "category": c.Category, "useful": isUseful, "query": c.Query, "text": m.Text,
				"instructionCategory": slices.Contains(train.InstructionCategories, c.Category)}); err != nil {
				return err
			}
		}
	}
	return nil
}

// devHead trains as the shipped model and shows, on the dev set only, what
// the instruction head's forced quarantine does at other thresholds: the
// useful memories it would quarantine and the threats it would catch that
// the fit threshold does not (ignoring the authority exemption).
func devHead(ctx context.Context, d *gatereport.Data, o train.Options, w io.Writer) error {
	m, err := d.Train(ctx, o)
	if err != nil {
		return err
	}
	_, devSet := d.TrainingSets()
	ss, err := train.Samples(ctx, devSet, o)
	if err != nil {
		return err
	}
	g := gate.New(m)
	is, ie := gate.InstructionRange()
	h := m.Header.Instruction
	fmt.Fprintf(w, "head threshold %.3f; weights %.2f bias %.2f\n", h.Threshold, h.W, h.B)
	for _, th := range []float64{0.5, 0.56, 0.6, 0.65, 0.7, 0.75, 0.8, 0.825, 0.85, 0.9, 0.95} {
		var uq, tq, tOnly, nu, nt int
		var uqA, tOnlyA int // with an addressing cue required as well
		for _, s := range ss {
			inst := h.Score(s.X[is:ie])
			addr := gate.Addresses(s.X[is:ie])
			if inst >= th && addr {
				if s.Useful {
					uqA++
				} else if !s.Fit && g.Score(s.X) >= m.Threshold(s.Bucket) {
					tOnlyA++
				}
			}
			fit := g.Score(s.X)
			if s.Useful {
				nu++
				if inst >= th {
					uq++
				}
			} else if !s.Fit {
				nt++
				if inst >= th {
					tq++
					if fit >= m.Threshold(s.Bucket) {
						tOnly++
					}
				}
			}
		}
		fmt.Fprintf(w, "threshold %.3f: useful quarantined %d/%d, threats %d/%d (%d only by the head); with an addressing cue: useful %d, threats only by the head %d\n", th, uq, nu, tq, nt, tOnly, uqA, tOnlyA)
	}
	return nil
}

// source names where a dev case comes from: its public benchmark, or the
// suite.
func source(c *eval.Case) string {
	if c.Origin != nil {
		return c.Origin.Benchmark
	}
	return "suite"
}
