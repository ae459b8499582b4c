// Package store is the contract of memgate's system of record: the calls the
// engine makes of whatever keeps memories and the audit trail, in the
// engine's terms rather than a database's. The embedded default
// (store/sqlite) and the in-memory store (store/mem) implement it; package
// store/storetest is the conformance suite every implementation must pass.
//
// The invariants every backend keeps (docs/design.md has the full list):
//
//   - Ids are unique across the store and never reused, not even after a
//     memory is forgotten.
//   - A batch insert is atomic: all of it or, on any error, none; every
//     problem of a batch is reported at once (ItemErrors).
//   - Lineage and supersession only link memories of one user.
//   - A revocation or forgetting and its audit event are one atomic write;
//     so are an admission's search event, decisions and quarantine items.
//   - The audit trail is append-only: events get increasing sequence
//     numbers and are never changed.
//   - A forgotten memory leaves a tombstone and no text or vector.
package store

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/memgate/memgate/audit"
	"github.com/memgate/memgate/embed"
	"github.com/memgate/memgate/lineage"
	"github.com/memgate/memgate/memory"
	"github.com/memgate/memgate/retrieve"
)

// Store is the system of record: memories, their relations and tombstones,
// and the audit trail. Implementations are safe for concurrent use.
type Store interface {
	Memories
	Trail
	// Identity returns the embedder identity recorded for the store's
	// vectors, false if none is recorded yet.
	Identity(ctx context.Context) (embed.Identity, bool, error)
	// SetIdentity records the identity of the embedder whose vectors the
	// store holds; a store that has one keeps it.
	SetIdentity(ctx context.Context, id embed.Identity) error
	// ReadOnly reports whether writes fail with ErrReadOnly (a request
	// that is wrong in itself may get its own error first).
	ReadOnly() bool
	// Close releases the store.
	Close() error
}

// Memories is the part of the contract that keeps memories.
type Memories interface {
	// CheckBatch reports, as ItemErrors, every problem Insert would refuse
	// in ms, without writing: invalid memories, repeated ids, ids already
	// taken (with ConflictError), references to memories that are neither
	// stored, forgotten nor in the batch, and references to another
	// user's memories (reported like missing ones).
	CheckBatch(ctx context.Context, ms []memory.Memory, onConflict OnConflict) error
	// Insert stores ms in one transaction: all of them or, on any error,
	// none. Each must be valid and have an id, a creation time and an
	// embedding. With ConflictSkip a memory whose id is taken is skipped.
	// It returns how many were inserted; progress, if set, is told now and
	// then how many are done.
	Insert(ctx context.Context, ms []memory.Memory, onConflict OnConflict, progress func(done int)) (int, error)
	// Get returns the stored memories among ids, in the order asked, each
	// once, with their relations (LineageRefs, Supersedes, SupersededBy,
	// each sorted by id; SupersededBy lists only memories that are not
	// revoked); ids not stored are left out. Embeddings only if
	// withVectors.
	Get(ctx context.Context, ids []string, withVectors bool) ([]memory.Memory, error)
	// List returns memories in insertion order, a page at a time.
	List(ctx context.Context, q ListQuery) (Page, error)
	// Users lists the users that have stored memories, sorted.
	Users(ctx context.Context) ([]string, error)
	// ScanEntries calls fn with the index entry of each of userID's
	// memories (every user's for "") that are not revoked, in insertion
	// order, stopping at fn's first error and returning it.
	ScanEntries(ctx context.Context, userID string, fn func(retrieve.Entry) error) error
	// CountEntries estimates how many entries ScanEntries will yield.
	CountEntries(ctx context.Context, userID string) (int, error)
	// Revoke marks memory id revoked and appends its audit event (see
	// audit.ChangeEvent) in one atomic write, and returns the memory as
	// now stored. Revoking a revoked memory keeps the first revocation
	// (and still appends the event: the trail records every request). A
	// missing id is an error wrapping ErrNotFound.
	Revoke(ctx context.Context, id string, c Change) (memory.Memory, error)
	// Forget deletes memory id's text, metadata and vector, leaves a
	// tombstone, and appends its audit event, in one atomic write. Lineage
	// links naming it stay, so descendants remain traceable. A missing id
	// is an error wrapping ErrNotFound.
	Forget(ctx context.Context, id string, c Change) (memory.Tombstone, error)
	// Tombstones returns the tombstones among ids, by id.
	Tombstones(ctx context.Context, ids []string) (map[string]memory.Tombstone, error)
	// Supersede records that newID replaces each of oldIDs. All must be
	// stored memories of one user; another user's id is reported like a
	// missing one (ErrNotFound).
	Supersede(ctx context.Context, newID string, oldIDs []string) error
	// Ancestors returns, for each of ids that is stored, every memory it
	// was derived from, transitively, sorted by id, as lineage.Ancestors
	// defines them (a forgotten ancestor keeps its link, with no
	// authority).
	Ancestors(ctx context.Context, ids []string) (map[string][]lineage.Ancestor, error)
	// Revoked returns the last n memories of userID, in insertion order,
	// that are now revoked (all of them for n ≤ 0), without vectors or
	// relations.
	Revoked(ctx context.Context, userID string, n int) ([]memory.Memory, error)
	// Stats counts what the store holds; expiry is judged at now.
	Stats(ctx context.Context, now time.Time) (Stats, error)
}

// Trail is the part of the contract that keeps the audit trail and the
// review queue.
type Trail interface {
	// RecordAdmission appends an admission's search event and decisions
	// and enqueues its quarantined memories, in one atomic write, and
	// returns the search event's sequence number, to which the decisions
	// and queue items are linked. An admission that fails a.Check is
	// refused whole.
	RecordAdmission(ctx context.Context, a *audit.Admission) (int64, error)
	// AppendEvents appends events in one atomic write and returns the
	// sequence number of the first. A decision event after the first with
	// no SearchID is linked to the first (its search).
	AppendEvents(ctx context.Context, events []audit.Event) (int64, error)
	// Events lists the events f selects, in sequence order.
	Events(ctx context.Context, f audit.Filter) ([]audit.Event, error)
	// Queue lists the review items f selects, oldest first.
	Queue(ctx context.Context, f audit.QueueFilter) ([]audit.QuarantineItem, error)
	// Review records a verdict on a pending item, the labelled example it
	// makes and its audit event, in one atomic write, and returns the
	// item. An unknown item is an error wrapping ErrNotFound; one with a
	// verdict, ErrAlreadyReviewed.
	Review(ctx context.Context, r audit.Review) (audit.QuarantineItem, error)
	// Examples lists the labelled examples, oldest first.
	Examples(ctx context.Context) ([]audit.Example, error)
}

// Change is a revocation or forgetting: why, when and by whom.
type Change struct {
	Reason      string
	At          time.Time
	PrincipalID string
}

// Errors every store returns (wrapped), so that callers can tell them apart
// with errors.Is whatever the backend.
var (
	// ErrNotFound: a memory id or review item is not in the store.
	ErrNotFound = errors.New("not found")
	// ErrConflict: a write conflicts with what the store holds, such as
	// an id that is already taken (*TakenError).
	ErrConflict = errors.New("conflict")
	// ErrReadOnly: a write to a store that is read-only.
	ErrReadOnly = errors.New("the store is read-only")
	// ErrNoStore: there is no store where one was required to exist.
	ErrNoStore = errors.New("no store")
	// ErrAlreadyReviewed: a verdict on a review item that has one.
	ErrAlreadyReviewed = errors.New("review item already has a verdict")
)

// OnConflict says what Insert does with an id that is already taken.
type OnConflict int

const (
	// ConflictError fails the whole insert.
	ConflictError OnConflict = iota
	// ConflictSkip leaves the stored memory as it is and inserts the rest.
	ConflictSkip
)

// ItemError is a problem with one memory of a batch.
type ItemError struct {
	Index int    // position in the batch
	ID    string // the memory's id
	Err   error
}

// Error names the memory by position and id.
func (e *ItemError) Error() string { return fmt.Sprintf("memory %d (%s): %v", e.Index, e.ID, e.Err) }

// Unwrap returns the problem without the memory's position.
func (e *ItemError) Unwrap() error { return e.Err }

// ItemErrors are all the problems found in a batch, in batch order: a batch
// is checked whole, so that a caller can fix every bad memory at once.
// errors.As finds each *ItemError in it.
type ItemErrors []*ItemError

// Error lists every problem, one per line.
func (es ItemErrors) Error() string {
	parts := make([]string, len(es))
	for i, e := range es {
		parts[i] = e.Error()
	}
	return strings.Join(parts, "\n")
}

// Unwrap returns the item errors, for errors.As and errors.Is.
func (es ItemErrors) Unwrap() []error {
	out := make([]error, len(es))
	for i, e := range es {
		out[i] = e
	}
	return out
}

// TakenError is an id that a stored or forgotten memory already has. It
// reads the same whoever holds the id.
type TakenError struct{ ID string }

// Error names the id.
func (e *TakenError) Error() string {
	return fmt.Sprintf("id: %q is already taken (ids are unique across the store and never reused)", e.ID)
}

// Is makes errors.Is(err, ErrConflict) true.
func (e *TakenError) Is(target error) bool { return target == ErrConflict }

// RepeatError is an id that occurs twice in one batch.
type RepeatError struct {
	ID    string
	First int // the position of its first occurrence
}

// Error names the first occurrence.
func (e *RepeatError) Error() string {
	return fmt.Sprintf("id: repeats memory %d of the batch", e.First)
}

// ListQuery selects memories for List.
type ListQuery struct {
	Filter memory.Filter // UserID empty lists every user
	// IncludeRevoked also lists revoked memories.
	IncludeRevoked bool
	// After continues a listing after the memory with this cursor (from
	// the previous page's Next); 0 starts at the beginning.
	After int64
	// Limit bounds the page; 0 means no limit.
	Limit int
	// WithVectors also loads embeddings.
	WithVectors bool
}

// Page is one page of a listing.
type Page struct {
	Memories []memory.Memory
	// Next is the cursor for the following page, 0 when there is none.
	Next int64
}

// Stats summarises a store.
type Stats struct {
	Memories   int            `json:"memories"`
	Revoked    int            `json:"revoked"`
	Expired    int            `json:"expired"`
	Users      int            `json:"users"`
	Tombstones int            `json:"tombstones"`
	Lineage    int            `json:"lineageLinks"`
	Supersede  int            `json:"supersessions"`
	ByAuth     map[string]int `json:"bySourceAuthority"`
	// Schema is the backend's schema version, 0 if it has none.
	Schema int `json:"schemaVersion"`
	// FileBytes is the size of the store on disk, 0 if it has no files.
	FileBytes int64 `json:"fileBytes"`
}

// GetOne returns one stored memory, or an error wrapping ErrNotFound that
// says whether it was forgotten.
func GetOne(ctx context.Context, s Memories, id string, withVector bool) (memory.Memory, error) {
	ms, err := s.Get(ctx, []string{id}, withVector)
	if err != nil {
		return memory.Memory{}, err
	}
	if len(ms) > 0 {
		return ms[0], nil
	}
	ts, err := s.Tombstones(ctx, []string{id})
	if err != nil {
		return memory.Memory{}, err
	}
	if t, ok := ts[id]; ok {
		return memory.Memory{}, fmt.Errorf("memory %s: %w (forgotten at %s)", id, ErrNotFound, t.ForgottenAt.Format(time.RFC3339))
	}
	return memory.Memory{}, fmt.Errorf("memory %s: %w", id, ErrNotFound)
}

// Decisions returns the decisions recorded for userID's task taskID, in
// sequence order, decoded.
func Decisions(ctx context.Context, s Trail, userID, taskID string) ([]audit.Decided, error) {
	evs, err := s.Events(ctx, audit.Filter{Kind: audit.Decision, UserID: userID, TaskID: taskID})
	if err != nil {
		return nil, err
	}
	out := make([]audit.Decided, len(evs))
	for i := range evs {
		if out[i], err = audit.DecodeDecision(&evs[i]); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// Checker is implemented by stores that can verify their own integrity.
type Checker interface {
	Check(ctx context.Context) error
}

// Locator is implemented by stores kept at a path or address, for display.
type Locator interface {
	Path() string
}

// Relation kinds, as a SQL backend's relation query labels its rows.
const (
	RelationLineage      = 0 // the memory was derived from ref
	RelationSupersedes   = 1 // the memory supersedes ref
	RelationSupersededBy = 2 // ref supersedes the memory (and is not revoked)
)

// Relations fills the LineageRefs, Supersedes and SupersededBy of memories
// from relation rows in any order; Sort then sorts each list by id, as the
// contract's Get returns them. Every SQL backend uses it.
type Relations struct {
	unsorted []*[]string
}

// Add appends ref to m's list of the given kind.
func (r *Relations) Add(m *memory.Memory, kind int, ref string) {
	refs := &m.SupersededBy
	switch kind {
	case RelationLineage:
		refs = &m.LineageRefs
	case RelationSupersedes:
		refs = &m.Supersedes
	}
	if *refs = append(*refs, ref); len(*refs) == 2 {
		r.unsorted = append(r.unsorted, refs)
	}
}

// Sort sorts every list that has more than one entry.
func (r *Relations) Sort() {
	for _, refs := range r.unsorted {
		slices.Sort(*refs)
	}
}
