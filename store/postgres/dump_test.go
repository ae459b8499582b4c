package postgres

import (
	"encoding/json"
	"errors"
	"testing"

	"github.com/memgate/memgate/audit"
	"github.com/memgate/memgate/store"
	memstore "github.com/memgate/memgate/store/mem"
	"github.com/memgate/memgate/store/storetest"
)

// The PostgreSQL store's logical dump round-trips, each check in fresh
// databases; restores refuse a store that is not empty and write nothing
// when they fail.
func TestDump(t *testing.T) {
	serverURL(t)
	storetest.RunDump(t, func(t testing.TB) store.Store { return openFresh(t) })
}

// A dump of a PostgreSQL store restores into an in-memory store, and back,
// with the same checksum (store/sqlite's test does the same with SQLite).
func TestDumpTransfersToMem(t *testing.T) {
	serverURL(t)
	pg := func(t testing.TB) store.Store { return openFresh(t) }
	memStore := func(testing.TB) store.Store { return memstore.New() }
	t.Run("postgres to mem", func(t *testing.T) { storetest.RunTransfer(t, pg, memStore) })
	t.Run("mem to postgres", func(t *testing.T) { storetest.RunTransfer(t, memStore, pg) })
}

// A gap in the audit trail's sequence (a failed write drew numbers it never
// used) is kept by a dump and a restore, and the restored store numbers new
// events after the greatest; the audit trail's triggers stay in place.
func TestRestoreKeepsGapsAndTriggers(t *testing.T) {
	src, dst := openFresh(t), openFresh(t)
	ctx := t.Context()
	ev := audit.Event{Kind: audit.Injection, At: t0, UserID: "u1", Payload: json.RawMessage(`{}`)}
	if _, err := src.AppendEvents(ctx, []audit.Event{ev}); err != nil {
		t.Fatal(err)
	}
	if _, err := src.Pool().Exec(ctx, "SELECT nextval(pg_get_serial_sequence('audit_events', 'seq'))"); err != nil {
		t.Fatal(err)
	}
	last, err := src.AppendEvents(ctx, []audit.Event{ev})
	if err != nil {
		t.Fatal(err)
	}
	if last != 3 {
		t.Fatalf("the second event got seq %d, want 3 (after a gap)", last)
	}
	if _, err := store.Copy(ctx, src, dst); err != nil {
		t.Fatalf("Restore: %v", err)
	}
	evs, err := dst.Events(ctx, audit.Filter{})
	if err != nil || len(evs) != 2 || evs[0].Seq != 1 || evs[1].Seq != 3 {
		t.Fatalf("restored events = %+v (%v), want seqs 1 and 3", evs, err)
	}
	next, err := dst.AppendEvents(ctx, []audit.Event{ev})
	if err != nil || next != 4 {
		t.Errorf("the first event after the restore got seq %d (%v), want 4", next, err)
	}
	if _, err := dst.Pool().Exec(ctx, "DELETE FROM audit_events"); err == nil {
		t.Error("the restored audit trail accepted a DELETE")
	}
	if err := dst.Check(ctx); err != nil {
		t.Errorf("Check after the restore: %v", err)
	}
	// An in-memory store, which numbers events without gaps, refuses it.
	if _, err := store.Copy(ctx, src, memstore.New()); err == nil || errors.Is(err, store.ErrNotEmpty) {
		t.Errorf("restore of a dump with a gap into an in-memory store: %v, want a refusal", err)
	}
}
