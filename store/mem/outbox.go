package mem

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/memgate/memgate/store"
)

var _ store.Outbox = (*Store)(nil)

// outbox is the in-memory index outbox: records are appended under the
// data's lock by the write they describe, so they are atomic with it.
type outbox struct {
	enabled  bool
	consumer string
	seq      int64
	pending  []pendingRecord
	// drain is the drain lock, shared by every view of the store.
	drain sync.Mutex
}

type pendingRecord struct {
	store.OutboxRecord
	at time.Time
}

// record notes that memory id of userID changed, if the outbox is enabled.
// The caller holds the data's write lock.
func (o *outbox) record(userID, id string) {
	if !o.enabled {
		return
	}
	o.seq++
	o.pending = append(o.pending, pendingRecord{store.OutboxRecord{Seq: o.seq, UserID: userID, MemoryID: id}, time.Now()})
}

// EnableOutbox makes every later change of a memory recorded, for
// consumer.
func (s *Store) EnableOutbox(ctx context.Context, consumer string, takeOver bool) error {
	if s.readOnly {
		return fmt.Errorf("enable the index outbox: %w", store.ErrReadOnly)
	}
	s.d.mu.Lock()
	defer s.d.mu.Unlock()
	o := &s.d.outbox
	if o.enabled && o.consumer != consumer && !takeOver {
		return &store.OutboxTakenError{Consumer: o.consumer, Asked: consumer}
	}
	o.enabled, o.consumer = true, consumer
	return nil
}

// DrainOutbox takes up to max records under the drain lock, calls apply
// without holding the store's lock (apply reads the store), and removes
// the records it took.
func (s *Store) DrainOutbox(ctx context.Context, consumer string, max int, apply func(context.Context, []store.OutboxRecord) error) (int, error) {
	if max <= 0 {
		return 0, fmt.Errorf("drain the index outbox: max is %d, want > 0", max)
	}
	if s.readOnly {
		return 0, fmt.Errorf("drain the index outbox: %w", store.ErrReadOnly)
	}
	o := &s.d.outbox
	o.drain.Lock()
	defer o.drain.Unlock()
	if err := ctx.Err(); err != nil {
		return 0, fmt.Errorf("drain the index outbox: %w", err)
	}
	s.d.mu.RLock()
	if o.consumer != consumer {
		s.d.mu.RUnlock()
		return 0, &store.OutboxTakenError{Consumer: o.consumer, Asked: consumer}
	}
	n := min(max, len(o.pending))
	recs := make([]store.OutboxRecord, n)
	for i := range recs {
		recs[i] = o.pending[i].OutboxRecord
	}
	s.d.mu.RUnlock()
	if n == 0 {
		return 0, nil
	}
	if err := apply(ctx, recs); err != nil {
		return 0, err
	}
	s.d.mu.Lock()
	defer s.d.mu.Unlock()
	// Only this drain removes records, and records are appended at the
	// end, so the ones taken are still the first n.
	o.pending = slices.Delete(o.pending, 0, n)
	return n, nil
}

// HoldOutbox runs fn under the drain lock.
func (s *Store) HoldOutbox(ctx context.Context, fn func(context.Context) error) error {
	o := &s.d.outbox
	o.drain.Lock()
	defer o.drain.Unlock()
	return fn(ctx)
}

// StopOutbox stops recording and drops what is pending, under the drain
// lock.
func (s *Store) StopOutbox(ctx context.Context) (int, error) {
	if s.readOnly {
		return 0, fmt.Errorf("stop the index outbox: %w", store.ErrReadOnly)
	}
	o := &s.d.outbox
	o.drain.Lock()
	defer o.drain.Unlock()
	s.d.mu.Lock()
	defer s.d.mu.Unlock()
	n := len(o.pending)
	o.enabled, o.consumer, o.pending = false, "", nil
	return n, nil
}

// OutboxLag reports the outbox's state.
func (s *Store) OutboxLag(ctx context.Context) (store.OutboxState, error) {
	s.d.mu.RLock()
	defer s.d.mu.RUnlock()
	o := &s.d.outbox
	st := store.OutboxState{Enabled: o.enabled, Consumer: o.consumer, Pending: len(o.pending)}
	if len(o.pending) > 0 {
		st.Oldest = max(time.Since(o.pending[0].at), 0)
	}
	return st, nil
}
