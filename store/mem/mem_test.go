package mem_test

import (
	"context"
	"encoding/json"
	"errors"
	"testing"
	"time"

	"github.com/memgate/memgate/audit"
	"github.com/memgate/memgate/embed"
	"github.com/memgate/memgate/memory"
	"github.com/memgate/memgate/retrieve"
	"github.com/memgate/memgate/store"
	"github.com/memgate/memgate/store/mem"
	"github.com/memgate/memgate/store/storetest"
)

// The in-memory store passes the conformance suite; store/sqlite's tests
// also hold it to answer exactly as the SQLite store does.
func TestConformance(t *testing.T) {
	storetest.Run(t, func(testing.TB) store.Store { return mem.New() })
}

var t0 = time.Date(2026, 5, 1, 9, 0, 0, 0, time.UTC)

func note(id string) memory.Memory {
	return memory.Memory{ID: id, UserID: "u1", Text: "note " + id, CreatedAt: t0, Embedding: []float32{0.6, 0.8, 0, 0}}
}

// A read-only store, or a read-only view, refuses every write with
// ErrReadOnly and writes nothing; the view sees its store's writes.
func TestReadOnly(t *testing.T) {
	ctx := context.Background()
	s := mem.New()
	if _, err := s.Insert(ctx, []memory.Memory{note("a")}, store.ConflictError, nil); err != nil {
		t.Fatal(err)
	}
	sid, err := s.RecordAdmission(ctx, &audit.Admission{
		Search:     audit.Event{Kind: audit.Search, At: t0, UserID: "u1", Payload: json.RawMessage(`{}`)},
		Decisions:  []audit.Event{{Kind: audit.Decision, At: t0, UserID: "u1", MemoryID: "a", Decision: "quarantine"}},
		Quarantine: []audit.QuarantineItem{{MemoryID: "a", UserID: "u1", At: t0}},
	})
	if err != nil {
		t.Fatal(err)
	}
	for name, ro := range map[string]*mem.Store{"option": mem.New(mem.ReadOnly()), "view": s.ReadOnlyView()} {
		if !ro.ReadOnly() || s.ReadOnly() {
			t.Fatalf("%s: ReadOnly() = %v, its store's %v", name, ro.ReadOnly(), s.ReadOnly())
		}
		c := store.Change{Reason: "r", At: t0}
		writes := map[string]error{}
		_, writes["Insert"] = ro.Insert(ctx, []memory.Memory{note("b")}, store.ConflictError, nil)
		_, writes["AppendEvents"] = ro.AppendEvents(ctx, []audit.Event{{Kind: audit.Search, At: t0}})
		_, writes["RecordAdmission"] = ro.RecordAdmission(ctx, &audit.Admission{Search: audit.Event{Kind: audit.Search, At: t0}})
		writes["SetIdentity"] = ro.SetIdentity(ctx, embed.Identity{Name: "x", Dim: 4})
		if name == "view" {
			_, writes["Revoke"] = ro.Revoke(ctx, "a", c)
			_, writes["Forget"] = ro.Forget(ctx, "a", c)
			_, writes["Review"] = ro.Review(ctx, audit.Review{Item: sid, Approve: true, At: t0})
			if _, err := s.Insert(ctx, []memory.Memory{note("c")}, store.ConflictError, nil); err != nil {
				t.Fatal(err)
			}
			writes["Supersede"] = ro.Supersede(ctx, "c", []string{"a"})
			if ms, _ := ro.Get(ctx, []string{"c"}, false); len(ms) != 1 {
				t.Errorf("the view does not see its store's write")
			}
		}
		for call, err := range writes {
			if !errors.Is(err, store.ErrReadOnly) {
				t.Errorf("%s: %s = %v, want ErrReadOnly", name, call, err)
			}
		}
		if st, _ := s.Stats(ctx, t0); st.Revoked+st.Tombstones+st.Supersede > 0 {
			t.Errorf("%s: refused writes changed the store: %+v", name, st)
		}
		if n, err := ro.Insert(ctx, nil, store.ConflictError, nil); n != 0 || err != nil {
			t.Errorf("%s: an empty insert = %d, %v; want 0, nil (nothing to write)", name, n, err)
		}
	}
	if err := s.Check(ctx); err != nil {
		t.Fatal(err)
	}
}

// Vectors handed to ScanEntries' callback are copies: changing one changes
// nothing stored. The callback may use the store.
func TestScanEntriesCopies(t *testing.T) {
	ctx := context.Background()
	s := mem.New()
	if _, err := s.Insert(ctx, []memory.Memory{note("a"), note("b")}, store.ConflictError, nil); err != nil {
		t.Fatal(err)
	}
	err := s.ScanEntries(ctx, "u1", func(e retrieve.Entry) error {
		e.Vector[0] = 42
		_, err := s.Revoke(ctx, e.ID, store.Change{Reason: "seen", At: t0})
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	ms, _ := s.Get(ctx, []string{"a", "b"}, true)
	for _, m := range ms {
		if m.Embedding[0] != 0.6 || !m.Revoked {
			t.Errorf("%s = %+v", m.ID, m)
		}
	}
	stop := errors.New("stop")
	if err := s.ScanEntries(ctx, "", func(retrieve.Entry) error { return stop }); err != nil {
		t.Errorf("scan of no entries = %v", err)
	}
}

// Check finds nothing wrong with a store after every kind of write.
func TestCheck(t *testing.T) {
	ctx := context.Background()
	s := mem.New()
	a, b, c := note("a"), note("b"), note("c")
	b.LineageRefs, c.Supersedes = []string{"a"}, []string{"a", "b"}
	if _, err := s.Insert(ctx, []memory.Memory{a, b, c}, store.ConflictError, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Forget(ctx, "c", store.Change{At: t0}); err != nil {
		t.Fatal(err)
	}
	if err := s.Supersede(ctx, "b", []string{"a"}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Revoke(ctx, "a", store.Change{At: t0}); err != nil {
		t.Fatal(err)
	}
	if err := s.Check(ctx); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
}
