//go:build unix

package cli

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// A --from or --to that is not a store's file (a named pipe, a directory,
// a device) is refused at once: exit status 1, one line naming the flag,
// the path and what it is, and nothing written. A named pipe used to hang
// migrate (and every command given it as --db) for ever, waiting for a
// writer, silent.
func TestMigrateRefusesWhatIsNotAFile(t *testing.T) {
	dir := t.TempDir()
	src := filepath.Join(dir, "src.db")
	fillForMigrate(t, src)
	fifo := filepath.Join(dir, "pipe.db")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	sub := filepath.Join(dir, "sub")
	if err := os.Mkdir(sub, 0o700); err != nil {
		t.Fatal(err)
	}
	dst := filepath.Join(dir, "never.db")
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"migrate", "--from", fifo, "--to", dst}, "--from: open store " + fifo + ": it is a named pipe"},
		{[]string{"migrate", "--from", src, "--to", fifo}, "--to: open store " + fifo + ": it is a named pipe"},
		{[]string{"migrate", "--from", src, "--to", fifo, "--verify"}, "--to: open store " + fifo + ": it is a named pipe"},
		{[]string{"migrate", "--from", "sqlite:" + sub, "--to", dst}, "--from: open store " + sub + ": it is a directory"},
		{[]string{"migrate", "--from", src, "--to", sub}, "--to: open store " + sub + ": it is a directory"},
		{[]string{"migrate", "--from", "/dev/null", "--to", dst}, "--from: open store /dev/null: it is a device"},
		{[]string{"--db", fifo, "stats"}, "open store " + fifo + ": it is a named pipe"},
	} {
		name := strings.Join(tc.args, " ")
		done := make(chan result, 1)
		go func() { done <- run(t, "", tc.args...) }()
		var r result
		select {
		case r = <-done:
		case <-time.After(10 * time.Second):
			if f, err := os.OpenFile(fifo, os.O_RDWR, 0); err == nil { // let the waiting open go
				<-done
				f.Close()
			}
			t.Fatalf("%s: still running after 10s", name)
		}
		if r.code != 1 {
			t.Errorf("%s: exit %d, want 1\n%s", name, r.code, r.stderr)
		}
		checkOneLine(t, name, r.stderr, tc.want)
		if strings.Contains(r.stderr, "--db") && tc.args[0] == "migrate" {
			t.Errorf("%s: names --db, which was not given: %s", name, r.stderr)
		}
		if _, err := os.Stat(dst); !errors.Is(err, os.ErrNotExist) {
			t.Fatalf("%s created %s", name, dst)
		}
		if tmps, _ := filepath.Glob(filepath.Join(dir, ".*.migrate-*")); len(tmps) > 0 {
			t.Fatalf("%s left %v", name, tmps)
		}
	}
}

// A destination directory that migrate may write in but not list (mode
// -wx) holds the copy as any other does; that migrate cannot look in it for
// copies an earlier run left is said on stderr, naming the directory, where
// it used to be passed over in silence. (Root lists any directory: run as
// another user.)
func TestMigrateUnlistableDirectory(t *testing.T) {
	if os.Geteuid() == 0 {
		t.Skip("root may list any directory")
	}
	dir := t.TempDir()
	src := filepath.Join(dir, "src.db")
	fillForMigrate(t, src)
	wx := filepath.Join(dir, "wx")
	if err := os.Mkdir(wx, 0o700); err != nil {
		t.Fatal(err)
	}
	left := filepath.Join(wx, ".dst.db.migrate-1234")
	if err := os.WriteFile(left, []byte("left by a killed run"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(wx, 0o300); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.Chmod(wx, 0o700) })
	if _, err := os.ReadDir(wx); err == nil {
		t.Skip("the directory can be listed all the same")
	}
	dst := filepath.Join(wx, "dst.db")
	r := run(t, "", "migrate", "--from", src, "--to", dst)
	if r.code != 0 {
		t.Fatalf("migrate into a directory it cannot list: %+v", r)
	}
	if want := "cannot look in " + wx + " for copies an earlier migrate to " + dst + " left"; !strings.Contains(r.stderr, want) ||
		!strings.Contains(r.stderr, "permission denied") {
		t.Errorf("stderr %q: want a note saying %q, and why", r.stderr, want)
	}
	if r := run(t, "", "--db", dst, "get", "m1"); r.code != 0 {
		t.Errorf("the copy: %+v", r)
	}
}

// A copy's group may use it only when it is the source's group: a copy
// into a directory whose files take its group, or by a user of another
// primary group, would otherwise hand the source's group rights to a
// group the source did not name.
func TestCopyPermGroup(t *testing.T) {
	dir := t.TempDir()
	src, cp := filepath.Join(dir, "src.db"), filepath.Join(dir, "cp.db")
	for _, f := range []string{src, cp} {
		if err := os.WriteFile(f, nil, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Chmod(src, 0o660); err != nil {
		t.Fatal(err)
	}
	si, _ := os.Stat(src)
	ci, _ := os.Stat(cp)
	if got := copyPerm(si, ci); got != 0o660 {
		t.Errorf("same group: %#o, want 0660", got)
	}
	if got := copyPerm(nil, ci); got != 0o600 {
		t.Errorf("a PostgreSQL source: %#o, want 0600", got)
	}
	gid := si.Sys().(*syscall.Stat_t).Gid
	if err := os.Chown(cp, -1, int(gid)+1); err != nil {
		t.Skipf("cannot give the copy another group: %v", err)
	}
	ci, _ = os.Stat(cp)
	if got := copyPerm(si, ci); got != 0o600 {
		t.Errorf("another group: %#o, want 0600", got)
	}
	if err := os.Chmod(src, 0o644); err != nil {
		t.Fatal(err)
	}
	si, _ = os.Stat(src)
	if got := copyPerm(si, ci); got != 0o600 {
		t.Errorf("another group, a source all may read: %#o, want 0600", got)
	}
}

// A link, symbolic or hard, put in the copy's place never passes the
// permissions on to the file it names, and a named pipe there is refused
// without waiting on it.
func TestChmodCopyRefusesALink(t *testing.T) {
	dir := t.TempDir()
	victim := filepath.Join(dir, "victim")
	if err := os.WriteFile(victim, []byte("x"), 0o600); err != nil {
		t.Fatal(err)
	}
	src := filepath.Join(dir, "src.db")
	if err := os.WriteFile(src, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	si, _ := os.Stat(src)
	tmp, made, err := newStoreFile(filepath.Join(dir, "dst.db"))
	if err != nil {
		t.Fatal(err)
	}
	mkfifo := func(_, name string) error { return syscall.Mkfifo(name, 0o600) }
	for _, link := range []func(string, string) error{os.Symlink, os.Link, mkfifo} {
		if err := os.Remove(tmp); err != nil {
			t.Fatal(err)
		}
		if err := link(victim, tmp); err != nil {
			t.Fatal(err)
		}
		if err := chmodCopy(tmp, si, made); err == nil || !strings.Contains(err.Error(), "replaced") {
			t.Errorf("chmodCopy through a link: %v, want an error", err)
		}
		if fi, _ := os.Stat(victim); fi.Mode().Perm() != 0o600 {
			t.Errorf("the linked file's permissions became %#o", fi.Mode().Perm())
		}
	}
}
