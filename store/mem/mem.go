// Package mem is an in-memory implementation of store.Store, for evaluation,
// the demo and unit tests: nothing touches a file, and a store is gone when
// the last reference to it is.
//
// It answers every call of the contract exactly as store/sqlite does (the
// same order, the same relations, the same errors and messages, times kept
// to the nanosecond in UTC), so that an evaluation gives the same results on
// either backend; store/storetest and a differential test in store/sqlite
// hold the two to that. One lock guards the whole store: a write is atomic
// because no reader can see it half done.
package mem

import (
	"context"
	"fmt"
	"slices"
	"sort"
	"sync"
	"time"

	"github.com/memgate/memgate/audit"
	"github.com/memgate/memgate/auth"
	"github.com/memgate/memgate/embed"
	"github.com/memgate/memgate/lineage"
	"github.com/memgate/memgate/memory"
	"github.com/memgate/memgate/retrieve"
	"github.com/memgate/memgate/store"
)

// Store is an in-memory memgate store. It is safe for concurrent use. The
// zero value is not usable: call New.
type Store struct {
	d        *data
	readOnly bool
}

// Option configures New.
type Option func(*Store)

// ReadOnly makes every write to the new store fail with an error wrapping
// store.ErrReadOnly, for testing how callers handle a read-only store. A
// read-only view of a store that has content is ReadOnlyView.
func ReadOnly() Option { return func(s *Store) { s.readOnly = true } }

// New returns an empty store.
func New(opts ...Option) *Store {
	s := &Store{d: &data{
		memories:     map[string]*record{},
		tombstones:   map[string]memory.Tombstone{},
		lineage:      map[string][]string{},
		supersedes:   map[string][]string{},
		supersededBy: map[string][]string{},
	}}
	for _, o := range opts {
		o(s)
	}
	return s
}

// ReadOnlyView returns a read-only store over s's content: it sees every
// later write to s, and refuses writes of its own with store.ErrReadOnly, as
// a store/sqlite file opened read-only beside a writer does.
func (s *Store) ReadOnlyView() *Store { return &Store{d: s.d, readOnly: true} }

// data is what a Store holds; views share it.
type data struct {
	mu       sync.RWMutex
	identity *embed.Identity

	memories map[string]*record // stored memories by id
	order    []*record          // stored memories by seq
	// tombstones are the forgotten memories, by id.
	tombstones map[string]memory.Tombstone
	// lineage maps a stored memory to the ids it was derived from, sorted;
	// supersedes maps one to the ids it replaces, sorted; supersededBy is
	// supersedes inverted (every superseding memory, revoked or not).
	lineage, supersedes, supersededBy map[string][]string

	events   []event // events[i] has Seq i+1
	queue    []item  // queue[i] has Seq i+1
	examples []example

	keys []auth.Key // API keys, oldest first

	outbox outbox // the index outbox, if enabled
	// lastSeq is the greatest sequence number given to a memory, kept
	// when the memory is forgotten: numbers are never given twice.
	lastSeq int64
}

// record is one stored memory. Records are never changed once stored (a
// revocation stores a new one), so a snapshot of pointers can be read
// without the lock. m has no relations: they are kept beside it.
type record struct {
	seq int64
	m   memory.Memory
}

// event, item and example keep JSON as strings, as SQLite's text columns
// do, so that what is read back never aliases what was written.
type event struct {
	audit.Event
	payload string
}

type item struct {
	audit.QuarantineItem
	context, reasons string
}

type example struct {
	audit.Example
	context string
}

// Close does nothing: an in-memory store holds no resources. It stays
// usable.
func (s *Store) Close() error { return nil }

// ReadOnly reports whether s refuses writes.
func (s *Store) ReadOnly() bool { return s.readOnly }

// errReadOnly is the error of a write to a read-only store.
func errReadOnly(what string) error { return fmt.Errorf("%s: %w", what, store.ErrReadOnly) }

// stamp is t as the store keeps it: nanoseconds since 1970, in UTC, without
// a monotonic reading, exactly what store/sqlite reads back.
func stamp(t time.Time) time.Time { return time.Unix(0, t.UnixNano()).UTC() }

// stampOpt is stamp for optional times: the zero time stays zero.
func stampOpt(t time.Time) time.Time {
	if t.IsZero() {
		return time.Time{}
	}
	return stamp(t)
}

// Identity returns the embedder identity recorded in the store, and false if
// none is recorded yet.
func (s *Store) Identity(ctx context.Context) (embed.Identity, bool, error) {
	if err := ctx.Err(); err != nil {
		return embed.Identity{}, false, fmt.Errorf("read embedder identity: %w", err)
	}
	s.d.mu.RLock()
	defer s.d.mu.RUnlock()
	if s.d.identity == nil {
		return embed.Identity{}, false, nil
	}
	return *s.d.identity, true, nil
}

// SetIdentity records the embedder identity of a store that has none. Setting
// the identity the store records already is a no-op; a different one is
// refused.
func (s *Store) SetIdentity(ctx context.Context, id embed.Identity) error {
	const what = "record embedder identity"
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("%s: %w", what, err)
	}
	s.d.mu.Lock()
	defer s.d.mu.Unlock()
	if have := s.d.identity; have != nil {
		if *have == id {
			return nil
		}
		return fmt.Errorf("%s: store already records embedder %s", what, *have)
	}
	if s.readOnly {
		return errReadOnly(what)
	}
	s.d.identity = &id
	return nil
}

// CheckBatch reports every problem Insert would refuse in ms, as
// store.ItemErrors, without writing.
func (s *Store) CheckBatch(ctx context.Context, ms []memory.Memory, onConflict store.OnConflict) error {
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("check memories: %w", err)
	}
	s.d.mu.RLock()
	defer s.d.mu.RUnlock()
	_, err := s.d.checkBatch(ms, onConflict)
	return err
}

// checkBatch is store.CheckInsert over the store's maps. The caller holds
// the lock.
func (d *data) checkBatch(ms []memory.Memory, onConflict store.OnConflict) ([]bool, error) {
	return store.CheckInsert(ms, onConflict, func(ids []string) (map[string]store.Owner, error) {
		out := make(map[string]store.Owner, len(ids))
		for _, id := range ids {
			if user, forgotten, found := d.owner(id); found {
				out[id] = store.Owner{UserID: user, Forgotten: forgotten}
			}
		}
		return out, nil
	})
}

// owner says whose memory id is, and whether it was forgotten.
func (d *data) owner(id string) (user string, forgotten, found bool) {
	if r, ok := d.memories[id]; ok {
		return r.m.UserID, false, true
	}
	if t, ok := d.tombstones[id]; ok {
		return t.UserID, true, true
	}
	return "", false, false
}

// Insert stores ms, all of them or, on any error, none, and returns how many
// it inserted. Lineage and supersession references must name memories of
// the same user that are stored, forgotten or in the batch. progress, if not
// nil, is told every 2048 memories and at the end how many are done (after
// the insert: an in-memory insert takes no time worth watching).
func (s *Store) Insert(ctx context.Context, ms []memory.Memory, onConflict store.OnConflict, progress func(done int)) (int, error) {
	const what = "insert memories"
	if err := ctx.Err(); err != nil {
		return 0, fmt.Errorf("%s: %w", what, err)
	}
	var ticks []int
	n, err := func() (int, error) {
		s.d.mu.Lock()
		defer s.d.mu.Unlock()
		skip, err := s.d.checkBatch(ms, onConflict)
		if err != nil {
			return 0, fmt.Errorf("%s: %w", what, err)
		}
		if s.readOnly && slices.Contains(skip, false) {
			return 0, errReadOnly(what)
		}
		n := 0
		for i := range ms {
			if skip[i] {
				continue
			}
			s.d.add(&ms[i])
			n++
			if (i+1)%2048 == 0 {
				ticks = append(ticks, i+1)
			}
		}
		ticks = append(ticks, len(ms))
		return n, nil
	}()
	if err == nil && progress != nil {
		for _, done := range ticks {
			progress(done)
		}
	}
	return n, err
}

// add stores a copy of m, checked, with the next sequence number: one more
// than the greatest given, as store/sqlite numbers memories, so that
// cursors agree with its.
func (d *data) add(m *memory.Memory) {
	c := memory.Memory{
		ID: m.ID, Text: m.Text, UserID: m.UserID,
		WorkspaceID: m.WorkspaceID, ProjectID: m.ProjectID, Domain: m.Domain,
		SourceAuthority: m.SourceAuthority, Kind: m.Kind, Classification: m.Classification,
		CreatedAt: stamp(m.CreatedAt), ExpiresAt: stampOpt(m.ExpiresAt),
		Revoked: m.Revoked, RevokedAt: stampOpt(m.RevokedAt), RevokedReason: m.RevokedReason,
		Audience:  cloneOrNil(m.Audience),
		Embedding: slices.Clone(m.Embedding),
	}
	seq := d.lastSeq + 1
	if n := len(d.order); n > 0 {
		seq = max(seq, d.order[n-1].seq+1)
	}
	d.lastSeq = seq
	r := &record{seq: seq, m: c}
	d.memories[c.ID] = r
	d.order = append(d.order, r)
	d.outbox.record(c.UserID, c.ID)
	if len(m.LineageRefs) > 0 {
		d.lineage[c.ID] = sorted(m.LineageRefs)
	}
	for _, old := range m.Supersedes {
		d.link(c.ID, old)
	}
}

// link records that newID supersedes old, once.
func (d *data) link(newID, old string) {
	if s, ok := insertSorted(d.supersedes[newID], old); ok {
		d.supersedes[newID] = s
		d.supersededBy[old], _ = insertSorted(d.supersededBy[old], newID)
	}
}

// insertSorted adds v to the sorted set s, reporting whether it was new.
func insertSorted(s []string, v string) ([]string, bool) {
	i, found := slices.BinarySearch(s, v)
	if found {
		return s, false
	}
	return slices.Insert(s, i, v), true
}

func sorted(ids []string) []string {
	out := slices.Clone(ids)
	slices.Sort(out)
	return slices.Compact(out)
}

func cloneOrNil[T any](s []T) []T {
	if len(s) == 0 {
		return nil
	}
	return slices.Clone(s)
}

// index is the position of the record with seq in d.order, or -1.
func (d *data) index(seq int64) int {
	i := sort.Search(len(d.order), func(i int) bool { return d.order[i].seq >= seq })
	if i < len(d.order) && d.order[i].seq == seq {
		return i
	}
	return -1
}

// replace stores r in place of the record with the same id and seq.
func (d *data) replace(r *record) {
	d.memories[r.m.ID] = r
	d.order[d.index(r.seq)] = r
}

// out is the memory of r as a caller gets it: a copy, with relations, and
// with its embedding only if withVector.
func (d *data) out(r *record, withVector, relations bool) memory.Memory {
	m := r.m
	m.Audience = cloneOrNil(m.Audience)
	m.Embedding = nil
	if withVector {
		m.Embedding = slices.Clone(r.m.Embedding)
	}
	if relations {
		m.LineageRefs = cloneOrNil(d.lineage[m.ID])
		m.Supersedes = cloneOrNil(d.supersedes[m.ID])
		// Only live memories supersede: revoking the newer memory lets
		// the older one stand again.
		for _, n := range d.supersededBy[m.ID] {
			if nr, ok := d.memories[n]; ok && !nr.m.Revoked {
				m.SupersededBy = append(m.SupersededBy, n)
			}
		}
	}
	return m
}

// Get returns the stored memories among ids, in the order asked, each once,
// with their relations.
func (s *Store) Get(ctx context.Context, ids []string, withVectors bool) ([]memory.Memory, error) {
	if len(ids) == 0 {
		return nil, nil
	}
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("get memories: %w", err)
	}
	s.d.mu.RLock()
	defer s.d.mu.RUnlock()
	out := make([]memory.Memory, 0, len(ids))
	seen := make(map[string]bool, len(ids))
	for _, id := range ids {
		if r, ok := s.d.memories[id]; ok && !seen[id] {
			seen[id] = true
			out = append(out, s.d.out(r, withVectors, true))
		}
	}
	return out, nil
}

// List returns memories in insertion order, one page at a time.
func (s *Store) List(ctx context.Context, q store.ListQuery) (store.Page, error) {
	if err := ctx.Err(); err != nil {
		return store.Page{}, fmt.Errorf("list memories: %w", err)
	}
	s.d.mu.RLock()
	defer s.d.mu.RUnlock()
	var p store.Page
	var last int64 // the seq of the last memory on the page
	start := sort.Search(len(s.d.order), func(i int) bool { return s.d.order[i].seq > q.After })
	for _, r := range s.d.order[start:] {
		if !q.Filter.Matches(&r.m) || (r.m.Revoked && !q.IncludeRevoked) {
			continue
		}
		if q.Limit > 0 && len(p.Memories) == q.Limit {
			// Next is set only when another memory follows, as in
			// store/sqlite, so a full last page ends the listing.
			p.Next = last
			break
		}
		p.Memories = append(p.Memories, s.d.out(r, q.WithVectors, true))
		last = r.seq
	}
	return p, nil
}

// Users returns the users that have stored memories, sorted.
func (s *Store) Users(ctx context.Context) ([]string, error) {
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("list users: %w", err)
	}
	s.d.mu.RLock()
	defer s.d.mu.RUnlock()
	seen := map[string]bool{}
	var out []string
	for _, r := range s.d.order {
		if !seen[r.m.UserID] {
			seen[r.m.UserID] = true
			out = append(out, r.m.UserID)
		}
	}
	slices.Sort(out)
	return out, nil
}

// ScanEntries calls fn with the index entry of each of userID's memories that
// are not revoked (of every user's when userID is empty), in insertion
// order, stopping at fn's first error and returning it. It reads a snapshot
// taken when it starts and does not hold the store's lock while fn runs, so
// fn may use the store. Vectors are copies fn may keep.
func (s *Store) ScanEntries(ctx context.Context, userID string, fn func(retrieve.Entry) error) error {
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("load vectors: %w", err)
	}
	s.d.mu.RLock()
	var snap []*record
	for _, r := range s.d.order {
		if !r.m.Revoked && (userID == "" || r.m.UserID == userID) {
			snap = append(snap, r)
		}
	}
	s.d.mu.RUnlock()
	var block []float32 // vectors are copied into blocks, as store/sqlite does
	const vectorBlock = 64 << 10
	for _, r := range snap {
		if err := ctx.Err(); err != nil {
			return fmt.Errorf("load vectors: %w", err)
		}
		n := len(r.m.Embedding)
		if len(block) < n {
			block = make([]float32, max(vectorBlock, n))
		}
		v := block[:n:n]
		block = block[n:]
		copy(v, r.m.Embedding)
		e := retrieve.Entry{ID: r.m.ID, UserID: r.m.UserID, WorkspaceID: r.m.WorkspaceID, ProjectID: r.m.ProjectID,
			Domain: r.m.Domain, Text: r.m.Text, Vector: v}
		if err := fn(e); err != nil {
			return err
		}
	}
	return nil
}

// CountEntries returns how many memories userID has, revoked ones included:
// an upper bound of what ScanEntries yields.
func (s *Store) CountEntries(ctx context.Context, userID string) (int, error) {
	if err := ctx.Err(); err != nil {
		return 0, fmt.Errorf("count memories: %w", err)
	}
	s.d.mu.RLock()
	defer s.d.mu.RUnlock()
	n := 0
	for _, r := range s.d.order {
		if r.m.UserID == userID {
			n++
		}
	}
	return n, nil
}

// Revoke marks memory id revoked and appends its audit event, in one atomic
// write, and returns the memory as now stored. Revoking a revoked memory
// keeps the first revocation; the event is appended all the same.
func (s *Store) Revoke(ctx context.Context, id string, c store.Change) (memory.Memory, error) {
	what := "revoke " + id
	if err := ctx.Err(); err != nil {
		return memory.Memory{}, fmt.Errorf("%s: %w", what, err)
	}
	s.d.mu.Lock()
	defer s.d.mu.Unlock()
	r, ok := s.d.memories[id]
	if !ok {
		return memory.Memory{}, fmt.Errorf("%s: %w", what, store.ErrNotFound)
	}
	if s.readOnly {
		return memory.Memory{}, errReadOnly(what)
	}
	if !r.m.Revoked {
		nr := &record{seq: r.seq, m: r.m}
		nr.m.Revoked, nr.m.RevokedAt, nr.m.RevokedReason = true, stamp(c.At), c.Reason
		s.d.replace(nr)
		r = nr
		s.d.outbox.record(r.m.UserID, id)
	}
	s.d.appendEvents([]audit.Event{audit.ChangeEvent(audit.Revoke, c.At, r.m.UserID, id, c.PrincipalID, c.Reason)})
	return s.d.out(r, false, true), nil
}

// Forget deletes memory id's text, metadata and vector, leaves a tombstone
// and appends its audit event, in one atomic write. Lineage links naming it
// stay; its own lineage and supersessions go with it.
func (s *Store) Forget(ctx context.Context, id string, c store.Change) (memory.Tombstone, error) {
	what := "forget " + id
	t := memory.Tombstone{ID: id, ForgottenAt: c.At.UTC(), Reason: c.Reason}
	if err := ctx.Err(); err != nil {
		return t, fmt.Errorf("%s: %w", what, err)
	}
	s.d.mu.Lock()
	defer s.d.mu.Unlock()
	r, ok := s.d.memories[id]
	if !ok {
		return t, fmt.Errorf("%s: %w", what, store.ErrNotFound)
	}
	t.UserID = r.m.UserID
	if s.readOnly {
		return t, errReadOnly(what)
	}
	d := s.d
	delete(d.memories, id)
	d.order = slices.Delete(d.order, d.index(r.seq), d.index(r.seq)+1)
	d.outbox.record(t.UserID, id)
	delete(d.lineage, id)
	for _, old := range d.supersedes[id] {
		if i, found := slices.BinarySearch(d.supersededBy[old], id); found {
			d.supersededBy[old] = slices.Delete(d.supersededBy[old], i, i+1)
		}
		if len(d.supersededBy[old]) == 0 {
			delete(d.supersededBy, old)
		}
	}
	delete(d.supersedes, id)
	d.tombstones[id] = memory.Tombstone{ID: id, UserID: t.UserID, ForgottenAt: stamp(c.At), Reason: c.Reason}
	d.appendEvents([]audit.Event{audit.ChangeEvent(audit.Forget, c.At, t.UserID, id, c.PrincipalID, c.Reason)})
	return t, nil
}

// Tombstones returns the tombstones of the forgotten memories among ids.
func (s *Store) Tombstones(ctx context.Context, ids []string) (map[string]memory.Tombstone, error) {
	out := map[string]memory.Tombstone{}
	if len(ids) == 0 {
		return out, nil
	}
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("read tombstones: %w", err)
	}
	s.d.mu.RLock()
	defer s.d.mu.RUnlock()
	for _, id := range ids {
		if t, ok := s.d.tombstones[id]; ok {
			out[id] = t
		}
	}
	return out, nil
}

// Supersede records that newID replaces each of oldIDs. All must be stored
// memories of one user; another user's id reads like a missing one.
func (s *Store) Supersede(ctx context.Context, newID string, oldIDs []string) error {
	const what = "supersede"
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("%s: %w", what, err)
	}
	s.d.mu.Lock()
	defer s.d.mu.Unlock()
	nr, ok := s.d.memories[newID]
	if !ok {
		return fmt.Errorf("%s: memory %s: %w", what, newID, store.ErrNotFound)
	}
	for _, old := range oldIDs {
		if old == newID {
			return fmt.Errorf("%s: memory %s cannot supersede itself", what, old)
		}
		// Another user's memory reads like a missing one: whose memories
		// exist is not for another user's caller to learn.
		if or, ok := s.d.memories[old]; !ok || or.m.UserID != nr.m.UserID {
			return fmt.Errorf("%s: memory %s: %w", what, old, store.ErrNotFound)
		}
	}
	if len(oldIDs) == 0 {
		return nil
	}
	if s.readOnly {
		return errReadOnly(what)
	}
	for _, old := range oldIDs {
		s.d.link(newID, old)
	}
	return nil
}

// Ancestors returns, for each of ids that is stored, every memory it was
// derived from, transitively, as lineage.Ancestors defines them.
func (s *Store) Ancestors(ctx context.Context, ids []string) (map[string][]lineage.Ancestor, error) {
	out := map[string][]lineage.Ancestor{}
	if len(ids) == 0 {
		return out, nil
	}
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("read lineage: %w", err)
	}
	s.d.mu.RLock()
	defer s.d.mu.RUnlock()
	lookup := func(id string) (lineage.Node, bool) {
		if r, ok := s.d.memories[id]; ok {
			return lineage.Node{UserID: r.m.UserID, Authority: r.m.SourceAuthority, Revoked: r.m.Revoked, Refs: s.d.lineage[id]}, true
		}
		if t, ok := s.d.tombstones[id]; ok {
			return lineage.Node{UserID: t.UserID, Forgotten: true}, true
		}
		return lineage.Node{}, false
	}
	for _, id := range ids {
		r, ok := s.d.memories[id]
		if !ok {
			continue
		}
		if _, done := out[id]; done {
			continue
		}
		out[id] = lineage.Ancestors(id, r.m.UserID, s.d.lineage[id], lookup)
	}
	return out, nil
}

// Revoked returns the last n memories of userID, in insertion order, that are
// now revoked (all of them for n ≤ 0), without vectors or relations.
func (s *Store) Revoked(ctx context.Context, userID string, n int) ([]memory.Memory, error) {
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("read revoked memories: %w", err)
	}
	s.d.mu.RLock()
	defer s.d.mu.RUnlock()
	var out []memory.Memory
	for i := len(s.d.order) - 1; i >= 0 && (n <= 0 || len(out) < n); i-- {
		if r := s.d.order[i]; r.m.UserID == userID && r.m.Revoked {
			out = append(out, s.d.out(r, false, false))
		}
	}
	slices.Reverse(out)
	return out, nil
}

// Stats counts what the store holds; expiry is judged at now. An in-memory
// store has no schema version and no file: Schema and FileBytes are 0.
func (s *Store) Stats(ctx context.Context, now time.Time) (store.Stats, error) {
	st := store.Stats{ByAuth: map[string]int{}}
	if err := ctx.Err(); err != nil {
		return st, fmt.Errorf("stats: %w", err)
	}
	s.d.mu.RLock()
	defer s.d.mu.RUnlock()
	users := map[string]bool{}
	cutoff := now.UnixNano()
	for _, r := range s.d.order {
		st.Memories++
		if r.m.Revoked {
			st.Revoked++
		}
		if !r.m.ExpiresAt.IsZero() && r.m.ExpiresAt.UnixNano() <= cutoff {
			st.Expired++
		}
		users[r.m.UserID] = true
		a := string(r.m.SourceAuthority)
		if a == "" {
			a = "unknown"
		}
		st.ByAuth[a]++
	}
	st.Users = len(users)
	st.Tombstones = len(s.d.tombstones)
	for _, refs := range s.d.lineage {
		st.Lineage += len(refs)
	}
	for _, olds := range s.d.supersedes {
		st.Supersede += len(olds)
	}
	return st, nil
}

// The contract this package implements.
var (
	_ store.Store   = (*Store)(nil)
	_ store.Checker = (*Store)(nil)
)
