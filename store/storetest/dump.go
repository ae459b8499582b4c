package storetest

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"iter"
	"reflect"
	"slices"
	"testing"
	"time"

	"github.com/memgate/memgate/audit"
	"github.com/memgate/memgate/auth"
	"github.com/memgate/memgate/embed"
	"github.com/memgate/memgate/memory"
	"github.com/memgate/memgate/store"
)

// RunDump checks a backend's logical dump (store.Dumper and
// store.Restorer, which stores made by newStore must implement): a store
// filled through the contract (memories with every field, lineage and
// supersession, revoked and forgotten memories, admissions with
// quarantine, verdicts, labelled examples, API keys if the store keeps
// them) is dumped and restored into a fresh store, whose dump must be the
// same record for record, and which must answer every read as the first
// does and go on numbering after the restored records. A restore into a
// store that is not empty, and one that fails part-way, must write nothing.
// A dump must be one snapshot: writes made while it runs are not in it.
func RunDump(t *testing.T, newStore Factory) {
	t.Run("roundtrip", func(t *testing.T) { checkDumpRoundTrip(t.Context(), t, newStore, newStore) })
	t.Run("refusals", func(t *testing.T) { checkRestoreRefusals(t.Context(), t, newStore) })
	t.Run("continues", func(t *testing.T) { checkRestoreContinues(t.Context(), t, newStore) })
	t.Run("stops", func(t *testing.T) { checkDumpStops(t.Context(), t, newStore) })
	t.Run("snapshot", func(t *testing.T) { checkDumpSnapshot(t.Context(), t, newStore) })
}

// RunTransfer checks that a store made by from, filled through the
// contract, restores into a store made by to with the same dump, checksum
// and answers, and back again into a new store made by from: the logical
// dump is the same whatever the backend.
func RunTransfer(t *testing.T, from, to Factory) {
	ctx := t.Context()
	src := checkDumpRoundTrip(ctx, t, from, to)
	back := from(t)
	if _, err := store.Copy(ctx, dumper(t, src), restorer(t, back)); err != nil {
		t.Fatalf("restore back: %v", err)
	}
	sameDump(ctx, t, "restored back", dumpAll(ctx, t, back), dumpAll(ctx, t, src))
}

func dumper(t testing.TB, s store.Store) store.Dumper {
	t.Helper()
	d, ok := s.(store.Dumper)
	if !ok {
		t.Fatalf("%T is not a store.Dumper", s)
	}
	return d
}

func restorer(t testing.TB, s store.Store) store.Restorer {
	t.Helper()
	r, ok := s.(store.Restorer)
	if !ok {
		t.Fatalf("%T is not a store.Restorer", s)
	}
	return r
}

// dumpAll returns s's dump, failing t if the records are not in the
// canonical order.
func dumpAll(ctx context.Context, t testing.TB, s store.Store) []store.Record {
	t.Helper()
	var out []store.Record
	var order store.Sequence
	if err := dumper(t, s).Dump(ctx, func(r store.Record) error {
		if err := order.Next(&r); err != nil {
			return err
		}
		out = append(out, r)
		return nil
	}); err != nil {
		t.Fatalf("Dump: %v", err)
	}
	return out
}

// sameDump fails t if got and want differ, naming the first record that
// does.
func sameDump(ctx context.Context, t testing.TB, what string, got, want []store.Record) {
	t.Helper()
	for i := range min(len(got), len(want)) {
		if !store.SameRecord(&got[i], &want[i]) {
			t.Fatalf("%s: record %d is %s %+v, want %s %+v", what, i, got[i], payload(got[i]), want[i], payload(want[i]))
		}
	}
	if len(got) != len(want) {
		t.Fatalf("%s: %d records, want %d", what, len(got), len(want))
	}
}

// payload is the record's payload, for messages.
func payload(r store.Record) any {
	for _, p := range []any{r.Identity, r.Memory, r.Tombstone, r.Link, r.Event, r.Item, r.Example, r.Key} {
		if v := reflect.ValueOf(p); !v.IsNil() {
			return v.Elem().Interface()
		}
	}
	return nil
}

// dumpContent is what fillForDump stores, for the checks to refer to.
type dumpContent struct {
	ids      []string // every memory id inserted, forgotten ones too
	pending  int64    // a review item left pending
	reviewed map[int64]string
	keys     bool // the store keeps API keys
}

// fillForDump fills s through the contract with one of everything a dump
// holds.
func fillForDump(ctx context.Context, t testing.TB, s store.Store) dumpContent {
	t.Helper()
	if err := s.SetIdentity(ctx, embed.Identity{Name: "storetest-dump", Dim: Dim}); err != nil {
		t.Fatalf("SetIdentity: %v", err)
	}
	full := newMem("m-full", "ana", "Café ☕ naïve — 東京, \"quoted\" <b>&</b> \\ and a\ttab\nand a second line")
	full.WorkspaceID, full.ProjectID, full.Domain = "acme", "atlas", "work"
	full.SourceAuthority, full.Kind, full.Classification = memory.AuthorityUserConfirmed, memory.KindFact, memory.ClassConfidential
	full.ExpiresAt = t0.Add(365*24*time.Hour + 7)
	full.Audience = []string{"ben", "role:auditor"}
	derived := newMem("m-derived", "ana", "a summary derived from the full memory")
	derived.LineageRefs = []string{"m-full"}
	derived.SourceAuthority = memory.AuthorityModelInferred
	newer := newMem("m-newer", "ana", "the newer version, which supersedes the full memory")
	newer.Supersedes = []string{"m-full"}
	gone := newMem("m-gone", "ana", "a memory to forget, with a descendant")
	child := newMem("m-child", "ana", "derived from a memory that will be forgotten")
	child.LineageRefs = []string{"m-gone"}
	old := newMem("m-old", "ana", "an old memory, superseded and then forgotten")
	repl := newMem("m-repl", "ana", "replaces the old memory")
	repl.Supersedes = []string{"m-old"}
	insert(ctx, t, s, full, derived, newer, gone, child, old, repl,
		revoked(newMem("m-revoked", "ana", "inserted revoked"), "wrong from the start"),
		newMem("m-later", "ana", "revoked later through Revoke"),
		newMem("b1", "ben", "Ben's first memory"),
		newMem("b2", "ben", "Ben's second memory, which supersedes the first through Supersede"))
	revoke(ctx, t, s, "m-later", t0.Add(2*time.Hour+3))
	forget(ctx, t, s, "m-gone", t0.Add(3*time.Hour+5))
	forget(ctx, t, s, "m-old", t0.Add(3*time.Hour+9))
	if err := s.Supersede(ctx, "b2", []string{"b1"}); err != nil {
		t.Fatalf("Supersede(b2, b1): %v", err)
	}
	c := dumpContent{ids: []string{"m-full", "m-derived", "m-newer", "m-gone", "m-child", "m-old", "m-repl", "m-revoked",
		"m-later", "b1", "b2"}, reviewed: map[int64]string{}}

	record(ctx, t, s, admission("ana", "t1", t0.Add(4*time.Hour+11), []string{"m-full", "m-derived", "m-newer"}, []string{"m-derived", "m-newer"}))
	record(ctx, t, s, admission("ben", "t2", t0.Add(5*time.Hour+13), []string{"b1"}, []string{"b1"}))
	if _, err := s.AppendEvents(ctx, []audit.Event{{Kind: audit.Injection, At: t0.Add(6 * time.Hour), TaskID: "t1", UserID: "ana",
		PrincipalID: "agent", Payload: json.RawMessage(`{"injected":["m-full"],"note":"ünïcode \u2028"}`)}}); err != nil {
		t.Fatalf("AppendEvents: %v", err)
	}
	items := queue(ctx, t, s, audit.QueueFilter{})
	if len(items) != 3 {
		t.Fatalf("queue has %d items, want 3", len(items))
	}
	for i, rv := range []audit.Review{
		{Item: items[0].Seq, Approve: true, Reviewer: "rita", Note: "fits the task", At: t0.Add(7*time.Hour + 17)},
		{Item: items[2].Seq, Approve: false, Reviewer: "rita", At: t0.Add(8*time.Hour + 19)},
	} {
		if _, err := s.Review(ctx, rv); err != nil {
			t.Fatalf("Review %d: %v", i, err)
		}
	}
	c.reviewed[items[0].Seq], c.reviewed[items[2].Seq], c.pending = items[0].UserID, items[2].UserID, items[1].Seq

	if ks, ok := s.(auth.Store); ok {
		c.keys = true
		for i, p := range []auth.Principal{{ID: "ops", Role: auth.Admin, Users: []string{auth.AllUsers}},
			{ID: "bot", Role: auth.Agent, Users: []string{"ana"}}} {
			_, k, err := auth.NewKey(p, t0.Add(time.Duration(i)*time.Minute+23))
			if err != nil {
				t.Fatalf("NewKey: %v", err)
			}
			if err := ks.PutKey(ctx, k); err != nil {
				t.Fatalf("PutKey: %v", err)
			}
			if i == 1 {
				if err := ks.RevokeKey(ctx, k.ID, t0.Add(time.Hour+29)); err != nil {
					t.Fatalf("RevokeKey: %v", err)
				}
			}
		}
	}
	return c
}

// checkDumpRoundTrip fills a store made by from, checks its dump against
// its answers, restores it into a store made by to and checks that the
// restored store's dump and answers are the same. It returns the filled
// store.
func checkDumpRoundTrip(ctx context.Context, t testing.TB, from, to Factory) store.Store {
	t.Helper()
	src := from(t)
	c := fillForDump(ctx, t, src)
	recs := dumpAll(ctx, t, src)

	// The dump holds what the store answers.
	var d store.Digest
	for i := range recs {
		if err := d.Add(&recs[i]); err != nil {
			t.Fatalf("Digest.Add(%s): %v", recs[i], err)
		}
	}
	sum := d.Summary()
	st := stats(ctx, t, src, t0)
	evs := events(ctx, t, src, audit.Filter{})
	items := queue(ctx, t, src, audit.QueueFilter{})
	exs := examples(ctx, t, src)
	for _, w := range []struct {
		kind store.RecordKind
		n    int
	}{{store.RecordIdentity, 1}, {store.RecordMemory, st.Memories}, {store.RecordTombstone, st.Tombstones},
		{store.RecordLineage, st.Lineage}, {store.RecordSupersession, st.Supersede}, {store.RecordEvent, len(evs)},
		{store.RecordReviewItem, len(items)}, {store.RecordExample, len(exs)}, {store.RecordKey, boolN(c.keys, 2)}} {
		if got := sum.Count(w.kind); got != int64(w.n) {
			t.Errorf("dump has %d %s, the store answers %d", got, w.kind, w.n)
		}
	}
	if st.Memories != 9 || st.Tombstones != 2 || st.Lineage != 2 || st.Supersede != 3 || len(exs) != 2 {
		t.Fatalf("the filled store has %+v and %d examples; the check expects 9 memories, 2 tombstones, "+
			"2 lineage links, 3 supersessions and 2 examples", st, len(exs))
	}
	byKind := func(k store.RecordKind) []store.Record {
		var out []store.Record
		for _, r := range recs {
			if r.Kind == k {
				out = append(out, r)
			}
		}
		return out
	}
	for i, r := range byKind(store.RecordEvent) {
		if diff := diffEvent(*r.Event, evs[i]); diff != "" || r.Event.Seq != evs[i].Seq || string(r.Event.Payload) != string(evs[i].Payload) {
			t.Errorf("dumped event %d: %s (seq %d, want %d)", i, diff, r.Event.Seq, evs[i].Seq)
		}
	}
	for i, r := range byKind(store.RecordReviewItem) {
		if diff := diffItem(*r.Item, items[i]); diff != "" {
			t.Errorf("dumped review item %d: %s", i, diff)
		}
	}
	for i, r := range byKind(store.RecordExample) {
		e := r.Example
		if e.MemoryID != exs[i].MemoryID || e.Label != exs[i].Label || !e.At.Equal(exs[i].At) || e.Query != exs[i].Query ||
			string(e.Context) != string(exs[i].Context) {
			t.Errorf("dumped example %d: %+v, want %+v", i, e.Example, exs[i])
		}
		if user, ok := c.reviewed[e.ReviewItem]; !ok || user != e.UserID {
			t.Errorf("dumped example %d: review item %d of user %q; want one of the reviewed items %v", i, e.ReviewItem, e.UserID, c.reviewed)
		}
	}
	var mems []memory.Memory
	for _, r := range byKind(store.RecordMemory) {
		mems = append(mems, r.Memory.Memory)
	}
	for _, want := range get(ctx, t, src, idsOf(mems), true) {
		i := slices.IndexFunc(mems, func(m memory.Memory) bool { return m.ID == want.ID })
		want.LineageRefs, want.Supersedes, want.SupersededBy = nil, nil, nil
		if diff := diffMemory(mems[i], want, true); diff != "" {
			t.Errorf("dumped memory %s: %s", want.ID, diff)
		}
	}

	// A fresh store restored from the dump dumps the same and answers the
	// same.
	dst := to(t)
	copied, err := store.Copy(ctx, dumper(t, src), restorer(t, dst))
	if err != nil {
		t.Fatalf("Restore: %v", err)
	}
	if copied.SHA256 != sum.SHA256 {
		t.Errorf("Copy's summary %+v, want %+v", copied, sum)
	}
	again, err := store.Checksum(ctx, dumper(t, dst))
	if err != nil {
		t.Fatalf("Checksum: %v", err)
	}
	if diff := again.Diff(sum); diff != nil {
		t.Errorf("the restored store's checksum differs: %v", diff)
	}
	sameDump(ctx, t, "restored store", dumpAll(ctx, t, dst), recs)
	sameAnswers(ctx, t, dst, src, c)
	return src
}

func boolN(b bool, n int) int {
	if b {
		return n
	}
	return 0
}

// sameAnswers fails t if got answers a read of the contract differently
// from want.
func sameAnswers(ctx context.Context, t testing.TB, got, want store.Store, c dumpContent) {
	t.Helper()
	if id, ok, err := got.Identity(ctx); err != nil || !ok || id != (embed.Identity{Name: "storetest-dump", Dim: Dim}) {
		t.Errorf("restored Identity = %v, %v, %v", id, ok, err)
	}
	g, w := get(ctx, t, got, c.ids, true), get(ctx, t, want, c.ids, true)
	if len(g) != len(w) {
		t.Fatalf("restored Get(%v) = %v, want %v", c.ids, idsOf(g), idsOf(w))
	}
	for i := range g {
		if diff := diffMemory(g[i], w[i], true); diff != "" {
			t.Errorf("restored memory %s: %s", w[i].ID, diff)
		}
	}
	// Pages and their cursors: sequence numbers are kept.
	q := store.ListQuery{IncludeRevoked: true, Limit: 2}
	for range 20 {
		pg, err1 := got.List(ctx, q)
		pw, err2 := want.List(ctx, q)
		if err1 != nil || err2 != nil {
			t.Fatalf("List(%+v): %v, %v", q, err1, err2)
		}
		if !slices.Equal(idsOf(pg.Memories), idsOf(pw.Memories)) || pg.Next != pw.Next {
			t.Fatalf("restored List(%+v) = %v next %d, want %v next %d", q, idsOf(pg.Memories), pg.Next, idsOf(pw.Memories), pw.Next)
		}
		if pw.Next == 0 {
			break
		}
		q.After = pw.Next
	}
	for _, user := range []string{"ana", "ben"} {
		if g, w := scanIDs(ctx, t, got, user), scanIDs(ctx, t, want, user); !slices.Equal(g, w) {
			t.Errorf("restored ScanEntries(%s) = %v, want %v", user, g, w)
		}
		rg, err1 := got.Revoked(ctx, user, 0)
		rw, err2 := want.Revoked(ctx, user, 0)
		if err1 != nil || err2 != nil || !slices.Equal(idsOf(rg), idsOf(rw)) {
			t.Errorf("restored Revoked(%s) = %v (%v), want %v (%v)", user, idsOf(rg), err1, idsOf(rw), err2)
		}
	}
	ag, err1 := got.Ancestors(ctx, c.ids)
	aw, err2 := want.Ancestors(ctx, c.ids)
	if err1 != nil || err2 != nil || !reflect.DeepEqual(ag, aw) {
		t.Errorf("restored Ancestors = %v (%v), want %v (%v)", ag, err1, aw, err2)
	}
	tg, err1 := got.Tombstones(ctx, c.ids)
	tw, err2 := want.Tombstones(ctx, c.ids)
	if err1 != nil || err2 != nil || len(tg) != len(tw) {
		t.Errorf("restored Tombstones = %v (%v), want %v (%v)", tg, err1, tw, err2)
	}
	for id, tw := range tw {
		if tg := tg[id]; tg.ID != tw.ID || tg.UserID != tw.UserID || !tg.ForgottenAt.Equal(tw.ForgottenAt) || tg.Reason != tw.Reason {
			t.Errorf("restored tombstone %s = %+v, want %+v", id, tg, tw)
		}
	}
	eg, ew := events(ctx, t, got, audit.Filter{}), events(ctx, t, want, audit.Filter{})
	if len(eg) != len(ew) {
		t.Fatalf("restored trail has %d events, want %d", len(eg), len(ew))
	}
	for i := range eg {
		if diff := diffEvent(eg[i], ew[i]); diff != "" || eg[i].Seq != ew[i].Seq {
			t.Errorf("restored event %d (seq %d, want %d): %s", i, eg[i].Seq, ew[i].Seq, diff)
		}
	}
	qg, qw := queue(ctx, t, got, audit.QueueFilter{}), queue(ctx, t, want, audit.QueueFilter{})
	if len(qg) != len(qw) {
		t.Fatalf("restored queue has %d items, want %d", len(qg), len(qw))
	}
	for i := range qg {
		if diff := diffItem(qg[i], qw[i]); diff != "" {
			t.Errorf("restored review item %d: %s", i, diff)
		}
	}
	if xg, xw := examples(ctx, t, got), examples(ctx, t, want); !reflect.DeepEqual(xg, xw) {
		t.Errorf("restored Examples = %+v, want %+v", xg, xw)
	}
	sg, sw := stats(ctx, t, got, t0), stats(ctx, t, want, t0)
	sg.Schema, sg.FileBytes, sw.Schema, sw.FileBytes = 0, 0, 0, 0
	if !statsEqual(sg, sw) {
		t.Errorf("restored Stats = %+v, want %+v", sg, sw)
	}
	if c.keys {
		kg, err1 := got.(auth.Store).Keys(ctx)
		kw, err2 := want.(auth.Store).Keys(ctx)
		if err1 != nil || err2 != nil || len(kg) != len(kw) {
			t.Fatalf("restored Keys = %d keys (%v), want %d (%v)", len(kg), err1, len(kw), err2)
		}
		for i := range kg {
			if kg[i].ID != kw[i].ID || string(kg[i].Hash) != string(kw[i].Hash) || !reflect.DeepEqual(kg[i].Principal, kw[i].Principal) ||
				!kg[i].CreatedAt.Equal(kw[i].CreatedAt) || !kg[i].RevokedAt.Equal(kw[i].RevokedAt) {
				t.Errorf("restored key %d = %+v, want %+v", i, kg[i], kw[i])
			}
		}
	}
}

// errInjected is the error a failing stream of records yields.
var errInjected = errors.New("injected failure of the stream")

// checkRestoreRefusals: a restore into a store that holds anything is
// refused with store.ErrNotEmpty, and one whose stream fails, or is out of
// order or malformed, part-way writes nothing.
func checkRestoreRefusals(ctx context.Context, t testing.TB, newStore Factory) {
	src := newStore(t)
	fillForDump(ctx, t, src)
	recs := dumpAll(ctx, t, src)
	sum, err := store.Checksum(ctx, dumper(t, src))
	if err != nil {
		t.Fatalf("Checksum: %v", err)
	}

	// Not empty: the filled store itself, and stores holding only an
	// identity, a memory or an event.
	onlyIdentity := newStore(t)
	if err := onlyIdentity.SetIdentity(ctx, embed.Identity{Name: "other", Dim: Dim}); err != nil {
		t.Fatalf("SetIdentity: %v", err)
	}
	onlyMemory := newStore(t)
	insert(ctx, t, onlyMemory, newMem("x1", "zoe", "the only memory"))
	onlyEvent := newStore(t)
	if _, err := onlyEvent.AppendEvents(ctx, []audit.Event{{Kind: audit.Injection, At: t0, UserID: "zoe", Payload: json.RawMessage(`{}`)}}); err != nil {
		t.Fatalf("AppendEvents: %v", err)
	}
	for _, tc := range []struct {
		name string
		s    store.Store
	}{{"filled", src}, {"identity only", onlyIdentity}, {"one memory", onlyMemory}, {"one event", onlyEvent}} {
		before, err := store.Checksum(ctx, dumper(t, tc.s))
		if err != nil {
			t.Fatalf("%s: Checksum: %v", tc.name, err)
		}
		err = restorer(t, tc.s).Restore(ctx, all(recs))
		if !errors.Is(err, store.ErrNotEmpty) {
			t.Errorf("restore into a store with %s: err = %v, want store.ErrNotEmpty", tc.name, err)
		}
		if after, err := store.Checksum(ctx, dumper(t, tc.s)); err != nil || after.SHA256 != before.SHA256 {
			t.Errorf("restore into a store with %s changed it: %v", tc.name, after.Diff(before))
		}
	}
	if got, err := store.Checksum(ctx, dumper(t, src)); err != nil || got.SHA256 != sum.SHA256 {
		t.Errorf("the refused restores changed the source: %v %v", err, got.Diff(sum))
	}

	// A stream that fails, or goes wrong, part-way writes nothing.
	firstEvent := slices.IndexFunc(recs, func(r store.Record) bool { return r.Kind == store.RecordEvent })
	firstMemory := slices.IndexFunc(recs, func(r store.Record) bool { return r.Kind == store.RecordMemory })
	swapped := slices.Clone(recs)
	swapped[firstMemory], swapped[firstMemory+1] = swapped[firstMemory+1], swapped[firstMemory]
	backwards := slices.Clone(recs)
	backwards = append(backwards, recs[firstMemory]) // a memory after the keys
	noVector := slices.Clone(recs)
	m := *noVector[firstMemory].Memory
	m.Memory.Embedding = nil
	noVector[firstMemory].Memory = &m
	twoPayloads := slices.Clone(recs)
	twoPayloads[firstEvent].Item = &audit.QuarantineItem{}
	for _, tc := range []struct {
		name    string
		records iter.Seq2[store.Record, error]
		want    error // nil: any error
	}{
		{"the stream fails among the events", failAt(recs, firstEvent+1, errInjected), errInjected},
		{"the stream fails at the end", failAt(recs, len(recs), errInjected), errInjected},
		{"two memories out of order", all(swapped), nil},
		{"a memory after the keys", all(backwards), nil},
		{"a memory without a vector", all(noVector), nil},
		{"a record with two payloads", all(twoPayloads), nil},
	} {
		s := newStore(t)
		err := restorer(t, s).Restore(ctx, tc.records)
		if err == nil || tc.want != nil && !errors.Is(err, tc.want) {
			t.Errorf("%s: Restore = %v, want an error (%v)", tc.name, err, tc.want)
		}
		if got, err := store.Checksum(ctx, dumper(t, s)); err != nil || got.Records != 0 {
			t.Errorf("%s: the failed restore left %d records (%v)", tc.name, got.Records, err)
		}
		// The store is still empty, so a whole dump restores.
		if _, err := store.Copy(ctx, dumper(t, src), restorer(t, s)); err != nil {
			t.Errorf("%s: restore after the failed one: %v", tc.name, err)
		}
	}
}

// all yields recs.
func all(recs []store.Record) iter.Seq2[store.Record, error] { return failAt(recs, len(recs), nil) }

// failAt yields recs[:n] and then err, if not nil.
func failAt(recs []store.Record, n int, err error) iter.Seq2[store.Record, error] {
	return func(yield func(store.Record, error) bool) {
		for _, r := range recs[:n] {
			if !yield(r, nil) {
				return
			}
		}
		if err != nil {
			yield(store.Record{}, err)
		}
	}
}

// checkRestoreContinues: after a restore the store works as any other, and
// numbers new memories, events and review items after the restored ones;
// the restored review items can be reviewed, the restored keys revoked.
func checkRestoreContinues(ctx context.Context, t testing.TB, newStore Factory) {
	src := newStore(t)
	c := fillForDump(ctx, t, src)
	dst := newStore(t)
	if _, err := store.Copy(ctx, dumper(t, src), restorer(t, dst)); err != nil {
		t.Fatalf("Restore: %v", err)
	}
	maxSeq := func(s store.Store) (mem, ev, item int64) {
		for _, r := range dumpAll(ctx, t, s) {
			switch r.Kind {
			case store.RecordMemory:
				mem = max(mem, r.Memory.Seq)
			case store.RecordEvent:
				ev = max(ev, r.Event.Seq)
			case store.RecordReviewItem:
				item = max(item, r.Item.Seq)
			}
		}
		return mem, ev, item
	}
	memSeq, evSeq, itemSeq := maxSeq(dst)

	fresh := newMem("n1", "ana", "written after the restore")
	fresh.LineageRefs = []string{"m-full", "m-gone"} // a restored memory and a restored tombstone
	insert(ctx, t, dst, fresh)
	if ids := listIDs(ctx, t, dst, store.ListQuery{Filter: memory.Filter{UserID: "ana"}}); len(ids) == 0 || ids[len(ids)-1] != "n1" {
		t.Errorf("List after a new insert = %v, want n1 last", ids)
	}
	if _, err := dst.Insert(ctx, []memory.Memory{newMem("m-gone", "ana", "reuses a forgotten id")}, store.ConflictError, nil); !errors.Is(err, store.ErrConflict) {
		t.Errorf("insert reusing a restored tombstone's id: err = %v, want ErrConflict", err)
	}
	seq, err := dst.AppendEvents(ctx, []audit.Event{{Kind: audit.Injection, At: t0.Add(9 * time.Hour), UserID: "ana", Payload: json.RawMessage(`{}`)}})
	if err != nil {
		t.Fatalf("AppendEvents: %v", err)
	}
	if seq <= evSeq {
		t.Errorf("an event appended after the restore got seq %d, not after the restored %d", seq, evSeq)
	}
	search := record(ctx, t, dst, admission("ana", "t9", t0.Add(10*time.Hour), []string{"n1"}, []string{"n1"}))
	if search <= seq {
		t.Errorf("a search recorded after the restore got seq %d, not after %d", search, seq)
	}
	items := queue(ctx, t, dst, audit.QueueFilter{Status: audit.Pending})
	if len(items) != 2 || items[0].Seq != c.pending || items[1].Seq <= itemSeq || items[1].SearchID != search {
		t.Errorf("pending items after the restore = %+v; want the restored item %d, then a new one after %d linked to search %d",
			items, c.pending, itemSeq, search)
	}
	if _, err := dst.Review(ctx, audit.Review{Item: c.pending, Approve: true, Reviewer: "rita", At: t0.Add(11 * time.Hour)}); err != nil {
		t.Errorf("Review of a restored item: %v", err)
	}
	if _, err := dst.Review(ctx, audit.Review{Item: items[0].Seq, Approve: true, Reviewer: "rita", At: t0.Add(11 * time.Hour)}); !errors.Is(err, store.ErrAlreadyReviewed) {
		t.Errorf("Review of a restored item twice: err = %v, want ErrAlreadyReviewed", err)
	}
	if exs := examples(ctx, t, dst); len(exs) != 3 {
		t.Errorf("examples after a new verdict: %d, want 3", len(exs))
	}
	revoke(ctx, t, dst, "m-full", t0.Add(12*time.Hour))
	forget(ctx, t, dst, "m-derived", t0.Add(12*time.Hour))
	if c.keys {
		ks := dst.(auth.Store)
		_, k, err := auth.NewKey(auth.Principal{ID: "late", Role: auth.Reviewer, Users: []string{"ana"}}, t0.Add(13*time.Hour))
		if err != nil {
			t.Fatalf("NewKey: %v", err)
		}
		if err := ks.PutKey(ctx, k); err != nil {
			t.Errorf("PutKey after the restore: %v", err)
		}
		if keys, err := ks.Keys(ctx); err != nil || len(keys) != 3 || keys[2].ID != k.ID {
			t.Errorf("Keys after a new key = %d keys (%v), want the 2 restored then %s", len(keys), err, k.ID)
		}
	}
	newMem, newEv, newItem := maxSeq(dst)
	if newMem <= memSeq || newEv <= evSeq || newItem <= itemSeq {
		t.Errorf("greatest seqs after new writes: memory %d, event %d, item %d; want each after the restored %d, %d, %d",
			newMem, newEv, newItem, memSeq, evSeq, itemSeq)
	}
	if ch, ok := dst.(store.Checker); ok {
		if err := ch.Check(ctx); err != nil {
			t.Errorf("Check after the restore and new writes: %v", err)
		}
	}
}

// checkDumpStops: Dump stops at fn's first error and returns it as is.
func checkDumpStops(ctx context.Context, t testing.TB, newStore Factory) {
	s := newStore(t)
	fillForDump(ctx, t, s)
	stop := fmt.Errorf("stop here")
	n := 0
	err := dumper(t, s).Dump(ctx, func(r store.Record) error {
		if n++; r.Kind == store.RecordTombstone {
			return stop
		}
		return nil
	})
	if err != stop {
		t.Errorf("Dump = %v, want fn's error as is", err)
	}
	if n != 11 { // the identity, 9 memories, the first tombstone
		t.Errorf("Dump called fn %d times, want 11", n)
	}
	// Breaking out of the iterator stops the dump too.
	seen := 0
	for _, err := range store.Records(ctx, dumper(t, s)) {
		if err != nil {
			t.Fatalf("Records: %v", err)
		}
		if seen++; seen == 3 {
			break
		}
	}
}

// checkDumpSnapshot: a dump is one snapshot; writes made while it runs (by
// fn itself, here) are not in it, and are in the store afterwards.
func checkDumpSnapshot(ctx context.Context, t testing.TB, newStore Factory) {
	s := newStore(t)
	fillForDump(ctx, t, s)
	before, err := store.Checksum(ctx, dumper(t, s))
	if err != nil {
		t.Fatalf("Checksum: %v", err)
	}
	var during store.Digest
	wrote := false
	err = dumper(t, s).Dump(ctx, func(r store.Record) error {
		if r.Kind == store.RecordMemory && !wrote {
			wrote = true
			insert(ctx, t, s, newMem("during", "ana", "written while the dump runs"))
			if _, err := s.AppendEvents(ctx, []audit.Event{{Kind: audit.Injection, At: t0, UserID: "ana", Payload: json.RawMessage(`{}`)}}); err != nil {
				return err
			}
		}
		return during.Add(&r)
	})
	if err != nil {
		t.Fatalf("Dump: %v", err)
	}
	if diff := during.Summary().Diff(before); diff != nil {
		t.Errorf("the dump holds writes made while it ran: %v", diff)
	}
	after, err := store.Checksum(ctx, dumper(t, s))
	if err != nil {
		t.Fatalf("Checksum: %v", err)
	}
	if after.Count(store.RecordMemory) != before.Count(store.RecordMemory)+1 || after.Count(store.RecordEvent) != before.Count(store.RecordEvent)+1 {
		t.Errorf("after the dump the store holds %d memories and %d events, want %d and %d", after.Count(store.RecordMemory),
			after.Count(store.RecordEvent), before.Count(store.RecordMemory)+1, before.Count(store.RecordEvent)+1)
	}
}
