package postgres

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/memgate/memgate/audit"
	"github.com/memgate/memgate/lineage"
	"github.com/memgate/memgate/memory"
	"github.com/memgate/memgate/store"
)

// ancestorsSQL reads the lineage of the memories whose ids are in $1,
// transitively, within each one's user: a row (ancestorMemory, id, user,
// authority, revoked, "") for each stored memory reached, (ancestorTombstone,
// id, user, "", false, "") for each tombstone and (ancestorLink, id, "", "",
// false, source) for each link. Links never cross users (Insert refuses
// them), and the walk is joined by user_id all the same. The rows come in
// no particular order: lineage.Ancestors sorts what it returns.
const ancestorsSQL = `WITH RECURSIVE
		reach(id, user_id) AS (
			SELECT m.id, m.user_id FROM memories m WHERE m.id = ANY($1)
			UNION SELECT l.source_id, l.user_id FROM reach JOIN lineage l ON l.memory_id = reach.id AND l.user_id = reach.user_id)
	SELECT 0, m.id, m.user_id, coalesce(m.source_authority, ''), m.revoked, '' FROM reach JOIN memories m ON m.id = reach.id AND m.user_id = reach.user_id
	UNION ALL SELECT 1, t.id, t.user_id, '', false, '' FROM reach JOIN tombstones t ON t.id = reach.id AND t.user_id = reach.user_id
	UNION ALL SELECT 2, l.memory_id, '', '', false, l.source_id FROM reach JOIN lineage l ON l.memory_id = reach.id AND l.user_id = reach.user_id`

// The kinds of ancestorsSQL's rows.
const (
	ancestorMemory = iota
	ancestorTombstone
	ancestorLink
)

// Ancestors returns, for each of ids that is stored, every memory it was
// derived from, as lineage.Ancestors defines them. One recursive query finds
// the transitive closure of the links; the walk that applies the rules
// (lineage never crosses users; a forgotten memory keeps its incoming links
// but not its own) is the one every store shares.
func (s *Store) Ancestors(ctx context.Context, ids []string) (map[string][]lineage.Ancestor, error) {
	out := map[string][]lineage.Ancestor{}
	if len(ids) == 0 {
		return out, nil
	}
	rows, err := s.pool.Query(ctx, ancestorsSQL, distinct(ids))
	if err != nil {
		return nil, fmt.Errorf("read lineage: %w", describe(err))
	}
	defer rows.Close()
	var g lineage.Graph
	for rows.Next() {
		var kind int32
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

// drawSQL draws n numbers of table's seq sequence and ranks them: row i
// (ord) gets the i-th smallest, whatever order the server evaluated nextval
// in. Under the audit lock no other writer draws from the sequence.
func drawSQL(name, table, n string) string {
	return name + ` AS MATERIALIZED (SELECT row_number() OVER (ORDER BY v) AS ord, v AS seq
		FROM (SELECT nextval(pg_get_serial_sequence('` + table + `', 'seq')) AS v FROM generate_series(1, ` + n + `)) x)`
}

// appendSQL appends the events given as arrays ($1…$10, one element per
// event; $10 says which are decisions to link to the first event) in one
// statement and returns the first event's sequence number. recordSQL also
// enqueues an admission's quarantine items ($11…$17), linked to it.
var (
	eventsCTE = `WITH ` + drawSQL("drawn", "audit_events", "cardinality($1::text[])") + `,
	first AS (SELECT min(seq) AS seq FROM drawn),
	ins AS (INSERT INTO audit_events (seq, kind, at, task_id, user_id, principal_id, search_id, memory_id, decision, payload)
		SELECT d.seq, e.kind, e.at, e.task_id, e.user_id, e.principal_id,
			CASE WHEN e.link THEN (SELECT seq FROM first) ELSE e.search_id END, e.memory_id, e.decision, e.payload
		FROM unnest($1::text[], $2::int8[], $3::text[], $4::text[], $5::text[], $6::int8[], $7::text[], $8::text[], $9::bytea[], $10::bool[])
			WITH ORDINALITY AS e(kind, at, task_id, user_id, principal_id, search_id, memory_id, decision, payload, link, ord)
		JOIN drawn d ON d.ord = e.ord)`
	appendSQL = eventsCTE + `
	SELECT seq FROM first`
	recordSQL = eventsCTE + `,
	` + drawSQL("qdrawn", "quarantine", "cardinality($11::text[])") + `,
	qins AS (INSERT INTO quarantine (seq, memory_id, user_id, task_id, search_id, at, query, context, reasons)
		SELECT d.seq, q.memory_id, q.user_id, q.task_id, (SELECT seq FROM first), q.at, q.query, q.context, q.reasons
		FROM unnest($11::text[], $12::text[], $13::text[], $14::int8[], $15::bytea[], $16::bytea[], $17::bytea[])
			WITH ORDINALITY AS q(memory_id, user_id, task_id, at, query, context, reasons, ord)
		JOIN qdrawn d ON d.ord = q.ord)
	SELECT seq FROM first`
)

// eventArgs are the arguments $1…$10 of appendSQL for events. A decision
// event after the first with no SearchID is linked to the first event of
// the batch (its search).
func eventArgs(events []audit.Event) []any {
	n := len(events)
	kinds, tasks, users, principals := make([]string, n), make([]*string, n), make([]*string, n), make([]*string, n)
	ats, searchIDs, links := make([]int64, n), make([]*int64, n), make([]bool, n)
	memoryIDs, decisions, payloads := make([]*string, n), make([]*string, n), make([][]byte, n)
	for i := range events {
		e := &events[i]
		kinds[i], ats[i] = string(e.Kind), e.At.UnixNano()
		tasks[i], users[i], principals[i] = strPtr(e.TaskID), strPtr(e.UserID), strPtr(e.PrincipalID)
		memoryIDs[i], decisions[i] = strPtr(e.MemoryID), strPtr(e.Decision)
		if e.SearchID != 0 {
			searchIDs[i] = &e.SearchID
		}
		links[i] = i > 0 && e.SearchID == 0 && e.Kind == audit.Decision
		payloads[i] = append([]byte{}, e.Payload...) // never NULL: an event without a payload has an empty one
	}
	return []any{kinds, ats, tasks, users, principals, searchIDs, memoryIDs, decisions, payloads, links}
}

// quarantineArgs are the arguments $11…$17 of recordSQL for items.
func quarantineArgs(items []audit.QuarantineItem) []any {
	n := len(items)
	memoryIDs, users, tasks := make([]string, n), make([]string, n), make([]*string, n)
	ats, queries, contexts, reasons := make([]int64, n), make([][]byte, n), make([][]byte, n), make([][]byte, n)
	for i, q := range items {
		memoryIDs[i], users[i], tasks[i] = q.MemoryID, q.UserID, strPtr(q.TaskID)
		ats[i] = q.At.UnixNano()
		if q.Query != "" {
			queries[i] = []byte(q.Query)
		}
		contexts[i], reasons[i] = append([]byte{}, q.Context...), append([]byte{}, q.Reasons...)
	}
	return []any{memoryIDs, users, tasks, ats, queries, contexts, reasons}
}

// appendEvents appends events within tx, which holds the audit lock, and
// returns the sequence number of the first.
func appendEvents(ctx context.Context, tx pgx.Tx, events []audit.Event) (int64, error) {
	if len(events) == 0 {
		return 0, nil
	}
	var first int64
	err := tx.QueryRow(ctx, appendSQL, eventArgs(events)...).Scan(&first)
	return first, err
}

func strPtr(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

// appendBatch takes the audit lock and runs stmt, which returns one
// sequence number, in one round trip: a batch is one implicit transaction,
// and the lock is held until it commits.
func (s *Store) appendBatch(ctx context.Context, what, stmt string, args []any) (int64, error) {
	var first int64
	b := &pgx.Batch{}
	b.Queue("SELECT pg_advisory_xact_lock($1)", s.auditLock)
	b.Queue(stmt, args...).QueryRow(func(row pgx.Row) error { return row.Scan(&first) })
	if err := s.pool.SendBatch(ctx, b).Close(); err != nil {
		return 0, fmt.Errorf("%s: %w", what, describe(err))
	}
	return first, nil
}

// AppendEvents adds events to the audit trail in one transaction and returns
// the sequence number of the first. A decision event with no SearchID is
// linked to the first event of the batch (its search).
func (s *Store) AppendEvents(ctx context.Context, events []audit.Event) (int64, error) {
	if len(events) == 0 {
		return 0, nil
	}
	return s.appendBatch(ctx, "append audit events", appendSQL, eventArgs(events))
}

// RecordAdmission writes an admission's search event, decisions and
// quarantine items in one transaction, and one round trip to the server,
// and returns the search event's sequence number, to which the decisions
// and items are linked. An admission that fails a.Check writes nothing.
func (s *Store) RecordAdmission(ctx context.Context, a *audit.Admission) (int64, error) {
	if err := a.Check(); err != nil {
		return 0, err
	}
	events := make([]audit.Event, 0, 1+len(a.Decisions))
	events = append(append(events, a.Search), a.Decisions...)
	for i := 1; i < len(events); i++ {
		events[i].SearchID = 0 // linked to this admission's search, whatever the caller said
	}
	return s.appendBatch(ctx, "record admission", recordSQL, append(eventArgs(events), quarantineArgs(a.Quarantine)...))
}

// Events lists audit events in order.
func (s *Store) Events(ctx context.Context, f audit.Filter) ([]audit.Event, error) {
	where := []string{"seq > $1"}
	args := []any{f.After}
	for _, c := range []struct {
		col string
		v   string
	}{{"kind", string(f.Kind)}, {"task_id", f.TaskID}, {"user_id", f.UserID}, {"memory_id", f.MemoryID}, {"decision", f.Decision}} {
		if c.v != "" {
			args = append(args, c.v)
			where = append(where, c.col+" = $"+strconv.Itoa(len(args)))
		}
	}
	if f.SearchID != 0 {
		args = append(args, f.SearchID)
		where = append(where, "(search_id = $"+strconv.Itoa(len(args))+" OR seq = $"+strconv.Itoa(len(args))+")")
	}
	// The limit is a parameter, not part of the text, so that each shape of
	// filter is one statement, which pgx prepares once per connection.
	var limit *int64
	if f.Limit > 0 {
		l := int64(f.Limit)
		limit = &l
	}
	args = append(args, limit)
	q := `SELECT seq, kind, at, coalesce(task_id, ''), coalesce(user_id, ''), coalesce(principal_id, ''), coalesce(search_id, 0),
		coalesce(memory_id, ''), coalesce(decision, ''), payload FROM audit_events WHERE ` + strings.Join(where, " AND ") +
		" ORDER BY seq LIMIT $" + strconv.Itoa(len(args))
	rows, err := s.pool.Query(ctx, q, args...)
	if err != nil {
		return nil, fmt.Errorf("read audit trail: %w", describe(err))
	}
	defer rows.Close()
	var out []audit.Event
	for rows.Next() {
		var e audit.Event
		var kind string
		var at int64
		var payload []byte
		if err := rows.Scan(&e.Seq, &kind, &at, &e.TaskID, &e.UserID, &e.PrincipalID, &e.SearchID, &e.MemoryID, &e.Decision, &payload); err != nil {
			return nil, fmt.Errorf("read audit trail: %w", err)
		}
		e.Kind, e.At, e.Payload = audit.Kind(kind), time.Unix(0, at).UTC(), json.RawMessage(string(payload))
		out = append(out, e)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("read audit trail: %w", describe(err))
	}
	return out, nil
}

const queueColumns = `seq, memory_id, user_id, coalesce(task_id, ''), coalesce(search_id, 0), at, query, context, reasons,
	status, coalesce(reviewer, ''), coalesce(verdict_at, 0), note`

// Queue lists the review items f selects, oldest first.
func (s *Store) Queue(ctx context.Context, f audit.QueueFilter) ([]audit.QuarantineItem, error) {
	var where []string
	var args []any
	if f.Status != "" {
		args = append(args, f.Status)
		where = append(where, "status = $"+strconv.Itoa(len(args)))
	}
	if f.UserID != "" {
		args = append(args, f.UserID)
		where = append(where, "user_id = $"+strconv.Itoa(len(args)))
	}
	q := "SELECT " + queueColumns + " FROM quarantine"
	if len(where) > 0 {
		q += " WHERE " + strings.Join(where, " AND ")
	}
	var limit *int64 // a parameter, so that each shape of filter is one statement
	if f.Limit > 0 {
		l := int64(f.Limit)
		limit = &l
	}
	args = append(args, limit)
	q += " ORDER BY seq LIMIT $" + strconv.Itoa(len(args))
	rows, err := s.pool.Query(ctx, q, args...)
	if err != nil {
		return nil, fmt.Errorf("read review queue: %w", describe(err))
	}
	defer rows.Close()
	var out []audit.QuarantineItem
	for rows.Next() {
		it, err := scanItem(rows)
		if err != nil {
			return nil, fmt.Errorf("read review queue: %w", err)
		}
		out = append(out, it)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("read review queue: %w", describe(err))
	}
	return out, nil
}

// scanItem scans a row of queueColumns.
func scanItem(row pgx.Row) (audit.QuarantineItem, error) {
	var it audit.QuarantineItem
	var at, vat int64
	var query, c, r, note []byte
	if err := row.Scan(&it.Seq, &it.MemoryID, &it.UserID, &it.TaskID, &it.SearchID, &at, &query, &c, &r,
		&it.Status, &it.Reviewer, &vat, &note); err != nil {
		return it, err
	}
	it.At, it.Query, it.Note = time.Unix(0, at).UTC(), string(query), string(note)
	it.Context, it.Reasons = json.RawMessage(string(c)), json.RawMessage(string(r))
	if vat != 0 {
		it.VerdictAt = time.Unix(0, vat).UTC()
	}
	return it, nil
}

// Review records a reviewer's verdict on a pending item, stores it as a
// labelled example (label "admit" when approved, "exclude" when rejected) and
// appends a verdict event to the audit trail, all in one transaction.
func (s *Store) Review(ctx context.Context, r audit.Review) (audit.QuarantineItem, error) {
	var it audit.QuarantineItem
	status, label := r.Status()
	err := s.write(ctx, "record verdict", auditLock, func(tx pgx.Tx) error {
		var err error
		it, err = scanItem(tx.QueryRow(ctx, "SELECT "+queueColumns+" FROM quarantine WHERE seq = $1 FOR UPDATE", r.Item))
		if errors.Is(err, pgx.ErrNoRows) {
			return fmt.Errorf("review item %d: %w", r.Item, store.ErrNotFound)
		}
		if err != nil {
			return err
		}
		if it.Status != audit.Pending {
			return fmt.Errorf("review item %d: %w (%s)", r.Item, store.ErrAlreadyReviewed, it.Status)
		}
		if _, err := tx.Exec(ctx, `UPDATE quarantine SET status = $1, reviewer = $2, verdict_at = $3, note = $4 WHERE seq = $5`,
			status, nullStr(r.Reviewer), r.At.UnixNano(), nullBytes(r.Note), r.Item); err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, `INSERT INTO examples (user_id, memory_id, review_item, query, context, label, source, at)
			VALUES ($1, $2, $3, $4, $5, $6, 'reviewer', $7)`,
			it.UserID, it.MemoryID, r.Item, nullBytes(it.Query), append([]byte{}, it.Context...), label, r.At.UnixNano()); err != nil {
			return err
		}
		it.Status, it.Reviewer, it.VerdictAt, it.Note = status, r.Reviewer, r.At.UTC(), r.Note
		_, err = appendEvents(ctx, tx, []audit.Event{r.Event(&it)})
		return err
	})
	if err != nil {
		return audit.QuarantineItem{}, err
	}
	return it, nil
}

// Examples lists the labelled examples in order.
func (s *Store) Examples(ctx context.Context) ([]audit.Example, error) {
	rows, err := s.pool.Query(ctx, `SELECT memory_id, query, context, label, source, at FROM examples ORDER BY seq`)
	if err != nil {
		return nil, fmt.Errorf("read examples: %w", describe(err))
	}
	defer rows.Close()
	var out []audit.Example
	for rows.Next() {
		var e audit.Example
		var query, c []byte
		var at int64
		if err := rows.Scan(&e.MemoryID, &query, &c, &e.Label, &e.Source, &at); err != nil {
			return nil, fmt.Errorf("read examples: %w", err)
		}
		e.Query, e.Context, e.At = string(query), json.RawMessage(string(c)), time.Unix(0, at).UTC()
		out = append(out, e)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("read examples: %w", describe(err))
	}
	return out, nil
}
