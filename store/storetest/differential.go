package storetest

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"reflect"
	"slices"
	"testing"
	"time"

	"github.com/memgate/memgate/audit"
	"github.com/memgate/memgate/embed"
	"github.com/memgate/memgate/memory"
	"github.com/memgate/memgate/retrieve"
	"github.com/memgate/memgate/store"
)

// Differential runs the same random operations on a reference store
// (store/mem, usually) and a candidate and fails at the first answer or
// error that differs, word for word, so that an evaluation gives the same
// results on either: store/sqlite and every other backend are held to
// store/mem's answers this way. Two differences are allowed: List's cursors
// are opaque, so each store pages with its own and the pages must agree, and
// the candidate's Stats may add a schema version and a size on disk.
func Differential(t *testing.T, reference, candidate Factory) {
	seeds, ops := uint64(3), 200
	if testing.Short() {
		seeds = 1
	}
	for seed := range seeds {
		t.Run(fmt.Sprint("seed", seed), func(t *testing.T) {
			d := &differ{t: t, ctx: t.Context(), mem: reference(t), cand: candidate(t),
				rng: rand.New(rand.NewPCG(seed, 0x6d656d67617465)), owner: map[string]string{}, gone: map[string]bool{}}
			for op := range ops {
				d.step(op)
				if op%10 == 9 {
					d.compareReads(op)
				}
			}
			d.compareReads(-1)
		})
	}
}

// differ runs each operation on both stores and compares the answers.
type differ struct {
	t         *testing.T
	ctx       context.Context
	mem, cand store.Store
	rng       *rand.Rand
	ids       []string          // every id used so far, stored or not
	owner     map[string]string // the stored and forgotten ids, by owner
	gone      map[string]bool   // the forgotten ids
	next      int
}

var diffUsers = []string{"u1", "u2", "u3"}

func pick[T any](r *rand.Rand, xs []T) T { return xs[r.IntN(len(xs))] }

// same fails the test unless the two errors are equal, word for word and
// for errors.Is, and so are the two answers when there is no error.
func (d *differ) same(what string, m, s any, merr, serr error) {
	d.t.Helper()
	if (merr == nil) != (serr == nil) || (merr != nil && merr.Error() != serr.Error()) {
		d.t.Fatalf("%s: errors differ:\n reference %v\n candidate %v", what, merr, serr)
	}
	for _, target := range []error{store.ErrNotFound, store.ErrConflict, store.ErrAlreadyReviewed, store.ErrReadOnly} {
		if errors.Is(merr, target) != errors.Is(serr, target) {
			d.t.Fatalf("%s: only one error is %v:\n reference %v\n candidate %v", what, target, merr, serr)
		}
	}
	// What comes with an error is not an answer (store/sqlite's Review
	// returns the part of the item it read), so only answers are compared.
	if merr == nil && !reflect.DeepEqual(m, s) {
		d.t.Fatalf("%s: answers differ:\n reference %#v\n candidate %#v", what, m, s)
	}
}

func (d *differ) at() time.Time {
	return time.Date(2026, 5, 1, 9, 0, 0, 0, time.UTC).Add(time.Duration(d.rng.Int64N(int64(72 * time.Hour))))
}

func (d *differ) vector() []float32 {
	v := make([]float32, Dim)
	for i := range v {
		v[i] = float32(d.rng.NormFloat64())
	}
	embed.Normalize(v)
	return v
}

func (d *differ) freshID() string {
	id := fmt.Sprintf("m%03d", d.next)
	d.next++
	d.ids = append(d.ids, id)
	return id
}

// anyID is an id used before, now and then one never used.
func (d *differ) anyID() string {
	if len(d.ids) == 0 || d.rng.IntN(12) == 0 {
		return "nowhere"
	}
	return pick(d.rng, d.ids)
}

// userID is an id of user's, stored (or, if gone, forgotten), mostly; now
// and then any id.
func (d *differ) userID(user string, gone bool) string {
	var own []string
	for _, id := range d.ids {
		if d.owner[id] == user && d.gone[id] == gone {
			own = append(own, id)
		}
	}
	if len(own) == 0 || d.rng.IntN(8) == 0 {
		return d.anyID()
	}
	return pick(d.rng, own)
}

// refs are up to n references for a memory of user: mostly to the user's
// memories, stored, forgotten or in the batch.
func (d *differ) refs(self, user string, batch []string, n int) []string {
	var out []string
	for range n {
		ref := d.userID(user, d.rng.IntN(6) == 0)
		if len(batch) > 0 && d.rng.IntN(3) == 0 {
			ref = pick(d.rng, batch)
		}
		if ref != self && !slices.Contains(out, ref) {
			out = append(out, ref)
		}
	}
	return out
}

func (d *differ) memory(batch []string) memory.Memory {
	r := d.rng
	var id string
	switch x := r.IntN(20); {
	case x < 17 || len(d.ids) == 0:
		id = d.freshID()
	case x < 19:
		id = pick(r, d.ids) // taken, or used in a refused batch
	default:
		id = "m000"
		if len(batch) > 0 {
			id = pick(r, batch) // a repeat
		}
	}
	user := pick(r, diffUsers)
	if o, ok := d.owner[id]; ok && r.IntN(2) == 0 {
		user = o
	}
	m := memory.Memory{ID: id, UserID: user, Text: fmt.Sprintf("note %s, %d", id, r.IntN(1000)),
		CreatedAt: d.at(), Embedding: d.vector()}
	m.SourceAuthority = pick(r, append([]memory.Authority{""}, memory.Authorities...))
	m.Kind = pick(r, append([]memory.Kind{""}, memory.Kinds...))
	if r.IntN(40) == 0 {
		m.Kind = "opinion"
	}
	if r.IntN(3) == 0 {
		m.WorkspaceID = pick(r, []string{"ws1", "ws2"})
	}
	if r.IntN(4) == 0 {
		m.ExpiresAt = m.CreatedAt.Add(time.Duration(1+r.IntN(48)) * time.Hour)
	}
	if r.IntN(8) == 0 {
		m.Revoked, m.RevokedAt, m.RevokedReason = true, m.CreatedAt.Add(time.Minute), pick(r, []string{"", "stale"})
	}
	switch r.IntN(10) {
	case 0:
		m.Audience = []string{"role:family", "p1"}[:1+r.IntN(2)]
	case 1:
		m.Audience = []string{} // empty, not nil: read back as none
	}
	if r.IntN(60) == 0 {
		m.Embedding = nil
	}
	m.LineageRefs = d.refs(id, user, batch, r.IntN(3))
	if m.LineageRefs == nil && r.IntN(4) == 0 {
		m.LineageRefs = []string{}
	}
	if r.IntN(4) == 0 {
		m.Supersedes = d.refs(id, user, batch, 1+r.IntN(2))
	}
	return m
}

func (d *differ) batch() []memory.Memory {
	var ms []memory.Memory
	var ids []string
	for range 1 + d.rng.IntN(3) {
		m := d.memory(ids)
		ms, ids = append(ms, m), append(ids, m.ID)
	}
	return ms
}

func (d *differ) admission() *audit.Admission {
	r := d.rng
	user, task, at := pick(r, diffUsers), pick(r, []string{"t1", "t2"}), d.at()
	a := &audit.Admission{Search: audit.Event{Kind: audit.Search, At: at, TaskID: task, UserID: user,
		PrincipalID: "agent", SearchID: int64(r.IntN(2)), Payload: json.RawMessage(`{"query":"q"}`)}}
	for range r.IntN(4) {
		id := d.userID(user, false)
		a.Decisions = append(a.Decisions, audit.Event{Kind: audit.Decision, At: at, TaskID: task, UserID: user, MemoryID: id,
			SearchID: int64(r.IntN(3)), Decision: pick(r, []string{"admit", "quarantine", "exclude"}), Payload: json.RawMessage(`{"reasons":[]}`)})
		if r.IntN(2) == 0 {
			a.Quarantine = append(a.Quarantine, audit.QuarantineItem{MemoryID: id, UserID: user, TaskID: task, At: at,
				Query: pick(r, []string{"", "what"}), Context: json.RawMessage(`{"n":1}`), Reasons: json.RawMessage(`["low"]`)})
		}
	}
	switch r.IntN(10) {
	case 0:
		a.Quarantine = append(a.Quarantine, audit.QuarantineItem{MemoryID: "undecided", UserID: user})
	case 1:
		if len(a.Decisions) > 0 {
			a.Decisions[0].UserID = "someone-else"
		}
	}
	return a
}

func (d *differ) events() []audit.Event {
	var evs []audit.Event
	for range d.rng.IntN(4) {
		e := audit.Event{Kind: pick(d.rng, audit.Kinds), At: d.at(), TaskID: pick(d.rng, []string{"", "t1"}),
			UserID: pick(d.rng, diffUsers), MemoryID: d.anyID(), SearchID: int64(d.rng.IntN(3))}
		if d.rng.IntN(3) > 0 {
			e.Payload = json.RawMessage(`{"k":"v"}`)
		}
		evs = append(evs, e)
	}
	return evs
}

// step runs one random operation on both stores.
func (d *differ) step(op int) {
	r, ctx := d.rng, d.ctx
	what := func(format string, args ...any) string {
		return fmt.Sprintf("op %d: "+format, append([]any{op}, args...)...)
	}
	change := func() store.Change {
		return store.Change{Reason: pick(r, []string{"", "why"}), At: d.at(), PrincipalID: pick(r, []string{"", "op"})}
	}
	switch x := r.IntN(100); {
	case x < 30:
		ms := d.batch()
		onConflict := store.OnConflict(r.IntN(2))
		var mt, st []int
		mn, merr := d.mem.Insert(ctx, ms, onConflict, func(n int) { mt = append(mt, n) })
		sn, serr := d.cand.Insert(ctx, ms, onConflict, func(n int) { st = append(st, n) })
		d.same(what("Insert(%v, %v)", ms, onConflict), []any{mn, mt}, []any{sn, st}, merr, serr)
		if merr == nil {
			for _, m := range ms {
				if _, ok := d.owner[m.ID]; !ok {
					d.owner[m.ID] = m.UserID
				}
			}
		}
	case x < 38:
		ms := d.batch()
		onConflict := store.OnConflict(r.IntN(2))
		d.same(what("CheckBatch(%v)", ms), nil, nil, d.mem.CheckBatch(ctx, ms, onConflict), d.cand.CheckBatch(ctx, ms, onConflict))
	case x < 48:
		id, c := d.userID(pick(r, diffUsers), false), change()
		mm, merr := d.mem.Revoke(ctx, id, c)
		sm, serr := d.cand.Revoke(ctx, id, c)
		d.same(what("Revoke(%s)", id), mm, sm, merr, serr)
	case x < 54:
		id, c := d.userID(pick(r, diffUsers), r.IntN(8) == 0), change()
		mt, merr := d.mem.Forget(ctx, id, c)
		st, serr := d.cand.Forget(ctx, id, c)
		d.same(what("Forget(%s)", id), mt, st, merr, serr)
		if merr == nil {
			d.gone[id] = true
		}
	case x < 62:
		user := pick(r, diffUsers)
		newID := d.userID(user, false)
		olds := d.refs(newID, user, nil, r.IntN(3))
		if r.IntN(10) == 0 {
			olds = append(olds, newID)
		}
		d.same(what("Supersede(%s, %v)", newID, olds), nil, nil, d.mem.Supersede(ctx, newID, olds), d.cand.Supersede(ctx, newID, olds))
	case x < 77:
		a := d.admission()
		mseq, merr := d.mem.RecordAdmission(ctx, a)
		sseq, serr := d.cand.RecordAdmission(ctx, a)
		d.same(what("RecordAdmission(%+v)", a), mseq, sseq, merr, serr)
	case x < 85:
		evs := d.events()
		mseq, merr := d.mem.AppendEvents(ctx, evs)
		sseq, serr := d.cand.AppendEvents(ctx, evs)
		d.same(what("AppendEvents(%+v)", evs), mseq, sseq, merr, serr)
	case x < 95:
		items, _ := d.mem.Queue(ctx, audit.QueueFilter{})
		rv := audit.Review{Item: r.Int64N(int64(len(items)) + 2), Approve: r.IntN(2) == 0, Reviewer: pick(r, []string{"", "rev"}),
			Note: pick(r, []string{"", "note"}), At: d.at()}
		if r.IntN(20) == 0 {
			rv.At = time.Unix(0, 0)
		}
		mi, merr := d.mem.Review(ctx, rv)
		si, serr := d.cand.Review(ctx, rv)
		d.same(what("Review(%+v)", rv), mi, si, merr, serr)
	default:
		id := pick(r, []embed.Identity{{Name: "a", Dim: 4}, {Name: "b", Dim: 4}})
		d.same(what("SetIdentity(%v)", id), nil, nil, d.mem.SetIdentity(ctx, id), d.cand.SetIdentity(ctx, id))
	}
}

// compareReads compares everything the two stores can be asked.
func (d *differ) compareReads(op int) {
	ctx := d.ctx
	what := func(format string, args ...any) string {
		return fmt.Sprintf("after op %d: "+format, append([]any{op}, args...)...)
	}
	ids := append(slices.Clone(d.ids), "nowhere", d.ids[0])
	slices.Reverse(ids)
	for _, v := range []bool{false, true} {
		mm, merr := d.mem.Get(ctx, ids, v)
		sm, serr := d.cand.Get(ctx, ids, v)
		d.same(what("Get(vectors %v)", v), mm, sm, merr, serr)
	}
	for _, q := range []store.ListQuery{
		{}, {IncludeRevoked: true, WithVectors: true}, {Filter: memory.Filter{UserID: "u1"}, Limit: 3},
		{Filter: memory.Filter{UserID: "u2", WorkspaceID: "ws1"}, IncludeRevoked: true, Limit: 2}, {Limit: 1},
	} {
		// Each store pages with its own cursors: the pages, and whether
		// another follows, must agree; the cursors' values need not.
		mq, pq := q, q
		for page := 0; ; page++ {
			mp, merr := d.mem.List(ctx, mq)
			sp, serr := d.cand.List(ctx, pq)
			d.same(what("List(%+v) page %d", q, page), []any{mp.Memories, mp.Next == 0}, []any{sp.Memories, sp.Next == 0}, merr, serr)
			if mp.Next == 0 || page > len(d.ids) {
				break
			}
			mq.After, pq.After = mp.Next, sp.Next
		}
	}
	for _, u := range append([]string{""}, diffUsers...) {
		var me, se []retrieve.Entry
		merr := d.mem.ScanEntries(ctx, u, func(e retrieve.Entry) error { me = append(me, e); return nil })
		serr := d.cand.ScanEntries(ctx, u, func(e retrieve.Entry) error { se = append(se, e); return nil })
		d.same(what("ScanEntries(%q)", u), me, se, merr, serr)
		mn, merr := d.mem.CountEntries(ctx, u)
		sn, serr := d.cand.CountEntries(ctx, u)
		d.same(what("CountEntries(%q)", u), mn, sn, merr, serr)
		for _, n := range []int{0, 1, 3} {
			mr, merr := d.mem.Revoked(ctx, u, n)
			sr, serr := d.cand.Revoked(ctx, u, n)
			d.same(what("Revoked(%q, %d)", u, n), mr, sr, merr, serr)
		}
	}
	mu, merr := d.mem.Users(ctx)
	su, serr := d.cand.Users(ctx)
	d.same(what("Users"), mu, su, merr, serr)
	ma, merr := d.mem.Ancestors(ctx, ids)
	sa, serr := d.cand.Ancestors(ctx, ids)
	d.same(what("Ancestors"), ma, sa, merr, serr)
	mt, merr := d.mem.Tombstones(ctx, ids)
	st, serr := d.cand.Tombstones(ctx, ids)
	d.same(what("Tombstones"), mt, st, merr, serr)
	for _, now := range []time.Time{d.at(), time.Date(2026, 5, 5, 0, 0, 0, 0, time.UTC)} {
		ms, merr := d.mem.Stats(ctx, now)
		ss, serr := d.cand.Stats(ctx, now)
		ss.Schema, ss.FileBytes = 0, 0
		d.same(what("Stats(%v)", now), ms, ss, merr, serr)
	}
	for _, f := range []audit.Filter{{}, {UserID: "u1", Limit: 3, After: 2}, {Kind: audit.Decision, TaskID: "t1"}, {SearchID: 3},
		{MemoryID: d.ids[0]}, {Decision: "admit", After: math.MaxInt32}} {
		me, merr := d.mem.Events(ctx, f)
		se, serr := d.cand.Events(ctx, f)
		d.same(what("Events(%+v)", f), me, se, merr, serr)
	}
	for _, f := range []audit.QueueFilter{{}, {Status: audit.Pending, Limit: 2}, {Status: audit.Approved, UserID: "u2"}, {Status: audit.Rejected}} {
		mq, merr := d.mem.Queue(ctx, f)
		sq, serr := d.cand.Queue(ctx, f)
		d.same(what("Queue(%+v)", f), mq, sq, merr, serr)
	}
	mx, merr := d.mem.Examples(ctx)
	sx, serr := d.cand.Examples(ctx)
	d.same(what("Examples"), mx, sx, merr, serr)
	mi, mok, merr := d.mem.Identity(ctx)
	si, sok, serr := d.cand.Identity(ctx)
	d.same(what("Identity"), []any{mi, mok}, []any{si, sok}, merr, serr)
}
