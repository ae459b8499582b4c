package postgres

import (
	"context"
	"encoding/binary"
	"fmt"
	"math"

	"github.com/jackc/pgx/v5"

	"github.com/memgate/memgate/retrieve"
)

// ScanEntries calls fn for the index entry of every non-revoked memory of
// userID (of every user when userID is empty), in insertion order. One
// user's rows are found through the memories_by_user index, without reading
// the others'. The rows are streamed from one query, on one connection held
// until the scan ends, so fn sees one snapshot; fn may use the store (on
// another connection of the pool). The entries' vectors are carved from
// shared blocks: fn may keep them, but must not append to them. An error
// returned by fn stops the scan and is returned as is.
func (s *Store) ScanEntries(ctx context.Context, userID string, fn func(retrieve.Entry) error) error {
	q := `SELECT id, user_id, workspace_id, project_id, domain, text, embedding FROM memories WHERE NOT revoked`
	var args []any
	if userID != "" {
		q, args = q+" AND user_id = $1", append(args, userID)
	}
	rows, err := s.pool.Query(ctx, q+" ORDER BY seq", args...)
	if err != nil {
		return fmt.Errorf("load vectors: %w", describe(err))
	}
	defer rows.Close()
	var block []float32 // vectors are decoded into blocks of vectorBlock floats
	const vectorBlock = 64 << 10
	var ws, proj, dom *string
	var text, raw []byte
	for rows.Next() {
		var e retrieve.Entry
		if err := rows.Scan(&e.ID, &e.UserID, &ws, &proj, &dom, &text, &raw); err != nil {
			return fmt.Errorf("load vectors: %w", describe(err))
		}
		e.WorkspaceID, e.ProjectID, e.Domain, e.Text = deref(ws), deref(proj), deref(dom), string(text)
		if len(raw)%4 != 0 {
			return fmt.Errorf("load vectors: memory %s: corrupt embedding of %d bytes", e.ID, len(raw))
		}
		n := len(raw) / 4
		if len(block) < n {
			block = make([]float32, max(vectorBlock, n))
		}
		e.Vector, block = block[:n:n], block[n:]
		for i := range e.Vector {
			e.Vector[i] = math.Float32frombits(binary.LittleEndian.Uint32(raw[4*i:]))
		}
		if err := fn(e); err != nil {
			return err
		}
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("load vectors: %w", describe(err))
	}
	return nil
}

// CountEntries returns how many memories userID has, revoked ones included:
// an upper bound of what ScanEntries yields, counted from the
// memories_by_user index.
func (s *Store) CountEntries(ctx context.Context, userID string) (int, error) {
	var n int
	if err := s.pool.QueryRow(ctx, "SELECT count(*) FROM memories WHERE user_id = $1", userID).Scan(&n); err != nil {
		return 0, fmt.Errorf("count memories: %w", describe(err))
	}
	return n, nil
}

// usersSQL lists the users that have memories, sorted by bytes (user_id is
// COLLATE "C"), skipping through memories_by_user one user at a time rather
// than reading every row.
const usersSQL = `WITH RECURSIVE u(user_id) AS (
		(SELECT user_id FROM memories ORDER BY user_id LIMIT 1)
		UNION ALL
		SELECT (SELECT m.user_id FROM memories m WHERE m.user_id > u.user_id ORDER BY m.user_id LIMIT 1)
		FROM u WHERE u.user_id IS NOT NULL)
	SELECT user_id FROM u WHERE user_id IS NOT NULL`

// Users returns the ids of the users that have memories, revoked ones
// included, in sorted order.
func (s *Store) Users(ctx context.Context) ([]string, error) {
	rows, err := s.pool.Query(ctx, usersSQL)
	if err != nil {
		return nil, fmt.Errorf("list users: %w", describe(err))
	}
	out, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		return nil, fmt.Errorf("list users: %w", describe(err))
	}
	if len(out) == 0 {
		return nil, nil // as store/sqlite and store/mem answer
	}
	return out, nil
}
