// Package memgate is a long-term memory engine for AI agents whose read path
// is meant to be a trust boundary: a memory that is similar to the current task
// is only a candidate, returned with all the metadata (scope, source
// authority, kind, classification, validity, lineage) that admission needs to
// decide whether it may enter a model's context.
//
// An Engine keeps memories in a system of record (package store: an embedded
// SQLite file by default, see Open; any store with New), embeds them offline
// by default (package embed), and retrieves candidates by fusing vector
// search with BM25 full-text search in a candidate index (package index:
// index/exact by default).
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
	"github.com/memgate/memgate/index"
	"github.com/memgate/memgate/index/exact"
	"github.com/memgate/memgate/index/follow"
	"github.com/memgate/memgate/memory"
	"github.com/memgate/memgate/policy"
	"github.com/memgate/memgate/store"
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

// Options configure Open. The zero value (or nil) is the embedded default:
// the builtin offline embedder and an exact in-memory index.
type Options struct {
	// Embedder embeds memory and query text. Default embed.NewBuiltin().
	Embedder Embedder
	// NewIndex makes the candidate index for a dimension (see package
	// index). Default exact.New. An index that is not index.Persistent is
	// filled from the store one user at a time, on that user's first
	// search, and kept in step with every write after that.
	NewIndex func(dim int) index.Index
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
	// MustExist (Open only) refuses to create a store: Open fails with an error
	// wrapping ErrNoStore if there is none at the path (no file, or an
	// empty one), and creates nothing. Use it wherever a mistyped path
	// should be an error rather than a new, empty store.
	MustExist bool
	// DurableAudit (Open only) makes the SQLite store flush every
	// admission record to the disk before Admit returns, so that it also
	// survives a power loss (sqlite.AuditSyncFull). By default a record is
	// committed before Admit returns and survives a crash of the process,
	// but a power loss may lose about the last second of records; see
	// docs/design.md.
	DurableAudit bool
	// IndexWait is how long a write waits for a persistent index that
	// follows the store through its outbox (store.Outbox, index/follow) to
	// apply it, so that a search right after the write finds it. Default
	// 5s; negative: do not wait. The write is durable when it returns
	// either way: one the index has not applied yet is applied when the
	// index is back, and IndexStatus reports the lag.
	IndexWait time.Duration
	// Reindex says the caller is about to rebuild a persistent index from
	// the store (Engine.Reindex): New does not check that the index
	// follows the store, and the engine follows it once Reindex is done.
	// Without it, New refuses a persistent index that another index's
	// outbox feeds (*store.OutboxTakenError) or that was never built from
	// a store holding memories (*IndexNotBuiltError). Call Reindex before
	// using such an engine from several goroutines: it starts following
	// when Reindex returns.
	Reindex bool
	// ReadOnly (Open only) opens an existing store for reading only (it implies
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
	store  store.Store
	emb    Embedder
	now    func() time.Time
	policy *policy.Policy
	gate   admit.Gate
	// gateVectors says whether the store's vectors are the ones the gate
	// was trained on; if not, the gate gets texts only.
	gateVectors bool

	mu    sync.RWMutex // serialises writes so the index follows the store's order
	index index.Index  // a *lazyIndex, unless the index is persistent
	lazy  *lazyIndex   // nil for a persistent index
	// follow drains the store's outbox into a persistent index; nil if
	// the index is not persistent or the store keeps no outbox (then
	// writes update the index directly, under mu).
	follow    *follow.Follower
	indexWait time.Duration
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

// New returns an engine over st, any implementation of the store contract
// (package store): store/sqlite, store/mem, or another backend. A store
// without a recorded embedder identity gets the engine's, unless it is
// read-only; one filled by another embedder is refused with
// *EmbedderMismatchError (see Reembed to migrate it). The engine owns st:
// Close closes it. The options MustExist and ReadOnly concern opening a
// store and are ignored here.
func New(ctx context.Context, st store.Store, opts *Options) (*Engine, error) {
	var o Options
	if opts != nil {
		o = *opts
	}
	if err := checkEmbedder(&o); err != nil {
		return nil, err
	}
	if o.NewIndex == nil {
		o.NewIndex = func(dim int) index.Index { return exact.New(dim) }
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
	id := o.Embedder.Identity()
	have, ok, err := st.Identity(ctx)
	if err == nil && !ok {
		have = id
		if !st.ReadOnly() {
			err = st.SetIdentity(ctx, id)
		}
	}
	if err != nil {
		return nil, fmt.Errorf("open engine: %w", err)
	}
	if have != id {
		return nil, &EmbedderMismatchError{Store: have, Embedder: id}
	}
	e := &Engine{store: st, emb: o.Embedder, now: o.Now, policy: o.Policy, gate: o.Gate, gateVectors: true}
	e.index = o.NewIndex(id.Dim)
	if p, ok := e.index.(index.Persistent); !ok || !p.Persistent() {
		e.lazy = newLazyIndex(e.index, st.ScanEntries, st.CountEntries)
		e.index = e.lazy
	} else if src, ok := st.(follow.Source); ok && !st.ReadOnly() {
		e.indexWait = o.IndexWait
		if e.indexWait == 0 {
			e.indexWait = 5 * time.Second
		}
		if !o.Reindex {
			if err := e.startFollowing(ctx, src); err != nil {
				return nil, fmt.Errorf("open engine: %w", err)
			}
		}
	}
	if ge, ok := o.Gate.(interface{ Embedder() embed.Identity }); ok {
		e.gateVectors = ge.Embedder() == id
	}
	return e, nil
}

// checkEmbedder defaults and checks the options' embedder.
func checkEmbedder(o *Options) error {
	if o.Embedder == nil {
		o.Embedder = embed.NewBuiltin()
	}
	if id := o.Embedder.Identity(); id.Name == "" || id.Dim <= 0 || id.Dim > memory.MaxEmbeddingDim {
		return fmt.Errorf("open engine: embedder identity %+v is invalid", id)
	}
	return nil
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
	if e.lazy == nil {
		return nil // a persistent index holds every user already
	}
	for _, u := range userIDs {
		if err := e.lazy.ensure(ctx, u); err != nil {
			return err
		}
	}
	return nil
}

// Close stops the index follower, if any, and closes the store.
func (e *Engine) Close() error {
	if e.follow != nil {
		e.follow.Close()
	}
	return e.store.Close()
}

// IndexStatus says how a persistent index follows the store.
type IndexStatus struct {
	// Following is true when a persistent index follows the store's
	// outbox (PostgreSQL and Weaviate); the rest is then meaningful.
	// Applied, Failures and LastError count this engine's own work: a
	// read-only engine reports the lag but applies nothing.
	Following bool
	// Index names the index the store's changes feed. When it is set and
	// Following is not, the store records changes for an index this engine
	// does not use (it builds the exact index itself): if no engine uses
	// that index any more, the records pile up, and StopOutbox stops them.
	Index string
	// Pending is how many changes the index has yet to apply, Oldest how
	// long the oldest has waited (the index's lag).
	Pending int
	Oldest  time.Duration
	// Applied counts the changes this engine applied, Failures its failed
	// attempts; LastError is the last attempt's error, if it failed.
	Applied, Failures int64
	LastError         error
}

// IndexStatus reports the index's lag behind the store.
func (e *Engine) IndexStatus(ctx context.Context) (IndexStatus, error) {
	ob, ok := e.store.(store.Outbox)
	if !ok {
		return IndexStatus{}, nil
	}
	st, err := ob.OutboxLag(ctx)
	if err != nil || !st.Enabled {
		return IndexStatus{}, errorf("index status", err)
	}
	out := IndexStatus{Following: e.lazy == nil, Index: st.Consumer, Pending: st.Pending, Oldest: st.Oldest}
	if e.follow != nil {
		fs := e.follow.Stats()
		out.Applied, out.Failures, out.LastError = fs.Applied, fs.Failures, fs.LastErr
	}
	return out, nil
}

// Ready reports whether the engine can serve requests now: its store
// answers a one-row read and a remote index (one that implements
// index.Checker, such as Weaviate) is reachable and ready. It is what a
// service's readiness probe asks; it reads no memory and counts nothing.
// The error is a *NotReadyError.
func (e *Engine) Ready(ctx context.Context) error {
	if _, _, err := e.store.Identity(ctx); err != nil {
		return &NotReadyError{Part: "store", Err: err}
	}
	if c, ok := e.index.(index.Checker); ok {
		if err := c.Check(ctx); err != nil {
			return &NotReadyError{Part: "index", Err: err}
		}
	}
	return nil
}

// NotReadyError says which part of an engine cannot serve, the store or the
// index, and why. A service tells its unauthenticated probes the part and
// keeps the cause (addresses, collection names) for its log.
type NotReadyError struct {
	Part string // "store" or "index"
	Err  error
}

// Error names the part and the cause.
func (e *NotReadyError) Error() string { return "ready: " + e.Part + ": " + e.Err.Error() }

// Unwrap returns the cause.
func (e *NotReadyError) Unwrap() error { return e.Err }

// IndexNotBuiltError is returned by New for a persistent index that does
// not follow the store, which already holds memories: the index was never
// built from it (after memgate migrate, or pointed at a new collection),
// and would miss them.
type IndexNotBuiltError struct {
	Index string // the index's identity
}

// Error says what to run.
func (e *IndexNotBuiltError) Error() string {
	return fmt.Sprintf("the index %s was never built from this store, which holds memories: build it with memgate reindex first", e.Index)
}

// startFollowing makes the persistent index follow src: it checks that the
// store's outbox feeds this index (or, for a store without memories yet,
// enables it for this index) and starts the follower.
func (e *Engine) startFollowing(ctx context.Context, src follow.Source) error {
	consumer := follow.Identity(e.index)
	st, err := src.OutboxLag(ctx)
	if err != nil {
		return err
	}
	switch {
	case st.Enabled && st.Consumer != consumer:
		return &store.OutboxTakenError{Consumer: st.Consumer, Asked: consumer}
	case !st.Enabled:
		p, err := e.store.List(ctx, store.ListQuery{IncludeRevoked: true, Limit: 1})
		if err != nil {
			return err
		}
		if len(p.Memories) > 0 {
			return &IndexNotBuiltError{Index: consumer}
		}
		if err := src.EnableOutbox(ctx, consumer, false); err != nil {
			return err
		}
	}
	e.follow = follow.New(src, e.index, consumer, follow.Options{})
	e.follow.Start()
	return nil
}

// StopOutbox stops the store recording its changes for a persistent index
// and drops the changes pending, and returns how many it dropped: for a
// store moved back to the exact index, whose outbox nobody drains any more.
// Engines still on the persistent index stop keeping it in step; using it
// again takes a reindex. An engine that follows the outbox itself refuses
// (open one with the exact index); a store without an outbox gets an error
// wrapping errors.ErrUnsupported.
func (e *Engine) StopOutbox(ctx context.Context) (int, error) {
	ob, ok := e.store.(store.Outbox)
	if !ok {
		return 0, fmt.Errorf("stop the index outbox: the store keeps none: %w", errors.ErrUnsupported)
	}
	if e.lazy == nil {
		return 0, fmt.Errorf("stop the index outbox: this engine uses the persistent index %s; stop it from an engine on the exact index", follow.Identity(e.index))
	}
	return ob.StopOutbox(ctx)
}

// ErrNotPersistent is returned by Reindex when the engine's index is not
// persistent: such an index is built from the store by every process
// that uses it, so there is nothing to rebuild.
var ErrNotPersistent = errors.New("the index is not persistent: every process builds it from the store")

// Reindex rebuilds a persistent index (index/weaviate) from the store, for
// the given users or every user, and then keeps it following the store
// (see IndexStatus): after a migration, after restoring the index from a
// backup, or if it was ever written outside memgate. Searches keep working
// meanwhile, from what the index holds. progress, if set, is told of each
// user done and how many memories it has indexed.
func (e *Engine) Reindex(ctx context.Context, progress func(user string, memories int), users ...string) error {
	if e.lazy != nil {
		return ErrNotPersistent
	}
	users = memory.NormalizeIDs(users)
	src, outbox := e.store.(follow.Source)
	if !outbox {
		// Writes update the index directly, under mu.
		e.mu.Lock()
		defer e.mu.Unlock()
	}
	if err := follow.Rebuild(ctx, e.store, e.index, follow.Identity(e.index), users, progress); err != nil {
		return err
	}
	if outbox && e.follow == nil && !e.store.ReadOnly() {
		return errorf("reindex", e.startFollowing(ctx, src))
	}
	return nil
}

// awaitIndex waits, up to IndexWait, for the index to apply the writes
// committed so far. A write is durable without it, so a failure is only
// the index lagging: IndexStatus shows it, and the follower retries.
func (e *Engine) awaitIndex(ctx context.Context) {
	if e.indexWait < 0 {
		e.follow.Kick()
		return
	}
	ctx, cancel := context.WithTimeout(ctx, e.indexWait)
	defer cancel()
	_ = e.follow.Sync(ctx)
}

// Embedder is the identity of the engine's embedder.
func (e *Engine) Embedder() embed.Identity { return e.emb.Identity() }

// Store gives access to the underlying system of record, for tools that need
// more than the engine exposes (integrity checks, labelled examples).
func (e *Engine) Store() store.Store { return e.store }

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
var ErrNotFound = store.ErrNotFound

// ErrNoStore is wrapped by Open's error when there is no store at the path
// and the options say MustExist or ReadOnly.
var ErrNoStore = store.ErrNoStore

// ErrReadOnly is wrapped by the error of a write to a store that was opened
// ReadOnly, or whose file, directory or file system is read-only.
var ErrReadOnly = store.ErrReadOnly

// IsNotFound reports whether err says a memory does not exist.
func IsNotFound(err error) bool { return errors.Is(err, ErrNotFound) }
