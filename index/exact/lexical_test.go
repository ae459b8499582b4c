package exact

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/memgate/memgate/memory"
	"github.com/memgate/memgate/retrieve"
)

func hitIDs(hs []retrieve.Hit) []string {
	var ids []string
	for _, h := range hs {
		ids = append(ids, h.ID)
	}
	return ids
}

func TestLexicalScopeAndRanking(t *testing.T) {
	x := New(2)
	v := []float32{1, 0}
	var es []retrieve.Entry
	// Another user's memories match the query far better and more often.
	for i := range 50 {
		es = append(es, retrieve.Entry{ID: fmt.Sprintf("bob%d", i), UserID: "bob", Text: "invoice invoice invoice for the Acme contract", Vector: v})
	}
	es = append(es,
		retrieve.Entry{ID: "a1", UserID: "alice", ProjectID: "acme", Text: "Acme invoice is overdue", Vector: v},
		retrieve.Entry{ID: "a2", UserID: "alice", ProjectID: "globex", Text: "Send the invoice reminder", Vector: v},
		retrieve.Entry{ID: "a3", UserID: "alice", Text: "Every invoice goes through finance, every single invoice", Vector: v},
		retrieve.Entry{ID: "a4", UserID: "alice", Text: "Lunch with the team", Vector: v},
	)
	if err := x.Upsert(context.Background(), es...); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		f    memory.Filter
		q    string
		want []string
	}{
		// "acme" is rare in alice's memories, so a1 ranks first; the short a2
		// beats the long a3 through BM25 length normalisation.
		{memory.Filter{UserID: "alice"}, "acme invoice", []string{"a1", "a2", "a3"}},
		{memory.Filter{UserID: "alice", ProjectID: "acme"}, "acme invoice", []string{"a1", "a3"}},
		{memory.Filter{UserID: "alice", ProjectID: "initech"}, "invoice", []string{"a3"}},
		{memory.Filter{UserID: "carol"}, "invoice", nil},
		{memory.Filter{UserID: "alice"}, `"OR" NEAR( acme* -`, []string{"a1"}},
		{memory.Filter{UserID: "alice"}, "the and of", nil}, // stopwords only
		{memory.Filter{UserID: "alice"}, "!!!", nil},
	}
	for _, tt := range tests {
		hits, err := x.Lexical(context.Background(), tt.f, tt.q, 10)
		if err != nil {
			t.Fatal(err)
		}
		if got := hitIDs(hits); !slices.Equal(got, tt.want) {
			t.Errorf("%+v %q: got %v, want %v", tt.f, tt.q, got, tt.want)
		}
		for _, h := range hits {
			if h.Score <= 0 {
				t.Errorf("non-positive BM25 score %v", h.Score)
			}
		}
	}
	if _, err := x.Lexical(context.Background(), memory.Filter{}, "x", 1); err == nil {
		t.Fatal("lexical search without a user accepted")
	}
}

// After many removals and replacements the inverted index must answer exactly
// as one built from scratch over the surviving entries.
func TestLexicalConsistentAfterRemovals(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 9))
	words := strings.Fields("alpha beta gamma delta epsilon zeta eta theta iota kappa lambda mu")
	text := func() string {
		var b []string
		for range 3 + r.IntN(6) {
			b = append(b, words[r.IntN(len(words))])
		}
		return strings.Join(b, " ")
	}
	live := map[string]retrieve.Entry{}
	x := New(2)
	for i := range 400 {
		e := retrieve.Entry{ID: fmt.Sprintf("m%d", r.IntN(150)), UserID: "u", Text: text(), Vector: []float32{1, 0}}
		if i%3 == 0 {
			if err := x.Remove(context.Background(), "u", e.ID); err != nil {
				t.Fatal(err)
			}
			delete(live, e.ID)
			continue
		}
		if err := x.Upsert(context.Background(), e); err != nil {
			t.Fatal(err)
		}
		live[e.ID] = e
	}
	fresh := New(2)
	for _, e := range live {
		if err := fresh.Upsert(context.Background(), e); err != nil {
			t.Fatal(err)
		}
	}
	for _, q := range []string{"alpha", "beta gamma", "mu lambda kappa", "zeta zeta eta"} {
		a, _ := x.Lexical(context.Background(), memory.Filter{UserID: "u"}, q, 1000)
		b, _ := fresh.Lexical(context.Background(), memory.Filter{UserID: "u"}, q, 1000)
		if len(a) != len(b) {
			t.Fatalf("%q: %d hits after churn, %d fresh", q, len(a), len(b))
		}
		for i := range a {
			if a[i].ID != b[i].ID || a[i].Score-b[i].Score > 1e-4 || b[i].Score-a[i].Score > 1e-4 {
				t.Fatalf("%q: hit %d differs: %+v vs %+v", q, i, a[i], b[i])
			}
		}
	}
}

// BenchmarkLexical20k is one user's BM25 search over 20,000 texts of 20
// words drawn from a vocabulary of 5,000 with Zipf frequencies, as words
// are: "common" is a query of frequent words, which most texts contain
// one of; "rare" one of words a few dozen texts contain.
func BenchmarkLexical20k(b *testing.B) {
	r := rand.New(rand.NewPCG(5, 6))
	zipf := rand.NewZipf(r, 1.1, 2, 4999)
	word := func(i uint64) string { return fmt.Sprintf("w%04d", i) }
	x := New(2)
	es := make([]retrieve.Entry, 20000)
	for i := range es {
		var sb strings.Builder
		for range 20 {
			sb.WriteString(word(zipf.Uint64()))
			sb.WriteByte(' ')
		}
		es[i] = retrieve.Entry{ID: fmt.Sprintf("m%d", i), UserID: "u1", Text: sb.String(), Vector: []float32{1, 0}}
	}
	if err := x.Upsert(context.Background(), es...); err != nil {
		b.Fatal(err)
	}
	for _, tc := range []struct {
		name, q string
		write   bool // rewrite a row before each query
	}{
		{"common", word(0) + " " + word(3) + " " + word(7) + " " + word(12), false},
		{"rare", word(900) + " " + word(1500) + " " + word(2100) + " " + word(3000), false},
		{"common-after-a-write", word(0) + " " + word(3) + " " + word(7) + " " + word(12), true},
	} {
		b.Run(tc.name, func(b *testing.B) {
			b.ReportAllocs()
			i := 0
			for b.Loop() {
				if tc.write {
					i++
					if err := x.Upsert(context.Background(), es[i%len(es)]); err != nil {
						b.Fatal(err)
					}
				}
				if hits, err := x.Lexical(context.Background(), memory.Filter{UserID: "u1"}, tc.q, 50); err != nil || len(hits) == 0 {
					b.Fatalf("%d hits, %v", len(hits), err)
				}
			}
		})
	}
}

// TestLexicalSparseIsDense: offering only the rows a query touched gives
// the hits a pass over every row gives, scopes and ties included.
func TestLexicalSparseIsDense(t *testing.T) {
	r := rand.New(rand.NewPCG(11, 12))
	words := []string{"atlas", "deploy", "friday", "invoice", "dentist", "lisbon", "flight", "report", "acme", "budget", "garden", "piano"}
	dense, sparse := New(2), New(2)
	dense.lexical, sparse.lexical = lexicalDense, lexicalSparse
	var es []retrieve.Entry
	for i := range 3000 {
		var sb strings.Builder
		for range 1 + r.IntN(12) {
			sb.WriteString(words[r.IntN(len(words))] + " ")
		}
		es = append(es, retrieve.Entry{ID: fmt.Sprintf("m%04d", i), UserID: "u", ProjectID: []string{"", "p1", "p2"}[r.IntN(3)],
			Domain: []string{"", "work", "health"}[r.IntN(3)], Text: sb.String(), Vector: []float32{1, 0}})
	}
	for _, x := range []*Index{dense, sparse} {
		if err := x.Upsert(context.Background(), es...); err != nil {
			t.Fatal(err)
		}
	}
	for q := range 200 {
		// Rows change between queries: the dense path's cached norms must
		// follow a new row, a rewritten one and a removed one.
		var sb strings.Builder
		for range 1 + r.IntN(30) {
			sb.WriteString(words[r.IntN(len(words))] + " ")
		}
		e := retrieve.Entry{ID: fmt.Sprintf("n%04d", q), UserID: "u", Text: sb.String(), Vector: []float32{1, 0}}
		for _, x := range []*Index{dense, sparse} {
			var err error
			switch q % 10 {
			case 3: // a new row
				err = x.Upsert(context.Background(), e)
			case 6: // a row rewritten
				e.ID = fmt.Sprintf("m%04d", q)
				err = x.Upsert(context.Background(), e)
			case 9:
				err = x.Remove(context.Background(), "u", fmt.Sprintf("m%04d", q+1))
			}
			if err != nil {
				t.Fatal(err)
			}
		}
		query := words[r.IntN(len(words))] + " " + words[r.IntN(len(words))]
		f := memory.Filter{UserID: "u", ProjectID: []string{"", "p1"}[q%2], Domain: []string{"", "health"}[q/2%2]}
		k := 1 + r.IntN(60)
		want, err1 := dense.Lexical(context.Background(), f, query, k)
		got, err2 := sparse.Lexical(context.Background(), f, query, k)
		if err1 != nil || err2 != nil || !slices.Equal(got, want) || len(want) == 0 {
			t.Fatalf("query %q, filter %+v, k %d: touched rows %v (%v), every row %v (%v)", query, f, k, got, err2, want, err1)
		}
	}
}
