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
	"github.com/memgate/memgate/lineage"
	"github.com/memgate/memgate/memory"
	"github.com/memgate/memgate/store"
)

// ancestorsSQL reads the lineage of the memories whose ids are in a JSON
// array, transitively, over the roots and everything they lead to: a row
// (ancestorMemory, id, user, authority, revoked, "") for each stored
// memory, (ancestorTombstone, id, user, "", 0, "") for each tombstone and
// (ancestorLink, id, "", "", 0, source) for each link, where "" is the
// empty string. The rows come in no particular order: lineage.Ancestors
// sorts what it returns.
//
// Each join is a CROSS JOIN, which SQLite does in the order written: every
// id reached is looked up in the tables' indexes, and no table is scanned,
// whatever the planner would guess of their sizes.
const ancestorsSQL = `WITH RECURSIVE
			reach(id) AS (SELECT value FROM json_each(?)
				UNION SELECT l.source_id FROM reach CROSS JOIN lineage l ON l.memory_id = reach.id)
		SELECT 0, m.id, m.user_id, coalesce(m.source_authority, ''), m.revoked, '' FROM reach CROSS JOIN memories m ON m.id = reach.id
		UNION ALL SELECT 1, t.id, t.user_id, '', 0, '' FROM reach CROSS JOIN tombstones t ON t.id = reach.id
		UNION ALL SELECT 2, l.memory_id, '', '', 0, l.source_id FROM reach CROSS JOIN lineage l ON l.memory_id = reach.id`

// The kinds of ancestorsSQL's rows.
const (
	ancestorMemory = iota
	ancestorTombstone
	ancestorLink
)

// Ancestors returns, for each of ids that is stored, every memory it was
// derived from, as lineage.Ancestors defines them. One query finds the
// transitive closure of the links; the walk that applies the rules (lineage
// never crosses users; a forgotten memory keeps its incoming links but not
// its own) is the one every store shares.
func (s *Store) Ancestors(ctx context.Context, ids []string) (map[string][]lineage.Ancestor, error) {
	out := map[string][]lineage.Ancestor{}
	if len(ids) == 0 {
		return out, nil
	}
	return s.cachedAncestors(ctx, ids)
}

// ancestorsUncached is Ancestors, read from the database.
func (s *Store) ancestorsUncached(ctx context.Context, ids []string) (map[string][]lineage.Ancestor, error) {
	rows, err := s.query(ctx, ancestorsSQL, idList(ids))
	if err != nil {
		return nil, fmt.Errorf("read lineage: %w", describe(err))
	}
	defer rows.Close()
	var g lineage.Graph
	for rows.Next() {
		var kind int
		var id, user, auth, source string
		var revoked bool
		if err := rows.Scan(&kind, &id, &user, &auth, &revoked, &source); err != nil {
			return nil, fmt.Errorf("read lineage: %w", err)
		}
		switch kind {
		case ancestorMemory:
			g.Memory(id, user, memory.Authority(auth), revoked)
		case ancestorTombstone:
			g.Tombstone(id, user)
		case ancestorLink:
			g.Link(id, source)
		}
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("read lineage: %w", describe(err))
	}
	return g.Ancestors(ids), nil
}

// execer runs a statement within a transaction: a *sql.Tx, or the audit
// writer's, which reuses prepared statements.
type execer interface {
	ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error)
}

// appendEvents appends events within tx and returns the sequence number of
// the first. A decision event with no SearchID is linked to the first event
// of the batch (its search).
func appendEvents(ctx context.Context, tx execer, events []audit.Event) (int64, error) {
	if len(events) == 0 {
		return 0, nil
	}
	// The first event (a search, when decisions follow) goes alone so its
	// sequence number can link the rest; the others go in multi-row
	// statements, which cost far less than one statement per row.
	const cols = "(kind, at, task_id, user_id, principal_id, search_id, memory_id, decision, payload)"
	row := func(e *audit.Event, searchID int64) []any {
		return []any{e.Kind, e.At.UnixNano(), nullStr(e.TaskID), nullStr(e.UserID), nullStr(e.PrincipalID),
			nullInt(searchID), nullStr(e.MemoryID), nullStr(e.Decision), string(e.Payload)}
	}
	res, err := tx.ExecContext(ctx, "INSERT INTO audit_events"+cols+" VALUES (?,?,?,?,?,?,?,?,?)", row(&events[0], events[0].SearchID)...)
	if err != nil {
		return 0, err
	}
	first, err := res.LastInsertId()
	if err != nil {
		return 0, err
	}
	const perStmt = 100 // 900 parameters, under SQLite's limit
	for start := 1; start < len(events); start += perStmt {
		chunk := events[start:min(start+perStmt, len(events))]
		args := make([]any, 0, 9*len(chunk))
		for i := range chunk {
			searchID := chunk[i].SearchID
			if searchID == 0 && chunk[i].Kind == audit.Decision {
				searchID = first
			}
			args = append(args, row(&chunk[i], searchID)...)
		}
		values := strings.Repeat("(?,?,?,?,?,?,?,?,?),", len(chunk))
		if _, err := tx.ExecContext(ctx, "INSERT INTO audit_events"+cols+" VALUES "+values[:len(values)-1], args...); err != nil {
			return 0, err
		}
	}
	return first, nil
}

// AppendEvents adds events to the audit trail in one transaction and returns
// the sequence number of the first. A decision event with no SearchID is
// linked to the first event of the batch (its search).
//
// The events are written by the store's audit writer (see RecordAdmission),
// with the durability OpenOptions.AuditSync chose; the caller must not
// change them until AppendEvents returns.
func (s *Store) AppendEvents(ctx context.Context, events []audit.Event) (int64, error) {
	if w := s.audit; w != nil {
		if len(events) == 0 {
			return 0, nil
		}
		return w.do(ctx, &auditReq{what: "append audit events", events: events})
	}
	var first int64
	err := s.write(ctx, "append audit events", func(tx *sql.Tx) (err error) {
		first, err = appendEvents(ctx, tx, events)
		return err
	})
	return first, err
}

// RecordAdmission writes an admission's search event, decisions and
// quarantine items in one transaction, and returns the search event's
// sequence number, to which the decisions and items are linked.
//
// The store's audit writer writes it: one goroutine that takes every
// admission and AppendEvents waiting, writes them on its own connection in
// one transaction and commits once (group commit), with the durability
// OpenOptions.AuditSync chose (see the package documentation). It returns
// once that transaction has committed. If ctx ends before the writer takes
// the admission, nothing is written and the error wraps ctx's; if it ends
// after, the admission is still written (with the others of its
// transaction) and RecordAdmission returns ctx's error at once, unless the
// commit came first. An admission that fails to be written fails alone: the
// others of its transaction are written again, each in its own. The caller
// must not change a until RecordAdmission returns.
func (s *Store) RecordAdmission(ctx context.Context, a *audit.Admission) (int64, error) {
	if err := a.Check(); err != nil {
		return 0, err
	}
	events := make([]audit.Event, 0, 1+len(a.Decisions))
	events = append(append(events, a.Search), a.Decisions...)
	for i := 1; i < len(events); i++ {
		events[i].SearchID = 0 // linked to this admission's search, whatever the caller said
	}
	if w := s.audit; w != nil {
		return w.do(ctx, &auditReq{what: "record admission", events: events, quarantine: a.Quarantine, admission: true})
	}
	var searchID int64
	err := s.write(ctx, "record admission", func(tx *sql.Tx) (err error) {
		if searchID, err = appendEvents(ctx, tx, events); err != nil {
			return err
		}
		return insertQuarantine(ctx, tx, searchID, a.Quarantine)
	})
	return searchID, err
}

// insertQuarantine enqueues an admission's quarantined memories for review,
// linked to its search event searchID.
func insertQuarantine(ctx context.Context, tx execer, searchID int64, items []audit.QuarantineItem) error {
	for _, q := range items {
		if _, err := tx.ExecContext(ctx, `INSERT INTO quarantine(memory_id, user_id, task_id, search_id, at, query, context, reasons)
			VALUES (?,?,?,?,?,?,?,?)`, q.MemoryID, q.UserID, nullStr(q.TaskID), searchID, q.At.UnixNano(),
			nullStr(q.Query), string(q.Context), string(q.Reasons)); err != nil {
			return err
		}
	}
	return nil
}

func nullInt(n int64) any {
	if n == 0 {
		return nil
	}
	return n
}

// Events lists audit events in order.
func (s *Store) Events(ctx context.Context, f audit.Filter) ([]audit.Event, error) {
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
	if f.MemoryID != "" {
		// A memory's events: those the memory index covers, and those
		// after it, which the audit writer has not indexed yet (schema v8).
		where = append(where, `seq IN (SELECT seq FROM audit_memory_index WHERE memory_id = ? AND seq > ?
			UNION ALL SELECT seq FROM audit_events WHERE seq > max(?, `+memoryIndexUpto+`) AND memory_id = ?)`)
		args = append(args, f.MemoryID, f.After, f.After, f.MemoryID)
	}
	if f.SearchID != 0 {
		where, args = append(where, "(search_id = ? OR seq = ?)"), append(args, f.SearchID, f.SearchID)
	}
	// The limit is a parameter, not part of the text, so that each shape of
	// filter is one statement, prepared once (bind reads a task's
	// decisions through here).
	limit := -1 // SQLite: no limit
	if f.Limit > 0 {
		limit = f.Limit
	}
	q := `SELECT seq, kind, at, coalesce(task_id,''), coalesce(user_id,''), coalesce(principal_id,''), coalesce(search_id,0),
		coalesce(memory_id,''), coalesce(decision,''), payload FROM audit_events WHERE ` + strings.Join(where, " AND ") + " ORDER BY seq LIMIT ?"
	rows, err := s.query(ctx, q, append(args, limit)...)
	if err != nil {
		return nil, fmt.Errorf("read audit trail: %w", describe(err))
	}
	defer rows.Close()
	var out []audit.Event
	for rows.Next() {
		var e audit.Event
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

// Queue lists the review items f selects, oldest first.
func (s *Store) Queue(ctx context.Context, f audit.QueueFilter) ([]audit.QuarantineItem, error) {
	q := `SELECT seq, memory_id, user_id, coalesce(task_id,''), coalesce(search_id,0), at, coalesce(query,''), context, reasons,
		status, coalesce(reviewer,''), coalesce(verdict_at,0), coalesce(note,'') FROM quarantine WHERE 1`
	var args []any
	if f.Status != "" {
		q, args = q+" AND status = ?", append(args, f.Status)
	}
	if f.UserID != "" {
		q, args = q+" AND user_id = ?", append(args, f.UserID)
	}
	q += " ORDER BY seq"
	if f.Limit > 0 {
		q += " LIMIT " + strconv.Itoa(f.Limit)
	}
	rows, err := s.db.QueryContext(ctx, q, args...)
	if err != nil {
		return nil, fmt.Errorf("read review queue: %w", describe(err))
	}
	defer rows.Close()
	var out []audit.QuarantineItem
	for rows.Next() {
		var it audit.QuarantineItem
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

// Review records a reviewer's verdict on a pending item, stores it as a
// labelled example (label "admit" when approved, "exclude" when rejected) and
// appends a verdict event to the audit trail, all in one transaction.
func (s *Store) Review(ctx context.Context, r audit.Review) (audit.QuarantineItem, error) {
	var it audit.QuarantineItem
	status, label := r.Status()
	err := s.write(ctx, "record verdict", func(tx *sql.Tx) error {
		var c, rs, cur string
		var taskID, query sql.NullString
		var searchID sql.NullInt64
		var at int64
		err := tx.QueryRowContext(ctx, `SELECT memory_id, user_id, task_id, search_id, at, query, context, reasons, status FROM quarantine WHERE seq = ?`, r.Item).
			Scan(&it.MemoryID, &it.UserID, &taskID, &searchID, &at, &query, &c, &rs, &cur)
		if errors.Is(err, sql.ErrNoRows) {
			return fmt.Errorf("review item %d: %w", r.Item, store.ErrNotFound)
		}
		if err != nil {
			return err
		}
		if cur != audit.Pending {
			return fmt.Errorf("review item %d: %w (%s)", r.Item, store.ErrAlreadyReviewed, cur)
		}
		if _, err := tx.ExecContext(ctx, `UPDATE quarantine SET status = ?, reviewer = ?, verdict_at = ?, note = ? WHERE seq = ?`,
			status, nullStr(r.Reviewer), r.At.UnixNano(), nullStr(r.Note), r.Item); err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, `INSERT INTO examples(memory_id, query, context, label, source, at) VALUES (?,?,?,?,'reviewer',?)`,
			it.MemoryID, query, c, label, r.At.UnixNano()); err != nil {
			return err
		}
		it.Seq, it.Status, it.Reviewer, it.VerdictAt, it.Note = r.Item, status, r.Reviewer, r.At.UTC(), r.Note
		it.TaskID, it.SearchID, it.At, it.Query = taskID.String, searchID.Int64, time.Unix(0, at).UTC(), query.String
		it.Context, it.Reasons = json.RawMessage(c), json.RawMessage(rs)
		_, err = appendEvents(ctx, tx, []audit.Event{r.Event(&it)})
		return err
	})
	return it, err
}

// Examples lists the labelled examples in order.
func (s *Store) Examples(ctx context.Context) ([]audit.Example, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT memory_id, coalesce(query,''), context, label, source, at FROM examples ORDER BY seq`)
	if err != nil {
		return nil, fmt.Errorf("read examples: %w", describe(err))
	}
	defer rows.Close()
	var out []audit.Example
	for rows.Next() {
		var e audit.Example
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
