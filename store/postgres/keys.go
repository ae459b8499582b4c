package postgres

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/memgate/memgate/auth"
	"github.com/memgate/memgate/store"
)

// PutKey stores a new API key: its id, the hash of its secret and its
// principal (as JSON). An id already stored is an error wrapping
// store.ErrConflict.
func (s *Store) PutKey(ctx context.Context, k auth.Key) error {
	p, err := json.Marshal(k.Principal)
	if err != nil {
		return err
	}
	return s.write(ctx, "store key "+k.ID, noLock, func(tx pgx.Tx) error {
		tag, err := tx.Exec(ctx, `INSERT INTO api_keys (id, hash, principal, created_at) VALUES ($1, $2, $3, $4)
			ON CONFLICT (id) DO NOTHING`, k.ID, append([]byte{}, k.Hash...), string(p), k.CreatedAt.UnixNano())
		if err != nil {
			return err
		}
		if tag.RowsAffected() == 0 {
			return store.ErrConflict
		}
		return nil
	})
}

const keyColumns = "id, hash, principal, created_at, coalesce(revoked_at, 0)"

// Key returns the key with this id, or auth.ErrUnknownKey.
func (s *Store) Key(ctx context.Context, id string) (auth.Key, error) {
	k, err := scanKey(s.pool.QueryRow(ctx, "SELECT "+keyColumns+" FROM api_keys WHERE id = $1", id))
	if errors.Is(err, pgx.ErrNoRows) {
		return auth.Key{}, auth.ErrUnknownKey
	}
	if err != nil {
		return auth.Key{}, fmt.Errorf("read key: %w", describe(err))
	}
	return k, nil
}

// Keys lists every key, oldest first.
func (s *Store) Keys(ctx context.Context) ([]auth.Key, error) {
	rows, err := s.pool.Query(ctx, "SELECT "+keyColumns+" FROM api_keys ORDER BY seq")
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
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("list keys: %w", describe(err))
	}
	return out, nil
}

// RevokeKey marks a key revoked at a time; revoking it again keeps the
// first time. A missing key is an error wrapping store.ErrNotFound.
func (s *Store) RevokeKey(ctx context.Context, id string, at time.Time) error {
	return s.write(ctx, "revoke key "+id, noLock, func(tx pgx.Tx) error {
		tag, err := tx.Exec(ctx, "UPDATE api_keys SET revoked_at = coalesce(revoked_at, $1) WHERE id = $2", at.UnixNano(), id)
		if err != nil {
			return err
		}
		if tag.RowsAffected() == 0 {
			return store.ErrNotFound
		}
		return nil
	})
}

func scanKey(row pgx.Row) (auth.Key, error) {
	var k auth.Key
	var p string
	var created, revoked int64
	if err := row.Scan(&k.ID, &k.Hash, &p, &created, &revoked); err != nil {
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

// The contracts this package implements.
var (
	_ store.Store   = (*Store)(nil)
	_ store.Checker = (*Store)(nil)
	_ store.Locator = (*Store)(nil)
	_ auth.Store    = (*Store)(nil)
)
