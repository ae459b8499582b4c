package memgate

import (
	"context"
	"errors"
	"fmt"
	"iter"
	"sync"

	"github.com/memgate/memgate/index"
	"github.com/memgate/memgate/memory"
	"github.com/memgate/memgate/retrieve"
)

// lazyIndex is the Index an engine searches: it loads a user's memories from
// the store on that user's first search, and keeps every write in step.
//
// Writes reach it in the store's order (the engine holds its write lock
// across the store write and the index update). For a user not loaded yet a
// write is dropped: the load will read it from the store. For a user being
// loaded it is queued and replayed once the load is in; since the load marks
// the user as loading before it reads the store, a write either committed
// before that read (and the replay repeats it harmlessly: upserts and
// removals set an id's state) or is in the queue.
type lazyIndex struct {
	index.Index // the underlying index; Vectors passes through
	// scan calls fn for each of a user's live entries, from the store.
	scan func(ctx context.Context, userID string, fn func(retrieve.Entry) error) error
	// count estimates how many entries scan will yield.
	count func(ctx context.Context, userID string) (int, error)
	// afterRead, if set, runs between reading a user's last entry and
	// installing them (tests use it to write during a load).
	afterRead func(userID string)

	mu      sync.RWMutex
	loaded  map[string]bool
	loading map[string]*userLoad
}

// userLoad is a load in progress.
type userLoad struct {
	done    chan struct{} // closed when the load has finished or failed
	pending []indexOp     // writes for the user made meanwhile, in order
}

// indexOp is a queued write: an upsert of entries or a removal of ids.
type indexOp struct {
	upsert []retrieve.Entry
	remove []string
}

func newLazyIndex(idx index.Index, scan func(ctx context.Context, userID string, fn func(retrieve.Entry) error) error,
	count func(ctx context.Context, userID string) (int, error)) *lazyIndex {
	return &lazyIndex{Index: idx, scan: scan, count: count, loaded: map[string]bool{}, loading: map[string]*userLoad{}}
}

// Upsert indexes the entries of loaded users, queues those of users being
// loaded, and leaves the others to their load.
func (x *lazyIndex) Upsert(ctx context.Context, entries ...retrieve.Entry) error {
	x.mu.Lock()
	defer x.mu.Unlock()
	now := make([]retrieve.Entry, 0, len(entries))
	for _, en := range entries {
		switch l := x.loading[en.UserID]; {
		case x.loaded[en.UserID]:
			now = append(now, en)
		case l != nil:
			l.pending = append(l.pending, indexOp{upsert: []retrieve.Entry{en}})
		}
	}
	if len(now) == 0 {
		return nil
	}
	return x.Index.Upsert(ctx, now...)
}

// Remove removes ids of a loaded user, or queues the removal while the user
// is being loaded.
func (x *lazyIndex) Remove(ctx context.Context, userID string, ids ...string) error {
	x.mu.Lock()
	defer x.mu.Unlock()
	if l := x.loading[userID]; l != nil {
		l.pending = append(l.pending, indexOp{remove: ids})
		return nil
	}
	if !x.loaded[userID] {
		return nil // the user's load will read the store as it is
	}
	return x.Index.Remove(ctx, userID, ids...)
}

// Len counts the entries of the users loaded so far, if the underlying
// index can count.
func (x *lazyIndex) Len() int {
	if c, ok := x.Index.(index.Counter); ok {
		return c.Len()
	}
	return 0
}

// Search loads f.UserID's memories if they are not yet, then searches.
func (x *lazyIndex) Search(ctx context.Context, f memory.Filter, q []float32, k int) ([]retrieve.Hit, error) {
	if err := x.ensure(ctx, f.UserID); err != nil {
		return nil, err
	}
	return x.Index.Search(ctx, f, q, k)
}

// Lexical loads f.UserID's memories if they are not yet, then searches.
func (x *lazyIndex) Lexical(ctx context.Context, f memory.Filter, query string, k int) ([]retrieve.Hit, error) {
	if err := x.ensure(ctx, f.UserID); err != nil {
		return nil, err
	}
	return x.Index.Lexical(ctx, f, query, k)
}

// ensure returns once userID's memories are in the index: at once if they
// are, after another caller's load of them, or after loading them itself.
func (x *lazyIndex) ensure(ctx context.Context, userID string) error {
	if userID == "" {
		return nil // the index refuses the search itself
	}
	for {
		x.mu.RLock()
		ok, l := x.loaded[userID], x.loading[userID]
		x.mu.RUnlock()
		if ok {
			return nil
		}
		if l != nil {
			select {
			case <-l.done: // loaded, or failed: look again
				continue
			case <-ctx.Done():
				return ctx.Err()
			}
		}
		x.mu.Lock()
		if x.loaded[userID] || x.loading[userID] != nil {
			x.mu.Unlock()
			continue
		}
		l = &userLoad{done: make(chan struct{})}
		x.loading[userID] = l
		x.mu.Unlock()
		return x.load(ctx, userID, l)
	}
}

// load reads userID's entries from the store, installs them, and replays the
// writes made meanwhile. If anything fails the user is left unloaded, with
// nothing of it in the index, so the next search tries again.
func (x *lazyIndex) load(ctx context.Context, userID string, l *userLoad) error {
	var ids []string // what may have reached the index, to undo a failed load
	err := x.install(ctx, userID, x.stream(ctx, userID, &ids))
	x.mu.Lock()
	defer x.mu.Unlock()
	defer close(l.done)
	delete(x.loading, userID)
	for _, op := range l.pending {
		if err != nil {
			break
		}
		if len(op.upsert) > 0 {
			err = x.Index.Upsert(ctx, op.upsert...)
		}
		if err == nil && len(op.remove) > 0 {
			err = x.Index.Remove(ctx, userID, op.remove...)
		}
	}
	if err != nil {
		for _, op := range l.pending {
			for _, en := range op.upsert {
				ids = append(ids, en.ID)
			}
		}
		// Undo with a context of its own: the load's may be what failed.
		if rerr := x.Index.Remove(context.WithoutCancel(ctx), userID, ids...); rerr != nil {
			err = errors.Join(err, fmt.Errorf("undo the partial load: %w", rerr))
		}
		if ctx.Err() != nil {
			return fmt.Errorf("load the index of user %s: %w", userID, err)
		}
		return fmt.Errorf("load the index of user %s: %w (run `memgate reembed` if the store's vectors are damaged)", userID, err)
	}
	x.loaded[userID] = true
	return nil
}

// install puts a user's entries into the underlying index.
func (x *lazyIndex) install(ctx context.Context, userID string, entries iter.Seq2[retrieve.Entry, error]) error {
	if ul, ok := x.Index.(index.Loader); ok {
		n, err := x.count(ctx, userID)
		if err != nil {
			return err
		}
		return ul.ReplaceUser(ctx, userID, n, entries)
	}
	const chunk = 4096
	batch := make([]retrieve.Entry, 0, chunk)
	for en, err := range entries {
		if err != nil {
			return err
		}
		if batch = append(batch, en); len(batch) == chunk {
			if err := x.Index.Upsert(ctx, batch...); err != nil {
				return err
			}
			batch = batch[:0]
		}
	}
	return x.Index.Upsert(ctx, batch...)
}

// loadChunk is how many entries the store reader hands over at a time.
const loadChunk = 1024

// stream yields a user's entries from the store, read by another goroutine
// a few chunks ahead, so that reading (SQLite) and indexing (tokenising,
// copying vectors) run on two cores. It appends each entry's id to ids, and
// yields the read error, if any, last.
func (x *lazyIndex) stream(ctx context.Context, userID string, ids *[]string) iter.Seq2[retrieve.Entry, error] {
	return func(yield func(retrieve.Entry, error) bool) {
		ctx, cancel := context.WithCancel(ctx)
		defer cancel()
		chunks := make(chan []retrieve.Entry, 4)
		var readErr error // written before chunks is closed
		go func() {
			defer close(chunks)
			send := func(c []retrieve.Entry) error {
				select {
				case chunks <- c:
					return nil
				case <-ctx.Done():
					return ctx.Err()
				}
			}
			chunk := make([]retrieve.Entry, 0, loadChunk)
			readErr = x.scan(ctx, userID, func(en retrieve.Entry) error {
				if chunk = append(chunk, en); len(chunk) < loadChunk {
					return nil
				}
				c := chunk
				chunk = make([]retrieve.Entry, 0, loadChunk)
				return send(c)
			})
			if readErr == nil && len(chunk) > 0 {
				readErr = send(chunk)
			}
		}()
		stopped := false
		for c := range chunks {
			for _, en := range c {
				if stopped {
					break
				}
				*ids = append(*ids, en.ID)
				if !yield(en, nil) {
					stopped = true
					cancel() // the reader stops at its next row; drain what it sent
				}
			}
		}
		if stopped {
			return
		}
		if readErr == nil && x.afterRead != nil {
			x.afterRead(userID)
		}
		if readErr != nil {
			yield(retrieve.Entry{}, readErr)
		}
	}
}
