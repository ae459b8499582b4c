package cli

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const evalChildEnv = "MEMGATE_EVAL_CHILD"

// TestEvalChild is the process TestEvalInterrupted signals; it runs only
// as that test's child.
func TestEvalChild(t *testing.T) {
	args := childArgs(evalChildEnv)
	if args == nil {
		t.Skip("a child of TestEvalInterrupted")
	}
	testHookEvalProgress = func(ctx context.Context, done int) {
		if done == 2 {
			interruptSelf(ctx, false)
		}
	}
	os.Exit(Main(args, os.Stdin, os.Stdout, os.Stderr))
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
	msg := runInterruptedChild(t, "TestEvalChild", evalChildEnv, []string{"eval", "--cases", cases, "--decisions", decisions})
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
