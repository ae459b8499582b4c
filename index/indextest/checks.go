package indextest

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/memgate/memgate/index"
	"github.com/memgate/memgate/memory"
	"github.com/memgate/memgate/retrieve"
)

// checkScopeRule checks the scope rule on every combination of entry and
// filter: an entry is in a filter's scope when, on each of workspace,
// project and domain, the filter is unset, the entry is unscoped, or both
// name the same label (memory.Filter.Matches). A label the user never used,
// even one another user did, matches only the user's unscoped entries.
func checkScopeRule(ctx context.Context, t testing.TB, newIndex Factory) {
	x := newIndex(t, dim)
	labels := []string{"", "1", "2"}
	var mine []retrieve.Entry
	for _, w := range labels {
		for _, p := range labels {
			for _, d := range labels {
				mine = append(mine, retrieve.Entry{
					ID:     fmt.Sprintf("w%s.p%s.d%s", or(w, "-"), or(p, "-"), or(d, "-")),
					UserID: "u", WorkspaceID: prefixed("w", w), ProjectID: prefixed("p", p), Domain: prefixed("d", d),
					Text:   "ledger " + words(len(mine)%5),
					Vector: angled(0.05 * float64(len(mine))), // best first in insertion order
				})
			}
		}
	}
	// Another user knows label 9, and is always more similar.
	theirs := []retrieve.Entry{
		{ID: "v9", UserID: "v", WorkspaceID: "w9", ProjectID: "p9", Domain: "d9", Text: "ledger ledger", Vector: query()},
		{ID: "v1", UserID: "v", WorkspaceID: "w1", ProjectID: "p1", Domain: "d1", Text: "ledger ledger", Vector: query()},
	}
	upsert(ctx, t, x, append(slices.Clone(theirs), mine...)...)

	q := query()
	filterLabels := []string{"", "1", "2", "9"}
	for _, w := range filterLabels {
		for _, p := range filterLabels {
			for _, d := range filterLabels {
				f := memory.Filter{UserID: "u", WorkspaceID: prefixed("w", w), ProjectID: prefixed("p", p), Domain: prefixed("d", d)}
				var want []string
				for _, e := range mine {
					m := memory.Memory{UserID: e.UserID, WorkspaceID: e.WorkspaceID, ProjectID: e.ProjectID, Domain: e.Domain}
					if f.Matches(&m) {
						want = append(want, e.ID)
					}
				}
				wantIDs(t, fmt.Sprintf("Search(%+v)", f), search(ctx, t, x, f, q, 100), want...)
				wantSet(t, fmt.Sprintf("Lexical(%+v, \"ledger\")", f), lexical(ctx, t, x, f, "ledger", 100), want...)
			}
		}
	}
}

// checkScopeInsideSearch checks that the scope is applied inside the
// search, not to its results: when many of a user's memories outside the
// filter are more similar to the query than the few inside it, a search
// still returns k hits, all in scope. An index that takes the user's top k
// and drops those out of scope returns fewer, or none.
func checkScopeInsideSearch(ctx context.Context, t testing.TB, newIndex Factory) {
	axes := []struct {
		name string
		set  func(e *retrieve.Entry, label string)
		with func(label string) memory.Filter
	}{
		{"workspace", func(e *retrieve.Entry, l string) { e.WorkspaceID = l }, func(l string) memory.Filter { return memory.Filter{UserID: "u", WorkspaceID: l} }},
		{"project", func(e *retrieve.Entry, l string) { e.ProjectID = l }, func(l string) memory.Filter { return memory.Filter{UserID: "u", ProjectID: l} }},
		{"domain", func(e *retrieve.Entry, l string) { e.Domain = l }, func(l string) memory.Filter { return memory.Filter{UserID: "u", Domain: l} }},
	}
	for _, ax := range axes {
		x := newIndex(t, dim)
		// 40 entries in A, the most similar to the query and the best BM25
		// matches (one word); 4 in B, then 2 unscoped, both less similar and
		// longer.
		var entries []retrieve.Entry
		add := func(id, label string, theta float64, text string) {
			e := retrieve.Entry{ID: id, UserID: "u", Text: text, Vector: angled(theta)}
			ax.set(&e, label)
			entries = append(entries, e)
		}
		for i := range 40 {
			add(fmt.Sprintf("a%02d", i), "A", 0.01*float64(i), "ledger")
		}
		for i := range 4 {
			add(fmt.Sprintf("b%d", i), "B", 0.8+0.1*float64(i), "ledger "+words(6))
		}
		for i := range 2 {
			add(fmt.Sprintf("n%d", i), "", 1.3+0.1*float64(i), "ledger "+words(10))
		}
		upsert(ctx, t, x, entries...)
		inB := []string{"b0", "b1", "b2", "b3", "n0", "n1"}

		q := query()
		what := func(call, l string, k int) string {
			return fmt.Sprintf("%s: %s with %s %s, k=%d", ax.name, call, ax.name, label(l), k)
		}
		wantIDs(t, what("Search", "B", 3), search(ctx, t, x, ax.with("B"), q, 3), "b0", "b1", "b2")
		wantIDs(t, what("Search", "B", 10), search(ctx, t, x, ax.with("B"), q, 10), inB...)
		wantIDs(t, what("Search", "Z", 3), search(ctx, t, x, ax.with("Z"), q, 3), "n0", "n1")
		wantIDs(t, what("Search", "", 3), search(ctx, t, x, ax.with(""), q, 3), "a00", "a01", "a02")

		hits := lexical(ctx, t, x, ax.with("B"), "ledger", 3)
		if len(hits) != 3 {
			t.Errorf("%s: got %d hits %q, want 3", what("Lexical", "B", 3), len(hits), ids(hits))
		}
		for _, h := range hits {
			if !slices.Contains(inB, h.ID) {
				t.Errorf("%s: %s is out of scope", what("Lexical", "B", 3), h.ID)
			}
		}
		wantSet(t, what("Lexical", "B", 10), lexical(ctx, t, x, ax.with("B"), "ledger", 10), inB...)
		wantSet(t, what("Lexical", "Z", 3), lexical(ctx, t, x, ax.with("Z"), "ledger", 3), "n0", "n1")
		if hits := lexical(ctx, t, x, ax.with(""), "ledger", 3); len(hits) != 3 {
			t.Errorf("%s: got %d hits, want 3", what("Lexical", "", 3), len(hits))
		}
	}
}

// checkUserIsolation checks that a user's searches and vectors never reach
// another user's entries, even ones far more similar to the query, and that
// a search without a user is refused.
func checkUserIsolation(ctx context.Context, t testing.TB, newIndex Factory) {
	x := newIndex(t, dim)
	var entries []retrieve.Entry
	for i := range 20 {
		entries = append(entries, retrieve.Entry{ID: fmt.Sprintf("mallory%02d", i), UserID: "mallory", ProjectID: "p",
			Text: "invoice invoice", Vector: angled(0.001 * float64(i))})
	}
	for i := range 5 {
		entries = append(entries, retrieve.Entry{ID: fmt.Sprintf("alice%d", i), UserID: "alice",
			Text: "invoice " + words(3), Vector: angled(1 + 0.1*float64(i))})
	}
	upsert(ctx, t, x, entries...)
	q := query()
	alice := memory.Filter{UserID: "alice"}
	wantIDs(t, "alice's Search, k=10", search(ctx, t, x, alice, q, 10), "alice0", "alice1", "alice2", "alice3", "alice4")
	wantIDs(t, "alice's Search, k=3", search(ctx, t, x, alice, q, 3), "alice0", "alice1", "alice2")
	wantIDs(t, "alice's Search in project p (hers are unscoped)", search(ctx, t, x, memory.Filter{UserID: "alice", ProjectID: "p"}, q, 10),
		"alice0", "alice1", "alice2", "alice3", "alice4")
	wantSet(t, "alice's Lexical, k=10", lexical(ctx, t, x, alice, "invoice", 10), "alice0", "alice1", "alice2", "alice3", "alice4")
	hits := lexical(ctx, t, x, alice, "invoice", 3)
	if len(hits) != 3 {
		t.Errorf("alice's Lexical, k=3: got %d hits %q, want 3", len(hits), ids(hits))
	}
	for _, h := range hits {
		if !strings.HasPrefix(h.ID, "alice") {
			t.Errorf("alice's Lexical, k=3, returned %s", h.ID)
		}
	}
	carol := memory.Filter{UserID: "carol"}
	wantIDs(t, "Search of a user with no entries", search(ctx, t, x, carol, q, 10))
	wantIDs(t, "Lexical of a user with no entries", lexical(ctx, t, x, carol, "invoice", 10))

	vs := vectors(ctx, t, x, "alice", "mallory00", "alice0")
	if vs[0] != nil {
		t.Errorf("Vectors(alice) returned mallory's vector for mallory00")
	}
	if vs[1] == nil {
		t.Errorf("Vectors(alice) returned nil for her own alice0")
	}
	if vs := vectors(ctx, t, x, "carol", "alice0"); vs[0] != nil {
		t.Errorf("Vectors(carol) returned alice's vector for alice0")
	}

	for _, f := range []memory.Filter{{}, {WorkspaceID: "w", ProjectID: "p", Domain: "d"}} {
		if hits, err := x.Search(ctx, f, q, 10); err == nil {
			t.Errorf("Search without a userId (%+v) gave no error but %d hits", f, len(hits))
		}
		if hits, err := x.Lexical(ctx, f, "invoice", 10); err == nil {
			t.Errorf("Lexical without a userId (%+v) gave no error but %d hits", f, len(hits))
		}
	}

	// Removing alice's id as mallory must not touch alice's entry.
	remove(ctx, t, x, "mallory", "alice0")
	if vs := vectors(ctx, t, x, "alice", "alice0"); vs[0] == nil {
		t.Errorf("Remove(mallory, alice0) removed alice's entry")
	}
	checkLen(t, x, 25)
}

// checkK checks the edges of k: k ≤ 0 returns nothing and no error, k = 1
// the best entry, and a k beyond the entries in scope all of them.
func checkK(ctx context.Context, t testing.TB, newIndex Factory) {
	x := newIndex(t, dim)
	all := []string{"e0", "e1", "e2", "e3", "e4"}
	for i, id := range all {
		upsert(ctx, t, x, retrieve.Entry{ID: id, UserID: "u", Text: "ledger " + words(i), Vector: angled(0.1 + 0.2*float64(i))})
	}
	q := query()
	for _, k := range []int{math.MinInt, -1, 0, 1, 3, 5, 6, 100} {
		n := min(max(k, 0), len(all))
		wantIDs(t, fmt.Sprintf("Search, k=%d", k), search(ctx, t, x, memory.Filter{UserID: "u"}, q, k), all[:n]...)
		hits := lexical(ctx, t, x, memory.Filter{UserID: "u"}, "ledger", k)
		if len(hits) != n {
			t.Errorf("Lexical, k=%d: got %d hits %q, want %d", k, len(hits), ids(hits), n)
		}
		if k <= 0 {
			wantIDs(t, fmt.Sprintf("Search of a user with no entries, k=%d", k), search(ctx, t, x, memory.Filter{UserID: "nobody"}, q, k))
		}
	}
}

// checkRemoveAndReplace checks that Remove takes an entry out of Search,
// Lexical and Vectors, that removing what is not there is no error, and
// that upserting an existing id replaces its text, vector and scope.
func checkRemoveAndReplace(ctx context.Context, t testing.TB, newIndex Factory) {
	x := newIndex(t, dim)
	u := memory.Filter{UserID: "u"}
	q := query()
	gone := retrieve.Entry{ID: "gone", UserID: "u", Text: "ledger zebra", Vector: angled(0.1)}
	upsert(ctx, t, x,
		retrieve.Entry{ID: "keep", UserID: "u", ProjectID: "p1", Text: "ledger quartz", Vector: angled(0.5)},
		gone,
		retrieve.Entry{ID: "swap", UserID: "u", ProjectID: "p1", Text: "ledger walrus", Vector: angled(1.2)},
	)
	wantIDs(t, "Search before Remove", search(ctx, t, x, u, q, 10), "gone", "keep", "swap")

	remove(ctx, t, x, "u", "gone")
	wantIDs(t, "Search after Remove(gone)", search(ctx, t, x, u, q, 10), "keep", "swap")
	wantIDs(t, "Lexical(zebra) after Remove(gone)", lexical(ctx, t, x, u, "zebra", 10))
	wantSet(t, "Lexical(ledger) after Remove(gone)", lexical(ctx, t, x, u, "ledger", 10), "keep", "swap")
	if vs := vectors(ctx, t, x, "u", "gone"); vs[0] != nil {
		t.Errorf("Vectors(gone) after Remove = %v, want nil", vs[0])
	}
	checkLen(t, x, 2)

	remove(ctx, t, x, "u", "gone", "never-indexed")
	remove(ctx, t, x, "nobody", "keep")
	remove(ctx, t, x, "u")
	wantIDs(t, "Search after removing unknown ids", search(ctx, t, x, u, q, 10), "keep", "swap")

	// Replace swap: new text, the best vector, another project.
	swapped := retrieve.Entry{ID: "swap", UserID: "u", ProjectID: "p2", Text: "ledger narwhal", Vector: angled(0)}
	upsert(ctx, t, x, swapped)
	wantIDs(t, "Search after replacing swap", search(ctx, t, x, u, q, 10), "swap", "keep")
	wantIDs(t, "Lexical(walrus), swap's old text", lexical(ctx, t, x, u, "walrus", 10))
	wantIDs(t, "Lexical(narwhal), swap's new text", lexical(ctx, t, x, u, "narwhal", 10), "swap")
	p1, p2 := memory.Filter{UserID: "u", ProjectID: "p1"}, memory.Filter{UserID: "u", ProjectID: "p2"}
	wantIDs(t, "Search in p1, swap's old project", search(ctx, t, x, p1, q, 10), "keep")
	wantIDs(t, "Search in p2, swap's new project", search(ctx, t, x, p2, q, 10), "swap")
	wantIDs(t, "Lexical in p1", lexical(ctx, t, x, p1, "ledger", 10), "keep")
	wantIDs(t, "Lexical in p2", lexical(ctx, t, x, p2, "ledger", 10), "swap")
	if vs := vectors(ctx, t, x, "u", "swap"); !sameVector(vs[0], swapped.Vector) {
		t.Errorf("Vectors(swap) after replacing = %v, want %v", vs[0], swapped.Vector)
	}
	checkLen(t, x, 2)

	// A removed id can come back.
	upsert(ctx, t, x, gone)
	wantIDs(t, "Search after re-adding gone", search(ctx, t, x, u, q, 10), "swap", "gone", "keep")
	wantIDs(t, "Lexical(zebra) after re-adding gone", lexical(ctx, t, x, u, "zebra", 10), "gone")
	checkLen(t, x, 3)
}

// checkTies checks ties: entries with the same vector, or the same text, are
// ordered by id, and a k that cuts through them keeps the smallest ids,
// whatever the order the entries were added, removed and added back in. Ids
// compare as strings, so t10 comes before t2.
func checkTies(ctx context.Context, t testing.TB, newIndex Factory) {
	x := newIndex(t, dim)
	u := memory.Filter{UserID: "u"}
	q := query()
	tie := func(id string) retrieve.Entry {
		return retrieve.Entry{ID: id, UserID: "u", Text: "ledger tiebreak", Vector: angled(0.5)}
	}
	shuffled := []string{"t7", "t12", "t3", "t10", "t1", "t9", "t5", "t11", "t2", "t8", "t4", "t6"}
	upsert(ctx, t, x,
		retrieve.Entry{ID: "aa-worst", UserID: "u", Text: "ledger", Vector: angled(1)},
		retrieve.Entry{ID: "zz-best", UserID: "u", Text: "ledger", Vector: angled(0.1)})
	for _, id := range shuffled {
		upsert(ctx, t, x, tie(id))
	}
	probe := func(when string, tied []string) {
		t.Helper()
		tied = slices.Sorted(slices.Values(tied))
		all := append(append([]string{"zz-best"}, tied...), "aa-worst")
		for _, k := range []int{1, 2, 4, len(tied), len(all)} {
			wantIDs(t, fmt.Sprintf("%s: Search, k=%d", when, k), search(ctx, t, x, u, q, k), all[:k]...)
		}
		for _, k := range []int{1, 3, len(tied) + 1} {
			wantIDs(t, fmt.Sprintf("%s: Lexical(tiebreak), k=%d", when, k), lexical(ctx, t, x, u, "tiebreak", k), tied[:min(k, len(tied))]...)
		}
	}
	probe("added in shuffled order", shuffled)

	remove(ctx, t, x, "u", "t1", "t10", "t2", "t5")
	probe("t1, t10, t2 and t5 removed", []string{"t3", "t4", "t6", "t7", "t8", "t9", "t11", "t12"})

	for _, id := range []string{"t5", "t2", "t10", "t1"} {
		upsert(ctx, t, x, tie(id))
	}
	probe("removed ids added back", shuffled)

	upsert(ctx, t, x, tie("t1"), tie("t3"))
	probe("t1 and t3 upserted again", shuffled)
}

// checkSearchScores checks Search against a brute-force scan: scores are
// the cosine similarities of the unit vectors (within 1e-5), best first, and
// the hits are the k most similar entries.
func checkSearchScores(ctx context.Context, t testing.TB, newIndex Factory) {
	x := newIndex(t, dim)
	r := rand.New(rand.NewPCG(7, 11))
	random := func() []float32 {
		v := make([]float32, dim)
		for i := range v {
			v[i] = float32(r.NormFloat64())
		}
		return unit(v)
	}
	byID := map[string][]float32{}
	for i := range 40 {
		e := retrieve.Entry{ID: fmt.Sprintf("r%02d", i), UserID: "u", Text: "ledger", Vector: random()}
		byID[e.ID] = e.Vector
		upsert(ctx, t, x, e)
	}
	queries := [][]float32{byID["r03"], random(), random(), random(), random()}
	for qi, q := range queries {
		var cos []float64
		for _, v := range byID {
			cos = append(cos, cosine(q, v))
		}
		slices.SortFunc(cos, func(a, b float64) int { return -cmpFloat(a, b) })
		for _, k := range []int{1, 5, 40, 41} {
			what := fmt.Sprintf("query %d, k=%d", qi, k)
			hits := search(ctx, t, x, memory.Filter{UserID: "u"}, q, k)
			n := min(k, len(byID))
			if len(hits) != n {
				t.Errorf("%s: got %d hits, want %d", what, len(hits), n)
				continue
			}
			seen := map[string]bool{}
			for i, h := range hits {
				v, ok := byID[h.ID]
				if !ok || seen[h.ID] {
					t.Errorf("%s: hit %d is %q, unknown or repeated", what, i, h.ID)
					continue
				}
				seen[h.ID] = true
				c := cosine(q, v)
				if math.Abs(h.Score-c) > 1e-5 {
					t.Errorf("%s: %s scored %v, its cosine similarity is %v", what, h.ID, h.Score, c)
				}
				if c < cos[n-1]-1e-5 {
					t.Errorf("%s: %s (cosine %v) is not among the %d most similar (the %dth has %v)", what, h.ID, c, n, n, cos[n-1])
				}
				if i > 0 && h.Score > hits[i-1].Score {
					t.Errorf("%s: hit %d scores %v, more than hit %d's %v: not best first", what, i, h.Score, i-1, hits[i-1].Score)
				}
			}
		}
	}
	hits := search(ctx, t, x, memory.Filter{UserID: "u"}, byID["r03"], 1)
	if len(hits) != 1 || hits[0].ID != "r03" || math.Abs(hits[0].Score-1) > 1e-5 {
		t.Errorf("Search with r03's own vector = %+v, want r03 with score 1", hits)
	}
}

// cmpFloat compares a and b (no NaNs here).
func cmpFloat(a, b float64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// checkLexicalScores checks Lexical against the texts: BM25 scores are
// positive and never increase down the list, ties are ordered by id, the
// hits are exactly the entries sharing a content word with the query, and a
// smaller k returns a prefix of a larger one.
func checkLexicalScores(ctx context.Context, t testing.TB, newIndex Factory) {
	x := newIndex(t, dim)
	vocab := strings.Fields("anchor beacon cinder dune ember fjord glacier harbor")
	texts := map[string]string{}
	for i := range 32 {
		// Every vocabulary word is in at most 8 of the 32 texts, so its
		// weight is positive under any BM25 idf; entries i and i+8 have the
		// same text, so their scores tie.
		e := retrieve.Entry{ID: fmt.Sprintf("d%02d", i), UserID: "u", Vector: query(),
			Text: vocab[i%8] + " " + vocab[(3*i+1)%8] + " " + words(i%4)}
		texts[e.ID] = e.Text
		upsert(ctx, t, x, e)
	}
	u := memory.Filter{UserID: "u"}
	for _, q := range []string{"anchor", "beacon dune", "ember ember fjord", "Glacier, harbor! anchor?", "zeppelin", ""} {
		var want []string
		for id, text := range texts {
			if sharesWord(text, q) {
				want = append(want, id)
			}
		}
		hits := lexical(ctx, t, x, u, q, 100)
		wantSet(t, fmt.Sprintf("Lexical(%q): the entries sharing a word", q), hits, want...)
		for i, h := range hits {
			if !(h.Score > 0) {
				t.Errorf("Lexical(%q): %s scored %v, want a positive score", q, h.ID, h.Score)
			}
			if i == 0 {
				continue
			}
			prev := hits[i-1]
			if h.Score > prev.Score {
				t.Errorf("Lexical(%q): %s scores %v after %s's %v: not best first", q, h.ID, h.Score, prev.ID, prev.Score)
			}
			if h.Score == prev.Score && h.ID < prev.ID {
				t.Errorf("Lexical(%q): %s after %s with the same score: ties not by id", q, h.ID, prev.ID)
			}
		}
		top := lexical(ctx, t, x, u, q, 3)
		wantIDs(t, fmt.Sprintf("Lexical(%q), k=3: a prefix of k=100", q), top, ids(hits)[:min(3, len(hits))]...)
	}
}

// sharesWord reports whether text and query have a word in common, ignoring
// case and punctuation.
func sharesWord(text, query string) bool {
	fields := func(s string) []string {
		return strings.FieldsFunc(strings.ToLower(s), func(r rune) bool { return !('a' <= r && r <= 'z') })
	}
	tw := fields(text)
	for _, w := range fields(query) {
		if slices.Contains(tw, w) {
			return true
		}
	}
	return false
}

// checkVectors checks Vectors: one slot per requested id, in order, holding
// the upserted vector, nil for an id the user does not have, and a slot for
// each repetition of an id.
func checkVectors(ctx context.Context, t testing.TB, newIndex Factory) {
	x := newIndex(t, dim)
	a := retrieve.Entry{ID: "a", UserID: "u", Text: "ledger", Vector: unit([]float32{1, 2, 3, 4, 5, 6, 7, 8})}
	b := retrieve.Entry{ID: "b", UserID: "u", Text: "ledger", Vector: unit([]float32{-8, 7, -6, 5, -4, 3, -2, 1})}
	c := retrieve.Entry{ID: "c", UserID: "o", Text: "ledger", Vector: unit([]float32{1, 1, 1, 1, 1, 1, 1, 1})}
	upsert(ctx, t, x, a, b, c)

	tests := []struct {
		user string
		ids  []string
		want [][]float32
	}{
		{"u", []string{"b", "missing", "a", "b", "c"}, [][]float32{b.Vector, nil, a.Vector, b.Vector, nil}},
		{"u", []string{"a"}, [][]float32{a.Vector}},
		{"u", []string{}, [][]float32{}},
		{"u", nil, [][]float32{}},
		{"o", []string{"a", "c"}, [][]float32{nil, c.Vector}},
		{"nobody", []string{"a", "b"}, [][]float32{nil, nil}},
	}
	for _, tt := range tests {
		vs := vectors(ctx, t, x, tt.user, tt.ids...)
		for i, want := range tt.want {
			switch got := vs[i]; {
			case want == nil && got != nil:
				t.Errorf("Vectors(%q, %q)[%d] = %v, want nil", tt.user, tt.ids, i, got)
			case want != nil && !sameVector(got, want):
				t.Errorf("Vectors(%q, %q)[%d] = %v, want %v", tt.user, tt.ids, i, got, want)
			}
		}
	}
	// An empty userId is no user: an error, or nothing found.
	if vs, err := x.Vectors(ctx, "", []string{"a", "c"}); err == nil {
		if len(vs) != 2 || vs[0] != nil || vs[1] != nil {
			t.Errorf("Vectors without a userId = %v, want an error or two nil slots", vs)
		}
	}
}

// checkVectorsStayIntact checks that vectors returned by Vectors do not
// change under their reader when the index is written to afterwards: the
// engine scores candidates with them after the call, while other requests
// remove and replace entries. An index that hands out views of storage it
// then reuses in place fails here (and races under -race).
func checkVectorsStayIntact(ctx context.Context, t testing.TB, newIndex Factory) {
	x := newIndex(t, dim)
	var entries []retrieve.Entry
	for i := range 4 {
		entries = append(entries, retrieve.Entry{ID: fmt.Sprintf("v%d", i), UserID: "u", Text: "ledger", Vector: angled(0.3 * float64(i))})
	}
	upsert(ctx, t, x, entries...)
	got := vectors(ctx, t, x, "u", "v0", "v1", "v2", "v3")
	// Remove the first, replace the second, add another.
	remove(ctx, t, x, "u", "v0")
	upsert(ctx, t, x, retrieve.Entry{ID: "v1", UserID: "u", Text: "ledger", Vector: angled(2)},
		retrieve.Entry{ID: "v4", UserID: "u", Text: "ledger", Vector: angled(2.5)})
	for i, e := range entries {
		if !sameVector(got[i], e.Vector) {
			t.Errorf("the vector Vectors returned for %s changed to %v after later writes, was %v", e.ID, got[i], e.Vector)
		}
	}
}

// checkReplaceUser checks bulk loading, for an index that implements
// index.Loader: ReplaceUser sets one user's entries and leaves other users
// alone, whatever sizeHint says; when the entries yield an error it returns
// that error and leaves the index as it was.
func checkReplaceUser(ctx context.Context, t testing.TB, newIndex Factory) {
	x := newIndex(t, dim)
	ld, ok := x.(index.Loader)
	if !ok {
		t.Skip("the index does not implement index.Loader")
	}
	q := query()
	u, o := memory.Filter{UserID: "u"}, memory.Filter{UserID: "o"}
	upsert(ctx, t, x,
		retrieve.Entry{ID: "a", UserID: "u", ProjectID: "p1", Text: "ledger anchor", Vector: angled(0.1)},
		retrieve.Entry{ID: "b", UserID: "u", Text: "ledger beacon", Vector: angled(0.3)},
		retrieve.Entry{ID: "o1", UserID: "o", Text: "ledger anchor", Vector: angled(0)})
	c := retrieve.Entry{ID: "c", UserID: "u", Text: "ledger cinder", Vector: angled(0.2)}
	d := retrieve.Entry{ID: "d", UserID: "u", ProjectID: "p2", Text: "ledger dune", Vector: angled(0.4)}
	if err := ld.ReplaceUser(ctx, "u", 2, seq([]retrieve.Entry{c, d}, nil)); err != nil {
		t.Fatalf("ReplaceUser: %v", err)
	}
	state := func(when string) {
		t.Helper()
		wantIDs(t, when+": Search", search(ctx, t, x, u, q, 10), "c", "d")
		wantIDs(t, when+": Search in p1", search(ctx, t, x, memory.Filter{UserID: "u", ProjectID: "p1"}, q, 10), "c")
		wantIDs(t, when+": Lexical(anchor)", lexical(ctx, t, x, u, "anchor", 10))
		wantIDs(t, when+": Lexical(cinder)", lexical(ctx, t, x, u, "cinder", 10), "c")
		vs := vectors(ctx, t, x, "u", "a", "b", "c", "d")
		if vs[0] != nil || vs[1] != nil || !sameVector(vs[2], c.Vector) || !sameVector(vs[3], d.Vector) {
			t.Errorf("%s: Vectors(a, b, c, d) = %v, want nil, nil and c's and d's", when, vs)
		}
		wantIDs(t, when+": the other user's Search", search(ctx, t, x, o, q, 10), "o1")
		wantIDs(t, when+": the other user's Lexical(anchor)", lexical(ctx, t, x, o, "anchor", 10), "o1")
		checkLen(t, x, 3)
	}
	state("after ReplaceUser")

	errRead := errors.New("indextest: read failed")
	bad := []retrieve.Entry{{ID: "e", UserID: "u", Text: "ledger ember", Vector: angled(0)}, {ID: "f", UserID: "u", Text: "ledger", Vector: angled(0)}}
	if err := ld.ReplaceUser(ctx, "u", 3, seq(bad, errRead)); !errors.Is(err, errRead) {
		t.Errorf("ReplaceUser whose entries fail returned %v, want the entries' error %v", err, errRead)
	}
	state("after a failed ReplaceUser")

	// sizeHint is only a hint.
	var five []retrieve.Entry
	for i := range 5 {
		five = append(five, retrieve.Entry{ID: fmt.Sprintf("h%d", i), UserID: "u", Text: "ledger", Vector: angled(0.1 * float64(i))})
	}
	for _, hint := range []int{0, 1, 100} {
		if err := ld.ReplaceUser(ctx, "u", hint, seq(five, nil)); err != nil {
			t.Fatalf("ReplaceUser with sizeHint %d: %v", hint, err)
		}
		wantIDs(t, fmt.Sprintf("Search after ReplaceUser with sizeHint %d", hint), search(ctx, t, x, u, q, 10), "h0", "h1", "h2", "h3", "h4")
		checkLen(t, x, 6)
	}

	// No entries: the user has none left.
	if err := ld.ReplaceUser(ctx, "u", 0, seq(nil, nil)); err != nil {
		t.Fatalf("ReplaceUser with no entries: %v", err)
	}
	wantIDs(t, "Search after ReplaceUser with no entries", search(ctx, t, x, u, q, 10))
	wantIDs(t, "the other user's Search after emptying u", search(ctx, t, x, o, q, 10), "o1")
	checkLen(t, x, 1)

	// A user the index has never seen.
	n := retrieve.Entry{ID: "n", UserID: "new", Text: "ledger", Vector: angled(0)}
	if err := ld.ReplaceUser(ctx, "new", 0, seq([]retrieve.Entry{n}, nil)); err != nil {
		t.Fatalf("ReplaceUser of a new user: %v", err)
	}
	wantIDs(t, "Search of a user loaded by ReplaceUser", search(ctx, t, x, memory.Filter{UserID: "new"}, q, 10), "n")
}

// checkConcurrency checks that the index is safe for concurrent use: users
// upsert, remove and search in parallel while readers search and read
// vectors of the same users (and, for a Loader, one user is reloaded
// meanwhile), without errors, other users' entries or wrong vectors, and the
// index ends as the writes left it. Run it under -race.
func checkConcurrency(ctx context.Context, t testing.TB, newIndex Factory) {
	x := newIndex(t, dim)
	const users, perUser, readers = 6, 60, 2
	id := func(user string, i int) string { return fmt.Sprintf("%s-m%02d", user, i) }
	entry := func(user string, i int) retrieve.Entry {
		return retrieve.Entry{ID: id(user, i), UserID: user, ProjectID: fmt.Sprintf("p%d", i%3),
			Text: fmt.Sprintf("ledger %s", words(i%6)), Vector: angled(0.02 * float64(i))}
	}
	names := make([]string, users)
	vectorOf := map[string][]float32{} // read-only once the goroutines start
	for n := range names {
		names[n] = fmt.Sprintf("user%d", n)
		for i := range perUser {
			vectorOf[id(names[n], i)] = entry(names[n], i).Vector
		}
	}
	// checkHits reports an error and hits of another user than user's.
	checkHits := func(call, user string, hits []retrieve.Hit, err error) bool {
		if err != nil {
			t.Errorf("%s(%s): %v", call, user, err)
			return false
		}
		for _, h := range hits {
			if !strings.HasPrefix(h.ID, user+"-") {
				t.Errorf("%s(%s) returned %s", call, user, h.ID)
			}
		}
		return true
	}
	// checkVectors reads vectors of user's ids, which must be nil or the
	// vector the id always has (every upsert of an id is the same).
	checkVectors := func(user string, ids []string) bool {
		vs, err := x.Vectors(ctx, user, ids)
		if err != nil || len(vs) != len(ids) {
			t.Errorf("Vectors(%s, %q) = %d slots, %v", user, ids, len(vs), err)
			return false
		}
		for i, v := range vs {
			if v != nil && !sameVector(v, vectorOf[ids[i]]) {
				t.Errorf("Vectors(%s, %s) = %v, want %v", user, ids[i], v, vectorOf[ids[i]])
			}
		}
		return true
	}
	q := query()

	var writers, others sync.WaitGroup
	for _, user := range names {
		writers.Go(func() {
			for i := range perUser {
				e := entry(user, i)
				if err := x.Upsert(ctx, e); err != nil {
					t.Errorf("Upsert(%s): %v", e.ID, err)
					return
				}
				if i%3 == 2 { // so every entry i with i%3 == 1 is removed
					if err := x.Remove(ctx, user, id(user, i-1)); err != nil {
						t.Errorf("Remove: %v", err)
						return
					}
				}
				hits, err := x.Search(ctx, memory.Filter{UserID: user}, q, 5)
				if !checkHits("Search", user, hits, err) {
					return
				}
				hits, err = x.Lexical(ctx, memory.Filter{UserID: user, ProjectID: "p1"}, "ledger", 5)
				if !checkHits("Lexical", user, hits, err) {
					return
				}
				if vs, err := x.Vectors(ctx, user, []string{e.ID}); err != nil || len(vs) != 1 || !sameVector(vs[0], e.Vector) {
					t.Errorf("Vectors(%s, %s) right after its upsert = %v, %v; want %v", user, e.ID, vs, err, e.Vector)
					return
				}
			}
		})
	}
	stop := make(chan struct{})
	for r := range readers {
		others.Go(func() {
			for n := r; ; n++ {
				select {
				case <-stop:
					return
				default:
				}
				user := names[n%users]
				hits, err := x.Search(ctx, memory.Filter{UserID: user}, q, 10)
				if !checkHits("Search", user, hits, err) || !checkVectors(user, append(ids(hits), id(user, n%perUser))) {
					return
				}
				runtime.Gosched()
			}
		})
	}
	var loaded []retrieve.Entry
	if ld, ok := x.(index.Loader); ok {
		for i := range 40 {
			loaded = append(loaded, entry("loaded", i))
		}
		others.Go(func() {
			for round := range 20 {
				// Alternate between every other entry and all of them; the
				// last round loads them all.
				es := loaded
				if round%2 == 0 {
					es = nil
					for i := 0; i < len(loaded); i += 2 {
						es = append(es, loaded[i])
					}
				}
				if err := ld.ReplaceUser(ctx, "loaded", len(es), seq(es, nil)); err != nil {
					t.Errorf("ReplaceUser: %v", err)
					return
				}
				runtime.Gosched()
			}
		})
	}
	writers.Wait()
	close(stop)
	others.Wait()
	if t.Failed() {
		return
	}

	total := len(loaded)
	for _, user := range names {
		var want []string
		for i := range perUser {
			if i%3 != 1 {
				want = append(want, id(user, i))
			}
		}
		total += len(want)
		wantIDs(t, "Search of "+user+" after the writes", search(ctx, t, x, memory.Filter{UserID: user}, q, 1000), want...)
		wantSet(t, "Lexical of "+user+" after the writes", lexical(ctx, t, x, memory.Filter{UserID: user}, "ledger", 1000), want...)
	}
	if loaded != nil {
		wantSet(t, "Search of the reloaded user", search(ctx, t, x, memory.Filter{UserID: "loaded"}, q, 1000), entryIDs(loaded)...)
	}
	checkLen(t, x, total)
}

// entryIDs returns the ids of entries, in order.
func entryIDs(entries []retrieve.Entry) []string {
	out := make([]string, len(entries))
	for i, e := range entries {
		out[i] = e.ID
	}
	return out
}

// checkWrongDimension checks that a vector of the wrong dimension, in Upsert
// or Search, is an error and not a panic, and that such an entry is not
// indexed.
func checkWrongDimension(ctx context.Context, t testing.TB, newIndex Factory) {
	x := newIndex(t, dim)
	upsert(ctx, t, x, retrieve.Entry{ID: "ok", UserID: "u", Text: "ledger", Vector: query()})
	for _, n := range []int{0, 1, dim - 1, dim + 1, 2 * dim} {
		v := unit(slices.Repeat([]float32{1}, n))
		id := fmt.Sprintf("dim%d", n)
		e := retrieve.Entry{ID: id, UserID: "u", Text: "ledger", Vector: v}
		err := safely(t, fmt.Sprintf("Upsert of a vector of dimension %d", n), func() error { return x.Upsert(ctx, e) })
		if err == nil {
			t.Errorf("Upsert of a vector of dimension %d into an index of dimension %d: no error", n, dim)
		}
		if vs, err := x.Vectors(ctx, "u", []string{id}); err == nil && len(vs) == 1 && vs[0] != nil {
			t.Errorf("the refused entry of dimension %d is indexed: %v", n, vs[0])
		}
		err = safely(t, fmt.Sprintf("Search with a query of dimension %d", n), func() error {
			_, err := x.Search(ctx, memory.Filter{UserID: "u"}, v, 5)
			return err
		})
		if err == nil {
			t.Errorf("Search with a query of dimension %d in an index of dimension %d: no error", n, dim)
		}
	}
	wantIDs(t, "Search after the refused upserts", search(ctx, t, x, memory.Filter{UserID: "u"}, query(), 10), "ok")
}

// or returns s, or def if s is empty.
func or(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

// prefixed returns prefix+s, or "" (unscoped) if s is empty.
func prefixed(prefix, s string) string {
	if s == "" {
		return ""
	}
	return prefix + s
}
