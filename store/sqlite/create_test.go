package sqlite

import (
	"bufio"
	"database/sql"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/memgate/memgate/memory"
	"github.com/memgate/memgate/store"
)

// schemaOf describes what a correct store holds: version, application id,
// journal mode, integrity, and its tables, indexes and triggers.
func schemaOf(t *testing.T, path string) string {
	t.Helper()
	db, err := sql.Open("sqlite", "file:"+path+"?mode=ro")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var version, appID int
	var mode, check string
	for q, dst := range map[string]any{"PRAGMA user_version": &version, "PRAGMA application_id": &appID,
		"PRAGMA journal_mode": &mode, "PRAGMA integrity_check": &check} {
		if err := db.QueryRow(q).Scan(dst); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	rows, err := db.Query("SELECT type || ' ' || name FROM sqlite_schema ORDER BY 1")
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var objects []string
	for rows.Next() {
		var o string
		rows.Scan(&o)
		objects = append(objects, o)
	}
	return fmt.Sprintf("v%d app=%#x journal=%s integrity=%s objects=%s", version, appID, mode, check, strings.Join(objects, ","))
}

// wantSchema is the schema of a store created by one process alone.
func wantSchema(t *testing.T) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "alone.db")
	s, err := Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	s.Close()
	want := schemaOf(t, path)
	if !strings.HasPrefix(want, fmt.Sprintf("v%d app=%#x journal=wal integrity=ok", len(migrations), applicationID)) {
		t.Fatalf("a store created alone: %s", want)
	}
	return want
}

// TestConcurrentCreate opens one new path from several connection pools at
// once, as several processes of a server or of scripts do: every open must
// succeed and the store must come out whole, whoever wins the race.
func TestConcurrentCreate(t *testing.T) {
	want := wantSchema(t)
	for _, tc := range []struct {
		name   string
		opens  int
		trials int
		empty  bool // the file exists but is empty (touch memgate.db)
	}{
		{"new path", 8, 5, false},
		{"empty file", 8, 3, true},
		{"two at once", 2, 10, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for trial := range tc.trials {
				path := filepath.Join(t.TempDir(), fmt.Sprintf("race%d.db", trial))
				if tc.empty {
					if err := os.WriteFile(path, nil, 0o600); err != nil {
						t.Fatal(err)
					}
				}
				start := make(chan struct{})
				errs := make([]error, tc.opens)
				var wg sync.WaitGroup
				for i := range tc.opens {
					wg.Go(func() {
						<-start
						s, err := Open(ctx, path)
						if err == nil {
							_, err = s.Insert(ctx, []memory.Memory{mem(fmt.Sprintf("m%d", i), "u", "written right after a racing open")}, store.ConflictError, nil)
							s.Close()
						}
						errs[i] = err
					})
				}
				close(start)
				wg.Wait()
				for i, err := range errs {
					if err != nil {
						t.Fatalf("trial %d: open %d of %d failed: %v", trial, i, tc.opens, err)
					}
				}
				if got := schemaOf(t, path); got != want {
					t.Fatalf("trial %d: schema after a racing create:\n got %s\nwant %s", trial, got, want)
				}
				s, err := Open(ctx, path)
				if err != nil {
					t.Fatal(err)
				}
				if n := count(t, s); n != tc.opens {
					t.Fatalf("trial %d: %d memories stored by %d racing opens", trial, n, tc.opens)
				}
				s.Close()
			}
		})
	}
}

// The process race test runs copies of this test binary that each open the
// same new path when told to.
const createChildEnv = "MEMGATE_CREATE_CHILD_DB"

// TestCreateChild is the child's body; it does nothing in a normal run.
func TestCreateChild(t *testing.T) {
	path := os.Getenv(createChildEnv)
	if path == "" {
		t.Skip("helper process for TestConcurrentCreateProcesses")
	}
	fmt.Println("ready")
	io.ReadAll(os.Stdin) // the parent closes stdin to start every child at once
	s, err := Open(ctx, path)
	if err == nil {
		_, err = s.Insert(ctx, []memory.Memory{mem(fmt.Sprintf("pid%d", os.Getpid()), "u", "written by a racing process")}, store.ConflictError, nil)
		if cerr := s.Close(); err == nil {
			err = cerr
		}
	}
	fmt.Println("result:", err)
	os.Exit(0)
}

func TestConcurrentCreateProcesses(t *testing.T) {
	if testing.Short() {
		t.Skip("spawns processes")
	}
	want := wantSchema(t)
	const procs, trials = 6, 4
	for trial := range trials {
		path := filepath.Join(t.TempDir(), "procs.db")
		var cmds []*exec.Cmd
		var stdins []io.Closer
		var outs []*bufio.Scanner
		for range procs {
			cmd := exec.Command(os.Args[0], "-test.run=^TestCreateChild$")
			cmd.Env = append(os.Environ(), createChildEnv+"="+path)
			cmd.Stderr = os.Stderr
			in, err := cmd.StdinPipe()
			if err != nil {
				t.Fatal(err)
			}
			out, err := cmd.StdoutPipe()
			if err != nil {
				t.Fatal(err)
			}
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			sc := bufio.NewScanner(out)
			if !sc.Scan() || sc.Text() != "ready" {
				t.Fatalf("child did not start: %q", sc.Text())
			}
			cmds, stdins, outs = append(cmds, cmd), append(stdins, in), append(outs, sc)
		}
		for _, in := range stdins {
			in.Close()
		}
		var results []string
		for i, sc := range outs {
			var res string
			for sc.Scan() {
				if r, ok := strings.CutPrefix(sc.Text(), "result: "); ok {
					res = r
				}
			}
			cmds[i].Wait()
			results = append(results, res)
		}
		if slices.ContainsFunc(results, func(r string) bool { return r != "<nil>" }) {
			t.Fatalf("trial %d: racing processes: %q", trial, results)
		}
		if got := schemaOf(t, path); got != want {
			t.Fatalf("trial %d: schema after a racing create:\n got %s\nwant %s", trial, got, want)
		}
		s, err := Open(ctx, path)
		if err != nil {
			t.Fatal(err)
		}
		if n := count(t, s); n != procs {
			t.Fatalf("trial %d: %d memories stored by %d racing processes", trial, n, procs)
		}
		s.Close()
	}
}
