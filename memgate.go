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
// by BM25 over the text. The engine fills it from the store one user at a
// time, on that user's first search (see UserLoader), and keeps it in step
// with every write after that. index/exact is the default; a filtered ANN
// index can take its place for very large tenants.
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
	// MustExist refuses to create a store: Open fails with an error
	// wrapping ErrNoStore if there is none at the path (no file, or an
	// empty one), and creates nothing. Use it wherever a mistyped path
	// should be an error rather than a new, empty store.
	MustExist bool
	// ReadOnly opens an existing store for reading only (it implies
	// MustExist), also when its file is write-protected: Get, List,
	// Search, Export, Stats, Audit and the review queue work, and every
	// operation that writes (Add, Import, Revoke, Forget, Supersede,
	// Review, and Admit, AdmitCandidates, BuildContext and Bind, which
	// record their decisions in the audit trail) fails with an error
	// wrapping ErrReadOnly. The file is not changed, except that a store
	// of an older schema is upgraded first if its file is writable.
	ReadOnly bool
}

// Engine is a memory store with scoped candidate retrieval. It is safe for
// concurrent use.
type Engine struct {
	store  *sqlite.Store
	emb    Embedder
	now    func() time.Time
	policy *policy.Policy
	gate   admit.Gate
	// gateVectors says whether the store's vectors are the ones the gate
	// was trained on; if not, the gate gets texts only.
	gateVectors bool

	mu    sync.RWMutex // serialises writes so the index follows the store's order
	index Index        // a *lazyIndex: users are loaded on first search
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

// Open opens the store at path, creating it unless opts says MustExist or
// ReadOnly. A new store records the embedder's identity; an existing store
// embedded by another embedder is refused with *EmbedderMismatchError; see
// Reembed to migrate it.
//
// Opening reads no vectors: each user's memories are loaded into the index
// on that user's first search (LoadIndex loads them ahead), so commands that
// do not search start in milliseconds whatever the store's size. An engine
// sees the writes other engines and processes make to the same file for
// users it has not loaded yet; after that, only its own. Search re-reads
// every candidate from the store, so a memory revoked or forgotten elsewhere
// is never returned.
func Open(ctx context.Context, path string, opts *Options) (*Engine, error) {
	e, err := open(ctx, path, opts)
	if err != nil {
		return nil, err
	}
	id := e.emb.Identity()
	have, ok, err := e.store.Identity(ctx)
	if err == nil && !ok {
		have = id
		if !e.store.ReadOnly() {
			err = e.store.SetIdentity(ctx, id)
		}
	}
	if err != nil {
		e.store.Close()
		return nil, err
	}
	if have != id {
		e.store.Close()
		return nil, &EmbedderMismatchError{Store: have, Embedder: id}
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
	st, err := sqlite.OpenWith(ctx, path, sqlite.OpenOptions{MustExist: o.MustExist, ReadOnly: o.ReadOnly})
	if err != nil {
		return nil, err
	}
	e := &Engine{store: st, emb: o.Embedder, now: o.Now, policy: o.Policy, gate: o.Gate, gateVectors: true}
	e.index = newLazyIndex(o.NewIndex(o.Embedder.Identity().Dim), st.ScanEntries, st.CountEntries)
	if ge, ok := o.Gate.(interface{ Embedder() embed.Identity }); ok {
		e.gateVectors = ge.Embedder() == o.Embedder.Identity()
	}
	return e, nil
}

// LoadIndex loads the memories of the given users into the index now, or of
// every user when none is given, instead of at each user's first search. A
// long-running server can call it at start so that no first search waits.
// Users already loaded are skipped.
func (e *Engine) LoadIndex(ctx context.Context, userIDs ...string) error {
	if len(userIDs) == 0 {
		var err error
		if userIDs, err = e.store.Users(ctx); err != nil {
			return errorf("load index", err)
		}
	}
	lazy := e.index.(*lazyIndex)
	for _, u := range userIDs {
		if err := lazy.ensure(ctx, u); err != nil {
			return err
		}
	}
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

// ErrNoStore is wrapped by Open's error when there is no store at the path
// and the options say MustExist or ReadOnly.
var ErrNoStore = sqlite.ErrNoStore

// ErrReadOnly is wrapped by the error of a write to a store that was opened
// ReadOnly, or whose file, directory or file system is read-only.
var ErrReadOnly = sqlite.ErrReadOnly

// IsNotFound reports whether err says a memory does not exist.
func IsNotFound(err error) bool { return errors.Is(err, ErrNotFound) }
