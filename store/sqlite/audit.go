package sqlite

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/memgate/memgate/audit"
	"github.com/memgate/memgate/memory"
)

// Ancestor is one memory a memory was derived from, directly or not.
type Ancestor struct {
	ID        string
	Authority memory.Authority // empty when unknown or forgotten
	Revoked   bool
	Forgotten bool
}

// Ancestors returns, for each of ids, every memory it was derived from,
// following lineage transitively. Forgotten ancestors are included (their
// tombstones keep the link).
func (s *Store) Ancestors(ctx context.Context, ids []string) (map[string][]Ancestor, error) {
	out := map[string][]Ancestor{}
	if len(ids) == 0 {
		return out, nil
	}
	list, _ := json.Marshal(ids)
	rows, err := s.db.QueryContext(ctx, `WITH RECURSIVE anc(root, id) AS (
			SELECT memory_id, source_id FROM lineage WHERE memory_id IN (SELECT value FROM json_each(?))
			UNION SELECT anc.root, l.source_id FROM lineage l JOIN anc ON l.memory_id = anc.id)
		SELECT anc.root, anc.id, coalesce(m.source_authority, ''), coalesce(m.revoked, 0), m.id IS NULL
		FROM anc LEFT JOIN memories m ON m.id = anc.id ORDER BY anc.root, anc.id`, string(list))
	if err != nil {
		return nil, fmt.Errorf("read lineage: %w", describe(err))
	}
	defer rows.Close()
	for rows.Next() {
		var root string
		var a Ancestor
		var auth string
		if err := rows.Scan(&root, &a.ID, &auth, &a.Revoked, &a.Forgotten); err != nil {
			return nil, fmt.Errorf("read lineage: %w", err)
		}
		a.Authority = memory.Authority(auth)
		out[root] = append(out[root], a)
	}
	return out, rows.Err()
}

// Event is one record of the audit trail.
type Event struct {
	Seq         int64           `json:"seq"`
	Kind        audit.Kind      `json:"kind"`
	At          time.Time       `json:"at"`
	TaskID      string          `json:"taskId,omitempty"`
	UserID      string          `json:"userId,omitempty"`
	PrincipalID string          `json:"principalId,omitempty"`
	SearchID    int64           `json:"searchId,omitempty"`
	MemoryID    string          `json:"memoryId,omitempty"`
	Decision    string          `json:"decision,omitempty"`
	Payload     json.RawMessage `json:"payload"`
}

// AppendEvents adds events to the audit trail in one transaction and returns
// the sequence number of the first. An event with Kind "decision" and a zero
// SearchID is linked to the first event of the batch (its search).
func (s *Store) AppendEvents(ctx context.Context, events []Event) (int64, error) {
	if len(events) == 0 {
		return 0, nil
	}
	var first int64
	err := s.write(ctx, "append audit events", func(tx *sql.Tx) error {
		// The first event (a search, when decisions follow) goes alone so its
		// sequence number can link the rest; the others go in multi-row
		// statements, which cost far less than one statement per row.
		const cols = "(kind, at, task_id, user_id, principal_id, search_id, memory_id, decision, payload)"
		row := func(e Event, searchID int64) []any {
			return []any{e.Kind, e.At.UnixNano(), nullStr(e.TaskID), nullStr(e.UserID), nullStr(e.PrincipalID),
				nullInt(searchID), nullStr(e.MemoryID), nullStr(e.Decision), string(e.Payload)}
		}
		res, err := tx.ExecContext(ctx, "INSERT INTO audit_events"+cols+" VALUES (?,?,?,?,?,?,?,?,?)", row(events[0], events[0].SearchID)...)
		if err != nil {
			return err
		}
		if first, err = res.LastInsertId(); err != nil {
			return err
		}
		const perStmt = 100 // 900 parameters, under SQLite's limit
		for start := 1; start < len(events); start += perStmt {
			chunk := events[start:min(start+perStmt, len(events))]
			args := make([]any, 0, 9*len(chunk))
			for _, e := range chunk {
				searchID := e.SearchID
				if searchID == 0 && e.Kind == audit.Decision {
					searchID = first
				}
				args = append(args, row(e, searchID)...)
			}
			values := strings.Repeat("(?,?,?,?,?,?,?,?,?),", len(chunk))
			if _, err := tx.ExecContext(ctx, "INSERT INTO audit_events"+cols+" VALUES "+values[:len(values)-1], args...); err != nil {
				return err
			}
		}
		return nil
	})
	return first, err
}

func nullInt(n int64) any {
	if n == 0 {
		return nil
	}
	return n
}

// EventFilter selects audit events; zero fields match everything.
type EventFilter struct {
	Kind     audit.Kind
	TaskID   string
	UserID   string
	MemoryID string
	Decision string
	SearchID int64
	After    int64 // sequence number to continue after
	Limit    int   // 0 means no limit
}

// Events lists audit events in order.
func (s *Store) Events(ctx context.Context, f EventFilter) ([]Event, error) {
	where := []string{"seq > ?"}
	args := []any{f.After}
	for _, c := range []struct {
		col string
		v   string
	}{{"kind", string(f.Kind)}, {"task_id", f.TaskID}, {"user_id", f.UserID}, {"memory_id", f.MemoryID}, {"decision", f.Decision}} {
		if c.v != "" {
			where, args = append(where, c.col+" = ?"), append(args, c.v)
		}
	}
	if f.SearchID != 0 {
		where, args = append(where, "(search_id = ? OR seq = ?)"), append(args, f.SearchID, f.SearchID)
	}
	q := `SELECT seq, kind, at, coalesce(task_id,''), coalesce(user_id,''), coalesce(principal_id,''), coalesce(search_id,0),
		coalesce(memory_id,''), coalesce(decision,''), payload FROM audit_events WHERE ` + strings.Join(where, " AND ") + " ORDER BY seq"
	if f.Limit > 0 {
		q += " LIMIT " + strconv.Itoa(f.Limit)
	}
	rows, err := s.db.QueryContext(ctx, q, args...)
	if err != nil {
		return nil, fmt.Errorf("read audit trail: %w", describe(err))
	}
	defer rows.Close()
	var out []Event
	for rows.Next() {
		var e Event
		var at int64
		var payload string
		if err := rows.Scan(&e.Seq, &e.Kind, &at, &e.TaskID, &e.UserID, &e.PrincipalID, &e.SearchID, &e.MemoryID, &e.Decision, &payload); err != nil {
			return nil, fmt.Errorf("read audit trail: %w", err)
		}
		e.At, e.Payload = time.Unix(0, at).UTC(), json.RawMessage(payload)
		out = append(out, e)
	}
	return out, rows.Err()
}

// QuarantineItem is one quarantined memory awaiting (or given) a verdict.
type QuarantineItem struct {
	Seq       int64           `json:"id"`
	MemoryID  string          `json:"memoryId"`
	UserID    string          `json:"userId"`
	TaskID    string          `json:"taskId,omitempty"`
	SearchID  int64           `json:"searchId,omitempty"`
	At        time.Time       `json:"at"`
	Query     string          `json:"query,omitempty"`
	Context   json.RawMessage `json:"context"`
	Reasons   json.RawMessage `json:"reasons"`
	Status    string          `json:"status"` // pending, approved, rejected
	Reviewer  string          `json:"reviewer,omitempty"`
	VerdictAt time.Time       `json:"verdictAt,omitzero"`
	Note      string          `json:"note,omitempty"`
}

// Enqueue adds quarantined memories to the review queue.
func (s *Store) Enqueue(ctx context.Context, items []QuarantineItem) error {
	if len(items) == 0 {
		return nil
	}
	return s.write(ctx, "enqueue for review", func(tx *sql.Tx) error {
		for _, q := range items {
			if _, err := tx.ExecContext(ctx, `INSERT INTO quarantine(memory_id, user_id, task_id, search_id, at, query, context, reasons)
				VALUES (?,?,?,?,?,?,?,?)`, q.MemoryID, q.UserID, nullStr(q.TaskID), nullInt(q.SearchID), q.At.UnixNano(),
				nullStr(q.Query), string(q.Context), string(q.Reasons)); err != nil {
				return err
			}
		}
		return nil
	})
}

// Queue lists review items with the given status ("" for all), oldest first.
func (s *Store) Queue(ctx context.Context, status string, limit int) ([]QuarantineItem, error) {
	q := `SELECT seq, memory_id, user_id, coalesce(task_id,''), coalesce(search_id,0), at, coalesce(query,''), context, reasons,
		status, coalesce(reviewer,''), coalesce(verdict_at,0), coalesce(note,'') FROM quarantine`
	var args []any
	if status != "" {
		q += " WHERE status = ?"
		args = append(args, status)
	}
	q += " ORDER BY seq"
	if limit > 0 {
		q += " LIMIT " + strconv.Itoa(limit)
	}
	rows, err := s.db.QueryContext(ctx, q, args...)
	if err != nil {
		return nil, fmt.Errorf("read review queue: %w", describe(err))
	}
	defer rows.Close()
	var out []QuarantineItem
	for rows.Next() {
		var it QuarantineItem
		var at, vat int64
		var c, r string
		if err := rows.Scan(&it.Seq, &it.MemoryID, &it.UserID, &it.TaskID, &it.SearchID, &at, &it.Query, &c, &r,
			&it.Status, &it.Reviewer, &vat, &it.Note); err != nil {
			return nil, err
		}
		it.At, it.Context, it.Reasons = time.Unix(0, at).UTC(), json.RawMessage(c), json.RawMessage(r)
		if vat != 0 {
			it.VerdictAt = time.Unix(0, vat).UTC()
		}
		out = append(out, it)
	}
	return out, rows.Err()
}

// ErrAlreadyReviewed is returned for a verdict on an item that has one.
var ErrAlreadyReviewed = errors.New("review item already has a verdict")

// Verdict records a reviewer's verdict on a pending item, stores it as a
// labelled example (label "admit" when approved, "exclude" when rejected) and
// appends a verdict event to the audit trail, all in one transaction.
func (s *Store) Verdict(ctx context.Context, seq int64, approve bool, reviewer, note string, at time.Time) (QuarantineItem, error) {
	var it QuarantineItem
	status, label := "rejected", "exclude"
	if approve {
		status, label = "approved", "admit"
	}
	err := s.write(ctx, "record verdict", func(tx *sql.Tx) error {
		var c, r, cur string
		var taskID, query sql.NullString
		err := tx.QueryRowContext(ctx, `SELECT memory_id, user_id, task_id, query, context, reasons, status FROM quarantine WHERE seq = ?`, seq).
			Scan(&it.MemoryID, &it.UserID, &taskID, &query, &c, &r, &cur)
		if errors.Is(err, sql.ErrNoRows) {
			return fmt.Errorf("review item %d: not found", seq)
		}
		if err != nil {
			return err
		}
		if cur != "pending" {
			return fmt.Errorf("review item %d: %w (%s)", seq, ErrAlreadyReviewed, cur)
		}
		if _, err := tx.ExecContext(ctx, `UPDATE quarantine SET status = ?, reviewer = ?, verdict_at = ?, note = ? WHERE seq = ?`,
			status, nullStr(reviewer), at.UnixNano(), nullStr(note), seq); err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, `INSERT INTO examples(memory_id, query, context, label, source, at) VALUES (?,?,?,?,'reviewer',?)`,
			it.MemoryID, query, c, label, at.UnixNano()); err != nil {
			return err
		}
		payload, _ := json.Marshal(map[string]any{"reviewItem": seq, "verdict": status, "reviewer": reviewer, "note": note})
		_, err = tx.ExecContext(ctx, `INSERT INTO audit_events(kind, at, task_id, user_id, principal_id, memory_id, decision, payload)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?)`, audit.Verdict, at.UnixNano(), taskID, it.UserID, nullStr(reviewer), it.MemoryID, status, string(payload))
		it.Seq, it.Status, it.Reviewer, it.VerdictAt, it.Note = seq, status, reviewer, at.UTC(), note
		it.TaskID, it.Query, it.Context, it.Reasons = taskID.String, query.String, json.RawMessage(c), json.RawMessage(r)
		return err
	})
	return it, err
}

// Example is a labelled admission example from a reviewer's verdict.
type Example struct {
	MemoryID string          `json:"memoryId"`
	Query    string          `json:"query,omitempty"`
	Context  json.RawMessage `json:"context"`
	Label    string          `json:"label"` // admit or exclude
	Source   string          `json:"source"`
	At       time.Time       `json:"at"`
}

// Examples lists the labelled examples in order.
func (s *Store) Examples(ctx context.Context) ([]Example, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT memory_id, coalesce(query,''), context, label, source, at FROM examples ORDER BY seq`)
	if err != nil {
		return nil, fmt.Errorf("read examples: %w", describe(err))
	}
	defer rows.Close()
	var out []Example
	for rows.Next() {
		var e Example
		var c string
		var at int64
		if err := rows.Scan(&e.MemoryID, &e.Query, &c, &e.Label, &e.Source, &at); err != nil {
			return nil, err
		}
		e.Context, e.At = json.RawMessage(c), time.Unix(0, at).UTC()
		out = append(out, e)
	}
	return out, rows.Err()
}
