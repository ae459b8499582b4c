package mem

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"iter"
	"slices"

	"github.com/memgate/memgate/auth"
	"github.com/memgate/memgate/memory"
	"github.com/memgate/memgate/store"
)

// The contract of a logical dump (see store.Dumper).
var (
	_ store.Dumper   = (*Store)(nil)
	_ store.Restorer = (*Store)(nil)
)

// Dump calls fn with every record of the store in the canonical order of
// store.Dumper. The records are copied under the store's lock, which is
// released before fn is first called, so fn may use the store. The
// examples' review items and users, which this store does not keep, are
// recovered with store.ReviewLinks.
func (s *Store) Dump(ctx context.Context, fn func(store.Record) error) error {
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("dump store: %w", err)
	}
	recs, err := s.d.records()
	if err != nil {
		return fmt.Errorf("dump store: %w", err)
	}
	for _, r := range recs {
		if err := ctx.Err(); err != nil {
			return fmt.Errorf("dump store: %w", err)
		}
		if err := fn(r); err != nil {
			return err
		}
	}
	return nil
}

// records copies the store's content as a dump's records.
func (d *data) records() ([]store.Record, error) {
	d.mu.RLock()
	defer d.mu.RUnlock()
	var out []store.Record
	if d.identity != nil {
		id := *d.identity
		out = append(out, store.Record{Kind: store.RecordIdentity, Identity: &id})
	}
	for _, r := range d.order {
		m := r.m
		m.Audience, m.Embedding = cloneOrNil(m.Audience), slices.Clone(m.Embedding)
		out = append(out, store.Record{Kind: store.RecordMemory, Memory: &store.StoredMemory{Seq: r.seq, Memory: m}})
	}
	for _, id := range sortedKeys(d.tombstones) {
		t := d.tombstones[id]
		out = append(out, store.Record{Kind: store.RecordTombstone, Tombstone: &t})
	}
	for _, rel := range []struct {
		kind  store.RecordKind
		links map[string][]string
	}{{store.RecordLineage, d.lineage}, {store.RecordSupersession, d.supersedes}} {
		for _, id := range sortedKeys(rel.links) {
			for _, ref := range rel.links[id] { // sorted, each once
				out = append(out, store.Record{Kind: rel.kind, Link: &store.Link{MemoryID: id, Ref: ref}})
			}
		}
	}
	for i := range d.events {
		e := d.events[i].Event
		e.Payload = json.RawMessage(d.events[i].payload)
		out = append(out, store.Record{Kind: store.RecordEvent, Event: &e})
	}
	var links store.ReviewLinks
	for i := range d.queue {
		it := d.queue[i].out()
		links.Item(&it)
		out = append(out, store.Record{Kind: store.RecordReviewItem, Item: &it})
	}
	for _, x := range d.examples {
		e := store.Example{Example: x.Example}
		e.Context = json.RawMessage(x.context)
		links.Link(&e)
		out = append(out, store.Record{Kind: store.RecordExample, Example: &e})
	}
	for _, k := range d.keys {
		p, err := json.Marshal(k.Principal)
		if err != nil {
			return nil, fmt.Errorf("key %s: principal: %w", k.ID, err)
		}
		out = append(out, store.Record{Kind: store.RecordKey, Key: &store.Key{ID: k.ID, Hash: slices.Clone(k.Hash),
			Principal: p, CreatedAt: k.CreatedAt, RevokedAt: k.RevokedAt}})
	}
	return out, nil
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// Restore fills the store, which must be empty, from records in the
// canonical order of store.Dumper: the records are read and checked first,
// and the store takes them all at once, or, on any error, none. This store
// numbers audit events and review items without gaps (the n-th has number
// n), so a dump whose numbers have gaps, as a PostgreSQL store's may after
// a failed write, is refused; so is a key whose principal would not be
// kept byte for byte. If the store's index outbox is enabled, every
// restored memory is recorded in it, as any write of a memory is.
func (s *Store) Restore(ctx context.Context, records iter.Seq2[store.Record, error]) error {
	const what = "restore store"
	if s.readOnly {
		return errReadOnly(what)
	}
	// Refuse a store that is not empty before reading the records, and
	// again when taking them, in case a write came in between.
	s.d.mu.RLock()
	holds := s.d.holds()
	s.d.mu.RUnlock()
	if len(holds) > 0 {
		return fmt.Errorf("%s: %w", what, store.NotEmptyError(holds))
	}
	nd, err := restored(ctx, records)
	if err != nil {
		return fmt.Errorf("%s: %w", what, err)
	}
	s.d.mu.Lock()
	defer s.d.mu.Unlock()
	d := s.d
	if holds := d.holds(); len(holds) > 0 {
		return fmt.Errorf("%s: %w", what, store.NotEmptyError(holds))
	}
	d.identity, d.memories, d.order, d.tombstones = nd.identity, nd.memories, nd.order, nd.tombstones
	d.lineage, d.supersedes, d.supersededBy = nd.lineage, nd.supersedes, nd.supersededBy
	d.events, d.queue, d.examples, d.keys = nd.events, nd.queue, nd.examples, nd.keys
	for _, r := range d.order {
		d.outbox.record(r.m.UserID, r.m.ID) // if enabled, as every write of a memory
	}
	return nil
}

// holds names the kinds of record d holds; the caller holds d's lock.
func (d *data) holds() []string {
	var out []string
	for _, c := range []struct {
		name string
		n    int
	}{{"identity", boolInt(d.identity != nil)}, {"memories", len(d.memories)}, {"tombstones", len(d.tombstones)},
		{"lineage", len(d.lineage)}, {"supersessions", len(d.supersedes)}, {"events", len(d.events)},
		{"reviewItems", len(d.queue)}, {"examples", len(d.examples)}, {"keys", len(d.keys)}} {
		if c.n > 0 {
			out = append(out, c.name)
		}
	}
	return out
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

// restored reads records into a new store's data, checking them.
func restored(ctx context.Context, records iter.Seq2[store.Record, error]) (*data, error) {
	d := New().d
	var order store.Sequence
	for r, err := range records {
		if err != nil {
			return nil, err
		}
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		if err := order.Next(&r); err != nil {
			return nil, err
		}
		if err := d.restore(&r); err != nil {
			return nil, fmt.Errorf("%s: %w", r, err)
		}
	}
	for id := range d.memories {
		if _, ok := d.tombstones[id]; ok {
			return nil, fmt.Errorf("memory %q is both stored and forgotten in the dump", id)
		}
	}
	return d, nil
}

// restore adds one record, checked by store.Sequence, to d.
func (d *data) restore(r *store.Record) error {
	switch r.Kind {
	case store.RecordIdentity:
		id := *r.Identity
		d.identity = &id
	case store.RecordMemory:
		m := r.Memory.Memory
		if _, dup := d.memories[m.ID]; dup {
			return fmt.Errorf("id %q repeats an earlier memory", m.ID)
		}
		c := &record{seq: r.Memory.Seq, m: memory.Memory{
			ID: m.ID, Text: m.Text, UserID: m.UserID,
			WorkspaceID: m.WorkspaceID, ProjectID: m.ProjectID, Domain: m.Domain,
			SourceAuthority: m.SourceAuthority, Kind: m.Kind, Classification: m.Classification,
			CreatedAt: stamp(m.CreatedAt), ExpiresAt: stampOpt(m.ExpiresAt),
			Revoked: m.Revoked, RevokedAt: stampOpt(m.RevokedAt), RevokedReason: m.RevokedReason,
			Audience: cloneOrNil(m.Audience), Embedding: slices.Clone(m.Embedding),
		}}
		d.memories[m.ID] = c
		d.order = append(d.order, c)
	case store.RecordTombstone:
		t := *r.Tombstone
		t.ForgottenAt = stamp(t.ForgottenAt)
		d.tombstones[t.ID] = t
	case store.RecordLineage, store.RecordSupersession:
		l := r.Link
		if _, ok := d.memories[l.MemoryID]; !ok {
			return fmt.Errorf("memory %q is not in the dump", l.MemoryID)
		}
		if r.Kind == store.RecordLineage {
			d.lineage[l.MemoryID] = append(d.lineage[l.MemoryID], l.Ref) // in order: sorted
		} else {
			d.link(l.MemoryID, l.Ref)
		}
	case store.RecordEvent:
		if want := int64(len(d.events)) + 1; r.Event.Seq != want {
			return fmt.Errorf("seq %d where this store would number it %d (an in-memory store numbers events without gaps)", r.Event.Seq, want)
		}
		e := *r.Event
		e.At, e.Payload = stamp(e.At), nil
		d.events = append(d.events, event{Event: e, payload: string(r.Event.Payload)})
	case store.RecordReviewItem:
		if want := int64(len(d.queue)) + 1; r.Item.Seq != want {
			return fmt.Errorf("seq %d where this store would number it %d (an in-memory store numbers review items without gaps)", r.Item.Seq, want)
		}
		it := *r.Item
		it.At, it.VerdictAt = stamp(it.At), stampOpt(it.VerdictAt)
		it.Context, it.Reasons = nil, nil
		d.queue = append(d.queue, item{QuarantineItem: it, context: string(r.Item.Context), reasons: string(r.Item.Reasons)})
	case store.RecordExample:
		e := r.Example.Example
		e.At, e.Context = stamp(e.At), nil
		d.examples = append(d.examples, example{Example: e, context: string(r.Example.Context)})
	case store.RecordKey:
		k := r.Key
		if slices.ContainsFunc(d.keys, func(o auth.Key) bool { return o.ID == k.ID }) {
			return fmt.Errorf("id %q repeats an earlier key", k.ID)
		}
		var p auth.Principal
		if err := json.Unmarshal(k.Principal, &p); err != nil {
			return fmt.Errorf("principal: %w", err)
		}
		if again, err := json.Marshal(p); err != nil || !bytes.Equal(again, k.Principal) {
			return fmt.Errorf("principal %s would not be kept byte for byte by an in-memory store", k.Principal)
		}
		d.keys = append(d.keys, auth.Key{ID: k.ID, Hash: slices.Clone(k.Hash), Principal: p,
			CreatedAt: stamp(k.CreatedAt), RevokedAt: stampOpt(k.RevokedAt)})
	}
	return nil
}
