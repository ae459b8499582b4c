package memgate

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/memgate/memgate/admit"
	"github.com/memgate/memgate/index"
	"github.com/memgate/memgate/index/exact"
	"github.com/memgate/memgate/memory"
	"github.com/memgate/memgate/retrieve"
	"github.com/memgate/memgate/store/sqlite"
)

// seed creates a store at a new path holding n memories of each user, and
// returns the path.
func seed(t *testing.T, users map[string]int) string {
	t.Helper()
	e, path := openTemp(t, nil)
	for u, n := range users {
		var ms []memory.Memory
		for i := range n {
			ms = append(ms, memory.Memory{ID: fmt.Sprintf("%s-%d", u, i), UserID: u, Text: fmt.Sprintf("note %d of %s about the quarterly deploy", i, u)})
		}
		add(t, e, ms...)
	}
	e.Close()
	return path
}

func reopen(t *testing.T, path string, opts *Options) *Engine {
	t.Helper()
	e, err := Open(ctx, path, opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { e.Close() })
	return e
}

func indexed(t *testing.T, e *Engine) int {
	t.Helper()
	st, err := e.Stats(ctx)
	if err != nil {
		t.Fatal(err)
	}
	return st.Indexed
}

// all returns every candidate id of a user, sorted.
func all(t *testing.T, e *Engine, user string) []string {
	t.Helper()
	ids := search(t, e, Query{Scope: memory.Filter{UserID: user}, Text: "note about the quarterly deploy", K: MaxK})
	slices.Sort(ids)
	return ids
}

// live returns the ids of a user's non-revoked memories in the store, sorted.
func live(t *testing.T, e *Engine, user string) []string {
	t.Helper()
	p, err := e.List(ctx, ListOptions{Scope: memory.Filter{UserID: user}})
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, m := range p.Memories {
		ids = append(ids, m.ID)
	}
	slices.Sort(ids)
	return ids
}

// TestIndexLoadsPerUserOnFirstSearch: opening a store and reading records
// loads no vectors; a user's first search loads that user's only.
func TestIndexLoadsPerUserOnFirstSearch(t *testing.T) {
	path := seed(t, map[string]int{"ann": 30, "bob": 20})
	e := reopen(t, path, nil)
	if n := indexed(t, e); n != 0 {
		t.Fatalf("%d vectors loaded by opening the store", n)
	}
	if _, err := e.Get(ctx, "ann-3"); err != nil {
		t.Fatal(err)
	}
	if _, err := e.List(ctx, ListOptions{}); err != nil {
		t.Fatal(err)
	}
	if n := indexed(t, e); n != 0 {
		t.Fatalf("%d vectors loaded by Get, List and Stats", n)
	}
	if got := all(t, e, "ann"); len(got) != 30 {
		t.Fatalf("ann's search: %d candidates", len(got))
	}
	if n := indexed(t, e); n != 30 {
		t.Fatalf("%d vectors loaded after ann's first search, want ann's 30", n)
	}
	if got := all(t, e, "bob"); len(got) != 20 {
		t.Fatalf("bob's search: %d candidates", len(got))
	}
	if n := indexed(t, e); n != 50 {
		t.Fatalf("%d vectors loaded after both searched", n)
	}
	if err := e.LoadIndex(ctx); err != nil || indexed(t, e) != 50 {
		t.Fatalf("LoadIndex of loaded users: %v, %d", err, indexed(t, e))
	}
}

// TestWritesBeforeAndAfterLoad: writes for a user whose memories are not
// loaded yet are neither lost nor counted twice when they are; writes after
// the load reach the index at once.
func TestWritesBeforeAndAfterLoad(t *testing.T) {
	path := seed(t, map[string]int{"ann": 10, "bob": 5})
	e := reopen(t, path, nil)
	add(t, e, memory.Memory{ID: "ann-new", UserID: "ann", Text: "note added before ann's first search"})
	if _, err := e.Revoke(ctx, "ann-1", "stale"); err != nil {
		t.Fatal(err)
	}
	if _, err := e.Forget(ctx, "ann-2", "asked"); err != nil {
		t.Fatal(err)
	}
	if n := indexed(t, e); n != 0 {
		t.Fatalf("writes for unloaded users loaded %d vectors", n)
	}
	steps := []struct {
		name string
		do   func() error
	}{
		{"first search", func() error { return nil }},
		{"add after load", func() error {
			_, err := e.Add(ctx, memory.Memory{ID: "ann-later", UserID: "ann", Text: "note added after the load"})
			return err
		}},
		{"revoke after load", func() error { _, err := e.Revoke(ctx, "ann-3", "stale"); return err }},
		{"forget after load", func() error { _, err := e.Forget(ctx, "ann-4", "asked"); return err }},
		{"import after load", func() error {
			_, err := e.Import(ctx, strings.NewReader(`{"id":"ann-imp","userId":"ann","text":"imported note"}`+"\n"+
				`{"id":"bob-imp","userId":"bob","text":"imported note for bob"}`+"\n"), ImportOptions{})
			return err
		}},
		{"import again, skipping existing", func() error {
			_, err := e.Import(ctx, strings.NewReader(`{"id":"ann-imp","userId":"ann","text":"imported note"}`+"\n"+
				`{"id":"ann-imp2","userId":"ann","text":"second imported note"}`+"\n"), ImportOptions{SkipExisting: true})
			return err
		}},
	}
	for _, s := range steps {
		if err := s.do(); err != nil {
			t.Fatalf("%s: %v", s.name, err)
		}
		got, want := all(t, e, "ann"), live(t, e, "ann")
		if !slices.Equal(got, want) {
			t.Fatalf("after %s: search finds %v, store holds %v", s.name, got, want)
		}
		if n := indexed(t, e); n != len(want) {
			t.Fatalf("after %s: %d vectors indexed for ann's %d live memories (bob not loaded)", s.name, n, len(want))
		}
	}
	if got, want := all(t, e, "bob"), live(t, e, "bob"); !slices.Equal(got, want) || len(want) != 6 {
		t.Fatalf("bob: search finds %v, store holds %v", got, want)
	}
}

// TestWritesDuringALoad makes writes while a user's memories are being
// loaded, between the read from the store and the index taking them: the
// index must end up with exactly what the store holds.
func TestWritesDuringALoad(t *testing.T) {
	path := seed(t, map[string]int{"ann": 10})
	e := reopen(t, path, nil)
	lazy := e.index.(*lazyIndex)
	lazy.afterRead = func(user string) {
		lazy.afterRead = nil // once
		add(t, e, memory.Memory{ID: "during", UserID: "ann", Text: "note added during the load"})
		if _, err := e.Revoke(ctx, "ann-1", "stale"); err != nil {
			t.Error(err)
		}
		if _, err := e.Forget(ctx, "ann-2", "asked"); err != nil {
			t.Error(err)
		}
		if _, err := e.Revoke(ctx, "during", "added and revoked during the load"); err != nil {
			t.Error(err)
		}
		add(t, e, memory.Memory{ID: "during2", UserID: "ann", Text: "another note added during the load"})
	}
	got, want := all(t, e, "ann"), live(t, e, "ann")
	if !slices.Equal(got, want) || len(want) != 9 {
		t.Fatalf("search finds %v, store holds %v", got, want)
	}
	if n := indexed(t, e); n != len(want) {
		t.Fatalf("%d vectors indexed for %d live memories", n, len(want))
	}
}

// TestConcurrentFirstSearches: many first searches of one user at once,
// with writes for that user under way, load it once and lose nothing.
func TestConcurrentFirstSearches(t *testing.T) {
	path := seed(t, map[string]int{"ann": 200, "bob": 50})
	for trial := range 5 {
		e := reopen(t, path, nil)
		var wg sync.WaitGroup
		errs := make(chan error, 64)
		for range 8 {
			wg.Go(func() {
				for _, u := range []string{"ann", "bob", "ann"} {
					if _, err := e.Search(ctx, Query{Scope: memory.Filter{UserID: u}, Text: "quarterly deploy", K: 20}); err != nil {
						errs <- err
					}
				}
			})
		}
		for w := range 2 {
			wg.Go(func() {
				for i := range 10 {
					id := fmt.Sprintf("t%d-w%d-%d", trial, w, i)
					if _, err := e.Add(ctx, memory.Memory{ID: id, UserID: "ann", Text: "note written during the first searches"}); err != nil {
						errs <- err
					}
					if i%3 == 0 {
						if _, err := e.Revoke(ctx, id, "test"); err != nil {
							errs <- err
						}
					}
				}
			})
		}
		wg.Wait()
		close(errs)
		for err := range errs {
			t.Fatal(err)
		}
		for _, u := range []string{"ann", "bob"} {
			if got, want := all(t, e, u), live(t, e, u); !slices.Equal(got, want) {
				t.Fatalf("trial %d, %s: search finds %d, store holds %d", trial, u, len(got), len(want))
			}
		}
		if n, want := indexed(t, e), len(live(t, e, "ann"))+len(live(t, e, "bob")); n != want {
			t.Fatalf("trial %d: %d vectors indexed for %d live memories", trial, n, want)
		}
		e.Close()
	}
}

// TestOpenModes: MustExist and ReadOnly never create a store; ReadOnly reads
// and refuses every write, leaving the file as it was.
func TestOpenModes(t *testing.T) {
	path := seed(t, map[string]int{"ann": 5})
	missing := filepath.Join(t.TempDir(), "typo.db")
	for _, opts := range []Options{{MustExist: true}, {ReadOnly: true}, {ReadOnly: true, MustExist: true}} {
		if _, err := Open(ctx, missing, &opts); !errors.Is(err, ErrNoStore) {
			t.Fatalf("Open(missing, %+v) = %v, want ErrNoStore", opts, err)
		}
		if _, err := os.Stat(missing); !errors.Is(err, os.ErrNotExist) {
			t.Fatalf("Open(missing, %+v) created the file", opts)
		}
	}
	if e, err := Open(ctx, path, &Options{MustExist: true}); err != nil {
		t.Fatal(err)
	} else {
		e.Close()
	}

	before, _ := os.ReadFile(path)
	e := reopen(t, path, &Options{ReadOnly: true})
	if got := all(t, e, "ann"); len(got) != 5 {
		t.Fatalf("read-only search: %v", got)
	}
	if _, err := e.Get(ctx, "ann-1"); err != nil {
		t.Fatal(err)
	}
	writes := map[string]func() error{
		"add":    func() error { _, err := e.Add(ctx, memory.Memory{UserID: "ann", Text: "x"}); return err },
		"revoke": func() error { _, err := e.Revoke(ctx, "ann-1", "r"); return err },
		"forget": func() error { _, err := e.Forget(ctx, "ann-1", "r"); return err },
		"admit (audited)": func() error {
			_, err := e.Admit(ctx, admit.Context{TaskID: "t", UserID: "ann", Intent: admit.IntentAnswer, ToolRisk: admit.RiskNone}, Query{Text: "deploy"})
			return err
		},
	}
	for name, w := range writes {
		if err := w(); !errors.Is(err, ErrReadOnly) {
			t.Errorf("%s on a read-only engine: %v, want ErrReadOnly", name, err)
		}
	}
	if got := all(t, e, "ann"); len(got) != 5 {
		t.Fatalf("read-only search after refused writes: %v", got)
	}
	e.Close()
	if after, _ := os.ReadFile(path); !bytes.Equal(before, after) {
		t.Fatal("a read-only engine changed the file")
	}

	// A store with no embedder recorded yet opens read-only too.
	bare := filepath.Join(t.TempDir(), "bare.db")
	s, err := sqlite.Open(ctx, bare)
	if err != nil {
		t.Fatal(err)
	}
	s.Close()
	if e, err := Open(ctx, bare, &Options{ReadOnly: true}); err != nil {
		t.Fatalf("read-only open of a store without an embedder: %v", err)
	} else {
		e.Close()
	}
}

// plainIndex is an Index without ReplaceUser whose Upsert fails once, on
// call number failOn (counting from 1), to drive the engine's fallback load
// and its failure path.
type plainIndex struct {
	index.Index
	mu            sync.Mutex
	calls, failOn int
}

// Len counts what the wrapped index holds.
func (p *plainIndex) Len() int { return p.Index.(index.Counter).Len() }

func (p *plainIndex) Upsert(ctx context.Context, entries ...retrieve.Entry) error {
	p.mu.Lock()
	p.calls++
	fail := p.calls == p.failOn
	p.mu.Unlock()
	if fail {
		return errors.New("index full")
	}
	return p.Index.Upsert(ctx, entries...)
}

// TestFailedLoadLeavesNothingBehind: a load that fails part-way leaves the
// user unloaded and absent from the index; the next search loads it whole.
func TestFailedLoadLeavesNothingBehind(t *testing.T) {
	path := seed(t, map[string]int{"ann": 4100, "bob": 3})
	var plain *plainIndex
	e := reopen(t, path, &Options{NewIndex: func(dim int) index.Index {
		plain = &plainIndex{Index: exact.New(dim)}
		return plain
	}})
	all(t, e, "bob")
	if n := indexed(t, e); n != 3 {
		t.Fatalf("%d vectors indexed after bob's load", n)
	}
	// ann loads in two batches (4,096 and 4): the first goes in, the
	// second fails.
	plain.mu.Lock()
	plain.failOn = plain.calls + 2
	plain.mu.Unlock()
	q := Query{Scope: memory.Filter{UserID: "ann"}, Text: "quarterly deploy"}
	if _, err := e.Search(ctx, q); err == nil || !strings.Contains(err.Error(), "load the index of user ann") {
		t.Fatalf("search with a failing index: %v", err)
	}
	if n := indexed(t, e); n != 3 {
		t.Fatalf("%d vectors indexed after ann's failed load, want bob's 3", n)
	}
	if cs, err := e.Search(ctx, q); err != nil || len(cs) != DefaultK {
		t.Fatalf("search after the failed load: %d candidates, %v", len(cs), err)
	}
	if n := indexed(t, e); n != 4103 {
		t.Fatalf("%d vectors indexed after the retry, want 4,103", n)
	}
}
