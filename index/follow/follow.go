// Package follow keeps a persistent index (index/weaviate) in step with the
// system of record through the store's transactional outbox (store.Outbox).
//
// Every write of a memory records, in its own transaction, that the memory
// changed. A Follower drains those records into the index: for each, it
// re-reads the memory from the store and indexes it if it is stored and not
// revoked, or removes it from the index otherwise. Applying a record is
// idempotent and the result does not depend on the order of records, so a
// drain that fails is simply retried, and a crash anywhere (after the write,
// during a drain) loses nothing: the records stay until a drain has applied
// them, whichever process runs it.
//
// The index may lag the store (while a drain runs, while the index is down);
// that can cost recall but never leaks: the engine re-reads every candidate
// from the store and drops what is revoked, expired or outside the scope,
// whatever the index proposed.
package follow

import (
	"context"
	"errors"
	"fmt"
	"iter"
	"sync"
	"time"

	"github.com/memgate/memgate/index"
	"github.com/memgate/memgate/memory"
	"github.com/memgate/memgate/retrieve"
	"github.com/memgate/memgate/store"
)

// Source is what a Follower needs of the store: its outbox, and the
// memories' current state.
type Source interface {
	store.Outbox
	Get(ctx context.Context, ids []string, withVectors bool) ([]memory.Memory, error)
}

// Options tune a Follower. The zero value is usable.
type Options struct {
	// Batch is how many records a drain takes at a time. Default 512.
	Batch int
	// Poll is how often the follower looks for records without being
	// told of a write: those left by another process that stopped before
	// draining them. Default 1s.
	Poll time.Duration
	// MaxBackoff bounds the wait between retries after a failed drain
	// (the wait doubles from 50ms). Default 5s.
	MaxBackoff time.Duration
	// OnError, if set, is told of every failed drain (for logs).
	OnError func(error)
}

// Follower drains a store's outbox into an index, in the background and on
// demand (Sync). It is safe for concurrent use.
type Follower struct {
	src      Source
	ix       index.Index
	consumer string
	o        Options

	kick chan struct{}
	stop chan struct{}
	done chan struct{}

	mu sync.Mutex
	// requested counts Sync calls; a round records the count it started
	// with, and when it ends, every Sync with a number up to it is
	// answered: with nil if the round drained everything, with its error
	// if not.
	requested, synced, failed int64
	lastErr                   error
	round                     chan struct{} // closed when the current round ends
	applied, failures         int64
	started, closed           bool
}

// New returns a follower of src into ix, whose identity (see Identity) is
// consumer. Start runs it in the background.
func New(src Source, ix index.Index, consumer string, o Options) *Follower {
	if o.Batch <= 0 {
		o.Batch = 512
	}
	if o.Poll <= 0 {
		o.Poll = time.Second
	}
	if o.MaxBackoff <= 0 {
		o.MaxBackoff = 5 * time.Second
	}
	return &Follower{src: src, ix: ix, consumer: consumer, o: o, kick: make(chan struct{}, 1),
		stop: make(chan struct{}), done: make(chan struct{}), round: make(chan struct{})}
}

// Start starts draining in the background, until Close. Calling it again
// does nothing.
func (f *Follower) Start() {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.started || f.closed {
		return
	}
	f.started = true
	go f.loop()
}

// Close stops the background drain and waits for the round in progress.
// Records not yet applied stay in the outbox for the next follower.
func (f *Follower) Close() {
	f.mu.Lock()
	if f.closed {
		f.mu.Unlock()
		return
	}
	f.closed = true
	started := f.started
	f.mu.Unlock()
	close(f.stop)
	if started {
		<-f.done
	}
}

// Sync waits until every change committed to the store before the call has
// been applied to the index, and returns nil; or returns the error of the
// drain that tried, or ctx's error. Sync does not drain itself: it asks the
// background loop, so that concurrent callers share one drain.
func (f *Follower) Sync(ctx context.Context) error {
	f.mu.Lock()
	if f.closed || !f.started {
		f.mu.Unlock()
		return errors.New("sync the index: the follower is not running")
	}
	f.requested++
	mine := f.requested
	f.mu.Unlock()
	f.Kick()
	for {
		f.mu.Lock()
		synced, failed, err, round := f.synced, f.failed, f.lastErr, f.round
		f.mu.Unlock()
		switch {
		case synced >= mine:
			return nil
		case failed >= mine:
			return fmt.Errorf("sync the index: %w", err)
		}
		select {
		case <-round:
		case <-ctx.Done():
			return fmt.Errorf("sync the index: %w", ctx.Err())
		}
	}
}

// Kick asks the background loop to drain now, without waiting.
func (f *Follower) Kick() {
	select {
	case f.kick <- struct{}{}:
	default:
	}
}

// Stats are a follower's counters since it started.
type Stats struct {
	Applied  int64 // records applied
	Failures int64 // failed drains
	LastErr  error // the error of the last drain, nil if it succeeded
}

// Stats returns the follower's counters.
func (f *Follower) Stats() Stats {
	f.mu.Lock()
	defer f.mu.Unlock()
	return Stats{Applied: f.applied, Failures: f.failures, LastErr: f.lastErr}
}

// errClosed answers the Syncs still waiting when the follower stops.
var errClosed = errors.New("the follower was closed")

func (f *Follower) loop() {
	defer close(f.done)
	defer func() {
		f.mu.Lock()
		f.failed, f.lastErr = f.requested, errClosed
		close(f.round)
		f.round = make(chan struct{})
		f.mu.Unlock()
	}()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() {
		<-f.stop
		cancel()
	}()
	poll := time.NewTicker(f.o.Poll)
	defer poll.Stop()
	backoff := time.Duration(0)
	for {
		if backoff > 0 {
			select {
			case <-time.After(backoff):
			case <-f.stop:
				return
			}
		} else {
			select {
			case <-f.kick:
			case <-poll.C:
			case <-f.stop:
				return
			}
		}
		f.mu.Lock()
		gen := f.requested
		f.mu.Unlock()
		n, err := Drain(ctx, f.src, f.ix, f.consumer, f.o.Batch)
		if ctx.Err() != nil {
			return
		}
		f.mu.Lock()
		f.applied += int64(n)
		f.lastErr = err
		if err == nil {
			f.synced = gen
			backoff = 0
		} else {
			f.failed = gen
			f.failures++
			backoff = min(max(2*backoff, 50*time.Millisecond), f.o.MaxBackoff)
		}
		close(f.round)
		f.round = make(chan struct{})
		f.mu.Unlock()
		if err != nil && f.o.OnError != nil {
			f.o.OnError(err)
		}
	}
}

// Drain applies src's pending outbox records to ix, whose identity is
// consumer, batch at a time, until none is left, and returns how many it
// applied. Records another process commits meanwhile may be applied too.
func Drain(ctx context.Context, src Source, ix index.Index, consumer string, batch int) (int, error) {
	total := 0
	for {
		n, err := src.DrainOutbox(ctx, consumer, batch, func(ctx context.Context, recs []store.OutboxRecord) error {
			return Apply(ctx, src, ix, recs)
		})
		total += n
		if err != nil {
			return total, fmt.Errorf("drain the index outbox into the index: %w", err)
		}
		if n < batch {
			return total, nil
		}
	}
}

// Apply makes ix hold, for each record's memory, what the store holds now:
// its entry if it is stored and not revoked, nothing otherwise.
func Apply(ctx context.Context, src Source, ix index.Index, recs []store.OutboxRecord) error {
	seen := make(map[string]bool, len(recs))
	ids := make([]string, 0, len(recs))
	users := make(map[string]string, len(recs))
	for _, r := range recs {
		if !seen[r.MemoryID] {
			seen[r.MemoryID] = true
			ids = append(ids, r.MemoryID)
			users[r.MemoryID] = r.UserID
		}
	}
	ms, err := src.Get(ctx, ids, true)
	if err != nil {
		return fmt.Errorf("read the changed memories: %w", err)
	}
	live := make(map[string]bool, len(ms))
	var upserts []retrieve.Entry
	for i := range ms {
		m := &ms[i]
		if !m.Revoked && m.UserID == users[m.ID] {
			live[m.ID] = true
			upserts = append(upserts, index.EntryOf(m))
		}
	}
	removes := map[string][]string{}
	var order []string
	for _, id := range ids {
		if !live[id] {
			u := users[id]
			if _, ok := removes[u]; !ok {
				order = append(order, u)
			}
			removes[u] = append(removes[u], id)
		}
	}
	if len(upserts) > 0 {
		if err := ix.Upsert(ctx, upserts...); err != nil {
			return fmt.Errorf("index %d memories: %w", len(upserts), err)
		}
	}
	for _, u := range order {
		if err := ix.Remove(ctx, u, removes[u]...); err != nil {
			return fmt.Errorf("remove %d memories of user %q from the index: %w", len(removes[u]), u, err)
		}
	}
	return nil
}

// Identity is the name under which ix follows a store (see store.Outbox):
// its Identity() if it has one (a Weaviate index: its server and
// collection), "" otherwise.
func Identity(ix index.Index) string {
	if id, ok := ix.(interface{ Identity() string }); ok {
		return id.Identity()
	}
	return ""
}

// RebuildSource is what Rebuild needs of the store.
type RebuildSource interface {
	Users(ctx context.Context) ([]string, error)
	ScanEntries(ctx context.Context, userID string, fn func(retrieve.Entry) error) error
	CountEntries(ctx context.Context, userID string) (int, error)
}

// Rebuild makes ix hold the store's indexable memories of users (every
// user with stored memories when users is empty). An index that implements
// index.Loader gets each user's entries replaced; another only gets them
// upserted (what it holds of memories no longer indexable stays).
// progress, if set, is told of each user done and how many entries it has.
//
// If src also keeps an outbox (Source), Rebuild switches it to ix (named
// consumer), so that ix follows every later write (an index that followed
// the store before stops), holds the drain lock while it rebuilds, so that
// no drain interleaves with it, and then drains what was written
// meanwhile. Otherwise the caller must keep writes to ix out of the way.
func Rebuild(ctx context.Context, src RebuildSource, ix index.Index, consumer string, users []string, progress func(user string, entries int)) error {
	rebuild := func(ctx context.Context) error {
		if len(users) == 0 {
			var err error
			if users, err = src.Users(ctx); err != nil {
				return err
			}
		}
		loader, _ := ix.(index.Loader)
		for _, u := range users {
			n, err := rebuildUser(ctx, src, ix, loader, u)
			if err != nil {
				return fmt.Errorf("user %q: %w", u, err)
			}
			if progress != nil {
				progress(u, n)
			}
		}
		return nil
	}
	ob, ok := src.(Source)
	if !ok {
		if err := rebuild(ctx); err != nil {
			return fmt.Errorf("rebuild the index: %w", err)
		}
		return nil
	}
	if err := ob.EnableOutbox(ctx, consumer, true); err != nil {
		return fmt.Errorf("rebuild the index: %w", err)
	}
	if err := ob.HoldOutbox(ctx, rebuild); err != nil {
		return fmt.Errorf("rebuild the index: %w", err)
	}
	if _, err := Drain(ctx, ob, ix, consumer, 512); err != nil {
		return fmt.Errorf("rebuild the index: %w", err)
	}
	return nil
}

func rebuildUser(ctx context.Context, src RebuildSource, ix index.Index, loader index.Loader, user string) (int, error) {
	hint, err := src.CountEntries(ctx, user)
	if err != nil {
		return 0, err
	}
	n := 0
	if loader != nil {
		entries := func(yield func(retrieve.Entry, error) bool) {
			stopped := errors.New("stopped")
			err := src.ScanEntries(ctx, user, func(e retrieve.Entry) error {
				n++
				if !yield(e, nil) {
					return stopped
				}
				return nil
			})
			if err != nil && !errors.Is(err, stopped) {
				yield(retrieve.Entry{}, err)
			}
		}
		return n, loader.ReplaceUser(ctx, user, hint, iter.Seq2[retrieve.Entry, error](entries))
	}
	const batch = 512
	buf := make([]retrieve.Entry, 0, batch)
	err = src.ScanEntries(ctx, user, func(e retrieve.Entry) error {
		n++
		if buf = append(buf, e); len(buf) == batch {
			err := ix.Upsert(ctx, buf...)
			buf = buf[:0]
			return err
		}
		return nil
	})
	if err == nil && len(buf) > 0 {
		err = ix.Upsert(ctx, buf...)
	}
	return n, err
}
