package storetest_test

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/memgate/memgate/audit"
	"github.com/memgate/memgate/embed"
	"github.com/memgate/memgate/lineage"
	"github.com/memgate/memgate/memory"
	"github.com/memgate/memgate/store"
	"github.com/memgate/memgate/store/mem"
	"github.com/memgate/memgate/store/storetest"
)

// recorder is a testing.TB that records failures instead of reporting
// them, so that a test can assert that a check fails. Fatal ends the
// check's goroutine, as it does in a test.
type recorder struct {
	testing.TB // for Cleanup, TempDir, Context, Name and the like
	mu         sync.Mutex
	failed     bool
	log        []string
}

func (r *recorder) Helper() {}

func (r *recorder) Fail() {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.failed = true
}

func (r *recorder) Failed() bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.failed
}

func (r *recorder) FailNow() { r.Fail(); runtime.Goexit() }

func (r *recorder) Log(args ...any) { r.logf("%s", fmt.Sprint(args...)) }

func (r *recorder) Logf(format string, args ...any) { r.logf(format, args...) }

func (r *recorder) Error(args ...any) { r.Log(args...); r.Fail() }

func (r *recorder) Errorf(format string, args ...any) { r.logf(format, args...); r.Fail() }

func (r *recorder) Fatal(args ...any) { r.Log(args...); r.FailNow() }

func (r *recorder) Fatalf(format string, args ...any) { r.logf(format, args...); r.FailNow() }

func (r *recorder) Skip(args ...any) { r.Log(args...); r.SkipNow() }

func (r *recorder) Skipf(format string, args ...any) { r.logf(format, args...); r.SkipNow() }

func (r *recorder) SkipNow() { runtime.Goexit() }

func (r *recorder) logf(format string, args ...any) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.log = append(r.log, fmt.Sprintf(format, args...))
}

// run runs check against newStore with a recorder and reports whether it
// failed, and what it said.
func run(t *testing.T, check storetest.Check, newStore storetest.Factory) (failed bool, log string) {
	r := &recorder{TB: t}
	done := make(chan struct{})
	go func() {
		defer close(done)
		check.Run(t.Context(), r, newStore)
	}()
	<-done
	return r.Failed(), strings.Join(r.log, "\n")
}

func newMem(testing.TB) store.Store { return mem.New() }

// wrap makes a factory of broken stores from a function that breaks one.
func wrap[B store.Store](breakIt func(*mem.Store) B) storetest.Factory {
	return func(testing.TB) store.Store { return breakIt(mem.New()) }
}

// Broken stores, each with one flaw a backend could plausibly have.

// leakyList ignores the user filter of List.
type leakyList struct{ *mem.Store }

func (s leakyList) List(ctx context.Context, q store.ListQuery) (store.Page, error) {
	q.Filter.UserID = ""
	return s.Store.List(ctx, q)
}

// firstProblem reports only the first problem of a batch.
type firstProblem struct{ *mem.Store }

func (s firstProblem) Insert(ctx context.Context, ms []memory.Memory, c store.OnConflict, p func(int)) (int, error) {
	n, err := s.Store.Insert(ctx, ms, c, p)
	var ies store.ItemErrors
	if errors.As(err, &ies) && len(ies) > 1 {
		return n, ies[:1]
	}
	return n, err
}

// searchFirst writes an admission's search before it checks the rest.
type searchFirst struct{ *mem.Store }

func (s searchFirst) RecordAdmission(ctx context.Context, a *audit.Admission) (int64, error) {
	if err := a.Check(); err != nil {
		s.Store.AppendEvents(ctx, []audit.Event{a.Search})
		return 0, err
	}
	return s.Store.RecordAdmission(ctx, a)
}

// directLineage lists only direct sources as ancestors.
type directLineage struct{ *mem.Store }

func (s directLineage) Ancestors(ctx context.Context, ids []string) (map[string][]lineage.Ancestor, error) {
	anc, err := s.Store.Ancestors(ctx, ids)
	if err != nil {
		return nil, err
	}
	ms, err := s.Store.Get(ctx, ids, false)
	if err != nil {
		return nil, err
	}
	for _, m := range ms {
		anc[m.ID] = slices.DeleteFunc(anc[m.ID], func(a lineage.Ancestor) bool { return !slices.Contains(m.LineageRefs, a.ID) })
	}
	return anc, nil
}

// firstRevoked lists the first n revoked memories, not the last.
type firstRevoked struct{ *mem.Store }

func (s firstRevoked) Revoked(ctx context.Context, userID string, n int) ([]memory.Memory, error) {
	ms, err := s.Store.Revoked(ctx, userID, 0)
	if n > 0 && len(ms) > n {
		ms = ms[:n]
	}
	return ms, err
}

// sharedSlices returns the stored audience, as a store that hands out its
// own slices would: a caller's change reaches the store.
type sharedSlices struct {
	*mem.Store
	mu       sync.Mutex
	audience map[string][]string
}

func (s *sharedSlices) Insert(ctx context.Context, ms []memory.Memory, c store.OnConflict, p func(int)) (int, error) {
	n, err := s.Store.Insert(ctx, ms, c, p)
	if err == nil {
		s.mu.Lock()
		for _, m := range ms {
			if len(m.Audience) > 0 {
				s.audience[m.ID] = m.Audience
			}
		}
		s.mu.Unlock()
	}
	return n, err
}

func (s *sharedSlices) Get(ctx context.Context, ids []string, withVectors bool) ([]memory.Memory, error) {
	ms, err := s.Store.Get(ctx, ids, withVectors)
	s.mu.Lock()
	for i := range ms {
		if a, ok := s.audience[ms[i].ID]; ok {
			ms[i].Audience = a
		}
	}
	s.mu.Unlock()
	return ms, err
}

// sortedGet answers Get in id order, not the order asked.
type sortedGet struct{ *mem.Store }

func (s sortedGet) Get(ctx context.Context, ids []string, withVectors bool) ([]memory.Memory, error) {
	ms, err := s.Store.Get(ctx, ids, withVectors)
	slices.SortFunc(ms, func(a, b memory.Memory) int { return strings.Compare(a.ID, b.ID) })
	return ms, err
}

// splitAdmission appends the decisions in a second write, so that they are
// not linked to their search.
type splitAdmission struct{ *mem.Store }

func (s splitAdmission) RecordAdmission(ctx context.Context, a *audit.Admission) (int64, error) {
	if err := a.Check(); err != nil {
		return 0, err
	}
	sid, err := s.Store.RecordAdmission(ctx, &audit.Admission{Search: a.Search})
	if err != nil || len(a.Decisions) == 0 {
		return sid, err
	}
	_, err = s.Store.AppendEvents(ctx, a.Decisions)
	return sid, err
}

// lenientReview lets a second verdict through.
type lenientReview struct{ *mem.Store }

func (s lenientReview) Review(ctx context.Context, r audit.Review) (audit.QuarantineItem, error) {
	it, err := s.Store.Review(ctx, r)
	if errors.Is(err, store.ErrAlreadyReviewed) {
		return it, nil
	}
	return it, err
}

// forgetfulIdentity records no identity.
type forgetfulIdentity struct{ *mem.Store }

func (forgetfulIdentity) SetIdentity(context.Context, embed.Identity) error { return nil }

// checkThenInsert checks a batch and inserts it in two steps, so that two
// inserts of one id may both pass the check.
type checkThenInsert struct{ *mem.Store }

func (s checkThenInsert) Insert(ctx context.Context, ms []memory.Memory, c store.OnConflict, p func(int)) (int, error) {
	if err := s.Store.CheckBatch(ctx, ms, c); err != nil {
		return 0, err
	}
	time.Sleep(5 * time.Millisecond)
	return s.Store.Insert(ctx, ms, store.ConflictSkip, p)
}

// strictExpiry judges a memory expiring exactly now as not yet expired.
type strictExpiry struct{ *mem.Store }

func (s strictExpiry) Stats(ctx context.Context, now time.Time) (store.Stats, error) {
	return s.Store.Stats(ctx, now.Add(-time.Nanosecond))
}

// droppedRevokeEvent writes a revocation and then its audit event in a
// separate step, which it loses: readers never see the event.
type droppedRevokeEvent struct {
	*mem.Store
	mu      sync.Mutex
	dropped map[int64]bool
}

func (s *droppedRevokeEvent) Revoke(ctx context.Context, id string, c store.Change) (memory.Memory, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	m, err := s.Store.Revoke(ctx, id, c)
	if err == nil {
		evs, _ := s.Store.Events(ctx, audit.Filter{Kind: audit.Revoke, MemoryID: id})
		s.dropped[evs[len(evs)-1].Seq] = true
	}
	return m, err
}

func (s *droppedRevokeEvent) Events(ctx context.Context, f audit.Filter) ([]audit.Event, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	evs, err := s.Store.Events(ctx, f)
	return slices.DeleteFunc(evs, func(e audit.Event) bool { return s.dropped[e.Seq] }), err
}

// lateRevokeEvent writes a revocation and, a moment later, its audit event,
// in two steps: Revoke returns only when both are done, but a reader can
// see the memory revoked without its event.
type lateRevokeEvent struct{ droppedRevokeEvent }

func (s *lateRevokeEvent) Revoke(ctx context.Context, id string, c store.Change) (memory.Memory, error) {
	m, err := s.droppedRevokeEvent.Revoke(ctx, id, c)
	time.Sleep(2 * time.Millisecond)
	s.mu.Lock()
	clear(s.dropped)
	s.mu.Unlock()
	return m, err
}

// lossyDrain removes the records it took even when apply fails.
type lossyDrain struct{ *mem.Store }

func (s lossyDrain) DrainOutbox(ctx context.Context, consumer string, max int, apply func(context.Context, []store.OutboxRecord) error) (int, error) {
	var applyErr error
	n, err := s.Store.DrainOutbox(ctx, consumer, max, func(ctx context.Context, recs []store.OutboxRecord) error {
		applyErr = apply(ctx, recs)
		return nil
	})
	if applyErr != nil {
		return 0, applyErr
	}
	return n, err
}

// unlockedHold runs fn without taking the drain lock.
type unlockedHold struct{ *mem.Store }

func (s unlockedHold) HoldOutbox(ctx context.Context, fn func(context.Context) error) error {
	return fn(ctx)
}

// broken lists, for each check, stores it must fail.
var broken = []struct {
	check    string
	name     string
	newStore storetest.Factory
}{
	{"scope", "List ignores the user", wrap(func(s *mem.Store) leakyList { return leakyList{s} })},
	{"ids", "only the first problem of a batch", wrap(func(s *mem.Store) firstProblem { return firstProblem{s} })},
	{"atomicity", "search written before the check", wrap(func(s *mem.Store) searchFirst { return searchFirst{s} })},
	{"atomicity", "revoke event dropped", wrap(func(s *mem.Store) *droppedRevokeEvent {
		return &droppedRevokeEvent{Store: s, dropped: map[int64]bool{}}
	})},
	{"atomicity", "revoke event written late", wrap(func(s *mem.Store) *lateRevokeEvent {
		return &lateRevokeEvent{droppedRevokeEvent{Store: s, dropped: map[int64]bool{}}}
	})},
	{"lineage", "direct sources only", wrap(func(s *mem.Store) directLineage { return directLineage{s} })},
	{"revocation", "first n revoked", wrap(func(s *mem.Store) firstRevoked { return firstRevoked{s} })},
	{"relations", "shared slices", wrap(func(s *mem.Store) *sharedSlices {
		return &sharedSlices{Store: s, audience: map[string][]string{}}
	})},
	{"ordering", "Get in id order", wrap(func(s *mem.Store) sortedGet { return sortedGet{s} })},
	{"audit", "decisions in a separate write", wrap(func(s *mem.Store) splitAdmission { return splitAdmission{s} })},
	{"review", "second verdict accepted", wrap(func(s *mem.Store) lenientReview { return lenientReview{s} })},
	{"identity", "identity not recorded", wrap(func(s *mem.Store) forgetfulIdentity { return forgetfulIdentity{s} })},
	{"concurrency", "check, then insert", wrap(func(s *mem.Store) checkThenInsert { return checkThenInsert{s} })},
	{"stats", "expiry off by one", wrap(func(s *mem.Store) strictExpiry { return strictExpiry{s} })},
	{"outbox", "a failed drain removes its records", wrap(func(s *mem.Store) lossyDrain { return lossyDrain{s} })},
	{"outbox", "a hold without the drain lock", wrap(func(s *mem.Store) unlockedHold { return unlockedHold{s} })},
}

// Every check passes for the in-memory store and fails for each broken
// store aimed at it; every check has at least one.
func TestChecksFailBrokenStores(t *testing.T) {
	checks := map[string]storetest.Check{}
	for _, c := range storetest.Checks {
		checks[c.Name] = c
	}
	covered := map[string]bool{}
	for _, b := range broken {
		covered[b.check] = true
		t.Run(b.check+"/"+b.name, func(t *testing.T) {
			c, ok := checks[b.check]
			if !ok {
				t.Fatalf("no check %q", b.check)
			}
			if failed, log := run(t, c, newMem); failed {
				t.Fatalf("check %s fails for the in-memory store:\n%s", c.Name, log)
			}
			failed, log := run(t, c, b.newStore)
			if !failed {
				t.Fatalf("check %s passes a store whose flaw is: %s", c.Name, b.name)
			}
			t.Logf("check %s catches %q:\n%s", c.Name, b.name, log)
		})
	}
	for _, c := range storetest.Checks {
		if !covered[c.Name] {
			t.Errorf("check %s has no broken store to show that it can fail", c.Name)
		}
	}
}
