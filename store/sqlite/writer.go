package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"sync"
	"sync/atomic"
	"time"

	"modernc.org/sqlite"

	"github.com/memgate/memgate/audit"
)

// AuditSync is how durable the audit writer makes an admission record (and
// every AppendEvents) before it acknowledges it. Memory writes, revocations,
// forgettings and reviews are always written with synchronous=FULL.
type AuditSync int

const (
	// AuditSyncNormal, the default, commits the audit writer's
	// transactions with SQLite's synchronous=NORMAL in WAL mode: a commit
	// is written to the write-ahead log but not flushed to the disk
	// (fsync) before the caller is answered. An acknowledged record
	// survives a crash of the process, kill -9 included, since the log is
	// in the operating system's page cache. A power loss or a crash of
	// the operating system may lose the records acknowledged in the last
	// second or so: the writer flushes the log a second after a commit it
	// has not flushed (and a checkpoint flushes it every 1000 rows or
	// so), and any durable commit, such as a memory written, revoked or
	// forgotten, flushes every record before it. Such a loss takes the
	// last records only, never some without the ones before them, and
	// never part of one. It saves a flush per admission: about a
	// millisecond on a fast disk, much more on a slow one.
	AuditSyncNormal AuditSync = iota
	// AuditSyncFull commits the audit writer's transactions with
	// synchronous=FULL, as every other write: an acknowledged record
	// survives a power loss as well. Concurrent admissions still share
	// one flush (group commit); a single caller pays one per admission.
	AuditSyncFull
)

// String names the setting as the SQLite pragma does.
func (a AuditSync) String() string {
	switch a {
	case AuditSyncNormal:
		return "normal"
	case AuditSyncFull:
		return "full"
	}
	return fmt.Sprintf("AuditSync(%d)", int(a))
}

// pragma is the value of SQLite's synchronous pragma for a.
func (a AuditSync) pragma() (string, error) {
	switch a {
	case AuditSyncNormal:
		return "NORMAL", nil
	case AuditSyncFull:
		return "FULL", nil
	}
	return "", fmt.Errorf("unknown audit sync setting %d", int(a))
}

// Bounds of one group commit: the writer takes every request waiting, up to
// these many requests or rows (a larger request goes alone).
const (
	maxGroupRequests = 64
	maxGroupRows     = 8192
)

// checkpointRows is how many rows the writer appends to the write-ahead log
// before it asks for a checkpoint. A row of the audit trail dirties about
// one page (its indexes' leaves are spread over the file), so this is close
// to SQLite's own threshold of 1000 pages.
const checkpointRows = 1000

// syncDelay bounds how long a record acknowledged with AuditSyncNormal stays
// only in the operating system's cache: the checkpointer flushes the log
// this long after the first commit it has not flushed.
const syncDelay = time.Second

// errClosed is the error of a request to a store that was closed.
var errClosed = errors.New("the store is closed")

// An auditWriter writes RecordAdmission and AppendEvents requests through a
// dedicated connection, from one goroutine, with group commit: it takes
// every request waiting, writes them in one transaction and commits once,
// then answers each caller with its own sequence numbers. A caller is
// answered only after the transaction holding its request committed.
//
// Sequence numbers follow commit order: one connection writes every group,
// and SQLite lets one transaction write at a time, so every event committed
// later has a greater seq, whichever connection wrote it.
type auditWriter struct {
	db   *sql.DB // one connection, with the audit writer's synchronous setting
	reqs chan *auditReq
	done chan struct{} // closed when run returns

	mu     sync.RWMutex // held for reading while sending on reqs, for writing to close it
	closed bool

	closeOnce sync.Once
	closeErr  error

	maxRows int // a group's bound in rows: maxGroupRows, lower in tests

	// stmts are the statements prepared on the writer's connection, by
	// text; parsing the statement of 50 rows costs as much as binding
	// them. Statements run in a transaction that are not prepared yet are
	// prepared after it (the connection is the transaction's till then).
	stmts     map[string]*sql.Stmt
	toPrepare []string

	// The writer's connection does not checkpoint (wal_autocheckpoint=0):
	// a checkpoint copies the log into the database file and flushes both,
	// which would stall every admission waiting for the writer. The
	// writer counts the rows it appends instead and, every
	// checkpointRows, wakes the checkpointer goroutine, which runs a
	// passive checkpoint on one of the store's other connections while
	// the writer goes on. With AuditSyncNormal the writer also tells it
	// of every commit, and it flushes the log (fsync) syncDelay after the
	// first one not flushed yet.
	logged     int           // rows appended since the last wake-up
	ckpt       chan struct{} // checkpoint now
	dirty      chan struct{} // flush within delay; nil with AuditSyncFull
	delay      time.Duration // syncDelay, shorter in tests
	ckptDone   chan struct{} // closed when the checkpointer returns
	checkpoint func()
	flush      func()

	// beforeGroup, if set (tests only), is called with each group before
	// it is written, from the writer's goroutine.
	beforeGroup func(group []*auditReq)

	mi memIndexer // the catch-up of the audit trail's memory index
	// backlog is mi.waiting() as of the writer's last group or step.
	backlog atomic.Int64

	// beforeStep, if set (tests only), is called before each step of the
	// memory index's catch-up, from the writer's goroutine.
	beforeStep func()
}

// Request states: a waiting request is pending until the writer takes it
// or its caller gives up; whoever changes the state first decides whether
// it is written.
const (
	reqPending int32 = iota
	reqTaken
	reqCancelled
)

// An auditReq is one RecordAdmission or AppendEvents call.
type auditReq struct {
	ctx        context.Context
	what       string // for errors: "record admission", …
	events     []audit.Event
	quarantine []audit.QuarantineItem // an admission's review items, linked to events[0]
	admission  bool                   // link decisions and quarantine items to events[0]

	state atomic.Int32
	first int64  // the seq of events[0]
	run   seqRun // what was written, for the memory index; its refs are nil if there were no events
	err   error
	done  chan struct{} // closed once first and err are set
}

// rows is how many rows the request writes.
func (r *auditReq) rows() int { return len(r.events) + len(r.quarantine) }

// write writes the request within tx and sets r.first.
func (r *auditReq) write(ctx context.Context, tx execer) error {
	first, err := appendEvents(ctx, tx, r.events)
	if err != nil {
		return err
	}
	if r.admission {
		if err := insertQuarantine(ctx, tx, first, r.quarantine); err != nil {
			return err
		}
	}
	r.first = first
	// Recorded now, before the caller is answered and may reuse events.
	if len(r.events) > 0 {
		r.run = newRun(first, r.events)
	} else {
		r.run = seqRun{}
	}
	return nil
}

// startAuditWriter opens the audit writer's connection to the store at path,
// starts its goroutine and makes it the store's; the store's Close stops it.
func startAuditWriter(s *Store, as AuditSync) error {
	p, err := as.pragma()
	if err != nil {
		return fmt.Errorf("open store %s: %w", s.path, err)
	}
	// No automatic checkpoints (see auditWriter.checkpoint), and
	// statement journals in memory rather than in temporary files.
	conn, err := sqlite.NewConnector(dsn(s.path, modeReadWrite,
		"&_pragma=synchronous("+p+")&_pragma=wal_autocheckpoint(0)&_pragma=temp_store(MEMORY)"))
	if err != nil {
		return fmt.Errorf("open store %s: %w", s.path, err)
	}
	db := sql.OpenDB(conn)
	db.SetMaxOpenConns(1) // opened on first use, then kept
	w := &auditWriter{db: db, reqs: make(chan *auditReq, 4*maxGroupRequests), done: make(chan struct{}),
		maxRows: maxGroupRows, stmts: map[string]*sql.Stmt{}, mi: newMemIndexer(),
		ckpt: make(chan struct{}, 1), ckptDone: make(chan struct{}), delay: syncDelay}
	if as == AuditSyncNormal {
		w.dirty = make(chan struct{}, 1)
	}
	w.checkpoint = func() {
		// Best effort: a checkpoint that fails or is busy is retried at
		// the next wake-up, and the store's other connections still
		// checkpoint after their own commits.
		_, _ = s.db.ExecContext(context.Background(), "PRAGMA wal_checkpoint(PASSIVE)")
	}
	w.flush = func() { flushFile(s.path + "-wal") }
	s.audit = w
	go w.run()
	go w.checkpointer()
	return nil
}

// checkpointer runs a checkpoint each time the writer asks for one, and
// flushes the log syncDelay after a commit it was told of (dirty), until
// ckpt is closed. It reads w.delay, w.checkpoint and w.flush only once a
// wake-up has come.
func (w *auditWriter) checkpointer() {
	defer close(w.ckptDone)
	timer := time.NewTimer(time.Hour)
	timer.Stop()
	armed := false
	for {
		select {
		case _, ok := <-w.ckpt:
			if !ok { // the writer has stopped: flush its last commits
				timer.Stop()
				select {
				case <-w.dirty:
					armed = true
				default:
				}
				if armed {
					w.flush()
				}
				return
			}
			// A checkpoint that copies anything flushes the log first,
			// but one that readers keep from copying does not.
			w.checkpoint()
		case <-w.dirty: // never ready when nil
			if !armed {
				armed = true
				timer.Reset(w.delay)
			}
		case <-timer.C:
			armed = false
			w.flush()
		}
	}
}

// flushFile flushes the file at path to the disk, if there is one. The
// write-ahead log is flushed through a descriptor of its own: fsync flushes
// a file's data whichever descriptor wrote it, and SQLite's connections do
// the same to make their commits durable. It is opened for writing, which
// Windows needs to flush a file, but not written.
func flushFile(path string) {
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if err != nil {
		return // no log: nothing to flush
	}
	_ = f.Sync() // best effort, as a checkpoint; the log stays as it is
	f.Close()
}

// appended counts the rows committed requests added to the log, and wakes
// the checkpointer every checkpointRows.
func (w *auditWriter) appended(group []*auditReq) {
	if len(group) == 0 {
		return
	}
	for _, r := range group {
		w.logged += r.rows()
		if r.run.last > 0 {
			w.committed(context.Background(), r.run)
		}
	}
	if w.logged >= checkpointRows {
		w.logged = 0
		select {
		case w.ckpt <- struct{}{}:
		default: // one is under way or asked for already
		}
	}
	if w.dirty != nil {
		select {
		case w.dirty <- struct{}{}:
		default: // told already
		}
	}
}

// do queues r and waits for its answer.
//
// If ctx is done before the writer takes r, r is not written and do returns
// ctx's error. If ctx is done after the writer took r, the write goes on
// (one caller giving up must not fail the others of its transaction) and do
// returns ctx's error at once, saying the request may have been recorded;
// if r was committed already, do returns its result.
func (w *auditWriter) do(ctx context.Context, r *auditReq) (int64, error) {
	if err := ctx.Err(); err != nil {
		return 0, fmt.Errorf("%s: %w (nothing was written)", r.what, err)
	}
	r.ctx, r.done = ctx, make(chan struct{})
	w.mu.RLock()
	if w.closed {
		w.mu.RUnlock()
		return 0, fmt.Errorf("%s: %w", r.what, errClosed)
	}
	select {
	case w.reqs <- r:
		w.mu.RUnlock()
	case <-ctx.Done():
		w.mu.RUnlock()
		return 0, fmt.Errorf("%s: %w (nothing was written)", r.what, ctx.Err())
	}
	select {
	case <-r.done:
		return r.first, r.err
	case <-ctx.Done():
	}
	if r.state.CompareAndSwap(reqPending, reqCancelled) {
		return 0, fmt.Errorf("%s: %w (nothing was written)", r.what, ctx.Err())
	}
	select {
	case <-r.done:
		return r.first, r.err
	default:
		return 0, fmt.Errorf("%s: %w (it was being written when the context ended and may be recorded)", r.what, ctx.Err())
	}
}

// take claims r for the group being built; false if its caller gave up.
func (w *auditWriter) take(r *auditReq) bool {
	if err := r.ctx.Err(); err != nil && r.state.CompareAndSwap(reqPending, reqCancelled) {
		r.err = fmt.Errorf("%s: %w (nothing was written)", r.what, err)
		close(r.done)
		return false
	}
	return r.state.CompareAndSwap(reqPending, reqTaken)
}

// run is the writer's goroutine: it writes groups until reqs is closed and
// drained.
func (w *auditWriter) run() {
	defer close(w.done)
	group := make([]*auditReq, 0, maxGroupRequests)
	var next *auditReq // received but left for the next group
	open := true
	for open || next != nil {
		r := next
		next = nil
		if r == nil {
			if r, open = w.receive(); !open {
				break
			}
		}
		group = group[:0]
		rows := 0
	collect:
		for {
			if w.take(r) {
				group, rows = append(group, r), rows+r.rows()
			}
			if len(group) == maxGroupRequests {
				break
			}
			select {
			case r, open = <-w.reqs:
				if !open {
					break collect
				}
				if len(group) > 0 && rows+r.rows() > w.maxRows {
					next = r
					break collect
				}
			default:
				break collect
			}
		}
		if len(group) > 0 {
			w.write(group)
		}
		// Never idle: keep what reads scan bounded, indexing from the
		// trail, which is not bound to a few memories a step, about twice
		// what the group added.
		for n := 2 * rows; n > 0 && w.mi.waiting() >= w.mi.most && !w.mi.failed; n -= w.mi.step {
			w.indexStep(context.Background(), true)
		}
	}
}

// receive waits for the next request, false once reqs is closed. While none
// is waiting, it indexes the audit events by memory (see memIndexer): once
// memIndexBatch are waiting, or every one after memIndexIdle without a
// request.
func (w *auditWriter) receive() (*auditReq, bool) {
	ctx := context.Background()
	var timer *time.Timer
	stepped := false
	defer func() {
		if timer != nil {
			timer.Stop()
		}
	}()
	for {
		select {
		case r, ok := <-w.reqs:
			return r, ok
		default:
		}
		// One step per wait for a request, so that steps are spread over
		// the gaps between admissions rather than run into the next one,
		// unless they fall behind; an idle writer goes on till it is done.
		if w.mi.idleWork() && (!stepped || w.mi.idling || w.mi.waiting() >= 2*w.mi.batch) {
			w.indexStep(ctx, false)
			stepped = true
			continue
		}
		if w.mi.waiting() == 0 || w.mi.idling {
			r, ok := <-w.reqs
			return r, ok
		}
		if timer == nil {
			timer = time.NewTimer(w.mi.idle)
		} else {
			timer.Reset(w.mi.idle)
		}
		select {
		case r, ok := <-w.reqs:
			return r, ok
		case <-timer.C:
			w.mi.idling, w.mi.failed = true, false
		}
	}
}

// write writes a group in one transaction and answers its callers. If a
// request fails, the transaction is rolled back and each request is written
// in a transaction of its own, so that only the failing one fails.
func (w *auditWriter) write(group []*auditReq) {
	if w.beforeGroup != nil {
		w.beforeGroup(group)
	}
	// The caller's contexts do not reach the statements: a request taken
	// is written whatever becomes of its caller.
	ctx := context.Background()
	var failed *auditReq
	err := w.tx(ctx, func(tx execer) error {
		for _, r := range group {
			if err := r.write(ctx, tx); err != nil {
				failed = r
				return err
			}
		}
		return nil
	})
	if failed != nil && len(group) > 1 && !storageError(err) {
		written := group[:0:0]
		errs := make([]error, len(group))
		for i, r := range group {
			r.first = 0
			errs[i] = w.tx(ctx, func(tx execer) error { return r.write(ctx, tx) })
			if errs[i] == nil {
				written = append(written, r)
			}
		}
		w.appended(written)
		w.publishBacklog()
		for i, r := range group {
			r.answer(errs[i])
		}
		return
	}
	if err == nil {
		w.appended(group)
	}
	// Published before the callers hear back, so that a caller reads a
	// backlog that counts its own events.
	w.publishBacklog()
	for _, r := range group {
		r.answer(err)
	}
}

// answer tells r's caller the outcome.
func (r *auditReq) answer(err error) {
	if err != nil {
		r.first, r.err = 0, fmt.Errorf("%s: %w", r.what, err)
	}
	close(r.done)
}

// storageError reports errors of the file or the disk rather than of a
// request, which writing the requests one by one would only repeat.
func storageError(err error) bool {
	for _, e := range []error{ErrReadOnly, ErrDiskFull, ErrBusy, ErrCantOpen} {
		if errors.Is(err, e) {
			return true
		}
	}
	return false
}

// tx runs fn in one immediate transaction on the writer's connection and
// commits it; errors are described.
func (w *auditWriter) tx(ctx context.Context, fn func(execer) error) error {
	defer w.prepare(ctx)
	tx, err := w.db.BeginTx(ctx, nil)
	if err != nil {
		return describe(err)
	}
	if err := fn(&stmtTx{tx, w}); err != nil {
		tx.Rollback()
		return describe(err)
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("commit: %w", describe(err))
	}
	return nil
}

// maxStmts bounds the statements the writer keeps prepared: appendEvents
// makes one per number of rows in a statement, at most 101.
const maxStmts = 128

// prepare prepares the statements run since the last call that were not
// prepared, outside any transaction.
func (w *auditWriter) prepare(ctx context.Context) {
	for _, q := range w.toPrepare {
		if _, ok := w.stmts[q]; ok || len(w.stmts) >= maxStmts {
			continue
		}
		if st, err := w.db.PrepareContext(ctx, q); err == nil {
			w.stmts[q] = st
		}
	}
	w.toPrepare = w.toPrepare[:0]
}

// stmtTx is a transaction of the writer that runs the statements it has
// prepared as such.
type stmtTx struct {
	tx *sql.Tx
	w  *auditWriter
}

// ExecContext runs query within the transaction.
func (t *stmtTx) ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error) {
	if st, ok := t.w.stmts[query]; ok {
		return t.tx.StmtContext(ctx, st).ExecContext(ctx, args...)
	}
	t.w.toPrepare = append(t.w.toPrepare, query)
	return t.tx.ExecContext(ctx, query, args...)
}

// close refuses new requests, waits for the writer to write every request
// it was given, and closes its connection.
func (w *auditWriter) close() error {
	w.closeOnce.Do(func() {
		w.mu.Lock()
		w.closed = true
		close(w.reqs)
		w.mu.Unlock()
		<-w.done
		close(w.ckpt)
		<-w.ckptDone
		for _, st := range w.stmts {
			st.Close()
		}
		w.closeErr = w.db.Close()
	})
	return w.closeErr
}

// AuditQueue is how many audit writes (admissions, events) wait for the
// audit writer now: a gauge for a server's metrics. 0 for a read-only store.
func (s *Store) AuditQueue() int {
	if s.audit == nil {
		return 0
	}
	return len(s.audit.reqs)
}

// AuditMemoryBacklog is about how many audit events the index of the trail
// by memory does not cover yet, as of the audit writer's last commit or
// step (an upper bound: events that name no memory count too). Reads by
// memory scan these events; the writer indexes them while idle, so a
// backlog that keeps growing means it never is.
func (s *Store) AuditMemoryBacklog() int64 {
	if s.audit == nil {
		return 0
	}
	return s.audit.backlog.Load()
}
