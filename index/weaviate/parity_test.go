package weaviate_test

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/memgate/memgate/index"
	"github.com/memgate/memgate/index/exact"
	"github.com/memgate/memgate/index/weaviate"
	"github.com/memgate/memgate/memory"
	"github.com/memgate/memgate/retrieve"
)

// parityVocab is the vocabulary of the parity test's texts and queries:
// plain words, stopwords of the exact index (which it leaves out of BM25)
// and words that only some tokenizers treat as stopwords, unicode words
// (accents, combining marks, ideographs, a capital that lowercases to
// another script's letter), apostrophes, digits, and punctuation glued to
// words.
var parityVocab = strings.Fields(`ledger anchor beacon cinder dune ember harbor glacier meadow quartz
	the a and of to is not no never also very
	café naïve Straße ÖLÇÜ 日本 語 東京 résumé cafe\u0301
	o'brien don't it's rock'n'roll 42 2026 v1.2 x86_64
	harbor, (glacier) "meadow" quartz! ANCHOR Ledger`)

// parityText returns a random text of up to n words of the vocabulary, with
// repeats.
func parityText(r *rand.Rand, n int) string {
	k := r.IntN(n + 1)
	w := make([]string, k)
	for i := range w {
		w[i] = parityVocab[r.IntN(len(parityVocab))]
		if r.IntN(6) == 0 { // a repeated word
			w[i] = parityVocab[r.IntN(8)]
		}
	}
	return strings.Join(w, " ")
}

// parityVector returns a unit vector of dimension dim: one of the shared
// vectors (so that distinct entries tie exactly), a coarse one (components
// in {-1, 0, 1}, so that distinct vectors tie too) or a random one.
func parityVector(r *rand.Rand, shared [][]float32, dim int) []float32 {
	switch r.IntN(4) {
	case 0:
		return shared[r.IntN(len(shared))]
	case 1:
		v := make([]float32, dim)
		for i := range v {
			v[i] = float32(r.IntN(3) - 1)
		}
		v[r.IntN(dim)] = 1
		return unitVec(v)
	}
	v := make([]float32, dim)
	for i := range v {
		v[i] = float32(r.NormFloat64())
	}
	return unitVec(v)
}

// unitVec scales v to unit length in float32, as an embedder does.
func unitVec(v []float32) []float32 {
	var ss float64
	for _, x := range v {
		ss += float64(x) * float64(x)
	}
	if ss == 0 {
		v[0] = 1
		return v
	}
	inv := float32(1 / math.Sqrt(ss))
	for i := range v {
		v[i] *= inv
	}
	return v
}

// TestParityWithExact is the differential test of the Weaviate index
// against the exact one: random corpora of many users (scopes, repeated
// words, unicode, stopwords, exact ties of vectors and of texts, removals
// and replacements) go into both, and every Search and Lexical, over many
// filters, queries and k, must return the same ids in the same order with
// the same scores (within 1e-6).
func TestParityWithExact(t *testing.T) {
	const dim = 16
	wv := fresh(t, dim)
	ex := exact.New(dim)
	ctx := context.Background()
	r := rand.New(rand.NewPCG(2026, 12))
	shared := make([][]float32, 4)
	for i := range shared {
		v := make([]float32, dim)
		for j := range v {
			v[j] = float32(r.NormFloat64())
		}
		shared[i] = unitVec(v)
	}
	labels := map[string][]string{
		"ws":      {"", "", "w1", "w2"},
		"project": {"", "", "p1", "p2", "p3"},
		"domain":  {"", "work", "health"},
	}
	pick := func(axis string) string { return labels[axis][r.IntN(len(labels[axis]))] }
	users := []string{"alice", "bob", "carol-x", "dave", "ü-user", "eve", "frank", "grace"}
	both := func(what string, f func(index.Index) error) {
		t.Helper()
		if err := f(ex); err != nil {
			t.Fatalf("exact %s: %v", what, err)
		}
		if err := f(wv); err != nil {
			t.Fatalf("weaviate %s: %v", what, err)
		}
	}
	texts := []string{} // texts shared between entries, for exact BM25 ties
	for ui, u := range users {
		n := 3 + r.IntN(40)
		if ui == 0 {
			n = 120
		}
		var es []retrieve.Entry
		for i := range n {
			text := parityText(r, 12)
			if len(texts) > 0 && r.IntN(5) == 0 {
				text = texts[r.IntN(len(texts))]
			} else {
				texts = append(texts, text)
			}
			es = append(es, retrieve.Entry{ID: fmt.Sprintf("m%03d", r.IntN(3*n)+i%2), UserID: u, Text: text,
				WorkspaceID: pick("ws"), ProjectID: pick("project"), Domain: pick("domain"), Vector: parityVector(r, shared, dim)})
		}
		both("upsert of "+u, func(x index.Index) error { return x.Upsert(ctx, es...) })
		// Remove some and replace others (new text and vector), so that
		// the statistics BM25 uses change after the first writes.
		var gone []string
		for _, e := range es {
			switch r.IntN(8) {
			case 0:
				gone = append(gone, e.ID)
			case 1:
				e.Text = parityText(r, 12)
				e.Vector = parityVector(r, shared, dim)
				both("re-upsert of "+e.ID, func(x index.Index) error { return x.Upsert(ctx, e) })
			}
		}
		both("remove", func(x index.Index) error { return x.Remove(ctx, u, gone...) })
	}

	filters := func(u string) []memory.Filter {
		return []memory.Filter{{UserID: u}, {UserID: u, ProjectID: "p1"}, {UserID: u, Domain: "work"},
			{UserID: u, WorkspaceID: "w1", ProjectID: "p2"}, {UserID: u, WorkspaceID: "w2", ProjectID: "p3", Domain: "health"},
			{UserID: u, ProjectID: "unseen"}}
	}
	var lexQueries []string
	for range 12 {
		lexQueries = append(lexQueries, parityText(r, 6))
	}
	lexQueries = append(lexQueries, "", "the and of", "ledger ledger ledger", "LEDGER, anchor!", "日本語", "café",
		"cafe\u0301 résumé", "o'brien don't", "unknownword", "42 v1 2", strings.Join(parityVocab, " "))
	var long []string // more distinct words than exact.MaxQueryTerms, most of them unknown
	for i := range exact.MaxQueryTerms + 8 {
		long = append(long, fmt.Sprintf("zz%02d", i))
	}
	lexQueries = append(lexQueries, strings.Join(long, " ")+" ledger anchor quartz")

	diffs, calls := map[string]int{}, map[string]int{}
	report := func(kind, what string, got, want []retrieve.Hit) {
		t.Helper()
		calls[kind]++
		if d := hitDiff(got, want); d != "" {
			diffs[kind]++
			if diffs["Search"]+diffs["Lexical"] <= 10 {
				t.Errorf("%s: %s\n weaviate %v\n    exact %v", what, d, got, want)
			}
		}
	}
	for _, u := range append(users, "nobody") {
		for _, f := range filters(u) {
			for _, k := range []int{1, 3, 10, 1000} {
				queries := [][]float32{shared[0], parityVector(r, shared, dim), parityVector(r, shared, dim)}
				for qi, q := range queries {
					want, err := ex.Search(ctx, f, q, k)
					if err != nil {
						t.Fatal(err)
					}
					got, err := wv.Search(ctx, f, q, k)
					if err != nil {
						t.Fatalf("weaviate Search: %v", err)
					}
					report("Search", fmt.Sprintf("Search(%+v, query %d, k=%d)", f, qi, k), got, want)
				}
				for _, q := range lexQueries {
					want, err := ex.Lexical(ctx, f, q, k)
					if err != nil {
						t.Fatal(err)
					}
					got, err := wv.Lexical(ctx, f, q, k)
					if err != nil {
						t.Fatalf("weaviate Lexical: %v", err)
					}
					report("Lexical", fmt.Sprintf("Lexical(%+v, %q, k=%d)", f, q, k), got, want)
				}
			}
		}
	}
	// With more matching entries than Lexical scores itself, Weaviate's
	// BM25 proposes the candidates and may miss some (see the package
	// doc): the hits are then not always the exact index's, but each one
	// must carry the exact index's score for its id, in order.
	defer weaviate.SetLexScanMax(0)()
	bm25Calls, bm25Differ := 0, 0
	for _, u := range users[:3] {
		for _, f := range filters(u)[:3] {
			for _, q := range lexQueries {
				all, err := ex.Lexical(ctx, f, q, 1000)
				if err != nil {
					t.Fatal(err)
				}
				exactScore := map[string]float64{}
				for _, h := range all {
					exactScore[h.ID] = h.Score
				}
				for _, k := range []int{1, 10} {
					got, err := wv.Lexical(ctx, f, q, k)
					if err != nil {
						t.Fatalf("weaviate Lexical on the BM25 path: %v", err)
					}
					bm25Calls++
					if hitDiff(got, all[:min(k, len(all))]) != "" {
						bm25Differ++
					}
					for i, h := range got {
						if s, ok := exactScore[h.ID]; !ok || math.Abs(s-h.Score) > 1e-6 {
							t.Errorf("BM25 path, Lexical(%+v, %q, k=%d): %s scores %v, the exact index %v (found %v)", f, q, k, h.ID, h.Score, s, ok)
						}
						if i > 0 && (got[i-1].Score < h.Score || got[i-1].Score == h.Score && got[i-1].ID > h.ID) {
							t.Errorf("BM25 path, Lexical(%+v, %q, k=%d): hits out of order: %v", f, q, k, got)
						}
					}
				}
			}
		}
	}
	t.Logf("BM25 path: %d of %d calls return other hits than the exact index", bm25Differ, bm25Calls)

	for _, kind := range []string{"Search", "Lexical"} {
		if diffs[kind] > 0 {
			t.Errorf("%d of %d calls of %s differ from the exact index", diffs[kind], calls[kind], kind)
		}
		t.Logf("%s: %d calls compared", kind, calls[kind])
	}
}

// hitDiff describes how got differs from want ("" if it does not): the
// same ids in the same order, with scores within 1e-6.
func hitDiff(got, want []retrieve.Hit) string {
	if len(got) != len(want) {
		return fmt.Sprintf("%d hits, want %d", len(got), len(want))
	}
	for i := range got {
		if got[i].ID != want[i].ID {
			return fmt.Sprintf("hit %d is %s, want %s", i, got[i].ID, want[i].ID)
		}
		if math.Abs(got[i].Score-want[i].Score) > 1e-6 {
			return fmt.Sprintf("hit %d (%s) scores %v, want %v", i, got[i].ID, got[i].Score, want[i].Score)
		}
	}
	return ""
}
