package sqlite

import (
	"context"
	"database/sql"
	"sync"
)

// maxStmtCache bounds the statements a store keeps prepared on its pool: the
// half dozen of the read path and the shapes of Events' filters used (a
// task's decisions, a search's events, …), far fewer than this in practice.
// Statements beyond it run unprepared.
const maxStmtCache = 64

// A stmtCache keeps the statements of a store's frequent reads prepared on
// its connection pool, by text, so that SQLite parses and plans each once
// rather than on every call (for the reads of one admission, parsing cost
// about as much as running them). A statement is prepared on first use,
// which works the same on read-write, read-only and immutable pools and
// costs an open nothing; database/sql then prepares it again on each
// connection of the pool it runs on, once. Statements are closed when the
// store is.
type stmtCache struct {
	db     *sql.DB
	mu     sync.RWMutex
	closed bool
	m      map[string]*sql.Stmt
}

// stmt returns q prepared on the pool, or nil if it cannot be (the store is
// closed, the cache is full or preparing failed): the caller then runs q
// unprepared, which reports any error of q itself. No lock is held while
// preparing, which waits for a connection of the pool.
func (c *stmtCache) stmt(ctx context.Context, q string) *sql.Stmt {
	c.mu.RLock()
	st, closed, full := c.m[q], c.closed, len(c.m) >= maxStmtCache
	c.mu.RUnlock()
	if st != nil || closed || full {
		return st
	}
	st, err := c.db.PrepareContext(ctx, q)
	if err != nil {
		return nil
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if have := c.m[q]; have != nil || c.closed || len(c.m) >= maxStmtCache {
		st.Close() // prepared meanwhile by another call, or not to be kept
		return have
	}
	if c.m == nil {
		c.m = map[string]*sql.Stmt{}
	}
	c.m[q] = st
	return st
}

// close closes every statement; later calls of stmt return nil. A query
// running still finishes: database/sql closes its statement after it.
func (c *stmtCache) close() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.closed = true
	for _, st := range c.m {
		st.Close()
	}
	c.m = nil
}

// query runs q, prepared once and kept (see stmtCache).
func (s *Store) query(ctx context.Context, q string, args ...any) (*sql.Rows, error) {
	if st := s.stmts.stmt(ctx, q); st != nil {
		return st.QueryContext(ctx, args...)
	}
	return s.db.QueryContext(ctx, q, args...)
}
