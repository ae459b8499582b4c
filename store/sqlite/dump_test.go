package sqlite

import (
	"testing"

	"github.com/memgate/memgate/store"
	memstore "github.com/memgate/memgate/store/mem"
	"github.com/memgate/memgate/store/storetest"
)

// The SQLite store's logical dump round-trips, and restores refuse a store
// that is not empty and write nothing when they fail.
func TestDump(t *testing.T) {
	storetest.RunDump(t, func(t testing.TB) store.Store { return openConformance(t) })
}

// A dump of a SQLite store restores into an in-memory store, and back, with
// the same checksum: the dump is the same whatever the backend.
func TestDumpTransfersToMem(t *testing.T) {
	sqliteStore := func(t testing.TB) store.Store { return openConformance(t) }
	memStore := func(testing.TB) store.Store { return memstore.New() }
	t.Run("sqlite to mem", func(t *testing.T) { storetest.RunTransfer(t, sqliteStore, memStore) })
	t.Run("mem to sqlite", func(t *testing.T) { storetest.RunTransfer(t, memStore, sqliteStore) })
}
