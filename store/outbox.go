package store

import (
	"context"
	"fmt"
	"time"
)

// Outbox is implemented by stores that keep a persistent index in step with
// them through a transactional outbox: once enabled, every write that
// changes a memory (insert, revocation, forgetting, re-embedding, restore)
// also records, in the same transaction, which memory changed. A follower
// (package index/follow) drains the records into the index. Because the
// record commits with the write, a crash between the two loses nothing: the
// index catches up from the outbox, whichever process drains it.
//
// A record says only which memory changed, not how: whoever applies it
// re-reads the memory's current state from the store (stored and not
// revoked: index it; otherwise: remove it). Records are therefore
// idempotent, and applying them in any order leaves the index as the store
// is, which makes retries safe.
type Outbox interface {
	// EnableOutbox makes every later write of a memory record the change,
	// for the index named consumer (its identity, e.g. a Weaviate server
	// and collection): one outbox feeds one index. It is idempotent. If
	// the outbox feeds another index it fails with *OutboxTakenError,
	// unless takeOver, which switches it to consumer (after a rebuild of
	// consumer's index: the other index stops following). Writes
	// committed before it are not recorded: an index made before then is
	// rebuilt (memgate reindex).
	EnableOutbox(ctx context.Context, consumer string, takeOver bool) error
	// DrainOutbox takes up to max pending records, oldest first, and calls
	// apply with them while it holds the store's drain lock, which one
	// drain (or HoldOutbox) at a time holds across every process using the
	// store. If apply returns nil the records are removed; otherwise they
	// stay for a later drain and its error is returned. It returns how
	// many records were removed (0 when none were pending). If the outbox
	// feeds another index than consumer it takes nothing and fails with
	// *OutboxTakenError.
	DrainOutbox(ctx context.Context, consumer string, max int, apply func(ctx context.Context, changes []OutboxRecord) error) (int, error)
	// HoldOutbox runs fn while holding the drain lock, so that no drain
	// runs meanwhile: an index rebuild holds it so that no change applied
	// during the rebuild can be overwritten by a stale read of the
	// rebuild. Records left pending are applied by the next drain.
	HoldOutbox(ctx context.Context, fn func(ctx context.Context) error) error
	// StopOutbox stops recording changes for any index and drops the
	// records pending, under the drain lock, and returns how many it
	// dropped. It is for a store moved back to an index that lives in
	// each process (exact): otherwise records pile up that nobody drains.
	// Engines still following an index fail to drain from then on
	// (*OutboxTakenError with no consumer) and no longer keep it in step;
	// a later EnableOutbox starts afresh, and its index must be rebuilt
	// (memgate reindex). Stopping a stopped outbox does nothing.
	StopOutbox(ctx context.Context) (int, error)
	// OutboxLag reports whether the outbox is enabled, how many records
	// are pending and how long ago the oldest was recorded (by the store's
	// clock).
	OutboxLag(ctx context.Context) (OutboxState, error)
}

// OutboxRecord says that a memory changed.
type OutboxRecord struct {
	Seq      int64 // order of recording
	UserID   string
	MemoryID string
}

// OutboxTakenError is the error of an outbox call for an index other than
// the one the outbox feeds.
type OutboxTakenError struct {
	Consumer string // the index the outbox feeds
	Asked    string // the index of the call
}

// Error says which index the store follows and how to switch.
func (e *OutboxTakenError) Error() string {
	return fmt.Sprintf("the store's changes feed the index %s, not %s: use that index, or switch with memgate reindex (which rebuilds %s from the store)",
		e.Consumer, e.Asked, e.Asked)
}

// OutboxState is the state of a store's outbox.
type OutboxState struct {
	Enabled  bool
	Consumer string // the index it feeds, if enabled
	Pending  int
	// Oldest is how long the oldest pending record has waited, 0 when
	// none is pending.
	Oldest time.Duration
}
