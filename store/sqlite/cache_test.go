package sqlite

import (
	"path/filepath"
	"testing"
	"time"

	"modernc.org/sqlite"

	"github.com/memgate/memgate/memory"
	"github.com/memgate/memgate/store"
)

// TestCacheSeesEveryChange reads through one store's record cache while
// changes come from a second store on the same file (another process, as
// far as the first can tell) and from plain SQL: each must show on the next
// read, since an admission must never act on a revoked memory or a lineage
// that changed.
func TestCacheSeesEveryChange(t *testing.T) {
	reader, path := openTemp(t)
	writer, err := Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer writer.Close()

	parent, child := mem("p1", "u1", "the parent note"), mem("c1", "u1", "a derived note")
	child.LineageRefs = []string{"p1"}
	insert(t, writer, parent, child)

	get := func(id string) (memory.Memory, bool) {
		t.Helper()
		ms, err := reader.Get(ctx, []string{id}, false)
		if err != nil {
			t.Fatal(err)
		}
		if len(ms) == 0 {
			return memory.Memory{}, false
		}
		return ms[0], true
	}
	parentOf := func(id string) (ancestor string, revoked, forgotten bool) {
		t.Helper()
		anc, err := reader.Ancestors(ctx, []string{id})
		if err != nil {
			t.Fatal(err)
		}
		if len(anc[id]) == 0 {
			return "", false, false
		}
		a := anc[id][0]
		return a.ID, a.Revoked, a.Forgotten
	}

	// Fill the cache, and check it is used: a read at an unchanged
	// generation must not query the memories.
	if m, ok := get("c1"); !ok || m.Revoked || len(m.LineageRefs) != 1 {
		t.Fatalf("first read: %+v, %v", m, ok)
	}
	if id, rev, _ := parentOf("c1"); id != "p1" || rev {
		t.Fatalf("first lineage: %s revoked=%v", id, rev)
	}
	reader.cache.mu.Lock()
	_, cached := reader.cache.mems["c1"]
	_, cachedAnc := reader.cache.anc["c1"]
	reader.cache.mu.Unlock()
	if !cached || !cachedAnc {
		t.Fatalf("nothing cached: memory %v, lineage %v", cached, cachedAnc)
	}

	steps := []struct {
		name  string
		do    func() error
		check func() string
	}{
		{"revoke by another store", func() error {
			_, err := writer.Revoke(ctx, "c1", store.Change{Reason: "withdrawn", At: t0.Add(time.Hour)})
			return err
		}, func() string {
			if m, _ := get("c1"); !m.Revoked || m.RevokedReason != "withdrawn" {
				return "the revocation is not seen"
			}
			return ""
		}},
		{"revoke the parent", func() error {
			_, err := writer.Revoke(ctx, "p1", store.Change{Reason: "poisoned", At: t0.Add(time.Hour)})
			return err
		}, func() string {
			if _, rev, _ := parentOf("c1"); !rev {
				return "the lineage does not show the revoked parent"
			}
			return ""
		}},
		{"plain SQL", func() error {
			_, err := writer.db.ExecContext(ctx, "UPDATE memories SET text = 'edited by hand' WHERE id = 'c1'")
			return err
		}, func() string {
			if m, _ := get("c1"); m.Text != "edited by hand" {
				return "an UPDATE outside memgate is not seen: " + m.Text
			}
			return ""
		}},
		{"forget by another store", func() error {
			_, err := writer.Forget(ctx, "p1", store.Change{Reason: "gdpr", At: t0.Add(2 * time.Hour)})
			return err
		}, func() string {
			if _, ok := get("p1"); ok {
				return "the forgotten memory is still returned"
			}
			if id, _, forgotten := parentOf("c1"); id != "p1" || !forgotten {
				return "the lineage does not show the forgotten parent"
			}
			return ""
		}},
	}
	for _, st := range steps {
		if err := st.do(); err != nil {
			t.Fatalf("%s: %v", st.name, err)
		}
		if msg := st.check(); msg != "" {
			t.Fatalf("after %s: %s", st.name, msg)
		}
	}
}

// TestCacheReturnsCopies checks that a caller changing what Get returned
// does not change what the next caller reads.
func TestCacheReturnsCopies(t *testing.T) {
	s, _ := openTemp(t)
	m := mem("m1", "u1", "shared note")
	m.Audience = []string{"alice"}
	insert(t, s, m)
	for range 2 {
		ms, err := s.Get(ctx, []string{"m1", "m1"}, false)
		if err != nil || len(ms) != 1 {
			t.Fatalf("Get = %d memories, %v; want the one, once", len(ms), err)
		}
		if ms[0].Audience[0] != "alice" {
			t.Fatalf("audience changed by an earlier caller: %v", ms[0].Audience)
		}
		ms[0].Audience[0] = "mallory"
	}
}

// TestOwnForgetClearsCache checks that forgetting through the store drops
// the text it had decoded at once, not on the next read.
func TestOwnForgetClearsCache(t *testing.T) {
	s, _ := openTemp(t)
	insert(t, s, mem("m1", "u1", "the safe code is 4711"))
	if _, err := s.Get(ctx, []string{"m1"}, false); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Forget(ctx, "m1", store.Change{Reason: "gdpr", At: t0}); err != nil {
		t.Fatal(err)
	}
	s.cache.mu.Lock()
	defer s.cache.mu.Unlock()
	if len(s.cache.mems) != 0 {
		t.Fatalf("the cache still holds %d memories after a forget", len(s.cache.mems))
	}
}

// TestCacheIsBounded fills the cache past its bound.
func TestCacheIsBounded(t *testing.T) {
	c := newRecordCache()
	c.mu.Lock()
	defer c.mu.Unlock()
	c.atLocked(1)
	big := memory.Memory{ID: "x", Text: string(make([]byte, 1<<20))}
	n := memorySize(&big)
	for i := range 3 * maxCacheBytes / n {
		big.ID = string(rune('a'+i%26)) + string(rune('0'+i/26%10)) + string(rune('0'+i/260))
		c.makeRoomLocked(n)
		c.mems[big.ID] = big
		c.bytes += n
		if c.bytes > maxCacheBytes {
			t.Fatalf("cache holds %d bytes, bound %d", c.bytes, maxCacheBytes)
		}
	}
}

// backupConn is what the SQLite driver's connections offer for SQLite's
// online backup API.
type backupConn interface {
	NewBackup(string) (*sqlite.Backup, error)
	NewRestore(string) (*sqlite.Backup, error)
}

// copyDB copies s's database to file with SQLite's online backup API, or,
// with restore, file over s's database in place, as sqlite3's .restore and
// backup tools built on that API do: page by page, firing no trigger.
func copyDB(t *testing.T, s *Store, file string, restore bool) {
	t.Helper()
	conn, err := s.db.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if err := conn.Raw(func(dc any) error {
		var b *sqlite.Backup
		var err error
		if restore {
			b, err = dc.(backupConn).NewRestore(file)
		} else {
			b, err = dc.(backupConn).NewBackup(file)
		}
		if err != nil {
			return err
		}
		for more := true; more; {
			if more, err = b.Step(-1); err != nil {
				return err
			}
		}
		return b.Finish()
	}); err != nil {
		t.Fatal(err)
	}
}

// TestCacheSurvivesRestoreInPlace restores an older copy over a store that
// another process has cached records of, then changes it as often as it had
// changed since the copy: a counted generation would be back at the number
// the cache holds records of, and serve m1 as it was before its
// revocation. (Found by review; generations are random since.)
func TestCacheSurvivesRestoreInPlace(t *testing.T) {
	reader, path := openTemp(t)    // a long-running server
	writer, err := Open(ctx, path) // an operator's process
	if err != nil {
		t.Fatal(err)
	}
	defer writer.Close()
	insert(t, writer, mem("m1", "u1", "deploy key rotation note"))
	backup := filepath.Join(t.TempDir(), "backup.db")
	copyDB(t, writer, backup, false)
	insert(t, writer, mem("m2", "u1", "x"), mem("m3", "u1", "y"))
	if ms, err := reader.Get(ctx, []string{"m1"}, false); err != nil || len(ms) != 1 || ms[0].Revoked {
		t.Fatalf("first read: %v, %v", ms, err)
	}
	copyDB(t, writer, backup, true)
	if _, err := writer.Revoke(ctx, "m1", store.Change{Reason: "poisoned", At: t0.Add(time.Hour)}); err != nil {
		t.Fatal(err)
	}
	insert(t, writer, mem("m4", "u1", "z"))
	ms, err := reader.Get(ctx, []string{"m1"}, false)
	if err != nil || len(ms) != 1 || !ms[0].Revoked {
		t.Fatalf("after the restore and a revocation, Get = %+v, %v; want m1 revoked", ms, err)
	}
}
