package cli

import (
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"
)

// Interrupted commands are tested in a child process (the test binary run
// again with one test selected) that signals itself from a test hook, so
// the signal reaches Main's handler as a real SIGTERM would.

// interruptSelf sends this process SIGTERM, twice 10 ms apart if twice is
// set (as GNU timeout signals the process, then its group), and waits for
// the command to notice (ctx done), 30 s at most.
// It goes through os.Process, not syscall.Kill, so that the package's
// tests build on every platform; where a process cannot signal itself
// (Windows), runInterruptedChild skips the tests first.
func interruptSelf(ctx context.Context, twice bool) {
	self, err := os.FindProcess(os.Getpid())
	if err != nil {
		panic(err)
	}
	self.Signal(syscall.SIGTERM)
	if twice {
		time.Sleep(10 * time.Millisecond)
		self.Signal(syscall.SIGTERM)
	}
	select {
	case <-ctx.Done():
	case <-time.After(30 * time.Second):
	}
}

// childArgs returns the command line a child test runs, from the
// environment variable env; "" when the test is not running as a child.
func childArgs(env string) []string {
	if a := os.Getenv(env); a != "" {
		return strings.Split(a, "\n")
	}
	return nil
}

// runInterruptedChild runs test (a child test that reads its arguments
// from env) with args and extra environment, and returns its standard
// error; it fails t unless the child exits with status 1.
func runInterruptedChild(t *testing.T, test, env string, args []string, extra ...string) string {
	t.Helper()
	if runtime.GOOS == "windows" {
		t.Skip("a process cannot send itself SIGTERM on Windows")
	}
	cmd := exec.Command(os.Args[0], "-test.run=^"+test+"$")
	cmd.Env = append(append(os.Environ(), env+"="+strings.Join(args, "\n")), extra...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	err := cmd.Run()
	var exit *exec.ExitError
	if !errors.As(err, &exit) || exit.ExitCode() != 1 {
		t.Fatalf("interrupted %s: %v, want exit status 1\n%s", args[0], err, stderr.String())
	}
	return stderr.String()
}
