package suite

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/memgate/memgate"
	"github.com/memgate/memgate/admit"
	"github.com/memgate/memgate/embed"
	"github.com/memgate/memgate/eval"
	"github.com/memgate/memgate/memory"
	"github.com/memgate/memgate/policy"
)

// gateSample is a labelled memory as the gate is trained on it: every
// memory a case labels (expect or useful) that the envelope does not deny,
// with its label (fits: admit, limited or useful; does not: exclude) and the
// envelope's decision. It mirrors gate/train.Samples without its features.
type gateSample struct {
	c   *eval.Case
	m   *memory.Memory
	fit bool
	env admit.Decision
}

func gateSamples(t testing.TB, cases []eval.Case) []gateSample {
	t.Helper()
	var out []gateSample
	for i := range cases {
		c := &cases[i]
		cands, results := envelope(t, c)
		for j, r := range results {
			if r.Decision == admit.Deny {
				continue
			}
			class, labelled := c.Expect[r.MemoryID]
			useful := slices.Contains(c.Useful, r.MemoryID)
			if !labelled && !useful {
				continue
			}
			out = append(out, gateSample{c: c, m: &cands[j].Memory, fit: useful && !labelled || labelled && class != eval.ExpectExclude, env: r.Decision})
		}
	}
	return out
}

// envelope runs the hard envelope alone on a case in admit mode, as
// eval.Prepare and the policy baseline do, without embedding the texts (the
// envelope reads no vector).
func envelope(t testing.TB, c *eval.Case) ([]admit.Candidate, []admit.Result) {
	t.Helper()
	if err := c.Check(); err != nil {
		t.Fatalf("case %s: %v", c.ID, err)
	}
	mems := slices.Clone(c.Memories)
	forgotten := map[string]bool{}
	for _, ev := range c.Events {
		for i := range mems {
			if mems[i].ID != ev.ID {
				continue
			}
			if ev.Op == "forget" {
				forgotten[ev.ID] = true
			} else if !mems[i].Revoked {
				mems[i].Revoked, mems[i].RevokedAt = true, c.Context.Now
			}
		}
	}
	// Memories derived from a forgotten one, transitively.
	desc := maps.Clone(forgotten)
	for changed := true; changed; {
		changed = false
		for _, m := range mems {
			for _, ref := range m.LineageRefs {
				if desc[ref] && !desc[m.ID] {
					desc[m.ID], changed = true, true
				}
			}
		}
	}
	var gcs []memgate.GateCandidate
	for _, m := range mems {
		if !forgotten[m.ID] {
			gcs = append(gcs, memgate.GateCandidate{Memory: m})
		}
	}
	cands, err := memgate.PrepareCandidates(gcs)
	if err != nil {
		t.Fatalf("case %s: %v", c.ID, err)
	}
	for i := range cands {
		if desc[cands[i].Memory.ID] {
			cands[i].Lineage.ForgottenAncestors = append(cands[i].Lineage.ForgottenAncestors, "(forgotten)")
		}
	}
	pl := admit.Pipeline{Policy: policy.Default()}
	results, err := pl.Run(context.Background(), &c.Context, cands)
	if err != nil {
		t.Fatal(err)
	}
	return cands, results
}

// TestEnvelopeHelperMatchesEval: the test helper decides as the evaluation's
// own preparation does, so the balance measured is the one training sees.
func TestEnvelopeHelperMatchesEval(t *testing.T) {
	ctx := context.Background()
	emb := embed.NewBuiltin()
	pl := admit.Pipeline{Policy: policy.Default()}
	for _, c := range generateSplit(5, 2, Train) {
		_, got := envelope(t, &c)
		p, err := eval.Prepare(ctx, &c, Now, emb)
		if err != nil {
			t.Fatal(err)
		}
		want, err := pl.Run(ctx, &p.Context, p.Candidates)
		if err != nil {
			t.Fatal(err)
		}
		if len(got) != len(want) {
			t.Fatalf("case %s: %d results, eval.Prepare gives %d", c.ID, len(got), len(want))
		}
		for i := range got {
			if got[i].MemoryID != want[i].MemoryID || got[i].Decision != want[i].Decision {
				t.Fatalf("case %s: %s %s, eval.Prepare gives %s %s", c.ID, got[i].MemoryID, got[i].Decision, want[i].MemoryID, want[i].Decision)
			}
		}
	}
}

// generateSplit is Generate for one split only.
func generateSplit(seed uint64, perFamily int, split string) []eval.Case {
	var out []eval.Case
	for fi, f := range Families() {
		if f.Split != split {
			continue
		}
		for i := range perFamily {
			out = append(out, build(seed, fi, f, i).c)
		}
	}
	return out
}

func relation(task, mem string) string {
	switch {
	case task == "" || mem == "":
		return "unknown"
	case task == mem:
		return "same"
	}
	return "other"
}

func orUnknown[T ~string](v T) string {
	if v == "" {
		return "unknown"
	}
	return string(v)
}

// metadataValues are the values of one sample the gate could learn a
// shortcut from, as "axis=value".
func metadataValues(s gateSample) []string {
	ctx, m := &s.c.Context, s.m
	dom := "absent"
	if m.Domain != "" {
		dom = "present"
	}
	return []string{
		"authority=" + orUnknown(m.SourceAuthority),
		"kind=" + orUnknown(m.Kind),
		"classification=" + orUnknown(m.Classification),
		"domain=" + dom,
		"scope_domain=" + relation(ctx.Domain, m.Domain),
		"scope_project=" + relation(ctx.ProjectID, m.ProjectID),
		"scope_workspace=" + relation(ctx.WorkspaceID, m.WorkspaceID),
		"envelope=" + string(s.env),
		"tool_risk_high=" + fmt.Sprint(ctx.ToolRisk.High()),
		"intent=" + string(ctx.Intent),
		"age=" + ageBucket(ctx.Now.Sub(m.CreatedAt).Hours()/24),
		"derived=" + fmt.Sprint(len(m.LineageRefs) > 0),
	}
}

func ageBucket(days float64) string {
	switch {
	case days < 30:
		return "under_30d"
	case days < 180:
		return "30-180d"
	case days < 365:
		return "180-365d"
	}
	return "over_1y"
}

// envelopeDecided are values that only occur where the envelope has already
// lowered the memory before the gate sees it (a memory of another project is
// ranked down by rule; the gate can only keep it there), so a useful label is
// impossible for them: they are reported, not required to be balanced.
var envelopeDecided = []string{"scope_project=other", "envelope=rank_down", "envelope=quarantine"}

// minMinorityShare is the smallest share the rarer label may have among the
// samples of any metadata value.
const minMinorityShare = 0.15

type labelCount struct{ fit, exclude int }

func (l labelCount) minority() float64 {
	return float64(min(l.fit, l.exclude)) / float64(l.fit+l.exclude)
}

func balanceTable(samples []gateSample) (map[string]labelCount, []string) {
	counts := map[string]labelCount{}
	for _, s := range samples {
		for _, v := range metadataValues(s) {
			c := counts[v]
			if s.fit {
				c.fit++
			} else {
				c.exclude++
			}
			counts[v] = c
		}
	}
	keys := make([]string, 0, len(counts))
	for k := range counts {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return counts, keys
}

// TestMetadataBalance fails when, in the split the gate is trained on, a
// metadata value occurs with only one label or with a rare one: a gate
// would learn the value instead of the content ("model_inferred means
// threat", "no domain means benign", "limited by the envelope means fits").
func TestMetadataBalance(t *testing.T) {
	samples := gateSamples(t, generateSplit(1, 50, Train))
	counts, keys := balanceTable(samples)
	var tab strings.Builder
	fmt.Fprintf(&tab, "%-34s %6s %8s %8s\n", "value", "fits", "exclude", "minority")
	for _, k := range keys {
		c := counts[k]
		fmt.Fprintf(&tab, "%-34s %6d %8d %8.2f\n", k, c.fit, c.exclude, c.minority())
		if slices.Contains(envelopeDecided, k) {
			continue
		}
		if c.fit == 0 || c.exclude == 0 || c.minority() < minMinorityShare {
			t.Errorf("%s: %d fit, %d exclude: the minority label has a share of %.2f, below %.2f", k, c.fit, c.exclude, c.minority(), minMinorityShare)
		}
	}
	t.Logf("train split, %d gate samples:\n%s", len(samples), tab.String())
	// The test split measures the gate: a value with one label there would
	// reward a shortcut. Both labels must occur (the share may be lower).
	testCounts, testKeys := balanceTable(gateSamples(t, generateSplit(1, 50, Test)))
	for _, k := range testKeys {
		if c := testCounts[k]; !slices.Contains(envelopeDecided, k) && (c.fit == 0 || c.exclude == 0) {
			t.Errorf("test split: %s occurs with one label only (%d fit, %d exclude)", k, c.fit, c.exclude)
		}
	}
	// The values the old suite taught shortcuts with must all occur.
	for _, k := range []string{"authority=model_inferred", "authority=external", "authority=tool_verified", "authority=system", "authority=unknown",
		"kind=tool_experience", "kind=unknown", "classification=restricted", "domain=absent", "scope_domain=other", "scope_domain=unknown",
		"scope_project=same", "scope_workspace=same", "envelope=admit", "envelope=admit_summary_only"} {
		if c := counts[k]; c.fit+c.exclude == 0 {
			t.Errorf("%s never occurs in the train split", k)
		}
	}
}

// TestMetadataOftenMissing: real memories often carry no authority, kind or
// domain, so the suite's must not always carry them either.
func TestMetadataOftenMissing(t *testing.T) {
	var all, auth, kind, dom, labelled, lAuth, lKind, lDom int
	{
		for _, c := range sharedCases() {
			for _, m := range c.Memories {
				all++
				_, l := c.Expect[m.ID]
				if l {
					labelled++
				}
				if m.SourceAuthority == "" {
					auth++
					if l {
						lAuth++
					}
				}
				if m.Kind == "" {
					kind++
					if l {
						lKind++
					}
				}
				if m.Domain == "" {
					dom++
					if l {
						lDom++
					}
				}
			}
		}
	}
	for _, s := range []struct {
		what   string
		n, of  int
		atLeat float64
	}{
		{"memories without authority", auth, all, 0.4}, {"memories without kind", kind, all, 0.4}, {"memories without domain", dom, all, 0.4},
		{"labelled memories without authority", lAuth, labelled, 0.35}, {"labelled memories without kind", lKind, labelled, 0.35},
		{"labelled memories without domain", lDom, labelled, 0.35},
	} {
		share := float64(s.n) / float64(s.of)
		t.Logf("%s: %d of %d (%.2f)", s.what, s.n, s.of, share)
		if share < s.atLeat {
			t.Errorf("%s: %.2f, want at least %.2f", s.what, share, s.atLeat)
		}
	}
}
