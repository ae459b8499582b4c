package exact

import (
	"context"
	"fmt"
	"math/rand/v2"
	"runtime"
	"slices"
	"testing"
	"time"

	"github.com/memgate/memgate/embed"
	"github.com/memgate/memgate/memory"
	"github.com/memgate/memgate/retrieve"
)

// TestParallelMatchesSequential checks that the split scan returns exactly
// the hits of the sequential one, ids and scores bit for bit, on random
// data full of ties: most vectors are copies of a few, the others have
// coarse components so that distinct vectors tie too, and removals shuffle
// the rows. Each path is forced through x.parts.
func TestParallelMatchesSequential(t *testing.T) {
	ctx := context.Background()
	r := rand.New(rand.NewPCG(11, 12))
	const dim = 24
	shared := make([][]float32, 6)
	for i := range shared {
		shared[i] = randVec(r, dim)
	}
	coarse := func() []float32 {
		v := make([]float32, dim)
		for i := range v {
			v[i] = float32(r.IntN(3) - 1)
		}
		v[r.IntN(dim)] = 1
		return v
	}
	x := New(dim)
	projects := []string{"", "p1", "p2", "p3"}
	domains := []string{"", "work", "health"}
	for i := range 6000 {
		id := fmt.Sprintf("m%d", r.IntN(3000))
		if i%5 == 0 {
			if err := x.Remove(ctx, "u", id); err != nil {
				t.Fatal(err)
			}
			continue
		}
		v := shared[r.IntN(len(shared))]
		if r.IntN(3) == 0 {
			v = coarse()
		}
		e := retrieve.Entry{ID: id, UserID: "u", ProjectID: projects[r.IntN(len(projects))],
			Domain: domains[r.IntN(len(domains))], Vector: v}
		if err := x.Upsert(ctx, e); err != nil {
			t.Fatal(err)
		}
	}
	n := x.Len()
	filters := []memory.Filter{{UserID: "u"}, {UserID: "u", ProjectID: "p1"},
		{UserID: "u", ProjectID: "p2", Domain: "work"}, {UserID: "u", Domain: "unseen"}}
	queries := [][]float32{randVec(r, dim), coarse(), shared[0]}
	for _, f := range filters {
		for qi, q := range queries {
			for _, k := range []int{1, 7, 50, 200, n / 2, n, n + 10} {
				x.parts = 1
				want, err := x.Search(ctx, f, q, k)
				if err != nil {
					t.Fatal(err)
				}
				if len(want) == 0 && f.Domain != "unseen" {
					t.Fatalf("filter %+v: no hits", f)
				}
				for _, parts := range []int{2, 3, 4, 7, 64} {
					x.parts = parts
					got, err := x.Search(ctx, f, q, k)
					if err != nil {
						t.Fatal(err)
					}
					if !slices.Equal(got, want) {
						t.Fatalf("filter %+v query %d k=%d: %d parts differ from the sequential scan:\n got %v\nwant %v",
							f, qi, k, parts, got, want)
					}
				}
			}
		}
	}
}

// TestChunkAssignment scores the chunks of a split scan by hand, each by a
// worker drawn at random, as the scheduler may hand them out, and checks
// that the merged heaps give the sequential scan's hits whatever the draw.
// Unlike TestParallelMatchesSequential it does not depend on which helpers
// the scheduler happens to start.
func TestChunkAssignment(t *testing.T) {
	ctx := context.Background()
	r := rand.New(rand.NewPCG(13, 14))
	const dim = 8
	shared := [][]float32{randVec(r, dim), randVec(r, dim), randVec(r, dim)}
	x := New(dim)
	for i := range 900 {
		v := shared[r.IntN(len(shared))]
		if i%4 == 0 {
			v = randVec(r, dim)
		}
		if err := x.Upsert(ctx, retrieve.Entry{ID: fmt.Sprintf("m%d", r.IntN(700)), UserID: "u", Vector: v}); err != nil {
			t.Fatal(err)
		}
	}
	s := x.users["u"]
	for _, k := range []int{1, 10, 100, 1000} {
		q := randVec(r, dim)
		x.parts = 1
		want, err := x.Search(ctx, memory.Filter{UserID: "u"}, q, k)
		if err != nil {
			t.Fatal(err)
		}
		for _, workers := range []int{2, 3, 5} {
			for range 20 {
				sc := getScan(s, k, workers, dim)
				sc.q = q
				for c := range sc.chunks {
					sc.scoreChunk(r.IntN(workers), c)
				}
				got := sc.merge().hits(s)
				sc.refs.Store(1)
				sc.release()
				if !slices.Equal(got, want) {
					t.Fatalf("k=%d, %d workers: got %v\nwant %v", k, workers, got, want)
				}
			}
		}
	}
}

// TestLateHelper checks that a helper starting after the caller has taken
// every chunk and closed the scan leaves without joining: it claims nothing
// and adds nothing to the heaps, so the caller need not wait for it.
func TestLateHelper(t *testing.T) {
	x := New(2)
	for i := range 10 {
		if err := x.Upsert(context.Background(), retrieve.Entry{ID: fmt.Sprintf("m%d", i), UserID: "u", Vector: []float32{1, float32(i)}}); err != nil {
			t.Fatal(err)
		}
	}
	sc := getScan(x.users["u"], 3, 2, 2)
	sc.q = []float32{1, 0}
	sc.work(0)
	if old := sc.state.Or(closed); old != 0 {
		t.Fatalf("state %d before any helper", old)
	}
	claimed := sc.next.Load()
	sc.help(1)
	if sc.next.Load() != claimed || len(sc.tops[1].items) != 0 || sc.state.Load() != closed {
		t.Fatalf("late helper joined: next %d→%d, heap %v, state %x", claimed, sc.next.Load(), sc.tops[1].items, sc.state.Load())
	}
	if got := sc.refs.Load(); got != 1 {
		t.Fatalf("late helper left %d holds, want the caller's 1", got)
	}
	if hits := sc.merge().hits(x.users["u"]); len(hits) != 3 {
		t.Fatalf("caller alone kept %v", hits)
	}
	sc.release()
}

// TestSplitSearchWhileWriting runs split searches of one user while another
// goroutine upserts and removes that user's rows. The helpers take no lock
// of their own, so this is the race detector's test that they touch the
// shard only while the caller holds the read lock; each search must still
// return a full, ordered page.
func TestSplitSearchWhileWriting(t *testing.T) {
	ctx := context.Background()
	r := rand.New(rand.NewPCG(15, 16))
	const dim, rows, k = 16, 6000, 20
	x := New(dim)
	x.parts = 3
	var es []retrieve.Entry
	for i := range rows {
		es = append(es, retrieve.Entry{ID: fmt.Sprintf("m%d", i), UserID: "u", Vector: randVec(r, dim)})
	}
	if err := x.Upsert(ctx, es...); err != nil {
		t.Fatal(err)
	}
	q := randVec(r, dim)
	done := make(chan struct{})
	go func() {
		defer close(done)
		w := rand.New(rand.NewPCG(17, 18))
		for i := range 300 {
			e := es[w.IntN(rows)]
			e.Vector = randVec(w, dim)
			if err := x.Upsert(ctx, e); err != nil {
				t.Error(err)
				return
			}
			if i%3 == 0 {
				if err := x.Remove(ctx, "u", es[w.IntN(rows)].ID); err != nil {
					t.Error(err)
					return
				}
			}
		}
	}()
	for searching := true; searching; {
		select {
		case <-done:
			searching = false
		default:
		}
		hits, err := x.Search(ctx, memory.Filter{UserID: "u"}, q, k)
		if err != nil || len(hits) != k {
			t.Fatalf("search while writing: %d hits, %v", len(hits), err)
		}
		for i := 1; i < len(hits); i++ {
			if a, b := hits[i-1], hits[i]; a.Score < b.Score || a.Score == b.Score && a.ID >= b.ID {
				t.Fatalf("hits out of order at %d: %v", i, hits)
			}
		}
	}
}

// TestScanParts checks the choice between the sequential and the split scan:
// partitions below splitWork stay on the caller's goroutine, bigger ones are
// split into at most GOMAXPROCS ranges of at least minPartWork floats each.
func TestScanParts(t *testing.T) {
	procs := runtime.GOMAXPROCS(0)
	const dim = 256
	x := New(dim)
	for _, c := range []struct{ rows, want int }{
		{0, 1}, {1, 1}, {100, 1}, {5000, 1}, {splitWork/dim - 1, 1},
		{splitWork / dim, min(procs, splitWork/minPartWork)},
		{20000, min(procs, 20000*dim/minPartWork)},
		{1 << 20, procs},
	} {
		if got := x.scanParts(c.rows); got != c.want {
			t.Errorf("scanParts(%d rows × %d) = %d, want %d", c.rows, dim, got, c.want)
		}
	}
	x.parts = 4
	if got := x.scanParts(3); got != 3 {
		t.Errorf("forced 4 parts of 3 rows: %d, want 3", got)
	}
}

// BenchmarkSearchSplit places the threshold (minPartWork) from which Search
// splits its scan. For each partition size it alternates a sequential
// search with one split across GOMAXPROCS goroutines, so both meet the
// same load on a shared machine, and reports each one's median latency and
// split-p50/seq-p50: below 1 the split pays.
func BenchmarkSearchSplit(b *testing.B) {
	r := rand.New(rand.NewPCG(5, 6))
	dim := embed.BuiltinDim
	q := randVec(r, dim)
	procs := runtime.GOMAXPROCS(0)
	for _, rows := range []int{500, 1000, 2000, 4000, 8000, 20000} {
		x := New(dim)
		es := make([]retrieve.Entry, rows)
		for i := range es {
			es[i] = retrieve.Entry{ID: fmt.Sprintf("m%d", i), UserID: "u1", Vector: randVec(r, dim)}
		}
		if err := x.Upsert(context.Background(), es...); err != nil {
			b.Fatal(err)
		}
		b.Run(fmt.Sprintf("rows=%d", rows), func(b *testing.B) {
			var lat [2][]time.Duration
			i := 0
			for b.Loop() {
				mode := i % 2
				x.parts = 1 + mode*(procs-1)
				start := time.Now()
				if _, err := x.Search(context.Background(), memory.Filter{UserID: "u1"}, q, 50); err != nil {
					b.Fatal(err)
				}
				lat[mode] = append(lat[mode], time.Since(start))
				i++
			}
			if len(lat[1]) == 0 {
				return
			}
			p50 := func(ds []time.Duration) float64 {
				slices.Sort(ds)
				return float64(ds[len(ds)/2].Nanoseconds()) / 1e3
			}
			seq, split := p50(lat[0]), p50(lat[1])
			b.ReportMetric(seq, "seq-p50-µs")
			b.ReportMetric(split, "split-p50-µs")
			b.ReportMetric(split/seq, "split/seq")
		})
	}
}
