package postgres

import (
	"testing"

	"github.com/memgate/memgate/store"
	memstore "github.com/memgate/memgate/store/mem"
	"github.com/memgate/memgate/store/storetest"
)

// The in-memory store answers exactly as the PostgreSQL store does: the same
// random operations on both give deeply equal results and the same errors,
// word for word. store/sqlite's TestMemAnswersAsSQLite holds store/mem to
// SQLite's answers the same way, so this holds PostgreSQL to SQLite's too.
//
// One difference is allowed: List's cursors. SQLite numbers a new row one
// past the greatest stored, so after the last memory is forgotten its
// sequence number is used again (store/mem copies that); PostgreSQL's
// sequence never reuses a number. The cursors are opaque, so each store
// pages with its own, and the pages must agree.
func TestMemAnswersAsPostgres(t *testing.T) {
	serverURL(t)
	storetest.Differential(t, func(testing.TB) store.Store { return memstore.New() },
		func(t testing.TB) store.Store { return openFresh(t) })
}
