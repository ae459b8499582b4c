// Package storetest is the conformance suite of store.Store: the behaviour
// every backend must share so that the engine, and its evaluation, give the
// same answers whichever one holds the memories. A backend's test runs it
// with a factory of fresh, empty stores:
//
//	func TestConformance(t *testing.T) {
//		storetest.Run(t, func(t testing.TB) store.Store { return mem.New() })
//	}
//
// The checks are also exported as data (Checks), so that a test can run one
// against a deliberately broken store, with a testing.TB that records
// failures instead of reporting them, and show that the check catches it.
package storetest

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"hash/fnv"
	"math"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/memgate/memgate/audit"
	"github.com/memgate/memgate/memory"
	"github.com/memgate/memgate/retrieve"
	"github.com/memgate/memgate/store"
)

// Factory returns a fresh, empty, writable store for one check, and arranges
// (with t.Cleanup) for it to be closed when the check ends. A check may ask
// for several.
type Factory func(t testing.TB) store.Store

// Check is one conformance check: a named property of the contract, and
// the code that fails t when a store made by newStore lacks it. Run only
// uses the testing.TB methods, never t.Run, so that it can run with a
// recording testing.TB; it calls Fatal only from the goroutine it was
// started on.
type Check struct {
	Name string
	Run  func(ctx context.Context, t testing.TB, newStore Factory)
}

// Checks are the conformance checks, in the order Run runs them.
var Checks = []Check{
	{"scope", checkScope},
	{"ids", checkIDs},
	{"atomicity", checkAtomicity},
	{"lineage", checkLineage},
	{"revocation", checkRevocation},
	{"relations", checkRelations},
	{"ordering", checkOrdering},
	{"audit", checkAudit},
	{"review", checkReview},
	{"identity", checkIdentity},
	{"concurrency", checkConcurrency},
	{"stats", checkStats},
	{"outbox", checkOutbox},
}

// Run runs every check against stores made by newStore, each as a subtest
// named after it.
func Run(t *testing.T, newStore Factory) {
	for _, c := range Checks {
		t.Run(c.Name, func(t *testing.T) { c.Run(t.Context(), t, newStore) })
	}
}

// t0 is the time the checks' memories are created at; its nanoseconds
// catch a store that keeps less precision.
var t0 = time.Date(2026, 5, 1, 9, 0, 0, 123456789, time.UTC)

// Dim is the dimension of the checks' embeddings.
const Dim = 4

// vector is a unit vector of Dim components derived from s.
func vector(s string) []float32 {
	h := fnv.New64a()
	h.Write([]byte(s))
	x := h.Sum64()
	v := make([]float32, Dim)
	var ss float64
	for i := range v {
		v[i] = float32(int16(x>>(16*i))) / 32768
		ss += float64(v[i]) * float64(v[i])
	}
	if ss == 0 {
		v[0], ss = 1, 1
	}
	for i := range v {
		v[i] = float32(float64(v[i]) / math.Sqrt(ss))
	}
	return v
}

// newMem is a valid memory, ready to insert.
func newMem(id, user, text string) memory.Memory {
	return memory.Memory{ID: id, UserID: user, Text: text, CreatedAt: t0, Embedding: vector(id + "|" + text)}
}

// revoked is m as inserted already revoked.
func revoked(m memory.Memory, reason string) memory.Memory {
	m.Revoked, m.RevokedAt, m.RevokedReason = true, t0.Add(time.Minute), reason
	return m
}

func insert(ctx context.Context, t testing.TB, s store.Store, ms ...memory.Memory) {
	t.Helper()
	n, err := s.Insert(ctx, ms, store.ConflictError, nil)
	if err != nil {
		t.Fatalf("Insert(%v): %v", idsOf(ms), err)
	}
	if n != len(ms) {
		t.Fatalf("Insert(%v) = %d, want %d", idsOf(ms), n, len(ms))
	}
}

func revoke(ctx context.Context, t testing.TB, s store.Store, id string, at time.Time) memory.Memory {
	t.Helper()
	m, err := s.Revoke(ctx, id, store.Change{Reason: "revoked by the check", At: at, PrincipalID: "operator"})
	if err != nil {
		t.Fatalf("Revoke(%s): %v", id, err)
	}
	return m
}

func forget(ctx context.Context, t testing.TB, s store.Store, id string, at time.Time) memory.Tombstone {
	t.Helper()
	ts, err := s.Forget(ctx, id, store.Change{Reason: "forgotten by the check", At: at, PrincipalID: "operator"})
	if err != nil {
		t.Fatalf("Forget(%s): %v", id, err)
	}
	return ts
}

func idsOf(ms []memory.Memory) []string {
	out := make([]string, len(ms))
	for i := range ms {
		out[i] = ms[i].ID
	}
	return out
}

func get(ctx context.Context, t testing.TB, s store.Store, ids []string, withVectors bool) []memory.Memory {
	t.Helper()
	ms, err := s.Get(ctx, ids, withVectors)
	if err != nil {
		t.Fatalf("Get(%v): %v", ids, err)
	}
	return ms
}

func getOne(ctx context.Context, t testing.TB, s store.Store, id string) memory.Memory {
	t.Helper()
	m, err := store.GetOne(ctx, s, id, false)
	if err != nil {
		t.Fatalf("GetOne(%s): %v", id, err)
	}
	return m
}

// list pages through q's listing, Limit at a time (0: one page), and
// returns every memory.
func list(ctx context.Context, t testing.TB, s store.Store, q store.ListQuery) []memory.Memory {
	t.Helper()
	var out []memory.Memory
	for range 10000 {
		p, err := s.List(ctx, q)
		if err != nil {
			t.Fatalf("List(%+v): %v", q, err)
		}
		out = append(out, p.Memories...)
		if p.Next == 0 {
			return out
		}
		q.After = p.Next
	}
	t.Fatalf("List(%+v) never ends", q)
	return nil
}

func listIDs(ctx context.Context, t testing.TB, s store.Store, q store.ListQuery) []string {
	t.Helper()
	return idsOf(list(ctx, t, s, q))
}

func scan(ctx context.Context, t testing.TB, s store.Store, userID string) []retrieve.Entry {
	t.Helper()
	var out []retrieve.Entry
	if err := s.ScanEntries(ctx, userID, func(e retrieve.Entry) error {
		out = append(out, e)
		return nil
	}); err != nil {
		t.Fatalf("ScanEntries(%q): %v", userID, err)
	}
	return out
}

func scanIDs(ctx context.Context, t testing.TB, s store.Store, userID string) []string {
	t.Helper()
	var out []string
	for _, e := range scan(ctx, t, s, userID) {
		out = append(out, e.ID)
	}
	return out
}

func events(ctx context.Context, t testing.TB, s store.Store, f audit.Filter) []audit.Event {
	t.Helper()
	evs, err := s.Events(ctx, f)
	if err != nil {
		t.Fatalf("Events(%+v): %v", f, err)
	}
	return evs
}

func lastSeq(ctx context.Context, t testing.TB, s store.Store) int64 {
	t.Helper()
	evs := events(ctx, t, s, audit.Filter{})
	if len(evs) == 0 {
		return 0
	}
	return evs[len(evs)-1].Seq
}

func queue(ctx context.Context, t testing.TB, s store.Store, f audit.QueueFilter) []audit.QuarantineItem {
	t.Helper()
	items, err := s.Queue(ctx, f)
	if err != nil {
		t.Fatalf("Queue(%+v): %v", f, err)
	}
	return items
}

func stats(ctx context.Context, t testing.TB, s store.Store, now time.Time) store.Stats {
	t.Helper()
	st, err := s.Stats(ctx, now)
	if err != nil {
		t.Fatalf("Stats: %v", err)
	}
	return st
}

// itemErrors returns the store.ItemErrors in err, failing t if there are
// none.
func itemErrors(t testing.TB, what string, err error) store.ItemErrors {
	t.Helper()
	var ies store.ItemErrors
	if !errors.As(err, &ies) {
		t.Fatalf("%s: err = %v, want store.ItemErrors", what, err)
	}
	return ies
}

func indexes(ies store.ItemErrors) []int {
	out := make([]int, len(ies))
	for i, ie := range ies {
		out[i] = ie.Index
	}
	return out
}

// admission is a valid admission for userID's task: a search, a decision
// per memory of decided, and a review item per memory of quarantined (each
// must be decided).
func admission(userID, taskID string, at time.Time, decided, quarantined []string) *audit.Admission {
	a := &audit.Admission{Search: audit.Event{Kind: audit.Search, At: at, TaskID: taskID, UserID: userID,
		PrincipalID: "agent", Payload: json.RawMessage(`{"query":"q"}`)}}
	for _, id := range decided {
		a.Decisions = append(a.Decisions, audit.Event{Kind: audit.Decision, At: at, TaskID: taskID, UserID: userID,
			MemoryID: id, Decision: "admit", Payload: json.RawMessage(`{"reasons":[]}`)})
	}
	for _, id := range quarantined {
		a.Quarantine = append(a.Quarantine, audit.QuarantineItem{MemoryID: id, UserID: userID, TaskID: taskID, At: at,
			Query: "what about " + id, Context: json.RawMessage(`{"task":"` + taskID + `"}`),
			Reasons: json.RawMessage(`["low_authority"]`)})
	}
	return a
}

func record(ctx context.Context, t testing.TB, s store.Store, a *audit.Admission) int64 {
	t.Helper()
	seq, err := s.RecordAdmission(ctx, a)
	if err != nil {
		t.Fatalf("RecordAdmission: %v", err)
	}
	return seq
}

// sameSet reports whether a and b hold the same strings, in any order.
func sameSet(a, b []string) bool {
	a, b = slices.Clone(a), slices.Clone(b)
	slices.Sort(a)
	slices.Sort(b)
	return slices.Equal(a, b)
}

// jsonEqual reports whether a and b are the same JSON value.
func jsonEqual(a, b []byte) bool {
	if bytes.Equal(a, b) {
		return true
	}
	var x, y any
	if json.Unmarshal(a, &x) != nil || json.Unmarshal(b, &y) != nil {
		return false
	}
	xa, _ := json.Marshal(x)
	ya, _ := json.Marshal(y)
	return bytes.Equal(xa, ya)
}

// diffEvent describes how got differs from want, ignoring Seq; "" if not.
func diffEvent(got, want audit.Event) string {
	var d []string
	add := func(field string, g, w any) { d = append(d, fmt.Sprintf("%s %v, want %v", field, g, w)) }
	if got.Kind != want.Kind {
		add("kind", got.Kind, want.Kind)
	}
	if !got.At.Equal(want.At) {
		add("at", got.At, want.At)
	}
	for _, f := range []struct{ name, g, w string }{{"taskId", got.TaskID, want.TaskID}, {"userId", got.UserID, want.UserID},
		{"principalId", got.PrincipalID, want.PrincipalID}, {"memoryId", got.MemoryID, want.MemoryID},
		{"decision", got.Decision, want.Decision}} {
		if f.g != f.w {
			add(f.name, f.g, f.w)
		}
	}
	if got.SearchID != want.SearchID {
		add("searchId", got.SearchID, want.SearchID)
	}
	if !jsonEqual(got.Payload, want.Payload) {
		add("payload", string(got.Payload), string(want.Payload))
	}
	return strings.Join(d, "; ")
}

// diffMemory describes how got differs from want in the fields a caller
// stores (relations compared as sets, the embedding only if withVector);
// "" if it does not.
func diffMemory(got, want memory.Memory, withVector bool) string {
	var d []string
	add := func(field string, g, w any) { d = append(d, fmt.Sprintf("%s %v, want %v", field, g, w)) }
	for _, f := range []struct{ name, g, w string }{{"id", got.ID, want.ID}, {"text", got.Text, want.Text},
		{"userId", got.UserID, want.UserID}, {"workspaceId", got.WorkspaceID, want.WorkspaceID},
		{"projectId", got.ProjectID, want.ProjectID}, {"domain", got.Domain, want.Domain},
		{"sourceAuthority", string(got.SourceAuthority), string(want.SourceAuthority)},
		{"kind", string(got.Kind), string(want.Kind)},
		{"classification", string(got.Classification), string(want.Classification)},
		{"revokedReason", got.RevokedReason, want.RevokedReason}} {
		if f.g != f.w {
			add(f.name, f.g, f.w)
		}
	}
	for _, f := range []struct {
		name string
		g, w time.Time
	}{{"createdAt", got.CreatedAt, want.CreatedAt}, {"expiresAt", got.ExpiresAt, want.ExpiresAt}, {"revokedAt", got.RevokedAt, want.RevokedAt}} {
		if !f.g.Equal(f.w) {
			add(f.name, f.g, f.w)
		}
	}
	if got.Revoked != want.Revoked {
		add("revoked", got.Revoked, want.Revoked)
	}
	if !slices.Equal(got.Audience, want.Audience) {
		add("audience", got.Audience, want.Audience)
	}
	for _, f := range []struct {
		name string
		g, w []string
	}{{"lineageRefs", got.LineageRefs, want.LineageRefs}, {"supersedes", got.Supersedes, want.Supersedes},
		{"supersededBy", got.SupersededBy, want.SupersededBy}} {
		if !sameSet(f.g, f.w) {
			add(f.name, f.g, f.w)
		}
	}
	if withVector && !slices.Equal(got.Embedding, want.Embedding) {
		add("embedding", got.Embedding, want.Embedding)
	}
	if !withVector && len(got.Embedding) > 0 {
		add("embedding", got.Embedding, "none (not asked for)")
	}
	return strings.Join(d, "; ")
}
