package sqlite

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/memgate/memgate/audit"
	"github.com/memgate/memgate/internal/benchstats"
	"github.com/memgate/memgate/store"
)

// admission is an admission of task with n decisions, the first of them
// quarantined.
func admission(task string, n int) *audit.Admission {
	a := &audit.Admission{Search: audit.Event{Kind: audit.Search, At: t0, TaskID: task, UserID: "u", Payload: []byte(`{}`)}}
	for i := range n {
		a.Decisions = append(a.Decisions, audit.Event{Kind: audit.Decision, At: t0, TaskID: task, UserID: "u",
			MemoryID: fmt.Sprintf("m%d", i), Decision: "admit", Payload: []byte(`{}`)})
	}
	if n > 0 {
		a.Quarantine = []audit.QuarantineItem{{MemoryID: "m0", UserID: "u", TaskID: task, At: t0,
			Context: []byte(`{}`), Reasons: []byte(`[]`), Status: audit.Pending}}
	}
	return a
}

// checkAdmission fails unless the store holds task's admission whole under
// searchID: its search event and n decisions linked to it.
func checkAdmission(t *testing.T, s *Store, task string, searchID int64, n int) {
	t.Helper()
	evs, err := s.Events(ctx, audit.Filter{SearchID: searchID})
	if err != nil {
		t.Fatal(err)
	}
	if len(evs) != 1+n || evs[0].Seq != searchID || evs[0].Kind != audit.Search || evs[0].TaskID != task {
		t.Fatalf("admission %s (search %d): %d events, want its search and %d decisions", task, searchID, len(evs), n)
	}
	for _, ev := range evs[1:] {
		if ev.Kind != audit.Decision || ev.SearchID != searchID || ev.TaskID != task {
			t.Fatalf("admission %s: event %d is a %s of task %s linked to %d", task, ev.Seq, ev.Kind, ev.TaskID, ev.SearchID)
		}
	}
}

// noEvents fails if the store holds any event of task.
func noEvents(t *testing.T, s *Store, task string) {
	t.Helper()
	if evs, err := s.Events(ctx, audit.Filter{TaskID: task}); err != nil || len(evs) != 0 {
		t.Fatalf("task %s: %d events written, want none (%v)", task, len(evs), err)
	}
}

// holdWriter makes the writer stop before writing its next group until the
// returned release is called; held is closed once it has stopped. Every
// group's size in requests is sent on sizes, if not nil.
func holdWriter(t *testing.T, s *Store, sizes chan<- int) (held <-chan struct{}, release func()) {
	t.Helper()
	w := s.audit
	if w == nil {
		t.Fatal("no audit writer")
	}
	h, r := make(chan struct{}), make(chan struct{})
	var once sync.Once
	// Set before any request is sent: the writer reads it after receiving
	// one.
	w.beforeGroup = func(group []*auditReq) {
		if sizes != nil {
			sizes <- len(group)
		}
		once.Do(func() {
			close(h)
			<-r
		})
	}
	var ronce sync.Once
	release = func() { ronce.Do(func() { close(r) }) }
	t.Cleanup(release)
	return h, release
}

// waitQueued waits until n requests wait for the writer.
func waitQueued(t *testing.T, s *Store, n int) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); len(s.audit.reqs) != n; {
		if time.Now().After(deadline) {
			t.Fatalf("%d requests queued, want %d", len(s.audit.reqs), n)
		}
		time.Sleep(time.Millisecond)
	}
}

// refusing reports whether w refuses new requests: its close has begun.
func (w *auditWriter) refusing() bool {
	w.mu.RLock()
	defer w.mu.RUnlock()
	return w.closed
}

type result struct {
	seq int64
	err error
}

// TestAuditWriterConcurrent: 8 goroutines record 50 admissions each at once.
// Every admission is stored whole and linked to its own search event, every
// event has its own sequence number, each goroutine's admissions are in the
// order it made them, and the review items are linked to their searches.
func TestAuditWriterConcurrent(t *testing.T) {
	s, _ := openTemp(t)
	const goroutines, each, decisions = 8, 50, 5
	var groups, largest int
	var mu sync.Mutex
	s.audit.beforeGroup = func(g []*auditReq) {
		mu.Lock()
		groups, largest = groups+1, max(largest, len(g))
		mu.Unlock()
	}
	ids := make([][]int64, goroutines)
	var wg sync.WaitGroup
	for g := range goroutines {
		wg.Go(func() {
			for i := range each {
				id, err := s.RecordAdmission(ctx, admission(fmt.Sprintf("g%d-%d", g, i), decisions))
				if err != nil {
					t.Error(err)
					return
				}
				ids[g] = append(ids[g], id)
			}
		})
	}
	wg.Wait()
	if t.Failed() {
		t.FailNow()
	}
	t.Logf("%d admissions in %d transactions, at most %d in one", goroutines*each, groups, largest)

	evs, err := s.Events(ctx, audit.Filter{})
	if err != nil {
		t.Fatal(err)
	}
	if len(evs) != goroutines*each*(1+decisions) {
		t.Fatalf("%d events, want %d", len(evs), goroutines*each*(1+decisions))
	}
	searchOf := map[int64]string{} // search seq → task
	decided := map[int64]int{}     // search seq → decisions linked to it
	for i, ev := range evs {
		if i > 0 && ev.Seq <= evs[i-1].Seq {
			t.Fatalf("event seqs %d then %d", evs[i-1].Seq, ev.Seq)
		}
		switch ev.Kind {
		case audit.Search:
			searchOf[ev.Seq] = ev.TaskID
		case audit.Decision:
			if searchOf[ev.SearchID] != ev.TaskID {
				t.Fatalf("decision %d of task %s is linked to search %d", ev.Seq, ev.TaskID, ev.SearchID)
			}
			decided[ev.SearchID]++
		}
	}
	returned := map[int64]bool{}
	for g := range goroutines {
		for i, id := range ids[g] {
			if i > 0 && id <= ids[g][i-1] {
				t.Fatalf("goroutine %d: admission %d has search %d, after %d", g, i, id, ids[g][i-1])
			}
			if returned[id] {
				t.Fatalf("search %d returned twice", id)
			}
			returned[id] = true
			if task := fmt.Sprintf("g%d-%d", g, i); searchOf[id] != task || decided[id] != decisions {
				t.Fatalf("%s: search %d is of task %q with %d decisions", task, id, searchOf[id], decided[id])
			}
		}
	}
	items, err := s.Queue(ctx, audit.QueueFilter{})
	if err != nil {
		t.Fatal(err)
	}
	if len(items) != goroutines*each {
		t.Fatalf("%d review items, want %d", len(items), goroutines*each)
	}
	for _, it := range items {
		if searchOf[it.SearchID] != it.TaskID {
			t.Fatalf("review item %d of task %s is linked to search %d", it.Seq, it.TaskID, it.SearchID)
		}
	}
}

// TestAuditWriterFailureIsolated: in a group where one admission fails a
// database constraint and another's caller gave up before the writer took
// it, the first fails alone, the second is not written, and the others of
// the group are written, each whole.
func TestAuditWriterFailureIsolated(t *testing.T) {
	s, _ := openTemp(t)
	// A constraint of the writer's connection only: events of task "bad"
	// are refused.
	if _, err := s.audit.db.ExecContext(ctx, `CREATE TEMP TRIGGER refuse_bad BEFORE INSERT ON audit_events
		WHEN NEW.task_id = 'bad' BEGIN SELECT RAISE(ABORT, 'bad row refused'); END`); err != nil {
		t.Fatal(err)
	}
	sizes := make(chan int, 16)
	held, release := holdWriter(t, s, sizes)
	record := func(ctx context.Context, task string) <-chan result {
		ch := make(chan result, 1)
		go func() {
			id, err := s.RecordAdmission(ctx, admission(task, 3))
			ch <- result{id, err}
		}()
		return ch
	}
	first := record(ctx, "first")
	<-held // the writer holds a group of "first" alone
	bad, good1 := record(ctx, "bad"), record(ctx, "good1")
	gone, cancel := context.WithCancel(ctx)
	left := record(gone, "left")
	good2 := record(ctx, "good2")
	waitQueued(t, s, 4)
	cancel()
	if r := <-left; !errors.Is(r.err, context.Canceled) || !strings.Contains(r.err.Error(), "nothing was written") {
		t.Fatalf("a caller that gave up before its admission was taken: %v", r.err)
	}
	release()

	r := <-first
	if r.err != nil {
		t.Fatal(r.err)
	}
	checkAdmission(t, s, "first", r.seq, 3)
	if r := <-bad; r.err == nil || !strings.Contains(r.err.Error(), "bad row refused") || r.seq != 0 {
		t.Fatalf("bad admission: %d, %v", r.seq, r.err)
	}
	noEvents(t, s, "bad")
	noEvents(t, s, "left")
	last := r.seq
	for _, tc := range []struct {
		task string
		ch   <-chan result
	}{{"good1", good1}, {"good2", good2}} {
		r := <-tc.ch
		if r.err != nil {
			t.Fatalf("%s failed with the bad admission of its group: %v", tc.task, r.err)
		}
		checkAdmission(t, s, tc.task, r.seq, 3)
		if r.seq <= last {
			t.Fatalf("%s has search %d, not after the earlier group's %d", tc.task, r.seq, last)
		}
	}
	if got := []int{<-sizes, <-sizes}; got[0] != 1 || got[1] != 3 {
		t.Fatalf("groups of %v requests, want [1 3]: the bad admission, good1 and good2 in one", got)
	}
	if err := s.Check(ctx); err != nil {
		t.Fatal(err)
	}
}

// TestAuditWriterCancelAfterTaken: a caller whose context ends after the
// writer took its events gets the context's error at once, and the events
// are still written.
func TestAuditWriterCancelAfterTaken(t *testing.T) {
	s, _ := openTemp(t)
	held, release := holdWriter(t, s, nil)
	c, cancel := context.WithCancel(ctx)
	ch := make(chan result, 1)
	go func() {
		seq, err := s.AppendEvents(c, []audit.Event{{Kind: audit.Binding, At: t0, TaskID: "late", Payload: []byte(`{}`)}})
		ch <- result{seq, err}
	}()
	<-held // taken, not yet written
	cancel()
	r := <-ch // returns while the writer is still held
	if !errors.Is(r.err, context.Canceled) || !strings.Contains(r.err.Error(), "may be recorded") {
		t.Fatalf("cancelled after being taken: %v", r.err)
	}
	release()
	// The writer answers in order: once a later request is answered, the
	// cancelled one was written.
	if _, err := s.AppendEvents(ctx, []audit.Event{{Kind: audit.Binding, At: t0, TaskID: "after", Payload: []byte(`{}`)}}); err != nil {
		t.Fatal(err)
	}
	if evs, err := s.Events(ctx, audit.Filter{TaskID: "late"}); err != nil || len(evs) != 1 {
		t.Fatalf("events of the cancelled request: %d, %v; want it written", len(evs), err)
	}
	// A context done before the call writes nothing.
	if _, err := s.RecordAdmission(c, admission("dead", 2)); !errors.Is(err, context.Canceled) {
		t.Fatalf("record with a done context: %v", err)
	}
	noEvents(t, s, "dead")
}

// TestAuditWriterGroupBounds: requests larger than a group's row bound are
// written in groups of their own, and a very large one alone.
func TestAuditWriterGroupBounds(t *testing.T) {
	s, _ := openTemp(t)
	const rows = 100
	s.audit.maxRows = rows // set before the writer gets a request
	sizes := make(chan int, 16)
	held, release := holdWriter(t, s, sizes)
	big := func(task string, n int) []audit.Event {
		evs := make([]audit.Event, n)
		for i := range evs {
			evs[i] = audit.Event{Kind: audit.Binding, At: t0, TaskID: task, Payload: []byte(`{}`)}
		}
		return evs
	}
	var wg sync.WaitGroup
	append1 := func(task string, n int) {
		wg.Go(func() {
			first, err := s.AppendEvents(ctx, big(task, n))
			if err != nil {
				t.Error(err)
				return
			}
			evs, err := s.Events(ctx, audit.Filter{TaskID: task})
			if err != nil || len(evs) != n || evs[0].Seq != first || evs[n-1].Seq != first+int64(n-1) {
				t.Errorf("task %s: %d events, %v; want %d from %d, consecutive", task, len(evs), err, n, first)
			}
		})
	}
	append1("a", 1)
	<-held
	append1("b", rows/2+1)
	waitQueued(t, s, 1)
	append1("c", rows/2+1)
	waitQueued(t, s, 2)
	append1("d", 2*rows)
	waitQueued(t, s, 3)
	release()
	wg.Wait()
	for i := range 4 {
		if n := <-sizes; n != 1 {
			t.Fatalf("group %d has %d requests, want 1", i, n)
		}
	}
}

// TestAuditWriterCloseDrains: Close answers every request the writer was
// given, refuses later ones, and stops the writer's goroutine.
func TestAuditWriterCloseDrains(t *testing.T) {
	before := runtime.NumGoroutine()
	path := filepath.Join(t.TempDir(), "close.db")
	s, err := Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	w := s.audit
	held, release := holdWriter(t, s, nil)
	const n = 20
	results := make(chan result, n)
	for i := range n {
		go func() {
			id, err := s.RecordAdmission(ctx, admission(fmt.Sprintf("c%d", i), 2))
			results <- result{id, err}
		}()
		if i == 0 {
			<-held
		}
	}
	waitQueued(t, s, n-1)
	closed := make(chan error, 1)
	go func() { closed <- s.Close() }()
	for !w.refusing() { // Close has begun
		time.Sleep(time.Millisecond)
	}
	release()
	if err := <-closed; err != nil {
		t.Fatal(err)
	}
	select {
	case <-w.done:
	default:
		t.Fatal("Close returned before the writer stopped")
	}
	var written []int64
	for range n {
		r := <-results
		if r.err != nil {
			t.Fatalf("a request given to the writer before Close: %v", r.err)
		}
		written = append(written, r.seq)
	}
	if _, err := w.do(ctx, &auditReq{what: "record admission", events: admission("late", 1).Decisions}); !errors.Is(err, errClosed) {
		t.Fatalf("a request after Close: %v", err)
	}
	if err := s.Close(); err != nil {
		t.Fatalf("second Close: %v", err)
	}

	s, err = Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	for _, id := range written {
		evs, err := s.Events(ctx, audit.Filter{SearchID: id})
		if err != nil || len(evs) != 3 {
			t.Fatalf("admission %d: %d events after Close, %v", id, len(evs), err)
		}
	}
	s.Close()
	// Every goroutine of the store is gone (database/sql's end soon after
	// Close).
	for deadline := time.Now().Add(5 * time.Second); runtime.NumGoroutine() > before; {
		if time.Now().After(deadline) {
			buf := make([]byte, 1<<16)
			t.Fatalf("%d goroutines after Close, %d before:\n%s", runtime.NumGoroutine(), before, buf[:runtime.Stack(buf, true)])
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// TestAuditSyncSetting: the audit writer's connection has the synchronous
// setting asked for (NORMAL by default); the store's other connections keep
// FULL.
func TestAuditSyncSetting(t *testing.T) {
	for _, tc := range []struct {
		opts OpenOptions
		want int // PRAGMA synchronous: 1 NORMAL, 2 FULL
	}{{OpenOptions{}, 1}, {OpenOptions{AuditSync: AuditSyncNormal}, 1}, {OpenOptions{AuditSync: AuditSyncFull}, 2}} {
		s, err := OpenWith(ctx, filepath.Join(t.TempDir(), "sync.db"), tc.opts)
		if err != nil {
			t.Fatal(err)
		}
		var writer, other int
		if err := s.audit.db.QueryRowContext(ctx, "PRAGMA synchronous").Scan(&writer); err != nil {
			t.Fatal(err)
		}
		if err := s.db.QueryRowContext(ctx, "PRAGMA synchronous").Scan(&other); err != nil {
			t.Fatal(err)
		}
		if writer != tc.want || other != 2 {
			t.Errorf("AuditSync %v: writer synchronous=%d, others %d; want %d and 2", tc.opts.AuditSync, writer, other, tc.want)
		}
		s.Close()
	}
	if _, err := OpenWith(ctx, filepath.Join(t.TempDir(), "bad.db"), OpenOptions{AuditSync: 7}); err == nil {
		t.Fatal("OpenWith accepted AuditSync(7)")
	}
}

// watchCheckpoints makes the writer's checkpoints (after they ran) send the
// log's state on the returned channel: frames in the log and frames copied
// into the database file; and its flushes send {-1, -1}. It must be called
// before the writer gets a request.
func watchCheckpoints(t *testing.T, s *Store, delay time.Duration) <-chan [2]int {
	t.Helper()
	w := s.audit
	ch := make(chan [2]int, 16)
	send := func(v [2]int) {
		select {
		case ch <- v:
		default:
		}
	}
	w.delay = delay
	w.checkpoint = func() {
		var busy, log, done int
		if err := s.db.QueryRowContext(ctx, "PRAGMA wal_checkpoint(PASSIVE)").Scan(&busy, &log, &done); err != nil {
			t.Error(err)
		}
		send([2]int{log, done})
	}
	flush := w.flush
	w.flush = func() {
		flush()
		send([2]int{-1, -1})
	}
	return ch
}

// TestAuditSyncNormalFlushes: with AuditSyncNormal, the checkpointer
// flushes the log soon after a commit, so that an acknowledged record is
// only briefly at risk of a power loss, and flushes the last commits when
// the store is closed; with AuditSyncFull there is no such wait.
func TestAuditSyncNormalFlushes(t *testing.T) {
	s, _ := openTemp(t)
	ckpts := watchCheckpoints(t, s, 20*time.Millisecond)
	if _, err := s.RecordAdmission(ctx, admission("a", 3)); err != nil {
		t.Fatal(err)
	}
	select {
	case st := <-ckpts:
		if st != [2]int{-1, -1} {
			t.Fatalf("a checkpoint %v instead of a flush", st)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("no flush after a commit with AuditSyncNormal")
	}

	s.audit.delay = time.Hour // read at the next wake-up, after the next request
	if _, err := s.RecordAdmission(ctx, admission("b", 3)); err != nil {
		t.Fatal(err)
	}
	s.Close()
	select {
	case st := <-ckpts:
		if st != [2]int{-1, -1} {
			t.Fatalf("a checkpoint %v instead of a flush", st)
		}
	default:
		t.Fatal("Close did not flush the last commit")
	}

	full, err := OpenWith(ctx, filepath.Join(t.TempDir(), "full.db"), OpenOptions{AuditSync: AuditSyncFull})
	if err != nil {
		t.Fatal(err)
	}
	defer full.Close()
	if full.audit.dirty != nil {
		t.Fatal("AuditSyncFull flushes again after each commit")
	}
}

// TestAuditWriterCheckpoints: the writer's own connection never
// checkpoints; the checkpointer does, every checkpointRows rows, without a
// wait.
func TestAuditWriterCheckpoints(t *testing.T) {
	s, err := OpenWith(ctx, filepath.Join(t.TempDir(), "ckpt.db"), OpenOptions{AuditSync: AuditSyncFull})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	var auto int
	if err := s.audit.db.QueryRowContext(ctx, "PRAGMA wal_autocheckpoint").Scan(&auto); err != nil || auto != 0 {
		t.Fatalf("writer's wal_autocheckpoint = %d, %v; want 0", auto, err)
	}
	ckpts := watchCheckpoints(t, s, time.Hour)
	for range checkpointRows/51 - 1 {
		if _, err := s.RecordAdmission(ctx, admission("a", 50)); err != nil {
			t.Fatal(err)
		}
	}
	select {
	case <-ckpts:
		t.Fatalf("checkpoint before %d rows", checkpointRows)
	default:
	}
	for range 2 {
		if _, err := s.RecordAdmission(ctx, admission("a", 50)); err != nil {
			t.Fatal(err)
		}
	}
	select {
	case st := <-ckpts:
		if st[0] == 0 {
			t.Fatalf("checkpoint of an empty log")
		}
	case <-time.After(10 * time.Second):
		t.Fatalf("no checkpoint after %d rows", checkpointRows)
	}
}

// TestReadOnlyRefusesAdmission: a read-only store has no audit writer and
// refuses admissions with ErrReadOnly, as every write.
func TestReadOnlyRefusesAdmission(t *testing.T) {
	s, path := openTemp(t)
	s.Close()
	ro, err := OpenWith(ctx, path, OpenOptions{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer ro.Close()
	if ro.audit != nil {
		t.Fatal("a read-only store has an audit writer")
	}
	if _, err := ro.RecordAdmission(ctx, admission("ro", 2)); !errors.Is(err, store.ErrReadOnly) {
		t.Fatalf("RecordAdmission on a read-only store: %v", err)
	}
}

// benchAdmission is an admission the size of BenchmarkAdmit20k's: 50
// decisions with payloads of realistic size.
func benchAdmission() *audit.Admission {
	a := admission("bench", 50)
	a.Search.Payload = []byte(`{"query":"` + strings.Repeat("x", 8000) + `"}`)
	for i := range a.Decisions {
		a.Decisions[i].Payload = []byte(`{"reasons":"` + strings.Repeat("r", 400) + `"}`)
	}
	return a
}

// BenchmarkRecordAdmission records admissions of 50 decisions one after
// another, for each audit durability, reporting p50 and p99 latency.
func BenchmarkRecordAdmission(b *testing.B) {
	for _, as := range []AuditSync{AuditSyncNormal, AuditSyncFull} {
		b.Run(as.String(), func(b *testing.B) {
			s, err := OpenWith(ctx, filepath.Join(b.TempDir(), "bench.db"), OpenOptions{AuditSync: as})
			if err != nil {
				b.Fatal(err)
			}
			defer s.Close()
			a := benchAdmission()
			benchstats.Loop(b, func() {
				if _, err := s.RecordAdmission(ctx, a); err != nil {
					b.Fatal(err)
				}
			})
		})
	}
}

// BenchmarkRecordAdmissionParallel records admissions from 8 goroutines at
// once; they share transactions and commits.
func BenchmarkRecordAdmissionParallel(b *testing.B) {
	for _, as := range []AuditSync{AuditSyncNormal, AuditSyncFull} {
		b.Run(as.String(), func(b *testing.B) {
			s, err := OpenWith(ctx, filepath.Join(b.TempDir(), "bench.db"), OpenOptions{AuditSync: as})
			if err != nil {
				b.Fatal(err)
			}
			defer s.Close()
			procs := runtime.GOMAXPROCS(0)
			b.SetParallelism((8 + procs - 1) / procs)
			b.RunParallel(func(pb *testing.PB) {
				a := benchAdmission()
				for pb.Next() {
					if _, err := s.RecordAdmission(ctx, a); err != nil {
						b.Error(err)
						return
					}
				}
			})
			b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "admissions/s")
		})
	}
}
