package server

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/memgate/memgate"
	"github.com/memgate/memgate/auth"
	"github.com/memgate/memgate/index"
	"github.com/memgate/memgate/index/weaviate"
	"github.com/memgate/memgate/store/postgres"
	"github.com/memgate/memgate/store/postgres/pgtest"
)

// TestReplicasShareTheStore runs two servers, each with its own engine and
// in-memory index, over one PostgreSQL database (MEMGATE_TEST_POSTGRES; see
// scripts/scaleout-up.sh): a revocation or forgetting through replica A is
// effective for a search through replica B at once, because every candidate
// is re-read from the store, whatever B's index still holds.
//
// With MEMGATE_TEST_WEAVIATE set it runs again with both replicas on one
// Weaviate index, kept in step through the store's outbox: B then finds
// what A wrote without loading anything.
func TestReplicasShareTheStore(t *testing.T) {
	pgtest.ServerURL(t) // skips without a server
	t.Run("exact", func(t *testing.T) { testReplicas(t, pgtest.Fresh(t), nil) })
	t.Run("weaviate", func(t *testing.T) {
		w := os.Getenv("MEMGATE_TEST_WEAVIATE")
		if w == "" {
			t.Skip("MEMGATE_TEST_WEAVIATE is not set")
		}
		u, err := url.Parse(w)
		if err != nil {
			t.Fatal(err)
		}
		q := u.Query()
		q.Set("class", fmt.Sprintf("MemgateReplica%d", time.Now().UnixNano()))
		u.RawQuery = q.Encode()
		testReplicas(t, pgtest.Fresh(t), func(dim int) index.Index {
			x, err := weaviate.New(t.Context(), u.String(), dim)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { x.DropClass(context.Background()) })
			return x
		})
	})
}

func testReplicas(t *testing.T, pg string, newIndex func(int) index.Index) {
	ctx := context.Background()
	user := fmt.Sprintf("replica-%d", time.Now().UnixNano())
	var plain string
	replica := func() *fixture {
		st, err := postgres.Open(ctx, pg)
		if err != nil {
			t.Fatal(err)
		}
		eng, err := memgate.New(ctx, st, &memgate.Options{NewIndex: newIndex})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { eng.Close() })
		if plain == "" {
			var k auth.Key
			if plain, k, err = auth.NewKey(auth.Principal{ID: "replica-agent", Role: auth.Agent, Users: []string{user}}, time.Now()); err != nil {
				t.Fatal(err)
			}
			if err := st.PutKey(ctx, k); err != nil {
				t.Fatal(err)
			}
		}
		srv := httptest.NewServer(mustNew(t, eng, st, Options{}))
		t.Cleanup(srv.Close)
		return &fixture{srv: srv, alice: plain}
	}
	a, b := replica(), replica()
	search := func(f *fixture) []string {
		code, body := f.call(t, f.alice, "POST", "/v1/search", map[string]any{"query": map[string]any{"text": "window seat on the Lisbon flight"}})
		if code != 200 {
			t.Fatalf("search: %d %v", code, body)
		}
		var ids []string
		for _, c := range body["candidates"].([]any) {
			ids = append(ids, c.(map[string]any)["memory"].(map[string]any)["id"].(string))
		}
		return ids
	}
	add := func(f *fixture, text string) string {
		code, m := f.call(t, f.alice, "POST", "/v1/memories", map[string]any{"text": text})
		if code != 201 {
			t.Fatalf("add: %d %v", code, m)
		}
		return m["id"].(string)
	}
	seat := add(a, "prefers a window seat on the Lisbon flight")
	meal := add(a, "asks for a vegetarian meal on the Lisbon flight")
	if got := search(b); len(got) != 2 {
		t.Fatalf("replica B finds %v, want both memories written through A", got)
	}
	if code, body := a.call(t, a.alice, "POST", "/v1/memories/"+seat+"/revoke", map[string]any{"reason": "changed her mind"}); code != 200 {
		t.Fatalf("revoke through A: %d %v", code, body)
	}
	for _, id := range search(b) {
		if id == seat {
			t.Fatalf("replica B still returns %s, revoked through A", seat)
		}
	}
	if code, body := a.call(t, a.alice, "DELETE", "/v1/memories/"+meal, nil); code != 200 {
		t.Fatalf("forget through A: %d %v", code, body)
	}
	if got := search(b); len(got) != 0 {
		t.Fatalf("replica B returns %v after A revoked one memory and forgot the other", got)
	}
	if code, _ := b.call(t, b.alice, "GET", "/v1/memories/"+meal, nil); code != 404 {
		t.Errorf("replica B reads a memory forgotten through A: %d", code)
	}
	resp, err := http.Get(a.srv.URL + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	metrics, _ := io.ReadAll(resp.Body)
	for _, want := range []string{"memgate_index_outbox_pending 0", "memgate_index_lag_seconds 0", "memgate_index_applied_total"} {
		if got := strings.Contains(string(metrics), want); got != (newIndex != nil) {
			t.Errorf("/metrics of replica A shows %q: %v, want %v (the index follows the store: %v)", want, got, newIndex != nil, newIndex != nil)
		}
	}
}
