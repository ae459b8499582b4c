package storetest

import (
	"context"
	"errors"
	"slices"
	"sync/atomic"
	"testing"
	"time"

	"github.com/memgate/memgate/memory"
	"github.com/memgate/memgate/store"
)

// checkOutbox: for a store that implements store.Outbox, a change is
// recorded only once the outbox is enabled, in the transaction of the write
// (a refused batch records nothing), in order; a drain whose apply fails
// removes nothing; a drain removes exactly what it took; drains and holds
// exclude each other. Stores without an outbox skip it.
func checkOutbox(ctx context.Context, t testing.TB, newStore Factory) {
	s := newStore(t)
	ob, ok := s.(store.Outbox)
	if !ok {
		t.Skip("the store keeps no index outbox")
	}
	lag := func() store.OutboxState {
		t.Helper()
		st, err := ob.OutboxLag(ctx)
		if err != nil {
			t.Fatalf("OutboxLag: %v", err)
		}
		return st
	}
	// take drains up to max records and returns what apply saw.
	take := func(max int) []store.OutboxRecord {
		t.Helper()
		var got []store.OutboxRecord
		n, err := ob.DrainOutbox(ctx, "idx-a", max, func(_ context.Context, recs []store.OutboxRecord) error {
			got = append(got, recs...)
			return nil
		})
		if err != nil {
			t.Fatalf("DrainOutbox(%d): %v", max, err)
		}
		if n != len(got) {
			t.Fatalf("DrainOutbox(%d) = %d, but apply saw %d records", max, n, len(got))
		}
		return got
	}
	names := func(recs []store.OutboxRecord) []string {
		var out []string
		for _, r := range recs {
			out = append(out, r.UserID+"/"+r.MemoryID)
		}
		return out
	}

	insert(ctx, t, s, newMem("before", "ann", "written before the outbox was enabled"))
	if st := lag(); st.Enabled || st.Pending != 0 {
		t.Fatalf("before EnableOutbox: %+v, want disabled and nothing pending", st)
	}
	for range 2 {
		if err := ob.EnableOutbox(ctx, "idx-a", false); err != nil {
			t.Fatalf("EnableOutbox: %v", err)
		}
	}
	if st := lag(); !st.Enabled || st.Consumer != "idx-a" || st.Pending != 0 || st.Oldest != 0 {
		t.Fatalf("after EnableOutbox: %+v, want enabled for idx-a and nothing pending", st)
	}
	var taken *store.OutboxTakenError
	if err := ob.EnableOutbox(ctx, "idx-b", false); !errors.As(err, &taken) || taken.Consumer != "idx-a" {
		t.Fatalf("EnableOutbox for a second index = %v, want an OutboxTakenError naming idx-a", err)
	}
	insert(ctx, t, s, newMem("o1", "ann", "first"), newMem("o2", "ann", "second"))
	insert(ctx, t, s, newMem("o3", "bob", "third"))
	if _, err := s.Insert(ctx, []memory.Memory{newMem("o4", "ann", "fourth"), newMem("o1", "ann", "taken")}, store.ConflictError, nil); err == nil {
		t.Fatal("Insert with a taken id succeeded")
	}
	if _, err := s.Revoke(ctx, "o1", store.Change{Reason: "stale", At: t0}); err != nil {
		t.Fatalf("Revoke: %v", err)
	}
	if _, err := s.Forget(ctx, "o2", store.Change{Reason: "asked", At: t0}); err != nil {
		t.Fatalf("Forget: %v", err)
	}
	if st := lag(); st.Pending != 5 || st.Oldest < 0 {
		t.Fatalf("after 3 inserts, a refused batch, a revocation and a forgetting: %+v, want 5 pending", st)
	}

	boom := errors.New("index unavailable")
	n, err := ob.DrainOutbox(ctx, "idx-b", 10, func(context.Context, []store.OutboxRecord) error {
		t.Error("a drain for another index applied records")
		return nil
	})
	if !errors.As(err, &taken) || n != 0 {
		t.Fatalf("DrainOutbox for another index = %d, %v; want 0 and an OutboxTakenError", n, err)
	}
	n, err = ob.DrainOutbox(ctx, "idx-a", 10, func(context.Context, []store.OutboxRecord) error { return boom })
	if !errors.Is(err, boom) || n != 0 {
		t.Fatalf("DrainOutbox with a failing apply = %d, %v; want 0 and its error", n, err)
	}
	if st := lag(); st.Pending != 5 {
		t.Fatalf("a failed drain removed records: %d pending, want 5", st.Pending)
	}

	got := take(2)
	want := []string{"ann/o1", "ann/o2"}
	if !slices.Equal(names(got), want) {
		t.Fatalf("first drain took %v, want %v (oldest first)", names(got), want)
	}
	got = take(10)
	want = []string{"bob/o3", "ann/o1", "ann/o2"}
	if !slices.Equal(names(got), want) {
		t.Fatalf("second drain took %v, want %v: the rest, in the order written", names(got), want)
	}
	if !slices.IsSortedFunc(got, func(a, b store.OutboxRecord) int { return int(a.Seq - b.Seq) }) {
		t.Fatalf("records out of order: %+v", got)
	}
	if got := take(10); len(got) != 0 {
		t.Fatalf("a drained outbox gave %v", names(got))
	}
	if st := lag(); st.Pending != 0 || st.Oldest != 0 {
		t.Fatalf("after draining: %+v", st)
	}

	// A hold excludes drains, and a drain excludes holds.
	insert(ctx, t, s, newMem("o5", "ann", "fifth"))
	var holding, overlapped atomic.Bool
	entered, release := make(chan struct{}), make(chan struct{})
	held := make(chan error, 1)
	go func() {
		held <- ob.HoldOutbox(ctx, func(context.Context) error {
			holding.Store(true)
			close(entered)
			<-release
			holding.Store(false)
			return nil
		})
	}()
	<-entered
	drained := make(chan error, 1)
	go func() {
		_, err := ob.DrainOutbox(ctx, "idx-a", 10, func(context.Context, []store.OutboxRecord) error {
			overlapped.Store(holding.Load())
			return nil
		})
		drained <- err
	}()
	time.Sleep(50 * time.Millisecond)
	close(release)
	if err := <-held; err != nil {
		t.Fatalf("HoldOutbox: %v", err)
	}
	if err := <-drained; err != nil {
		t.Fatalf("DrainOutbox during a hold: %v", err)
	}
	if overlapped.Load() {
		t.Fatal("a drain applied records while HoldOutbox held the drain lock")
	}
	if st := lag(); st.Pending != 0 {
		t.Fatalf("the drain that waited for the hold left %d pending", st.Pending)
	}
	if err := ob.HoldOutbox(ctx, func(context.Context) error { return boom }); !errors.Is(err, boom) {
		t.Fatalf("HoldOutbox returned %v, want fn's error", err)
	}

	// Taking over switches the outbox to another index.
	if err := ob.EnableOutbox(ctx, "idx-b", true); err != nil {
		t.Fatalf("EnableOutbox(take over): %v", err)
	}
	if st := lag(); st.Consumer != "idx-b" {
		t.Fatalf("after a take-over the outbox feeds %q, want idx-b", st.Consumer)
	}
	if _, err := ob.DrainOutbox(ctx, "idx-a", 10, func(context.Context, []store.OutboxRecord) error { return nil }); !errors.As(err, &taken) {
		t.Fatalf("a drain for the index taken over from = %v, want an OutboxTakenError", err)
	}

	// Stopping drops what is pending and records nothing more, until the
	// outbox is enabled again.
	insert(ctx, t, s, newMem("before-stop", "ann", "written while the outbox feeds idx-b"))
	if st := lag(); st.Pending == 0 {
		t.Fatal("a write while the outbox is enabled recorded nothing")
	}
	dropped, err := ob.StopOutbox(ctx)
	if err != nil || dropped == 0 {
		t.Fatalf("StopOutbox = %d, %v; want the pending records dropped", dropped, err)
	}
	if st := lag(); st.Enabled || st.Consumer != "" || st.Pending != 0 {
		t.Fatalf("after StopOutbox the outbox is %+v, want disabled and empty", st)
	}
	insert(ctx, t, s, newMem("after-stop", "ann", "written after the outbox was stopped"))
	if st := lag(); st.Pending != 0 {
		t.Fatalf("a write after StopOutbox recorded %d changes", st.Pending)
	}
	if _, err := ob.DrainOutbox(ctx, "idx-b", 10, func(context.Context, []store.OutboxRecord) error { return nil }); !errors.As(err, &taken) {
		t.Fatalf("a drain after StopOutbox = %v, want an OutboxTakenError", err)
	}
	if n, err := ob.StopOutbox(ctx); err != nil || n != 0 {
		t.Fatalf("stopping a stopped outbox = %d, %v", n, err)
	}
	if err := ob.EnableOutbox(ctx, "idx-c", false); err != nil {
		t.Fatalf("EnableOutbox after StopOutbox: %v", err)
	}
	insert(ctx, t, s, newMem("after-restart", "ann", "written once the outbox feeds idx-c"))
	if st := lag(); !st.Enabled || st.Consumer != "idx-c" || st.Pending != 1 {
		t.Fatalf("after enabling again the outbox is %+v, want idx-c with one change", st)
	}
}
