package memgate

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/memgate/memgate/audit"
	"github.com/memgate/memgate/memory"
	"github.com/memgate/memgate/store"
)

// UserScope is the engine limited to one user's memories, for callers that
// act for a user rather than operate the store. Through it, an id of another
// user's memory gets exactly the answer a missing id gets: a *NotFoundError
// with the same message. It is the view a service should give each request
// for the user its key acts for (the CLI operates the whole store).
type UserScope struct {
	e         *Engine
	user      string
	principal string // named in the audit events of its writes
}

// ForUser returns the engine limited to userID's memories.
func (e *Engine) ForUser(userID string) *UserScope {
	return &UserScope{e: e, user: memory.NormalizeID(userID)}
}

// As returns the scope acting as principalID: revocations, forgettings and
// reviews made through it name that principal in the audit trail.
func (u *UserScope) As(principalID string) *UserScope {
	c := *u
	c.principal = memory.NormalizeID(principalID)
	return &c
}

// UserID is the user the scope is limited to.
func (u *UserScope) UserID() string { return u.user }

// Get returns one of the user's memories, without its embedding. A
// forgotten memory of the user is reported as forgotten; any other id that
// is not the user's is a *NotFoundError.
func (u *UserScope) Get(ctx context.Context, id string) (memory.Memory, error) {
	id = memory.NormalizeID(id)
	m, err := store.GetOne(ctx, u.e.store, id, false)
	if err == nil && m.UserID == u.user {
		return m, nil
	}
	if err != nil && !errors.Is(err, ErrNotFound) {
		return memory.Memory{}, errorf("get "+id, err)
	}
	if ts, terr := u.e.store.Tombstones(ctx, []string{id}); terr != nil {
		return memory.Memory{}, errorf("get "+id, terr)
	} else if t, ok := ts[id]; ok && t.UserID == u.user {
		return memory.Memory{}, fmt.Errorf("get: memory %q was forgotten at %s: %w", id, t.ForgottenAt.Format("2006-01-02T15:04:05Z07:00"), ErrNotFound)
	}
	return memory.Memory{}, &NotFoundError{What: "id", IDs: []string{id}}
}

// own checks that id is a stored memory of the user.
func (u *UserScope) own(ctx context.Context, id string) error {
	id = memory.NormalizeID(id)
	ms, err := u.e.store.Get(ctx, []string{id}, false)
	if err != nil {
		return err
	}
	if len(ms) == 0 || ms[0].UserID != u.user {
		return &NotFoundError{What: "id", IDs: []string{id}}
	}
	return nil
}

// Revoke withdraws one of the user's memories; see Engine.Revoke.
func (u *UserScope) Revoke(ctx context.Context, id, reason string) (memory.Memory, error) {
	id = memory.NormalizeID(id)
	if err := u.own(ctx, id); err != nil {
		return memory.Memory{}, errorf("revoke", err)
	}
	return u.e.revoke(ctx, id, reason, u.principal)
}

// Forget deletes one of the user's memories for good; see Engine.Forget.
func (u *UserScope) Forget(ctx context.Context, id, reason string) (memory.Tombstone, error) {
	id = memory.NormalizeID(id)
	if err := u.own(ctx, id); err != nil {
		return memory.Tombstone{}, errorf("forget", err)
	}
	return u.e.forget(ctx, id, reason, u.principal)
}

// Supersede records that newID replaces oldIDs, all memories of the user;
// see Engine.Supersede.
func (u *UserScope) Supersede(ctx context.Context, newID string, oldIDs ...string) error {
	newID, oldIDs = memory.NormalizeID(newID), memory.NormalizeIDs(oldIDs)
	var missing []string
	for _, id := range append([]string{newID}, oldIDs...) {
		var nf *NotFoundError
		if err := u.own(ctx, id); errors.As(err, &nf) {
			missing = append(missing, id)
		} else if err != nil {
			return errorf("supersede", err)
		}
	}
	if len(missing) > 0 {
		return errorf("supersede", &NotFoundError{What: "ids", IDs: missing})
	}
	return u.e.Supersede(ctx, newID, oldIDs...)
}

// List returns the user's memories; o.Scope.UserID is set to the user.
func (u *UserScope) List(ctx context.Context, o ListOptions) (store.Page, error) {
	o.Scope.UserID = u.user
	return u.e.List(ctx, o)
}

// Audit lists the user's audit events; f.UserID is set to the user.
func (u *UserScope) Audit(ctx context.Context, f audit.Filter) ([]audit.Event, error) {
	f.UserID = u.user
	return u.e.Audit(ctx, f)
}

// ReviewQueue lists the user's quarantined memories with the given status
// ("" for all).
func (u *UserScope) ReviewQueue(ctx context.Context, status string) ([]audit.QuarantineItem, error) {
	if err := checkStatus(status); err != nil {
		return nil, err
	}
	return u.e.store.Queue(ctx, audit.QueueFilter{Status: status, UserID: u.user})
}

// Review records a verdict on one of the user's review items; another
// user's item reads like a missing one. The reviewer is the scope's
// principal.
func (u *UserScope) Review(ctx context.Context, item int64, approve bool, note string) (audit.QuarantineItem, error) {
	items, err := u.e.store.Queue(ctx, audit.QueueFilter{UserID: u.user})
	if err != nil {
		return audit.QuarantineItem{}, errorf("review", err)
	}
	if !slices.ContainsFunc(items, func(it audit.QuarantineItem) bool { return it.Seq == item }) {
		return audit.QuarantineItem{}, fmt.Errorf("review item %d: %w", item, ErrNotFound)
	}
	return u.e.Review(ctx, item, approve, u.principal, note)
}
