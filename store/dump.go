package store

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"hash"
	"iter"
	"math"
	"strings"
	"time"

	"github.com/memgate/memgate/audit"
	"github.com/memgate/memgate/embed"
	"github.com/memgate/memgate/memory"
)

// CallbackError carries an error of a Dump callback through the layers
// that wrap a store's own errors, so that Dump returns it as the callback
// did.
type CallbackError struct{ Err error }

// Error is the callback's error's.
func (e CallbackError) Error() string { return e.Err.Error() }

// A logical dump is a store's whole content as a stream of typed records,
// the same whatever the backend: what `memgate migrate` copies from one
// store to another (SQLite to PostgreSQL, PostgreSQL to SQLite, or a file
// to a new file as a backup), and what its checksum covers. A backend that
// can be copied implements Dumper and Restorer; both are optional, beside
// the Store contract.
//
// The records come in a canonical order, kind by kind, in the order of the
// RecordKind constants:
//
//   - the embedder identity, if the store records one (one record);
//   - memories, in insertion order (by sequence number), each with its
//     vector and revocation state but without its relations;
//   - tombstones of forgotten memories, by id;
//   - lineage links, then supersession links, by memory id and then the
//     id linked to;
//   - audit events, by sequence number;
//   - review items (the quarantine queue) with their verdicts, by sequence
//     number;
//   - labelled examples, oldest first;
//   - API keys (the hashes of their secrets, as stored), oldest first.
//
// Ids, sequence numbers, times (to the nanosecond) and the bytes of every
// text and payload are kept exactly. Ids are compared as bytes, as Go, SQLite
// and PostgreSQL's "C" collation compare them. A candidate index is not part
// of a dump: it is rebuilt from the store.

// Dumper is implemented by stores that can stream their whole content as a
// logical dump.
type Dumper interface {
	// Dump calls fn with every record of the store, in the canonical
	// order, from one consistent snapshot, stopping at fn's first error
	// and returning it as is. fn may keep the records it is given. Writes
	// made while Dump runs are not in the dump (and may wait for it).
	Dump(ctx context.Context, fn func(Record) error) error
}

// Restorer is implemented by stores that can be filled from a logical dump.
type Restorer interface {
	// Restore writes records, which must come in the canonical order,
	// into the store, which must be empty: a store that holds anything
	// (a memory, a tombstone, an event, a key, an embedder identity) is
	// refused with an error wrapping ErrNotEmpty, and nothing is written.
	// It is atomic: on any error (a record out of order or malformed, an
	// error from records, the database failing) nothing is written.
	// Sequence numbers are kept, and later writes get numbers after the
	// restored ones.
	Restore(ctx context.Context, records iter.Seq2[Record, error]) error
}

// ErrNotEmpty is wrapped by Restore's error when the store it is asked to
// fill holds something already: a restore never merges into a store.
var ErrNotEmpty = errors.New("the store is not empty")

// RecordKind says what a Record holds. The kinds' order is the order in
// which a dump streams them.
type RecordKind uint8

// The kinds of record, in dump order.
const (
	// RecordIdentity: the embedder identity of the store's vectors.
	RecordIdentity RecordKind = iota + 1
	// RecordMemory: a stored memory with its sequence number and vector.
	RecordMemory
	// RecordTombstone: a forgotten memory's tombstone.
	RecordTombstone
	// RecordLineage: a memory was derived from another (Link).
	RecordLineage
	// RecordSupersession: a memory replaces another (Link).
	RecordSupersession
	// RecordEvent: an audit event with its sequence number.
	RecordEvent
	// RecordReviewItem: a review item of the quarantine queue, with its
	// verdict if it has one.
	RecordReviewItem
	// RecordExample: a labelled example made by a verdict.
	RecordExample
	// RecordKey: an API key, as stored (the hash of its secret).
	RecordKey
)

// RecordKinds lists every kind, in dump order.
var RecordKinds = []RecordKind{RecordIdentity, RecordMemory, RecordTombstone, RecordLineage, RecordSupersession,
	RecordEvent, RecordReviewItem, RecordExample, RecordKey}

var kindNames = [...]string{RecordIdentity: "identity", RecordMemory: "memories", RecordTombstone: "tombstones",
	RecordLineage: "lineage", RecordSupersession: "supersessions", RecordEvent: "events",
	RecordReviewItem: "reviewItems", RecordExample: "examples", RecordKey: "keys"}

// String names the kind as counts and messages show it ("memories",
// "events", …).
func (k RecordKind) String() string {
	if k >= RecordIdentity && k <= RecordKey {
		return kindNames[k]
	}
	return fmt.Sprintf("RecordKind(%d)", uint8(k))
}

// Record is one record of a dump: Kind says which one field is set.
type Record struct {
	Kind      RecordKind
	Identity  *embed.Identity       // RecordIdentity
	Memory    *StoredMemory         // RecordMemory
	Tombstone *memory.Tombstone     // RecordTombstone
	Link      *Link                 // RecordLineage, RecordSupersession
	Event     *audit.Event          // RecordEvent
	Item      *audit.QuarantineItem // RecordReviewItem
	Example   *Example              // RecordExample
	Key       *Key                  // RecordKey
}

// StoredMemory is a memory as a store keeps it: its insertion sequence
// number (List's cursor) and the memory with its embedding. Its relations
// (LineageRefs, Supersedes, SupersededBy) are empty: links are records of
// their own.
type StoredMemory struct {
	Seq    int64
	Memory memory.Memory
}

// Link is a lineage or supersession link: MemoryID, a stored memory, was
// derived from Ref (lineage), or replaces Ref (supersession). Ref may name a
// forgotten memory.
type Link struct {
	MemoryID string
	Ref      string
}

// Example is a labelled example with what links it to its review item: the
// item's sequence number and user. A backend that does not keep those links
// recovers them from the review items (ReviewLinks); 0 and "" when none
// matches.
type Example struct {
	audit.Example
	UserID     string
	ReviewItem int64
}

// Key is an API key as a store keeps it: never the secret, only its hash,
// and the principal as the JSON the store holds, byte for byte.
type Key struct {
	ID        string
	Hash      []byte
	Principal json.RawMessage
	CreatedAt time.Time
	RevokedAt time.Time // zero if the key is not revoked
}

// Check reports what is wrong with r by itself, such as a missing payload
// or a missing id, so that a restore refuses it before writing it. Order
// across records is Sequence's job.
func (r *Record) Check() error {
	missing := func(field string) error {
		return fmt.Errorf("%s record: %s is missing", r.Kind, field)
	}
	set := 0
	for _, p := range []bool{r.Identity != nil, r.Memory != nil, r.Tombstone != nil, r.Link != nil, r.Event != nil,
		r.Item != nil, r.Example != nil, r.Key != nil} {
		if p {
			set++
		}
	}
	if set != 1 {
		return fmt.Errorf("%s record: %d payloads set, want 1", r.Kind, set)
	}
	switch r.Kind {
	case RecordIdentity:
		if r.Identity == nil {
			return missing("identity")
		}
		if r.Identity.Name == "" || r.Identity.Dim <= 0 {
			return fmt.Errorf("identity record: invalid embedder identity %+v", *r.Identity)
		}
	case RecordMemory:
		m := r.Memory
		switch {
		case m == nil:
			return missing("memory")
		case m.Seq <= 0:
			return fmt.Errorf("memory record %q: seq %d, want a positive number", m.Memory.ID, m.Seq)
		case m.Memory.ID == "":
			return missing("id")
		case m.Memory.UserID == "":
			return fmt.Errorf("memory record %q: userId is missing", m.Memory.ID)
		case m.Memory.CreatedAt.IsZero():
			return fmt.Errorf("memory record %q: createdAt is missing", m.Memory.ID)
		case len(m.Memory.Embedding) == 0:
			return fmt.Errorf("memory record %q: embedding is missing", m.Memory.ID)
		case len(m.Memory.LineageRefs)+len(m.Memory.Supersedes)+len(m.Memory.SupersededBy) > 0:
			return fmt.Errorf("memory record %q: carries relations; links are records of their own", m.Memory.ID)
		}
	case RecordTombstone:
		t := r.Tombstone
		switch {
		case t == nil:
			return missing("tombstone")
		case t.ID == "":
			return missing("id")
		case t.UserID == "":
			return fmt.Errorf("tombstone record %q: userId is missing", t.ID)
		case t.ForgottenAt.IsZero():
			return fmt.Errorf("tombstone record %q: forgottenAt is missing", t.ID)
		}
	case RecordLineage, RecordSupersession:
		switch {
		case r.Link == nil:
			return missing("link")
		case r.Link.MemoryID == "" || r.Link.Ref == "":
			return fmt.Errorf("%s record: link %q → %q names no memory", r.Kind, r.Link.MemoryID, r.Link.Ref)
		}
	case RecordEvent:
		e := r.Event
		switch {
		case e == nil:
			return missing("event")
		case e.Seq <= 0:
			return fmt.Errorf("event record: seq %d, want a positive number", e.Seq)
		case e.Kind == "":
			return fmt.Errorf("event record %d: kind is missing", e.Seq)
		case e.At.IsZero():
			return fmt.Errorf("event record %d: at is missing", e.Seq)
		}
	case RecordReviewItem:
		it := r.Item
		switch {
		case it == nil:
			return missing("review item")
		case it.Seq <= 0:
			return fmt.Errorf("review item record: seq %d, want a positive number", it.Seq)
		case it.MemoryID == "" || it.UserID == "":
			return fmt.Errorf("review item record %d: memoryId and userId are required", it.Seq)
		case it.At.IsZero():
			return fmt.Errorf("review item record %d: at is missing", it.Seq)
		case it.Status != audit.Pending && it.Status != audit.Approved && it.Status != audit.Rejected:
			return fmt.Errorf("review item record %d: status %q, want %s, %s or %s", it.Seq, it.Status,
				audit.Pending, audit.Approved, audit.Rejected)
		}
	case RecordExample:
		e := r.Example
		switch {
		case e == nil:
			return missing("example")
		case e.MemoryID == "" || e.Label == "" || e.Source == "":
			return fmt.Errorf("example record: memoryId, label and source are required")
		case e.At.IsZero():
			return fmt.Errorf("example record for %q: at is missing", e.MemoryID)
		}
	case RecordKey:
		k := r.Key
		switch {
		case k == nil:
			return missing("key")
		case k.ID == "":
			return missing("id")
		case len(k.Hash) == 0 || len(k.Principal) == 0:
			return fmt.Errorf("key record %q: hash and principal are required", k.ID)
		case k.CreatedAt.IsZero():
			return fmt.Errorf("key record %q: createdAt is missing", k.ID)
		}
	default:
		return fmt.Errorf("record of unknown kind %d", uint8(r.Kind))
	}
	return nil
}

// Sequence checks that records come in a dump's canonical order: kinds in
// RecordKinds' order, at most one identity, and within a kind strictly
// increasing sequence numbers (memories, events, review items), ids
// (tombstones) or (memory id, ref) pairs (links). Each record is also
// Checked. The zero value is ready to use.
type Sequence struct {
	kind RecordKind
	seq  int64
	a, b string
	n    int64 // records of the current kind so far
}

// Next checks r, which follows the records Next was given before.
func (q *Sequence) Next(r *Record) error {
	if err := r.Check(); err != nil {
		return err
	}
	if r.Kind < q.kind {
		return fmt.Errorf("%s record after %s records: a dump streams %s first", r.Kind, q.kind, r.Kind)
	}
	if r.Kind != q.kind {
		q.kind, q.seq, q.a, q.b, q.n = r.Kind, 0, "", "", 0
	}
	q.n++
	outOfOrder := func(what string) error {
		return fmt.Errorf("%s record %d: %s is not after the previous one's", r.Kind, q.n, what)
	}
	switch r.Kind {
	case RecordIdentity:
		if q.n > 1 {
			return errors.New("identity record: more than one")
		}
	case RecordMemory, RecordEvent, RecordReviewItem:
		var seq int64
		switch r.Kind {
		case RecordMemory:
			seq = r.Memory.Seq
		case RecordEvent:
			seq = r.Event.Seq
		default:
			seq = r.Item.Seq
		}
		if seq <= q.seq {
			return outOfOrder(fmt.Sprintf("seq %d", seq))
		}
		q.seq = seq
	case RecordTombstone:
		if q.n > 1 && r.Tombstone.ID <= q.a {
			return outOfOrder(fmt.Sprintf("id %q", r.Tombstone.ID))
		}
		q.a = r.Tombstone.ID
	case RecordLineage, RecordSupersession:
		l := r.Link
		if q.n > 1 && (l.MemoryID < q.a || l.MemoryID == q.a && l.Ref <= q.b) {
			return outOfOrder(fmt.Sprintf("link %q → %q", l.MemoryID, l.Ref))
		}
		q.a, q.b = l.MemoryID, l.Ref
	}
	return nil
}

// ReviewLinks recovers the review item, and so the user, that each
// labelled example came from, for a backend that keeps examples without
// them (store/sqlite, store/mem): an example is linked to the first
// reviewed item, in sequence order and not yet linked, with its memory,
// query and context whose verdict was given at the example's time (a
// verdict writes both at once). The zero value is ready to use.
type ReviewLinks struct {
	items map[reviewKey][]reviewRef
}

type reviewKey struct {
	memoryID, query, context string
	at                       int64
}

type reviewRef struct {
	seq    int64
	userID string
}

// nanos is t in nanoseconds since 1970, 0 for the zero time.
func nanos(t time.Time) int64 {
	if t.IsZero() {
		return 0
	}
	return t.UnixNano()
}

// Item registers a review item; items must come in sequence order. Pending
// items, which made no example, are ignored.
func (l *ReviewLinks) Item(it *audit.QuarantineItem) {
	if it.Status == audit.Pending {
		return
	}
	if l.items == nil {
		l.items = map[reviewKey][]reviewRef{}
	}
	k := reviewKey{it.MemoryID, it.Query, string(it.Context), nanos(it.VerdictAt)}
	l.items[k] = append(l.items[k], reviewRef{it.Seq, it.UserID})
}

// Link sets e's ReviewItem and UserID from the item it came from, if one
// matches.
func (l *ReviewLinks) Link(e *Example) {
	k := reviewKey{e.MemoryID, e.Query, string(e.Context), nanos(e.At)}
	refs := l.items[k]
	if len(refs) == 0 {
		return
	}
	e.ReviewItem, e.UserID = refs[0].seq, refs[0].userID
	l.items[k] = refs[1:]
}

// Records is d's dump as an iterator, for Restore: it yields d's records,
// then, if Dump fails, a last pair with the error. Breaking out of the
// loop stops the dump.
func Records(ctx context.Context, d Dumper) iter.Seq2[Record, error] {
	return func(yield func(Record, error) bool) {
		stopped := false
		err := d.Dump(ctx, func(r Record) error {
			if !yield(r, nil) {
				stopped = true
				return errStopped
			}
			return nil
		})
		if err != nil && !stopped {
			yield(Record{}, err)
		}
	}
}

// errStopped ends a dump whose consumer stopped reading.
var errStopped = errors.New("dump: the reader stopped")

// Tee yields records and adds each to digest on the way; a record the
// digest refuses (out of order, malformed) ends the sequence with the
// digest's error.
func Tee(records iter.Seq2[Record, error], digest *Digest) iter.Seq2[Record, error] {
	return func(yield func(Record, error) bool) {
		for r, err := range records {
			if err == nil {
				err = digest.Add(&r)
			}
			if !yield(r, err) || err != nil {
				return
			}
		}
	}
}

// Copy restores from's whole dump into to, which must be empty, and returns
// the summary of what it copied. from's dump is read once, while to is
// written.
func Copy(ctx context.Context, from Dumper, to Restorer) (Summary, error) {
	var d Digest
	if err := to.Restore(ctx, Tee(Records(ctx, from), &d)); err != nil {
		return Summary{}, err
	}
	return d.Summary(), nil
}

// Checksum reads d's whole dump and returns its summary.
func Checksum(ctx context.Context, d Dumper) (Summary, error) {
	var dg Digest
	err := d.Dump(ctx, func(r Record) error { return dg.Add(&r) })
	if err != nil {
		return Summary{}, err
	}
	return dg.Summary(), nil
}

// Digest computes a dump's checksum and counts: SHA-256 over a canonical
// binary encoding of each kind's records (every field, in a fixed order,
// with lengths before contents, times as nanoseconds and vectors as the
// bits of their floats), and SHA-256 over the kinds' counts and checksums
// for the whole dump. Two stores with equal summaries hold the same
// content, whatever their backends. It checks the records' order as
// Sequence does. The zero value is ready to use.
type Digest struct {
	seq    Sequence
	cur    RecordKind
	h      hash.Hash
	counts [RecordKey + 1]int64
	sums   [RecordKey + 1][]byte
	buf    []byte
}

// Add adds r, which follows the records Add was given before, to the
// digest.
func (d *Digest) Add(r *Record) error {
	if err := d.seq.Next(r); err != nil {
		return err
	}
	if r.Kind != d.cur {
		d.finish()
		d.cur, d.h = r.Kind, sha256.New()
	}
	d.counts[r.Kind]++
	d.buf = encodeRecord(d.buf[:0], r)
	d.h.Write(d.buf)
	return nil
}

// finish closes the current kind's hash.
func (d *Digest) finish() {
	if d.h != nil {
		d.sums[d.cur] = d.h.Sum(nil)
		d.h = nil
	}
}

// Summary returns the counts and checksums of the records added so far; more
// may be added afterwards.
func (d *Digest) Summary() Summary {
	s := Summary{Kinds: make([]KindSummary, 0, len(RecordKinds))}
	all := sha256.New()
	all.Write([]byte("memgate dump v1\n"))
	for _, k := range RecordKinds {
		sum := d.sums[k]
		if k == d.cur && d.h != nil {
			sum = d.h.Sum(nil) // leaves the hash as it was
		}
		if sum == nil {
			sum = emptySum[:]
		}
		ks := KindSummary{Kind: k.String(), Count: d.counts[k], SHA256: hex.EncodeToString(sum)}
		s.Kinds = append(s.Kinds, ks)
		fmt.Fprintf(all, "%s %d %s\n", ks.Kind, ks.Count, ks.SHA256)
		s.Records += ks.Count
	}
	s.SHA256 = hex.EncodeToString(all.Sum(nil))
	return s
}

var emptySum = sha256.Sum256(nil)

// Summary is what a Digest computed: the number of records and the
// checksum of each kind, and the checksum of the whole dump.
type Summary struct {
	Kinds   []KindSummary `json:"kinds"`
	Records int64         `json:"records"`
	SHA256  string        `json:"sha256"`
}

// KindSummary is the count and checksum of one kind's records.
type KindSummary struct {
	Kind   string `json:"kind"`
	Count  int64  `json:"count"`
	SHA256 string `json:"sha256"`
}

// Count returns the number of records of kind k.
func (s Summary) Count(k RecordKind) int64 {
	for _, ks := range s.Kinds {
		if ks.Kind == k.String() {
			return ks.Count
		}
	}
	return 0
}

// Diff lists how s and o differ, one line per kind whose count or checksum
// differs ("memories: 5 records, sha256 1f2e… vs 5 records, sha256 9a8b…");
// nil if they are the same.
func (s Summary) Diff(o Summary) []string {
	var out []string
	for i := range max(len(s.Kinds), len(o.Kinds)) {
		var a, b KindSummary
		if i < len(s.Kinds) {
			a = s.Kinds[i]
		}
		if i < len(o.Kinds) {
			b = o.Kinds[i]
		}
		if a != b {
			name := a.Kind
			if name == "" {
				name = b.Kind
			}
			out = append(out, fmt.Sprintf("%s: %d records, sha256 %.12s… vs %d records, sha256 %.12s…",
				name, a.Count, a.SHA256, b.Count, b.SHA256))
		}
	}
	if len(out) == 0 && s.SHA256 != o.SHA256 {
		out = append(out, fmt.Sprintf("sha256 %s vs %s", s.SHA256, o.SHA256))
	}
	return out
}

// encodeRecord appends r's canonical encoding to b.
func encodeRecord(b []byte, r *Record) []byte {
	b = append(b, byte(r.Kind))
	switch r.Kind {
	case RecordIdentity:
		b = putString(b, r.Identity.Name)
		b = putInt(b, int64(r.Identity.Dim))
	case RecordMemory:
		m := &r.Memory.Memory
		b = putInt(b, r.Memory.Seq)
		for _, s := range []string{m.ID, m.UserID, m.WorkspaceID, m.ProjectID, m.Domain, m.Text,
			string(m.SourceAuthority), string(m.Kind), string(m.Classification)} {
			b = putString(b, s)
		}
		b = putTime(b, m.CreatedAt)
		b = putTime(b, m.ExpiresAt)
		b = putBool(b, m.Revoked)
		b = putTime(b, m.RevokedAt)
		b = putString(b, m.RevokedReason)
		b = binary.AppendUvarint(b, uint64(len(m.Audience)))
		for _, a := range m.Audience {
			b = putString(b, a)
		}
		b = binary.AppendUvarint(b, uint64(len(m.Embedding)))
		for _, x := range m.Embedding {
			b = binary.LittleEndian.AppendUint32(b, math.Float32bits(x))
		}
	case RecordTombstone:
		t := r.Tombstone
		b = putString(b, t.ID)
		b = putString(b, t.UserID)
		b = putTime(b, t.ForgottenAt)
		b = putString(b, t.Reason)
	case RecordLineage, RecordSupersession:
		b = putString(b, r.Link.MemoryID)
		b = putString(b, r.Link.Ref)
	case RecordEvent:
		e := r.Event
		b = putInt(b, e.Seq)
		b = putString(b, string(e.Kind))
		b = putTime(b, e.At)
		b = putString(b, e.TaskID)
		b = putString(b, e.UserID)
		b = putString(b, e.PrincipalID)
		b = putInt(b, e.SearchID)
		b = putString(b, e.MemoryID)
		b = putString(b, e.Decision)
		b = putBytes(b, e.Payload)
	case RecordReviewItem:
		it := r.Item
		b = putInt(b, it.Seq)
		b = putString(b, it.MemoryID)
		b = putString(b, it.UserID)
		b = putString(b, it.TaskID)
		b = putInt(b, it.SearchID)
		b = putTime(b, it.At)
		b = putString(b, it.Query)
		b = putBytes(b, it.Context)
		b = putBytes(b, it.Reasons)
		b = putString(b, it.Status)
		b = putString(b, it.Reviewer)
		b = putTime(b, it.VerdictAt)
		b = putString(b, it.Note)
	case RecordExample:
		e := r.Example
		b = putString(b, e.UserID)
		b = putInt(b, e.ReviewItem)
		b = putString(b, e.MemoryID)
		b = putString(b, e.Query)
		b = putBytes(b, e.Context)
		b = putString(b, e.Label)
		b = putString(b, e.Source)
		b = putTime(b, e.At)
	case RecordKey:
		k := r.Key
		b = putString(b, k.ID)
		b = putBytes(b, k.Hash)
		b = putBytes(b, k.Principal)
		b = putTime(b, k.CreatedAt)
		b = putTime(b, k.RevokedAt)
	}
	return b
}

func putString(b []byte, s string) []byte {
	b = binary.AppendUvarint(b, uint64(len(s)))
	return append(b, s...)
}

func putBytes(b, s []byte) []byte {
	b = binary.AppendUvarint(b, uint64(len(s)))
	return append(b, s...)
}

func putInt(b []byte, n int64) []byte { return binary.BigEndian.AppendUint64(b, uint64(n)) }

func putBool(b []byte, v bool) []byte {
	if v {
		return append(b, 1)
	}
	return append(b, 0)
}

// putTime encodes a zero time (absent) as 0 and any other as 1 and its
// nanoseconds since 1970.
func putTime(b []byte, t time.Time) []byte {
	if t.IsZero() {
		return append(b, 0)
	}
	return putInt(append(b, 1), t.UnixNano())
}

// SameRecord reports whether a and b have the same canonical encoding (the
// bytes their kind's checksum covers), for tests that compare dumps record
// by record.
func SameRecord(a, b *Record) bool { return bytes.Equal(encodeRecord(nil, a), encodeRecord(nil, b)) }

// describeRecord names r for messages: its kind and its id or number.
func describeRecord(r *Record) string {
	switch {
	case r.Memory != nil:
		return fmt.Sprintf("memory %q (seq %d)", r.Memory.Memory.ID, r.Memory.Seq)
	case r.Tombstone != nil:
		return fmt.Sprintf("tombstone %q", r.Tombstone.ID)
	case r.Link != nil:
		return fmt.Sprintf("%s link %q → %q", r.Kind, r.Link.MemoryID, r.Link.Ref)
	case r.Event != nil:
		return fmt.Sprintf("event %d", r.Event.Seq)
	case r.Item != nil:
		return fmt.Sprintf("review item %d", r.Item.Seq)
	case r.Example != nil:
		return fmt.Sprintf("example for %q", r.Example.MemoryID)
	case r.Key != nil:
		return fmt.Sprintf("key %q", r.Key.ID)
	case r.Identity != nil:
		return "identity " + r.Identity.String()
	}
	return r.Kind.String() + " record"
}

// String names the record for messages: its kind and its id or number,
// never its content.
func (r Record) String() string { return describeRecord(&r) }

// NotEmptyError returns the error a restore gives a store that holds
// something: it wraps ErrNotEmpty and names what the store holds (table or
// kind names).
func NotEmptyError(holds []string) error {
	return fmt.Errorf("%w: it holds %s; restore only into a new store", ErrNotEmpty, strings.Join(holds, ", "))
}
