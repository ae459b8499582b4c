package mem

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/memgate/memgate/auth"
	"github.com/memgate/memgate/store"
)

var _ auth.Store = (*Store)(nil)

// PutKey stores a new API key.
func (s *Store) PutKey(ctx context.Context, k auth.Key) error {
	if s.readOnly {
		return fmt.Errorf("store key: %w", store.ErrReadOnly)
	}
	s.d.mu.Lock()
	defer s.d.mu.Unlock()
	if slices.ContainsFunc(s.d.keys, func(o auth.Key) bool { return o.ID == k.ID }) {
		return fmt.Errorf("store key %s: %w", k.ID, store.ErrConflict)
	}
	s.d.keys = append(s.d.keys, cloneKey(k))
	return nil
}

// Key returns the key with this id.
func (s *Store) Key(ctx context.Context, id string) (auth.Key, error) {
	s.d.mu.RLock()
	defer s.d.mu.RUnlock()
	for _, k := range s.d.keys {
		if k.ID == id {
			return cloneKey(k), nil
		}
	}
	return auth.Key{}, auth.ErrUnknownKey
}

// Keys lists every key, oldest first.
func (s *Store) Keys(ctx context.Context) ([]auth.Key, error) {
	s.d.mu.RLock()
	defer s.d.mu.RUnlock()
	out := make([]auth.Key, len(s.d.keys))
	for i, k := range s.d.keys {
		out[i] = cloneKey(k)
	}
	return out, nil
}

// RevokeKey marks a key revoked at a time; revoking it again keeps the
// first time.
func (s *Store) RevokeKey(ctx context.Context, id string, at time.Time) error {
	if s.readOnly {
		return fmt.Errorf("revoke key: %w", store.ErrReadOnly)
	}
	s.d.mu.Lock()
	defer s.d.mu.Unlock()
	for i := range s.d.keys {
		if s.d.keys[i].ID == id {
			if s.d.keys[i].RevokedAt.IsZero() {
				s.d.keys[i].RevokedAt = at.UTC()
			}
			return nil
		}
	}
	return fmt.Errorf("revoke key %s: %w", id, store.ErrNotFound)
}

func cloneKey(k auth.Key) auth.Key {
	k.Hash = slices.Clone(k.Hash)
	k.Principal.Users = slices.Clone(k.Principal.Users)
	return k
}
