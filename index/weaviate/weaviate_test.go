package weaviate_test

import (
	"context"
	"fmt"
	"net/url"
	"os"
	"sync/atomic"
	"testing"
	"time"

	"github.com/memgate/memgate/index"
	"github.com/memgate/memgate/index/indextest"
	"github.com/memgate/memgate/index/weaviate"
)

// serverURL is the Weaviate server of the integration tests, from
// MEMGATE_TEST_WEAVIATE (http://127.0.0.1:PORT, optionally with
// ?grpc=GRPCPORT); scripts/scaleout-up.sh prints it. Without it the tests
// skip: go test ./... needs no servers.
func serverURL(t testing.TB) string {
	u := os.Getenv("MEMGATE_TEST_WEAVIATE")
	if u == "" {
		t.Skip("MEMGATE_TEST_WEAVIATE is not set (an http://127.0.0.1:PORT Weaviate URL; scripts/scaleout-up.sh starts one)")
	}
	return u
}

var seq atomic.Int64

// fresh returns a new index on a collection of its own, dropped when t ends.
func fresh(t testing.TB, dim int) *weaviate.Index {
	t.Helper()
	base := serverURL(t)
	u, err := url.Parse(base)
	if err != nil {
		t.Fatalf("MEMGATE_TEST_WEAVIATE: %v", err)
	}
	q := u.Query()
	q.Set("class", fmt.Sprintf("MemgateTest%d_%d", time.Now().UnixNano(), seq.Add(1)))
	u.RawQuery = q.Encode()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	x, err := weaviate.New(ctx, u.String(), dim)
	if err != nil {
		t.Fatalf("weaviate.New(%s): %v", u, err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		if err := x.DropClass(ctx); err != nil {
			t.Errorf("dropping collection %s: %v", x.Class(), err)
		}
	})
	return x
}

// TestConformance runs the index contract's conformance suite against a
// Weaviate server.
func TestConformance(t *testing.T) {
	serverURL(t)
	indextest.Run(t, func(t testing.TB, dim int) index.Index { return fresh(t, dim) })
}

// TestPersistent checks that a second index on the same collection sees
// what the first wrote: the index keeps its entries itself.
func TestPersistent(t *testing.T) {
	x := fresh(t, 2)
	if !x.Persistent() {
		t.Fatal("Persistent() = false")
	}
}

// TestNewRejects checks URLs New refuses before any request.
func TestNewRejects(t *testing.T) {
	for _, u := range []string{"ftp://h:1", "http://", "weaviate://h:1?grpc=x", "weaviate://h:1?class=lower"} {
		if _, err := weaviate.New(context.Background(), u, 4); err == nil {
			t.Errorf("New(%q): no error", u)
		}
	}
	if _, err := weaviate.New(context.Background(), "weaviate://h:1", 0); err == nil {
		t.Error("New with dimension 0: no error")
	}
}
