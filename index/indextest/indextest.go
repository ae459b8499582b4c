// Package indextest is the conformance suite of the index contract: the
// checks every index.Index must pass before an engine can rely on it. An
// implementation's test runs them all with
//
//	func TestConformance(t *testing.T) {
//		indextest.Run(t, func(t testing.TB, dim int) index.Index { return mine.New(dim) })
//	}
//
// The checks are also exported one by one, as data (Checks), so that the
// suite's own tests can run a check against a deliberately broken index and
// see it fail: a check that cannot fail proves nothing.
//
// The checks use a handful of entries with small vectors built by hand, so
// they need no embedder, and they expect exact answers: an approximate index
// is expected to be exact at this size. Scores are compared with a tolerance
// (cosines within 1e-5, vectors within 1e-6); BM25 scores only by sign and
// order, since implementations weigh terms differently. ReplaceUser is
// skipped for an index that is not an index.Loader, and Len is checked only
// for an index.Counter.
//
// One check asks for more than the words of the contract: VectorsStayIntact
// wants the vectors Vectors returns to stay as they were after later writes,
// since the engine keeps them for admission while other requests write.
package indextest

import (
	"context"
	"errors"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/memgate/memgate/index"
	"github.com/memgate/memgate/memory"
	"github.com/memgate/memgate/retrieve"
)

// Factory returns a new, empty index for vectors of dimension dim. A check
// calls it once for every index it needs; the index may register its own
// clean-up with t.Cleanup.
type Factory func(t testing.TB, dim int) index.Index

// Check is one property of the contract. Run reports every violation it
// finds through t, and fails t only for a violation.
type Check struct {
	Name string
	Run  func(ctx context.Context, t testing.TB, newIndex Factory)
}

// Checks are the conformance checks, in the order Run runs them.
var Checks = []Check{
	{"ScopeRule", checkScopeRule},
	{"ScopeInsideSearch", checkScopeInsideSearch},
	{"UserIsolation", checkUserIsolation},
	{"K", checkK},
	{"RemoveAndReplace", checkRemoveAndReplace},
	{"Ties", checkTies},
	{"SearchScores", checkSearchScores},
	{"LexicalScores", checkLexicalScores},
	{"Vectors", checkVectors},
	{"VectorsStayIntact", checkVectorsStayIntact},
	{"ReplaceUser", checkReplaceUser},
	{"Concurrency", checkConcurrency},
	{"WrongDimension", checkWrongDimension},
}

// Run runs every check against indexes from newIndex, each as a subtest.
func Run(t *testing.T, newIndex Factory) {
	for _, c := range Checks {
		t.Run(c.Name, func(t *testing.T) { c.Run(t.Context(), t, newIndex) })
	}
}

// dim is the dimension of the checks' vectors: small, but at least the
// width of a SIMD kernel, so vector code paths are taken.
const dim = 8

// unit returns v scaled to unit length (v itself if it is zero).
func unit(v []float32) []float32 {
	var ss float64
	for _, x := range v {
		ss += float64(x) * float64(x)
	}
	if ss == 0 {
		return v
	}
	inv := 1 / math.Sqrt(ss)
	for i := range v {
		v[i] = float32(float64(v[i]) * inv)
	}
	return v
}

// angled returns the unit vector at angle theta (radians) from the first
// axis towards the second: its cosine similarity to query() is cos(theta),
// so a larger angle ranks lower.
func angled(theta float64) []float32 {
	v := make([]float32, dim)
	v[0], v[1] = float32(math.Cos(theta)), float32(math.Sin(theta))
	return unit(v)
}

// query is the checks' usual query vector, the first axis.
func query() []float32 { return angled(0) }

// cosine is the cosine similarity of a and b, in float64.
func cosine(a, b []float32) float64 {
	var ab, aa, bb float64
	for i := range a {
		ab += float64(a[i]) * float64(b[i])
		aa += float64(a[i]) * float64(a[i])
		bb += float64(b[i]) * float64(b[i])
	}
	if aa == 0 || bb == 0 {
		return 0
	}
	return ab / math.Sqrt(aa*bb)
}

// ids returns the ids of hits, in order.
func ids(hits []retrieve.Hit) []string {
	out := make([]string, len(hits))
	for i, h := range hits {
		out[i] = h.ID
	}
	return out
}

// sortedIDs returns the ids of hits in ascending order.
func sortedIDs(hits []retrieve.Hit) []string {
	out := ids(hits)
	slices.Sort(out)
	return out
}

// upsert upserts entries and stops the check if that fails.
func upsert(ctx context.Context, t testing.TB, x index.Index, entries ...retrieve.Entry) {
	t.Helper()
	if err := x.Upsert(ctx, entries...); err != nil {
		t.Fatalf("Upsert of %d entries: %v", len(entries), err)
	}
}

// remove removes ids of userID and stops the check if that fails.
func remove(ctx context.Context, t testing.TB, x index.Index, userID string, ids ...string) {
	t.Helper()
	if err := x.Remove(ctx, userID, ids...); err != nil {
		t.Fatalf("Remove(%q, %q): %v", userID, ids, err)
	}
}

// search runs Search and stops the check if it fails.
func search(ctx context.Context, t testing.TB, x index.Index, f memory.Filter, q []float32, k int) []retrieve.Hit {
	t.Helper()
	hits, err := x.Search(ctx, f, q, k)
	if err != nil {
		t.Fatalf("Search(%+v, k=%d): %v", f, k, err)
	}
	return hits
}

// lexical runs Lexical and stops the check if it fails.
func lexical(ctx context.Context, t testing.TB, x index.Index, f memory.Filter, q string, k int) []retrieve.Hit {
	t.Helper()
	hits, err := x.Lexical(ctx, f, q, k)
	if err != nil {
		t.Fatalf("Lexical(%+v, %q, k=%d): %v", f, q, k, err)
	}
	return hits
}

// vectors runs Vectors, stops the check if it fails and checks that there
// is one slot per id.
func vectors(ctx context.Context, t testing.TB, x index.Index, userID string, ids ...string) [][]float32 {
	t.Helper()
	vs, err := x.Vectors(ctx, userID, ids)
	if err != nil {
		t.Fatalf("Vectors(%q, %q): %v", userID, ids, err)
	}
	if len(vs) != len(ids) {
		t.Fatalf("Vectors(%q, %q) returned %d slots, want one per id", userID, ids, len(vs))
	}
	return vs
}

// wantIDs reports hits whose ids are not want, in order.
func wantIDs(t testing.TB, what string, hits []retrieve.Hit, want ...string) {
	t.Helper()
	if got := ids(hits); !slices.Equal(got, want) {
		t.Errorf("%s: got %q, want %q", what, got, want)
	}
}

// wantSet reports hits whose ids are not the set want, in any order.
func wantSet(t testing.TB, what string, hits []retrieve.Hit, want ...string) {
	t.Helper()
	want = slices.Sorted(slices.Values(want))
	if got := sortedIDs(hits); !slices.Equal(got, want) {
		t.Errorf("%s: got %q, want (in any order) %q", what, got, want)
	}
}

// sameVector reports whether got is want within 1e-6 in every component.
func sameVector(got, want []float32) bool {
	if len(got) != len(want) {
		return false
	}
	for i := range got {
		if math.Abs(float64(got[i])-float64(want[i])) > 1e-6 {
			return false
		}
	}
	return true
}

// checkLen checks the index's count of entries, if it keeps one.
func checkLen(t testing.TB, x index.Index, want int) {
	t.Helper()
	if c, ok := x.(index.Counter); ok {
		if n := c.Len(); n != want {
			t.Errorf("Len() = %d, want %d", n, want)
		}
	}
}

// errPanicked is what safely returns for a call that panicked.
var errPanicked = errors.New("indextest: the call panicked")

// safely calls f and turns a panic into a reported failure (and
// errPanicked): the contract wants errors, and a panicking index would take
// the whole test binary down, hiding every other result.
func safely(t testing.TB, what string, f func() error) (err error) {
	t.Helper()
	defer func() {
		if r := recover(); r != nil {
			t.Errorf("%s panicked: %v", what, r)
			err = errPanicked
		}
	}()
	return f()
}

// seq yields entries, then err if it is not nil.
func seq(entries []retrieve.Entry, err error) func(yield func(retrieve.Entry, error) bool) {
	return func(yield func(retrieve.Entry, error) bool) {
		for _, e := range entries {
			if !yield(e, nil) {
				return
			}
		}
		if err != nil {
			yield(retrieve.Entry{}, err)
		}
	}
}

// words joins n words of the filler vocabulary, to lengthen a text without
// matching the checks' query words.
func words(n int) string {
	filler := strings.Fields("alpha bravo charlie delta echo foxtrot golf hotel india juliet kilo lima")
	return strings.Join(filler[:n], " ")
}

// label names a filter label for messages: "" (no filter) reads as "(any)".
func label(s string) string {
	if s == "" {
		return "(any)"
	}
	return s
}
