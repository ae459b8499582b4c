package mem

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/memgate/memgate/audit"
	"github.com/memgate/memgate/store"
)

// appendEvents appends events and returns the sequence number of the first.
// As in store/sqlite, a decision event after the first with no SearchID is
// linked to the first event (its search). The caller holds the write lock.
func (d *data) appendEvents(events []audit.Event) int64 {
	if len(events) == 0 {
		return 0
	}
	first := int64(len(d.events)) + 1
	for i := range events {
		e := events[i]
		e.Seq = int64(len(d.events)) + 1
		e.At = stamp(e.At)
		if i > 0 && e.SearchID == 0 && e.Kind == audit.Decision {
			e.SearchID = first
		}
		p := string(e.Payload)
		e.Payload = nil
		d.events = append(d.events, event{Event: e, payload: p})
	}
	return first
}

// AppendEvents appends events in one atomic write and returns the sequence
// number of the first. A decision event with no SearchID is linked to the
// first event of the batch (its search).
func (s *Store) AppendEvents(ctx context.Context, events []audit.Event) (int64, error) {
	const what = "append audit events"
	if err := ctx.Err(); err != nil {
		return 0, fmt.Errorf("%s: %w", what, err)
	}
	if len(events) == 0 {
		return 0, nil
	}
	s.d.mu.Lock()
	defer s.d.mu.Unlock()
	if s.readOnly {
		return 0, errReadOnly(what)
	}
	return s.d.appendEvents(events), nil
}

// RecordAdmission appends an admission's search event and decisions and
// enqueues its quarantined memories, in one atomic write, and returns the
// search event's sequence number. An admission that fails a.Check writes
// nothing.
func (s *Store) RecordAdmission(ctx context.Context, a *audit.Admission) (int64, error) {
	if err := a.Check(); err != nil {
		return 0, err
	}
	const what = "record admission"
	if err := ctx.Err(); err != nil {
		return 0, fmt.Errorf("%s: %w", what, err)
	}
	s.d.mu.Lock()
	defer s.d.mu.Unlock()
	if s.readOnly {
		return 0, errReadOnly(what)
	}
	events := make([]audit.Event, 0, 1+len(a.Decisions))
	events = append(append(events, a.Search), a.Decisions...)
	for i := 1; i < len(events); i++ {
		events[i].SearchID = 0 // linked to this admission's search, whatever the caller said
	}
	searchID := s.d.appendEvents(events)
	for _, q := range a.Quarantine {
		it := item{QuarantineItem: audit.QuarantineItem{
			Seq: int64(len(s.d.queue)) + 1, MemoryID: q.MemoryID, UserID: q.UserID, TaskID: q.TaskID,
			SearchID: searchID, At: stamp(q.At), Query: q.Query, Status: audit.Pending,
		}, context: string(q.Context), reasons: string(q.Reasons)}
		s.d.queue = append(s.d.queue, it)
	}
	return searchID, nil
}

// Events lists the events f selects, in sequence order.
func (s *Store) Events(ctx context.Context, f audit.Filter) ([]audit.Event, error) {
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("read audit trail: %w", err)
	}
	s.d.mu.RLock()
	defer s.d.mu.RUnlock()
	var out []audit.Event
	start := min(max(f.After, 0), int64(len(s.d.events))) // events[i] has Seq i+1
	for i := range s.d.events[start:] {
		e := &s.d.events[start+int64(i)]
		if !f.Matches(&e.Event) {
			continue
		}
		if f.Limit > 0 && len(out) == f.Limit {
			break
		}
		ev := e.Event
		ev.Payload = json.RawMessage(e.payload)
		out = append(out, ev)
	}
	return out, nil
}

// Queue lists the review items f selects, oldest first.
func (s *Store) Queue(ctx context.Context, f audit.QueueFilter) ([]audit.QuarantineItem, error) {
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("read review queue: %w", err)
	}
	s.d.mu.RLock()
	defer s.d.mu.RUnlock()
	var out []audit.QuarantineItem
	for i := range s.d.queue {
		it := &s.d.queue[i]
		if (f.Status != "" && it.Status != f.Status) || (f.UserID != "" && it.UserID != f.UserID) {
			continue
		}
		if f.Limit > 0 && len(out) == f.Limit {
			break
		}
		out = append(out, it.out())
	}
	return out, nil
}

// out is the item as a caller gets it, sharing nothing with the store.
func (it *item) out() audit.QuarantineItem {
	q := it.QuarantineItem
	q.Context, q.Reasons = json.RawMessage(it.context), json.RawMessage(it.reasons)
	return q
}

// Review records a verdict on a pending item, the labelled example it makes
// and its audit event, in one atomic write, and returns the item.
func (s *Store) Review(ctx context.Context, r audit.Review) (audit.QuarantineItem, error) {
	const what = "record verdict"
	if err := ctx.Err(); err != nil {
		return audit.QuarantineItem{}, fmt.Errorf("%s: %w", what, err)
	}
	s.d.mu.Lock()
	defer s.d.mu.Unlock()
	if r.Item < 1 || r.Item > int64(len(s.d.queue)) {
		return audit.QuarantineItem{}, fmt.Errorf("%s: review item %d: %w", what, r.Item, store.ErrNotFound)
	}
	it := &s.d.queue[r.Item-1]
	if it.Status != audit.Pending {
		return audit.QuarantineItem{}, fmt.Errorf("%s: review item %d: %w (%s)", what, r.Item, store.ErrAlreadyReviewed, it.Status)
	}
	if s.readOnly {
		return audit.QuarantineItem{}, errReadOnly(what)
	}
	status, label := r.Status()
	it.Status, it.Reviewer, it.VerdictAt, it.Note = status, r.Reviewer, stamp(r.At), r.Note
	if r.At.UnixNano() == 0 {
		it.VerdictAt = time.Time{} // store/sqlite reads a verdict at 0 as none
	}
	s.d.examples = append(s.d.examples, example{Example: audit.Example{
		MemoryID: it.MemoryID, Query: it.Query, Label: label, Source: "reviewer", At: stamp(r.At),
	}, context: it.context})
	res := it.out()
	res.VerdictAt = r.At.UTC() // as given, like store/sqlite's answer
	s.d.appendEvents([]audit.Event{r.Event(&res)})
	return res, nil
}

// Examples lists the labelled examples, oldest first.
func (s *Store) Examples(ctx context.Context) ([]audit.Example, error) {
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("read examples: %w", err)
	}
	s.d.mu.RLock()
	defer s.d.mu.RUnlock()
	var out []audit.Example
	for _, e := range s.d.examples {
		x := e.Example
		x.Context = json.RawMessage(e.context)
		out = append(out, x)
	}
	return out, nil
}

// Check verifies the store's invariants: every stored memory listed once in
// sequence order, no id both stored and forgotten, relations only of stored
// memories and kept in both directions, the audit trail and the queue
// numbered without gaps, and each review item linked to a search event.
func (s *Store) Check(ctx context.Context) error {
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("integrity check: %w", err)
	}
	s.d.mu.RLock()
	defer s.d.mu.RUnlock()
	d := s.d
	var errs []error
	bad := func(format string, args ...any) { errs = append(errs, fmt.Errorf(format, args...)) }
	if len(d.order) != len(d.memories) {
		bad("%d memories in order, %d by id", len(d.order), len(d.memories))
	}
	for i, r := range d.order {
		if i > 0 && r.seq <= d.order[i-1].seq {
			bad("memory %s: seq %d after %d", r.m.ID, r.seq, d.order[i-1].seq)
		}
		if d.memories[r.m.ID] != r {
			bad("memory %s: not the record stored under its id", r.m.ID)
		}
		if _, ok := d.tombstones[r.m.ID]; ok {
			bad("memory %s: both stored and forgotten", r.m.ID)
		}
	}
	for id := range d.lineage {
		if d.memories[id] == nil {
			bad("lineage of %s, which is not stored", id)
		}
	}
	for id, olds := range d.supersedes {
		if d.memories[id] == nil {
			bad("supersessions of %s, which is not stored", id)
		}
		for _, old := range olds {
			if !slices.Contains(d.supersededBy[old], id) {
				bad("%s supersedes %s, which does not know it", id, old)
			}
		}
	}
	for old, news := range d.supersededBy {
		for _, n := range news {
			if !slices.Contains(d.supersedes[n], old) {
				bad("%s is superseded by %s, which does not say so", old, n)
			}
		}
	}
	for i, e := range d.events {
		if e.Seq != int64(i)+1 {
			bad("audit event %d has seq %d", i+1, e.Seq)
		}
	}
	for i, it := range d.queue {
		if it.Seq != int64(i)+1 {
			bad("review item %d has seq %d", i+1, it.Seq)
		}
		if it.SearchID < 1 || it.SearchID > int64(len(d.events)) || d.events[it.SearchID-1].Kind != audit.Search {
			bad("review item %d: search %d is not a search event", it.Seq, it.SearchID)
		}
	}
	if err := errors.Join(errs...); err != nil {
		return fmt.Errorf("integrity check: %w", err)
	}
	return nil
}
