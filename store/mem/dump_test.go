package mem

import (
	"context"
	"errors"
	"iter"
	"strings"
	"testing"
	"time"

	"github.com/memgate/memgate/audit"
	"github.com/memgate/memgate/store"
	"github.com/memgate/memgate/store/storetest"
)

// The in-memory store's logical dump round-trips.
func TestDump(t *testing.T) {
	storetest.RunDump(t, func(testing.TB) store.Store { return New() })
}

// An in-memory store numbers events and review items without gaps, so a
// dump with gaps (a PostgreSQL store's, after a failed write) is refused
// rather than renumbered, and nothing is written.
func TestRestoreRefusesGaps(t *testing.T) {
	at := time.Date(2026, 5, 1, 9, 0, 0, 0, time.UTC)
	ev := func(seq int64) store.Record {
		return store.Record{Kind: store.RecordEvent, Event: &audit.Event{Seq: seq, Kind: audit.Search, At: at}}
	}
	item := func(seq int64) store.Record {
		return store.Record{Kind: store.RecordReviewItem, Item: &audit.QuarantineItem{Seq: seq, MemoryID: "m", UserID: "u",
			At: at, Status: audit.Pending}}
	}
	for _, tc := range []struct {
		name string
		recs []store.Record
		want string
	}{
		{"an event gap", []store.Record{ev(1), ev(3)}, "seq 3 where this store would number it 2"},
		{"a review item gap", []store.Record{ev(1), item(2)}, "seq 2 where this store would number it 1"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := New()
			err := s.Restore(context.Background(), seq(tc.recs))
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("Restore = %v, want an error saying %q", err, tc.want)
			}
			if sum, err := store.Checksum(context.Background(), s); err != nil || sum.Records != 0 {
				t.Errorf("the refused restore left %d records (%v)", sum.Records, err)
			}
			if errors.Is(err, store.ErrNotEmpty) {
				t.Errorf("a gap reported as a store that is not empty: %v", err)
			}
		})
	}
}

func seq(recs []store.Record) iter.Seq2[store.Record, error] {
	return func(yield func(store.Record, error) bool) {
		for _, r := range recs {
			if !yield(r, nil) {
				return
			}
		}
	}
}
