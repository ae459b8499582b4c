package sqlite

import (
	"path/filepath"
	"testing"

	"github.com/memgate/memgate/store"
	memstore "github.com/memgate/memgate/store/mem"
	"github.com/memgate/memgate/store/storetest"
)

func openConformance(t testing.TB) *Store {
	s, err := Open(t.Context(), filepath.Join(t.TempDir(), "s.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// The SQLite store passes the conformance suite.
func TestConformance(t *testing.T) {
	storetest.Run(t, func(t testing.TB) store.Store { return openConformance(t) })
}

// The in-memory store answers exactly as the SQLite store does: the same
// random operations on both give deeply equal results and the same errors,
// word for word, so that an evaluation gives the same results on either.
func TestMemAnswersAsSQLite(t *testing.T) {
	storetest.Differential(t, func(testing.TB) store.Store { return memstore.New() },
		func(t testing.TB) store.Store { return openConformance(t) })
}
