package memgate

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/memgate/memgate/memory"
	"github.com/memgate/memgate/store"
)

// The crash tests run a child copy of this test binary that writes to a
// store, kill it with SIGKILL part-way, and check what survived.
const childEnv = "MEMGATE_CRASH_CHILD"

// TestCrashChild is the child's body; it does nothing in a normal run.
func TestCrashChild(t *testing.T) {
	mode := os.Getenv(childEnv)
	if mode == "" {
		t.Skip("helper process for the crash tests")
	}
	path := os.Getenv("MEMGATE_CRASH_DB")
	e, err := Open(ctx, path, nil)
	if err != nil {
		fmt.Println("open:", err)
		os.Exit(2)
	}
	switch mode {
	case "import":
		pr, pw := io.Pipe()
		go func() {
			for i := range 20000 {
				fmt.Fprintf(pw, `{"id":"imp%d","userId":"u","text":"imported memory number %d about project %d"}`+"\n", i, i, i%17)
			}
			pw.Close()
		}()
		fmt.Println("started")
		writing := false
		_, err = e.Import(ctx, pr, ImportOptions{Progress: func(done, total int) {
			if !writing && done > total/2 { // embedding is done; rows are being written
				writing = true
				fmt.Println("writing")
			}
		}})
	case "adds":
		fmt.Println("started")
		for i := 0; ; i++ {
			id := fmt.Sprintf("ack%d", i)
			if _, err = e.Add(ctx, memory.Memory{ID: id, UserID: "u", Text: "acknowledged write " + id}); err != nil {
				break
			}
			fmt.Println("acked", id) // the write is acknowledged once Add returns
		}
	}
	fmt.Println("done:", err)
	os.Exit(0)
}

func startChild(t *testing.T, mode, path string) (*exec.Cmd, *bufio.Scanner) {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^TestCrashChild$")
	cmd.Env = append(os.Environ(), childEnv+"="+mode, "MEMGATE_CRASH_DB="+path)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	sc := bufio.NewScanner(out)
	if !sc.Scan() || sc.Text() != "started" {
		cmd.Process.Kill()
		cmd.Wait()
		t.Fatalf("child did not start: %q", sc.Text())
	}
	return cmd, sc
}

func TestCrashMidImportIsAllOrNothing(t *testing.T) {
	if testing.Short() {
		t.Skip("spawns processes")
	}
	// Kill at once, while rows are being written, and never (the import
	// commits); the store must hold all of the import or none of it.
	for _, tc := range []struct {
		name      string
		waitFor   string
		delay     time.Duration
		committed bool
	}{
		{"while embedding", "", 20 * time.Millisecond, false},
		{"while writing", "writing", 0, false},
		{"later while writing", "writing", 40 * time.Millisecond, false},
		{"after commit", "done: <nil>", 0, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "crash.db")
			e, err := Open(ctx, path, nil)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := e.Add(ctx, memory.Memory{ID: "before", UserID: "u", Text: "written before the import"}); err != nil {
				t.Fatal(err)
			}
			e.Close()

			cmd, sc := startChild(t, "import", path)
			for tc.waitFor != "" && sc.Scan() && sc.Text() != tc.waitFor {
			}
			time.Sleep(tc.delay)
			cmd.Process.Kill()
			cmd.Wait()

			e, err = Open(ctx, path, nil)
			if err != nil {
				t.Fatalf("reopen after crash: %v", err)
			}
			defer e.Close()
			if err := e.Store().(store.Checker).Check(ctx); err != nil {
				t.Fatalf("file damaged by the crash: %v", err)
			}
			if _, err := e.Get(ctx, "before"); err != nil {
				t.Fatalf("acknowledged write lost: %v", err)
			}
			if err := e.LoadIndex(ctx); err != nil { // users load lazily; load them all to compare
				t.Fatalf("load the index after the crash: %v", err)
			}
			st, err := e.Stats(ctx)
			if err != nil {
				t.Fatal(err)
			}
			want := map[bool]int{false: 1, true: 20001}[tc.committed]
			if st.Memories != want {
				t.Fatalf("store holds %d memories, want %d", st.Memories, want)
			}
			if st.Indexed != st.Memories {
				t.Fatalf("index has %d vectors for %d memories", st.Indexed, st.Memories)
			}
		})
	}
}

func TestCrashLosesNoAcknowledgedAdd(t *testing.T) {
	if testing.Short() {
		t.Skip("spawns processes")
	}
	path := filepath.Join(t.TempDir(), "acks.db")
	cmd, sc := startChild(t, "adds", path)
	var acked []string
	deadline := time.After(400 * time.Millisecond)
	lines := make(chan string)
	go func() {
		for sc.Scan() {
			lines <- sc.Text()
		}
		close(lines)
	}()
loop:
	for {
		select {
		case l, ok := <-lines:
			if !ok {
				break loop
			}
			if id, ok := strings.CutPrefix(l, "acked "); ok {
				acked = append(acked, id)
			}
		case <-deadline:
			cmd.Process.Kill()
			deadline = nil
		}
	}
	cmd.Wait()
	if len(acked) == 0 {
		t.Fatal("child acknowledged nothing before it was killed")
	}
	e, err := Open(ctx, path, nil)
	if err != nil {
		t.Fatalf("reopen after crash: %v", err)
	}
	defer e.Close()
	if err := e.Store().(store.Checker).Check(ctx); err != nil {
		t.Fatal(err)
	}
	for _, id := range acked {
		if _, err := e.Get(ctx, id); err != nil {
			t.Fatalf("acknowledged %s lost: %v", id, err)
		}
	}
	st, _ := e.Stats(ctx)
	t.Logf("%d acknowledged adds before the kill, %d stored", len(acked), st.Memories)
	if st.Memories < len(acked) || st.Memories > len(acked)+1 {
		t.Fatalf("%d stored for %d acknowledged", st.Memories, len(acked))
	}
}
