// Package index is the contract of a candidate index: what proposes a user's
// memories for a query, by vector similarity and by BM25 over the text. The
// exact in-memory index (index/exact) implements it; package
// index/indextest is the conformance suite every implementation must pass.
//
// The one rule an index must never break: the scope (user, and workspace,
// project and domain filters) is applied inside the search, never to its
// results. An index that takes the top k of a user and then drops those out
// of scope returns fewer than k in-scope memories while more exist, and an
// index that searches across users and filters afterwards is one bug away
// from a leak.
package index

import (
	"context"
	"iter"

	"github.com/memgate/memgate/memory"
	"github.com/memgate/memgate/retrieve"
)

// Index proposes candidates within one user's scope. Implementations are
// safe for concurrent use. Every call may fail (a remote index can), and
// every error is returned, never swallowed.
type Index interface {
	// Upsert adds entries, replacing any with the same user and id.
	Upsert(ctx context.Context, entries ...retrieve.Entry) error
	// Remove removes ids of userID; ids that are not indexed are ignored.
	Remove(ctx context.Context, userID string, ids ...string) error
	// Search returns up to k entries of f.UserID inside f's scope, most
	// similar to q first (ties by id), scored by cosine similarity. k ≤ 0
	// returns none; an empty f.UserID is an error.
	Search(ctx context.Context, f memory.Filter, q []float32, k int) ([]retrieve.Hit, error)
	// Lexical returns up to k entries of f.UserID inside f's scope with a
	// positive BM25 score for query, best first (ties by id), under the
	// same rules as Search.
	Lexical(ctx context.Context, f memory.Filter, query string, k int) ([]retrieve.Hit, error)
	// Vectors returns the vectors of ids of userID, one per id in order,
	// nil for an id that is not indexed (or another user's); an empty
	// userID is an error. Callers must not modify them, and later writes
	// must not change them: the engine keeps them while it admits. One
	// call serves a whole search.
	Vectors(ctx context.Context, userID string, ids []string) ([][]float32, error)
}

// Checker is implemented by an index that can fail to serve for reasons
// outside the process: a remote index checks that its server is reachable
// and ready. An index without it lives in the process and is always ready.
// A service's readiness probe calls it, so it must be cheap.
type Checker interface {
	Check(ctx context.Context) error
}

// Loader is implemented by an index that can build a user's partition in one
// go. The engine loads a user's memories from the store on that user's first
// search; ReplaceUser lets the index build the partition while the store is
// still being read, on another core, without blocking other users' searches.
// Without it the engine calls Upsert.
type Loader interface {
	// ReplaceUser sets the entries of userID to those entries yields,
	// dropping any it had. sizeHint is about how many entries to expect
	// (0 if unknown). If entries yields an error, ReplaceUser must return
	// it and leave the index unchanged.
	ReplaceUser(ctx context.Context, userID string, sizeHint int, entries iter.Seq2[retrieve.Entry, error]) error
}

// Persistent is implemented by an index that keeps its entries itself, across
// engines and processes (a Weaviate index, say). The engine does not load
// such an index from the store; `memgate reindex` rebuilds it.
type Persistent interface {
	Persistent() bool
}

// Counter is implemented by an index that can count its entries cheaply.
type Counter interface {
	Len() int
}

// EntryOf is the index entry of memory m: what an index holds of it.
func EntryOf(m *memory.Memory) retrieve.Entry {
	return retrieve.Entry{ID: m.ID, UserID: m.UserID, WorkspaceID: m.WorkspaceID, ProjectID: m.ProjectID,
		Domain: m.Domain, Text: m.Text, Vector: m.Embedding}
}
