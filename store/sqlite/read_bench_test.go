package sqlite

import (
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"testing"
	"time"

	"github.com/memgate/memgate/embed"
	"github.com/memgate/memgate/memory"
	"github.com/memgate/memgate/store"
)

// benchStore20k opens a store holding one user's 20,000 memories (every
// tenth derived from one or two earlier ones, every fiftieth superseding
// one, 100 revoked and 20 forgotten) and returns it with 16 sets of 50 of
// the user's ids, as an admission of k=50 candidates reads them.
func benchStore20k(b *testing.B) (*Store, [][]string) {
	b.Helper()
	s, err := Open(ctx, filepath.Join(b.TempDir(), "bench.db"))
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { s.Close() })
	const n, batch = 20000, 5000
	r := rand.New(rand.NewPCG(7, 42))
	vec := make([]float32, embed.BuiltinDim)
	for start := 0; start < n; start += batch {
		ms := make([]memory.Memory, 0, batch)
		for i := start; i < start+batch; i++ {
			for j := range vec {
				vec[j] = r.Float32()
			}
			m := memory.Memory{ID: fmt.Sprintf("big-%d", i), UserID: "big", CreatedAt: t0,
				Text:      fmt.Sprintf("memory %d of the benchmark, about the quarterly report and the Acme client", i),
				ProjectID: fmt.Sprintf("p%d", i%8), Domain: "work", SourceAuthority: memory.AuthorityUserConfirmed,
				Embedding: append([]float32(nil), vec...)}
			if i > 0 && i%10 == 0 {
				m.SourceAuthority = memory.AuthorityModelInferred
				m.LineageRefs = []string{fmt.Sprintf("big-%d", r.IntN(i))}
				if i%20 == 0 {
					m.LineageRefs = append(m.LineageRefs, fmt.Sprintf("big-%d", i-1))
				}
			}
			if i > 0 && i%50 == 0 {
				m.Supersedes = []string{fmt.Sprintf("big-%d", i-3)}
			}
			ms = append(ms, m)
		}
		if _, err := s.Insert(ctx, ms, store.ConflictError, nil); err != nil {
			b.Fatal(err)
		}
	}
	// 100 revoked memories, for Revoked; 20 forgotten, for Tombstones.
	if _, err := s.db.ExecContext(ctx, "UPDATE memories SET revoked = 1, revoked_at = ? WHERE seq % 200 = 7", t0.UnixNano()); err != nil {
		b.Fatal(err)
	}
	for i := range 20 {
		if _, err := s.Forget(ctx, fmt.Sprintf("big-%d", 1000*i+3), store.Change{Reason: "bench", At: t0}); err != nil {
			b.Fatal(err)
		}
	}
	sets := make([][]string, 16)
	for i := range sets {
		for range 50 {
			sets[i] = append(sets[i], fmt.Sprintf("big-%d", r.IntN(n)))
		}
	}
	return s, sets
}

// loop runs fn b.N times and also reports the CPU time the process used per
// call, which other processes on a busy machine disturb less than the wall
// time.
func loop(b *testing.B, fn func(i int)) {
	b.ReportAllocs()
	start, i := cpuTime(), 0
	for b.Loop() {
		fn(i)
		i++
	}
	if cpu := cpuTime() - start; start != 0 && i > 0 {
		b.ReportMetric(float64(cpu)/float64(i), "cpu-ns/op")
	}
}

// BenchmarkReads20k times the store's reads of one admission of k=50
// candidates of a 20,000-memory user: Get of the 50 records and their
// relations, the 50 memories' Ancestors, the user's last 64 revoked
// memories (what the gate reads) and the tombstones among 50 ids.
func BenchmarkReads20k(b *testing.B) {
	s, sets := benchStore20k(b)
	// Most runs read 4 sets of ids, whose rows stay in SQLite's page cache
	// as those of repeated admissions do; Get50Spread reads 16, which it
	// cannot hold, so that most rows are read from the file (the
	// operating system's cache).
	for _, tc := range []struct {
		name string
		sets [][]string
	}{{"Get50", sets[:4]}, {"Get50Spread", sets}} {
		b.Run(tc.name, func(b *testing.B) {
			loop(b, func(i int) {
				ms, err := s.Get(ctx, tc.sets[i%len(tc.sets)], false)
				if err != nil || len(ms) == 0 {
					b.Fatalf("get: %d memories, %v", len(ms), err)
				}
			})
		})
	}
	// Get50AfterCommit times Get alone, each after an admission is
	// recorded, as in a stream of admissions: a commit makes SQLite drop
	// the page cache of every other connection, so that Get reads its pages
	// again (from the operating system's cache). Its CPU time includes
	// whatever the audit writer's goroutines do meanwhile.
	b.Run("Get50AfterCommit", func(b *testing.B) {
		b.ReportAllocs()
		a := admission("bench", 50)
		var wall time.Duration
		var cpu int64
		i := 0
		for b.Loop() {
			if _, err := s.RecordAdmission(ctx, a); err != nil {
				b.Fatal(err)
			}
			c0, start := cpuTime(), time.Now()
			ms, err := s.Get(ctx, sets[i%4], false)
			wall, cpu = wall+time.Since(start), cpu+cpuTime()-c0
			if err != nil || len(ms) == 0 {
				b.Fatalf("get: %d memories, %v", len(ms), err)
			}
			i++
		}
		b.ReportMetric(float64(wall.Nanoseconds())/float64(i), "get-ns/op")
		if cpu > 0 {
			b.ReportMetric(float64(cpu)/float64(i), "get-cpu-ns/op")
		}
	})
	sets = sets[:4]
	b.Run("Ancestors50", func(b *testing.B) {
		loop(b, func(i int) {
			anc, err := s.Ancestors(ctx, sets[i%len(sets)])
			if err != nil || len(anc) == 0 {
				b.Fatalf("ancestors: %d, %v", len(anc), err)
			}
		})
	})
	b.Run("Revoked64", func(b *testing.B) {
		loop(b, func(int) {
			ms, err := s.Revoked(ctx, "big", 64)
			if err != nil || len(ms) != 64 {
				b.Fatalf("revoked: %d memories, %v", len(ms), err)
			}
		})
	})
	b.Run("Tombstones50", func(b *testing.B) {
		loop(b, func(i int) {
			if _, err := s.Tombstones(ctx, sets[i%len(sets)]); err != nil {
				b.Fatal(err)
			}
		})
	})
}
