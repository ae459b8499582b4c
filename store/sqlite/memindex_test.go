package sqlite

import (
	"context"
	"database/sql"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/memgate/memgate/audit"
	"github.com/memgate/memgate/store"
)

// memIndexSettings are the memory index catch-up's settings for a test.
type memIndexSettings struct {
	batch          int64
	step, memories int
	idle           time.Duration
}

var (
	// indexEagerly indexes after every request, a memory per step.
	indexEagerly = memIndexSettings{batch: 1, step: 3, memories: 1, idle: 10 * time.Millisecond}
	// indexWhenIdle indexes with the shipped bounds, soon after the
	// writer goes idle.
	indexWhenIdle = memIndexSettings{batch: memIndexBatch, step: memIndexStep, memories: memIndexMemories, idle: 10 * time.Millisecond}
	// indexNever leaves every event to the scan of what is not indexed.
	indexNever = memIndexSettings{batch: 1 << 40, step: memIndexStep, memories: memIndexMemories, idle: time.Hour}
)

// setMemIndex gives s's audit writer the settings ms. It must come before
// the store's first audit write: the writer reads them only after that.
func setMemIndex(s *Store, ms memIndexSettings) {
	m := &s.audit.mi
	m.batch, m.step, m.memories, m.idle = ms.batch, ms.step, ms.memories, ms.idle
}

// openMemIndex opens the store at path with the settings ms.
func openMemIndex(t *testing.T, path string, ms memIndexSettings) *Store {
	t.Helper()
	s, err := Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	setMemIndex(s, ms)
	return s
}

// memIndexState is audit_memory_upto and the greatest seq of the trail.
func memIndexState(t *testing.T, s *Store) (upto, last int64) {
	t.Helper()
	if err := s.db.QueryRowContext(ctx, "SELECT "+memoryIndexUpto+", (SELECT coalesce(max(seq), 0) FROM audit_events)").Scan(&upto, &last); err != nil {
		t.Fatal(err)
	}
	return upto, last
}

// waitIndexed waits until the memory index covers the whole trail.
func waitIndexed(t *testing.T, s *Store) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		upto, last := memIndexState(t, s)
		if upto == last {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("the memory index covers events up to %d of %d after 20 s", upto, last)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// checkByMemory checks that Events by memory returns, for each memory in
// ids, exactly its events of the whole trail, alone and with After, Limit
// and another filter; and that Check finds the index sound.
func checkByMemory(t *testing.T, s *Store, ids []string) {
	t.Helper()
	all, err := s.Events(ctx, audit.Filter{})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string][]int64{}
	decisions := map[string][]int64{}
	for _, e := range all {
		want[e.MemoryID] = append(want[e.MemoryID], e.Seq)
		if e.Kind == audit.Decision {
			decisions[e.MemoryID] = append(decisions[e.MemoryID], e.Seq)
		}
	}
	seqs := func(f audit.Filter) []int64 {
		evs, err := s.Events(ctx, f)
		if err != nil {
			t.Fatal(err)
		}
		var out []int64
		for _, e := range evs {
			out = append(out, e.Seq)
		}
		return out
	}
	upto, last := memIndexState(t, s)
	for _, id := range ids {
		w := want[id]
		if got := seqs(audit.Filter{MemoryID: id}); !slices.Equal(got, w) {
			t.Fatalf("events of %s (index up to %d of %d): %v, want %v", id, upto, last, got, w)
		}
		if got := seqs(audit.Filter{MemoryID: id, Kind: audit.Decision}); !slices.Equal(got, decisions[id]) {
			t.Fatalf("decisions of %s: %v, want %v", id, got, decisions[id])
		}
		if len(w) > 2 {
			after, limit := w[len(w)/2-1], 2
			wantAfter := w[len(w)/2:]
			if got := seqs(audit.Filter{MemoryID: id, After: after, Limit: limit}); !slices.Equal(got, wantAfter[:min(limit, len(wantAfter))]) {
				t.Fatalf("events of %s after %d, %d of them: %v, want %v", id, after, limit, got, wantAfter[:min(limit, len(wantAfter))])
			}
		}
	}
	if err := s.Check(ctx); err != nil {
		t.Fatal(err)
	}
}

// writeTrail appends n admissions over the memories ids (a random few of
// them each), with the events other writes add between them: revocations,
// written by the store's own transactions rather than the audit writer, and
// events that name no memory.
// It returns the ids of the memories it revoked.
func writeTrail(t *testing.T, s *Store, rng *rand.Rand, ids []string, n int) (revoked []string) {
	t.Helper()
	for i := range n {
		a := &audit.Admission{Search: audit.Event{Kind: audit.Search, At: t0, TaskID: "t", UserID: "u", Payload: []byte(`{}`)}}
		for _, j := range rng.Perm(len(ids))[:1+rng.IntN(len(ids))] {
			a.Decisions = append(a.Decisions, audit.Event{Kind: audit.Decision, At: t0.Add(time.Duration(i)), TaskID: "t", UserID: "u",
				MemoryID: ids[j], Decision: "admit", Payload: []byte(`{}`)})
		}
		if _, err := s.RecordAdmission(ctx, a); err != nil {
			t.Fatal(err)
		}
		switch i % 7 {
		case 3:
			if _, err := s.AppendEvents(ctx, []audit.Event{{Kind: audit.Injection, At: t0, TaskID: "t", UserID: "u", Payload: []byte(`{}`)},
				{Kind: audit.Binding, At: t0, TaskID: "t", UserID: "u", MemoryID: ids[rng.IntN(len(ids))], Payload: []byte(`{}`)}}); err != nil {
				t.Fatal(err)
			}
		case 5:
			id := fmt.Sprintf("r%x", rng.Uint64())
			insert(t, s, mem(id, "u", "a memory to revoke "+id))
			if _, err := s.Revoke(ctx, id, store.Change{Reason: "test", At: t0}); err != nil {
				t.Fatal(err)
			}
			revoked = append(revoked, id)
		}
	}
	return revoked
}

// TestMemoryIndexFindsEveryEvent: reading a memory's audit events returns
// each of them, whether the writer has indexed none, some or all of them,
// with every way of indexing: eagerly a memory at a time, in batches when
// idle, never.
func TestMemoryIndexFindsEveryEvent(t *testing.T) {
	ids := make([]string, 12)
	for i := range ids {
		ids[i] = fmt.Sprintf("m%02d", i)
	}
	for _, tc := range []struct {
		name string
		ms   memIndexSettings
	}{{"eagerly", indexEagerly}, {"when idle", indexWhenIdle}, {"never", indexNever}} {
		t.Run(tc.name, func(t *testing.T) {
			s := openMemIndex(t, filepath.Join(t.TempDir(), "idx.db"), tc.ms)
			rng := rand.New(rand.NewPCG(1, 2))
			revoked := writeTrail(t, s, rng, ids, 40)
			checkByMemory(t, s, append(slices.Concat(ids, revoked), "nobody"))
			revoked = append(revoked, writeTrail(t, s, rng, ids, 40)...)
			if tc.ms == indexNever {
				if upto, _ := memIndexState(t, s); upto != 0 {
					t.Fatalf("audit_memory_upto = %d with indexing off", upto)
				}
			} else {
				waitIndexed(t, s)
			}
			checkByMemory(t, s, append(slices.Concat(ids, revoked), "nobody"))
		})
	}
}

// TestMemoryIndexTwoWriters: two processes append to one trail; each
// writer indexes its own events and the other's it finds between them.
func TestMemoryIndexTwoWriters(t *testing.T) {
	path := filepath.Join(t.TempDir(), "two.db")
	a, b := openMemIndex(t, path, indexWhenIdle), openMemIndex(t, path, indexEagerly)
	ids := []string{"m1", "m2", "m3", "m4", "m5"}
	rng := rand.New(rand.NewPCG(3, 4))
	for range 10 {
		writeTrail(t, a, rng, ids, 3)
		writeTrail(t, b, rng, ids, 2)
	}
	waitIndexed(t, a)
	checkByMemory(t, a, ids)
	checkByMemory(t, b, ids)
}

// TestMemoryIndexResumes: a writer that stopped part-way through a batch
// (its steps committed, audit_memory_upto not moved yet) or before indexing
// at all leaves nothing missing: the next process's writer indexes what is
// left, inserting again the entries already there.
func TestMemoryIndexResumes(t *testing.T) {
	path := filepath.Join(t.TempDir(), "resume.db")
	ids := []string{"m1", "m2", "m3", "m4"}
	rng := rand.New(rand.NewPCG(5, 6))
	s := openMemIndex(t, path, indexNever)
	writeTrail(t, s, rng, ids, 30)
	// What a crash after some steps of a batch leaves: entries past
	// audit_memory_upto.
	if _, err := s.db.ExecContext(ctx, `INSERT INTO audit_memory_index (memory_id, seq)
		SELECT memory_id, seq FROM audit_events WHERE memory_id IN ('m1', 'm3')`); err != nil {
		t.Fatal(err)
	}
	s.Close()
	s = openMemIndex(t, path, indexEagerly)
	checkByMemory(t, s, ids)
	writeTrail(t, s, rng, ids, 1)
	waitIndexed(t, s)
	checkByMemory(t, s, ids)
}

// TestMemoryIndexFileReplaced: an older copy of the file restored in place
// under a running writer holds other events at the seqs the writer
// recorded. The writer must index the events the file holds, not the ones
// it remembers writing.
func TestMemoryIndexFileReplaced(t *testing.T) {
	path := filepath.Join(t.TempDir(), "live.db")
	s := openMemIndex(t, path, memIndexSettings{batch: 200, step: memIndexStep, memories: memIndexMemories, idle: time.Hour})
	other := openMemIndex(t, filepath.Join(t.TempDir(), "other.db"), indexNever)
	rng := rand.New(rand.NewPCG(7, 8))
	writeTrail(t, other, rng, []string{"x1", "x2", "x3"}, 60) // more events than s has when restored
	backup := filepath.Join(t.TempDir(), "backup.db")
	copyDB(t, other, backup, false)
	writeTrail(t, s, rng, []string{"m1", "m2"}, 8) // under the batch: recorded, not indexed
	if upto, _ := memIndexState(t, s); upto != 0 {
		t.Fatalf("indexed before the batch was full (up to %d)", upto)
	}
	copyDB(t, s, backup, true)
	writeTrail(t, s, rng, []string{"m1", "m2"}, 40) // fills the batch
	waitIndexedBy(t, s, 20*time.Second)
	checkByMemory(t, s, []string{"x1", "x2", "x3", "m1", "m2"})
}

// waitIndexedBy waits up to d for the writer to index everything once
// more than a batch is waiting, without the idle timer's help.
func waitIndexedBy(t *testing.T, s *Store, d time.Duration) {
	t.Helper()
	deadline := time.Now().Add(d)
	for {
		upto, last := memIndexState(t, s)
		if last-upto < 200 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("the memory index covers events up to %d of %d", upto, last)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// TestCheckFindsABrokenMemoryIndex: Check reports an event the index claims
// to cover but misses, and an entry that names the wrong memory.
func TestCheckFindsABrokenMemoryIndex(t *testing.T) {
	for _, tc := range []struct{ name, breakIt, want string }{
		{"missing", "DELETE FROM audit_memory_index WHERE seq = (SELECT max(seq) FROM audit_memory_index)", "missing from the memory index"},
		{"wrong memory", "INSERT INTO audit_memory_index SELECT 'zz', max(seq) FROM audit_memory_index", "wrong memory"},
		{"no such event", "INSERT INTO audit_memory_index VALUES ('m1', 1000000)", "wrong memory"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := openMemIndex(t, filepath.Join(t.TempDir(), "idx.db"), indexEagerly)
			writeTrail(t, s, rand.New(rand.NewPCG(9, 10)), []string{"m1", "m2"}, 5)
			waitIndexed(t, s)
			if err := s.Check(ctx); err != nil {
				t.Fatal(err)
			}
			if _, err := s.db.ExecContext(ctx, tc.breakIt); err != nil {
				t.Fatal(err)
			}
			if err := s.Check(ctx); err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("Check = %v, want an error saying %q", err, tc.want)
			}
		})
	}
}

// TestMemoryIndexMigration: a store of schema v7, whose trail was indexed
// by memory in every admission's transaction, comes out of the upgrade with
// the whole trail in the memory index.
func TestMemoryIndexMigration(t *testing.T) {
	path := filepath.Join(t.TempDir(), "v7.db")
	db, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range migrations[:7] {
		if _, err := db.Exec(m); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := db.Exec(fmt.Sprintf("PRAGMA application_id = %d; PRAGMA user_version = 7", applicationID)); err != nil {
		t.Fatal(err)
	}
	for i := range 30 {
		if _, err := db.Exec(`INSERT INTO audit_events (kind, at, task_id, user_id, memory_id, payload) VALUES ('decision', 0, 't', 'u', ?, '{}')`,
			[]any{fmt.Sprintf("m%d", i%4), nil}[i%5/4]); err != nil {
			t.Fatal(err)
		}
	}
	db.Close()
	s := openMemIndex(t, path, indexNever)
	if upto, last := memIndexState(t, s); upto != last || last != 30 {
		t.Fatalf("after the upgrade the index covers %d of %d events", upto, last)
	}
	checkByMemory(t, s, []string{"m0", "m1", "m2", "m3"})
}

// TestRestoreIndexesByMemory: a restored trail is indexed whole.
func TestRestoreIndexesByMemory(t *testing.T) {
	src := openMemIndex(t, filepath.Join(t.TempDir(), "src.db"), indexNever)
	ids := []string{"m1", "m2", "m3"}
	writeTrail(t, src, rand.New(rand.NewPCG(11, 12)), ids, 20)
	dst := openMemIndex(t, filepath.Join(t.TempDir(), "dst.db"), indexNever)
	if err := dst.Restore(ctx, store.Records(ctx, src)); err != nil {
		t.Fatal(err)
	}
	if upto, last := memIndexState(t, dst); upto != last || last == 0 {
		t.Fatalf("after the restore the index covers %d of %d events", upto, last)
	}
	checkByMemory(t, dst, ids)
}

// admitMemories records an admission of task with a decision on each of ids.
func admitMemories(t *testing.T, s *Store, task string, ids ...string) {
	t.Helper()
	a := &audit.Admission{Search: audit.Event{Kind: audit.Search, At: t0, TaskID: task, UserID: "u", Payload: []byte(`{}`)}}
	for _, id := range ids {
		a.Decisions = append(a.Decisions, audit.Event{Kind: audit.Decision, At: t0, TaskID: task, UserID: "u",
			MemoryID: id, Decision: "admit", Payload: []byte(`{}`)})
	}
	if _, err := s.RecordAdmission(ctx, a); err != nil {
		t.Fatal(err)
	}
}

// TestMemoryIndexRestoreWithStaleRuns: an older, shorter copy of the file
// restored in place while the writer holds runs it has not indexed. The
// stale runs must not reach the index (Check would find entries naming the
// wrong memory), and the writer, which knew of events past the restored
// trail's end, must not step without progress while idle.
func TestMemoryIndexRestoreWithStaleRuns(t *testing.T) {
	path := filepath.Join(t.TempDir(), "live.db")
	s := openMemIndex(t, path, memIndexSettings{batch: 1 << 40, step: memIndexStep, memories: memIndexMemories, idle: 300 * time.Millisecond})
	admitMemories(t, s, "old", "a1", "a2")
	waitIndexed(t, s) // after 300 ms idle
	backup := filepath.Join(t.TempDir(), "backup.db")
	copyDB(t, s, backup, false) // events 1..3, indexed
	for i := range 3 {          // seqs 4..15: recorded, not indexed (no idle yet)
		admitMemories(t, s, "stale", fmt.Sprintf("s%d", i), "s9", "s8")
	}
	copyDB(t, s, backup, true)       // back to 1..3
	admitMemories(t, s, "new", "n1") // seqs 4..5, run after the stale ones
	waitIndexed(t, s)
	time.Sleep(200 * time.Millisecond)
	c0 := cpuTime()
	time.Sleep(time.Second) // nothing asked of the store
	cpu := time.Duration(cpuTime() - c0)
	t.Logf("CPU used in 1 s of idleness: %v", cpu)
	if err := s.Check(ctx); err != nil {
		t.Errorf("Check: %v", err)
	}
	if cpu > 300*time.Millisecond {
		t.Errorf("the idle writer spins: %v of CPU in 1 s", cpu)
	}
}

// TestMemoryIndexRecordsBeforeAnswering: a group in which one request fails
// is written again request by request, each caller answered in turn. A
// caller that reuses its events' slice once answered must not change what
// the writer indexes (it records a request's entries before answering).
func TestMemoryIndexRecordsBeforeAnswering(t *testing.T) {
	s := openMemIndex(t, filepath.Join(t.TempDir(), "idx.db"), indexEagerly)
	if _, err := s.audit.db.ExecContext(ctx, `CREATE TEMP TRIGGER refuse_bad BEFORE INSERT ON audit_events
		WHEN NEW.task_id = 'bad' BEGIN SELECT RAISE(ABORT, 'bad row refused'); END`); err != nil {
		t.Fatal(err)
	}
	// Requests of task "slow" take some milliseconds to write.
	if _, err := s.audit.db.ExecContext(ctx, `CREATE TEMP TRIGGER slow BEFORE INSERT ON audit_events
		WHEN NEW.task_id = 'slow' BEGIN SELECT count(*) FROM (WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x+1 FROM c WHERE x < 30000) SELECT x FROM c); END`); err != nil {
		t.Fatal(err)
	}
	held, release := holdWriter(t, s, nil)
	go s.AppendEvents(ctx, []audit.Event{{Kind: audit.Binding, At: t0, TaskID: "first", Payload: []byte(`{}`)}})
	<-held
	evs := []audit.Event{{Kind: audit.Binding, At: t0, TaskID: "good", MemoryID: "x", Payload: []byte(`{}`)}}
	var wg sync.WaitGroup
	wg.Add(2)
	go func() {
		defer wg.Done()
		if _, err := s.AppendEvents(ctx, evs); err != nil {
			t.Error(err)
		}
		evs[0].MemoryID = "reused" // AppendEvents returned: the slice is the caller's again
	}()
	waitQueued(t, s, 1)
	go func() {
		defer wg.Done()
		s.AppendEvents(context.Background(), []audit.Event{{Kind: audit.Binding, At: t0, TaskID: "bad", Payload: []byte(`{}`)}})
	}()
	waitQueued(t, s, 2)
	for i := range 3 { // more of the group, each written again alone after good is answered
		wg.Add(1)
		go func() {
			defer wg.Done()
			s.AppendEvents(ctx, []audit.Event{{Kind: audit.Binding, At: t0, TaskID: "slow", Payload: []byte(`{}`)}})
		}()
		waitQueued(t, s, 3+i)
	}
	release()
	wg.Wait()
	waitIndexed(t, s)
	got, err := s.Events(ctx, audit.Filter{MemoryID: "x"})
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 1 {
		t.Errorf("events of x: %d, want 1", len(got))
	}
	if err := s.Check(ctx); err != nil {
		t.Error(err)
	}
}

// countEntries is how many entries the memory index holds.
func countEntries(t *testing.T, s *Store) (n int) {
	t.Helper()
	if err := s.db.QueryRowContext(ctx, "SELECT count(*) FROM audit_memory_index").Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

// waitEntries waits until the memory index holds n entries.
func waitEntries(t *testing.T, s *Store, n int) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); countEntries(t, s) != n; {
		if time.Now().After(deadline) {
			t.Fatalf("%d entries, want %d", countEntries(t, s), n)
		}
		time.Sleep(time.Millisecond)
	}
}

// appendPlain appends an event that names no memory.
func appendPlain(t *testing.T, s *Store) {
	t.Helper()
	if _, err := s.AppendEvents(ctx, []audit.Event{{Kind: audit.Injection, At: t0, TaskID: "t", Payload: []byte(`{}`)}}); err != nil {
		t.Fatal(err)
	}
}

// TestMemoryIndexRestoreMidBatch: a copy of the file taken between two
// steps of a batch and restored in place at the next step, while the
// writer is idle: the trail is the same, event hi too, but the entries of
// the step between copy and restore are gone. The writer must not move
// audit_memory_upto over them (the batch's step token tells).
func TestMemoryIndexRestoreMidBatch(t *testing.T) {
	path := filepath.Join(t.TempDir(), "live.db")
	s := openMemIndex(t, path, memIndexSettings{batch: 4, step: memIndexStep, memories: 1, idle: 10 * time.Millisecond})
	at, proceed := make(chan int), make(chan struct{})
	steps := 0
	s.audit.beforeStep = func() {
		steps++
		if steps == 2 || steps == 3 {
			at <- steps
			<-proceed
		}
	}
	admitMemories(t, s, "a", "m1", "m2", "m3", "m4") // seqs 1..5; step 1: m1; idle, then steps 2, 3, …
	backup := filepath.Join(t.TempDir(), "backup.db")
	<-at
	copyDB(t, s, backup, false) // events 1..5, m1's entry
	proceed <- struct{}{}       // step 2: m2's entry
	<-at
	copyDB(t, s, backup, true) // m2's entry is gone
	proceed <- struct{}{}
	waitIndexed(t, s)
	checkByMemory(t, s, []string{"m1", "m2", "m3", "m4"})
}

// TestMemoryIndexRestoreAfterCommits: a copy of the file taken mid-batch
// and restored in place after more events were written: the writer sees
// seqs go back and indexes the trail itself.
func TestMemoryIndexRestoreAfterCommits(t *testing.T) {
	path := filepath.Join(t.TempDir(), "live.db")
	// One step (one memory) each time the writer waits for a request: fewer
	// than two batches wait.
	s := openMemIndex(t, path, memIndexSettings{batch: 4, step: memIndexStep, memories: 1, idle: time.Hour})
	admitMemories(t, s, "a", "m1", "m2", "m3", "m4") // seqs 1..5; step 1 inserts m1's entry
	waitEntries(t, s, 1)
	backup := filepath.Join(t.TempDir(), "backup.db")
	copyDB(t, s, backup, false) // events 1..5, m1's entry, upto 0
	appendPlain(t, s)           // step 2: m2's entry
	waitEntries(t, s, 2)
	copyDB(t, s, backup, true) // m2's entry is gone
	appendPlain(t, s)          // step 3: m3
	appendPlain(t, s)          // step 4: m4, and audit_memory_upto = 5
	appendPlain(t, s)
	for deadline := time.Now().Add(10 * time.Second); ; {
		if upto, _ := memIndexState(t, s); upto >= 5 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("not indexed")
		}
		time.Sleep(time.Millisecond)
	}
	evs, err := s.Events(ctx, audit.Filter{MemoryID: "m2"})
	if err != nil {
		t.Fatal(err)
	}
	if len(evs) != 1 {
		t.Errorf("events of m2: %d, want 1", len(evs))
	}
	if err := s.Check(ctx); err != nil {
		t.Error(err)
	}
}

// TestMemoryIndexKeepsUpUnderLoad: under steady admissions of distinct
// memories, with most below the batch, the writer indexes from the trail
// after each group, and the events a read by memory scans stay within
// twice most.
func TestMemoryIndexKeepsUpUnderLoad(t *testing.T) {
	s := openMemIndex(t, filepath.Join(t.TempDir(), "load.db"), memIndexSettings{batch: memIndexBatch, step: memIndexStep, memories: memIndexMemories, idle: time.Hour})
	s.audit.mi.most = 600
	worst := int64(0)
	for i := range 500 {
		ids := make([]string, 50)
		for j := range ids {
			ids[j] = fmt.Sprintf("m%d-%d", i, j)
		}
		admitMemories(t, s, "t", ids...)
		if i%10 == 0 {
			upto, last := memIndexState(t, s)
			worst = max(worst, last-upto)
		}
	}
	t.Logf("most = 600: up to %d events waiting for the index", worst)
	if worst > 2*600 {
		t.Errorf("reads by memory scan up to %d events, most is 600", worst)
	}
}

// TestMemoryIndexStatementsStayFew: the catch-up's inserts, whatever their
// count of entries, take few of the writer's maxStmts prepared statements,
// which appendEvents' statements need.
func TestMemoryIndexStatementsStayFew(t *testing.T) {
	s := openMemIndex(t, filepath.Join(t.TempDir(), "stmts.db"), indexWhenIdle)
	for round := range 8 {
		for i := range 60 {
			ids := make([]string, 1+(i*7+round)%50)
			for j := range ids {
				ids[j] = fmt.Sprintf("m%d", (i*13+j*(round+1))%997)
			}
			admitMemories(t, s, "t", ids...)
		}
		waitIndexed(t, s)
	}
	time.Sleep(50 * time.Millisecond)
	index := 0
	for q := range s.audit.stmts {
		if strings.HasPrefix(q, "INSERT OR IGNORE INTO audit_memory_index") {
			index++
		}
	}
	t.Logf("%d statements prepared, %d of them the memory index's", len(s.audit.stmts), index)
	if index > 8 {
		t.Errorf("%d of the writer's %d prepared statements insert index entries", index, len(s.audit.stmts))
	}
}

// TestMemoryIndexBacklog: AuditMemoryBacklog says how many events the
// memory index has yet to cover, as the writer last saw it: all of them
// while it does not index, none once it has caught up.
func TestMemoryIndexBacklog(t *testing.T) {
	dir := t.TempDir()
	never := openMemIndex(t, filepath.Join(dir, "never.db"), indexNever)
	if n := never.AuditMemoryBacklog(); n != 0 {
		t.Fatalf("backlog of an empty store: %d", n)
	}
	admitMemories(t, never, "t1", "m1", "m2", "m3")
	if _, last := memIndexState(t, never); never.AuditMemoryBacklog() != last || last == 0 {
		t.Fatalf("backlog %d with %d events and no indexing", never.AuditMemoryBacklog(), last)
	}
	eager := openMemIndex(t, filepath.Join(dir, "eager.db"), indexEagerly)
	admitMemories(t, eager, "t1", "m1", "m2", "m3")
	deadline := time.Now().Add(20 * time.Second)
	for eager.AuditMemoryBacklog() != 0 {
		if time.Now().After(deadline) {
			t.Fatalf("backlog still %d after 20 s of eager indexing", eager.AuditMemoryBacklog())
		}
		time.Sleep(5 * time.Millisecond)
	}
	waitIndexed(t, eager)
}

// TestMemoryIndexStepBounds: a batch of the writer's own events is
// inserted in steps of at most memIndexMemories memories and memIndexStep
// entries, each its own transaction. With one entry per memory, steps fill
// up to the memory bound; with many entries per memory (the same memories
// in every admission), up to the entry bound.
func TestMemoryIndexStepBounds(t *testing.T) {
	for _, tc := range []struct {
		name     string
		id       func(i, j int) string
		boundary func(d stepCount) int // the bound the widest step should reach
		want     int
	}{
		{"one entry per memory", func(i, j int) string { return fmt.Sprintf("m%d-%02d", i, j) },
			func(d stepCount) int { return d.memories }, memIndexMemories},
		{"twelve entries per memory", func(_, j int) string { return fmt.Sprintf("m%02d", j) },
			func(d stepCount) int { return d.entries }, memIndexStep},
	} {
		t.Run(tc.name, func(t *testing.T) {
			steps := indexSteps(t, tc.id)
			widest := 0
			for i, d := range steps {
				if d.entries > memIndexStep || d.memories > memIndexMemories {
					t.Errorf("step %d inserted %d entries of %d memories, over the bounds %d and %d", i, d.entries, d.memories, memIndexStep, memIndexMemories)
				}
				widest = max(widest, tc.boundary(d))
			}
			if widest != tc.want {
				t.Errorf("the widest step reached %d, want %d (steps %v)", widest, tc.want, steps)
			}
		})
	}
}

// A stepCount is what one step of the catch-up inserted.
type stepCount struct{ entries, memories int }

// indexSteps admits 12 × 100 memories named by id, lets an idle writer
// index them in batches of its own events, and returns what each step
// inserted.
func indexSteps(t *testing.T, id func(i, j int) string) []stepCount {
	t.Helper()
	s := openMemIndex(t, filepath.Join(t.TempDir(), "steps.db"),
		memIndexSettings{batch: 1000, step: memIndexStep, memories: memIndexMemories, idle: 20 * time.Millisecond})
	s.audit.mi.most = 1 << 40 // only the batch path, never the trail's
	count := func() stepCount {
		var c stepCount
		if err := s.db.QueryRowContext(ctx, "SELECT count(*), count(DISTINCT memory_id) FROM audit_memory_index").Scan(&c.entries, &c.memories); err != nil {
			t.Error(err)
		}
		return c
	}
	var (
		mu   sync.Mutex
		seen []stepCount
	)
	s.audit.beforeStep = func() { // on the writer's goroutine: what the steps before committed
		c := count()
		mu.Lock()
		seen = append(seen, c)
		mu.Unlock()
	}
	for i := range 12 {
		ids := make([]string, 100)
		for j := range ids {
			ids[j] = id(i, j)
		}
		admitMemories(t, s, "t", ids...)
	}
	waitIndexed(t, s)
	final := count()
	if final.entries != 1200 {
		t.Fatalf("%d entries indexed, want 1200", final.entries)
	}
	mu.Lock()
	defer mu.Unlock()
	seen = append(seen, final)
	var steps []stepCount
	for i := 1; i < len(seen); i++ {
		steps = append(steps, stepCount{seen[i].entries - seen[i-1].entries, seen[i].memories - seen[i-1].memories})
	}
	return steps
}

// BenchmarkEventsByMemoryBacklog is a read of one memory's events while a
// backlog of events (admissions of 50 memories each, payloads of about
// 500 bytes) waits for the memory index: what a read costs between two
// batches of the catch-up.
func BenchmarkEventsByMemoryBacklog(b *testing.B) {
	payload := []byte(`{"x":"` + strings.Repeat("a", 460) + `"}`)
	for _, waiting := range []int{512, 4096, 8192} {
		b.Run(fmt.Sprintf("waiting=%d", waiting), func(b *testing.B) {
			s, err := Open(ctx, filepath.Join(b.TempDir(), "backlog.db"))
			if err != nil {
				b.Fatal(err)
			}
			defer s.Close()
			setMemIndex(s, indexNever)
			for i := range waiting / 50 {
				a := &audit.Admission{Search: audit.Event{Kind: audit.Search, At: t0, TaskID: "t", UserID: "u", Payload: []byte(`{}`)}}
				for j := range 50 {
					a.Decisions = append(a.Decisions, audit.Event{Kind: audit.Decision, At: t0, TaskID: "t", UserID: "u",
						MemoryID: fmt.Sprintf("m%d-%d", i, j), Decision: "admit", Payload: payload})
				}
				if _, err := s.RecordAdmission(ctx, a); err != nil {
					b.Fatal(err)
				}
			}
			for b.Loop() {
				if evs, err := s.Events(ctx, audit.Filter{MemoryID: "m3-7"}); err != nil || len(evs) != 1 {
					b.Fatalf("%d events, %v", len(evs), err)
				}
			}
		})
	}
}
