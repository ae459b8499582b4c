package storetest

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/memgate/memgate/audit"
	"github.com/memgate/memgate/embed"
	"github.com/memgate/memgate/memory"
	"github.com/memgate/memgate/retrieve"
	"github.com/memgate/memgate/store"
)

// checkOrdering: List is in insertion order and pages with Limit, After and
// Next (0 exactly when nothing follows) under every filter; Get answers in
// the order asked; ScanEntries, Events, Queue and Examples are in the order
// written, and Events pages with After and Limit under every filter.
func checkOrdering(ctx context.Context, t testing.TB, newStore Factory) {
	s := newStore(t)
	// Ids out of alphabetical order, so that id order is not insertion
	// order.
	var model []memory.Memory // what the store holds, in insertion order
	add := func(ms ...memory.Memory) {
		t.Helper()
		insert(ctx, t, s, ms...)
		model = append(model, ms...)
	}
	scoped := func(id, user, ws string, rev bool) memory.Memory {
		m := newMem(id, user, "note "+id)
		m.WorkspaceID = ws
		if rev {
			m = revoked(m, "withdrawn")
		}
		return m
	}
	add(scoped("k7", "u1", "ws1", false), scoped("a3", "u1", "", false), scoped("z1", "u2", "ws1", false))
	add(scoped("m5", "u1", "ws2", false), scoped("b2", "u1", "ws1", true), scoped("y9", "u2", "", true),
		scoped("c4", "u1", "", false), scoped("x8", "u1", "ws2", true))
	add(scoped("d6", "u1", "ws1", false))
	drop := func(id string) {
		t.Helper()
		forget(ctx, t, s, id, t0.Add(time.Hour))
		model = slices.DeleteFunc(model, func(m memory.Memory) bool { return m.ID == id })
	}
	drop("m5") // from the middle
	drop("d6") // the last: what comes next is still listed last
	add(scoped("e0", "u1", "ws1", false), scoped("f1", "u2", "ws2", false))

	for _, q := range []store.ListQuery{
		{},
		{IncludeRevoked: true},
		{Filter: memory.Filter{UserID: "u1"}},
		{Filter: memory.Filter{UserID: "u1"}, IncludeRevoked: true},
		{Filter: memory.Filter{UserID: "u1", WorkspaceID: "ws1"}},
		{Filter: memory.Filter{WorkspaceID: "ws2"}, IncludeRevoked: true},
		{Filter: memory.Filter{UserID: "u3"}},
	} {
		var want []string
		for _, m := range model {
			if q.Filter.Matches(&m) && (q.IncludeRevoked || !m.Revoked) {
				want = append(want, m.ID)
			}
		}
		p, err := s.List(ctx, q)
		if err != nil {
			t.Fatalf("List(%+v): %v", q, err)
		}
		if got := idsOf(p.Memories); !slices.Equal(got, want) || p.Next != 0 {
			t.Errorf("List(%+v) = %v, next %d; want %v, next 0", q, got, p.Next, want)
		}
		for limit := 1; limit <= len(want)+1; limit++ {
			q := q
			q.Limit = limit
			var got []string
			for page := 0; ; page++ {
				p, err := s.List(ctx, q)
				if err != nil {
					t.Fatalf("List(%+v): %v", q, err)
				}
				got = append(got, idsOf(p.Memories)...)
				rest := len(want) - len(got)
				switch {
				case len(p.Memories) > limit:
					t.Errorf("List(%+v) returned %d memories", q, len(p.Memories))
				case rest > 0 && (p.Next == 0 || len(p.Memories) < limit):
					t.Errorf("List(%+v) page %d: %d memories, next %d, with %d more to come", q, page, len(p.Memories), p.Next, rest)
				case rest <= 0 && p.Next != 0:
					t.Errorf("List(%+v) page %d: next %d after the last memory", q, page, p.Next)
				}
				if p.Next == 0 || page > len(want) || t.Failed() {
					break
				}
				q.After = p.Next
			}
			if !slices.Equal(got, want) {
				t.Errorf("List(%+v) in pages of %d = %v, want %v", q, limit, got, want)
			}
		}
	}
	for _, withVectors := range []bool{false, true} {
		for _, m := range list(ctx, t, s, store.ListQuery{IncludeRevoked: true, WithVectors: withVectors, Limit: 3}) {
			if i := slices.IndexFunc(model, func(x memory.Memory) bool { return x.ID == m.ID }); i < 0 {
				t.Errorf("List returns %s, which is not stored", m.ID)
			} else if d := diffMemory(m, model[i], withVectors); d != "" {
				t.Errorf("List(with vectors %v) returns %s with %s", withVectors, m.ID, d)
			}
		}
	}
	if got, want := idsOf(get(ctx, t, s, []string{"x8", "nowhere", "k7", "m5", "x8", "a3"}, false)), []string{"x8", "k7", "a3"}; !slices.Equal(got, want) {
		t.Errorf("Get(x8, nowhere, k7, m5, x8, a3) = %v, want %v", got, want)
	}
	if got, want := scanIDs(ctx, t, s, "u1"), []string{"k7", "a3", "c4", "e0"}; !slices.Equal(got, want) {
		t.Errorf("ScanEntries(u1) = %v, want %v", got, want)
	}
	if got, want := scanIDs(ctx, t, s, ""), []string{"k7", "a3", "z1", "c4", "e0", "f1"}; !slices.Equal(got, want) {
		t.Errorf("ScanEntries(every user) = %v, want %v", got, want)
	}

	// Events: in sequence order, paged by After and Limit, under filters.
	for i := range 3 {
		task := fmt.Sprintf("t%d", i)
		record(ctx, t, s, admission("u1", task, t0.Add(-time.Duration(i)*time.Hour), []string{"k7", "a3"}, []string{"a3"}))
		record(ctx, t, s, admission("u2", task, t0, []string{"z1"}, []string{"z1"}))
	}
	if _, err := s.AppendEvents(ctx, []audit.Event{
		{Kind: audit.Injection, At: t0, TaskID: "t1", UserID: "u1", SearchID: 1, Payload: json.RawMessage(`{}`)},
		{Kind: audit.Binding, At: t0, TaskID: "t1", UserID: "u1", SearchID: 1, MemoryID: "k7", Decision: "allow", Payload: json.RawMessage(`{}`)},
	}); err != nil {
		t.Fatal(err)
	}
	all := events(ctx, t, s, audit.Filter{})
	for i := 1; i < len(all); i++ {
		if all[i].Seq <= all[i-1].Seq {
			t.Fatalf("Events out of order: %d after %d", all[i].Seq, all[i-1].Seq)
		}
	}
	for _, f := range []audit.Filter{
		{}, {UserID: "u1"}, {Kind: audit.Decision}, {TaskID: "t1"}, {MemoryID: "a3"}, {Decision: "admit", UserID: "u2"},
		{SearchID: all[0].Seq}, {SearchID: 1, TaskID: "t1"}, {Kind: audit.Forget}, {UserID: "u9"},
	} {
		var want []int64
		for i := range all {
			if f.Matches(&all[i]) {
				want = append(want, all[i].Seq)
			}
		}
		seqs := func(evs []audit.Event) []int64 {
			out := make([]int64, len(evs))
			for i := range evs {
				out[i] = evs[i].Seq
			}
			return out
		}
		if got := seqs(events(ctx, t, s, f)); !slices.Equal(got, want) {
			t.Errorf("Events(%+v) = %v, want %v", f, got, want)
		}
		for limit := 1; limit <= len(want)+1; limit++ {
			f := f
			f.Limit = limit
			var got []int64
			for range len(want) + 2 {
				page := seqs(events(ctx, t, s, f))
				if len(page) > limit {
					t.Errorf("Events(%+v) returned %d events", f, len(page))
				}
				got = append(got, page...)
				if len(page) == 0 {
					break
				}
				f.After = page[len(page)-1]
			}
			if !slices.Equal(got, want) {
				t.Errorf("Events(%+v) in pages of %d = %v, want %v", f, limit, got, want)
			}
		}
	}

	// The queue and the examples, oldest first (not by their times).
	items := queue(ctx, t, s, audit.QueueFilter{})
	var got []string
	for i, it := range items {
		got = append(got, it.UserID+"/"+it.TaskID)
		if i > 0 && it.Seq <= items[i-1].Seq {
			t.Errorf("Queue out of order: item %d after %d", it.Seq, items[i-1].Seq)
		}
	}
	if want := []string{"u1/t0", "u2/t0", "u1/t1", "u2/t1", "u1/t2", "u2/t2"}; !slices.Equal(got, want) {
		t.Errorf("Queue = %v, want %v", got, want)
	}
	if first2 := queue(ctx, t, s, audit.QueueFilter{Limit: 2}); len(first2) != 2 || len(items) < 2 || first2[0].Seq != items[0].Seq || first2[1].Seq != items[1].Seq {
		t.Errorf("Queue(limit 2) = %+v, want the first two", first2)
	}
	if mine := queue(ctx, t, s, audit.QueueFilter{UserID: "u1", Limit: 2}); len(mine) != 2 || mine[0].TaskID != "t0" || mine[1].TaskID != "t1" {
		t.Errorf("Queue(u1, limit 2) = %+v, want u1's first two", mine)
	}
	if len(items) == 6 {
		for _, i := range []int{4, 0, 2} {
			if _, err := s.Review(ctx, audit.Review{Item: items[i].Seq, Approve: i != 0, Reviewer: "rev", At: t0.Add(-time.Duration(i) * time.Hour)}); err != nil {
				t.Fatalf("Review(%d): %v", items[i].Seq, err)
			}
		}
		exs, err := s.Examples(ctx)
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, e := range exs {
			got = append(got, e.Label+"/"+string(e.Context))
		}
		want := []string{`admit/{"task":"t2"}`, `exclude/{"task":"t0"}`, `admit/{"task":"t1"}`}
		if !slices.Equal(got, want) {
			t.Errorf("Examples = %v, want %v", got, want)
		}
		if got := queue(ctx, t, s, audit.QueueFilter{Status: audit.Pending}); len(got) != 3 || got[0].Seq != items[1].Seq || got[2].Seq != items[5].Seq {
			t.Errorf("Queue(pending) = %+v, want items 1, 3 and 5 in order", got)
		}
	}

	// A cursor stays valid for what is written after it, also when the
	// memory it points at and every later one are forgotten: a client
	// that continues from its last cursor must see the next memory, so a
	// sequence number is never given twice.
	s = newStore(t)
	insert(ctx, t, s, newMem("t1", "u1", "first"), newMem("t2", "u1", "second"))
	p1, err := s.List(ctx, store.ListQuery{Limit: 1})
	if err != nil || len(p1.Memories) != 1 || p1.Next == 0 {
		t.Fatalf("List(limit 1) = %+v, %v; want t1 and a cursor", p1, err)
	}
	forget(ctx, t, s, "t1", t0.Add(time.Hour))
	forget(ctx, t, s, "t2", t0.Add(time.Hour))
	insert(ctx, t, s, newMem("t3", "u1", "third"))
	p3, err := s.List(ctx, store.ListQuery{After: p1.Next})
	if err != nil {
		t.Fatal(err)
	}
	if got := idsOf(p3.Memories); !slices.Equal(got, []string{"t3"}) {
		t.Errorf("List(after the cursor of t1, forgotten since with t2) = %v, want t3, written after it", got)
	}
}

// checkAudit: the trail is append-only: sequence numbers increase, an
// event reads back as appended and never changes, whatever is written
// later or done to what a caller holds; an admission's decisions and queue
// items are linked to its search.
func checkAudit(ctx context.Context, t testing.TB, newStore Factory) {
	s := newStore(t)
	insert(ctx, t, s, newMem("m1", "u1", "one"), newMem("m2", "u1", "two"), newMem("m3", "u1", "three"))
	cest := time.FixedZone("CEST", 2*60*60)
	batch := []audit.Event{
		{Kind: audit.Search, At: t0.In(cest), TaskID: "t1", UserID: "u1", PrincipalID: "agent", Payload: json.RawMessage(`{"query":"q","topK":["m1"]}`)},
		{Kind: audit.Injection, At: t0.Add(time.Second), TaskID: "t1", UserID: "u1", SearchID: 0, Payload: json.RawMessage(`{"injected":["m1"]}`)},
		{Kind: audit.Binding, At: t0.Add(2 * time.Second), TaskID: "t1", UserID: "u1", PrincipalID: "agent", MemoryID: "m1",
			Decision: "allow", SearchID: 1, Payload: json.RawMessage(`{"tool":"send"}`)},
	}
	sent := slices.Clone(batch)
	for i := range sent {
		sent[i].Payload = slices.Clone(batch[i].Payload)
	}
	first, err := s.AppendEvents(ctx, batch)
	if err != nil {
		t.Fatal(err)
	}
	batch[0].Payload[2] = 'X' // the caller's bytes, not the store's
	all := events(ctx, t, s, audit.Filter{})
	at := slices.IndexFunc(all, func(e audit.Event) bool { return e.Seq == first })
	if at < 0 || at+len(sent) > len(all) {
		t.Fatalf("AppendEvents returned %d, which is not among the events: %+v", first, all)
	}
	for i, want := range sent {
		got := all[at+i]
		if i > 0 && got.Seq <= all[at+i-1].Seq {
			t.Errorf("event %d of the batch has seq %d after %d", i, got.Seq, all[at+i-1].Seq)
		}
		if d := diffEvent(got, want); d != "" {
			t.Errorf("event %d of the batch reads back with %s", i, d)
		}
	}
	if n, err := s.AppendEvents(ctx, nil); err != nil || len(events(ctx, t, s, audit.Filter{})) != len(all) {
		t.Errorf("AppendEvents(nil) = %d, %v and appended events", n, err)
	}

	// An admission: decisions and queue items are linked to its search,
	// whatever SearchID the caller gave them.
	a := admission("u1", "t2", t0, []string{"m1", "m2"}, []string{"m2"})
	a.Decisions[0].SearchID = 999
	sid := record(ctx, t, s, a)
	other := record(ctx, t, s, admission("u1", "t2", t0, []string{"m3"}, []string{"m3"}))
	linked := events(ctx, t, s, audit.Filter{SearchID: sid})
	if len(linked) != 3 || linked[0].Seq != sid || linked[0].Kind != audit.Search {
		t.Fatalf("Events(search %d) = %+v, want the search and its 2 decisions", sid, linked)
	}
	for i, d := range linked[1:] {
		want := a.Decisions[i]
		want.SearchID = sid
		if d.Seq <= sid {
			t.Errorf("decision %d has seq %d, not after its search %d", i, d.Seq, sid)
		}
		if diff := diffEvent(d, want); diff != "" {
			t.Errorf("decision %d reads back with %s", i, diff)
		}
	}
	if diff := diffEvent(linked[0], a.Search); diff != "" {
		t.Errorf("the search reads back with %s", diff)
	}
	decided, err := store.Decisions(ctx, s, "u1", "t2")
	if err != nil {
		t.Fatal(err)
	}
	if len(decided) != 3 || decided[0].SearchID != sid || decided[1].SearchID != sid || decided[2].SearchID != other {
		t.Errorf("Decisions(u1, t2) = %+v, want two of search %d and one of %d", decided, sid, other)
	}
	items := queue(ctx, t, s, audit.QueueFilter{})
	if len(items) != 2 {
		t.Fatalf("Queue = %+v, want 2 items", items)
	}
	want := a.Quarantine[0]
	if it := items[0]; it.SearchID != sid || it.Status != audit.Pending || it.MemoryID != want.MemoryID || it.UserID != want.UserID ||
		it.TaskID != want.TaskID || it.Query != want.Query || !it.At.Equal(want.At) || !jsonEqual(it.Context, want.Context) ||
		!jsonEqual(it.Reasons, want.Reasons) || it.Reviewer != "" || !it.VerdictAt.IsZero() {
		t.Errorf("queue item = %+v, want %+v linked to search %d, pending", it, want, sid)
	}
	if items[1].SearchID != other {
		t.Errorf("the second admission's item is linked to search %d, want %d", items[1].SearchID, other)
	}

	// Nothing written later changes an event, nor does a caller changing
	// what it was given.
	before := events(ctx, t, s, audit.Filter{})
	for i := range all {
		all[i].Payload[0] = '!'
	}
	revoke(ctx, t, s, "m1", t0.Add(time.Hour))
	revoke(ctx, t, s, "m1", t0.Add(2*time.Hour))
	forget(ctx, t, s, "m2", t0.Add(3*time.Hour))
	if _, err := s.Review(ctx, audit.Review{Item: items[0].Seq, Approve: true, Reviewer: "rev", At: t0.Add(4 * time.Hour)}); err != nil {
		t.Fatal(err)
	}
	record(ctx, t, s, admission("u1", "t3", t0, []string{"m3"}, nil))
	insert(ctx, t, s, newMem("m4", "u1", "four"))
	if err := s.Supersede(ctx, "m4", []string{"m3"}); err != nil {
		t.Fatal(err)
	}
	after := events(ctx, t, s, audit.Filter{})
	if len(after) < len(before) {
		t.Fatalf("the trail shrank from %d to %d events", len(before), len(after))
	}
	for i := range before {
		if after[i].Seq != before[i].Seq {
			t.Errorf("event %d now has seq %d", before[i].Seq, after[i].Seq)
		} else if d := diffEvent(after[i], before[i]); d != "" {
			t.Errorf("event %d changed: %s", before[i].Seq, d)
		}
	}
	for i := 1; i < len(after); i++ {
		if after[i].Seq <= after[i-1].Seq {
			t.Errorf("seq %d after %d", after[i].Seq, after[i-1].Seq)
		}
	}
	if n := len(after) - len(before); n != 6 {
		t.Errorf("2 revocations, a forgetting, a verdict and an admission of one decision appended %d events, want 6", n)
	}
}

// checkReview: a verdict on a pending item records it, makes a labelled
// example (admit or exclude) and appends a verdict event; a second verdict
// is ErrAlreadyReviewed, an unknown item ErrNotFound, and neither writes.
func checkReview(ctx context.Context, t testing.TB, newStore Factory) {
	s := newStore(t)
	insert(ctx, t, s, newMem("q1", "u1", "one"), newMem("q2", "u1", "two"))
	sid := record(ctx, t, s, admission("u1", "t1", t0, []string{"q1", "q2"}, []string{"q1", "q2"}))
	items := queue(ctx, t, s, audit.QueueFilter{Status: audit.Pending})
	if len(items) != 2 {
		t.Fatalf("Queue(pending) = %+v, want 2 items", items)
	}
	verdict := func(it audit.QuarantineItem, r audit.Review, label string) {
		t.Helper()
		after := lastSeq(ctx, t, s)
		nEx := examples(ctx, t, s)
		got, err := s.Review(ctx, r)
		if err != nil {
			t.Fatalf("Review(%+v): %v", r, err)
		}
		status, _ := r.Status()
		want := it
		want.Status, want.Reviewer, want.Note, want.VerdictAt = status, r.Reviewer, r.Note, r.At
		if d := diffItem(got, want); d != "" {
			t.Errorf("Review returned the item with %s", d)
		}
		now := queue(ctx, t, s, audit.QueueFilter{Status: status})
		if i := slices.IndexFunc(now, func(x audit.QuarantineItem) bool { return x.Seq == it.Seq }); i < 0 {
			t.Errorf("Queue(%s) does not list item %d", status, it.Seq)
		} else if d := diffItem(now[i], want); d != "" {
			t.Errorf("Queue(%s) lists item %d with %s", status, it.Seq, d)
		}
		evs := events(ctx, t, s, audit.Filter{After: after})
		if len(evs) != 1 {
			t.Fatalf("a verdict appended %d events, want 1", len(evs))
		}
		if d := diffEvent(evs[0], r.Event(&want)); d != "" {
			t.Errorf("the verdict event reads back with %s", d)
		}
		var p audit.VerdictPayload
		if err := json.Unmarshal(evs[0].Payload, &p); err != nil || p.ReviewItem != it.Seq || p.Verdict != status || p.Reviewer != r.Reviewer || p.Note != r.Note {
			t.Errorf("verdict payload %s (%v)", evs[0].Payload, err)
		}
		exs := examples(ctx, t, s)
		if len(exs) != len(nEx)+1 {
			t.Fatalf("a verdict made %d examples, want 1", len(exs)-len(nEx))
		}
		ex := exs[len(exs)-1]
		if ex.MemoryID != it.MemoryID || ex.Label != label || ex.Query != it.Query || !jsonEqual(ex.Context, it.Context) || !ex.At.Equal(r.At) || ex.Source == "" {
			t.Errorf("example %+v, want label %s for item %+v", ex, label, it)
		}
	}
	verdict(items[0], audit.Review{Item: items[0].Seq, Approve: true, Reviewer: "rev1", Note: "fine", At: t0.Add(time.Hour)}, "admit")
	verdict(items[1], audit.Review{Item: items[1].Seq, Approve: false, Reviewer: "rev2", Note: "leaks", At: t0.Add(2 * time.Hour)}, "exclude")
	if items[0].SearchID != sid || items[1].SearchID != sid {
		t.Errorf("items linked to searches %d and %d, want %d", items[0].SearchID, items[1].SearchID, sid)
	}
	if got := queue(ctx, t, s, audit.QueueFilter{Status: audit.Pending}); len(got) > 0 {
		t.Errorf("Queue(pending) after both verdicts = %+v", got)
	}

	nEvents, nEx := lastSeq(ctx, t, s), len(examples(ctx, t, s))
	for _, approve := range []bool{true, false} {
		_, err := s.Review(ctx, audit.Review{Item: items[0].Seq, Approve: approve, Reviewer: "rev3", At: t0.Add(3 * time.Hour)})
		if !errors.Is(err, store.ErrAlreadyReviewed) {
			t.Errorf("a second verdict (approve %v) = %v, want ErrAlreadyReviewed", approve, err)
		}
	}
	for _, item := range []int64{0, -1, items[1].Seq + 100} {
		if _, err := s.Review(ctx, audit.Review{Item: item, Approve: true, Reviewer: "rev", At: t0}); !errors.Is(err, store.ErrNotFound) {
			t.Errorf("a verdict on item %d = %v, want ErrNotFound", item, err)
		}
	}
	if lastSeq(ctx, t, s) != nEvents || len(examples(ctx, t, s)) != nEx {
		t.Errorf("refused verdicts wrote events or examples")
	}
	if got := queue(ctx, t, s, audit.QueueFilter{Status: audit.Approved}); len(got) != 1 || got[0].Reviewer != "rev1" {
		t.Errorf("a refused verdict changed the approved item: %+v", got)
	}
}

func examples(ctx context.Context, t testing.TB, s store.Store) []audit.Example {
	t.Helper()
	exs, err := s.Examples(ctx)
	if err != nil {
		t.Fatalf("Examples: %v", err)
	}
	return exs
}

// diffItem describes how got differs from want; "" if it does not.
func diffItem(got, want audit.QuarantineItem) string {
	if got.Seq != want.Seq || got.MemoryID != want.MemoryID || got.UserID != want.UserID || got.TaskID != want.TaskID ||
		got.SearchID != want.SearchID || !got.At.Equal(want.At) || got.Query != want.Query || !jsonEqual(got.Context, want.Context) ||
		!jsonEqual(got.Reasons, want.Reasons) || got.Status != want.Status || got.Reviewer != want.Reviewer ||
		!got.VerdictAt.Equal(want.VerdictAt) || got.Note != want.Note {
		return fmt.Sprintf("%+v, want %+v", got, want)
	}
	return ""
}

// checkIdentity: a new store records no embedder; one set stays, and a
// different one does not replace it.
func checkIdentity(ctx context.Context, t testing.TB, newStore Factory) {
	s := newStore(t)
	if s.ReadOnly() {
		t.Fatalf("the factory made a read-only store")
	}
	if id, ok, err := s.Identity(ctx); err != nil || ok {
		t.Errorf("Identity of a new store = %v, %v, %v; want none", id, ok, err)
	}
	want := embed.Identity{Name: "builtin-hash", Dim: Dim}
	if err := s.SetIdentity(ctx, want); err != nil {
		t.Fatalf("SetIdentity: %v", err)
	}
	if err := s.SetIdentity(ctx, want); err != nil {
		t.Errorf("SetIdentity with the same identity: %v", err)
	}
	_ = s.SetIdentity(ctx, embed.Identity{Name: "other", Dim: 8})
	if id, ok, err := s.Identity(ctx); err != nil || !ok || id != want {
		t.Errorf("Identity = %v, %v, %v; want %v", id, ok, err, want)
	}
}

// checkConcurrency: writers and readers at once lose nothing: every memory
// is stored once, every event gets its own increasing seq, each admission
// keeps its links, and of two inserts of one id exactly one wins.
func checkConcurrency(ctx context.Context, t testing.TB, newStore Factory) {
	s := newStore(t)
	const writers, rounds, per = 6, 6, 4
	var (
		mu       sync.Mutex
		firsts   []int64 // what AppendEvents returned
		searches = map[int64]string{}
		wg       sync.WaitGroup
	)
	stop := make(chan struct{})
	var readers sync.WaitGroup
	for r := range 2 {
		readers.Go(func() {
			for {
				select {
				case <-stop:
					return
				default:
				}
				evs, err := s.Events(ctx, audit.Filter{})
				if err != nil {
					t.Errorf("reader %d: Events: %v", r, err)
					return
				}
				for i := 1; i < len(evs); i++ {
					if evs[i].Seq <= evs[i-1].Seq {
						t.Errorf("reader %d: seq %d after %d", r, evs[i].Seq, evs[i-1].Seq)
						return
					}
				}
				if _, err := s.List(ctx, store.ListQuery{IncludeRevoked: true, Limit: 5}); err != nil {
					t.Errorf("reader %d: List: %v", r, err)
					return
				}
				if err := s.ScanEntries(ctx, "", func(retrieve.Entry) error { return nil }); err != nil {
					t.Errorf("reader %d: ScanEntries: %v", r, err)
					return
				}
			}
		})
	}
	for w := range writers {
		wg.Go(func() {
			user := fmt.Sprintf("u%d", w%3)
			for r := range rounds {
				var ms []memory.Memory
				for i := range per {
					ms = append(ms, newMem(fmt.Sprintf("w%d-r%d-%d", w, r, i), user, fmt.Sprintf("note %d of round %d of writer %d", i, r, w)))
				}
				if _, err := s.Insert(ctx, ms, store.ConflictError, nil); err != nil {
					t.Errorf("writer %d: Insert: %v", w, err)
					return
				}
				first, err := s.AppendEvents(ctx, []audit.Event{
					{Kind: audit.Injection, At: t0, UserID: user, TaskID: "inj", Payload: json.RawMessage(`{}`)},
					{Kind: audit.Binding, At: t0, UserID: user, TaskID: "inj", Payload: json.RawMessage(`{}`)},
				})
				if err != nil {
					t.Errorf("writer %d: AppendEvents: %v", w, err)
					return
				}
				task := fmt.Sprintf("w%d-r%d", w, r)
				sid, err := s.RecordAdmission(ctx, admission(user, task, t0, idsOf(ms[:2]), idsOf(ms[:1])))
				if err != nil {
					t.Errorf("writer %d: RecordAdmission: %v", w, err)
					return
				}
				if _, err := s.Revoke(ctx, ms[3].ID, store.Change{Reason: "race", At: t0}); err != nil {
					t.Errorf("writer %d: Revoke: %v", w, err)
					return
				}
				mu.Lock()
				firsts = append(firsts, first)
				searches[sid] = task
				mu.Unlock()
			}
		})
	}
	// Two inserts of one id: exactly one wins.
	const races = 10
	wins := make([]int, races)
	for i := range races {
		id := fmt.Sprintf("race-%d", i)
		start := make(chan struct{})
		var pair sync.WaitGroup
		for g := range 2 {
			pair.Go(func() {
				<-start
				_, err := s.Insert(ctx, []memory.Memory{newMem(id, "u1", fmt.Sprintf("contender %d", g))}, store.ConflictError, nil)
				switch {
				case err == nil:
					mu.Lock()
					wins[i]++
					mu.Unlock()
				case !errors.Is(err, store.ErrConflict):
					t.Errorf("insert of %s: %v, want success or ErrConflict", id, err)
				}
			})
		}
		close(start)
		pair.Wait()
	}
	wg.Wait()
	close(stop)
	readers.Wait()
	if t.Failed() {
		return
	}
	for i, n := range wins {
		if n != 1 {
			t.Errorf("two concurrent inserts of race-%d: %d succeeded, want 1", i, n)
		}
	}

	var ids []string
	for w := range writers {
		for r := range rounds {
			for i := range per {
				ids = append(ids, fmt.Sprintf("w%d-r%d-%d", w, r, i))
			}
		}
	}
	got := get(ctx, t, s, ids, false)
	if len(got) != len(ids) {
		t.Errorf("%d memories inserted concurrently, %d stored", len(ids), len(got))
	}
	if st := stats(ctx, t, s, t0); st.Memories != len(ids)+races || st.Revoked != writers*rounds {
		t.Errorf("Stats = %d memories, %d revoked; want %d and %d", st.Memories, st.Revoked, len(ids)+races, writers*rounds)
	}
	all := events(ctx, t, s, audit.Filter{})
	if want := writers * rounds * (2 + 3 + 1); len(all) != want {
		t.Errorf("%d events, want %d", len(all), want)
	}
	for i := 1; i < len(all); i++ {
		if all[i].Seq <= all[i-1].Seq {
			t.Errorf("seq %d after %d", all[i].Seq, all[i-1].Seq)
		}
	}
	seen := map[int64]bool{}
	for _, f := range firsts {
		if seen[f] {
			t.Errorf("two AppendEvents returned seq %d", f)
		}
		seen[f] = true
	}
	for sid, task := range searches {
		linked := events(ctx, t, s, audit.Filter{SearchID: sid})
		if len(linked) != 3 {
			t.Errorf("admission of %s (search %d) has %d events, want 3", task, sid, len(linked))
		}
		for _, e := range linked {
			if e.TaskID != task {
				t.Errorf("search %d of %s lists event %d of %s", sid, task, e.Seq, e.TaskID)
			}
		}
	}
	if items := queue(ctx, t, s, audit.QueueFilter{}); len(items) != writers*rounds {
		t.Errorf("%d review items, want %d", len(items), writers*rounds)
	}
}
