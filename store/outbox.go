package store

import (
	"context"
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
	// EnableOutbox makes every later write of a memory record the change.
	// It is idempotent. Writes committed before it are not recorded: an
	// index made before then is rebuilt (memgate reindex).
	EnableOutbox(ctx context.Context) error
	// DrainOutbox takes up to max pending records, oldest first, and calls
	// apply with them while it holds the store's drain lock, which one
	// drain (or HoldOutbox) at a time holds across every process using the
	// store. If apply returns nil the records are removed; otherwise they
	// stay for a later drain and its error is returned. It returns how
	// many records were removed (0 when none were pending).
	DrainOutbox(ctx context.Context, max int, apply func(ctx context.Context, changes []OutboxRecord) error) (int, error)
	// HoldOutbox runs fn while holding the drain lock, so that no drain
	// runs meanwhile: an index rebuild holds it so that no change applied
	// during the rebuild can be overwritten by a stale read of the
	// rebuild. Records left pending are applied by the next drain.
	HoldOutbox(ctx context.Context, fn func(ctx context.Context) error) error
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

// OutboxState is the state of a store's outbox.
type OutboxState struct {
	Enabled bool
	Pending int
	// Oldest is how long the oldest pending record has waited, 0 when
	// none is pending.
	Oldest time.Duration
}
