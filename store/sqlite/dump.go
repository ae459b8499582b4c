package sqlite

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"encoding/json"
	"errors"
	"fmt"
	"iter"
	"strconv"
	"time"

	"github.com/memgate/memgate/audit"
	"github.com/memgate/memgate/embed"
	"github.com/memgate/memgate/memory"
	"github.com/memgate/memgate/store"
)

// The contract of a logical dump (see store.Dumper).
var (
	_ store.Dumper   = (*Store)(nil)
	_ store.Restorer = (*Store)(nil)
)

// Dump calls fn with every record of the store in the canonical order of
// store.Dumper, from one read transaction: a consistent snapshot, which
// writers of the store (in WAL mode) do not wait for. The examples' review
// items and users, which this schema does not keep, are recovered with
// store.ReviewLinks.
func (s *Store) Dump(ctx context.Context, fn func(store.Record) error) error {
	conn, err := s.db.Conn(ctx)
	if err != nil {
		return fmt.Errorf("dump store %s: %w", s.path, describe(err))
	}
	// A deferred BEGIN: the snapshot starts at the first read, and the
	// transaction never takes the write lock (the pool's own transactions
	// begin IMMEDIATE). database/sql does not know of it, so a connection
	// that cannot end it is discarded rather than returned to the pool.
	if _, err := conn.ExecContext(ctx, "BEGIN"); err != nil {
		conn.Close()
		return fmt.Errorf("dump store %s: %w", s.path, describe(err))
	}
	defer func() {
		if _, err := conn.ExecContext(context.WithoutCancel(ctx), "ROLLBACK"); err != nil {
			conn.Raw(func(any) error { return driver.ErrBadConn })
		}
		conn.Close()
	}()
	err = dumpTx(ctx, conn, fn)
	var fe store.CallbackError
	if errors.As(err, &fe) {
		return fe.Err
	}
	if err != nil {
		return fmt.Errorf("dump store %s: %w", s.path, describe(err))
	}
	return nil
}

// dumpTx streams the records, each kind with one query on conn.
func dumpTx(ctx context.Context, conn *sql.Conn, fn func(store.Record) error) error {
	emit := func(r store.Record) error {
		if err := fn(r); err != nil {
			return store.CallbackError{Err: err}
		}
		return nil
	}
	// each runs q and calls scan for each row.
	each := func(what, q string, scan func(*sql.Rows) error) error {
		rows, err := conn.QueryContext(ctx, q)
		if err != nil {
			return fmt.Errorf("read %s: %w", what, err)
		}
		defer rows.Close()
		for rows.Next() {
			if err := scan(rows); err != nil {
				var fe store.CallbackError
				if errors.As(err, &fe) {
					return err
				}
				return fmt.Errorf("read %s: %w", what, err)
			}
		}
		if err := rows.Err(); err != nil {
			return fmt.Errorf("read %s: %w", what, err)
		}
		return nil
	}

	var name, dim sql.NullString
	if err := conn.QueryRowContext(ctx, `SELECT (SELECT value FROM meta WHERE key = 'embedder_name'),
		(SELECT value FROM meta WHERE key = 'embedder_dim')`).Scan(&name, &dim); err != nil {
		return fmt.Errorf("read embedder identity: %w", err)
	}
	if name.Valid {
		d, err := strconv.Atoi(dim.String)
		if err != nil || d <= 0 {
			return fmt.Errorf("read embedder identity: corrupt dimension %q", dim.String)
		}
		if err := emit(store.Record{Kind: store.RecordIdentity, Identity: &embed.Identity{Name: name.String, Dim: d}}); err != nil {
			return err
		}
	}

	sc := newMemoryScanner(true)
	if err := each("memories", "SELECT "+memoryColumns+", embedding FROM memories ORDER BY seq", func(rows *sql.Rows) error {
		m, seq, err := sc.scan(rows)
		if err != nil {
			return err
		}
		return emit(store.Record{Kind: store.RecordMemory, Memory: &store.StoredMemory{Seq: seq, Memory: m}})
	}); err != nil {
		return err
	}

	if err := each("tombstones", "SELECT id, user_id, forgotten_at, reason FROM tombstones ORDER BY id", func(rows *sql.Rows) error {
		var t memory.Tombstone
		var at int64
		var reason sql.NullString
		if err := rows.Scan(&t.ID, &t.UserID, &at, &reason); err != nil {
			return err
		}
		t.ForgottenAt, t.Reason = time.Unix(0, at).UTC(), reason.String
		return emit(store.Record{Kind: store.RecordTombstone, Tombstone: &t})
	}); err != nil {
		return err
	}

	for _, rel := range []struct {
		kind store.RecordKind
		q    string
	}{
		{store.RecordLineage, "SELECT memory_id, source_id FROM lineage ORDER BY memory_id, source_id"},
		{store.RecordSupersession, "SELECT memory_id, superseded_id FROM supersessions ORDER BY memory_id, superseded_id"},
	} {
		if err := each(rel.kind.String(), rel.q, func(rows *sql.Rows) error {
			var l store.Link
			if err := rows.Scan(&l.MemoryID, &l.Ref); err != nil {
				return err
			}
			return emit(store.Record{Kind: rel.kind, Link: &l})
		}); err != nil {
			return err
		}
	}

	if err := each("audit trail", `SELECT seq, kind, at, coalesce(task_id, ''), coalesce(user_id, ''), coalesce(principal_id, ''),
		coalesce(search_id, 0), coalesce(memory_id, ''), coalesce(decision, ''), payload FROM audit_events ORDER BY seq`, func(rows *sql.Rows) error {
		var e audit.Event
		var at int64
		var payload string
		if err := rows.Scan(&e.Seq, &e.Kind, &at, &e.TaskID, &e.UserID, &e.PrincipalID, &e.SearchID, &e.MemoryID, &e.Decision, &payload); err != nil {
			return err
		}
		e.At, e.Payload = time.Unix(0, at).UTC(), json.RawMessage(payload)
		return emit(store.Record{Kind: store.RecordEvent, Event: &e})
	}); err != nil {
		return err
	}

	var links store.ReviewLinks
	if err := each("review queue", `SELECT seq, memory_id, user_id, coalesce(task_id, ''), coalesce(search_id, 0), at,
		coalesce(query, ''), context, reasons, status, coalesce(reviewer, ''), verdict_at, coalesce(note, '')
		FROM quarantine ORDER BY seq`, func(rows *sql.Rows) error {
		var it audit.QuarantineItem
		var at int64
		var vat sql.NullInt64
		var c, r string
		if err := rows.Scan(&it.Seq, &it.MemoryID, &it.UserID, &it.TaskID, &it.SearchID, &at, &it.Query, &c, &r,
			&it.Status, &it.Reviewer, &vat, &it.Note); err != nil {
			return err
		}
		it.At, it.Context, it.Reasons = time.Unix(0, at).UTC(), json.RawMessage(c), json.RawMessage(r)
		if vat.Valid {
			it.VerdictAt = time.Unix(0, vat.Int64).UTC()
		}
		links.Item(&it)
		return emit(store.Record{Kind: store.RecordReviewItem, Item: &it})
	}); err != nil {
		return err
	}

	if err := each("examples", `SELECT memory_id, coalesce(query, ''), context, label, source, at FROM examples ORDER BY seq`, func(rows *sql.Rows) error {
		var e store.Example
		var c string
		var at int64
		if err := rows.Scan(&e.MemoryID, &e.Query, &c, &e.Label, &e.Source, &at); err != nil {
			return err
		}
		e.Context, e.At = json.RawMessage(c), time.Unix(0, at).UTC()
		links.Link(&e)
		return emit(store.Record{Kind: store.RecordExample, Example: &e})
	}); err != nil {
		return err
	}

	return each("keys", "SELECT id, hash, principal, created_at, revoked_at FROM api_keys ORDER BY seq", func(rows *sql.Rows) error {
		var k store.Key
		var p string
		var created int64
		var revoked sql.NullInt64
		if err := rows.Scan(&k.ID, &k.Hash, &p, &created, &revoked); err != nil {
			return err
		}
		k.Principal, k.CreatedAt = json.RawMessage(p), time.Unix(0, created).UTC()
		if revoked.Valid {
			k.RevokedAt = time.Unix(0, revoked.Int64).UTC()
		}
		return emit(store.Record{Kind: store.RecordKey, Key: &k})
	})
}

// dumpTables are the tables a dump reads, which a store must have empty to
// be restored into, with the kind of record each holds.
var dumpTables = []struct{ table, kind string }{{"meta", "identity"}, {"memories", "memories"}, {"tombstones", "tombstones"},
	{"lineage", "lineage"}, {"supersessions", "supersessions"}, {"audit_events", "events"}, {"quarantine", "reviewItems"},
	{"examples", "examples"}, {"api_keys", "keys"}}

// emptyWhere narrows the emptiness check of a table to the rows a dump
// covers: of meta, the embedder identity, not settings such as the index
// outbox's switch.
var emptyWhere = map[string]string{"meta": " WHERE key IN ('embedder_name', 'embedder_dim')"}

// Restore fills the store, which must be empty, from records in the
// canonical order of store.Dumper, in one transaction: on any error nothing
// is written. Sequence numbers are kept (SQLite then numbers new rows after
// the greatest). The examples' review items and users are not kept: this
// schema has no place for them, and Dump recovers them.
func (s *Store) Restore(ctx context.Context, records iter.Seq2[store.Record, error]) error {
	what := "restore store " + s.path
	if s.readOnly {
		return fmt.Errorf("%s: %w", what, store.ErrReadOnly)
	}
	return s.write(ctx, what, func(tx *sql.Tx) error {
		var holds []string
		for _, t := range dumpTables {
			var has bool
			if err := tx.QueryRowContext(ctx, "SELECT EXISTS (SELECT 1 FROM "+t.table+emptyWhere[t.table]+")").Scan(&has); err != nil {
				return err
			}
			if has {
				holds = append(holds, t.kind)
			}
		}
		if len(holds) > 0 {
			return store.NotEmptyError(holds)
		}
		stmts := map[store.RecordKind]string{
			store.RecordIdentity: "INSERT INTO meta(key, value) VALUES ('embedder_name', ?), ('embedder_dim', ?)",
			store.RecordMemory: `INSERT INTO memories(seq, id, user_id, workspace_id, project_id, domain, text, source_authority,
				kind, classification, created_at, expires_at, revoked, revoked_at, revoked_reason, audience, embedding)
				VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)`,
			store.RecordTombstone:    "INSERT INTO tombstones(id, user_id, forgotten_at, reason) VALUES (?,?,?,?)",
			store.RecordLineage:      "INSERT INTO lineage(memory_id, source_id) VALUES (?,?)",
			store.RecordSupersession: "INSERT INTO supersessions(memory_id, superseded_id) VALUES (?,?)",
			store.RecordEvent: `INSERT INTO audit_events(seq, kind, at, task_id, user_id, principal_id, search_id, memory_id,
				decision, payload) VALUES (?,?,?,?,?,?,?,?,?,?)`,
			store.RecordReviewItem: `INSERT INTO quarantine(seq, memory_id, user_id, task_id, search_id, at, query, context,
				reasons, status, reviewer, verdict_at, note) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?)`,
			store.RecordExample: "INSERT INTO examples(memory_id, query, context, label, source, at) VALUES (?,?,?,?,?,?)",
			store.RecordKey:     "INSERT INTO api_keys(id, hash, principal, created_at, revoked_at) VALUES (?,?,?,?,?)",
		}
		var cur store.RecordKind
		var stmt *sql.Stmt
		defer func() {
			if stmt != nil {
				stmt.Close()
			}
		}()
		var order store.Sequence
		for r, err := range records {
			if err != nil {
				return err
			}
			if err := order.Next(&r); err != nil {
				return err
			}
			if r.Kind != cur {
				if stmt != nil {
					stmt.Close()
				}
				var err error
				if stmt, err = tx.PrepareContext(ctx, stmts[r.Kind]); err != nil {
					return err
				}
				cur = r.Kind
			}
			if _, err := stmt.ExecContext(ctx, restoreArgs(&r)...); err != nil {
				return fmt.Errorf("%s: %w", r, err)
			}
		}
		var both sql.NullString
		if err := tx.QueryRowContext(ctx, "SELECT (SELECT m.id FROM memories m JOIN tombstones t ON t.id = m.id LIMIT 1)").Scan(&both); err != nil {
			return err
		}
		if both.Valid {
			return fmt.Errorf("memory %q is both stored and forgotten in the dump", both.String)
		}
		return indexAllByMemory(ctx, tx)
	})
}

// indexAllByMemory puts every audit event with a memory in the memory index
// and makes the index cover the whole trail: a restore writes the trail in
// one transaction, which is the cheapest time to index it.
func indexAllByMemory(ctx context.Context, tx *sql.Tx) error {
	if _, err := tx.ExecContext(ctx, `INSERT OR IGNORE INTO audit_memory_index (memory_id, seq)
		SELECT memory_id, seq FROM audit_events WHERE memory_id IS NOT NULL ORDER BY memory_id, seq`); err != nil {
		return fmt.Errorf("index the audit trail by memory: %w", err)
	}
	if _, err := tx.ExecContext(ctx, `INSERT INTO meta (key, value) SELECT 'audit_memory_upto', CAST(coalesce(max(seq), 0) AS TEXT) FROM audit_events
		WHERE true ON CONFLICT (key) DO UPDATE SET value = excluded.value`); err != nil {
		return fmt.Errorf("index the audit trail by memory: %w", err)
	}
	return nil
}

// restoreArgs are the arguments of r's insert statement.
func restoreArgs(r *store.Record) []any {
	switch r.Kind {
	case store.RecordIdentity:
		return []any{r.Identity.Name, strconv.Itoa(r.Identity.Dim)}
	case store.RecordMemory:
		m := &r.Memory.Memory
		var audience any
		if len(m.Audience) > 0 {
			b, _ := json.Marshal(m.Audience)
			audience = string(b)
		}
		return []any{r.Memory.Seq, m.ID, m.UserID, nullStr(m.WorkspaceID), nullStr(m.ProjectID), nullStr(m.Domain),
			m.Text, nullStr(string(m.SourceAuthority)), nullStr(string(m.Kind)), nullStr(string(m.Classification)),
			m.CreatedAt.UnixNano(), nullTime(m.ExpiresAt), m.Revoked, nullTime(m.RevokedAt), nullStr(m.RevokedReason),
			audience, encodeVector(m.Embedding)}
	case store.RecordTombstone:
		t := r.Tombstone
		return []any{t.ID, t.UserID, t.ForgottenAt.UnixNano(), nullStr(t.Reason)}
	case store.RecordLineage, store.RecordSupersession:
		return []any{r.Link.MemoryID, r.Link.Ref}
	case store.RecordEvent:
		e := r.Event
		return []any{e.Seq, string(e.Kind), e.At.UnixNano(), nullStr(e.TaskID), nullStr(e.UserID), nullStr(e.PrincipalID),
			nullInt(e.SearchID), nullStr(e.MemoryID), nullStr(e.Decision), string(e.Payload)}
	case store.RecordReviewItem:
		it := r.Item
		return []any{it.Seq, it.MemoryID, it.UserID, nullStr(it.TaskID), nullInt(it.SearchID), it.At.UnixNano(),
			nullStr(it.Query), string(it.Context), string(it.Reasons), it.Status, nullStr(it.Reviewer),
			nullTime(it.VerdictAt), nullStr(it.Note)}
	case store.RecordExample:
		e := r.Example
		return []any{e.MemoryID, nullStr(e.Query), string(e.Context), e.Label, e.Source, e.At.UnixNano()}
	case store.RecordKey:
		k := r.Key
		return []any{k.ID, k.Hash, string(k.Principal), k.CreatedAt.UnixNano(), nullTime(k.RevokedAt)}
	}
	return nil
}
