package cli

import (
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

const evalChildEnv = "MEMGATE_EVAL_CHILD"

// TestEvalChild is the process TestEvalInterrupted signals; it runs only
// as that test's child.
func TestEvalChild(t *testing.T) {
	args := os.Getenv(evalChildEnv)
	if args == "" {
		t.Skip("a child of TestEvalInterrupted")
	}
	testHookEvalProgress = func(ctx context.Context, done int) {
		if done != 2 {
			return
		}
		syscall.Kill(os.Getpid(), syscall.SIGTERM)
		select {
		case <-ctx.Done():
		case <-time.After(30 * time.Second):
		}
	}
	os.Exit(Main(strings.Split(args, "\n"), os.Stdin, os.Stdout, os.Stderr))
}

// An eval stopped by SIGTERM or Ctrl-C says it was interrupted, not that
// the cases file is at fault, and leaves an earlier --decisions file as it
// was, with no temporary file beside it.
func TestEvalInterrupted(t *testing.T) {
	dir := t.TempDir()
	decisions := filepath.Join(dir, "decisions.jsonl")
	if err := os.WriteFile(decisions, []byte("earlier\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	cases, err := filepath.Abs(filepath.Join("..", "..", "eval", "probe", "probe.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestEvalChild$")
	cmd.Env = append(os.Environ(), evalChildEnv+"="+strings.Join([]string{"eval", "--cases", cases, "--decisions", decisions}, "\n"))
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	err = cmd.Run()
	var exit *exec.ExitError
	if !errors.As(err, &exit) || exit.ExitCode() != 1 {
		t.Fatalf("interrupted eval: %v, want exit status 1\n%s", err, stderr.String())
	}
	msg := stderr.String()
	for _, want := range []string{"interrupted", "--decisions " + decisions + " is unchanged"} {
		if !strings.Contains(msg, want) {
			t.Errorf("stderr does not say %q:\n%s", want, msg)
		}
	}
	if strings.Contains(msg, cases+":") {
		t.Errorf("stderr blames the cases file:\n%s", msg)
	}
	if b, err := os.ReadFile(decisions); err != nil || string(b) != "earlier\n" {
		t.Errorf("the earlier decisions file: %q, %v; want it unchanged", b, err)
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 1 {
		t.Errorf("files left in the directory: %v", ents)
	}
}
