package postgres

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/memgate/memgate/audit"
	"github.com/memgate/memgate/memory"
	"github.com/memgate/memgate/retrieve"
	"github.com/memgate/memgate/store"
)

// benchMemories are n memories of 384-dimensional vectors over 10 users.
func benchMemories(prefix string, n int) []memory.Memory {
	r := rand.New(rand.NewPCG(1, 2))
	ms := make([]memory.Memory, n)
	for i := range ms {
		v := make([]float32, 384)
		for j := range v {
			v[j] = float32(r.NormFloat64())
		}
		ms[i] = memory.Memory{ID: fmt.Sprintf("%s-%d", prefix, i), UserID: fmt.Sprintf("u%d", i%10),
			Text: fmt.Sprintf("benchmark note %d about something worth remembering", i), CreatedAt: t0, Embedding: v}
	}
	return ms
}

// BenchmarkInsert inserts batches of 1000 memories.
func BenchmarkInsert(b *testing.B) {
	s := openFresh(b)
	b.ResetTimer()
	for i := range b.N {
		if _, err := s.Insert(b.Context(), benchMemories(fmt.Sprint("b", i), 1000), store.ConflictError, nil); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Microseconds())/float64(b.N*1000), "µs/memory")
}

// BenchmarkScanEntries loads one user's 1000 entries out of 10,000.
func BenchmarkScanEntries(b *testing.B) {
	s := openFresh(b)
	ms := benchMemories("m", 10000)
	if _, err := s.Insert(b.Context(), ms, store.ConflictError, nil); err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for range b.N {
		n := 0
		if err := s.ScanEntries(b.Context(), "u3", func(retrieve.Entry) error { n++; return nil }); err != nil || n != 1000 {
			b.Fatal(n, err)
		}
	}
}

// BenchmarkRecordAdmission records admissions of 20 decisions and 2
// quarantined memories, one at a time.
func BenchmarkRecordAdmission(b *testing.B) {
	s := openFresh(b)
	a := &audit.Admission{Search: audit.Event{Kind: audit.Search, At: time.Now(), UserID: "u1", TaskID: "t",
		Payload: json.RawMessage(`{"query":"what is due on friday","topK":20}`)}}
	for i := range 20 {
		id := fmt.Sprint("m", i)
		a.Decisions = append(a.Decisions, audit.Event{Kind: audit.Decision, At: time.Now(), UserID: "u1", TaskID: "t", MemoryID: id,
			Decision: "admit", Payload: json.RawMessage(`{"reasons":[],"scores":{"similarity":0.8}}`)})
		if i < 2 {
			a.Quarantine = append(a.Quarantine, audit.QuarantineItem{MemoryID: id, UserID: "u1", TaskID: "t", At: time.Now(),
				Context: json.RawMessage(`{}`), Reasons: json.RawMessage(`["low_authority"]`)})
		}
	}
	b.ResetTimer()
	for range b.N {
		if _, err := s.RecordAdmission(b.Context(), a); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkGet reads 20 memories with their relations and vectors, as a
// search re-reads its candidates.
func BenchmarkGet(b *testing.B) {
	s := openFresh(b)
	ms := benchMemories("m", 2000)
	if _, err := s.Insert(b.Context(), ms, store.ConflictError, nil); err != nil {
		b.Fatal(err)
	}
	ids := make([]string, 20)
	for i := range ids {
		ids[i] = ms[i*97].ID
	}
	b.ResetTimer()
	for range b.N {
		if got, err := s.Get(b.Context(), ids, true); err != nil || len(got) != 20 {
			b.Fatal(len(got), err)
		}
	}
}
