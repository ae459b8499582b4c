package sqlite

import (
	"context"
	"database/sql"
	"encoding/binary"
	"fmt"
	"math"

	"github.com/memgate/memgate/retrieve"
)

// ScanEntries calls fn for the index entry of every non-revoked memory of
// userID (of every user when userID is empty), in insertion order. It is how
// an engine loads a user into its in-memory index; one user's rows are found
// through the memories_by_user index, without reading the others'. The
// entries' vectors are carved from shared blocks: fn may keep them, but
// must not append to them. An error returned by fn stops the scan and is
// returned as is.
func (s *Store) ScanEntries(ctx context.Context, userID string, fn func(retrieve.Entry) error) error {
	q := `SELECT id, user_id, workspace_id, project_id, domain, text, embedding FROM memories WHERE revoked = 0`
	var args []any
	if userID != "" {
		q, args = q+" AND user_id = ?", append(args, userID)
	}
	rows, err := s.db.QueryContext(ctx, q+" ORDER BY seq", args...)
	if err != nil {
		return fmt.Errorf("load vectors: %w", describe(err))
	}
	defer rows.Close()
	var block []float32 // vectors are decoded into blocks of vectorBlock floats
	const vectorBlock = 64 << 10
	for rows.Next() {
		var e retrieve.Entry
		var ws, proj, dom sql.NullString
		var raw sql.RawBytes // valid until the next row; decoded at once
		if err := rows.Scan(&e.ID, &e.UserID, &ws, &proj, &dom, &e.Text, &raw); err != nil {
			return fmt.Errorf("load vectors: %w", describe(err))
		}
		e.WorkspaceID, e.ProjectID, e.Domain = ws.String, proj.String, dom.String
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
// memories_by_user index without reading the rows.
func (s *Store) CountEntries(ctx context.Context, userID string) (int, error) {
	var n int
	if err := s.db.QueryRowContext(ctx, "SELECT count(*) FROM memories WHERE user_id = ?", userID).Scan(&n); err != nil {
		return 0, fmt.Errorf("count memories: %w", describe(err))
	}
	return n, nil
}

// Users returns the ids of the users that have memories, revoked ones
// included, in sorted order.
func (s *Store) Users(ctx context.Context) ([]string, error) {
	rows, err := s.db.QueryContext(ctx, "SELECT DISTINCT user_id FROM memories ORDER BY user_id")
	if err != nil {
		return nil, fmt.Errorf("list users: %w", describe(err))
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var u string
		if err := rows.Scan(&u); err != nil {
			return nil, fmt.Errorf("list users: %w", describe(err))
		}
		out = append(out, u)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("list users: %w", describe(err))
	}
	return out, nil
}
