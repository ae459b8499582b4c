package openai

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// fakeServer stands in for a paid remote embedding API. It embeds each text as
// [len(text), 1, 2, ...] so tests can check order.
type fakeServer struct {
	dim      int
	requests atomic.Int32
	fail     func(n int32) (status int, retryAfter string) // status 0 means answer normally
	lastAuth atomic.Value
}

func (f *fakeServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	n := f.requests.Add(1)
	f.lastAuth.Store(r.Header.Get("Authorization"))
	if r.URL.Path != "/v1/embeddings" || r.Method != http.MethodPost {
		http.Error(w, "not found", http.StatusNotFound)
		return
	}
	if f.fail != nil {
		if status, ra := f.fail(n); status != 0 {
			if ra != "" {
				w.Header().Set("Retry-After", ra)
			}
			http.Error(w, `{"error":{"message":"slow down"}}`, status)
			return
		}
	}
	var req request
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	type item struct {
		Index     int       `json:"index"`
		Embedding []float32 `json:"embedding"`
	}
	var out struct {
		Data []item `json:"data"`
	}
	// Answer in reverse order: clients must use the index field.
	for i := len(req.Input) - 1; i >= 0; i-- {
		v := make([]float32, f.dim)
		v[0] = float32(len(req.Input[i]))
		for j := 1; j < f.dim; j++ {
			v[j] = float32(j)
		}
		out.Data = append(out.Data, item{Index: i, Embedding: v})
	}
	_ = json.NewEncoder(w).Encode(out)
}

func newClient(t *testing.T, f *fakeServer, cfg Config) (*Client, error) {
	t.Helper()
	srv := httptest.NewServer(f)
	t.Cleanup(srv.Close)
	cfg.BaseURL = srv.URL + "/v1"
	if cfg.Model == "" {
		cfg.Model = "test-embed"
	}
	cfg.Backoff = time.Millisecond
	return New(context.Background(), cfg)
}

func TestProbeAndBatching(t *testing.T) {
	f := &fakeServer{dim: 8}
	c, err := newClient(t, f, Config{BatchSize: 3, APIKey: "sk-test"})
	if err != nil {
		t.Fatal(err)
	}
	if id := c.Identity(); id.Dim != 8 || id.Name != "openai:test-embed" {
		t.Fatalf("identity %+v", id)
	}
	texts := []string{"a", "bb", "ccc", "dddd", "eeeee", "ffffff", "g"}
	vecs, err := c.Embed(context.Background(), texts)
	if err != nil {
		t.Fatal(err)
	}
	for i, v := range vecs {
		if int(v[0]) != len(texts[i]) {
			t.Fatalf("vector %d belongs to another text (v[0]=%v)", i, v[0])
		}
	}
	// 1 probe + ceil(7/3) batches.
	if got := f.requests.Load(); got != 4 {
		t.Fatalf("%d requests, want 4", got)
	}
	if got := f.lastAuth.Load(); got != "Bearer sk-test" {
		t.Fatalf("Authorization %q", got)
	}
}

func TestRetriesTransientErrors(t *testing.T) {
	f := &fakeServer{dim: 4, fail: func(n int32) (int, string) {
		if n <= 2 {
			return http.StatusTooManyRequests, "0"
		}
		if n == 3 {
			return http.StatusServiceUnavailable, ""
		}
		return 0, ""
	}}
	c, err := newClient(t, f, Config{Dimensions: 4})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.Embed(context.Background(), []string{"x"}); err != nil {
		t.Fatalf("Embed after transient errors: %v", err)
	}
	if got := f.requests.Load(); got != 4 {
		t.Fatalf("%d requests, want 4 (3 failures + 1 success)", got)
	}
}

func TestGivesUp(t *testing.T) {
	f := &fakeServer{dim: 4, fail: func(int32) (int, string) { return http.StatusBadGateway, "" }}
	c, err := newClient(t, f, Config{Dimensions: 4, MaxRetries: 2})
	if err != nil {
		t.Fatal(err)
	}
	_, err = c.Embed(context.Background(), []string{"x"})
	if err == nil || !strings.Contains(err.Error(), "gave up after 3 attempts") || !strings.Contains(err.Error(), "HTTP 502") {
		t.Fatalf("err = %v", err)
	}
}

func TestClientErrorIsNotRetried(t *testing.T) {
	f := &fakeServer{dim: 4, fail: func(int32) (int, string) { return http.StatusUnauthorized, "" }}
	_, err := newClient(t, f, Config{})
	if err == nil || !strings.Contains(err.Error(), "HTTP 401") {
		t.Fatalf("err = %v", err)
	}
	if got := f.requests.Load(); got != 1 {
		t.Fatalf("%d requests, want 1: a 401 must not be retried", got)
	}
}

func TestDimensionMismatch(t *testing.T) {
	f := &fakeServer{dim: 4}
	c, err := newClient(t, f, Config{Dimensions: 5})
	if err != nil {
		t.Fatal(err)
	}
	_, err = c.Embed(context.Background(), []string{"x"})
	if !errors.Is(err, errBadResponse) || !strings.Contains(err.Error(), "dimension 4, want 5") {
		t.Fatalf("err = %v", err)
	}
}

func TestCancelStopsRetries(t *testing.T) {
	f := &fakeServer{dim: 4, fail: func(int32) (int, string) { return http.StatusServiceUnavailable, "10" }}
	c, err := newClient(t, f, Config{Dimensions: 4})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	if _, err := c.Embed(ctx, []string{"x"}); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("err = %v, want deadline exceeded", err)
	}
}

func TestConfigErrors(t *testing.T) {
	ctx := context.Background()
	if _, err := New(ctx, Config{}); err == nil || !strings.Contains(err.Error(), "model is required") {
		t.Fatalf("missing model: %v", err)
	}
	if _, err := New(ctx, Config{Model: "m", BaseURL: "localhost:11434"}); err == nil || !strings.Contains(err.Error(), "http://") {
		t.Fatalf("bad URL: %v", err)
	}
	t.Setenv(EnvDim, "abc")
	if _, err := ConfigFromEnv(); err == nil || !strings.Contains(err.Error(), EnvDim) {
		t.Fatalf("bad dim env: %v", err)
	}
}
