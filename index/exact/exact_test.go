package exact

import (
	"context"
	"errors"
	"fmt"
	"iter"
	"maps"
	"math/rand/v2"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/memgate/memgate/embed"
	"github.com/memgate/memgate/memory"
	"github.com/memgate/memgate/retrieve"
)

func randVec(r *rand.Rand, dim int) []float32 {
	v := make([]float32, dim)
	for i := range v {
		v[i] = float32(r.NormFloat64())
	}
	embed.Normalize(v)
	return v
}

// bruteForce is the reference: score every in-scope entry and sort.
func bruteForce(entries []retrieve.Entry, f memory.Filter, q []float32, k int) []string {
	type s struct {
		id    string
		score float32
	}
	var all []s
	for _, e := range entries {
		m := memory.Memory{UserID: e.UserID, WorkspaceID: e.WorkspaceID, ProjectID: e.ProjectID, Domain: e.Domain}
		if f.Matches(&m) {
			all = append(all, s{e.ID, Dot(q, e.Vector)})
		}
	}
	sort.Slice(all, func(i, j int) bool {
		if all[i].score != all[j].score {
			return all[i].score > all[j].score
		}
		return all[i].id < all[j].id
	})
	var ids []string
	for i := 0; i < len(all) && i < k; i++ {
		ids = append(ids, all[i].id)
	}
	return ids
}

func TestSearchMatchesBruteForceWithScopes(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	const dim = 16
	projects := []string{"", "p1", "p2", "p3"}
	domains := []string{"", "work", "health"}
	var entries []retrieve.Entry
	for i := range 600 {
		entries = append(entries, retrieve.Entry{
			ID: fmt.Sprintf("m%03d", i), UserID: []string{"u1", "u2", "u3"}[i%3],
			ProjectID: projects[r.IntN(len(projects))], Domain: domains[r.IntN(len(domains))],
			Vector: randVec(r, dim),
		})
	}
	x := New(dim)
	if err := x.Upsert(context.Background(), entries...); err != nil {
		t.Fatal(err)
	}
	// Remove some, to exercise the swap-delete bookkeeping.
	var kept []retrieve.Entry
	for i, e := range entries {
		if i%7 == 0 {
			if err := x.Remove(context.Background(), e.UserID, e.ID); err != nil {
				t.Fatal(err)
			}
			continue
		}
		kept = append(kept, e)
	}
	if x.Len() != len(kept) {
		t.Fatalf("Len %d, want %d", x.Len(), len(kept))
	}
	filters := []memory.Filter{
		{UserID: "u1"}, {UserID: "u2", ProjectID: "p1"}, {UserID: "u3", Domain: "health"},
		{UserID: "u1", ProjectID: "p2", Domain: "work"}, {UserID: "u1", ProjectID: "never-seen"},
		{UserID: "nobody"},
	}
	for _, f := range filters {
		for _, k := range []int{1, 5, 50, 1000} {
			q := randVec(r, dim)
			hits, err := x.Search(context.Background(), f, q, k)
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, h := range hits {
				got = append(got, h.ID)
			}
			if want := bruteForce(kept, f, q, k); !slices.Equal(got, want) {
				t.Fatalf("filter %+v k=%d:\n got %v\nwant %v", f, k, got, want)
			}
		}
	}
}

// The user scope is enforced inside the search: even when another user's
// vectors are far closer to the query, a search returns the full k of its own
// user's memories.
func TestUserScopeIsNotPostFiltered(t *testing.T) {
	x := New(2)
	q := []float32{1, 0}
	var es []retrieve.Entry
	for i := range 100 {
		es = append(es, retrieve.Entry{ID: fmt.Sprintf("other%d", i), UserID: "mallory", Vector: []float32{1, 0}})
	}
	for i := range 10 {
		es = append(es, retrieve.Entry{ID: fmt.Sprintf("mine%d", i), UserID: "alice", Vector: []float32{0, 1}})
	}
	if err := x.Upsert(context.Background(), es...); err != nil {
		t.Fatal(err)
	}
	hits, err := x.Search(context.Background(), memory.Filter{UserID: "alice"}, q, 10)
	if err != nil {
		t.Fatal(err)
	}
	if len(hits) != 10 {
		t.Fatalf("got %d hits, want all 10 of alice's", len(hits))
	}
	for _, h := range hits {
		if h.ID[:4] != "mine" {
			t.Fatalf("alice's search returned %s", h.ID)
		}
	}
}

func TestUpsertReplacesAndValidates(t *testing.T) {
	x := New(2)
	if err := x.Upsert(context.Background(), retrieve.Entry{ID: "a", UserID: "u", Vector: []float32{1, 0}}); err != nil {
		t.Fatal(err)
	}
	if err := x.Upsert(context.Background(), retrieve.Entry{ID: "a", UserID: "u", Vector: []float32{0, 1}, ProjectID: "p"}); err != nil {
		t.Fatal(err)
	}
	if x.Len() != 1 {
		t.Fatalf("Len %d after replace", x.Len())
	}
	vs, err := x.Vectors(context.Background(), "u", []string{"a"})
	if err != nil || len(vs) != 1 || !slices.Equal(vs[0], []float32{0, 1}) {
		t.Fatalf("Vectors = %v, %v; want the replacing vector", vs, err)
	}
	if s := float64(Dot([]float32{0, 1}, vs[0])); s != 1 {
		t.Fatalf("similarity from Vectors = %v", s)
	}
	if err := x.Upsert(context.Background(), retrieve.Entry{ID: "b", UserID: "u", Vector: []float32{1}}); err == nil {
		t.Fatal("wrong dimension accepted")
	}
	if err := x.Upsert(context.Background(), retrieve.Entry{ID: "b", Vector: []float32{1, 0}}); err == nil {
		t.Fatal("entry without user accepted")
	}
	if _, err := x.Search(context.Background(), memory.Filter{}, []float32{1, 0}, 1); err == nil {
		t.Fatal("search without user accepted")
	}
	if _, err := x.Search(context.Background(), memory.Filter{UserID: "u"}, []float32{1}, 1); err == nil {
		t.Fatal("query of wrong dimension accepted")
	}
}

// BenchmarkSearch20k measures one user's exact search over 20,000 builtin-
// dimension vectors with k=50, the target workload.
func BenchmarkSearch20k(b *testing.B) {
	r := rand.New(rand.NewPCG(3, 4))
	dim := embed.BuiltinDim
	x := New(dim)
	es := make([]retrieve.Entry, 20000)
	for i := range es {
		es[i] = retrieve.Entry{ID: fmt.Sprintf("m%d", i), UserID: "u1", ProjectID: fmt.Sprintf("p%d", i%5), Vector: randVec(r, dim)}
	}
	if err := x.Upsert(context.Background(), es...); err != nil {
		b.Fatal(err)
	}
	q := randVec(r, dim)
	for _, tc := range []struct {
		name string
		f    memory.Filter
	}{{"user", memory.Filter{UserID: "u1"}}, {"user+project", memory.Filter{UserID: "u1", ProjectID: "p2"}}} {
		b.Run(tc.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := x.Search(context.Background(), tc.f, q, 50); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// TestReplaceUser sets one user's partition at once, as an engine does when
// it loads a user, and must leave the index exactly as the same entries
// upserted one by one would.
func TestReplaceUser(t *testing.T) {
	ctx := context.Background()
	r := rand.New(rand.NewPCG(3, 4))
	const dim = 8
	entry := func(id, user, project, text string) retrieve.Entry {
		return retrieve.Entry{ID: id, UserID: user, ProjectID: project, Text: text, Vector: randVec(r, dim)}
	}
	other := []retrieve.Entry{entry("o1", "other", "", "other user's deploy note"), entry("o2", "other", "p1", "other deploy")}
	tests := []struct {
		name    string
		before  []retrieve.Entry // upserted first
		entries []retrieve.Entry
		wantErr string
		want    []string // the user's ids afterwards, sorted
	}{
		{"load into nothing", nil, []retrieve.Entry{entry("a", "u", "p1", "deploy friday"), entry("b", "u", "", "deploy notes")}, "", []string{"a", "b"}},
		{"replaces what was there", []retrieve.Entry{entry("stale", "u", "", "stale deploy")}, []retrieve.Entry{entry("a", "u", "", "deploy")}, "", []string{"a"}},
		{"empty drops the user", []retrieve.Entry{entry("stale", "u", "", "stale deploy")}, nil, "", nil},
		{"a repeated id keeps the later entry", nil, []retrieve.Entry{entry("a", "u", "p1", "first deploy"), entry("a", "u", "p2", "second deploy")}, "", []string{"a"}},
		{"another user's entry", []retrieve.Entry{entry("keep", "u", "", "deploy")}, []retrieve.Entry{entry("a", "u", "", "x"), entry("o3", "other", "", "x")}, "belongs to user other", []string{"keep"}},
		{"wrong dimension", []retrieve.Entry{entry("keep", "u", "", "deploy")}, []retrieve.Entry{{ID: "bad", UserID: "u", Vector: []float32{1}}}, "dimension", []string{"keep"}},
		{"the entries fail", []retrieve.Entry{entry("keep", "u", "", "deploy")}, []retrieve.Entry{entry("a", "u", "", "x"), {ID: "fail"}}, "read failed", []string{"keep"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			x := New(dim)
			if err := x.Upsert(context.Background(), append(slices.Clone(other), tt.before...)...); err != nil {
				t.Fatal(err)
			}
			err := x.ReplaceUser(ctx, "u", len(tt.entries), seqOf(tt.entries))
			if (err == nil) != (tt.wantErr == "") || err != nil && !strings.Contains(err.Error(), tt.wantErr) {
				t.Fatalf("ReplaceUser = %v, want error %q", err, tt.wantErr)
			}
			q := randVec(r, dim)
			hits, _ := x.Search(ctx, memory.Filter{UserID: "u"}, q, 100)
			var got []string
			for _, h := range hits {
				got = append(got, h.ID)
			}
			slices.Sort(got)
			if !slices.Equal(got, tt.want) {
				t.Fatalf("user's ids = %v, want %v", got, tt.want)
			}
			if x.Len() != len(other)+len(tt.want) {
				t.Fatalf("Len = %d, want %d", x.Len(), len(other)+len(tt.want))
			}
			if lex, _ := x.Lexical(ctx, memory.Filter{UserID: "u"}, "deploy", 100); len(lex) > len(tt.want) {
				t.Fatalf("lexical finds %d of %d", len(lex), len(tt.want))
			}
			// The other user is untouched.
			if hits, _ := x.Search(ctx, memory.Filter{UserID: "other"}, q, 100); len(hits) != len(other) {
				t.Fatalf("other user has %d entries", len(hits))
			}
			if tt.name == "a repeated id keeps the later entry" {
				if hits, _ := x.Search(ctx, memory.Filter{UserID: "u", ProjectID: "p1"}, q, 10); len(hits) != 0 {
					t.Fatalf("the earlier entry's scope survived: %v", hits)
				}
			}
		})
	}
}

// seqOf yields entries, and an error in place of an entry with the id "fail".
func seqOf(entries []retrieve.Entry) iter.Seq2[retrieve.Entry, error] {
	return func(yield func(retrieve.Entry, error) bool) {
		for _, e := range entries {
			if e.ID == "fail" {
				yield(retrieve.Entry{}, errors.New("read failed"))
				return
			}
			if !yield(e, nil) {
				return
			}
		}
	}
}

// TestReplaceUserWhileSearching loads users while others are searched (run
// with -race).
func TestReplaceUserWhileSearching(t *testing.T) {
	ctx := context.Background()
	r := rand.New(rand.NewPCG(5, 6))
	const dim = 16
	x := New(dim)
	var base []retrieve.Entry
	for i := range 200 {
		base = append(base, retrieve.Entry{ID: fmt.Sprintf("s%d", i), UserID: "searched", Text: "quarterly report", Vector: randVec(r, dim)})
	}
	if err := x.Upsert(context.Background(), base...); err != nil {
		t.Fatal(err)
	}
	loads := make([][]retrieve.Entry, 8)
	for u := range loads {
		for i := range 300 {
			loads[u] = append(loads[u], retrieve.Entry{ID: fmt.Sprintf("l%d-%d", u, i), UserID: fmt.Sprintf("loaded%d", u), Text: "report", Vector: randVec(r, dim)})
		}
	}
	q := randVec(r, dim)
	done := make(chan struct{})
	go func() {
		defer close(done)
		for u, es := range loads {
			if err := x.ReplaceUser(ctx, fmt.Sprintf("loaded%d", u), 0, seqOf(es)); err != nil {
				t.Error(err)
			}
		}
	}()
	for {
		select {
		case <-done:
			if x.Len() != 200+8*300 {
				t.Fatalf("Len = %d", x.Len())
			}
			return
		default:
		}
		if hits, err := x.Search(ctx, memory.Filter{UserID: "searched"}, q, 10); err != nil || len(hits) != 10 {
			t.Fatalf("search during loads: %d hits, %v", len(hits), err)
		}
	}
}

// TestTiesMatchBruteForce checks the top-k heap on many tied scores: every
// vector is one of five, and entries are removed and re-added so their rows
// are shuffled. Whatever the rows' order, the kept entries are those the
// brute-force reference keeps: best score first, then smallest id.
func TestTiesMatchBruteForce(t *testing.T) {
	ctx := context.Background()
	r := rand.New(rand.NewPCG(7, 8))
	const dim = 8
	shared := make([][]float32, 5)
	for i := range shared {
		shared[i] = randVec(r, dim)
	}
	live := map[string]retrieve.Entry{}
	x := New(dim)
	for i := range 1500 {
		e := retrieve.Entry{ID: fmt.Sprintf("m%d", r.IntN(400)), UserID: "u",
			ProjectID: []string{"", "p1", "p2"}[r.IntN(3)], Vector: shared[r.IntN(len(shared))]}
		if i%4 == 0 {
			if err := x.Remove(ctx, "u", e.ID); err != nil {
				t.Fatal(err)
			}
			delete(live, e.ID)
			continue
		}
		if err := x.Upsert(ctx, e); err != nil {
			t.Fatal(err)
		}
		live[e.ID] = e
	}
	entries := slices.Collect(maps.Values(live))
	for _, f := range []memory.Filter{{UserID: "u"}, {UserID: "u", ProjectID: "p1"}} {
		for _, k := range []int{1, 7, 50, 200, 1000} {
			q := randVec(r, dim)
			hits, err := x.Search(ctx, f, q, k)
			if err != nil {
				t.Fatal(err)
			}
			if got, want := hitIDs(hits), bruteForce(entries, f, q, k); !slices.Equal(got, want) {
				t.Fatalf("filter %+v k=%d:\n got %v\nwant %v", f, k, got, want)
			}
		}
	}
}

// TestCancelledContext checks that every call fails with the context's
// error once it is cancelled, and that writes then change nothing.
func TestCancelledContext(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	x := New(2)
	keep := retrieve.Entry{ID: "keep", UserID: "u", Text: "deploy", Vector: []float32{1, 0}}
	if err := x.Upsert(context.Background(), keep); err != nil {
		t.Fatal(err)
	}
	other := retrieve.Entry{ID: "new", UserID: "u", Text: "deploy", Vector: []float32{0, 1}}
	f := memory.Filter{UserID: "u"}
	calls := []struct {
		name string
		call func() error
	}{
		{"Upsert", func() error { return x.Upsert(ctx, other) }},
		{"Remove", func() error { return x.Remove(ctx, "u", "keep") }},
		{"ReplaceUser", func() error { return x.ReplaceUser(ctx, "u", 1, seqOf([]retrieve.Entry{other})) }},
		{"Search", func() error { _, err := x.Search(ctx, f, []float32{1, 0}, 5); return err }},
		{"Lexical", func() error { _, err := x.Lexical(ctx, f, "deploy", 5); return err }},
		{"Vectors", func() error { _, err := x.Vectors(ctx, "u", []string{"keep"}); return err }},
	}
	for _, c := range calls {
		if err := c.call(); !errors.Is(err, context.Canceled) {
			t.Errorf("%s with a cancelled context = %v, want %v", c.name, err, context.Canceled)
		}
	}
	hits, err := x.Search(context.Background(), f, []float32{1, 0}, 5)
	if err != nil || !slices.Equal(hitIDs(hits), []string{"keep"}) || x.Len() != 1 {
		t.Fatalf("after the cancelled writes: %v, %v, Len %d; want only keep", hitIDs(hits), err, x.Len())
	}
}

// TestReplaceUserCancelledMidway cancels the context while ReplaceUser reads
// the entries: it stops within ctxEvery entries and changes nothing.
func TestReplaceUserCancelledMidway(t *testing.T) {
	x := New(2)
	keep := retrieve.Entry{ID: "keep", UserID: "u", Vector: []float32{1, 0}}
	if err := x.Upsert(context.Background(), keep); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	yielded := 0
	entries := func(yield func(retrieve.Entry, error) bool) {
		for i := range 10 * ctxEvery {
			if i == 10 {
				cancel()
			}
			yielded++
			if !yield(retrieve.Entry{ID: fmt.Sprintf("m%d", i), UserID: "u", Vector: []float32{0, 1}}, nil) {
				return
			}
		}
	}
	if err := x.ReplaceUser(ctx, "u", 0, entries); !errors.Is(err, context.Canceled) {
		t.Fatalf("ReplaceUser = %v, want %v", err, context.Canceled)
	}
	if yielded > ctxEvery {
		t.Errorf("ReplaceUser read %d entries after the cancellation, want at most %d", yielded-10, ctxEvery)
	}
	if vs, _ := x.Vectors(context.Background(), "u", []string{"keep", "m0"}); vs[0] == nil || vs[1] != nil || x.Len() != 1 {
		t.Fatalf("after the cancelled load: Vectors %v, Len %d; want only keep", vs, x.Len())
	}
}

// BenchmarkSearchTied20k is the tie-breaking worst case: 20,000 identical
// vectors, so every row ties with the heap's worst and ids are compared.
func BenchmarkSearchTied20k(b *testing.B) {
	r := rand.New(rand.NewPCG(3, 4))
	dim := embed.BuiltinDim
	x := New(dim)
	v := randVec(r, dim)
	es := make([]retrieve.Entry, 20000)
	for i := range es {
		es[i] = retrieve.Entry{ID: fmt.Sprintf("m%d", i), UserID: "u1", Vector: v}
	}
	if err := x.Upsert(context.Background(), es...); err != nil {
		b.Fatal(err)
	}
	q := randVec(r, dim)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := x.Search(context.Background(), memory.Filter{UserID: "u1"}, q, 50); err != nil {
			b.Fatal(err)
		}
	}
}
