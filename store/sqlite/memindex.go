package sqlite

import (
	"cmp"
	"context"
	"database/sql"
	"errors"
	"math/rand/v2"
	"slices"
	"strings"
	"time"

	"github.com/memgate/memgate/audit"
)

// The audit trail finds a memory's events through audit_memory_index
// (schema v8), which the audit writer fills after it has acknowledged the
// events, rather than through an index that each admission's transaction
// updated. An admission records a decision for each of its k candidates,
// and k memories' entries sit on k leaves spread over the file: with
// k = 50 they were most of the pages an admission wrote, and a third of
// its latency. Filled later, many admissions at once and in memory order,
// the entries of a memory retrieved by several admissions share one write
// of their leaf, and the work is done while no admission waits for the
// writer.
//
// The invariant is: every event with a memory and a seq at most
// audit_memory_upto (in meta) has its entry. Events after it are found by
// scanning them (Store.Events), so a read never misses an event, whatever
// the writer has done or not done yet.

// memoryIndexUpto is an SQL expression: the greatest seq that
// audit_memory_index covers.
const memoryIndexUpto = "coalesce((SELECT CAST(value AS INTEGER) FROM meta WHERE key = 'audit_memory_upto'), 0)"

// memIndexer is the audit writer's state of the memory index's catch-up.
// Only the writer's goroutine uses it.
//
// The writer keeps the memories of the events it committed, so it indexes
// them without reading the events back: a batch takes the writer's own
// events that follow audit_memory_upto without a gap, sorts their entries
// by memory and inserts them in steps of a few memories each, one
// transaction per step, and the last step moves audit_memory_upto to the
// batch's end. A crash mid-batch leaves entries past audit_memory_upto,
// which the next batch inserts again (OR IGNORE). Events the writer has no
// record of (another process's, revocations the store writes in their own
// transactions, those an earlier process left) are indexed from the trail
// itself, a range at a time, each with the move of audit_memory_upto in its
// transaction.
//
// Each step checks that the trail is still the one the writer recorded: the
// batch's last event must be as written, and audit_memory_step (in meta)
// must hold the token the batch's previous step wrote there. A file
// restored in place from an older copy fails one or the other, and the
// writer then drops what it recorded and indexes the trail itself.
type memIndexer struct {
	loaded bool      // upto and last were read from the store
	upto   int64     // audit_memory_upto as last read or written
	last   int64     // the greatest seq the writer knows of
	runs   []seqRun  // what the writer committed after upto, in seq order
	cur    *memBatch // the batch under way, if any
	idling bool      // the writer was idle memIndexIdle: index every event waiting
	failed bool      // the last step failed: no idle step till the next group

	// Settings, which tests lower; read only after the writer's first
	// request.
	batch    int64         // events waiting before an idle writer indexes them: memIndexBatch
	most     int64         // events waiting beyond which the writer indexes after each group: memIndexMost
	idle     time.Duration // memIndexIdle
	step     int           // entries (events from the trail) one step inserts at most: memIndexStep
	memories int           // memories one step of a batch inserts entries of at most: memIndexMemories
}

// A seqRun is the events of one request the writer committed: seqs first to
// last, those of them that name a memory, and what identifies the last.
type seqRun struct {
	first, last int64
	refs        []memRef
	lastKey     eventKey
}

// newRun is the run of events written from seq first on.
func newRun(first int64, events []audit.Event) seqRun {
	e := &events[len(events)-1]
	run := seqRun{first: first, last: first + int64(len(events)) - 1, lastKey: eventKey{string(e.Kind), e.MemoryID, e.At.UnixNano()}}
	for i := range events {
		if id := events[i].MemoryID; id != "" {
			run.refs = append(run.refs, memRef{first + int64(i), id})
		}
	}
	return run
}

// An eventKey identifies an event in the trail beyond its seq, to tell the
// events the writer wrote from others at the same seqs: those of an older
// copy of the file restored in place, say.
type eventKey struct {
	kind, memory string
	at           int64
}

// A memRef is an event's entry in the memory index.
type memRef struct {
	seq int64
	id  string
}

// A memBatch is the entries of the writer's events lo+1 to hi, sorted by
// memory, of which those before pos are inserted.
type memBatch struct {
	lo, hi int64
	hiKey  eventKey // event hi, to check that the events are still these
	refs   []memRef
	pos    int
	token  int64 // what the batch's last step wrote in audit_memory_step
}

// errTrailChanged is the error of a step that found the trail it was to
// index replaced.
var errTrailChanged = errors.New("the audit trail is not the one the writer wrote")

// The catch-up's bounds. A step of a batch writes the leaves of at most
// memIndexMemories memories, and at most memIndexStep entries: under a
// millisecond of the writer's time as a rule, which an admission that
// arrives during one waits. A batch covers at least memIndexBatch events,
// about eighty admissions of fifty candidates: the larger the batch, the
// more of its entries share a leaf of the index (the entries of one memory,
// and of memories next to each other in its order), and the fewer leaves
// each entry costs; steps of few memories, when each memory has one entry,
// cost more in their own transaction than in their inserts. The price is
// paid by reads by memory, which scan the events not yet indexed: up to a
// batch and what arrives while it is written, where smaller batches had
// them scan a tenth of that (docs/design.md has the figures).
// memIndexMost bounds the events such a read scans, a few milliseconds'
// worth, when the writer is never idle.
const (
	memIndexBatch    = 4096
	memIndexMost     = 16384
	memIndexIdle     = 250 * time.Millisecond
	memIndexStep     = 256
	memIndexMemories = 64
)

func newMemIndexer() memIndexer {
	return memIndexer{batch: memIndexBatch, most: memIndexMost, idle: memIndexIdle,
		step: memIndexStep, memories: memIndexMemories}
}

// publishBacklog makes waiting readable outside the writer's goroutine
// (Store.AuditMemoryBacklog).
func (w *auditWriter) publishBacklog() { w.backlog.Store(w.mi.waiting()) }

// waiting is about how many events the index does not cover yet: an upper
// bound, since events without a memory count too.
func (m *memIndexer) waiting() int64 {
	if !m.loaded {
		return 0
	}
	return max(m.last-m.upto, 0)
}

// load reads the index's state from the store, forgetting what the writer
// recorded.
func (w *auditWriter) load(ctx context.Context) {
	m := &w.mi
	m.runs, m.cur = nil, nil
	err := w.db.QueryRowContext(ctx, "SELECT "+memoryIndexUpto+", (SELECT coalesce(max(seq), 0) FROM audit_events)").Scan(&m.upto, &m.last)
	m.loaded = err == nil
}

// committed records run, which the writer committed, reading the index's
// state first if it has not yet: a store may have been left with events to
// index by an earlier process.
func (w *auditWriter) committed(ctx context.Context, run seqRun) {
	m := &w.mi
	m.failed = false
	if m.loaded && run.first <= m.last {
		// Seqs went back: the file was replaced under the writer. The
		// trail is indexed from itself.
		m.loaded = false
	}
	if !m.loaded {
		// The run is in the trail already: recorded if it ends it, and
		// the events before it are indexed from the trail.
		if w.load(ctx); !m.loaded || m.last != run.last {
			return
		}
	}
	m.runs = append(m.runs, run)
	m.last = run.last
	if m.waiting() > 4*m.most {
		// Steps fail, or cannot keep up: keep memory bounded, and
		// index the trail itself once they can.
		m.runs, m.cur = nil, nil
	}
}

// idleWork reports whether the writer, with no request waiting, has events
// to index now. It also turns off idling once they are all indexed.
func (m *memIndexer) idleWork() bool {
	n := m.waiting()
	if n == 0 {
		m.idling = false
		return false
	}
	return !m.failed && (m.idling || n >= m.batch)
}

// indexStep runs one step of the catch-up in one transaction; fromTrail
// indexes from the trail, not from the writer's record. It returns false if
// it failed; the next step retries.
func (w *auditWriter) indexStep(ctx context.Context, fromTrail bool) bool {
	defer w.publishBacklog()
	m := &w.mi
	if w.beforeStep != nil {
		w.beforeStep()
	}
	if fromTrail {
		m.runs, m.cur = nil, nil
	}
	var next memIndexer // m as it is after the step, if it commits
	err := w.tx(ctx, func(ex execer) error {
		tx := ex.(*stmtTx).tx
		var upto int64
		if err := tx.QueryRowContext(ctx, "SELECT "+memoryIndexUpto).Scan(&upto); err != nil {
			return err
		}
		next = *m
		if next.cur != nil {
			b := *next.cur // its position moves only if the step commits
			next.cur = &b
		}
		next.forget(upto)
		if next.cur == nil && (len(next.runs) == 0 || next.runs[0].first > upto+1) {
			return next.insertFrom(ctx, ex, tx, upto)
		}
		if next.cur == nil {
			next.cur = next.newBatch(upto)
		}
		return next.insertBatch(ctx, ex, tx, upto)
	})
	if errors.Is(err, errTrailChanged) {
		w.load(ctx) // the step wrote nothing
		return true
	}
	if err != nil {
		m.failed = true
		return false
	}
	*m = next
	return true
}

// forget drops the runs, and the batch, that the index covers up to upto.
func (m *memIndexer) forget(upto int64) {
	if m.cur != nil && (upto >= m.cur.hi || upto < m.cur.lo) {
		// Another writer indexed it, or the file was replaced by an
		// older copy (which the next batch's checks find out).
		m.cur = nil
	}
	i := 0
	for i < len(m.runs) && m.runs[i].last <= upto {
		i++
	}
	m.runs = m.runs[i:]
	m.upto = max(m.upto, upto)
}

// newBatch takes the runs that follow upto without a gap, up to m.most
// entries, into a batch.
func (m *memIndexer) newBatch(upto int64) *memBatch {
	b := &memBatch{lo: upto, hi: upto}
	taken := 0
	for _, run := range m.runs {
		if run.first > b.hi+1 || (taken > 0 && int64(len(b.refs)+len(run.refs)) > m.most) {
			break // another process's events come first, or enough
		}
		for _, r := range run.refs {
			if r.seq > upto {
				b.refs = append(b.refs, r)
			}
		}
		b.hi, b.hiKey, taken = run.last, run.lastKey, taken+1
	}
	m.runs = m.runs[taken:]
	// One leaf after the other, as the index is sorted.
	slices.SortFunc(b.refs, func(x, y memRef) int {
		if c := strings.Compare(x.id, y.id); c != 0 {
			return c
		}
		return cmp.Compare(x.seq, y.seq)
	})
	return b
}

// insertBatch inserts the entries of the next few memories of the batch;
// after the last, it moves audit_memory_upto to the batch's end. It inserts
// nothing, and returns errTrailChanged, if the trail is not the one the
// writer recorded (see memIndexer).
func (m *memIndexer) insertBatch(ctx context.Context, ex execer, tx *sql.Tx, upto int64) error {
	b := m.cur
	var key eventKey
	var token sql.NullInt64
	err := tx.QueryRowContext(ctx, `SELECT kind, coalesce(memory_id, ''), at,
		(SELECT CAST(value AS INTEGER) FROM meta WHERE key = 'audit_memory_step') FROM audit_events WHERE seq = ?`, b.hi).
		Scan(&key.kind, &key.memory, &key.at, &token)
	if errors.Is(err, sql.ErrNoRows) || err == nil && (key != b.hiKey || b.pos > 0 && token.Int64 != b.token) {
		return errTrailChanged
	}
	if err != nil {
		return err
	}
	b.token = rand.Int64()
	if _, err := ex.ExecContext(ctx, `INSERT INTO meta (key, value) VALUES ('audit_memory_step', CAST(? AS TEXT))
		ON CONFLICT (key) DO UPDATE SET value = excluded.value`, b.token); err != nil {
		return err
	}
	end, memories := b.pos, 0
	for end < len(b.refs) && end-b.pos < m.step {
		if end == b.pos || b.refs[end].id != b.refs[end-1].id {
			if memories == m.memories {
				break
			}
			memories++
		}
		end++
	}
	if err := insertRefs(ctx, ex, b.refs[b.pos:end]); err != nil {
		return err
	}
	b.pos = end
	if end < len(b.refs) {
		return nil
	}
	m.cur = nil
	m.upto = max(b.hi, upto)
	return setMemoryIndexUpto(ctx, ex, b.hi)
}

// refsPerStmt is how many entries one insert statement takes. Every
// statement has this many, the last entry repeated to fill it (OR IGNORE
// makes the copies no-ops), so that the writer prepares one statement for
// them rather than one per count.
const refsPerStmt = 64

// insertRefsStmt inserts refsPerStmt entries.
var insertRefsStmt = "INSERT OR IGNORE INTO audit_memory_index (memory_id, seq) VALUES " +
	strings.TrimSuffix(strings.Repeat("(?,?),", refsPerStmt), ",")

// insertRefs inserts index entries.
func insertRefs(ctx context.Context, ex execer, refs []memRef) error {
	args := make([]any, 2*refsPerStmt)
	for start := 0; start < len(refs); start += refsPerStmt {
		for i := range refsPerStmt {
			r := refs[min(start+i, len(refs)-1)]
			args[2*i], args[2*i+1] = r.id, r.seq
		}
		if _, err := ex.ExecContext(ctx, insertRefsStmt, args...); err != nil {
			return err
		}
	}
	return nil
}

// insertFrom inserts the entries of the events after upto that the writer
// has no record of, reading them from the trail: at most m.step events, and
// none of the writer's next run; and moves audit_memory_upto past them.
func (m *memIndexer) insertFrom(ctx context.Context, ex execer, tx *sql.Tx, upto int64) error {
	end := upto + int64(m.step)
	if len(m.runs) > 0 {
		end = min(end, m.runs[0].first-1)
	}
	var last int64
	if err := tx.QueryRowContext(ctx, "SELECT coalesce(max(seq), 0) FROM audit_events").Scan(&last); err != nil {
		return err
	}
	end = max(min(end, last), upto)
	if _, err := ex.ExecContext(ctx, `INSERT OR IGNORE INTO audit_memory_index (memory_id, seq)
		SELECT memory_id, seq FROM audit_events WHERE seq > ? AND seq <= ? AND memory_id IS NOT NULL ORDER BY memory_id, seq`, upto, end); err != nil {
		return err
	}
	// The trail as this transaction sees it: what the writer knew may be
	// past its end if the file was replaced by a shorter copy.
	m.upto, m.last = end, max(last, end)
	if len(m.runs) > 0 {
		m.last = max(m.last, m.runs[len(m.runs)-1].last)
	}
	return setMemoryIndexUpto(ctx, ex, end)
}

// setMemoryIndexUpto moves audit_memory_upto forward to end.
func setMemoryIndexUpto(ctx context.Context, ex execer, end int64) error {
	_, err := ex.ExecContext(ctx, `INSERT INTO meta (key, value) VALUES ('audit_memory_upto', CAST(? AS TEXT))
		ON CONFLICT (key) DO UPDATE SET value = excluded.value WHERE CAST(value AS INTEGER) < CAST(excluded.value AS INTEGER)`, end)
	return err
}
