package server

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/memgate/memgate"
	"github.com/memgate/memgate/memory"
)

// knownBugs are server errors (5xx) the server answers today to bad input
// that deserves a 4xx; each is described in the report that came with
// these tests, with its fix. checkNoServerError tolerates them (logging
// each) so that the other tests can run; TestKnownServerBugs pins them.
// Delete an entry once its fix is in.
var knownBugs = []struct {
	status         int
	contains, what string
}{
	// Empty: every bug found by these tests is fixed. An entry here makes
	// checkNoServerError tolerate an answer; add one only with a fix
	// under way.
}

func knownBug(a *answer) string {
	for _, b := range knownBugs {
		if a.status == b.status && strings.Contains(a.errPart("message"), b.contains) {
			return b.what
		}
	}
	return ""
}

// checkNoServerError fails on a 5xx answer that is not a known bug.
func checkNoServerError(t testing.TB, a *answer) {
	t.Helper()
	if a.status < 500 {
		return
	}
	if what := knownBug(a); what != "" {
		if _, again := loggedBugs.LoadOrStore(what, true); !again {
			t.Logf("known bug (%s): %v", what, a)
		}
		return
	}
	t.Errorf("server error: %v", a)
}

// loggedBugs are the known bugs logged already, each once.
var loggedBugs sync.Map

// TestKnownServerBugs reproduces the known bugs; each subtest skips while
// the bug is there and passes, checking the right answer, once it is
// fixed.
func TestKnownServerBugs(t *testing.T) {
	w := newWorld(t, Options{})
	d := w.seed(t, "alice", w.keys["alice"], w.keys["alice-reviewer"], "A")
	for _, c := range []struct {
		name         string
		key          string
		method, path string
		body         any
		status       int
		code, field  string
	}{
		{"unknown lineage ref", w.keys["alice"], "POST", "/v1/memories", map[string]any{"text": "x", "lineageRefs": []string{"nope"}}, 400, "invalid", "lineageRefs[0]"},
		{"unknown supersedes", w.keys["alice"], "POST", "/v1/memories", map[string]any{"text": "x", "supersedes": []string{"nope"}}, 400, "invalid", "supersedes[0]"},
		{"repeated id in a batch", w.keys["alice"], "POST", "/v1/memories/batch",
			map[string]any{"memories": []any{map[string]any{"id": "r", "text": "x"}, map[string]any{"id": "r", "text": "y"}}}, 400, "", ""},
		{"embedding dimension", w.keys["alice"], "POST", "/v1/memories", map[string]any{"text": "x", "embedding": []float32{1, 2}}, 400, "invalid", "embedding"},
		{"second verdict", w.keys["alice-reviewer"], "POST", fmt.Sprintf("/v1/quarantine/%d/approve", d.reviewedItem), nil, 409, "conflict", ""},
		{"body not an object", w.keys["alice"], "POST", "/v1/search", "[]", 400, "invalid", "body"},
	} {
		t.Run(c.name, func(t *testing.T) {
			a := w.do(t, c.key, c.method, c.path, c.body)
			if what := knownBug(a); what != "" {
				knownIssue(t, "%s: %v", what, a)
			}
			if a.status != c.status || c.code != "" && a.errPart("code") != c.code || c.field != "" && a.errPart("field") != c.field {
				t.Errorf("%v, want %d %s field %q", a, c.status, c.code, c.field)
			}
		})
	}
}

// fuzzTarget is one POST route of the fuzz test, with the key to call it.
type fuzzTarget struct {
	op   operation
	path string
	key  string
}

// fuzzSetup is a world with alice's data and the POST routes to fuzz.
func fuzzSetup(t testing.TB) (*world, []fuzzTarget, map[string]any) {
	w := newWorld(t, Options{MaxBodyBytes: 64 << 10, MaxBatch: 50})
	d := w.seed(t, "alice", w.keys["alice"], w.keys["alice-reviewer"], "A")
	doc := loadDoc(t, w.must(t, 200, "", "GET", openAPIPath, nil).raw)
	var targets []fuzzTarget
	for _, op := range operations {
		if op.Method != "POST" {
			continue
		}
		key := w.keys["alice"]
		if op.Role == "reviewer" {
			key = w.keys["alice-reviewer"]
		}
		path := strings.NewReplacer("{id}", d.other, "{item}", fmt.Sprint(d.item), "{verdict}", "reject").Replace(op.Path)
		targets = append(targets, fuzzTarget{op: op, path: path, key: key})
	}
	return w, targets, doc
}

// FuzzRequestBodies sends arbitrary bodies to every POST route: no answer
// is a 5xx (a panic is answered 500) other than a known bug, every answer
// is JSON valid under the schema the document gives for its status, which
// it must list, and every 400 names the field.
func FuzzRequestBodies(f *testing.F) {
	w, targets, doc := fuzzSetup(f)
	v := &validator{doc: doc}
	for i, tg := range targets {
		ex, _ := json.Marshal(tg.op.Example)
		for _, body := range [][]byte{ex, nil, []byte("{}"), []byte("null"), []byte("[]"), []byte(`"x"`), []byte("1e999"),
			[]byte(strings.Repeat("[", 20000)), []byte(`{"a":1}`), []byte("{\"text\":\"\x00\xff\"}"), append(bytes.Clone(ex), ex...)} {
			f.Add(uint8(i), body)
		}
		// Each field of the example set to a value of each JSON type.
		var m map[string]any
		if json.Unmarshal(ex, &m) == nil {
			for k := range m {
				for _, val := range []any{nil, true, -1, 1.5, "", strings.Repeat("é", 300), []any{}, map[string]any{}} {
					c := maps.Clone(m)
					c[k] = val
					b, _ := json.Marshal(c)
					f.Add(uint8(i), b)
				}
			}
		}
	}
	f.Fuzz(func(t *testing.T, which uint8, body []byte) {
		tg := targets[int(which)%len(targets)]
		req := httptest.NewRequest("POST", tg.path, bytes.NewReader(body))
		req.Header.Set("Authorization", "Bearer "+tg.key)
		rec := httptest.NewRecorder()
		w.h.ServeHTTP(rec, req)
		a := &answer{method: "POST", path: tg.path, status: rec.Code, raw: rec.Body.Bytes()}
		if err := json.Unmarshal(a.raw, &a.body); err != nil {
			t.Fatalf("%s: %d, not a JSON object: %q", tg.path, a.status, a.raw)
		}
		if a.status >= 500 {
			if knownBug(a) == "" {
				t.Fatalf("body %q: %v", body, a)
			}
			return
		}
		if a.status >= 400 && a.errPart("code") == "" {
			t.Fatalf("body %q: an error without a code: %v", body, a)
		}
		if a.status == 400 && a.errPart("field") == "" && knownBug(a) == "" {
			t.Errorf("body %q: a 400 that names no field: %v", body, a)
		}
		for _, p := range v.answer(resolveOp(doc, "POST", tg.op.Path), a) {
			t.Errorf("body %q: %v: %s", body, a, p)
		}
	})
}

// count is how many memories the store holds, of every user, revoked ones
// included.
func (w *world) count(t testing.TB) int {
	t.Helper()
	page, err := w.eng.List(context.Background(), memgate.ListOptions{IncludeRevoked: true})
	if err != nil {
		t.Fatal(err)
	}
	return len(page.Memories)
}

// batchOf is a batch add of n valid memories for alice.
func batchOf(n int) []byte {
	ms := make([]memory.Memory, n)
	for i := range ms {
		ms[i] = memory.Memory{Text: fmt.Sprintf("memory %d of a batch about flights and hotels", i)}
	}
	b, _ := json.Marshal(batchBody{Memories: ms})
	return b
}

// TestDisconnectLeavesNoPartialWrite: a client that sends part of a batch
// and goes away, or whose context is cancelled mid-body, leaves nothing
// written; one that sends it whole and goes away before the answer leaves
// all of it or none.
func TestDisconnectLeavesNoPartialWrite(t *testing.T) {
	w := newWorld(t, Options{})
	body := batchOf(200)
	addr := strings.TrimPrefix(w.srv.URL, "http://")
	head := fmt.Sprintf("POST /v1/memories/batch HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer %s\r\nContent-Type: application/json\r\n", w.keys["alice"])

	// Sent slowly in part, then the connection closes.
	for _, cut := range []int{0, 1, len(body) / 2, len(body) - 1} {
		for _, chunked := range []bool{false, true} {
			conn, err := net.Dial("tcp", addr)
			if err != nil {
				t.Fatal(err)
			}
			if chunked {
				fmt.Fprintf(conn, "%sTransfer-Encoding: chunked\r\n\r\n", head)
				for off := 0; off < cut; off += 4096 {
					part := body[off:min(off+4096, cut)]
					fmt.Fprintf(conn, "%x\r\n%s\r\n", len(part), part)
					time.Sleep(time.Millisecond)
				}
			} else {
				fmt.Fprintf(conn, "%sContent-Length: %d\r\n\r\n", head, len(body))
				for off := 0; off < cut; off += 4096 {
					conn.Write(body[off:min(off+4096, cut)])
					time.Sleep(time.Millisecond)
				}
			}
			conn.Close()
		}
	}
	// A request whose context is cancelled while its body is sent.
	pr, pw := io.Pipe()
	ctx, cancel := context.WithCancel(context.Background())
	req, _ := http.NewRequestWithContext(ctx, "POST", w.srv.URL+"/v1/memories/batch", pr)
	req.Header.Set("Authorization", "Bearer "+w.keys["alice"])
	var wg sync.WaitGroup
	wg.Go(func() {
		pw.Write(body[:len(body)/2])
		cancel()
		pw.CloseWithError(context.Canceled)
	})
	if resp, err := w.srv.Client().Do(req); err == nil {
		resp.Body.Close()
		if resp.StatusCode < 400 {
			t.Errorf("a cancelled half batch answered %d", resp.StatusCode)
		}
	}
	wg.Wait()
	settle(t, w, 0)

	// The whole body, then the connection closes before the answer: the
	// batch is stored whole or not at all.
	conn, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	fmt.Fprintf(conn, "%sContent-Length: %d\r\n\r\n%s", head, len(body), body)
	conn.Close()
	if n := settle(t, w, -1); n != 0 && n != 200 {
		t.Errorf("a batch of 200 left %d memories", n)
	}

	// And the server still serves a whole batch.
	before := w.count(t)
	conn, err = net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	fmt.Fprintf(conn, "%sContent-Length: %d\r\n\r\n%s", head, len(body), body)
	resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 201 || w.count(t)-before != 200 {
		t.Errorf("a whole batch: %d, %d memories added", resp.StatusCode, w.count(t)-before)
	}
}

// settle waits until the store's count stops changing and returns it; want
// ≥ 0 is checked.
func settle(t *testing.T, w *world, want int) int {
	t.Helper()
	n, stable := w.count(t), 0
	for stable < 5 {
		time.Sleep(20 * time.Millisecond)
		if m := w.count(t); m == n {
			stable++
		} else {
			n, stable = m, 0
		}
	}
	if want >= 0 && n != want {
		t.Errorf("the store holds %d memories, want %d", n, want)
	}
	return n
}
