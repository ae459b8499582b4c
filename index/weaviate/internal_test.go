package weaviate

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/weaviate/weaviate-go-client/v5/weaviate/except"
	"github.com/weaviate/weaviate-go-client/v5/weaviate/fault"

	"github.com/memgate/memgate/index/exact"
	"github.com/memgate/memgate/memory"
	"github.com/memgate/memgate/retrieve"
)

// TestTenant checks the tenant names of users: valid Weaviate tenant names,
// readable for plain ids, and distinct for distinct users.
func TestTenant(t *testing.T) {
	users := []string{"alice", "Alice", "a_b", "a-b", "a b", "ü", strings.Repeat("x", 62), strings.Repeat("x", 63), "u-alice", "h-x"}
	seen := map[string]string{}
	valid := func(s string) bool {
		if len(s) == 0 || len(s) > 64 {
			return false
		}
		for _, r := range s {
			if !('a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' || '0' <= r && r <= '9' || r == '-' || r == '_') {
				return false
			}
		}
		return true
	}
	for _, u := range users {
		tn := tenant(u)
		if !valid(tn) {
			t.Errorf("tenant(%q) = %q, not a valid tenant name", u, tn)
		}
		if other, ok := seen[tn]; ok {
			t.Errorf("users %q and %q share tenant %q", u, other, tn)
		}
		seen[tn] = u
	}
	if got := tenant("alice"); got != "u-alice" {
		t.Errorf("tenant(alice) = %q, want u-alice", got)
	}
}

// TestObjectID checks that object ids are deterministic and distinct.
func TestObjectID(t *testing.T) {
	if objectID("m1") != objectID("m1") || objectID("m1") == objectID("m2") {
		t.Error("objectID is not a deterministic, distinct UUID per memory id")
	}
}

// TestScopeWhere checks the shape of the scope filter: none without labels,
// one (label or null) per set axis, joined with And.
func TestScopeWhere(t *testing.T) {
	if w := scopeWhere(memory.Filter{UserID: "u"}); w != nil {
		t.Errorf("scopeWhere without labels = %+v, want nil", w.Build())
	}
	one := scopeWhere(memory.Filter{UserID: "u", ProjectID: "p"}).Build()
	if one.Operator != "Or" || len(one.Operands) != 2 {
		t.Errorf("scopeWhere with a project = %+v, want an Or of two", one)
	}
	three := scopeWhere(memory.Filter{UserID: "u", WorkspaceID: "w", ProjectID: "p", Domain: "d"}).Build()
	if three.Operator != "And" || len(three.Operands) != 3 {
		t.Errorf("scopeWhere with three labels = %+v, want an And of three", three)
	}
}

// TestConstructorFails checks that a constructor whose server cannot be
// reached yields an index that fails every call instead of panicking.
func TestConstructorFails(t *testing.T) {
	x := Constructor("weaviate://127.0.0.1:1")(4)
	ctx := context.Background()
	if err := x.Upsert(ctx); err == nil {
		t.Error("Upsert on an unreachable server: no error")
	}
	if _, err := x.Search(ctx, memory.Filter{UserID: "u"}, make([]float32, 4), 1); err == nil {
		t.Error("Search on an unreachable server: no error")
	}
	if _, err := x.Vectors(ctx, "u", []string{"a"}); err == nil {
		t.Error("Vectors on an unreachable server: no error")
	}
}

// TestQueryTerms checks which words Lexical counts: the exact index's
// content words, lowercased, without stopwords, distinct and sorted.
func TestQueryTerms(t *testing.T) {
	for _, c := range []struct {
		query string
		want  []string
	}{
		{"", nil},
		{"  ,!? ", nil},
		{"the and of", nil},
		{"Glacier, harbor! glacier", []string{"glacier", "harbor"}},
		{"日本 42", []string{"42", "日", "本"}},
		{"O'Brien don't Straße", []string{"o'brien", "straße"}},
	} {
		if got := queryTerms(c.query); !slices.Equal(got, c.want) {
			t.Errorf("queryTerms(%q) = %q, want %q", c.query, got, c.want)
		}
	}
}

// TestBM25MatchesExact checks the BM25 arithmetic of Lexical against the
// exact index's, without a server: statistics counted from the texts as
// Weaviate counts them (entries, summed termCount, document frequencies)
// must give every entry the exact index's score, bit for bit.
func TestBM25MatchesExact(t *testing.T) {
	ctx := context.Background()
	texts := []string{
		"ledger anchor ledger", "the ledger", "anchor beacon cinder dune ember", "", "the and of",
		"Café naïve café", "日本語 ledger", "anchor anchor anchor anchor", "beacon", "o'brien's ledger anchor",
	}
	x := exact.New(2)
	var docs [][]string
	for i, text := range texts {
		if err := x.Upsert(ctx, retrieve.Entry{ID: fmt.Sprintf("m%02d", i), UserID: "u", Text: text, Vector: []float32{1, 0}}); err != nil {
			t.Fatal(err)
		}
		docs = append(docs, docTerms(strings.Join(analyze(text), " ")))
	}
	long := make([]string, 0, exact.MaxQueryTerms+10)
	for i := range exact.MaxQueryTerms + 5 {
		long = append(long, fmt.Sprintf("a%02d", i))
	}
	for _, query := range []string{"ledger", "anchor ledger", "café beacon 語 unknown", "the", strings.Join(long, " ") + " ledger zz"} {
		words := queryTerms(query)
		st := &bm25Stats{n: int64(len(texts))}
		df := make([]int64, len(words))
		for _, d := range docs {
			st.totalLen += int64(len(d))
			for i, w := range words {
				if slices.Contains(d, w) {
					df[i]++
				}
			}
		}
		st.use(words, df)
		want, err := x.Lexical(ctx, memory.Filter{UserID: "u"}, query, len(texts))
		if err != nil {
			t.Fatal(err)
		}
		wantScore := map[string]float64{}
		for _, h := range want {
			wantScore[h.ID] = h.Score
		}
		for i, d := range docs {
			id := fmt.Sprintf("m%02d", i)
			if got := float64(st.score(d)); got != wantScore[id] {
				t.Errorf("query %q: %s scores %v, the exact index %v", query, id, got, wantScore[id])
			}
		}
	}
}

// TestStatsUse checks that the words that count are the first
// exact.MaxQueryTerms (in sorted order) that occur, and that use says
// whether later words could still count.
func TestStatsUse(t *testing.T) {
	words := make([]string, exact.MaxQueryTerms+4)
	df := make([]int64, len(words))
	for i := range words {
		words[i] = fmt.Sprintf("w%02d", i)
		df[i] = int64(i % 2) // every other word occurs
	}
	var st bm25Stats
	if more := st.use(words[:10], df[:10]); !more || len(st.terms) != 5 {
		t.Errorf("after 10 words: %d words count, more = %v; want 5, true", len(st.terms), more)
	}
	// Fewer than exact.MaxQueryTerms occur: more words would count.
	if more := st.use(words[10:], df[10:]); !more || len(st.terms) != (exact.MaxQueryTerms+4)/2 {
		t.Errorf("after all words: %d words count, more = %v; want %d, true", len(st.terms), more, (exact.MaxQueryTerms+4)/2)
	}
	long := make([]string, 2*exact.MaxQueryTerms)
	ones := make([]int64, len(long))
	for i := range long {
		long[i], ones[i] = fmt.Sprintf("l%02d", i), 1
	}
	st = bm25Stats{}
	if more := st.use(long, ones); more || len(st.terms) != exact.MaxQueryTerms || st.terms[exact.MaxQueryTerms-1] != long[exact.MaxQueryTerms-1] {
		t.Errorf("with %d words that all occur: %d count (last %q), more = %v", len(long), len(st.terms), st.terms[len(st.terms)-1], more)
	}
}

// TestNumber checks the reading of aggregate counts and sums.
func TestNumber(t *testing.T) {
	m := map[string]any{"meta": map[string]any{"count": 3.0}, "termCount": map[string]any{"sum": nil},
		"bad": map[string]any{"sum": 1.5}}
	for _, c := range []struct {
		path []string
		want int64
		ok   bool
	}{
		{[]string{"meta", "count"}, 3, true},
		{[]string{"termCount", "sum"}, 0, true},
		{[]string{"bad", "sum"}, 0, false},
		{[]string{"meta", "missing"}, 0, false},
	} {
		got, err := number(m, c.path...)
		if got != c.want || (err == nil) != c.ok {
			t.Errorf("number(%v) = %d, %v; want %d, ok %v", c.path, got, err, c.want, c.ok)
		}
	}
}

// TestPlainErrors: the client's errors read plainly, and keep what callers
// look for: the context's error under a request that timed out, the
// client's error (and its status) under one the server refused.
func TestPlainErrors(t *testing.T) {
	timeout := fmt.Errorf("Get %q: %w", "http://127.0.0.1:1/v1/schema", context.DeadlineExceeded)
	derived := fmt.Errorf("weaviate index: search: %w", plain(except.NewDerivedWeaviateClientError(timeout)))
	if want := `weaviate index: search: Get "http://127.0.0.1:1/v1/schema": context deadline exceeded`; derived.Error() != want {
		t.Errorf("derived error reads %q, want %q", derived, want)
	}
	if !errors.Is(derived, context.DeadlineExceeded) {
		t.Error("errors.Is does not find the deadline under the client's error")
	}
	status := fmt.Errorf("weaviate index: checking collection: %w", plain(except.NewWeaviateClientError(401, `{"message":"anonymous access not enabled"}`+"\n")))
	if want := `weaviate index: checking collection: HTTP 401: {"message":"anonymous access not enabled"}`; status.Error() != want {
		t.Errorf("status error reads %q, want %q", status, want)
	}
	var ce *fault.WeaviateClientError
	if !errors.As(status, &ce) || ce.StatusCode != 401 {
		t.Errorf("errors.As does not find the client's error: %v", status)
	}
	if !strings.Contains(refused(status, false).Error(), EnvAPIKey) {
		t.Errorf("a 401 does not name %s: %v", EnvAPIKey, refused(status, false))
	}
	other := errors.New("not the client's")
	if plain(other) != other || plain(nil) != nil {
		t.Error("plain changed an error that is not the client's")
	}
}

// TestAPIKeyFromEnv: the key loses the spaces and line end a shell or a
// file adds; one with a control character is refused with the variable's
// name and without the key.
func TestAPIKeyFromEnv(t *testing.T) {
	for _, tc := range []struct{ env, want, err string }{
		{"", "", ""},
		{"   ", "", ""},
		{" k3y-1\n", "k3y-1", ""},
		{"k3y\x01", "", EnvAPIKey},
		{"k3y\r\nX-Evil: 1", "", EnvAPIKey},
	} {
		t.Setenv(EnvAPIKey, tc.env)
		got, err := apiKey()
		if got != tc.want || (err == nil) != (tc.err == "") || err != nil && (!strings.Contains(err.Error(), tc.err) || strings.Contains(err.Error(), "k3y")) {
			t.Errorf("%s=%q: key %q, error %v; want %q and an error naming %q", EnvAPIKey, tc.env, got, err, tc.want, tc.err)
		}
	}
}
