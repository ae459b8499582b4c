// Package memgate is a long-term memory engine for AI agents whose read path
// is meant to be a trust boundary: a memory that is similar to the current task
// is only a candidate, returned with all the metadata (scope, source
// authority, kind, classification, validity, lineage) that admission needs to
// decide whether it may enter a model's context.
//
// An Engine keeps memories in an embedded SQLite file (package store/sqlite),
// embeds them offline by default (package embed), and retrieves candidates by
// fusing exact vector search with BM25 full-text search (package
// index/exact).
// The user scope is enforced inside both searches, never by filtering a
// larger result afterwards.
//
// A minimal session:
//
//	eng, err := memgate.Open(ctx, "memgate.db", nil)
//	...
//	defer eng.Close()
//	eng.Add(ctx, memory.Memory{UserID: "alex", Text: "Prefers aisle seats"})
//	cands, err := eng.Search(ctx, memgate.Query{Scope: memory.Filter{UserID: "alex"}, Text: "book a flight"})
package memgate

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/google/uuid"

	"github.com/memgate/memgate/admit"
	"github.com/memgate/memgate/embed"
	"github.com/memgate/memgate/gate"
	"github.com/memgate/memgate/index/exact"
	"github.com/memgate/memgate/memory"
	"github.com/memgate/memgate/policy"
	"github.com/memgate/memgate/retrieve"
	"github.com/memgate/memgate/store/sqlite"
)

// Embedder computes vectors for texts. Implementations in package embed: the
// offline builtin (the default) and an OpenAI-compatible client.
type Embedder interface {
	// Identity names the embedder and its dimension; a store refuses
	// vectors from an embedder with another identity.
	Identity() embed.Identity
	// Embed returns one vector per text, in order.
	Embed(ctx context.Context, texts []string) ([][]float32, error)
}

// Index proposes candidates within one user's scope, by vector similarity and
// by BM25 over the text. The engine keeps it in step with the store and
// rebuilds it from the store on open. index/exact is the default; a filtered
// ANN index can take its place for very large tenants.
type Index interface {
	Upsert(entries ...retrieve.Entry) error
	Remove(userID string, ids ...string)
	// Search returns the k entries of f.UserID inside f's scope most
	// similar to q; the scope must be applied during the search, not to
	// its results.
	Search(ctx context.Context, f memory.Filter, q []float32, k int) ([]retrieve.Hit, error)
	// Lexical returns the k entries of f.UserID inside f's scope with the
	// best BM25 score for query, under the same scope rule.
	Lexical(ctx context.Context, f memory.Filter, query string, k int) ([]retrieve.Hit, error)
	// Similarity scores one entry against q, false if it is not indexed.
	Similarity(userID, id string, q []float32) (float64, bool)
	// Vector returns an entry's vector (not to be modified), false if it is
	// not indexed.
	Vector(userID, id string) ([]float32, bool)
	Len() int
}

// Options configure Open. The zero value (or nil) is the embedded default:
// the builtin offline embedder and an exact in-memory index.
type Options struct {
	// Embedder embeds memory and query text. Default embed.NewBuiltin().
	Embedder Embedder
	// NewIndex makes the candidate index for a dimension. Default
	// exact.New.
	NewIndex func(dim int) Index
	// Now is the clock used for createdAt, revokedAt, tombstones and
	// admission contexts without a time. Default time.Now.
	Now func() time.Time
	// Policy is the hard policy envelope. Default policy.Default(): the
	// built-in rules only.
	Policy *policy.Policy
	// Gate judges fit after the envelope and can only lower decisions.
	// Default: the learned gate built into memgate (gate.Default). It was
	// trained on the builtin embedder; with another embedder it embeds the
	// texts itself (about 3 µs a candidate). A gate trained on your own
	// embedder and labels (memgate train) uses your vectors directly.
	Gate admit.Gate
}

// Engine is a memory store with scoped candidate retrieval. It is safe for
// concurrent use.
type Engine struct {
	store    *sqlite.Store
	emb      Embedder
	newIndex func(int) Index
	now      func() time.Time
	policy   *policy.Policy
	gate     admit.Gate
	// gateVectors says whether the store's vectors are the ones the gate
	// was trained on; if not, the gate gets texts only.
	gateVectors bool

	mu    sync.RWMutex // serialises writes so the index follows the store's order
	index Index
}

// EmbedderMismatchError is returned by Open when the store was filled by a
// different embedder than the one given: their vectors are not comparable.
type EmbedderMismatchError struct {
	Store, Embedder embed.Identity
}

// Error says which embedders differ and how to migrate the store.
func (e *EmbedderMismatchError) Error() string {
	return fmt.Sprintf("the store's memories were embedded with %s but this engine uses %s; "+
		"open it with the same embedder, or migrate it with `memgate reembed`", e.Store, e.Embedder)
}

// Open opens (or creates) the store at path and loads its vectors into the
// index. A new store records the embedder's identity; an existing store
// embedded by another embedder is refused with *EmbedderMismatchError; see
// Reembed to migrate it.
func Open(ctx context.Context, path string, opts *Options) (*Engine, error) {
	e, err := open(ctx, path, opts)
	if err != nil {
		return nil, err
	}
	id := e.emb.Identity()
	have, ok, err := e.store.Identity(ctx)
	if err == nil && !ok {
		err = e.store.SetIdentity(ctx, id)
		have = id
	}
	if err != nil {
		e.store.Close()
		return nil, err
	}
	if have != id {
		e.store.Close()
		return nil, &EmbedderMismatchError{Store: have, Embedder: id}
	}
	if err := e.loadIndex(ctx, id.Dim); err != nil {
		e.store.Close()
		return nil, err
	}
	return e, nil
}

func open(ctx context.Context, path string, opts *Options) (*Engine, error) {
	var o Options
	if opts != nil {
		o = *opts
	}
	if o.Embedder == nil {
		o.Embedder = embed.NewBuiltin()
	}
	if o.NewIndex == nil {
		o.NewIndex = func(dim int) Index { return exact.New(dim) }
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.Policy == nil {
		o.Policy = policy.Default()
	}
	if o.Gate == nil {
		g, err := gate.Default()
		if err != nil {
			return nil, fmt.Errorf("open engine: %w", err)
		}
		o.Gate = g
	}
	if id := o.Embedder.Identity(); id.Name == "" || id.Dim <= 0 || id.Dim > memory.MaxEmbeddingDim {
		return nil, fmt.Errorf("open engine: embedder identity %+v is invalid", id)
	}
	st, err := sqlite.Open(ctx, path)
	if err != nil {
		return nil, err
	}
	e := &Engine{store: st, emb: o.Embedder, newIndex: o.NewIndex, now: o.Now, policy: o.Policy, gate: o.Gate, gateVectors: true}
	if ge, ok := o.Gate.(interface{ Embedder() embed.Identity }); ok {
		e.gateVectors = ge.Embedder() == o.Embedder.Identity()
	}
	return e, nil
}

func (e *Engine) loadIndex(ctx context.Context, dim int) error {
	idx := e.newIndex(dim)
	const chunk = 4096
	batch := make([]retrieve.Entry, 0, chunk)
	err := e.store.ScanEntries(ctx, func(en retrieve.Entry) error {
		batch = append(batch, en)
		if len(batch) == chunk {
			err := idx.Upsert(batch...)
			batch = batch[:0]
			return err
		}
		return nil
	})
	if err == nil {
		err = idx.Upsert(batch...)
	}
	if err != nil {
		return fmt.Errorf("load index: %w (run `memgate reembed` if the store's vectors are damaged)", err)
	}
	e.mu.Lock()
	e.index = idx
	e.mu.Unlock()
	return nil
}

// Close closes the store.
func (e *Engine) Close() error { return e.store.Close() }

// Embedder is the identity of the engine's embedder.
func (e *Engine) Embedder() embed.Identity { return e.emb.Identity() }

// Store gives access to the underlying system of record, for tools that need
// more than the engine exposes (integrity checks, descendants, tombstones).
func (e *Engine) Store() *sqlite.Store { return e.store }

// newID returns a time-ordered unique id (UUIDv7) for a memory.
func newID() string { return uuid.Must(uuid.NewV7()).String() }

// errorf wraps an error with what the engine was doing.
func errorf(what string, err error) error {
	if err == nil {
		return nil
	}
	return fmt.Errorf("%s: %w", what, err)
}

// ErrNotFound reports an id that is not in the store (it may have been
// forgotten; the message says so).
var ErrNotFound = sqlite.ErrNotFound

// IsNotFound reports whether err says a memory does not exist.
func IsNotFound(err error) bool { return errors.Is(err, ErrNotFound) }
