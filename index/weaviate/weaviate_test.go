package weaviate_test

import (
	"context"
	"fmt"
	"net/url"
	"os"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/memgate/memgate/index"
	"github.com/memgate/memgate/index/indextest"
	"github.com/memgate/memgate/index/weaviate"
	"github.com/memgate/memgate/memory"
	"github.com/memgate/memgate/retrieve"
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

// withClass returns the server URL base with its collection set to class.
func withClass(t testing.TB, base, class string) string {
	t.Helper()
	u, err := url.Parse(base)
	if err != nil {
		t.Fatalf("MEMGATE_TEST_WEAVIATE: %v", err)
	}
	q := u.Query()
	q.Set("class", class)
	u.RawQuery = q.Encode()
	return u.String()
}

// fresh returns a new index on a collection of its own, dropped when t ends.
func fresh(t testing.TB, dim int) *weaviate.Index {
	t.Helper()
	u := withClass(t, serverURL(t), fmt.Sprintf("MemgateTest%d_%d", time.Now().UnixNano(), seq.Add(1)))
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	x, err := weaviate.New(ctx, u, dim)
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

// TestAPIKey: against a server that requires an API key (scaleout-up.sh
// starts one and exports MEMGATE_WEAVIATE_API_KEY), New without a key, or
// with a wrong one, fails and says which variable to set or check; with
// the key it connects, and the index works over HTTP and gRPC alike.
func TestAPIKey(t *testing.T) {
	base := serverURL(t)
	key := strings.TrimSpace(os.Getenv(weaviate.EnvAPIKey))
	if key == "" {
		t.Skip(weaviate.EnvAPIKey + " is not set: the test server takes anonymous requests")
	}
	u := withClass(t, base, fmt.Sprintf("MemgateKey%d", time.Now().UnixNano()))
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	for _, tc := range []struct{ key, want string }{
		{"", "the server wants an API key: set " + weaviate.EnvAPIKey},
		{key + "x", "the server refused the API key in " + weaviate.EnvAPIKey},
	} {
		t.Setenv(weaviate.EnvAPIKey, tc.key)
		_, err := weaviate.New(ctx, u, 2)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("New with key %q: %v, want an error saying %q", tc.key, err, tc.want)
		}
		if err != nil && tc.key != "" && strings.Contains(err.Error(), tc.key) {
			t.Errorf("the error shows the key: %v", err)
		}
	}
	t.Setenv(weaviate.EnvAPIKey, key)
	x := fresh(t, 2)
	f := memory.Filter{UserID: "u"}
	if err := x.Upsert(ctx, retrieve.Entry{ID: "a", UserID: "u", Vector: []float32{1, 0}, Text: "key holder"}); err != nil {
		t.Fatalf("add with the key: %v", err)
	}
	hits, err := x.Search(ctx, f, []float32{1, 0}, 1)
	if err != nil || len(hits) != 1 || hits[0].ID != "a" {
		t.Fatalf("search with the key: %v, %v", hits, err)
	}
}

// TestNewRejects checks URLs New refuses before any request.
func TestNewRejects(t *testing.T) {
	for _, u := range []string{"ftp://h:1", "http://", "weaviate://h:1?grpc=x", "weaviate://h:1?class=lower",
		"weaviate://h:1?flatcutoff=0", "weaviate://h:1?flatcutoff=many", "weaviate://s3cretkey@h:1", "https://:s3cretkey@h:1",
		"weaviate://s3cretkey%zz@h:1", "https://:s3cretkey@h:x1", "weaviate://s3cretkey key@h:1",
		"weaviate://h:1/%zz?apikey=s3cretkey"} {
		_, err := weaviate.New(context.Background(), u, 4)
		if err == nil {
			t.Errorf("New(%q): no error", u)
		} else if strings.Contains(err.Error(), "s3cretkey") {
			t.Errorf("New(%q): the error shows the key: %v", u, err)
		}
	}
	if _, err := weaviate.New(context.Background(), "weaviate://h:1", 0); err == nil {
		t.Error("New with dimension 0: no error")
	}
}

// TestReplaceUserPages checks that ReplaceUser finds the stale entries of
// a tenant listed in many pages (Weaviate's cursor), and removes them in
// many requests: afterwards the user has exactly the new entries, and
// another user keeps theirs.
func TestReplaceUserPages(t *testing.T) {
	x := fresh(t, 2)
	defer weaviate.SetListPage(3)()
	ctx := context.Background()
	entry := func(user string, i int) retrieve.Entry {
		return retrieve.Entry{ID: fmt.Sprintf("m%02d", i), UserID: user, Text: "ledger", Vector: []float32{1, float32(i) / 100}}
	}
	var old []retrieve.Entry
	for i := range 11 {
		old = append(old, entry("u", i))
	}
	if err := x.Upsert(ctx, append(old, entry("other", 1))...); err != nil {
		t.Fatal(err)
	}
	// Keep m02 and m07, add m20 to m23; m20 twice (the later one counts).
	keep := []retrieve.Entry{entry("u", 2), entry("u", 7), entry("u", 20), entry("u", 21), entry("u", 22), entry("u", 23)}
	twice := entry("u", 20)
	twice.Text = "beacon"
	entries := func(yield func(retrieve.Entry, error) bool) {
		for _, e := range append(keep, twice) {
			if !yield(e, nil) {
				return
			}
		}
	}
	if err := x.ReplaceUser(ctx, "u", 0, entries); err != nil {
		t.Fatalf("ReplaceUser: %v", err)
	}
	for _, c := range []struct {
		user string
		want []string
	}{
		{"u", []string{"m02", "m07", "m20", "m21", "m22", "m23"}},
		{"other", []string{"m01"}},
	} {
		hits, err := x.Search(ctx, memory.Filter{UserID: c.user}, []float32{1, 0}, 100)
		if err != nil {
			t.Fatal(err)
		}
		got := make([]string, len(hits))
		for i, h := range hits {
			got[i] = h.ID
		}
		slices.Sort(got)
		if !slices.Equal(got, c.want) {
			t.Errorf("%s after ReplaceUser: %q, want %q", c.user, got, c.want)
		}
	}
	hits, err := x.Lexical(ctx, memory.Filter{UserID: "u"}, "beacon", 10)
	if err != nil || len(hits) != 1 || hits[0].ID != "m20" {
		t.Errorf("Lexical(beacon) = %v, %v; want m20, replaced by the later entry", hits, err)
	}
}
