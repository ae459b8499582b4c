package memgate

import (
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"strings"
	"testing"

	"github.com/memgate/memgate/admit"
	"github.com/memgate/memgate/internal/benchstats"
	"github.com/memgate/memgate/internal/synthtext"
	"github.com/memgate/memgate/memory"
)

// synth makes n realistic-length memories for one user from a fixed
// vocabulary, deterministically.
func synth(user string, n int, seed uint64) []memory.Memory {
	words, names := synthtext.Words, synthtext.Names
	domains := []string{"work", "family", "health", "finance", "travel", ""}
	r := rand.New(rand.NewPCG(seed, 42))
	ms := make([]memory.Memory, n)
	for i := range ms {
		var b strings.Builder
		b.WriteString(names[r.IntN(len(names))])
		for range 8 + r.IntN(14) {
			b.WriteByte(' ')
			b.WriteString(words[r.IntN(len(words))])
		}
		ms[i] = memory.Memory{
			ID: fmt.Sprintf("%s-%d", user, i), UserID: user, Text: b.String(),
			ProjectID: fmt.Sprintf("p%d", r.IntN(8)), Domain: domains[r.IntN(len(domains))],
		}
	}
	return ms
}

func addAll(b *testing.B, e *Engine, ms []memory.Memory) {
	for start := 0; start < len(ms); start += 5000 {
		if _, err := e.AddBatch(ctx, ms[start:min(start+5000, len(ms))]); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkAddBatch adds batches of 1,000 memories with the builtin embedder,
// each batch one durable transaction.
func BenchmarkAddBatch(b *testing.B) {
	e, err := Open(ctx, filepath.Join(b.TempDir(), "bench.db"), nil)
	if err != nil {
		b.Fatal(err)
	}
	defer e.Close()
	const batch = 1000
	ms := synth("u", batch, 1)
	i := 0
	for b.Loop() {
		for j := range ms {
			ms[j].ID = fmt.Sprintf("m%d-%d", i, j)
		}
		i++
		if _, err := e.AddBatch(ctx, ms); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.N*batch)/b.Elapsed().Seconds(), "memories/s")
}

// BenchmarkSearch20k searches one user with 20,000 memories (in a store that
// also holds other users) for k=50 candidates: embedding the query, vector
// and BM25 search, fusion, and reading the 50 records back.
func BenchmarkSearch20k(b *testing.B) {
	e, err := Open(ctx, filepath.Join(b.TempDir(), "bench.db"), nil)
	if err != nil {
		b.Fatal(err)
	}
	defer e.Close()
	addAll(b, e, synth("big", 20000, 2))
	addAll(b, e, synth("other", 5000, 3))
	if err := e.LoadIndex(ctx, "big"); err != nil { // a user's first search loads it: not timed here
		b.Fatal(err)
	}
	queries := []string{
		"when is the quarterly report deadline for the Acme client",
		"John doctor appointment and medication allergy",
		"deploy the database migration after the incident review",
		"holiday flight and hotel budget",
	}
	for _, tc := range []struct {
		name  string
		scope memory.Filter
	}{{"user", memory.Filter{UserID: "big"}}, {"user+project", memory.Filter{UserID: "big", ProjectID: "p3"}}} {
		b.Run(tc.name, func(b *testing.B) {
			b.ReportAllocs()
			i := 0
			for b.Loop() {
				cs, err := e.Search(ctx, Query{Scope: tc.scope, Text: queries[i%len(queries)], K: 50})
				if err != nil || len(cs) != 50 {
					b.Fatalf("search: %d candidates, %v", len(cs), err)
				}
				i++
			}
		})
	}
}

// BenchmarkOpen100k opens a store of 100,000 memories (20 users of 5,000) and
// does what a command does first, which is what a user waits for at start-up:
// "get" reads one record (opening loads no vectors); "first-search" is one
// user's first search, which loads that user's 5,000 memories into the index;
// "load-all" loads every user (LoadIndex), what every open cost before the
// index was loaded lazily.
func BenchmarkOpen100k(b *testing.B) {
	path := filepath.Join(b.TempDir(), "bench.db")
	e, err := Open(ctx, path, nil)
	if err != nil {
		b.Fatal(err)
	}
	for u := range 20 {
		addAll(b, e, synth(fmt.Sprintf("user%d", u), 5000, uint64(u)))
	}
	e.Close()
	for _, tc := range []struct {
		name        string
		do          func(e *Engine) error
		wantIndexed int
	}{
		{"get", func(e *Engine) error { _, err := e.Get(ctx, "user7-42"); return err }, 0},
		{"first-search", func(e *Engine) error {
			_, err := e.Search(ctx, Query{Scope: memory.Filter{UserID: "user7"}, Text: "quarterly report deadline for the Acme client", K: 50})
			return err
		}, 5000},
		{"load-all", func(e *Engine) error { return e.LoadIndex(ctx) }, 100000},
	} {
		b.Run(tc.name, func(b *testing.B) {
			for b.Loop() {
				e, err := Open(ctx, path, &Options{ReadOnly: true})
				if err != nil {
					b.Fatal(err)
				}
				if err := tc.do(e); err != nil {
					b.Fatal(err)
				}
				b.StopTimer()
				if st, _ := e.Stats(ctx); st.Indexed != tc.wantIndexed {
					b.Fatalf("indexed %d, want %d", st.Indexed, tc.wantIndexed)
				}
				b.StartTimer()
				e.Close()
			}
		})
	}
}

// BenchmarkAdmit20k is a whole admission of k=50 candidates for a
// 20,000-memory user: retrieval, lineage from the store, the envelope, the
// built-in gate, and the durable audit write (one SQLite transaction). It
// asks the same question each time, so the gate finds every candidate's
// content analysis in its cache after the first; BenchmarkAdmit20kVaried
// does not.
func BenchmarkAdmit20k(b *testing.B) {
	benchAdmit(b, func(int) string { return "send the quarterly report deadline to the Acme client" })
}

// BenchmarkAdmit20kVaried is BenchmarkAdmit20k with a different question
// each time, drawn from the memories' words, so that the candidates change
// from one admission to the next.
func BenchmarkAdmit20kVaried(b *testing.B) {
	qs := synth("q", 4096, 7)
	benchAdmit(b, func(i int) string { return qs[i%len(qs)].Text })
}

func benchAdmit(b *testing.B, query func(i int) string) {
	e, err := Open(ctx, filepath.Join(b.TempDir(), "bench.db"), nil)
	if err != nil {
		b.Fatal(err)
	}
	defer e.Close()
	addAll(b, e, synth("big", 20000, 2))
	if err := e.LoadIndex(ctx, "big"); err != nil { // a user's first search loads it: not timed here
		b.Fatal(err)
	}
	task := admit.Context{TaskID: "bench", UserID: "big", ProjectID: "p3", Domain: "work", Intent: admit.IntentSend, ToolRisk: admit.RiskExternalSideEffect}
	b.ReportAllocs()
	i := 0
	benchstats.Loop(b, func() {
		adm, err := e.Admit(ctx, task, Query{Text: query(i), K: 50})
		if err != nil || len(adm.Items) != 50 {
			b.Fatalf("admit: %v", err)
		}
		i++
	})
}
