package sqlite

import (
	"bytes"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/memgate/memgate/audit"
	"github.com/memgate/memgate/memory"
	"github.com/memgate/memgate/store"
)

// TestOpenOptions checks which files each mode opens, refuses or creates.
func TestOpenOptions(t *testing.T) {
	dir := t.TempDir()
	store := func(t *testing.T) string {
		p := filepath.Join(t.TempDir(), "store.db")
		s, err := Open(ctx, p)
		if err != nil {
			t.Fatal(err)
		}
		insert(t, s, mem("m1", "u", "stored before the open"))
		s.Close()
		return p
	}
	missing := func(t *testing.T) string { return filepath.Join(t.TempDir(), "typo.db") }
	empty := func(t *testing.T) string {
		p := filepath.Join(t.TempDir(), "empty.db")
		if err := os.WriteFile(p, nil, 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	// A SQLite file without any schema: what a crashed creation or
	// `sqlite3 x.db 'create table t(x); drop table t'` leaves.
	blank := func(t *testing.T) string {
		p := filepath.Join(t.TempDir(), "blank.db")
		db, err := sql.Open("sqlite", p)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := db.Exec("CREATE TABLE t(x); DROP TABLE t"); err != nil {
			t.Fatal(err)
		}
		db.Close()
		return p
	}
	noDir := func(t *testing.T) string { return filepath.Join(dir, "no", "such", "dir", "x.db") }
	underFile := func(t *testing.T) string {
		p := filepath.Join(t.TempDir(), "file")
		os.WriteFile(p, []byte("x"), 0o600)
		return filepath.Join(p, "x.db")
	}
	odd := func(t *testing.T) string { return filepath.Join(t.TempDir(), "50%off?#x.db") }

	tests := []struct {
		name    string
		path    func(t *testing.T) string
		opts    OpenOptions
		wantErr error  // nil: opens
		msg     string // substring of the error
	}{
		{"missing, default creates", missing, OpenOptions{}, nil, ""},
		{"missing, MustExist", missing, OpenOptions{MustExist: true}, ErrNoStore, "no store"},
		{"missing, ReadOnly", missing, OpenOptions{ReadOnly: true}, ErrNoStore, "no store"},
		{"empty file, default creates", empty, OpenOptions{}, nil, ""},
		{"empty file, MustExist", empty, OpenOptions{MustExist: true}, ErrNoStore, "no store"},
		{"empty file, ReadOnly", empty, OpenOptions{ReadOnly: true}, ErrNoStore, "no store"},
		{"blank database, default creates", blank, OpenOptions{}, nil, ""},
		{"blank database, MustExist", blank, OpenOptions{MustExist: true}, ErrNoStore, "no store"},
		{"blank database, ReadOnly", blank, OpenOptions{ReadOnly: true}, ErrNoStore, "no store"},
		{"store, default", store, OpenOptions{}, nil, ""},
		{"store, MustExist", store, OpenOptions{MustExist: true}, nil, ""},
		{"store, ReadOnly", store, OpenOptions{ReadOnly: true}, nil, ""},
		{"missing directory", noDir, OpenOptions{}, ErrCantOpen, "directory " + filepath.Join(dir, "no", "such", "dir") + " does not exist"},
		{"parent is a file", underFile, OpenOptions{}, ErrCantOpen, "is not a directory"},
		{"'%', '?' and '#' in the name", odd, OpenOptions{}, nil, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := tt.path(t)
			before, statErr := os.ReadFile(path)
			s, err := OpenWith(ctx, path, tt.opts)
			if tt.wantErr == nil {
				if err != nil {
					t.Fatalf("OpenWith(%+v): %v", tt.opts, err)
				}
				defer s.Close()
				if s.ReadOnly() != tt.opts.ReadOnly {
					t.Fatalf("ReadOnly() = %v", s.ReadOnly())
				}
				if v, err := s.SchemaVersion(ctx); err != nil || v != len(migrations) {
					t.Fatalf("schema v%d, %v", v, err)
				}
				if _, err := s.Stats(ctx, t0); err != nil {
					t.Fatalf("stats: %v", err)
				}
				return
			}
			if err == nil {
				s.Close()
				t.Fatalf("OpenWith(%+v) opened; want %v", tt.opts, tt.wantErr)
			}
			if !errors.Is(err, tt.wantErr) || !strings.Contains(err.Error(), tt.msg) || !strings.Contains(err.Error(), path) {
				t.Fatalf("OpenWith(%+v) = %q; want %v naming the path and saying %q", tt.opts, err, tt.wantErr, tt.msg)
			}
			// A refused open leaves the path as it was.
			after, err := os.ReadFile(path)
			if (statErr == nil) != (err == nil) || !bytes.Equal(before, after) {
				t.Fatalf("the refused open changed %s (before: %d bytes, %v; after: %d bytes, %v)", path, len(before), statErr, len(after), err)
			}
			if _, err := os.Stat(path + "-wal"); err == nil {
				t.Fatalf("the refused open left %s-wal", path)
			}
		})
	}
}

// TestReadOnlyNeverWrites opens a store read-only: reads work, every write
// fails with ErrReadOnly in a sentence, and the file is unchanged.
func TestReadOnlyNeverWrites(t *testing.T) {
	s, path := openTemp(t)
	if err := s.SetIdentity(ctx, emb.Identity()); err != nil {
		t.Fatal(err)
	}
	insert(t, s, mem("m1", "u", "Atlas deploys after the freeze"), mem("m2", "u", "Blood test on Friday"))
	s.Close()
	before, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}

	ro, err := OpenWith(ctx, path, OpenOptions{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer ro.Close()
	if ms, err := ro.Get(ctx, []string{"m1", "m2"}, true); err != nil || len(ms) != 2 {
		t.Fatalf("read-only Get = %d, %v", len(ms), err)
	}
	if id, ok, err := ro.Identity(ctx); err != nil || !ok || id != emb.Identity() {
		t.Fatalf("read-only Identity = %v %v %v", id, ok, err)
	}
	writes := []struct {
		name string
		do   func() error
	}{
		{"insert", func() error {
			_, err := ro.Insert(ctx, []memory.Memory{mem("m3", "u", "x")}, store.ConflictError, nil)
			return err
		}},
		{"revoke", func() error { _, err := ro.Revoke(ctx, "m1", store.Change{Reason: "r", At: t0}); return err }},
		{"forget", func() error { _, err := ro.Forget(ctx, "m1", store.Change{Reason: "r", At: t0}); return err }},
		{"supersede", func() error { return ro.Supersede(ctx, "m2", []string{"m1"}) }},
		{"audit", func() error {
			_, err := ro.AppendEvents(ctx, []audit.Event{{Kind: "search", At: t0, Payload: []byte("{}")}})
			return err
		}},
	}
	for _, w := range writes {
		err := w.do()
		t.Logf("%s: %v", w.name, err)
		if !errors.Is(err, ErrReadOnly) || !strings.Contains(err.Error(), "nothing was written") {
			t.Errorf("%s on a read-only store: %v; want ErrReadOnly in a sentence", w.name, err)
		}
	}
	ro.Close()
	after, _ := os.ReadFile(path)
	if !bytes.Equal(before, after) {
		t.Fatal("a read-only open changed the file")
	}
}

// TestReadOnlyUpgradesOldSchema: an older store opened read-only is upgraded
// first when its file is writable, then opened read-only.
func TestReadOnlyUpgradesOldSchema(t *testing.T) {
	path := filepath.Join(t.TempDir(), "v1.db")
	db, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec(migrations[0] + fmt.Sprintf("; PRAGMA application_id = %d; PRAGMA user_version = 1", applicationID)); err != nil {
		t.Fatal(err)
	}
	db.Close()
	s, err := OpenWith(ctx, path, OpenOptions{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if v, _ := s.SchemaVersion(ctx); v != len(migrations) || !s.ReadOnly() {
		t.Fatalf("schema v%d, read-only %v", v, s.ReadOnly())
	}
}

// TestStorageErrorsArePlain provokes the storage failures a user meets and
// checks each comes out as a sentence saying what to do, testable with
// errors.Is, and is not blamed on the memory being written.
func TestStorageErrorsArePlain(t *testing.T) {
	big := func(n int) []memory.Memory {
		ms := make([]memory.Memory, n)
		for i := range ms {
			ms[i] = mem(fmt.Sprintf("big%d", i), "u", strings.Repeat(fmt.Sprintf("filler text %d ", i), 40))
		}
		return ms
	}
	tests := []struct {
		name    string
		provoke func(t *testing.T, s *Store) error
		want    error
		says    string
	}{
		{"disk full", func(t *testing.T, s *Store) error {
			// SQLite's page limit fails writes exactly as a full disk does.
			s.db.SetMaxOpenConns(1)
			var pages int
			if err := s.db.QueryRow("PRAGMA page_count").Scan(&pages); err != nil {
				t.Fatal(err)
			}
			if _, err := s.db.Exec(fmt.Sprintf("PRAGMA max_page_count = %d", pages+2)); err != nil {
				t.Fatal(err)
			}
			_, err := s.Insert(ctx, big(200), store.ConflictError, nil)
			return err
		}, ErrDiskFull, "free some space"},
		{"locked by another process", func(t *testing.T, s *Store) error {
			other, err := Open(ctx, s.Path())
			if err != nil {
				t.Fatal(err)
			}
			defer other.Close()
			tx, err := other.db.BeginTx(ctx, nil) // BEGIN IMMEDIATE: holds the write lock
			if err != nil {
				t.Fatal(err)
			}
			defer tx.Rollback()
			if _, err := tx.Exec("INSERT INTO meta(key, value) VALUES ('lock', 'held')"); err != nil {
				t.Fatal(err)
			}
			s.db.SetMaxOpenConns(1)
			if _, err := s.db.Exec("PRAGMA busy_timeout = 50"); err != nil {
				t.Fatal(err)
			}
			_, err = s.Insert(ctx, big(1), store.ConflictError, nil)
			return err
		}, ErrBusy, "retry when the other process has finished"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, _ := openTemp(t)
			insert(t, s, mem("m1", "u", "stored first"))
			err := tt.provoke(t, s)
			t.Log(err)
			if !errors.Is(err, tt.want) || !strings.Contains(err.Error(), tt.says) {
				t.Fatalf("got %v; want %v saying %q", err, tt.want, tt.says)
			}
			var ie *store.ItemError
			if errors.As(err, &ie) {
				t.Fatalf("a storage failure is blamed on memory %d: %v", ie.Index, err)
			}
			if n := count(t, s); n != 1 {
				t.Fatalf("%d memories after the failed write, want 1", n)
			}
		})
	}
}

// TestStatsReadsIndexesOnly: on a large store, reading every row (each with
// its vector) made `memgate stats` take seconds. Each of Stats' statements
// must be answered from an index.
func TestStatsReadsIndexesOnly(t *testing.T) {
	s, _ := openTemp(t)
	insert(t, s, mem("m1", "u", "one memory so the planner has a table"))
	for _, q := range []string{statsCountsSQL, statsByAuthoritySQL} {
		rows, err := s.db.Query("EXPLAIN QUERY PLAN "+q, t0.UnixNano())
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
			if strings.HasPrefix(detail, "SCAN memories") && !strings.Contains(detail, "COVERING INDEX") {
				t.Errorf("Stats reads the memories table: %q in the plan of %s", detail, q)
			}
		}
		rows.Close()
		t.Logf("%s\n  %s", strings.Fields(q)[0], strings.Join(plan, "\n  "))
	}
}

// TestReadOnlyDirectory: a store in a directory the user may not write (a
// shared or mounted read-only location) can still be read, and writing says
// why it cannot. Root writes anywhere, so it runs only as another user.
func TestReadOnlyDirectory(t *testing.T) {
	if os.Geteuid() == 0 {
		t.Skip("root writes to read-only directories")
	}
	dir := filepath.Join(t.TempDir(), "shared")
	os.Mkdir(dir, 0o755)
	path := filepath.Join(dir, "store.db")
	s, err := Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	insert(t, s, mem("m1", "u", "stored before the directory was locked"))
	s.Close()
	if err := os.Chmod(dir, 0o555); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.Chmod(dir, 0o755) })
	ro, err := OpenWith(ctx, path, OpenOptions{ReadOnly: true})
	if err != nil {
		t.Fatalf("read-only open in a read-only directory: %v", err)
	}
	defer ro.Close()
	if n := count(t, ro); n != 1 {
		t.Fatalf("%d memories", n)
	}
	if _, err := ro.Insert(ctx, []memory.Memory{mem("m2", "u", "x")}, store.ConflictError, nil); !errors.Is(err, ErrReadOnly) {
		t.Fatalf("write: %v", err)
	}
	if _, err := OpenWith(ctx, path, OpenOptions{MustExist: true}); !errors.Is(err, ErrReadOnly) {
		t.Fatalf("writable open in a read-only directory: %v, want ErrReadOnly", err)
	}
}

// A device such as /dev/null is not a store, new or old: nothing is created
// beside it.
func TestOpenRefusesNonRegularFiles(t *testing.T) {
	if _, err := os.Stat("/dev/null"); err != nil {
		t.Skip("no /dev/null")
	}
	_, err := Open(ctx, "/dev/null")
	if err == nil || !strings.Contains(err.Error(), "not a regular file") {
		t.Fatalf("Open(/dev/null) = %v", err)
	}
	if _, err := os.Stat("/dev/null-journal"); err == nil {
		t.Fatal("a journal was created beside /dev/null")
	}
}

// TestReadOnlyLeavesWALFiles pins what docs/migrate.md tells users: a
// read-only open leaves SQLite's -wal and -shm files beside the store (it
// cannot remove them), and the next read-write open that closes last
// removes them.
func TestReadOnlyLeavesWALFiles(t *testing.T) {
	s, path := openTemp(t)
	insert(t, s, mem("m1", "u", "Atlas deploys after the freeze"))
	s.Close()
	exist := func() (wal, shm bool) {
		_, errW := os.Stat(path + "-wal")
		_, errS := os.Stat(path + "-shm")
		return errW == nil, errS == nil
	}
	if wal, shm := exist(); wal || shm {
		t.Fatalf("after a read-write close: -wal %v, -shm %v; want neither", wal, shm)
	}
	ro, err := OpenWith(ctx, path, OpenOptions{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	if ms, err := ro.Get(ctx, []string{"m1"}, true); err != nil || len(ms) != 1 {
		t.Fatalf("read-only Get = %d, %v", len(ms), err)
	}
	ro.Close()
	if wal, shm := exist(); !wal || !shm {
		t.Fatalf("after a read-only open: -wal %v, -shm %v; docs/migrate.md says both stay", wal, shm)
	}
	rw, err := Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := rw.Get(ctx, []string{"m1"}, true); err != nil {
		t.Fatal(err)
	}
	rw.Close()
	if wal, shm := exist(); wal || shm {
		t.Fatalf("after a read-write open closed: -wal %v, -shm %v; docs/migrate.md says both go", wal, shm)
	}
}
