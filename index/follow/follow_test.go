package follow_test

import (
	"context"
	"errors"
	"fmt"
	"iter"
	"net/url"
	"os"
	"slices"
	"sync/atomic"
	"testing"
	"time"

	"github.com/memgate/memgate"
	"github.com/memgate/memgate/admit"
	"github.com/memgate/memgate/embed"
	"github.com/memgate/memgate/index"
	"github.com/memgate/memgate/index/exact"
	"github.com/memgate/memgate/index/follow"
	"github.com/memgate/memgate/index/weaviate"
	"github.com/memgate/memgate/memory"
	"github.com/memgate/memgate/retrieve"
	"github.com/memgate/memgate/store"
	"github.com/memgate/memgate/store/mem"
	"github.com/memgate/memgate/store/postgres"
	"github.com/memgate/memgate/store/postgres/pgtest"
)

// shared wraps an index so that it says it is persistent (as a Weaviate
// index does) and so that its writes fail while it is down.
type shared struct {
	index.Index
	name string // added to the wrapped index's identity
	down atomic.Bool
}

func (s *shared) Identity() string { return follow.Identity(s.Index) + s.name }

var errDown = errors.New("index unreachable")

func (s *shared) Persistent() bool { return true }

func (s *shared) Upsert(ctx context.Context, es ...retrieve.Entry) error {
	if s.down.Load() {
		return errDown
	}
	return s.Index.Upsert(ctx, es...)
}

func (s *shared) Remove(ctx context.Context, user string, ids ...string) error {
	if s.down.Load() {
		return errDown
	}
	return s.Index.Remove(ctx, user, ids...)
}

func (s *shared) ReplaceUser(ctx context.Context, user string, hint int, es iter.Seq2[retrieve.Entry, error]) error {
	if s.down.Load() {
		return errDown
	}
	l, ok := s.Index.(index.Loader)
	if !ok {
		return errors.New("the wrapped index cannot replace a user's entries")
	}
	return l.ReplaceUser(ctx, user, hint, es)
}

// A backend is a store and a persistent index to run the tests on.
type backend struct {
	name string
	// stores makes a database and returns a function that opens a handle
	// on it (one engine closes its handle when it closes).
	stores func(t *testing.T) func() store.Store
	index  func(t *testing.T) *shared
}

var dim = embed.NewBuiltin().Identity().Dim

// backends are the in-memory store with the exact index, always, and
// PostgreSQL with Weaviate when MEMGATE_TEST_POSTGRES and
// MEMGATE_TEST_WEAVIATE name servers (scripts/scaleout-up.sh).
var backends = []backend{
	{"mem+exact", func(*testing.T) func() store.Store {
		st := mem.New()
		return func() store.Store { return st }
	},
		func(*testing.T) *shared { return &shared{Index: exact.New(dim)} }},
	{"postgres+weaviate", openPostgres, openWeaviate},
}

func openPostgres(t *testing.T) func() store.Store {
	u := pgtest.Fresh(t)
	return func() store.Store {
		st, err := postgres.Open(t.Context(), u)
		if err != nil {
			t.Fatal(err)
		}
		return st
	}
}

var classes atomic.Int64

func openWeaviate(t *testing.T) *shared {
	base := os.Getenv("MEMGATE_TEST_WEAVIATE")
	if base == "" {
		t.Skip("MEMGATE_TEST_WEAVIATE is not set (scripts/scaleout-up.sh starts a server)")
	}
	u, err := url.Parse(base)
	if err != nil {
		t.Fatalf("MEMGATE_TEST_WEAVIATE: %v", err)
	}
	q := u.Query()
	q.Set("class", fmt.Sprintf("MemgateFollow%d_%d", time.Now().UnixNano(), classes.Add(1)))
	u.RawQuery = q.Encode()
	x, err := weaviate.New(t.Context(), u.String(), dim)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		x.DropClass(ctx)
	})
	return &shared{Index: x}
}

// each runs test on every backend.
func each(t *testing.T, test func(t *testing.T, b backend)) {
	for _, b := range backends {
		t.Run(b.name, func(t *testing.T) { test(t, b) })
	}
}

func open(t *testing.T, st store.Store, ix *shared, wait time.Duration) *memgate.Engine {
	t.Helper()
	return openWith(t, st, ix, &memgate.Options{IndexWait: wait})
}

func openWith(t *testing.T, st store.Store, ix *shared, o *memgate.Options) *memgate.Engine {
	t.Helper()
	o.NewIndex = func(int) index.Index { return ix }
	e, err := memgate.New(t.Context(), st, o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { e.Close() })
	return e
}

// indexed lists the ids the index itself proposes for user and text.
func indexed(t *testing.T, ix index.Index, user, text string) []string {
	t.Helper()
	hits, err := ix.Lexical(t.Context(), memory.Filter{UserID: user}, text, 100)
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, h := range hits {
		ids = append(ids, h.ID)
	}
	slices.Sort(ids)
	return ids
}

func found(t *testing.T, e *memgate.Engine, user, text string) []string {
	t.Helper()
	cands, err := e.Search(t.Context(), memgate.Query{Scope: memory.Filter{UserID: user}, Text: text})
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, c := range cands {
		ids = append(ids, c.Memory.ID)
	}
	slices.Sort(ids)
	return ids
}

func add(t *testing.T, e *memgate.Engine, id, user, text string) {
	t.Helper()
	if _, err := e.Add(t.Context(), memory.Memory{ID: id, UserID: user, Text: text}); err != nil {
		t.Fatal(err)
	}
}

// A write returns once the index has applied it, so a search right after
// finds it; revoking and forgetting take the memory out of the index.
func TestWritesReachTheIndex(t *testing.T) { each(t, testWritesReachTheIndex) }

func testWritesReachTheIndex(t *testing.T, b backend) {
	ix := b.index(t)
	e := open(t, b.stores(t)(), ix, 0)
	add(t, e, "m1", "ann", "ann keeps bees on the allotment")
	add(t, e, "m2", "ann", "ann sells honey from the bees")
	add(t, e, "m3", "bob", "bob keeps bees too")
	if got := indexed(t, ix, "ann", "bees"); !slices.Equal(got, []string{"m1", "m2"}) {
		t.Fatalf("the index holds %v for ann right after the writes, want m1 m2", got)
	}
	if _, err := e.Revoke(t.Context(), "m1", "moved"); err != nil {
		t.Fatal(err)
	}
	if _, err := e.Forget(t.Context(), "m3", "asked"); err != nil {
		t.Fatal(err)
	}
	if got := indexed(t, ix, "ann", "bees"); !slices.Equal(got, []string{"m2"}) {
		t.Fatalf("after revoking m1 the index holds %v", got)
	}
	if got := indexed(t, ix, "bob", "bees"); len(got) != 0 {
		t.Fatalf("after forgetting m3 the index holds %v", got)
	}
	st, err := e.IndexStatus(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if !st.Following || st.Pending != 0 || st.Applied < 5 || st.LastError != nil {
		t.Fatalf("IndexStatus = %+v, want following, nothing pending, ≥ 5 applied", st)
	}
}

// With index updates stopped, a revocation is still effective at once (the
// engine re-reads every candidate from the store), the lag is reported,
// and the index catches up when it is back.
func TestALaggingIndexNeverLeaks(t *testing.T) { each(t, testALaggingIndexNeverLeaks) }

func testALaggingIndexNeverLeaks(t *testing.T, b backend) {
	ix := b.index(t)
	e := open(t, b.stores(t)(), ix, 0)
	add(t, e, "seat", "ann", "prefers a window seat on the Lisbon flight")
	add(t, e, "meal", "ann", "asks for a vegetarian meal on the Lisbon flight")
	add(t, e, "bobs", "bob", "bob's Lisbon flight is on Friday")
	const q = "Lisbon flight"

	ix.down.Store(true)
	start := time.Now()
	if _, err := e.Revoke(t.Context(), "seat", "changed her mind"); err != nil {
		t.Fatalf("revoke with the index down: %v", err)
	}
	if d := time.Since(start); d > 4*time.Second {
		t.Errorf("revoke waited %v for an index that failed", d)
	}
	if _, err := e.Forget(t.Context(), "meal", "asked"); err != nil {
		t.Fatalf("forget with the index down: %v", err)
	}
	add(t, e, "late", "ann", "the Lisbon flight moved to gate 12")
	if got := indexed(t, ix, "ann", q); !slices.Equal(got, []string{"meal", "seat"}) {
		t.Fatalf("the stopped index holds %v, want the stale meal and seat", got)
	}
	if got := found(t, e, "ann", q); len(got) != 0 {
		t.Fatalf("search with a lagging index found %v: revoked, forgotten or unindexed memories", got)
	}
	adm, err := e.Admit(t.Context(), admitContext("ann"), memgate.Query{Scope: memory.Filter{UserID: "ann"}, Text: q})
	if err != nil {
		t.Fatal(err)
	}
	if len(adm.Items) != 0 {
		t.Fatalf("admission with a lagging index decided on %d memories", len(adm.Items))
	}
	lag, err := e.IndexStatus(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if lag.Pending != 3 || lag.Oldest <= 0 || lag.Failures == 0 || !errors.Is(lag.LastError, errDown) {
		t.Fatalf("IndexStatus with the index down = %+v, want 3 pending, an age, failures and the index's error", lag)
	}

	ix.down.Store(false)
	deadline := time.Now().Add(20 * time.Second)
	for {
		lag, err = e.IndexStatus(t.Context())
		if err != nil {
			t.Fatal(err)
		}
		if lag.Pending == 0 || time.Now().After(deadline) {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	if lag.Pending != 0 {
		t.Fatalf("the index did not catch up: %+v", lag)
	}
	if got := indexed(t, ix, "ann", q); !slices.Equal(got, []string{"late"}) {
		t.Fatalf("after catching up the index holds %v, want late", got)
	}
	if got := found(t, e, "ann", q); !slices.Equal(got, []string{"late"}) {
		t.Fatalf("after catching up search finds %v, want late", got)
	}
}

// Records left by a process that stopped before draining them are applied
// by the next engine on the store, without any write of its own.
func TestLeftoverRecordsAreDrained(t *testing.T) { each(t, testLeftoverRecordsAreDrained) }

func testLeftoverRecordsAreDrained(t *testing.T, b backend) {
	ix := b.index(t)
	stores := b.stores(t)
	e1 := open(t, stores(), ix, -1)
	ix.down.Store(true)
	add(t, e1, "a1", "ann", "ann's passport expires in May")
	e1.Close()
	ix.down.Store(false)
	e2 := open(t, stores(), ix, 0)
	deadline := time.Now().Add(10 * time.Second)
	for len(indexed(t, ix, "ann", "passport")) == 0 && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	if got := indexed(t, ix, "ann", "passport"); !slices.Equal(got, []string{"a1"}) {
		t.Fatalf("the second engine left the index with %v", got)
	}
	_ = e2
}

// Reindex rebuilds a persistent index from the store, dropping what the
// index holds that the store does not, and enables the outbox.
func TestReindex(t *testing.T) { each(t, testReindex) }

func testReindex(t *testing.T, b backend) {
	st := b.stores(t)()
	ctx := t.Context()
	vec := func(s string) []float32 {
		v, err := embed.NewBuiltin().Embed(ctx, []string{s})
		if err != nil {
			t.Fatal(err)
		}
		return v[0]
	}
	at := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	var ms []memory.Memory
	for _, m := range []struct{ id, user, text string }{
		{"r1", "ann", "ann plays the cello"}, {"r2", "ann", "ann's cello teacher is Ruth"}, {"r3", "bob", "bob plays the cello badly"},
	} {
		ms = append(ms, memory.Memory{ID: m.id, UserID: m.user, Text: m.text, CreatedAt: at, Embedding: vec(m.text)})
	}
	if _, err := st.Insert(ctx, ms, store.ConflictError, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := st.Revoke(ctx, "r2", store.Change{Reason: "old", At: at}); err != nil {
		t.Fatal(err)
	}
	ix := b.index(t)
	// A stale entry the store does not have.
	if err := ix.Index.Upsert(ctx, retrieve.Entry{ID: "ghost", UserID: "ann", Text: "ann plays the cello", Vector: vec("ann plays the cello")}); err != nil {
		t.Fatal(err)
	}
	// The store holds memories the index was never built from: an engine
	// refuses to follow it, until Reindex.
	var notBuilt *memgate.IndexNotBuiltError
	if _, err := memgate.New(ctx, st, &memgate.Options{NewIndex: func(int) index.Index { return ix }}); !errors.As(err, &notBuilt) {
		t.Fatalf("New with an index never built from the store = %v, want IndexNotBuiltError", err)
	}
	e := openWith(t, st, ix, &memgate.Options{Reindex: true})
	done := map[string]int{}
	if err := e.Reindex(ctx, func(u string, n int) { done[u] = n }); err != nil {
		t.Fatal(err)
	}
	if done["ann"] != 1 || done["bob"] != 1 {
		t.Fatalf("progress = %v, want ann:1 bob:1", done)
	}
	if got := indexed(t, ix, "ann", "cello"); !slices.Equal(got, []string{"r1"}) {
		t.Fatalf("after Reindex ann's index holds %v, want r1", got)
	}
	if got := indexed(t, ix, "bob", "cello"); !slices.Equal(got, []string{"r3"}) {
		t.Fatalf("after Reindex bob's index holds %v, want r3", got)
	}

	plain, err := memgate.New(ctx, mem.New(), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer plain.Close()
	if err := plain.Reindex(ctx, nil); !errors.Is(err, memgate.ErrNotPersistent) {
		t.Fatalf("Reindex of the exact in-memory index = %v, want ErrNotPersistent", err)
	}
}

// Drain stops at the first failure and keeps the records; Apply reads the
// current state, so records applied twice or out of order agree.
func TestApplyIsIdempotent(t *testing.T) {
	ctx := t.Context()
	st := mem.New()
	if err := st.EnableOutbox(ctx, "", false); err != nil {
		t.Fatal(err)
	}
	at := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	v, _ := embed.NewBuiltin().Embed(ctx, []string{"x"})
	if _, err := st.Insert(ctx, []memory.Memory{{ID: "x1", UserID: "u", Text: "x one", CreatedAt: at, Embedding: v[0]}}, store.ConflictError, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := st.Revoke(ctx, "x1", store.Change{At: at}); err != nil {
		t.Fatal(err)
	}
	ix := &shared{Index: exact.New(dim)}
	ix.down.Store(true)
	if n, err := follow.Drain(ctx, st, ix, "", 1); err == nil || n != 0 {
		t.Fatalf("Drain into a down index = %d, %v; want 0 and an error", n, err)
	}
	ix.down.Store(false)
	recs := []store.OutboxRecord{{Seq: 2, UserID: "u", MemoryID: "x1"}, {Seq: 1, UserID: "u", MemoryID: "x1"}}
	for range 2 {
		if err := follow.Apply(ctx, st, ix, recs); err != nil {
			t.Fatal(err)
		}
	}
	if got := indexed(t, ix, "u", "one"); len(got) != 0 {
		t.Fatalf("a revoked memory is indexed after Apply: %v", got)
	}
	if n, err := follow.Drain(ctx, st, ix, "", 1); err != nil || n != 2 {
		t.Fatalf("Drain = %d, %v; want the 2 records, one at a time", n, err)
	}
}

func admitContext(user string) admit.Context {
	return admit.Context{TaskID: "t", UserID: user}
}

// One outbox feeds one index: an engine on a second index is refused
// until memgate reindex switches the store to it, and from then on the
// second index gets every write, also those made through the first.
func TestOneIndexFollowsTheStore(t *testing.T) { each(t, testOneIndexFollowsTheStore) }

func testOneIndexFollowsTheStore(t *testing.T, b backend) {
	stores := b.stores(t)
	ixA, ixB := b.index(t), b.index(t)
	ixA.name, ixB.name = "#a", "#b"
	eA := open(t, stores(), ixA, 0)
	add(t, eA, "k1", "ann", "ann's kayak is blue")
	var taken *store.OutboxTakenError
	if _, err := memgate.New(t.Context(), stores(), &memgate.Options{NewIndex: func(int) index.Index { return ixB }}); !errors.As(err, &taken) {
		t.Fatalf("New on a second index = %v, want OutboxTakenError", err)
	}
	eB := openWith(t, stores(), ixB, &memgate.Options{Reindex: true})
	if err := eB.Reindex(t.Context(), nil); err != nil {
		t.Fatal(err)
	}
	add(t, eA, "k2", "ann", "ann's kayak paddle is red")
	add(t, eB, "k3", "ann", "ann stores the kayak in the garage")
	deadline := time.Now().Add(10 * time.Second)
	for len(indexed(t, ixB, "ann", "kayak")) < 3 && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	if got := indexed(t, ixB, "ann", "kayak"); !slices.Equal(got, []string{"k1", "k2", "k3"}) {
		t.Fatalf("the index the store switched to holds %v, want k1 k2 k3", got)
	}
	if got := indexed(t, ixA, "ann", "kayak"); !slices.Equal(got, []string{"k1"}) {
		t.Fatalf("the index switched from holds %v, want only k1, written before the switch", got)
	}
}

// A store moved back to the exact index keeps recording changes for the
// persistent one until StopOutbox: the engine on the exact index reports
// them (IndexStatus: not following, but an index named), refuses nothing,
// and stops them; an engine that follows the outbox refuses to stop it,
// and after the stop the persistent index needs a reindex again.
func TestStopOutbox(t *testing.T) { each(t, testStopOutbox) }

func testStopOutbox(t *testing.T, b backend) {
	stores := b.stores(t)
	ix := b.index(t)
	followed := open(t, stores(), ix, 0)
	add(t, followed, "s1", "ann", "ann's bike is green")
	if _, err := followed.StopOutbox(t.Context()); err == nil {
		t.Fatal("an engine that follows the outbox stopped it")
	}
	followed.Close()

	back, err := memgate.New(t.Context(), stores(), nil) // the exact index
	if err != nil {
		t.Fatal(err)
	}
	defer back.Close()
	add(t, back, "s2", "ann", "ann's bike has a bell")
	st, err := back.IndexStatus(t.Context())
	if err != nil || st.Following || st.Index != follow.Identity(ix) || st.Pending == 0 {
		t.Fatalf("IndexStatus on the exact index = %+v, %v; want not following, the old index named, changes pending", st, err)
	}
	n, err := back.StopOutbox(t.Context())
	if err != nil || n != st.Pending {
		t.Fatalf("StopOutbox = %d, %v; want the %d pending dropped", n, err, st.Pending)
	}
	add(t, back, "s3", "ann", "ann's bike is in the shed")
	if st, err := back.IndexStatus(t.Context()); err != nil || st.Index != "" || st.Pending != 0 {
		t.Fatalf("after StopOutbox: IndexStatus = %+v, %v; want nothing recorded", st, err)
	}
	if got := found(t, back, "ann", "bike"); !slices.Equal(got, []string{"s1", "s2", "s3"}) {
		t.Fatalf("the exact index finds %v", got)
	}
	var notBuilt *memgate.IndexNotBuiltError
	if _, err := memgate.New(t.Context(), stores(), &memgate.Options{NewIndex: func(int) index.Index { return ix }}); !errors.As(err, &notBuilt) {
		t.Fatalf("New on the persistent index after the stop = %v, want IndexNotBuiltError", err)
	}
}
