package cli

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/memgate/memgate/index/weaviate"
	"github.com/memgate/memgate/store/postgres/pgtest"
)

// serveChildEnv makes TestServeChild run `memgate serve` in this process.
const (
	serveChildEnv = "MEMGATE_SERVE_CHILD"
	serveArgsEnv  = "MEMGATE_SERVE_ARGS" // more arguments of the child's serve, one per line
)

// TestServeChild is `memgate serve --addr 127.0.0.1:0` in a child process
// of TestReplicaKilledMidRequest, configured by MEMGATE_STORE and
// MEMGATE_INDEX.
func TestServeChild(t *testing.T) {
	if os.Getenv(serveChildEnv) == "" {
		t.Skip("a child of TestReplicaKilledMidRequest")
	}
	args := []string{"serve", "--addr", "127.0.0.1:0"}
	if extra := os.Getenv(serveArgsEnv); extra != "" {
		args = append(args, strings.Split(extra, "\n")...)
	}
	os.Exit(Main(args, os.Stdin, os.Stdout, os.Stderr))
}

// startServe starts `memgate serve` on a free loopback port in a child
// process with env added to its environment, stopped when t ends, and
// returns it with its base URL.
func startServe(t *testing.T, name string, env []string) (*exec.Cmd, string) {
	t.Helper()
	cmd, url, _ := startServeLines(t, name, env)
	return cmd, url
}

// startServeLines is startServe, and also returns what the server printed
// on stderr till it served.
func startServeLines(t *testing.T, name string, env []string) (*exec.Cmd, string, []string) {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^TestServeChild$")
	cmd.Env = append(append(os.Environ(), serveChildEnv+"=1"), env...)
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	addr := make(chan string, 1)
	var mu sync.Mutex
	var said []string
	go func() {
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			line := sc.Text()
			mu.Lock()
			said = append(said, line)
			mu.Unlock()
			if i := strings.Index(line, " on http://"); i >= 0 && strings.HasPrefix(line, "memgate: serving") {
				addr <- "http://" + line[i+len(" on http://"):]
			}
		}
		close(addr)
	}()
	select {
	case a, ok := <-addr:
		if ok {
			mu.Lock()
			defer mu.Unlock()
			return cmd, a, slices.Clone(said)
		}
	case <-time.After(60 * time.Second):
	}
	mu.Lock()
	defer mu.Unlock()
	t.Fatalf("memgate serve %s did not start:\n%s", name, strings.Join(said, "\n"))
	return nil, "", nil
}

// freshWeaviate returns a weaviate:// index location on a collection of
// its own, dropped when t ends, on the server MEMGATE_TEST_WEAVIATE names;
// "" if it is not set.
func freshWeaviate(t *testing.T) string {
	t.Helper()
	w := os.Getenv("MEMGATE_TEST_WEAVIATE")
	if w == "" {
		return ""
	}
	u, err := url.Parse(w)
	if err != nil {
		t.Fatalf("MEMGATE_TEST_WEAVIATE: %v", err)
	}
	u.Scheme = "weaviate"
	q := u.Query()
	q.Set("class", fmt.Sprintf("MemgateCLI%d", time.Now().UnixNano()))
	u.RawQuery = q.Encode()
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		if x, err := weaviate.New(ctx, u.String(), 256); err == nil {
			x.DropClass(ctx)
		}
	})
	return u.String()
}

// A replica of memgate serve killed (SIGKILL) in the middle of writes loses
// none it acknowledged: two replicas share one PostgreSQL store (and one
// Weaviate index when MEMGATE_TEST_WEAVIATE is set), writers add and revoke
// memories through replica A until it is killed, and every acknowledged
// write is then visible through replica B: stored, revoked where a
// revocation was acknowledged, and found by a search (B's index follower
// applies what A left in the outbox).
func TestReplicaKilledMidRequest(t *testing.T) {
	if testing.Short() {
		t.Skip("starts server processes")
	}
	store := pgtest.Fresh(t)
	env := []string{"MEMGATE_STORE=" + store, "MEMGATE_INDEX=exact"}
	if idx := freshWeaviate(t); idx != "" {
		env[1] = "MEMGATE_INDEX=" + idx
	}
	t.Logf("replicas on %s", env[1])
	user := "kill-test"
	r := run(t, "", "--store", store, "--index", "exact", "keys", "create", "--principal", "writer", "--role", "agent", "--users", user, "--json")
	if r.code != 0 {
		t.Fatalf("keys create: %d %s", r.code, r.stderr)
	}
	var created struct{ Key string }
	if err := json.Unmarshal([]byte(r.stdout), &created); err != nil || created.Key == "" {
		t.Fatalf("keys create printed %q: %v", r.stdout, err)
	}
	key := created.Key

	procA, a := startServe(t, "A", env)
	_, b := startServe(t, "B", env)

	client := &http.Client{Timeout: 20 * time.Second}
	call := func(base, method, path string, body any) (int, map[string]any, error) {
		var rd io.Reader
		if body != nil {
			buf, _ := json.Marshal(body)
			rd = bytes.NewReader(buf)
		}
		req, _ := http.NewRequest(method, base+path, rd)
		req.Header.Set("Authorization", "Bearer "+key)
		req.Header.Set("Content-Type", "application/json")
		resp, err := client.Do(req)
		if err != nil {
			return 0, nil, err
		}
		defer resp.Body.Close()
		var out map[string]any
		json.NewDecoder(resp.Body).Decode(&out)
		return resp.StatusCode, out, nil
	}

	// Writers add memories through A, and revoke every third one they
	// added, until A stops answering.
	var mu sync.Mutex
	added := map[string]string{} // id → its unique word
	revoked := map[string]bool{} // revocations acknowledged
	tried := map[string]bool{}   // revocations sent (A may have died after committing one)
	var wg sync.WaitGroup
	for w := range 6 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; ; i++ {
				word := fmt.Sprintf("w%dx%dq", w, i)
				code, m, err := call(a, "POST", "/v1/memories", map[string]any{"text": "kill test memory " + word + " about the harbour ferry"})
				if err != nil {
					return
				}
				if code != 201 {
					t.Errorf("add through A: %d %v", code, m)
					return
				}
				id, _ := m["id"].(string)
				mu.Lock()
				added[id] = word
				mu.Unlock()
				if i%3 == 2 {
					mu.Lock()
					tried[id] = true
					mu.Unlock()
					code, m, err := call(a, "POST", "/v1/memories/"+id+"/revoke", map[string]any{"reason": "kill test"})
					if err != nil {
						return
					}
					if code != 200 {
						t.Errorf("revoke through A: %d %v", code, m)
						return
					}
					mu.Lock()
					revoked[id] = true
					mu.Unlock()
				}
			}
		}()
	}
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		mu.Lock()
		n := len(added)
		mu.Unlock()
		if n >= 60 || time.Now().After(deadline) {
			break
		}
	}
	if err := procA.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	wg.Wait()
	mu.Lock()
	defer mu.Unlock()
	if len(added) < 20 {
		t.Fatalf("only %d writes were acknowledged before the kill", len(added))
	}
	t.Logf("%d adds and %d revocations acknowledged before replica A was killed", len(added), len(revoked))

	for id := range added {
		code, m, err := call(b, "GET", "/v1/memories/"+id, nil)
		if err != nil || code != 200 {
			t.Fatalf("acknowledged memory %s through B: %d %v %v", id, code, m, err)
		}
		got, _ := m["revoked"].(bool)
		switch {
		case revoked[id] && !got:
			t.Errorf("memory %s through B is not revoked, but its revocation was acknowledged", id)
		case got && !tried[id]:
			t.Errorf("memory %s through B is revoked, but no one revoked it", id)
		}
	}
	// Every acknowledged, unrevoked memory is found by a search through B
	// (its own words), once B's follower has applied what A left.
	var missing []string
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(200 * time.Millisecond) {
		missing = missing[:0]
		for id, word := range added {
			if tried[id] {
				continue // revoked, or maybe revoked: not a candidate either way
			}
			code, m, err := call(b, "POST", "/v1/search", map[string]any{"query": map[string]any{"text": word, "k": 5}})
			if err != nil || code != 200 {
				t.Fatalf("search through B: %d %v %v", code, m, err)
			}
			found := false
			for _, c := range m["candidates"].([]any) {
				if c.(map[string]any)["memory"].(map[string]any)["id"] == id {
					found = true
				}
			}
			if !found {
				missing = append(missing, id)
			}
		}
		if len(missing) == 0 || time.Now().After(deadline) {
			break
		}
	}
	if len(missing) > 0 {
		t.Fatalf("%d acknowledged memories are not found by a search through B: %v", len(missing), missing)
	}
}
