package store

import (
	"context"
	"encoding/json"
	"errors"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/memgate/memgate/audit"
	"github.com/memgate/memgate/embed"
	"github.com/memgate/memgate/memory"
)

var at = time.Date(2026, 5, 1, 9, 0, 0, 123456789, time.UTC)

func memRec(seq int64, id string) Record {
	return Record{Kind: RecordMemory, Memory: &StoredMemory{Seq: seq, Memory: memory.Memory{ID: id, UserID: "u", Text: "t",
		CreatedAt: at, Embedding: []float32{1, 0}}}}
}

func tombRec(id string) Record {
	return Record{Kind: RecordTombstone, Tombstone: &memory.Tombstone{ID: id, UserID: "u", ForgottenAt: at}}
}

func linkRec(kind RecordKind, id, ref string) Record {
	return Record{Kind: kind, Link: &Link{MemoryID: id, Ref: ref}}
}

func eventRec(seq int64) Record {
	return Record{Kind: RecordEvent, Event: &audit.Event{Seq: seq, Kind: audit.Search, At: at, Payload: json.RawMessage(`{}`)}}
}

func identityRec() Record {
	return Record{Kind: RecordIdentity, Identity: &embed.Identity{Name: "e", Dim: 2}}
}

// Sequence accepts a dump's canonical order and refuses anything else,
// saying what is wrong.
func TestSequence(t *testing.T) {
	tests := []struct {
		name string
		recs []Record
		want string // "" for accepted; else a substring of the error
	}{
		{"canonical", []Record{identityRec(), memRec(1, "a"), memRec(5, "b"), tombRec("c"), tombRec("d"),
			linkRec(RecordLineage, "a", "c"), linkRec(RecordLineage, "b", "a"), linkRec(RecordSupersession, "a", "b"),
			eventRec(1), eventRec(3)}, ""},
		{"kinds may be missing", []Record{memRec(1, "a"), eventRec(1)}, ""},
		{"memories out of order", []Record{memRec(2, "a"), memRec(1, "b")}, "seq 1 is not after"},
		{"a repeated seq", []Record{eventRec(1), eventRec(1)}, "seq 1 is not after"},
		{"tombstones out of order", []Record{tombRec("b"), tombRec("a")}, `id "a" is not after`},
		{"links out of order", []Record{linkRec(RecordLineage, "b", "a"), linkRec(RecordLineage, "a", "z")}, "is not after"},
		{"a repeated link", []Record{linkRec(RecordLineage, "a", "b"), linkRec(RecordLineage, "a", "b")}, "is not after"},
		{"a kind after a later one", []Record{eventRec(1), memRec(1, "a")}, "memories record after events records"},
		{"two identities", []Record{identityRec(), identityRec()}, "more than one"},
		{"no payload", []Record{{Kind: RecordMemory}}, "0 payloads set"},
		{"two payloads", []Record{{Kind: RecordEvent, Event: eventRec(1).Event, Link: &Link{"a", "b"}}}, "2 payloads set"},
		{"the wrong payload", []Record{{Kind: RecordEvent, Link: &Link{"a", "b"}}}, "event is missing"},
		{"an unknown kind", []Record{{Kind: 99, Link: &Link{"a", "b"}}}, "unknown kind"},
		{"a memory without a vector", []Record{func() Record { r := memRec(1, "a"); r.Memory.Memory.Embedding = nil; return r }()}, "embedding is missing"},
		{"a memory with relations", []Record{func() Record { r := memRec(1, "a"); r.Memory.Memory.LineageRefs = []string{"x"}; return r }()}, "carries relations"},
		{"a seq of 0", []Record{memRec(0, "a")}, "want a positive number"},
		{"an item of unknown status", []Record{{Kind: RecordReviewItem, Item: &audit.QuarantineItem{Seq: 1, MemoryID: "m", UserID: "u", At: at, Status: "maybe"}}}, `status "maybe"`},
		{"a key without a hash", []Record{{Kind: RecordKey, Key: &Key{ID: "k", Principal: json.RawMessage(`{}`), CreatedAt: at}}}, "hash and principal are required"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var q Sequence
			var err error
			for i := range tc.recs {
				if err = q.Next(&tc.recs[i]); err != nil {
					break
				}
			}
			switch {
			case tc.want == "" && err != nil:
				t.Errorf("refused: %v", err)
			case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
				t.Errorf("err = %v, want one saying %q", err, tc.want)
			}
		})
	}
}

func sum(t *testing.T, recs ...Record) Summary {
	t.Helper()
	var d Digest
	for i := range recs {
		if err := d.Add(&recs[i]); err != nil {
			t.Fatalf("Add(%s): %v", recs[i], err)
		}
	}
	return d.Summary()
}

// The checksum covers every field, exactly: any change of one changes its
// kind's checksum and the whole's, and only those.
func TestDigestCoversEveryField(t *testing.T) {
	base := func() []Record {
		return []Record{identityRec(), memRec(1, "a"), tombRec("t"), eventRec(1)}
	}
	ref := sum(t, base()...)
	if again := sum(t, base()...); again.SHA256 != ref.SHA256 || again.Diff(ref) != nil {
		t.Fatalf("the same records digest differently: %v", again.Diff(ref))
	}
	if ref.Records != 4 || ref.Count(RecordMemory) != 1 || ref.Count(RecordKey) != 0 {
		t.Errorf("counts %+v", ref)
	}
	changes := []struct {
		name   string
		kind   string
		change func(rs []Record)
	}{
		{"a nanosecond of createdAt", "memories", func(rs []Record) { rs[1].Memory.Memory.CreatedAt = at.Add(1) }},
		{"the seq", "memories", func(rs []Record) { rs[1].Memory.Seq = 2 }},
		{"one bit of the vector", "memories", func(rs []Record) { rs[1].Memory.Memory.Embedding[1] = float32(math.Copysign(0, -1)) }},
		{"the text", "memories", func(rs []Record) { rs[1].Memory.Memory.Text = "t " }},
		{"text moved between fields", "memories", func(rs []Record) {
			m := &rs[1].Memory.Memory
			m.Text, m.Domain = "", "t" // length prefixes keep fields apart
		}},
		{"revoked", "memories", func(rs []Record) { rs[1].Memory.Memory.Revoked = true }},
		{"an expiry at 1970", "memories", func(rs []Record) { rs[1].Memory.Memory.ExpiresAt = time.Unix(0, 0) }},
		{"an audience", "memories", func(rs []Record) { rs[1].Memory.Memory.Audience = []string{""} }},
		{"the tombstone's reason", "tombstones", func(rs []Record) { rs[2].Tombstone.Reason = "x" }},
		{"the payload", "events", func(rs []Record) { rs[3].Event.Payload = json.RawMessage(`{ }`) }},
		{"the identity", "identity", func(rs []Record) { rs[0].Identity.Dim = 3 }},
	}
	for _, c := range changes {
		rs := base()
		c.change(rs)
		got := sum(t, rs...)
		diff := got.Diff(ref)
		if got.SHA256 == ref.SHA256 || len(diff) != 1 || !strings.HasPrefix(diff[0], c.kind+":") {
			t.Errorf("%s: checksum %s (was %s), differences %v; want exactly %s to differ", c.name, got.SHA256, ref.SHA256, diff, c.kind)
		}
	}
	// A summary taken part-way leaves the digest going.
	var part Digest
	for _, r := range base() {
		if err := part.Add(&r); err != nil {
			t.Fatalf("Add(%s): %v", r, err)
		}
		part.Summary()
	}
	if got := part.Summary(); got.SHA256 != ref.SHA256 {
		t.Errorf("summaries taken part-way changed the digest: %v", got.Diff(ref))
	}
	// An empty dump has a checksum of its own, and no differences with
	// another empty one.
	var d Digest
	if e := d.Summary(); e.Records != 0 || e.SHA256 == ref.SHA256 || e.Diff(sum(t)) != nil {
		t.Errorf("empty summary %+v", e)
	}
}

// ReviewLinks links each example to the first reviewed item with the same
// memory, query, context and verdict time not linked yet, and leaves one
// that matches none unlinked.
func TestReviewLinks(t *testing.T) {
	ctx := json.RawMessage(`{"task":"t1"}`)
	item := func(seq int64, user, status string, verdict time.Time) *audit.QuarantineItem {
		return &audit.QuarantineItem{Seq: seq, MemoryID: "m1", UserID: user, Query: "q", Context: ctx, Status: status, VerdictAt: verdict}
	}
	var l ReviewLinks
	l.Item(item(1, "ana", audit.Approved, at))
	l.Item(item(2, "zoe", audit.Pending, time.Time{}))
	l.Item(item(3, "ben", audit.Rejected, at)) // same memory, query, context and time as item 1
	l.Item(item(4, "cid", audit.Approved, at.Add(time.Second)))
	ex := func(at time.Time) *Example {
		return &Example{Example: audit.Example{MemoryID: "m1", Query: "q", Context: ctx, Label: "admit", Source: "reviewer", At: at}}
	}
	for i, want := range []struct {
		at   time.Time
		item int64
		user string
	}{{at.Add(time.Second), 4, "cid"}, {at, 1, "ana"}, {at, 3, "ben"}, {at, 0, ""}, {at.Add(time.Hour), 0, ""}} {
		e := ex(want.at)
		l.Link(e)
		if e.ReviewItem != want.item || e.UserID != want.user {
			t.Errorf("example %d: linked to item %d of %q, want %d of %q", i, e.ReviewItem, e.UserID, want.item, want.user)
		}
	}
}

type sliceDumper []Record

func (s sliceDumper) Dump(ctx context.Context, fn func(Record) error) error {
	for _, r := range s {
		if err := fn(r); err != nil {
			return err
		}
	}
	return nil
}

type failingDumper struct{ err error }

func (f failingDumper) Dump(ctx context.Context, fn func(Record) error) error {
	if err := fn(memRec(1, "a")); err != nil {
		return err
	}
	return f.err
}

// Records yields a dump's records and then its error; breaking out of the
// loop stops the dump. Tee digests what goes by and stops at a record out
// of order.
func TestRecordsAndTee(t *testing.T) {
	ctx := context.Background()
	n := 0
	for _, err := range Records(ctx, sliceDumper{memRec(1, "a"), memRec(2, "b"), memRec(3, "c")}) {
		if err != nil {
			t.Fatal(err)
		}
		if n++; n == 2 {
			break
		}
	}
	if n != 2 {
		t.Errorf("%d records before the break, want 2", n)
	}
	boom := errors.New("boom")
	var errs []error
	for _, err := range Records(ctx, failingDumper{boom}) {
		errs = append(errs, err)
	}
	if len(errs) != 2 || errs[0] != nil || !errors.Is(errs[1], boom) {
		t.Errorf("Records of a failing dump yielded errors %v, want nil then boom", errs)
	}
	var d Digest
	var got []error
	for _, err := range Tee(Records(ctx, sliceDumper{memRec(2, "a"), memRec(1, "b"), memRec(3, "c")}), &d) {
		got = append(got, err)
	}
	if len(got) != 2 || got[0] != nil || got[1] == nil {
		t.Errorf("Tee over records out of order yielded %v, want nil then an error, then nothing", got)
	}
	if s := d.Summary(); s.Count(RecordMemory) != 1 {
		t.Errorf("Tee digested %d memories, want the 1 before the error", s.Count(RecordMemory))
	}
}
