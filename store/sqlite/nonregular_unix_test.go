//go:build unix

package sqlite

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// A path that is not a regular file (a directory, a named pipe, a device)
// is refused at once, in every mode, with an error that names it and says
// what it is, and nothing is created beside it. A named pipe in particular
// is never opened: opening one to read waits for a writer, for ever.
func TestOpenRefusesWhatIsNotAFile(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "pipe.db")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	sub := filepath.Join(dir, "sub.db")
	if err := os.Mkdir(sub, 0o700); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		path, want string
	}{
		{fifo, "it is a named pipe, not a regular file"},
		{sub, "it is a directory, not a regular file"},
		{"/dev/null", "it is a device, not a regular file"},
	} {
		if _, err := os.Lstat(tc.path); err != nil {
			continue // no /dev/null
		}
		for _, o := range []OpenOptions{{}, {MustExist: true}, {ReadOnly: true}} {
			name := fmt.Sprintf("%s, %+v", tc.path, o)
			done := make(chan error, 1)
			go func() {
				s, err := OpenWith(ctx, tc.path, o)
				if err == nil {
					s.Close()
				}
				done <- err
			}()
			var err error
			select {
			case err = <-done:
			case <-time.After(10 * time.Second):
				// Release the open that waits for a writer, then fail.
				if f, ferr := os.OpenFile(fifo, os.O_RDWR, 0); ferr == nil {
					<-done
					f.Close()
				}
				t.Fatalf("OpenWith(%s) still waits after 10s", name)
			}
			if err == nil || !strings.Contains(err.Error(), tc.path) || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("OpenWith(%s) = %v, want an error naming it and saying %q", name, err, tc.want)
			}
			if strings.Contains(err.Error(), "--db") {
				t.Errorf("OpenWith(%s) = %v: names a flag, which the store does not know", name, err)
			}
		}
		for _, suffix := range []string{"-journal", "-wal", "-shm"} {
			if _, err := os.Lstat(tc.path + suffix); err == nil {
				t.Errorf("%s was created beside %s", tc.path+suffix, tc.path)
			}
		}
	}
}

// A named pipe where SQLite keeps the store's journal, log or log index is
// refused as well, for a store that exists and for one to be created:
// SQLite would open it by name and wait for a writer.
func TestOpenRefusesAPipeBesideTheStore(t *testing.T) {
	for _, side := range []string{"-journal", "-wal", "-shm"} {
		for _, tc := range []struct{ exists, viaLink bool }{{true, false}, {false, false}, {true, true}} {
			dir := t.TempDir()
			path := filepath.Join(dir, "m.db")
			if tc.exists {
				s, err := Open(ctx, path)
				if err != nil {
					t.Fatal(err)
				}
				s.Close()
			}
			if err := syscall.Mkfifo(path+side, 0o600); err != nil {
				t.Skipf("mkfifo: %v", err)
			}
			open := path
			if tc.viaLink { // SQLite keeps its files beside the file the link names
				open = filepath.Join(dir, "link.db")
				if err := os.Symlink("m.db", open); err != nil {
					t.Fatal(err)
				}
			}
			done := make(chan error, 1)
			go func() {
				s, err := Open(ctx, open)
				if err == nil {
					s.Close()
				}
				done <- err
			}()
			select {
			case err := <-done:
				if err == nil || !strings.Contains(err.Error(), path+side) {
					t.Errorf("%+v, a pipe at %s: %v, want an error naming it", tc, side, err)
				}
			case <-time.After(10 * time.Second):
				if f, ferr := os.OpenFile(path+side, os.O_RDWR, 0); ferr == nil {
					<-done
					f.Close()
				}
				t.Fatalf("%+v, a pipe at %s: Open still waits after 10s", tc, side)
			}
		}
	}
}

// A link to nothing where SQLite keeps the store's log is refused with a
// message that names it.
func TestOpenRefusesADanglingLinkBesideTheStore(t *testing.T) {
	path := filepath.Join(t.TempDir(), "m.db")
	if err := os.Symlink("nowhere", path+"-wal"); err != nil {
		t.Fatal(err)
	}
	_, err := Open(ctx, path)
	if err == nil || !strings.Contains(err.Error(), path+"-wal") || !strings.Contains(err.Error(), "link to nothing") {
		t.Errorf("Open: %v, want an error naming the link", err)
	}
}
