package server

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/memgate/memgate"
	"github.com/memgate/memgate/auth"
	"github.com/memgate/memgate/index/weaviate"
	"github.com/memgate/memgate/memory"
	"github.com/memgate/memgate/store/mem"
)

// fixture is a server over an in-memory store with keys for two tenants.
type fixture struct {
	srv          *httptest.Server
	alice, bob   string // agent keys acting for users alice and bob
	aliceReview  string // a reviewer key for alice
	multi, admin string // an agent for alice and bob; an admin for all
}

func newFixture(t *testing.T, o Options) *fixture {
	t.Helper()
	ctx := context.Background()
	st := mem.New()
	eng, err := memgate.New(ctx, st, &memgate.Options{Now: func() time.Time { return time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC) }})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { eng.Close() })
	key := func(p auth.Principal) string {
		plain, k, err := auth.NewKey(p, time.Now())
		if err != nil {
			t.Fatal(err)
		}
		if err := st.PutKey(ctx, k); err != nil {
			t.Fatal(err)
		}
		return plain
	}
	f := &fixture{
		alice:       key(auth.Principal{ID: "agent-a", Role: auth.Agent, Users: []string{"alice"}}),
		bob:         key(auth.Principal{ID: "agent-b", Role: auth.Agent, Users: []string{"bob"}}),
		aliceReview: key(auth.Principal{ID: "rev-a", Role: auth.Reviewer, Users: []string{"alice"}}),
		multi:       key(auth.Principal{ID: "agent-ab", Role: auth.Agent, Users: []string{"alice", "bob"}}),
		admin:       key(auth.Principal{ID: "root", Role: auth.Admin, Users: []string{auth.AllUsers}}),
	}
	f.srv = httptest.NewServer(mustNew(t, eng, st, o))
	t.Cleanup(f.srv.Close)
	return f
}

// call sends a request and decodes the JSON answer.
func (f *fixture) call(t *testing.T, key, method, path string, body any) (int, map[string]any) {
	t.Helper()
	var rd io.Reader
	if body != nil {
		b, _ := json.Marshal(body)
		rd = bytes.NewReader(b)
	}
	req, _ := http.NewRequest(method, f.srv.URL+path, rd)
	if key != "" {
		req.Header.Set("Authorization", "Bearer "+key)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var out map[string]any
	raw, _ := io.ReadAll(resp.Body)
	if len(raw) > 0 && json.Unmarshal(raw, &out) != nil {
		t.Fatalf("%s %s: not JSON: %s", method, path, raw)
	}
	return resp.StatusCode, out
}

func TestAuthentication(t *testing.T) {
	f := newFixture(t, Options{})
	for _, key := range []string{"", "nonsense", "mgk_aaaaaaaaaaaaaaaa_" + strings.Repeat("b", 52), f.alice + "x"} {
		if code, body := f.call(t, key, "GET", "/v1/memories", nil); code != 401 {
			t.Errorf("key %q: %d %v, want 401", key, code, body)
		}
	}
	if code, _ := f.call(t, f.alice, "GET", "/v1/memories", nil); code != 200 {
		t.Errorf("a valid key: %d", code)
	}
	if code, _ := f.call(t, f.alice, "GET", "/v1/audit", nil); code != 403 {
		t.Errorf("an agent read the audit trail: %d", code)
	}
}

// TestForeignIDsReadLikeMissingOnes: bob's key cannot read, revoke or
// forget alice's memory, and each answer is the one a missing id gets.
func TestForeignIDsReadLikeMissingOnes(t *testing.T) {
	f := newFixture(t, Options{})
	code, m := f.call(t, f.alice, "POST", "/v1/memories", map[string]any{"text": "alice's flight is on Friday"})
	if code != 201 {
		t.Fatalf("add: %d %v", code, m)
	}
	id := m["id"].(string)
	if m["userId"] != "alice" || m["sourceAuthority"] != "tool_verified" {
		t.Errorf("stored as %v / %v, want alice / tool_verified (the agent's cap)", m["userId"], m["sourceAuthority"])
	}
	for _, tc := range []struct{ method, path string }{
		{"GET", "/v1/memories/%s"},
		{"POST", "/v1/memories/%s/revoke"},
		{"DELETE", "/v1/memories/%s"},
	} {
		codeF, foreign := f.call(t, f.bob, tc.method, strings.Replace(tc.path, "%s", id, 1), nil)
		codeM, missing := f.call(t, f.bob, tc.method, strings.Replace(tc.path, "%s", "does-not-exist", 1), nil)
		fe, _ := json.Marshal(foreign["error"].(map[string]any)["code"])
		me, _ := json.Marshal(missing["error"].(map[string]any)["code"])
		if codeF != 404 || codeF != codeM || string(fe) != string(me) {
			t.Errorf("%s %s: foreign %d %v, missing %d %v", tc.method, tc.path, codeF, foreign, codeM, missing)
		}
		fm := foreign["error"].(map[string]any)["message"].(string)
		mm := missing["error"].(map[string]any)["message"].(string)
		if strings.ReplaceAll(fm, id, "X") != strings.ReplaceAll(mm, "does-not-exist", "X") {
			t.Errorf("%s %s: messages differ: %q vs %q", tc.method, tc.path, fm, mm)
		}
	}
	if code, body := f.call(t, f.bob, "GET", "/v1/memories?userId=alice", nil); code != 403 {
		t.Errorf("bob listed alice: %d %v", code, body)
	}
	if code, _ := f.call(t, f.alice, "GET", "/v1/memories/"+id, nil); code != 200 {
		t.Errorf("alice cannot read her own memory: %d", code)
	}
}

func TestAuthorityCap(t *testing.T) {
	f := newFixture(t, Options{})
	code, body := f.call(t, f.alice, "POST", "/v1/memories", map[string]any{"text": "I am the system", "sourceAuthority": "system"})
	if code != 403 {
		t.Errorf("agent wrote a system memory: %d %v", code, body)
	}
	lower := newFixture(t, Options{LowerAuthority: true})
	code, body = lower.call(t, lower.alice, "POST", "/v1/memories", map[string]any{"text": "I am the system", "sourceAuthority": "system"})
	if code != 201 || body["sourceAuthority"] != "tool_verified" {
		t.Errorf("lowered write: %d %v", code, body)
	}
}

func TestAdmitTakesThePrincipalFromTheKey(t *testing.T) {
	f := newFixture(t, Options{})
	f.call(t, f.alice, "POST", "/v1/memories", map[string]any{"text": "alice prefers aisle seats on flights"})
	code, body := f.call(t, f.alice, "POST", "/v1/admit", map[string]any{
		"context": map[string]any{"taskId": "t1", "principal": map[string]any{"id": "someone-else", "roles": []string{"admin"}}},
		"query":   map[string]any{"text": "book a flight seat"},
	})
	if code != 200 {
		t.Fatalf("admit: %d %v", code, body)
	}
	p := body["admission"].(map[string]any)["context"].(map[string]any)["principal"].(map[string]any)
	if p["id"] != "agent-a" || len(p["roles"].([]any)) != 1 || p["roles"].([]any)[0] != "agent" {
		t.Errorf("principal %v, want the key's", p)
	}
	if items := body["admission"].(map[string]any)["items"].([]any); len(items) != 1 {
		t.Errorf("items %v", items)
	}
}

func TestBadInput(t *testing.T) {
	f := newFixture(t, Options{MaxBodyBytes: 1 << 10})
	cases := []struct {
		body        string
		code        int
		field       string
		description string
	}{
		{`{"text": "x", "colour": "red"}`, 400, "colour", "unknown field"},
		{`{"text": 5}`, 400, "text", "wrong type"},
		{`{"text": "x"} {"text": "y"}`, 400, "body", "two objects"},
		{``, 400, "body", "empty"},
		{`{"text": "` + strings.Repeat("x", 2000) + `"}`, 413, "", "oversize"},
	}
	for _, c := range cases {
		req, _ := http.NewRequest("POST", f.srv.URL+"/v1/memories", strings.NewReader(c.body))
		req.Header.Set("Authorization", "Bearer "+f.alice)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		var out errorBody
		json.NewDecoder(resp.Body).Decode(&out)
		resp.Body.Close()
		if resp.StatusCode != c.code || out.Error.Field != c.field {
			t.Errorf("%s: %d field %q (%s), want %d field %q", c.description, resp.StatusCode, out.Error.Field, out.Error.Message, c.code, c.field)
		}
	}
}

// TestMetrics: /metrics counts requests by route and status and decisions
// by decision, reason and task bucket, without a key.
func TestMetrics(t *testing.T) {
	f := newFixture(t, Options{})
	f.call(t, f.alice, "POST", "/v1/memories", map[string]any{"text": "alice prefers aisle seats on flights"})
	if code, body := f.call(t, f.alice, "POST", "/v1/admit", map[string]any{"context": map[string]any{"taskId": "t"},
		"query": map[string]any{"text": "book a flight seat"}}); code != 200 {
		t.Fatalf("admit: %d %v", code, body)
	}
	f.call(t, "", "GET", "/v1/memories", nil) // a 401
	resp, err := http.Get(f.srv.URL + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	for _, want := range []string{
		`memgate_http_requests_total{route="POST /v1/memories",status="201"} 1`,
		`memgate_http_requests_total{route="GET /v1/memories",status="401"} 1`,
		`memgate_decisions_total{bucket="answer×none",decision="admit",reason="within_policy"} 1`,
		`memgate_http_request_duration_seconds_count{route="POST /v1/admit"} 1`,
	} {
		if !strings.Contains(string(raw), want) {
			t.Errorf("/metrics lacks %s", want)
		}
	}
}

// TestSeparateMetrics: with SeparateMetrics the API's listener has no
// /metrics (404, as any unknown route), and MetricsHandler serves them,
// counting the API's requests.
func TestSeparateMetrics(t *testing.T) {
	eng, err := memgate.New(context.Background(), mem.New(), nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { eng.Close() })
	s := mustNew(t, eng, eng.Store().(auth.Store), Options{SeparateMetrics: true})
	api := httptest.NewServer(s)
	t.Cleanup(api.Close)
	metrics := httptest.NewServer(s.MetricsHandler())
	t.Cleanup(metrics.Close)
	resp, err := http.Get(api.URL + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusNotFound {
		t.Errorf("GET /metrics on the API: %d, want 404", resp.StatusCode)
	}
	if resp, err = http.Get(api.URL + "/v1/memories"); err != nil { // a 401, counted
		t.Fatal(err)
	}
	resp.Body.Close()
	resp, err = http.Get(metrics.URL + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	if want := `memgate_http_requests_total{route="GET /v1/memories",status="401"} 1`; resp.StatusCode != 200 || !strings.Contains(string(raw), want) {
		t.Errorf("metrics listener: %d, want 200 with %s:\n%s", resp.StatusCode, want, raw)
	}
}

// TestSQLiteGauges: on the SQLite store, /metrics shows the audit
// writer's queue and the backlog of the audit trail's index by memory.
func TestSQLiteGauges(t *testing.T) {
	ctx := context.Background()
	eng, err := memgate.Open(ctx, filepath.Join(t.TempDir(), "m.db"), nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { eng.Close() })
	keys, ok := eng.Store().(auth.Store)
	if !ok {
		t.Fatal("the SQLite store keeps no API keys")
	}
	srv := httptest.NewServer(mustNew(t, eng, keys, Options{}))
	t.Cleanup(srv.Close)
	resp, err := http.Get(srv.URL + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	for _, want := range []string{"\nmemgate_audit_queue 0\n", "\nmemgate_audit_memory_index_backlog 0\n"} {
		if !strings.Contains(string(raw), want) {
			t.Errorf("/metrics lacks %q", strings.TrimSpace(want))
		}
	}
}

// TestReadiness checks that /readyz answers 503, naming the index, while a
// remote index cannot be reached, and 200 once it can (with a Weaviate
// server: MEMGATE_TEST_WEAVIATE); and 200 for the in-process index.
func TestReadiness(t *testing.T) {
	f := newFixture(t, Options{})
	if code, body := f.call(t, "", "GET", "/readyz", nil); code != http.StatusOK {
		t.Fatalf("in-process index: /readyz = %d %v", code, body)
	}

	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	down := ln.Addr().String() // nothing listens once closed
	ln.Close()
	ready := func(indexURL string) (int, map[string]any) {
		t.Helper()
		eng, err := memgate.New(context.Background(), mem.New(), &memgate.Options{NewIndex: weaviate.Constructor(indexURL)})
		if err != nil {
			t.Fatal(err)
		}
		defer eng.Close()
		srv := httptest.NewServer(mustNew(t, eng, mem.New(), Options{}))
		defer srv.Close()
		g := &fixture{srv: srv}
		return g.call(t, "", "GET", "/readyz", nil)
	}
	code, body := ready("weaviate://" + down)
	if code != http.StatusServiceUnavailable || !strings.Contains(fmt.Sprint(body), "the index is not ready") {
		t.Fatalf("unreachable index: /readyz = %d %v; want 503 naming the index", code, body)
	}
	if strings.Contains(fmt.Sprint(body), down) {
		t.Fatalf("/readyz tells an unauthenticated caller the index's address: %v", body)
	}
	w := os.Getenv("MEMGATE_TEST_WEAVIATE")
	if w == "" {
		t.Skip("MEMGATE_TEST_WEAVIATE is not set: the reachable case is not run")
	}
	u, err := url.Parse(w)
	if err != nil {
		t.Fatal(err)
	}
	q := u.Query()
	q.Set("class", fmt.Sprintf("MemgateReady%d", time.Now().UnixNano()))
	u.RawQuery = q.Encode()
	if code, body := ready(u.String()); code != http.StatusOK {
		t.Fatalf("reachable index: /readyz = %d %v", code, body)
	}
}

// TestNestedFieldsAreNamedFromTheTop checks that a bad value deep in a body
// is named by its whole path, array indices included, not by its own name:
// a caller sending 50 candidates must learn which one is wrong.
func TestNestedFieldsAreNamedFromTheTop(t *testing.T) {
	f := newFixture(t, Options{})
	ctx := map[string]any{"taskId": "t", "intent": "answer", "toolRisk": "none"}
	ok := map[string]any{"memory": map[string]any{"id": "c0", "userId": "alice", "text": "fine"}}
	gate := func(bad map[string]any) map[string]any {
		return map[string]any{"context": ctx, "query": "x", "candidates": []any{ok, map[string]any{"memory": bad}}}
	}
	cases := []struct {
		path  string
		body  any
		field string
	}{
		{"/v1/gate/admit", gate(map[string]any{"id": "c1", "userId": "alice", "text": "x", "kind": "bogus"}), "candidates[1].memory.kind"},
		{"/v1/gate/admit", gate(map[string]any{"id": "c1", "userId": "alice", "text": "x", "createdAt": "yesterday"}), "candidates[1].memory.createdAt"},
		// The same bad value earlier in the body, under another name, does
		// not mislead: the member named by the error is found.
		{"/v1/gate/admit", gate(map[string]any{"id": "c1", "userId": "alice", "text": "bogus", "classification": "bogus"}), "candidates[1].memory.classification"},
		{"/v1/gate/admit", gate(map[string]any{"id": "c1", "userId": "alice", "text": ""}), "candidates[1].memory.text"},
		{"/v1/gate/admit", gate(map[string]any{"id": "c0", "userId": "alice", "text": "again"}), "candidates[1].memory.id"},
		{"/v1/admit", map[string]any{"context": map[string]any{"taskId": "t", "intent": "bogus", "toolRisk": "none"}, "query": map[string]any{"text": "x"}}, "context.intent"},
	}
	for _, tc := range cases {
		code, out := f.call(t, f.alice, "POST", tc.path, tc.body)
		e, _ := out["error"].(map[string]any)
		if code != http.StatusBadRequest || e["field"] != tc.field {
			t.Errorf("%s: %d %v; want 400 naming %s", tc.path, code, out, tc.field)
		}
	}
}

// FuzzFieldPath feeds fieldPath any document and any field name: it reads
// bodies that failed to decode, so it must never panic, and a path it
// returns must end with the name it looked for.
func FuzzFieldPath(f *testing.F) {
	for _, s := range []string{`{"a":{"b":[1,{"kind":"x"}]}}`, `{"":""}000`, `[{"kind":"bogus"}]`, `"kind"`, `}}]]`, `{"kind":`} {
		f.Add([]byte(s), "kind", `unknown value "bogus"`)
	}
	f.Fuzz(func(t *testing.T, data []byte, field, problem string) {
		p := fieldPath(data, &memory.FieldError{Field: field, Problem: problem})
		if p != "" && !strings.HasSuffix(p, field) {
			t.Fatalf("fieldPath(%q, %q) = %q", data, field, p)
		}
	})
}

// mustNew is New for options a test knows to be valid.
func mustNew(t testing.TB, eng *memgate.Engine, keys auth.Store, o Options) *Server {
	t.Helper()
	s, err := New(eng, keys, o)
	if err != nil {
		t.Fatal(err)
	}
	return s
}
