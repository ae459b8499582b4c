package sqlite

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/memgate/memgate/auth"
	"github.com/memgate/memgate/store"
)

var _ auth.Store = (*Store)(nil)

// PutKey stores a new API key: its id, the hash of its secret and its
// principal (as JSON).
func (s *Store) PutKey(ctx context.Context, k auth.Key) error {
	p, err := json.Marshal(k.Principal)
	if err != nil {
		return err
	}
	return s.write(ctx, "store key "+k.ID, func(tx *sql.Tx) error {
		var n int
		if err := tx.QueryRowContext(ctx, "SELECT count(*) FROM api_keys WHERE id = ?", k.ID).Scan(&n); err != nil {
			return err
		}
		if n > 0 {
			return store.ErrConflict
		}
		_, err := tx.ExecContext(ctx, "INSERT INTO api_keys(id, hash, principal, created_at) VALUES (?, ?, ?, ?)",
			k.ID, k.Hash, string(p), k.CreatedAt.UnixNano())
		return err
	})
}

// Key returns the key with this id, or auth.ErrUnknownKey.
func (s *Store) Key(ctx context.Context, id string) (auth.Key, error) {
	row := s.db.QueryRowContext(ctx, "SELECT id, hash, principal, created_at, coalesce(revoked_at, 0) FROM api_keys WHERE id = ?", id)
	k, err := scanKey(row)
	if errors.Is(err, sql.ErrNoRows) {
		return auth.Key{}, auth.ErrUnknownKey
	}
	if err != nil {
		return auth.Key{}, fmt.Errorf("read key: %w", describe(err))
	}
	return k, nil
}

// Keys lists every key, oldest first.
func (s *Store) Keys(ctx context.Context) ([]auth.Key, error) {
	rows, err := s.db.QueryContext(ctx, "SELECT id, hash, principal, created_at, coalesce(revoked_at, 0) FROM api_keys ORDER BY seq")
	if err != nil {
		return nil, fmt.Errorf("list keys: %w", describe(err))
	}
	defer rows.Close()
	var out []auth.Key
	for rows.Next() {
		k, err := scanKey(rows)
		if err != nil {
			return nil, fmt.Errorf("list keys: %w", err)
		}
		out = append(out, k)
	}
	return out, rows.Err()
}

// RevokeKey marks a key revoked at a time; revoking it again keeps the
// first time.
func (s *Store) RevokeKey(ctx context.Context, id string, at time.Time) error {
	return s.write(ctx, "revoke key "+id, func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, "UPDATE api_keys SET revoked_at = coalesce(revoked_at, ?) WHERE id = ?", at.UnixNano(), id)
		if err != nil {
			return err
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return store.ErrNotFound
		}
		return nil
	})
}

func scanKey(sc scanner) (auth.Key, error) {
	var k auth.Key
	var p string
	var created, revoked int64
	if err := sc.Scan(&k.ID, &k.Hash, &p, &created, &revoked); err != nil {
		return k, err
	}
	if err := json.Unmarshal([]byte(p), &k.Principal); err != nil {
		return k, fmt.Errorf("key %s: principal: %w", k.ID, err)
	}
	k.CreatedAt = time.Unix(0, created).UTC()
	if revoked != 0 {
		k.RevokedAt = time.Unix(0, revoked).UTC()
	}
	return k, nil
}
