package memgate

// This file is the only one of the engine that knows the embedded default
// store: the engine itself compiles against package store's contract, and
// Open and Reembed here are the one path from it to a SQLite driver
// (deps_test.go checks it).

import (
	"context"

	"github.com/memgate/memgate/store/sqlite"
)

// Open opens the embedded SQLite store at path (package store/sqlite),
// creating it unless opts says MustExist or ReadOnly, and returns an engine
// over it; see New.
//
// Opening reads no vectors: each user's memories are loaded into the index
// on that user's first search (LoadIndex loads them ahead), so commands that
// do not search start in milliseconds whatever the store's size. An engine
// sees the writes other engines and processes make to the same file for
// users it has not loaded yet; after that, only its own. Search re-reads
// every candidate from the store, so a memory revoked or forgotten elsewhere
// is never returned.
func Open(ctx context.Context, path string, opts *Options) (*Engine, error) {
	var o Options
	if opts != nil {
		o = *opts
	}
	if err := checkEmbedder(&o); err != nil {
		return nil, err
	}
	so := sqlite.OpenOptions{MustExist: o.MustExist, ReadOnly: o.ReadOnly}
	if o.DurableAudit {
		so.AuditSync = sqlite.AuditSyncFull
	}
	st, err := sqlite.OpenWith(ctx, path, so)
	if err != nil {
		return nil, err
	}
	e, err := New(ctx, st, &o)
	if err != nil {
		st.Close()
		return nil, err
	}
	return e, nil
}

// Reembed recomputes every memory's embedding in the store at path with the
// embedder to, and records to as the store's embedder. It runs in one
// transaction, so a failure part-way leaves the store as it was. Afterwards
// the store must be opened with an embedder of to's identity.
func Reembed(ctx context.Context, path string, to Embedder, progress func(done, total int)) error {
	o := Options{Embedder: to}
	if err := checkEmbedder(&o); err != nil {
		return err
	}
	st, err := sqlite.OpenWith(ctx, path, sqlite.OpenOptions{MustExist: true})
	if err != nil {
		return err
	}
	defer st.Close()
	return st.Reembed(ctx, to.Identity(), to.Embed, embedChunk, progress)
}
