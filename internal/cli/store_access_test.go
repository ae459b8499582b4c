package cli

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/spf13/cobra"
)

// TestMissingStoreIsRefused: a mistyped --db must not become a new, empty
// store that every command then reads happily. Only add and import create a
// store; every other command says there is none, and creates nothing.
func TestMissingStoreIsRefused(t *testing.T) {
	dir := t.TempDir()
	tests := [][]string{
		{"get", "m1"},
		{"list"},
		{"stats"},
		{"export"},
		{"audit"},
		{"search", "--user", "u", "-q", "deploy"},
		{"bind", "--user", "u", "--task", "t1", "--tool", "pay"},
		{"revoke", "m1", "--reason", "stale"},
		{"forget", "m1"},
		{"supersede", "m2", "m1"},
		{"quarantine", "list"},
		{"quarantine", "approve", "1"},
	}
	for _, args := range tests {
		t.Run(strings.Join(args, " "), func(t *testing.T) {
			db := filepath.Join(dir, "tpyo-"+args[0]+".db")
			r := run(t, "", append([]string{"--db", db}, args...)...)
			want := "no store at " + db + "; create one with `memgate add` or `memgate import`, or check --db"
			if r.code != 1 || !strings.Contains(r.stderr, want) {
				t.Fatalf("exit %d, stderr %q; want 1 and %q", r.code, r.stderr, want)
			}
			for _, p := range []string{db, db + "-wal", db + "-shm"} {
				if _, err := os.Stat(p); !errors.Is(err, os.ErrNotExist) {
					t.Fatalf("%s was created", p)
				}
			}
		})
	}
	// add and import create the store.
	for _, args := range [][]string{{"add", "--user", "u", "first memory"}, {"import", "-"}} {
		db := filepath.Join(dir, "new-"+args[0]+".db")
		stdin := `{"userId":"u","text":"imported first memory"}` + "\n"
		if r := run(t, stdin, append([]string{"--db", db}, args...)...); r.code != 0 {
			t.Fatalf("%s into a new store: %+v", args[0], r)
		}
		if r := run(t, "", "--db", db, "stats"); r.code != 0 || !strings.Contains(r.stdout, "memories     1 ") {
			t.Fatalf("stats after %s: %+v", args[0], r)
		}
	}
}

// TestReadCommandsLeaveTheStoreAlone: commands that only read open the store
// read-only, so the file is the same byte for byte afterwards.
func TestReadCommandsLeaveTheStoreAlone(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "ro.db")
	for _, args := range [][]string{
		{"add", "--user", "u", "--id", "m1", "Atlas deploys after the freeze"},
		{"add", "--user", "u", "--id", "m2", "Blood test on Friday"},
		{"search", "--user", "u", "-q", "deploy", "--task", "t1"},
	} {
		if r := run(t, "", append([]string{"--db", db}, args...)...); r.code != 0 {
			t.Fatalf("%v: %+v", args, r)
		}
	}
	before, err := os.ReadFile(db)
	if err != nil {
		t.Fatal(err)
	}
	fi, _ := os.Stat(db)
	time.Sleep(10 * time.Millisecond) // a write would change the modification time
	for _, args := range [][]string{
		{"get", "m1"}, {"list"}, {"stats"}, {"stats", "--check"}, {"export"}, {"audit"}, {"quarantine", "list"},
	} {
		r := run(t, "", append([]string{"--db", db}, args...)...)
		if r.code != 0 {
			t.Fatalf("%v: %+v", args, r)
		}
		after, _ := os.ReadFile(db)
		fi2, _ := os.Stat(db)
		if !bytes.Equal(before, after) || !fi.ModTime().Equal(fi2.ModTime()) {
			t.Fatalf("%v changed the store's file", args)
		}
	}
}

// TestWriteProtectedStore: on a store whose file is read-only, read commands
// work and writing ones fail with a sentence, not a SQLite code.
func TestWriteProtectedStore(t *testing.T) {
	if os.Geteuid() == 0 {
		t.Skip("root writes to read-only files")
	}
	dir := t.TempDir()
	db := filepath.Join(dir, "locked.db")
	if r := run(t, "", "--db", db, "add", "--user", "u", "--id", "m1", "Atlas deploys after the freeze"); r.code != 0 {
		t.Fatal(r)
	}
	if err := os.Chmod(db, 0o444); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.Chmod(db, 0o644) })
	for _, args := range [][]string{{"get", "m1"}, {"list"}, {"stats"}, {"export"}, {"audit"}} {
		if r := run(t, "", append([]string{"--db", db}, args...)...); r.code != 0 {
			t.Fatalf("%v on a write-protected store: %+v", args, r)
		}
	}
	for _, tc := range []struct {
		args []string
		says string
	}{
		{[]string{"add", "--user", "u", "more"}, "make the store's file and its directory writable"},
		{[]string{"revoke", "m1", "--reason", "stale"}, "make the store's file and its directory writable"},
		{[]string{"search", "--user", "u", "-q", "deploy"}, "search records its decisions in the audit trail, so it needs a store it can write"},
	} {
		r := run(t, "", append([]string{"--db", db}, tc.args...)...)
		if r.code != 1 || !strings.Contains(r.stderr, "the store is read-only") || !strings.Contains(r.stderr, tc.says) {
			t.Fatalf("%v on a write-protected store: %+v; want exit 1 saying %q", tc.args, r, tc.says)
		}
	}
}

// TestStoreAccessesNameCommands keeps the table of how commands open the
// store in step with the commands: a renamed command must not silently fall
// back to the default.
func TestStoreAccessesNameCommands(t *testing.T) {
	root := (&env{}).root()
	paths := map[string]bool{}
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		paths[strings.TrimPrefix(c.CommandPath(), root.Name()+" ")] = true
		for _, sub := range c.Commands() {
			walk(sub)
		}
	}
	walk(root)
	for p := range storeAccesses {
		if !paths[p] {
			t.Errorf("storeAccesses names %q, which is not a command", p)
		}
	}
	for _, tc := range []struct {
		args []string
		want storeAccess
	}{
		{[]string{"add"}, createStore},
		{[]string{"import"}, createStore},
		{[]string{"get"}, readStore},
		{[]string{"quarantine", "list"}, readStore},
		{[]string{"quarantine", "approve"}, writeStore},
		{[]string{"search"}, writeStore},
		{[]string{"revoke"}, writeStore},
	} {
		c, _, err := root.Find(tc.args)
		if err != nil {
			t.Fatal(err)
		}
		if got := accessOf(c); got != tc.want {
			t.Errorf("%v opens the store with access %d, want %d", tc.args, got, tc.want)
		}
	}
}
