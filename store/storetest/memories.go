package storetest

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/memgate/memgate/audit"
	"github.com/memgate/memgate/lineage"
	"github.com/memgate/memgate/memory"
	"github.com/memgate/memgate/store"
)

// checkScope: a user's memories, entries, events and review items are
// listed for that user only, and a reference to another user's memory (in
// a batch or in Supersede) is refused as if the memory did not exist.
func checkScope(ctx context.Context, t testing.TB, newStore Factory) {
	s := newStore(t)
	insert(ctx, t, s,
		newMem("theirs", "u2", "their first note"),
		newMem("mine", "u1", "my first note"),
		revoked(newMem("theirs-revoked", "u2", "their withdrawn note"), "withdrawn"),
		revoked(newMem("mine-revoked", "u1", "my withdrawn note"), "withdrawn"),
		newMem("theirs-too", "u2", "their second note"),
		newMem("gone", "u3", "a note of a user who forgets it"))
	forget(ctx, t, s, "gone", t0.Add(time.Hour))
	insert(ctx, t, s, newMem("theirs-gone", "u2", "their note, forgotten"))
	forget(ctx, t, s, "theirs-gone", t0.Add(time.Hour))

	for _, tt := range []struct {
		q    store.ListQuery
		want []string
	}{
		{store.ListQuery{Filter: memory.Filter{UserID: "u1"}, IncludeRevoked: true}, []string{"mine", "mine-revoked"}},
		{store.ListQuery{Filter: memory.Filter{UserID: "u1"}}, []string{"mine"}},
		{store.ListQuery{Filter: memory.Filter{UserID: "u2"}}, []string{"theirs", "theirs-too"}},
		{store.ListQuery{Filter: memory.Filter{UserID: "u2"}, IncludeRevoked: true, Limit: 1}, []string{"theirs", "theirs-revoked", "theirs-too"}},
		{store.ListQuery{Filter: memory.Filter{UserID: "u3"}, IncludeRevoked: true}, nil},
		{store.ListQuery{IncludeRevoked: true}, []string{"theirs", "mine", "theirs-revoked", "mine-revoked", "theirs-too"}},
	} {
		if got := listIDs(ctx, t, s, tt.q); !slices.Equal(got, tt.want) {
			t.Errorf("List(%+v) = %v, want %v", tt.q, got, tt.want)
		}
	}
	for user, want := range map[string][]string{"u1": {"mine-revoked"}, "u2": {"theirs-revoked"}, "u3": nil} {
		ms, err := s.Revoked(ctx, user, 0)
		if err != nil {
			t.Fatal(err)
		}
		if got := idsOf(ms); !slices.Equal(got, want) {
			t.Errorf("Revoked(%s) = %v, want %v", user, got, want)
		}
	}
	for user, want := range map[string][]string{"u1": {"mine"}, "u2": {"theirs", "theirs-too"}, "u3": nil} {
		entries := scan(ctx, t, s, user)
		var got []string
		for _, e := range entries {
			got = append(got, e.ID)
			if e.UserID != user {
				t.Errorf("ScanEntries(%s) yields %s of user %q", user, e.ID, e.UserID)
			}
		}
		if !slices.Equal(got, want) {
			t.Errorf("ScanEntries(%s) = %v, want %v", user, got, want)
		}
	}
	// CountEntries estimates ScanEntries: at least what it yields, at most
	// what the user stores (u2 stores more than u1 has in all).
	for user, bounds := range map[string][2]int{"u1": {1, 2}, "u2": {2, 3}, "u3": {0, 0}} {
		n, err := s.CountEntries(ctx, user)
		if err != nil {
			t.Fatal(err)
		}
		if n < bounds[0] || n > bounds[1] {
			t.Errorf("CountEntries(%s) = %d, want %d to %d", user, n, bounds[0], bounds[1])
		}
	}
	users, err := s.Users(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"u1", "u2"}; !slices.Equal(users, want) {
		t.Errorf("Users = %v, want %v (sorted, only users with stored memories)", users, want)
	}

	// The audit trail and the queue, by user.
	record(ctx, t, s, admission("u1", "task", t0, []string{"mine"}, []string{"mine"}))
	record(ctx, t, s, admission("u2", "task", t0, []string{"theirs", "theirs-too"}, []string{"theirs", "theirs-too"}))
	revoke(ctx, t, s, "theirs-too", t0.Add(2*time.Hour))
	for user, want := range map[string]int{"u1": 2, "u2": 5, "u3": 1} {
		evs := events(ctx, t, s, audit.Filter{UserID: user})
		for _, e := range evs {
			if e.UserID != user {
				t.Errorf("Events(user %s) lists event %d of user %q", user, e.Seq, e.UserID)
			}
		}
		if len(evs) != want {
			t.Errorf("Events(user %s) lists %d events, want %d", user, len(evs), want)
		}
	}
	for user, want := range map[string]int{"u1": 1, "u2": 2, "u3": 0} {
		items := queue(ctx, t, s, audit.QueueFilter{UserID: user})
		for _, it := range items {
			if it.UserID != user {
				t.Errorf("Queue(user %s) lists item %d of user %q", user, it.Seq, it.UserID)
			}
		}
		if len(items) != want {
			t.Errorf("Queue(user %s) lists %d items, want %d", user, len(items), want)
		}
	}

	// References to another user's memory read like references to none:
	// stored, forgotten or in the same batch.
	message := func(batch []memory.Memory, ref string) string {
		t.Helper()
		err := s.CheckBatch(ctx, batch, store.ConflictError)
		ies := itemErrors(t, "CheckBatch with a reference to "+ref, err)
		if len(ies) != 1 || ies[0].Index != len(batch)-1 {
			t.Fatalf("CheckBatch with a reference to %s: problems at %v, want one at %d: %v", ref, indexes(ies), len(batch)-1, err)
		}
		if _, err := s.Insert(ctx, batch, store.ConflictError, nil); err == nil {
			t.Fatalf("Insert with a reference to %s succeeded", ref)
		}
		if got := get(ctx, t, s, idsOf(batch), false); len(got) > 0 {
			t.Fatalf("a refused batch stored %v", idsOf(got))
		}
		return strings.ReplaceAll(ies[0].Err.Error(), ref, "REF")
	}
	for _, field := range []string{"lineageRefs", "supersedes"} {
		with := func(ref string) memory.Memory {
			m := newMem("x", "u1", "a note naming another")
			if field == "lineageRefs" {
				m.LineageRefs = []string{ref}
			} else {
				m.Supersedes = []string{ref}
			}
			return m
		}
		missing := message([]memory.Memory{with("nowhere")}, "nowhere")
		for _, ref := range []string{"theirs", "theirs-revoked", "theirs-gone"} {
			if got := message([]memory.Memory{with(ref)}, ref); got != missing {
				t.Errorf("%s naming another user's %s reads\n\t%s\nnot like a missing id:\n\t%s", field, ref, got, missing)
			}
		}
		inBatch := []memory.Memory{newMem("their-batch-note", "u2", "their note in the same batch"), with("their-batch-note")}
		if got := message(inBatch, "their-batch-note"); got != missing {
			t.Errorf("%s naming another user's memory in the batch reads\n\t%s\nnot like a missing id:\n\t%s", field, got, missing)
		}
	}
	supersede := func(newID, old string) string {
		t.Helper()
		err := s.Supersede(ctx, newID, []string{old})
		if !errors.Is(err, store.ErrNotFound) {
			t.Fatalf("Supersede(%s, %s) = %v, want ErrNotFound", newID, old, err)
		}
		return strings.ReplaceAll(err.Error(), old, "OLD")
	}
	if a, b := supersede("mine", "theirs"), supersede("mine", "nowhere"); a != b {
		t.Errorf("Supersede of another user's memory reads\n\t%s\nnot like a missing one:\n\t%s", a, b)
	}
	supersede("theirs", "mine")
	if m := getOne(ctx, t, s, "theirs"); len(m.SupersededBy) > 0 || len(m.Supersedes) > 0 {
		t.Errorf("a refused Supersede left relations: %+v", m)
	}
	anc, err := s.Ancestors(ctx, []string{"mine", "theirs"})
	if err != nil {
		t.Fatal(err)
	}
	if len(anc["mine"])+len(anc["theirs"]) > 0 {
		t.Errorf("Ancestors = %v, want none", anc)
	}
}

// checkIDs: ids are unique across the store and never reused; a taken id is
// a conflict (store.TakenError) that reads the same whoever holds it,
// ConflictSkip skips only the caller's own stored memories, and every
// problem of a batch is reported at once, in batch order.
func checkIDs(ctx context.Context, t testing.TB, newStore Factory) {
	s := newStore(t)
	insert(ctx, t, s, newMem("alpha", "u1", "alpha"), newMem("theirs", "u2", "their note"), newMem("gone", "u1", "to be forgotten"))
	forget(ctx, t, s, "gone", t0.Add(time.Hour))

	taken := func(m memory.Memory, onConflict store.OnConflict) string {
		t.Helper()
		check := s.CheckBatch(ctx, []memory.Memory{m}, onConflict)
		n, err := s.Insert(ctx, []memory.Memory{m}, onConflict, nil)
		if n != 0 || !errors.Is(err, store.ErrConflict) {
			t.Fatalf("Insert(%s of %s, %v) = %d, %v; want an error wrapping ErrConflict", m.ID, m.UserID, onConflict, n, err)
		}
		var te *store.TakenError
		if !errors.As(err, &te) || te.ID != m.ID {
			t.Fatalf("Insert(%s of %s): %v is not a *store.TakenError for %s", m.ID, m.UserID, err, m.ID)
		}
		ies := itemErrors(t, "Insert of a taken id", err)
		if len(ies) != 1 || ies[0].Index != 0 || ies[0].ID != m.ID {
			t.Fatalf("Insert(%s of %s): problems %v, want one for memory 0", m.ID, m.UserID, err)
		}
		if c := itemErrors(t, "CheckBatch of a taken id", check); c.Error() != ies.Error() {
			t.Errorf("CheckBatch says\n\t%v\nInsert says\n\t%v", c, ies)
		}
		return strings.ReplaceAll(ies.Error(), m.ID, "ID")
	}
	own := taken(newMem("alpha", "u1", "again"), store.ConflictError)
	for _, tt := range []struct {
		name       string
		m          memory.Memory
		onConflict store.OnConflict
	}{
		{"a forgotten id", newMem("gone", "u1", "back"), store.ConflictError},
		{"a forgotten id, skipping conflicts", newMem("gone", "u1", "back"), store.ConflictSkip},
		{"another user's id", newMem("theirs", "u1", "mine now"), store.ConflictError},
		{"another user's id, skipping conflicts", newMem("theirs", "u1", "mine now"), store.ConflictSkip},
	} {
		if got := taken(tt.m, tt.onConflict); got != own {
			t.Errorf("%s reads\n\t%s\nnot like the caller's own taken id:\n\t%s", tt.name, got, own)
		}
	}
	if m := getOne(ctx, t, s, "theirs"); m.UserID != "u2" || m.Text != "their note" {
		t.Errorf("a refused insert changed another user's memory: %+v", m)
	}

	// ConflictSkip leaves the caller's stored memory alone and inserts
	// the rest.
	var ticks []int
	n, err := s.Insert(ctx, []memory.Memory{newMem("alpha", "u1", "changed"), newMem("fresh", "u1", "fresh")}, store.ConflictSkip,
		func(done int) { ticks = append(ticks, done) })
	if err != nil || n != 1 {
		t.Fatalf("Insert skipping a conflict = %d, %v; want 1, nil", n, err)
	}
	if !slices.IsSorted(ticks) || (len(ticks) > 0 && ticks[len(ticks)-1] > 2) {
		t.Errorf("progress was told %v for a batch of 2", ticks)
	}
	if m := getOne(ctx, t, s, "alpha"); m.Text != "alpha" {
		t.Errorf("ConflictSkip overwrote the stored memory: text %q", m.Text)
	}
	getOne(ctx, t, s, "fresh")
	if n, err := s.Insert(ctx, []memory.Memory{newMem("alpha", "u1", "again")}, store.ConflictSkip, nil); err != nil || n != 0 {
		t.Errorf("Insert of only a conflict, skipping = %d, %v; want 0, nil", n, err)
	}

	// A repeated id is reported at its repetition.
	batch := []memory.Memory{newMem("x", "u1", "one"), newMem("y", "u1", "two"), newMem("x", "u1", "three")}
	_, err = s.Insert(ctx, batch, store.ConflictError, nil)
	ies := itemErrors(t, "Insert with a repeated id", err)
	var re *store.RepeatError
	if len(ies) != 1 || ies[0].Index != 2 || !errors.As(ies[0], &re) || re.ID != "x" || re.First != 0 {
		t.Errorf("Insert with a repeated id: %v; want one *store.RepeatError at 2, first at 0", err)
	}
	if got := get(ctx, t, s, []string{"x", "y"}, false); len(got) > 0 {
		t.Errorf("a batch with a repeated id stored %v", idsOf(got))
	}

	// Every problem at once, in batch order.
	badKind := newMem("b", "u1", "bad kind")
	badKind.Kind = "opinion"
	missingRef := newMem("c", "u1", "derived from nothing")
	missingRef.LineageRefs = []string{"missing"}
	noVector := newMem("e", "u1", "no vector")
	noVector.Embedding = nil
	batch = []memory.Memory{newMem("ok", "u1", "fine"), badKind, newMem("alpha", "u1", "taken"), missingRef, newMem("ok", "u1", "twice"), noVector}
	_, err = s.Insert(ctx, batch, store.ConflictError, nil)
	ies = itemErrors(t, "Insert with many problems", err)
	if got, want := indexes(ies), []int{1, 2, 3, 4, 5}; !slices.Equal(got, want) {
		t.Errorf("problems at %v, want %v:\n%v", got, want, err)
	} else {
		var fe *memory.FieldError
		var te *store.TakenError
		switch {
		case !errors.As(ies[0], &fe) || fe.Field != "kind":
			t.Errorf("problem 1 = %v, want a *memory.FieldError for kind", ies[0])
		case !errors.As(ies[1], &te) || te.ID != "alpha":
			t.Errorf("problem 2 = %v, want a *store.TakenError", ies[1])
		case !strings.Contains(ies[2].Error(), `"missing"`):
			t.Errorf("problem 3 = %v, want it to name the missing reference", ies[2])
		case !errors.As(ies[3], &re) || re.First != 0:
			t.Errorf("problem 4 = %v, want a *store.RepeatError of memory 0", ies[3])
		}
		for i, ie := range ies {
			if ie.ID != batch[ie.Index].ID {
				t.Errorf("problem %d names id %q, memory %d has %q", i, ie.ID, ie.Index, batch[ie.Index].ID)
			}
		}
	}
	if c := itemErrors(t, "CheckBatch with many problems", s.CheckBatch(ctx, batch, store.ConflictError)); c.Error() != ies.Error() {
		t.Errorf("CheckBatch says\n%v\nInsert says\n%v", c, ies)
	}
	if got := get(ctx, t, s, []string{"ok", "b", "c", "e"}, false); len(got) > 0 {
		t.Errorf("a refused batch stored %v", idsOf(got))
	}

	// CheckBatch writes nothing.
	good := []memory.Memory{newMem("g1", "u1", "good"), newMem("g2", "u1", "good too")}
	if err := s.CheckBatch(ctx, good, store.ConflictError); err != nil {
		t.Fatalf("CheckBatch of a good batch: %v", err)
	}
	if got := get(ctx, t, s, idsOf(good), false); len(got) > 0 {
		t.Errorf("CheckBatch stored %v", idsOf(got))
	}
	insert(ctx, t, s, good...)
}

// checkAtomicity: a refused batch or admission writes nothing, and a
// revocation or forgetting writes its change and exactly one audit event,
// which no reader sees apart.
func checkAtomicity(ctx context.Context, t testing.TB, newStore Factory) {
	s := newStore(t)
	insert(ctx, t, s, newMem("base", "u1", "base"), newMem("other", "u1", "other"))
	before := stats(ctx, t, s, t0)

	bad := newMem("bad", "u1", "bad classification")
	bad.Classification = "top-secret"
	child := newMem("child", "u1", "derived from the bad one")
	child.LineageRefs = []string{"bad"}
	for _, batch := range [][]memory.Memory{
		{newMem("g1", "u1", "good"), newMem("g2", "u1", "good too"), bad},
		{bad, child, newMem("g3", "u1", "good")},
	} {
		if _, err := s.Insert(ctx, batch, store.ConflictError, nil); err == nil {
			t.Fatalf("Insert(%v) with an invalid memory succeeded", idsOf(batch))
		}
		if got := get(ctx, t, s, idsOf(batch), false); len(got) > 0 {
			t.Errorf("a refused batch stored %v", idsOf(got))
		}
	}
	if after := stats(ctx, t, s, t0); after.Memories != before.Memories || after.Lineage != before.Lineage {
		t.Errorf("refused batches changed the store: %+v, was %+v", after, before)
	}
	if got := listIDs(ctx, t, s, store.ListQuery{IncludeRevoked: true}); !slices.Equal(got, []string{"base", "other"}) {
		t.Errorf("List after refused batches = %v", got)
	}

	// A refused admission writes nothing.
	record(ctx, t, s, admission("u1", "t0", t0, []string{"base"}, nil))
	nEvents := len(events(ctx, t, s, audit.Filter{}))
	wrongKind := admission("u1", "t1", t0, []string{"base"}, []string{"base"})
	wrongKind.Search.Kind = audit.Injection
	foreignDecision := admission("u1", "t1", t0, []string{"base", "other"}, []string{"base"})
	foreignDecision.Decisions[1].UserID = "u2"
	notDecided := admission("u1", "t1", t0, []string{"base"}, []string{"base", "other"})
	foreignItem := admission("u1", "t1", t0, []string{"base"}, []string{"base"})
	foreignItem.Quarantine[0].UserID = "u2"
	decisionKind := admission("u1", "t1", t0, []string{"base", "other"}, nil)
	decisionKind.Decisions[1].Kind = audit.Binding
	for name, a := range map[string]*audit.Admission{"a wrong search kind": wrongKind, "a decision of another user": foreignDecision,
		"an undecided review item": notDecided, "a review item of another user": foreignItem, "a wrong decision kind": decisionKind} {
		if _, err := s.RecordAdmission(ctx, a); err == nil {
			t.Errorf("RecordAdmission with %s succeeded", name)
		}
		if n := len(events(ctx, t, s, audit.Filter{})); n != nEvents {
			t.Errorf("RecordAdmission with %s wrote %d events", name, n-nEvents)
			nEvents = n
		}
		if items := queue(ctx, t, s, audit.QueueFilter{}); len(items) > 0 {
			t.Errorf("RecordAdmission with %s enqueued %d items", name, len(items))
		}
	}

	// A change and its event, together.
	changed := func(kind audit.Kind, id string, c store.Change, apply func() error) {
		t.Helper()
		after := lastSeq(ctx, t, s)
		if err := apply(); err != nil {
			t.Fatalf("%s %s: %v", kind, id, err)
		}
		evs := events(ctx, t, s, audit.Filter{After: after})
		if len(evs) != 1 {
			t.Fatalf("%s %s appended %d events, want 1", kind, id, len(evs))
		}
		if d := diffEvent(evs[0], audit.ChangeEvent(kind, c.At, "u1", id, c.PrincipalID, c.Reason)); d != "" {
			t.Errorf("%s %s: event %s", kind, id, d)
		}
	}
	c := store.Change{Reason: "withdrawn by its owner", At: t0.Add(time.Hour), PrincipalID: "owner"}
	changed(audit.Revoke, "base", c, func() error {
		m, err := s.Revoke(ctx, "base", c)
		if err == nil && (!m.Revoked || m.RevokedReason != c.Reason || !m.RevokedAt.Equal(c.At)) {
			t.Errorf("Revoke returned %+v, not the revoked memory", m)
		}
		return err
	})
	if m := getOne(ctx, t, s, "base"); !m.Revoked {
		t.Errorf("revoked memory reads %+v", m)
	}
	c = store.Change{Reason: "GDPR erasure", At: t0.Add(2 * time.Hour), PrincipalID: "dpo"}
	changed(audit.Forget, "other", c, func() error {
		ts, err := s.Forget(ctx, "other", c)
		if err == nil && (ts.ID != "other" || ts.UserID != "u1" || ts.Reason != c.Reason || !ts.ForgottenAt.Equal(c.At)) {
			t.Errorf("Forget returned %+v", ts)
		}
		return err
	})
	after := lastSeq(ctx, t, s)
	if _, err := s.Revoke(ctx, "nowhere", c); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("Revoke(nowhere) = %v, want ErrNotFound", err)
	}
	if _, err := s.Forget(ctx, "nowhere", c); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("Forget(nowhere) = %v, want ErrNotFound", err)
	}
	if evs := events(ctx, t, s, audit.Filter{After: after}); len(evs) > 0 {
		t.Errorf("a refused revocation or forgetting appended %d events", len(evs))
	}

	// No reader sees a change without its event, nor an event without its
	// change.
	const n = 12
	var ids []string
	var ms []memory.Memory
	for i := range n {
		id := "w" + string(rune('a'+i))
		ids, ms = append(ids, id), append(ms, newMem(id, "u1", "watched note "+id))
	}
	insert(ctx, t, s, ms...)
	done := make(chan struct{})
	go func() {
		defer close(done)
		for i, id := range ids {
			c := store.Change{Reason: "watched", At: t0.Add(3 * time.Hour), PrincipalID: "owner"}
			var err error
			if i%2 == 0 {
				_, err = s.Revoke(ctx, id, c)
			} else {
				_, err = s.Forget(ctx, id, c)
			}
			if err != nil {
				t.Errorf("change %s: %v", id, err)
				return
			}
		}
	}()
	observe := func() (stop bool) {
		select {
		case <-done:
			stop = true
		default:
		}
		// Changes first, then events: each change seen must have its
		// event already.
		got, err := s.Get(ctx, ids, false)
		if err != nil {
			t.Errorf("Get: %v", err)
			return true
		}
		gone, err := s.Tombstones(ctx, ids)
		if err != nil {
			t.Errorf("Tombstones: %v", err)
			return true
		}
		evs, err := s.Events(ctx, audit.Filter{After: after})
		if err != nil {
			t.Errorf("Events: %v", err)
			return true
		}
		logged := map[string]audit.Kind{}
		for _, e := range evs {
			logged[e.MemoryID] = e.Kind
		}
		for _, m := range got {
			if m.Revoked && logged[m.ID] != audit.Revoke {
				t.Errorf("%s is seen revoked before its revoke event", m.ID)
				return true
			}
		}
		for id := range gone {
			if logged[id] != audit.Forget {
				t.Errorf("%s is seen forgotten before its forget event", id)
				return true
			}
		}
		// Events first, then changes: each event seen must have its
		// change already.
		if evs, err = s.Events(ctx, audit.Filter{After: after}); err != nil {
			t.Errorf("Events: %v", err)
			return true
		}
		if got, err = s.Get(ctx, ids, false); err != nil {
			t.Errorf("Get: %v", err)
			return true
		}
		if gone, err = s.Tombstones(ctx, ids); err != nil {
			t.Errorf("Tombstones: %v", err)
			return true
		}
		revokedNow := map[string]bool{}
		for _, m := range got {
			revokedNow[m.ID] = m.Revoked
		}
		for _, e := range evs {
			_, forgotten := gone[e.MemoryID]
			if (e.Kind == audit.Revoke && !revokedNow[e.MemoryID] && !forgotten) || (e.Kind == audit.Forget && !forgotten) {
				t.Errorf("the %s event of %s is seen before the change", e.Kind, e.MemoryID)
				return true
			}
		}
		return stop
	}
	for !observe() {
	}
	<-done
	if evs := events(ctx, t, s, audit.Filter{After: after}); len(evs) != n {
		t.Errorf("%d changes appended %d events", n, len(evs))
	}
}

// checkLineage: ancestors are followed transitively, once each, through
// memories of the same user; a revoked ancestor is marked revoked, a
// forgotten one keeps its incoming links but loses its own and its
// authority; cycles end; and lineage.Of gives the effective authority.
func checkLineage(ctx context.Context, t testing.TB, newStore Factory) {
	s := newStore(t)
	with := func(m memory.Memory, auth memory.Authority, refs ...string) memory.Memory {
		m.SourceAuthority, m.LineageRefs = auth, refs
		return m
	}
	insert(ctx, t, s, newMem("gone", "u1", "a source forgotten early"), newMem("theirs", "u2", "their note"))
	forget(ctx, t, s, "gone", t0.Add(time.Minute))
	insert(ctx, t, s,
		with(newMem("root", "u1", "root"), memory.AuthoritySystem),
		with(newMem("mid", "u1", "derived from root"), memory.AuthorityUserConfirmed, "root"),
		with(newMem("leaf", "u1", "derived from mid"), memory.AuthorityToolVerified, "mid"),
		with(newMem("side", "u1", "a side source"), memory.AuthorityExternal),
		with(newMem("diamond", "u1", "derived from mid and side"), memory.AuthoritySystem, "side", "mid"),
		with(newMem("orphan", "u1", "derived from a forgotten memory"), memory.AuthoritySystem, "gone"),
		with(newMem("plain", "u1", "derived from nothing"), memory.AuthoritySystem))
	m := func(id string) memory.Memory { t.Helper(); return getOne(ctx, t, s, id) }
	ancestors := func(ids ...string) map[string][]lineage.Ancestor {
		t.Helper()
		anc, err := s.Ancestors(ctx, ids)
		if err != nil {
			t.Fatalf("Ancestors(%v): %v", ids, err)
		}
		return anc
	}
	expect := func(anc map[string][]lineage.Ancestor, id string, want ...lineage.Ancestor) {
		t.Helper()
		got, ok := anc[id]
		if !ok {
			t.Errorf("Ancestors has no entry for %s, which is stored", id)
			return
		}
		if !slices.Equal(got, want) {
			t.Errorf("Ancestors(%s) = %+v, want %+v", id, got, want)
		}
	}
	authority := func(id string, anc []lineage.Ancestor, want memory.Authority) admitLineage {
		t.Helper()
		mm := m(id)
		l := lineage.Of(&mm, anc)
		if l.EffectiveAuthority != want {
			t.Errorf("effective authority of %s = %q, want %q", id, l.EffectiveAuthority, want)
		}
		return admitLineage{l.RevokedAncestors, l.ForgottenAncestors}
	}

	anc := ancestors("leaf", "diamond", "orphan", "plain", "nowhere", "gone", "leaf")
	rootA := lineage.Ancestor{ID: "root", Authority: memory.AuthoritySystem}
	midA := lineage.Ancestor{ID: "mid", Authority: memory.AuthorityUserConfirmed}
	sideA := lineage.Ancestor{ID: "side", Authority: memory.AuthorityExternal}
	goneA := lineage.Ancestor{ID: "gone", Forgotten: true}
	expect(anc, "leaf", midA, rootA)
	expect(anc, "diamond", midA, rootA, sideA)
	expect(anc, "orphan", goneA)
	expect(anc, "plain")
	for _, id := range []string{"nowhere", "gone"} {
		if _, ok := anc[id]; ok {
			t.Errorf("Ancestors has an entry for %s, which is not stored", id)
		}
	}
	authority("leaf", anc["leaf"], memory.AuthorityToolVerified)
	authority("diamond", anc["diamond"], memory.AuthorityExternal)
	if l := authority("orphan", anc["orphan"], ""); !slices.Equal(l.forgotten, []string{"gone"}) {
		t.Errorf("forgotten ancestors of orphan = %v", l.forgotten)
	}

	// A revoked ancestor keeps its authority and is marked.
	revoke(ctx, t, s, "root", t0.Add(time.Hour))
	anc = ancestors("leaf")
	rootR := lineage.Ancestor{ID: "root", Authority: memory.AuthoritySystem, Revoked: true}
	expect(anc, "leaf", midA, rootR)
	if l := authority("leaf", anc["leaf"], memory.AuthorityToolVerified); !slices.Equal(l.revoked, []string{"root"}) {
		t.Errorf("revoked ancestors of leaf = %v, want [root]", l.revoked)
	}

	// A forgotten ancestor: its incoming links stay, its own go.
	forget(ctx, t, s, "mid", t0.Add(2*time.Hour))
	anc = ancestors("leaf", "diamond", "mid")
	midF := lineage.Ancestor{ID: "mid", Forgotten: true}
	expect(anc, "leaf", midF)
	expect(anc, "diamond", midF, sideA)
	if _, ok := anc["mid"]; ok {
		t.Errorf("Ancestors has an entry for the forgotten mid")
	}
	if l := authority("leaf", anc["leaf"], ""); !slices.Equal(l.forgotten, []string{"mid"}) || len(l.revoked) > 0 {
		t.Errorf("lineage of leaf = %+v, want mid forgotten and nothing revoked", l)
	}
	if got := m("leaf").LineageRefs; !slices.Equal(got, []string{"mid"}) {
		t.Errorf("leaf's lineage after forgetting mid = %v, want [mid]", got)
	}
	insert(ctx, t, s, with(newMem("late", "u1", "derived from the forgotten mid"), memory.AuthoritySystem, "mid"))
	expect(ancestors("late"), "late", midF)

	// Cycles end, and no memory is its own ancestor.
	insert(ctx, t, s,
		with(newMem("c1", "u1", "cycle one"), memory.AuthoritySystem, "c2"),
		with(newMem("c2", "u1", "cycle two"), memory.AuthorityToolVerified, "c3"),
		with(newMem("c3", "u1", "cycle three"), memory.AuthoritySystem, "c1", "root"))
	anc = ancestors("c1", "c2", "c3")
	c1 := lineage.Ancestor{ID: "c1", Authority: memory.AuthoritySystem}
	c2 := lineage.Ancestor{ID: "c2", Authority: memory.AuthorityToolVerified}
	c3 := lineage.Ancestor{ID: "c3", Authority: memory.AuthoritySystem}
	expect(anc, "c1", c2, c3, rootR)
	expect(anc, "c2", c1, c3, rootR)
	expect(anc, "c3", c1, c2, rootR)

	// Lineage never crosses users, not even to a forgotten memory.
	forget(ctx, t, s, "theirs", t0.Add(3*time.Hour))
	if err := s.CheckBatch(ctx, []memory.Memory{with(newMem("x", "u1", "derived from theirs"), "", "theirs")}, store.ConflictError); err == nil {
		t.Errorf("CheckBatch accepts lineage to another user's forgotten memory")
	}
	if err := s.CheckBatch(ctx, []memory.Memory{with(newMem("x", "u1", "derived from mine"), "", "gone", "mid")}, store.ConflictError); err != nil {
		t.Errorf("CheckBatch refuses lineage to the user's own forgotten memories: %v", err)
	}
}

// admitLineage is the part of admit.Lineage the checks look at.
type admitLineage struct{ revoked, forgotten []string }

// checkRevocation: the first revocation stands, Revoked lists the last n
// revoked memories oldest first, revoked memories are not entries, a
// revoked memory supersedes nothing, and a forgotten memory leaves a
// tombstone and no text or vector anywhere.
func checkRevocation(ctx context.Context, t testing.TB, newStore Factory) {
	s := newStore(t)
	var ms []memory.Memory
	for _, id := range []string{"m0", "m1", "m2", "m3", "m4", "m5"} {
		ms = append(ms, newMem(id, "u1", "note "+id))
	}
	ms[2].LineageRefs = []string{"m1"}
	insert(ctx, t, s, ms...)
	insert(ctx, t, s, newMem("other", "u2", "their note"), revoked(newMem("pre", "u1", "revoked before it was stored"), "stale"))

	first := store.Change{Reason: "first", At: t0.Add(time.Hour), PrincipalID: "owner"}
	second := store.Change{Reason: "second", At: t0.Add(2 * time.Hour), PrincipalID: "operator"}
	if _, err := s.Revoke(ctx, "m3", first); err != nil {
		t.Fatal(err)
	}
	m, err := s.Revoke(ctx, "m3", second)
	if err != nil {
		t.Fatalf("revoking a revoked memory: %v", err)
	}
	for _, m := range []memory.Memory{m, getOne(ctx, t, s, "m3")} {
		if !m.Revoked || m.RevokedReason != "first" || !m.RevokedAt.Equal(first.At) {
			t.Errorf("after a second revocation m3 reads %q at %v, want the first revocation", m.RevokedReason, m.RevokedAt)
		}
	}
	evs := events(ctx, t, s, audit.Filter{Kind: audit.Revoke, MemoryID: "m3"})
	if len(evs) != 2 || diffEvent(evs[1], audit.ChangeEvent(audit.Revoke, second.At, "u1", "m3", second.PrincipalID, second.Reason)) != "" {
		t.Errorf("two revocations of m3 logged %+v, want both, in order", evs)
	}
	for _, id := range []string{"m0", "m2", "other"} {
		revoke(ctx, t, s, id, t0.Add(3*time.Hour))
	}

	revokedIDs := func(user string, n int) []string {
		t.Helper()
		ms, err := s.Revoked(ctx, user, n)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range ms {
			if !m.Revoked || len(m.Embedding) > 0 || len(m.LineageRefs) > 0 || len(m.Supersedes) > 0 {
				t.Errorf("Revoked(%s, %d) lists %+v, want it revoked, without vector or relations", user, n, m)
			}
		}
		return idsOf(ms)
	}
	for _, tt := range []struct {
		user string
		n    int
		want []string
	}{
		{"u1", 2, []string{"m3", "pre"}},
		{"u1", 3, []string{"m2", "m3", "pre"}},
		{"u1", 0, []string{"m0", "m2", "m3", "pre"}},
		{"u1", -1, []string{"m0", "m2", "m3", "pre"}},
		{"u1", 99, []string{"m0", "m2", "m3", "pre"}},
		{"u2", 0, []string{"other"}},
		{"u3", 0, nil},
	} {
		if got := revokedIDs(tt.user, tt.n); !slices.Equal(got, tt.want) {
			t.Errorf("Revoked(%s, %d) = %v, want %v (the last n in insertion order, oldest first)", tt.user, tt.n, got, tt.want)
		}
	}
	live := []string{"m1", "m4", "m5"}
	if got := scanIDs(ctx, t, s, "u1"); !slices.Equal(got, live) {
		t.Errorf("ScanEntries(u1) = %v, want %v", got, live)
	}
	if got := listIDs(ctx, t, s, store.ListQuery{Filter: memory.Filter{UserID: "u1"}}); !slices.Equal(got, live) {
		t.Errorf("List(u1) = %v, want %v", got, live)
	}

	// Revoking the newer memory lets the older one stand again.
	newer := newMem("newer", "u1", "replaces m1")
	newer.Supersedes = []string{"m1"}
	insert(ctx, t, s, newer)
	if got := getOne(ctx, t, s, "m1").SupersededBy; !slices.Equal(got, []string{"newer"}) {
		t.Errorf("m1 is superseded by %v, want [newer]", got)
	}
	revoke(ctx, t, s, "newer", t0.Add(4*time.Hour))
	if got := getOne(ctx, t, s, "m1").SupersededBy; len(got) > 0 {
		t.Errorf("m1 is superseded by the revoked %v", got)
	}
	if got := getOne(ctx, t, s, "newer").Supersedes; !slices.Equal(got, []string{"m1"}) {
		t.Errorf("revoked newer supersedes %v, want [m1] still", got)
	}

	// Forgetting leaves a tombstone and nothing of the memory.
	const secret = "the safe code is zebracorn-4711"
	sm := newMem("secret", "u1", secret)
	sm.Supersedes = []string{"m4"}
	sm.LineageRefs = []string{"m5"}
	child := newMem("child", "u1", "derived from the secret")
	child.LineageRefs = []string{"secret"}
	insert(ctx, t, s, sm, child)
	c := store.Change{Reason: "GDPR erasure", At: t0.Add(5 * time.Hour), PrincipalID: "dpo"}
	ts, err := s.Forget(ctx, "secret", c)
	if err != nil {
		t.Fatal(err)
	}
	want := memory.Tombstone{ID: "secret", UserID: "u1", ForgottenAt: c.At, Reason: c.Reason}
	tss, err := s.Tombstones(ctx, []string{"secret", "m1", "nowhere"})
	if err != nil {
		t.Fatal(err)
	}
	for _, got := range []memory.Tombstone{ts, tss["secret"]} {
		if got.ID != want.ID || got.UserID != want.UserID || got.Reason != want.Reason || !got.ForgottenAt.Equal(want.ForgottenAt) {
			t.Errorf("tombstone %+v, want %+v", got, want)
		}
	}
	if len(tss) != 1 {
		t.Errorf("Tombstones(secret, m1, nowhere) = %v, want only secret's", tss)
	}
	if got := get(ctx, t, s, []string{"secret"}, true); len(got) > 0 {
		t.Errorf("Get returns the forgotten memory: %+v", got)
	}
	if _, err := store.GetOne(ctx, s, "secret", false); !errors.Is(err, store.ErrNotFound) || !strings.Contains(err.Error(), "forgotten") {
		t.Errorf("GetOne(secret) = %v, want ErrNotFound saying it was forgotten", err)
	}
	for _, m := range list(ctx, t, s, store.ListQuery{IncludeRevoked: true, WithVectors: true}) {
		if m.ID == "secret" || strings.Contains(m.Text, "zebracorn") {
			t.Errorf("List returns the forgotten memory as %s: %q", m.ID, m.Text)
		}
	}
	for _, user := range []string{"", "u1"} {
		for _, e := range scan(ctx, t, s, user) {
			if e.ID == "secret" || strings.Contains(e.Text, "zebracorn") {
				t.Errorf("ScanEntries(%q) yields the forgotten memory as %s", user, e.ID)
			}
		}
	}
	for _, e := range events(ctx, t, s, audit.Filter{}) {
		if strings.Contains(string(e.Payload), "zebracorn") {
			t.Errorf("event %d holds the forgotten text: %s", e.Seq, e.Payload)
		}
	}
	if got := getOne(ctx, t, s, "m4").SupersededBy; len(got) > 0 {
		t.Errorf("m4 is still superseded by %v after its successor was forgotten", got)
	}
	if got := getOne(ctx, t, s, "child").LineageRefs; !slices.Equal(got, []string{"secret"}) {
		t.Errorf("child's lineage after forgetting its source = %v, want [secret]", got)
	}
	if _, err := s.Forget(ctx, "secret", c); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("forgetting twice = %v, want ErrNotFound", err)
	}
	if _, err := s.Revoke(ctx, "secret", c); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("revoking a forgotten memory = %v, want ErrNotFound", err)
	}
	if err := s.Supersede(ctx, "m5", []string{"secret"}); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("superseding a forgotten memory = %v, want ErrNotFound", err)
	}

	// A revoked memory can be forgotten; a user with no memory left is
	// no user of the store.
	forget(ctx, t, s, "m3", t0.Add(6*time.Hour))
	forget(ctx, t, s, "other", t0.Add(6*time.Hour))
	if got := revokedIDs("u1", 0); !slices.Equal(got, []string{"m0", "m2", "pre", "newer"}) {
		t.Errorf("Revoked(u1) after forgetting m3 = %v", got)
	}
	if users, err := s.Users(ctx); err != nil || !slices.Equal(users, []string{"u1"}) {
		t.Errorf("Users after forgetting u2's only memory = %v, %v; want [u1]", users, err)
	}
}

// checkRelations: a memory reads back as stored, with every field, its
// relations in both directions and its vector only when asked; callers and
// the store share no slices; Supersede is atomic, idempotent and refuses
// missing ids and a memory superseding itself.
func checkRelations(ctx context.Context, t testing.TB, newStore Factory) {
	s := newStore(t)
	cest := time.FixedZone("CEST", 2*60*60)
	full := newMem("full", "u1", "Blood test results are due on Friday")
	full.WorkspaceID, full.ProjectID, full.Domain = "home", "checkup", "health"
	full.SourceAuthority, full.Kind, full.Classification = memory.AuthorityUserConfirmed, memory.KindEvent, memory.ClassRestricted
	full.CreatedAt = t0.In(cest)
	full.ExpiresAt = t0.Add(30 * 24 * time.Hour)
	full.Audience = []string{"role:family", "p1"}
	want := full
	want.Audience, want.Embedding = slices.Clone(full.Audience), slices.Clone(full.Embedding)
	withdrawn := revoked(newMem("withdrawn", "u1", "a withdrawn note"), "outdated")
	insert(ctx, t, s, full, withdrawn)
	full.Embedding[0], full.Audience[0] = 42, "role:everyone" // the caller's slices, not the store's

	ms := get(ctx, t, s, []string{"full"}, true)
	if len(ms) != 1 {
		t.Fatalf("Get(full) = %v", idsOf(ms))
	}
	if d := diffMemory(ms[0], want, true); d != "" {
		t.Errorf("full reads back with %s", d)
	}
	ms[0].Embedding[0], ms[0].Audience[0] = 7, "p9"
	if d := diffMemory(get(ctx, t, s, []string{"full"}, true)[0], want, true); d != "" {
		t.Errorf("after changing a returned memory, full reads back with %s", d)
	}
	if d := diffMemory(getOne(ctx, t, s, "full"), want, false); d != "" {
		t.Errorf("full without its vector reads back with %s", d)
	}
	if d := diffMemory(getOne(ctx, t, s, "withdrawn"), withdrawn, false); d != "" {
		t.Errorf("a memory stored revoked reads back with %s", d)
	}

	derived := newMem("derived", "u1", "Summary of appointments")
	derived.LineageRefs = []string{"full", "withdrawn"}
	newer := newMem("newer", "u1", "Blood test moved to Monday")
	newer.Supersedes = []string{"full"}
	insert(ctx, t, s, derived, newer)
	if got := getOne(ctx, t, s, "derived").LineageRefs; !sameSet(got, derived.LineageRefs) {
		t.Errorf("derived.LineageRefs = %v, want %v", got, derived.LineageRefs)
	}
	if got := getOne(ctx, t, s, "newer").Supersedes; !slices.Equal(got, []string{"full"}) {
		t.Errorf("newer.Supersedes = %v", got)
	}
	if got := getOne(ctx, t, s, "full").SupersededBy; !slices.Equal(got, []string{"newer"}) {
		t.Errorf("full.SupersededBy = %v", got)
	}

	// Supersede.
	insert(ctx, t, s, newMem("newest", "u1", "Blood test on Tuesday, with a summary"))
	before := stats(ctx, t, s, t0).Supersede
	for range 2 {
		if err := s.Supersede(ctx, "newest", []string{"full", "derived"}); err != nil {
			t.Fatalf("Supersede: %v", err)
		}
	}
	if got := stats(ctx, t, s, t0).Supersede; got != before+2 {
		t.Errorf("two Supersede calls with the same ids recorded %d supersessions, want 2", got-before)
	}
	if got := getOne(ctx, t, s, "full").SupersededBy; !sameSet(got, []string{"newer", "newest"}) {
		t.Errorf("full.SupersededBy = %v, want newer and newest once each", got)
	}
	if got := getOne(ctx, t, s, "derived").SupersededBy; !slices.Equal(got, []string{"newest"}) {
		t.Errorf("derived.SupersededBy = %v", got)
	}
	if got := getOne(ctx, t, s, "newest").Supersedes; !sameSet(got, []string{"full", "derived"}) {
		t.Errorf("newest.Supersedes = %v", got)
	}
	if err := s.Supersede(ctx, "newest", []string{"newest"}); err == nil {
		t.Errorf("a memory may supersede itself")
	}
	for _, tt := range []struct {
		newID string
		old   []string
	}{{"nowhere", []string{"full"}}, {"newer", []string{"nowhere"}}, {"newer", []string{"derived", "nowhere"}}} {
		if err := s.Supersede(ctx, tt.newID, tt.old); !errors.Is(err, store.ErrNotFound) {
			t.Errorf("Supersede(%s, %v) = %v, want ErrNotFound", tt.newID, tt.old, err)
		}
	}
	if got := getOne(ctx, t, s, "derived").SupersededBy; !slices.Equal(got, []string{"newest"}) {
		t.Errorf("a refused Supersede changed derived.SupersededBy to %v", got)
	}
}

// checkStats: Stats counts memories, revoked and expired ones (at the time
// asked), users, tombstones, lineage links, supersessions and memories by
// authority ("unknown" for none).
func checkStats(ctx context.Context, t testing.TB, newStore Factory) {
	s := newStore(t)
	now := t0.Add(48 * time.Hour)
	mk := func(id, user string, auth memory.Authority, expires time.Time, refs, supersedes []string) memory.Memory {
		m := newMem(id, user, "note "+id)
		m.SourceAuthority, m.ExpiresAt, m.LineageRefs, m.Supersedes = auth, expires, refs, supersedes
		return m
	}
	if st := stats(ctx, t, s, now); st.Memories+st.Revoked+st.Expired+st.Users+st.Tombstones+st.Lineage+st.Supersede != 0 || len(st.ByAuth) != 0 {
		t.Errorf("Stats of an empty store = %+v", st)
	}
	insert(ctx, t, s,
		mk("s1", "u1", memory.AuthoritySystem, now, nil, nil),                             // expires exactly now
		mk("s2", "u1", memory.AuthoritySystem, now.Add(time.Nanosecond), nil, nil),        // a nanosecond later
		revoked(mk("c1", "u1", memory.AuthorityUserConfirmed, time.Time{}, nil, nil), ""), //
		revoked(mk("x1", "u1", "", now.Add(-time.Hour), []string{"s1"}, nil), "stale"),
		mk("x2", "u2", memory.AuthorityExternal, time.Time{}, nil, nil),
		mk("n1", "u1", memory.AuthorityUserConfirmed, time.Time{}, []string{"s1", "c1"}, []string{"c1"}),
		mk("g1", "u1", memory.AuthorityModelInferred, time.Time{}, []string{"x1"}, []string{"s2"}))
	forget(ctx, t, s, "g1", now) // its link and supersession go with it
	insert(ctx, t, s, mk("d1", "u2", memory.AuthorityToolVerified, time.Time{}, nil, nil),
		mk("d2", "u1", memory.AuthorityToolVerified, time.Time{}, []string{"g1"}, nil)) // a link to a tombstone stays
	for range 2 {
		if err := s.Supersede(ctx, "s2", []string{"s1"}); err != nil {
			t.Fatal(err)
		}
	}
	st := stats(ctx, t, s, now)
	want := store.Stats{Memories: 8, Revoked: 2, Expired: 2, Users: 2, Tombstones: 1, Lineage: 4, Supersede: 2,
		ByAuth: map[string]int{"system": 2, "user_confirmed": 2, "unknown": 1, "external": 1, "tool_verified": 2}}
	st.Schema, st.FileBytes = 0, 0
	if !statsEqual(st, want) {
		t.Errorf("Stats = %+v\nwant    %+v", st, want)
	}
	if st := stats(ctx, t, s, t0); st.Expired != 0 {
		t.Errorf("Stats at t0 counts %d expired, want 0", st.Expired)
	}
	if st := stats(ctx, t, s, now.Add(time.Nanosecond)); st.Expired != 3 {
		t.Errorf("Stats a nanosecond later counts %d expired, want 3", st.Expired)
	}
}

func statsEqual(a, b store.Stats) bool {
	if len(a.ByAuth) != len(b.ByAuth) {
		return false
	}
	for k, v := range a.ByAuth {
		if b.ByAuth[k] != v {
			return false
		}
	}
	return a.Memories == b.Memories && a.Revoked == b.Revoked && a.Expired == b.Expired && a.Users == b.Users &&
		a.Tombstones == b.Tombstones && a.Lineage == b.Lineage && a.Supersede == b.Supersede
}
