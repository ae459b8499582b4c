package sqlite

import (
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/memgate/memgate/audit"
	"github.com/memgate/memgate/memory"
	"github.com/memgate/memgate/store"
)

// TestReadPathPlans: the statements of an admission's reads look each id up
// in an index; none scans a table, which on a large store would cost a read
// of every row.
func TestReadPathPlans(t *testing.T) {
	s, _ := openTemp(t)
	insert(t, s, mem("m1", "u", "one memory so the planner has a table"))
	for name, q := range map[string]string{"get": getSQL, "get with vectors": getWithVectorsSQL, "relations": relationsSQL,
		"revoked": revokedSQL, "tombstones": tombstonesSQL, "ancestors": ancestorsSQL} {
		rows, err := s.db.Query("EXPLAIN QUERY PLAN "+q, `["m1"]`, 1)
		if err != nil {
			t.Fatal(err)
		}
		var plan []string
		for rows.Next() {
			var id, parent, unused int
			var detail string
			if err := rows.Scan(&id, &parent, &unused, &detail); err != nil {
				t.Fatal(err)
			}
			plan = append(plan, detail)
			for _, table := range []string{"memories", "lineage", "supersessions", "tombstones", "l ", "s ", "m ", "t "} {
				if strings.HasPrefix(detail+" ", "SCAN "+table) {
					t.Errorf("%s scans a table: %q", name, detail)
				}
			}
		}
		rows.Close()
		t.Logf("%s\n  %s", name, strings.Join(plan, "\n  "))
	}
}

// TestPreparedReadsEveryMode: the reads of an admission and of a binding,
// through statements prepared on first use, give the same answers on a
// store opened read-write, read-only and immutable, and a second time as
// the first; Close closes the statements, and a read after it fails.
func TestPreparedReadsEveryMode(t *testing.T) {
	s, path := openTemp(t)
	root := mem("r", "u", "root")
	kid := mem("k", "u", "derived from the root")
	kid.LineageRefs, kid.SourceAuthority = []string{"r"}, memory.AuthorityModelInferred
	gone := mem("g", "u", "to be forgotten")
	newer := mem("n", "u", "supersedes the root")
	newer.Supersedes, newer.LineageRefs = []string{"r"}, []string{"r", "g"}
	also := mem("a", "u", "also supersedes the root")
	also.Supersedes = []string{"r"}
	insert(t, s, root, kid, gone, newer, also)
	if _, err := s.Forget(ctx, "g", store.Change{Reason: "test", At: t0}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Revoke(ctx, "k", store.Change{Reason: "test", At: t0}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.RecordAdmission(ctx, admission("task", 2)); err != nil {
		t.Fatal(err)
	}
	ids := []string{"n", "k", "missing", "g", "r", "n"}
	type answers struct {
		Get       []memory.Memory
		Ancestors any
		Tombs     map[string]memory.Tombstone
		Revoked   []memory.Memory
		Decisions []audit.Decided
	}
	read := func(t *testing.T, s *Store) answers {
		t.Helper()
		var a answers
		var err error
		if a.Get, err = s.Get(ctx, ids, true); err != nil {
			t.Fatal(err)
		}
		if a.Ancestors, err = s.Ancestors(ctx, ids); err != nil {
			t.Fatal(err)
		}
		if a.Tombs, err = s.Tombstones(ctx, ids); err != nil {
			t.Fatal(err)
		}
		if a.Revoked, err = s.Revoked(ctx, "u", 0); err != nil {
			t.Fatal(err)
		}
		if a.Decisions, err = store.Decisions(ctx, s, "u", "task"); err != nil {
			t.Fatal(err)
		}
		return a
	}
	want := read(t, s)
	if got := want.Get; len(got) != 3 || got[0].ID != "n" || got[1].ID != "k" || got[2].ID != "r" ||
		!reflect.DeepEqual(got[0].LineageRefs, []string{"g", "r"}) || !reflect.DeepEqual(got[2].SupersededBy, []string{"a", "n"}) {
		t.Fatalf("Get = %+v", got)
	}
	if len(want.Tombs) != 1 || len(want.Revoked) != 1 || len(want.Decisions) != 2 {
		t.Fatalf("tombstones %v, revoked %v, decisions %v", want.Tombs, want.Revoked, want.Decisions)
	}
	if again := read(t, s); !reflect.DeepEqual(again, want) {
		t.Fatalf("read again:\n%+v\nwant\n%+v", again, want)
	}
	if len(s.stmts.m) == 0 {
		t.Fatal("no statement was kept prepared")
	}
	s.Close()

	for _, mode := range []openMode{modeReadOnly, modeImmutable} {
		ro, err := openDB(path, mode)
		if err != nil {
			t.Fatal(err)
		}
		for range 2 {
			if got := read(t, ro); !reflect.DeepEqual(got, want) {
				t.Fatalf("mode %d:\n%+v\nwant\n%+v", mode, got, want)
			}
		}
		if err := ro.Close(); err != nil {
			t.Fatal(err)
		}
		if ro.stmts.m != nil {
			t.Fatal("statements left after Close")
		}
		if _, err := ro.Get(ctx, ids, false); err == nil {
			t.Fatal("Get after Close succeeded")
		}
		if _, err := ro.Ancestors(ctx, ids); err == nil {
			t.Fatal("Ancestors after Close succeeded")
		}
	}
}

// TestReadsDuringClose: reads running while the store closes either succeed
// or fail with an error; none panics or races (go test -race).
func TestReadsDuringClose(t *testing.T) {
	path := filepath.Join(t.TempDir(), "close.db")
	s, err := Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	insert(t, s, mem("m1", "u", "one"), mem("m2", "u", "two"))
	var wg sync.WaitGroup
	started := make(chan struct{}, 4)
	for g := range 4 {
		wg.Go(func() {
			started <- struct{}{}
			for i := 0; ; i++ {
				var err error
				switch (g + i) % 3 {
				case 0:
					_, err = s.Get(ctx, []string{"m1", "m2"}, false)
				case 1:
					_, err = s.Ancestors(ctx, []string{"m2"})
				default:
					_, err = s.Revoked(ctx, "u", 64)
				}
				if err != nil {
					return // closed
				}
			}
		})
	}
	for range 4 {
		<-started
	}
	time.Sleep(20 * time.Millisecond)
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	wg.Wait()
}
