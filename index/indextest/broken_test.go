package indextest_test

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"iter"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/memgate/memgate/index"
	"github.com/memgate/memgate/index/exact"
	"github.com/memgate/memgate/index/indextest"
	"github.com/memgate/memgate/memory"
	"github.com/memgate/memgate/retrieve"
)

// The suite's own tests: every check passes the exact index and fails at
// least one deliberately broken one, so no check is vacuous. Each broken
// index wraps the exact index and breaks one rule of the contract, the way a
// real implementation plausibly would.

func newExact(t testing.TB, dim int) index.Index { return exact.New(dim) }

// broken is a deliberately broken index and the check it must fail.
type broken struct {
	name  string // what is wrong with it
	check string // the name of the check it fails
	new   indextest.Factory
}

// brokenIndexes are the broken indexes, at least one per check.
var brokenIndexes = []broken{
	{"matches unscoped entries only when unfiltered", "ScopeRule", func(t testing.TB, dim int) index.Index { return &strictScope{exact.New(dim)} }},
	{"post-filters the scope", "ScopeInsideSearch", func(t testing.TB, dim int) index.Index { return newPostFilter(dim) }},
	{"shares one partition among users", "UserIsolation", func(t testing.TB, dim int) index.Index { return &leaky{exact.New(dim)} }},
	{"searches everything for k ≤ 0", "K", func(t testing.TB, dim int) index.Index { return &kZeroIsAll{exact.New(dim)} }},
	{"ignores Remove", "RemoveAndReplace", func(t testing.TB, dim int) index.Index { return &noRemove{exact.New(dim)} }},
	{"orders ties by descending id", "Ties", func(t testing.TB, dim int) index.Index { return &reverseTies{exact.New(dim)} }},
	{"reports (1+cos)/2 as the score", "SearchScores", func(t testing.TB, dim int) index.Index { return &certainty{exact.New(dim)} }},
	{"reports BM25 as a cost", "LexicalScores", func(t testing.TB, dim int) index.Index { return &negatedBM25{exact.New(dim)} }},
	{"leaves missing ids out of Vectors", "Vectors", func(t testing.TB, dim int) index.Index { return &compactVectors{exact.New(dim)} }},
	{"hands out vectors it reuses", "VectorsStayIntact", func(t testing.TB, dim int) index.Index { return newInPlace(dim) }},
	{"loads a user in place", "ReplaceUser", func(t testing.TB, dim int) index.Index { return &streamingLoad{exact.New(dim)} }},
	{"refuses concurrent calls", "Concurrency", func(t testing.TB, dim int) index.Index { return &oneAtATime{Index: exact.New(dim)} }},
	{"truncates vectors to its dimension", "WrongDimension", func(t testing.TB, dim int) index.Index {
		return &truncating{Index: exact.New(dim), dim: dim}
	}},
}

// TestChecksPassExact runs every check against the exact index through the
// recorder, so that the recorder itself is known to report a pass as a pass.
func TestChecksPassExact(t *testing.T) {
	for _, c := range indextest.Checks {
		t.Run(c.Name, func(t *testing.T) {
			if r := runCheck(t, c, newExact); r.Failed() {
				t.Errorf("the exact index fails %s:\n%s", c.Name, r.report())
			}
		})
	}
}

// TestChecksFailBrokenIndexes runs each broken index against the check it
// breaks, which must fail.
func TestChecksFailBrokenIndexes(t *testing.T) {
	for _, b := range brokenIndexes {
		t.Run(b.check+"/"+b.name, func(t *testing.T) {
			r := runCheck(t, check(t, b.check), b.new)
			if !r.Failed() {
				t.Fatalf("%s passes an index that %s", b.check, b.name)
			}
			t.Logf("%s fails, as it should:\n%s", b.check, r.report())
		})
	}
}

// TestPostFilterLosesOnlyTheK shows what sets ScopeInsideSearch apart from
// ScopeRule: a post-filtering index applies the scope rule correctly, and
// only loses in-scope hits when others fill the k.
func TestPostFilterLosesOnlyTheK(t *testing.T) {
	newIndex := func(t testing.TB, dim int) index.Index { return newPostFilter(dim) }
	if r := runCheck(t, check(t, "ScopeRule"), newIndex); r.Failed() {
		t.Errorf("ScopeRule fails the post-filtering index:\n%s", r.report())
	}
	if r := runCheck(t, check(t, "ScopeInsideSearch"), newIndex); !r.Failed() {
		t.Error("ScopeInsideSearch passes the post-filtering index")
	}
}

// TestEveryCheckCanFail makes sure every check has a broken index that
// fails it.
func TestEveryCheckCanFail(t *testing.T) {
	for _, c := range indextest.Checks {
		if !slices.ContainsFunc(brokenIndexes, func(b broken) bool { return b.check == c.Name }) {
			t.Errorf("no broken index fails %s", c.Name)
		}
	}
}

// check returns the check named name.
func check(t *testing.T, name string) indextest.Check {
	t.Helper()
	i := slices.IndexFunc(indextest.Checks, func(c indextest.Check) bool { return c.Name == name })
	if i < 0 {
		t.Fatalf("no check %q", name)
	}
	return indextest.Checks[i]
}

// runCheck runs c against indexes from newIndex with a recorder in place of
// t, and returns the recorder. The check runs on a goroutine of its own, so
// that its Fatal (runtime.Goexit) ends the check and not the test.
func runCheck(t *testing.T, c indextest.Check, newIndex indextest.Factory) *recorder {
	r := &recorder{TB: t}
	done := make(chan struct{})
	go func() {
		defer close(done)
		c.Run(t.Context(), r, newIndex)
	}()
	<-done
	return r
}

// recorder is a testing.TB that records failures and skips instead of
// reporting them; everything else (Helper, Cleanup, Context, ...) goes to
// the real test. It is safe for concurrent use, as a check's goroutines
// report through it.
type recorder struct {
	testing.TB
	mu      sync.Mutex
	failed  bool
	skipped bool
	msgs    []string
}

func (r *recorder) log(failed, skipped bool, msg string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.failed = r.failed || failed
	r.skipped = r.skipped || skipped
	if msg != "" {
		r.msgs = append(r.msgs, msg)
	}
}

func (r *recorder) Error(args ...any) { r.log(true, false, fmt.Sprint(args...)) }
func (r *recorder) Errorf(format string, args ...any) {
	r.log(true, false, fmt.Sprintf(format, args...))
}
func (r *recorder) Fail()                             { r.log(true, false, "") }
func (r *recorder) FailNow()                          { r.Fail(); runtime.Goexit() }
func (r *recorder) Fatal(args ...any)                 { r.Error(args...); runtime.Goexit() }
func (r *recorder) Fatalf(format string, args ...any) { r.Errorf(format, args...); runtime.Goexit() }
func (r *recorder) Log(args ...any)                   { r.log(false, false, fmt.Sprint(args...)) }
func (r *recorder) Logf(format string, args ...any) {
	r.log(false, false, fmt.Sprintf(format, args...))
}
func (r *recorder) Skip(args ...any) { r.log(false, true, fmt.Sprint(args...)); runtime.Goexit() }
func (r *recorder) Skipf(format string, args ...any) {
	r.log(false, true, fmt.Sprintf(format, args...))
	runtime.Goexit()
}
func (r *recorder) SkipNow() { r.log(false, true, ""); runtime.Goexit() }

func (r *recorder) Failed() bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.failed
}

func (r *recorder) Skipped() bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.skipped
}

// report returns the first recorded messages, for a test's log.
func (r *recorder) report() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	msgs := r.msgs
	more := ""
	if len(msgs) > 5 {
		msgs, more = msgs[:5], fmt.Sprintf("\n\t(and %d more)", len(r.msgs)-5)
	}
	return "\t" + strings.Join(msgs, "\n\t") + more
}

// strictScope stores an unscoped entry under a label of its own, so a
// filter on a label misses it, as a plain "project = ?" query would.
type strictScope struct{ index.Index }

func (x *strictScope) Upsert(ctx context.Context, entries ...retrieve.Entry) error {
	labelled := slices.Clone(entries)
	for i := range labelled {
		e := &labelled[i]
		for _, l := range []*string{&e.WorkspaceID, &e.ProjectID, &e.Domain} {
			if *l == "" {
				*l = "(none)"
			}
		}
	}
	return x.Index.Upsert(ctx, labelled...)
}

// postFilter searches the whole of the user's partition for the k best and
// then drops the hits out of scope: the mistake the contract forbids.
type postFilter struct {
	index.Index
	mu    sync.Mutex
	scope map[[2]string]memory.Memory // by user and id: the entry's scope
}

func newPostFilter(dim int) *postFilter {
	return &postFilter{Index: exact.New(dim), scope: map[[2]string]memory.Memory{}}
}

func (x *postFilter) Upsert(ctx context.Context, entries ...retrieve.Entry) error {
	if err := x.Index.Upsert(ctx, entries...); err != nil {
		return err
	}
	x.mu.Lock()
	defer x.mu.Unlock()
	for _, e := range entries {
		x.scope[[2]string{e.UserID, e.ID}] = memory.Memory{UserID: e.UserID, WorkspaceID: e.WorkspaceID, ProjectID: e.ProjectID, Domain: e.Domain}
	}
	return nil
}

func (x *postFilter) Remove(ctx context.Context, userID string, ids ...string) error {
	if err := x.Index.Remove(ctx, userID, ids...); err != nil {
		return err
	}
	x.mu.Lock()
	defer x.mu.Unlock()
	for _, id := range ids {
		delete(x.scope, [2]string{userID, id})
	}
	return nil
}

func (x *postFilter) Search(ctx context.Context, f memory.Filter, q []float32, k int) ([]retrieve.Hit, error) {
	hits, err := x.Index.Search(ctx, memory.Filter{UserID: f.UserID}, q, k)
	return x.filter(f, hits), err
}

func (x *postFilter) Lexical(ctx context.Context, f memory.Filter, query string, k int) ([]retrieve.Hit, error) {
	hits, err := x.Index.Lexical(ctx, memory.Filter{UserID: f.UserID}, query, k)
	return x.filter(f, hits), err
}

func (x *postFilter) filter(f memory.Filter, hits []retrieve.Hit) []retrieve.Hit {
	x.mu.Lock()
	defer x.mu.Unlock()
	return slices.DeleteFunc(hits, func(h retrieve.Hit) bool {
		m := x.scope[[2]string{f.UserID, h.ID}]
		return !f.Matches(&m)
	})
}

// leaky keeps every user's entries in one shared partition and searches it
// whatever the user.
type leaky struct{ index.Index }

const everyone = "everyone"

func (x *leaky) Upsert(ctx context.Context, entries ...retrieve.Entry) error {
	shared := slices.Clone(entries)
	for i := range shared {
		shared[i].UserID = everyone
	}
	return x.Index.Upsert(ctx, shared...)
}

func (x *leaky) Remove(ctx context.Context, userID string, ids ...string) error {
	return x.Index.Remove(ctx, everyone, ids...)
}

func (x *leaky) Search(ctx context.Context, f memory.Filter, q []float32, k int) ([]retrieve.Hit, error) {
	if f.UserID != "" {
		f.UserID = everyone
	}
	return x.Index.Search(ctx, f, q, k)
}

func (x *leaky) Lexical(ctx context.Context, f memory.Filter, query string, k int) ([]retrieve.Hit, error) {
	if f.UserID != "" {
		f.UserID = everyone
	}
	return x.Index.Lexical(ctx, f, query, k)
}

func (x *leaky) Vectors(ctx context.Context, userID string, ids []string) ([][]float32, error) {
	return x.Index.Vectors(ctx, everyone, ids)
}

// kZeroIsAll takes k ≤ 0 for "no limit".
type kZeroIsAll struct{ index.Index }

func (x *kZeroIsAll) Search(ctx context.Context, f memory.Filter, q []float32, k int) ([]retrieve.Hit, error) {
	if k <= 0 {
		k = 1 << 20
	}
	return x.Index.Search(ctx, f, q, k)
}

func (x *kZeroIsAll) Lexical(ctx context.Context, f memory.Filter, query string, k int) ([]retrieve.Hit, error) {
	if k <= 0 {
		k = 1 << 20
	}
	return x.Index.Lexical(ctx, f, query, k)
}

// noRemove acknowledges removals without making them.
type noRemove struct{ index.Index }

func (x *noRemove) Remove(ctx context.Context, userID string, ids ...string) error { return nil }

// reverseTies orders hits with equal scores by descending id.
type reverseTies struct{ index.Index }

func (x *reverseTies) Search(ctx context.Context, f memory.Filter, q []float32, k int) ([]retrieve.Hit, error) {
	hits, err := x.Index.Search(ctx, f, q, k)
	return reverse(hits), err
}

func (x *reverseTies) Lexical(ctx context.Context, f memory.Filter, query string, k int) ([]retrieve.Hit, error) {
	hits, err := x.Index.Lexical(ctx, f, query, k)
	return reverse(hits), err
}

func reverse(hits []retrieve.Hit) []retrieve.Hit {
	slices.SortFunc(hits, func(a, b retrieve.Hit) int {
		return cmp.Or(cmp.Compare(b.Score, a.Score), strings.Compare(b.ID, a.ID))
	})
	return hits
}

// certainty reports (1+cos)/2, a similarity in [0, 1], instead of the cosine.
type certainty struct{ index.Index }

func (x *certainty) Search(ctx context.Context, f memory.Filter, q []float32, k int) ([]retrieve.Hit, error) {
	hits, err := x.Index.Search(ctx, f, q, k)
	for i := range hits {
		hits[i].Score = (1 + hits[i].Score) / 2
	}
	return hits, err
}

// negatedBM25 reports BM25 scores negated, as a cost, lowest first.
type negatedBM25 struct{ index.Index }

func (x *negatedBM25) Lexical(ctx context.Context, f memory.Filter, query string, k int) ([]retrieve.Hit, error) {
	hits, err := x.Index.Lexical(ctx, f, query, k)
	for i := range hits {
		hits[i].Score = -hits[i].Score
	}
	slices.Reverse(hits)
	return hits, err
}

// compactVectors returns only the vectors it found, not a slot per id.
type compactVectors struct{ index.Index }

func (x *compactVectors) Vectors(ctx context.Context, userID string, ids []string) ([][]float32, error) {
	vs, err := x.Index.Vectors(ctx, userID, ids)
	return slices.DeleteFunc(vs, func(v []float32) bool { return v == nil }), err
}

// inPlace keeps a vector per entry and overwrites it in place when the entry
// is replaced or removed, while Vectors hands out the stored slices.
type inPlace struct {
	index.Index
	mu   sync.Mutex
	vecs map[[2]string][]float32
}

func newInPlace(dim int) *inPlace {
	return &inPlace{Index: exact.New(dim), vecs: map[[2]string][]float32{}}
}

func (x *inPlace) Upsert(ctx context.Context, entries ...retrieve.Entry) error {
	if err := x.Index.Upsert(ctx, entries...); err != nil {
		return err
	}
	x.mu.Lock()
	defer x.mu.Unlock()
	for _, e := range entries {
		key := [2]string{e.UserID, e.ID}
		if v, ok := x.vecs[key]; ok {
			copy(v, e.Vector)
		} else {
			x.vecs[key] = slices.Clone(e.Vector)
		}
	}
	return nil
}

func (x *inPlace) Remove(ctx context.Context, userID string, ids ...string) error {
	if err := x.Index.Remove(ctx, userID, ids...); err != nil {
		return err
	}
	x.mu.Lock()
	defer x.mu.Unlock()
	for _, id := range ids {
		if v, ok := x.vecs[[2]string{userID, id}]; ok {
			clear(v)
			delete(x.vecs, [2]string{userID, id})
		}
	}
	return nil
}

func (x *inPlace) Vectors(ctx context.Context, userID string, ids []string) ([][]float32, error) {
	x.mu.Lock()
	defer x.mu.Unlock()
	out := make([][]float32, len(ids))
	for i, id := range ids {
		out[i] = x.vecs[[2]string{userID, id}]
	}
	return out, nil
}

// streamingLoad implements ReplaceUser by dropping the user's entries and
// upserting the new ones as they arrive: an error midway leaves the user
// half loaded.
type streamingLoad struct{ index.Index }

func (x *streamingLoad) ReplaceUser(ctx context.Context, userID string, sizeHint int, entries iter.Seq2[retrieve.Entry, error]) error {
	if err := x.Index.(index.Loader).ReplaceUser(ctx, userID, 0, func(func(retrieve.Entry, error) bool) {}); err != nil {
		return err
	}
	for e, err := range entries {
		if err != nil {
			return err
		}
		if err := x.Upsert(ctx, e); err != nil {
			return err
		}
	}
	return nil
}

// oneAtATime is not safe for concurrent use, and says so: a call made while
// another is in progress fails.
type oneAtATime struct {
	index.Index
	busy atomic.Int32
}

var errBusy = errors.New("index busy: not safe for concurrent use")

// enter marks a call in progress, or fails if another one is; it yields the
// processor once in, so that calls from several goroutines do overlap.
func (x *oneAtATime) enter() error {
	if x.busy.Add(1) > 1 {
		x.busy.Add(-1)
		return errBusy
	}
	runtime.Gosched()
	return nil
}

func (x *oneAtATime) leave() { x.busy.Add(-1) }

func (x *oneAtATime) Upsert(ctx context.Context, entries ...retrieve.Entry) error {
	if err := x.enter(); err != nil {
		return err
	}
	defer x.leave()
	return x.Index.Upsert(ctx, entries...)
}

func (x *oneAtATime) Search(ctx context.Context, f memory.Filter, q []float32, k int) ([]retrieve.Hit, error) {
	if err := x.enter(); err != nil {
		return nil, err
	}
	defer x.leave()
	return x.Index.Search(ctx, f, q, k)
}

// truncating cuts vectors down to its dimension instead of refusing them
// (and panics on a short one).
type truncating struct {
	index.Index
	dim int
}

func (x *truncating) Upsert(ctx context.Context, entries ...retrieve.Entry) error {
	cut := slices.Clone(entries)
	for i := range cut {
		cut[i].Vector = cut[i].Vector[:x.dim]
	}
	return x.Index.Upsert(ctx, cut...)
}

func (x *truncating) Search(ctx context.Context, f memory.Filter, q []float32, k int) ([]retrieve.Hit, error) {
	return x.Index.Search(ctx, f, q[:x.dim], k)
}
