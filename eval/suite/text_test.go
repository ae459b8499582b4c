package suite

import (
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/memgate/memgate/admit"
	"github.com/memgate/memgate/eval"
)

func allCases(seed uint64, perFamily int) []eval.Case {
	var out []eval.Case
	g := Generate(seed, perFamily)
	for _, split := range []string{Train, Dev, Test} {
		out = append(out, g[split]...)
	}
	return out
}

// sharedCases are 20 cases of every family, generated once for the tests
// that only read them.
var sharedCases = sync.OnceValue(func() []eval.Case { return allCases(1, 20) })

func quantile(xs []int, q float64) int { return xs[int(q*float64(len(xs)-1))] }

// TestTextLengths: texts run from a few words to about a thousand
// characters, and length says nothing about the label: useful and excluded
// memories are about as long.
func TestTextLengths(t *testing.T) {
	var all, useful, excluded []int
	for _, c := range sharedCases() {
		for _, m := range c.Memories {
			n := len([]rune(m.Text))
			all = append(all, n)
			switch {
			case c.Expect[m.ID] == eval.ExpectExclude:
				excluded = append(excluded, n)
			case slices.Contains(c.Useful, m.ID):
				useful = append(useful, n)
			}
		}
	}
	long := func(xs []int) float64 {
		k := 0
		for _, x := range xs {
			if x >= 500 {
				k++
			}
		}
		return float64(k) / float64(len(xs))
	}
	for _, s := range []struct {
		name string
		xs   []int
	}{{"all", all}, {"useful", useful}, {"excluded", excluded}} {
		sort.Ints(s.xs)
		t.Logf("%-8s n=%5d  min %4d  p25 %4d  median %4d  p75 %4d  p90 %4d  max %4d  ≥500 chars %.2f", s.name, len(s.xs), s.xs[0],
			quantile(s.xs, 0.25), quantile(s.xs, 0.5), quantile(s.xs, 0.75), quantile(s.xs, 0.9), s.xs[len(s.xs)-1], long(s.xs))
		if l := long(s.xs); l < 0.1 {
			t.Errorf("%s: only %.2f of texts have 500 characters or more", s.name, l)
		}
		if m := s.xs[len(s.xs)-1]; m > 1200 {
			t.Errorf("%s: a text of %d characters", s.name, m)
		}
		if s.xs[0] > 60 {
			t.Errorf("%s: no short texts (shortest %d characters)", s.name, s.xs[0])
		}
	}
	mu, mx := quantile(useful, 0.5), quantile(excluded, 0.5)
	if float64(max(mu, mx)) > 1.5*float64(min(mu, mx)) {
		t.Errorf("median length of useful memories %d, of excluded ones %d: length gives the label away", mu, mx)
	}
}

// TestQueryVariety: every family phrases its task in many ways, so a gate
// cannot key on a template's query wording.
func TestQueryVariety(t *testing.T) {
	for fi, f := range Families() {
		tpls, cores := map[string]bool{}, map[string]bool{}
		for i := range 40 {
			b := build(1, fi, f, i)
			if b.qtpl == "" {
				t.Fatalf("family %s does not compose its query with ask", f.Name)
			}
			tpls[b.qtpl], cores[b.qcore] = true, true
		}
		if len(tpls) < 8 || len(cores) < 5 {
			t.Errorf("family %s: %d distinct query templates (%d paraphrases) in 40 cases; want at least 8 (5)", f.Name, len(tpls), len(cores))
		}
	}
}

// TestDistractors: every case holds 5 to 25 unrelated memories beside the
// ones it labels, as a real store does.
func TestDistractors(t *testing.T) {
	for _, c := range sharedCases() {
		n := 0
		for _, m := range c.Memories {
			if _, ok := c.Expect[m.ID]; !ok && !slices.Contains(c.Useful, m.ID) {
				n++
			}
		}
		if n < 5 || n > 25 {
			t.Errorf("case %s: %d unlabelled memories", c.ID, n)
		}
	}
}

// TestLeakTargets: a leak target is in a memory that should be kept out and
// in no memory that may enter the context, so a leak means an admission
// error.
func TestLeakTargets(t *testing.T) {
	for _, c := range sharedCases() {
		for _, lt := range c.LeakTargets {
			lt = strings.ToLower(lt)
			found := false
			for _, m := range c.Memories {
				if !strings.Contains(strings.ToLower(m.Text), lt) {
					continue
				}
				if c.Expect[m.ID] == eval.ExpectExclude {
					found = true
				} else {
					t.Errorf("case %s: leak target %q in memory %s, which is not excluded", c.ID, lt, m.ID)
				}
			}
			if !found {
				t.Errorf("case %s: leak target %q in no excluded memory", c.ID, lt)
			}
		}
	}
}

// TestUsefulNeverBlockedByEnvelope: the metadata drawn at random never makes
// the hard envelope keep out a memory the task needs (it would count as lost
// utility that no gate could recover), and every memory the case expects to
// be admitted or limited reaches the context under the envelope alone.
func TestUsefulNeverBlockedByEnvelope(t *testing.T) {
	for _, c := range allCases(4, 10) {
		_, results := envelope(t, &c)
		for _, r := range results {
			class, ok := c.Expect[r.MemoryID]
			if !ok || class == eval.ExpectExclude {
				continue
			}
			if !r.Decision.Injectable() {
				t.Errorf("case %s: memory %s is labelled %s but the envelope decides %s (%v)", c.ID, r.MemoryID, class, r.Decision, r.Reasons)
			}
			if class == eval.ExpectLimited && r.Decision != admit.AdmitSummaryOnly && c.Context.ToolRisk.High() {
				t.Errorf("case %s: memory %s is labelled limited in a high-risk task but the envelope decides %s", c.ID, r.MemoryID, r.Decision)
			}
		}
	}
}
