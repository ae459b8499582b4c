package memgate

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/memgate/memgate/embed"
	"github.com/memgate/memgate/index"
	"github.com/memgate/memgate/memory"
	"github.com/memgate/memgate/retrieve"
	"github.com/memgate/memgate/store"
)

// Add stores one memory and returns it as stored, with its id and createdAt
// filled in. See AddBatch.
func (e *Engine) Add(ctx context.Context, m memory.Memory) (memory.Memory, error) {
	out, err := e.AddBatch(ctx, []memory.Memory{m})
	if err != nil {
		return memory.Memory{}, err
	}
	return out[0], nil
}

// AddBatch stores memories atomically: all of them, or none when any is
// invalid. Memories without an id get a new one, without createdAt the
// current time, and without an embedding one from the engine's embedder; a
// caller-supplied embedding must have the embedder's dimension. Lineage and
// supersedes may refer to stored memories or to others in the batch. Errors
// about one memory are *store.ItemError values giving its position.
func (e *Engine) AddBatch(ctx context.Context, ms []memory.Memory) ([]memory.Memory, error) {
	out, err := e.prepare(ctx, ms, store.ConflictError, nil)
	if err != nil {
		return nil, errorf("add", err)
	}
	if _, err := e.insert(ctx, out, store.ConflictError, nil); err != nil {
		return nil, errorf("add", err)
	}
	for i := range out {
		out[i].Embedding = nil
	}
	return out, nil
}

// embedChunk is how many texts are embedded per call while preparing a batch,
// so that progress can be reported and a slow remote embedder is not sent one
// enormous request.
const embedChunk = 512

// prepare copies ms, fills in ids, timestamps and embeddings, and checks the
// batch as the store will (see check). progress, if set, is told how many
// have been embedded.
func (e *Engine) prepare(ctx context.Context, ms []memory.Memory, onConflict store.OnConflict, progress func(done int)) ([]memory.Memory, error) {
	dim := e.emb.Identity().Dim
	now := e.now().UTC()
	out := make([]memory.Memory, len(ms))
	var (
		need []int
		errs store.ItemErrors
	)
	for i, m := range ms {
		m.LineageRefs, m.Supersedes = slices.Clone(m.LineageRefs), slices.Clone(m.Supersedes)
		m.Audience, m.SupersededBy = slices.Clone(m.Audience), nil
		if m.ID == "" {
			m.ID = newID()
		}
		if m.CreatedAt.IsZero() {
			m.CreatedAt = now
		}
		if m.Revoked && m.RevokedAt.IsZero() {
			m.RevokedAt = now
		}
		m.Normalize() // ids in NFC: the same id typed two ways is one id; check validates
		if len(m.Embedding) == 0 {
			need = append(need, i)
		} else {
			if len(m.Embedding) != dim {
				errs = append(errs, &store.ItemError{Index: i, ID: m.ID, Err: &memory.FieldError{Field: "embedding",
					Problem: fmt.Sprintf("has dimension %d; the store's embedder %s needs %d", len(m.Embedding), e.emb.Identity(), dim)}})
			}
			m.Embedding = slices.Clone(m.Embedding)
			embed.Normalize(m.Embedding)
		}
		out[i] = m
	}
	// Every problem the store would refuse is found before any embedding
	// is computed: a remote embedder is not paid for a batch that fails,
	// and the caller hears of every bad memory at once.
	if err := e.check(ctx, out, onConflict, errs); err != nil {
		return nil, err
	}
	for start := 0; start < len(need); start += embedChunk {
		chunk := need[start:min(start+embedChunk, len(need))]
		texts := make([]string, len(chunk))
		for j, i := range chunk {
			texts[j] = out[i].Text
		}
		vecs, err := e.emb.Embed(ctx, texts)
		if err != nil {
			return nil, fmt.Errorf("embed: %w", err)
		}
		if err := embed.Check(vecs, len(texts), dim); err != nil {
			return nil, fmt.Errorf("embedder %s: %w", e.emb.Identity(), err)
		}
		for j, i := range chunk {
			embed.Normalize(vecs[j])
			out[i].Embedding = vecs[j]
		}
		if progress != nil {
			progress(start + len(chunk))
		}
	}
	return out, nil
}

// check reports every problem of a prepared batch at once: those already
// found (found) merged, in batch order, with what the store refuses
// (invalid memories, unknown or foreign references, ids already taken).
// A memory without an embedding yet gets a placeholder for the store's
// check.
func (e *Engine) check(ctx context.Context, ms []memory.Memory, onConflict store.OnConflict, found store.ItemErrors) error {
	probe := make([]memory.Memory, len(ms))
	placeholder := []float32{1}
	for i := range ms {
		probe[i] = ms[i]
		if len(probe[i].Embedding) == 0 {
			probe[i].Embedding = placeholder
		}
	}
	err := e.store.CheckBatch(ctx, probe, onConflict)
	var more store.ItemErrors
	if err != nil && !errors.As(err, &more) {
		return err
	}
	all := append(found, more...)
	if len(all) == 0 {
		return nil
	}
	slices.SortStableFunc(all, func(a, b *store.ItemError) int { return a.Index - b.Index })
	return all
}

// insert writes prepared memories and then indexes them, under the write
// lock so the index sees writes in the store's order.
func (e *Engine) insert(ctx context.Context, ms []memory.Memory, onConflict store.OnConflict, progress func(done int)) (int, error) {
	if e.follow != nil {
		n, err := e.store.Insert(ctx, ms, onConflict, progress)
		if err == nil && n > 0 {
			e.awaitIndex(ctx)
		}
		return n, err
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	n, err := e.store.Insert(ctx, ms, onConflict, progress)
	if err != nil {
		return 0, err
	}
	entries := make([]retrieve.Entry, 0, len(ms))
	for i := range ms {
		m := &ms[i]
		if !m.Revoked {
			entries = append(entries, index.EntryOf(m))
		}
	}
	if onConflict == store.ConflictSkip {
		// Skipped memories kept their stored version; re-read what the
		// index must hold rather than trusting the batch.
		return n, e.reindex(ctx, entries)
	}
	return n, e.index.Upsert(ctx, entries...)
}

// reindex indexes the stored version of each entry's memory.
func (e *Engine) reindex(ctx context.Context, entries []retrieve.Entry) error {
	ids := make([]string, len(entries))
	for i, en := range entries {
		ids[i] = en.ID
	}
	stored, err := e.store.Get(ctx, ids, true)
	if err != nil {
		return err
	}
	fresh := make([]retrieve.Entry, 0, len(stored))
	for i := range stored {
		if !stored[i].Revoked {
			fresh = append(fresh, index.EntryOf(&stored[i]))
		}
	}
	return e.index.Upsert(ctx, fresh...)
}

// Get returns one memory with its relations, without its embedding.
func (e *Engine) Get(ctx context.Context, id string) (memory.Memory, error) {
	return store.GetOne(ctx, e.store, memory.NormalizeID(id), false)
}

// ListOptions select memories for List.
type ListOptions struct {
	Scope          memory.Filter // empty UserID lists every user
	IncludeRevoked bool
	After          int64 // cursor from the previous page's Next
	Limit          int   // 0 means no limit
}

// List returns stored memories in insertion order, a page at a time.
func (e *Engine) List(ctx context.Context, o ListOptions) (store.Page, error) {
	o.Scope.Normalize() // filters match ids as they were stored: in NFC
	return e.store.List(ctx, store.ListQuery{Filter: o.Scope, IncludeRevoked: o.IncludeRevoked, After: o.After, Limit: o.Limit})
}

// Revoke withdraws a memory: from this call on it is no longer a search
// candidate, while its record stays for audit with the reason. The
// revocation and its audit event are one write. It returns the revoked
// memory.
func (e *Engine) Revoke(ctx context.Context, id, reason string) (memory.Memory, error) {
	return e.revoke(ctx, id, reason, "")
}

// revoke is Revoke, naming the principal in the audit event.
func (e *Engine) revoke(ctx context.Context, id, reason, principal string) (memory.Memory, error) {
	id = memory.NormalizeID(id)
	if err := memory.CheckNote("reason", reason); err != nil {
		return memory.Memory{}, fmt.Errorf("revoke %s: %w", id, err)
	}
	change := store.Change{Reason: reason, At: e.now().UTC(), PrincipalID: principal}
	if e.follow != nil {
		m, err := e.store.Revoke(ctx, id, change)
		if err == nil {
			e.awaitIndex(ctx)
		}
		return m, err
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	m, err := e.store.Revoke(ctx, id, change)
	if err != nil {
		return memory.Memory{}, err
	}
	return m, errorf("revoke "+id+": index", e.index.Remove(ctx, m.UserID, id))
}

// Forget deletes a memory's text and vector for good and leaves a tombstone;
// the deletion and its audit event are one write.
func (e *Engine) Forget(ctx context.Context, id, reason string) (memory.Tombstone, error) {
	return e.forget(ctx, id, reason, "")
}

// forget is Forget, naming the principal in the audit event.
func (e *Engine) forget(ctx context.Context, id, reason, principal string) (memory.Tombstone, error) {
	id = memory.NormalizeID(id)
	if err := memory.CheckNote("reason", reason); err != nil {
		return memory.Tombstone{}, fmt.Errorf("forget %s: %w", id, err)
	}
	change := store.Change{Reason: reason, At: e.now().UTC(), PrincipalID: principal}
	if e.follow != nil {
		t, err := e.store.Forget(ctx, id, change)
		if err == nil {
			e.awaitIndex(ctx)
		}
		return t, err
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	t, err := e.store.Forget(ctx, id, change)
	if err != nil {
		return t, err
	}
	return t, errorf("forget "+id+": index", e.index.Remove(ctx, t.UserID, id))
}

// Supersede records that memory newID replaces each of oldIDs (all of the
// same user). Superseded memories stay searchable; admission denies them.
func (e *Engine) Supersede(ctx context.Context, newID string, oldIDs ...string) error {
	if len(oldIDs) == 0 {
		return fmt.Errorf("supersede: %w", &memory.FieldError{Field: "oldIds", Problem: "no memories to supersede"})
	}
	newID, oldIDs = memory.NormalizeID(newID), memory.NormalizeIDs(oldIDs)
	return e.store.Supersede(ctx, newID, oldIDs)
}

// Stats describes the engine's store and index.
type Stats struct {
	store.Stats
	Embedder embed.Identity `json:"embedder"`
	// Indexed counts the vectors in the engine's in-memory index: those of
	// the users searched (or loaded with LoadIndex) since it was opened.
	Indexed int `json:"indexedVectors"`
	// Path locates the store (a file path), if it has one.
	Path string `json:"path"`
}

// Stats counts what the store holds.
func (e *Engine) Stats(ctx context.Context) (Stats, error) {
	st, err := e.store.Stats(ctx, e.now())
	if err != nil {
		return Stats{}, err
	}
	out := Stats{Stats: st, Embedder: e.emb.Identity()}
	if c, ok := e.index.(index.Counter); ok {
		e.mu.RLock()
		out.Indexed = c.Len()
		e.mu.RUnlock()
	}
	if l, ok := e.store.(store.Locator); ok {
		out.Path = l.Path()
	}
	return out, nil
}

// Check verifies the store's integrity. A store that cannot check itself
// (it does not implement store.Checker) gets an error wrapping
// errors.ErrUnsupported.
func (e *Engine) Check(ctx context.Context) error {
	c, ok := e.store.(store.Checker)
	if !ok {
		return fmt.Errorf("check the store: %w", errors.ErrUnsupported)
	}
	return c.Check(ctx)
}
