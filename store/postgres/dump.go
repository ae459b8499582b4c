package postgres

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"iter"
	"strconv"
	"time"

	"github.com/jackc/pgx/v5"

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
// store.Dumper, from one read-only REPEATABLE READ transaction: a
// consistent snapshot, which writers do not wait for. Rows are streamed,
// one query per kind, and fn is called as they arrive.
func (s *Store) Dump(ctx context.Context, fn func(store.Record) error) error {
	err := pgx.BeginTxFunc(ctx, s.pool, pgx.TxOptions{AccessMode: pgx.ReadOnly, IsoLevel: pgx.RepeatableRead}, func(tx pgx.Tx) error {
		return dumpTx(ctx, tx, fn)
	})
	var fe store.CallbackError
	if errors.As(err, &fe) {
		return fe.Err
	}
	if err != nil {
		return fmt.Errorf("dump store %s: %w", s.display, describe(err))
	}
	return nil
}

// dumpTx streams the records, each kind with one query in tx.
func dumpTx(ctx context.Context, tx pgx.Tx, fn func(store.Record) error) error {
	emit := func(r store.Record) error {
		if err := fn(r); err != nil {
			return store.CallbackError{Err: err}
		}
		return nil
	}
	// each runs q and calls scan for each row.
	each := func(what, q string, scan func(pgx.Rows) error) error {
		rows, err := tx.Query(ctx, q)
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

	var name, dim *string
	if err := tx.QueryRow(ctx, `SELECT (SELECT value FROM meta WHERE key = 'embedder_name'),
		(SELECT value FROM meta WHERE key = 'embedder_dim')`).Scan(&name, &dim); err != nil {
		return fmt.Errorf("read embedder identity: %w", err)
	}
	if name != nil {
		d, err := strconv.Atoi(deref(dim))
		if err != nil || d <= 0 {
			return fmt.Errorf("read embedder identity: corrupt dimension %q", deref(dim))
		}
		if err := emit(store.Record{Kind: store.RecordIdentity, Identity: &embed.Identity{Name: *name, Dim: d}}); err != nil {
			return err
		}
	}

	sc := newMemoryScanner(true)
	if err := each("memories", "SELECT "+memoryColumns+", embedding FROM memories ORDER BY seq", func(rows pgx.Rows) error {
		m, seq, err := sc.scan(rows)
		if err != nil {
			return err
		}
		return emit(store.Record{Kind: store.RecordMemory, Memory: &store.StoredMemory{Seq: seq, Memory: m}})
	}); err != nil {
		return err
	}

	if err := each("tombstones", "SELECT id, user_id, forgotten_at, reason FROM tombstones ORDER BY id", func(rows pgx.Rows) error {
		var t memory.Tombstone
		var at int64
		var reason []byte
		if err := rows.Scan(&t.ID, &t.UserID, &at, &reason); err != nil {
			return err
		}
		t.ForgottenAt, t.Reason = time.Unix(0, at).UTC(), string(reason)
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
		if err := each(rel.kind.String(), rel.q, func(rows pgx.Rows) error {
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
		coalesce(search_id, 0), coalesce(memory_id, ''), coalesce(decision, ''), payload FROM audit_events ORDER BY seq`, func(rows pgx.Rows) error {
		var e audit.Event
		var kind string
		var at int64
		var payload []byte
		if err := rows.Scan(&e.Seq, &kind, &at, &e.TaskID, &e.UserID, &e.PrincipalID, &e.SearchID, &e.MemoryID, &e.Decision, &payload); err != nil {
			return err
		}
		e.Kind, e.At, e.Payload = audit.Kind(kind), time.Unix(0, at).UTC(), json.RawMessage(payload)
		if e.Payload == nil {
			e.Payload = json.RawMessage{}
		}
		return emit(store.Record{Kind: store.RecordEvent, Event: &e})
	}); err != nil {
		return err
	}

	if err := each("review queue", `SELECT seq, memory_id, user_id, coalesce(task_id, ''), coalesce(search_id, 0), at, query,
		context, reasons, status, coalesce(reviewer, ''), verdict_at, note FROM quarantine ORDER BY seq`, func(rows pgx.Rows) error {
		var it audit.QuarantineItem
		var at int64
		var vat *int64
		var query, c, r, note []byte
		if err := rows.Scan(&it.Seq, &it.MemoryID, &it.UserID, &it.TaskID, &it.SearchID, &at, &query, &c, &r,
			&it.Status, &it.Reviewer, &vat, &note); err != nil {
			return err
		}
		it.At, it.Query, it.Note = time.Unix(0, at).UTC(), string(query), string(note)
		it.Context, it.Reasons = json.RawMessage(string(c)), json.RawMessage(string(r))
		if vat != nil {
			it.VerdictAt = time.Unix(0, *vat).UTC()
		}
		return emit(store.Record{Kind: store.RecordReviewItem, Item: &it})
	}); err != nil {
		return err
	}

	if err := each("examples", `SELECT user_id, coalesce(review_item, 0), memory_id, query, context, label, source, at
		FROM examples ORDER BY seq`, func(rows pgx.Rows) error {
		var e store.Example
		var query, c []byte
		var at int64
		if err := rows.Scan(&e.UserID, &e.ReviewItem, &e.MemoryID, &query, &c, &e.Label, &e.Source, &at); err != nil {
			return err
		}
		e.Query, e.Context, e.At = string(query), json.RawMessage(string(c)), time.Unix(0, at).UTC()
		return emit(store.Record{Kind: store.RecordExample, Example: &e})
	}); err != nil {
		return err
	}

	return each("keys", "SELECT id, hash, principal, created_at, revoked_at FROM api_keys ORDER BY seq", func(rows pgx.Rows) error {
		var k store.Key
		var p string
		var created int64
		var revoked *int64
		if err := rows.Scan(&k.ID, &k.Hash, &p, &created, &revoked); err != nil {
			return err
		}
		k.Principal, k.CreatedAt = json.RawMessage(p), time.Unix(0, created).UTC()
		if revoked != nil {
			k.RevokedAt = time.Unix(0, *revoked).UTC()
		}
		return emit(store.Record{Kind: store.RecordKey, Key: &k})
	})
}

// dumpTables are the tables a dump reads, which a store must have empty to
// be restored into, with the kind of record each holds. Tables of the store
// that a dump does not cover (the index outbox) are neither checked nor
// written.
var dumpTables = []struct{ table, kind string }{{"meta", "identity"}, {"memories", "memories"}, {"tombstones", "tombstones"},
	{"lineage", "lineage"}, {"supersessions", "supersessions"}, {"audit_events", "events"}, {"quarantine", "reviewItems"},
	{"examples", "examples"}, {"api_keys", "keys"}}

// emptyWhere narrows the emptiness check of a table to the rows a dump
// covers: of meta, the embedder identity, not settings such as the index
// outbox's switch.
var emptyWhere = map[string]string{"meta": " WHERE key IN ('embedder_name', 'embedder_dim')"}

// serialTables are the tables whose bigserial seq a restore sets past the
// greatest restored, so that later writes are numbered after it.
var serialTables = []string{"memories", "audit_events", "quarantine", "examples", "api_keys"}

// copyColumns are the columns each kind of record is copied into.
var copyColumns = map[store.RecordKind]struct {
	table string
	cols  []string
}{
	store.RecordIdentity:     {"meta", []string{"key", "value"}},
	store.RecordMemory:       {"memories", append([]string{"seq"}, memoryCopyColumns...)},
	store.RecordTombstone:    {"tombstones", []string{"id", "user_id", "forgotten_at", "reason"}},
	store.RecordLineage:      {"lineage", []string{"user_id", "memory_id", "source_id"}},
	store.RecordSupersession: {"supersessions", []string{"user_id", "memory_id", "superseded_id"}},
	store.RecordEvent: {"audit_events", []string{"seq", "kind", "at", "task_id", "user_id", "principal_id", "search_id",
		"memory_id", "decision", "payload"}},
	store.RecordReviewItem: {"quarantine", []string{"seq", "memory_id", "user_id", "task_id", "search_id", "at", "query",
		"context", "reasons", "status", "reviewer", "verdict_at", "note"}},
	store.RecordExample: {"examples", []string{"user_id", "memory_id", "review_item", "query", "context", "label", "source", "at"}},
	store.RecordKey:     {"api_keys", []string{"id", "hash", "principal", "created_at", "revoked_at"}},
}

// restoreBatchRows and restoreBatchBytes bound the rows, and roughly the
// bytes, of one COPY.
const (
	restoreBatchRows  = 2048
	restoreBatchBytes = 16 << 20
)

// Restore fills the store, which must be empty, from records in the
// canonical order of store.Dumper, in one transaction that holds the
// store's advisory locks of inserts and of the audit trail: on any error
// nothing is written, and no other writer of the store interleaves. Rows are
// written with COPY, a few thousand at a time; sequence numbers are kept,
// and each table's sequence is then set past the greatest restored (setval),
// so that later writes are numbered after them. The audit trail's
// append-only triggers refuse only UPDATE, DELETE and TRUNCATE: a restore
// inserts. Lineage and supersession rows get their user from their memory.
// The index outbox is not written by the restore itself; if the store's
// outbox is enabled, its triggers record every restored memory, as they do
// for any write of a memory.
func (s *Store) Restore(ctx context.Context, records iter.Seq2[store.Record, error]) error {
	what := "restore store " + s.display
	if s.readOnly {
		return fmt.Errorf("%s: %w", what, store.ErrReadOnly)
	}
	err := pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		for _, lk := range []int64{s.memoriesLock, s.auditLock} {
			if _, err := tx.Exec(ctx, "SELECT pg_advisory_xact_lock($1)", lk); err != nil {
				return err
			}
		}
		var holds []string
		for _, t := range dumpTables {
			var has bool
			if err := tx.QueryRow(ctx, "SELECT EXISTS (SELECT 1 FROM "+t.table+emptyWhere[t.table]+")").Scan(&has); err != nil {
				return err
			}
			if has {
				holds = append(holds, t.kind)
			}
		}
		if len(holds) > 0 {
			return store.NotEmptyError(holds)
		}
		if err := restoreTx(ctx, tx, records); err != nil {
			return err
		}
		for _, t := range serialTables {
			if _, err := tx.Exec(ctx, `SELECT setval(pg_get_serial_sequence('`+t+`', 'seq'),
				coalesce((SELECT max(seq) FROM `+t+`), 0) + 1, false)`); err != nil {
				return fmt.Errorf("set the sequence of %s: %w", t, err)
			}
		}
		var both *string
		if err := tx.QueryRow(ctx, "SELECT (SELECT m.id FROM memories m JOIN tombstones t ON t.id = m.id LIMIT 1)").Scan(&both); err != nil {
			return err
		}
		if both != nil {
			return fmt.Errorf("memory %q is both stored and forgotten in the dump", *both)
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("%s: %w", what, describe(err))
	}
	return nil
}

// restoreTx copies records into tx's tables, a batch at a time.
func restoreTx(ctx context.Context, tx pgx.Tx, records iter.Seq2[store.Record, error]) error {
	var (
		order store.Sequence
		cur   store.RecordKind
		rows  [][]any
		size  int
		// users are the stored memories' users: links take theirs.
		users = map[string]string{}
	)
	flush := func() error {
		if len(rows) == 0 {
			return nil
		}
		c := copyColumns[cur]
		if _, err := tx.CopyFrom(ctx, pgx.Identifier{c.table}, c.cols, pgx.CopyFromRows(rows)); err != nil {
			return fmt.Errorf("copy %s: %w", cur, err)
		}
		rows, size = rows[:0], 0
		return nil
	}
	for r, err := range records {
		if err != nil {
			return err
		}
		if err := order.Next(&r); err != nil {
			return err
		}
		if r.Kind != cur {
			if err := flush(); err != nil {
				return err
			}
			cur = r.Kind
		}
		switch r.Kind {
		case store.RecordIdentity:
			rows = append(rows, []any{"embedder_name", r.Identity.Name}, []any{"embedder_dim", strconv.Itoa(r.Identity.Dim)})
		case store.RecordMemory:
			m := &r.Memory.Memory
			var audience any
			if len(m.Audience) > 0 {
				audience = m.Audience
			}
			users[m.ID] = m.UserID
			rows = append(rows, []any{r.Memory.Seq, m.ID, m.UserID, nullStr(m.WorkspaceID), nullStr(m.ProjectID), nullStr(m.Domain),
				[]byte(m.Text), nullStr(string(m.SourceAuthority)), nullStr(string(m.Kind)), nullStr(string(m.Classification)),
				m.CreatedAt.UnixNano(), nullTime(m.ExpiresAt), m.Revoked, nullTime(m.RevokedAt), nullBytes(m.RevokedReason),
				audience, encodeVector(m.Embedding)})
			size += len(m.Text) + 4*len(m.Embedding)
		case store.RecordTombstone:
			t := r.Tombstone
			rows = append(rows, []any{t.ID, t.UserID, t.ForgottenAt.UnixNano(), nullBytes(t.Reason)})
		case store.RecordLineage, store.RecordSupersession:
			user, ok := users[r.Link.MemoryID]
			if !ok {
				return fmt.Errorf("%s: memory %q is not in the dump", r, r.Link.MemoryID)
			}
			rows = append(rows, []any{user, r.Link.MemoryID, r.Link.Ref})
		case store.RecordEvent:
			e := r.Event
			rows = append(rows, []any{e.Seq, string(e.Kind), e.At.UnixNano(), nullStr(e.TaskID), nullStr(e.UserID),
				nullStr(e.PrincipalID), nullInt(e.SearchID), nullStr(e.MemoryID), nullStr(e.Decision), append([]byte{}, e.Payload...)})
			size += len(e.Payload)
		case store.RecordReviewItem:
			it := r.Item
			rows = append(rows, []any{it.Seq, it.MemoryID, it.UserID, nullStr(it.TaskID), nullInt(it.SearchID), it.At.UnixNano(),
				nullBytes(it.Query), append([]byte{}, it.Context...), append([]byte{}, it.Reasons...), it.Status,
				nullStr(it.Reviewer), nullTime(it.VerdictAt), nullBytes(it.Note)})
			size += len(it.Context) + len(it.Reasons) + len(it.Query)
		case store.RecordExample:
			e := r.Example
			rows = append(rows, []any{e.UserID, e.MemoryID, nullInt(e.ReviewItem), nullBytes(e.Query),
				append([]byte{}, e.Context...), e.Label, e.Source, e.At.UnixNano()})
			size += len(e.Context) + len(e.Query)
		case store.RecordKey:
			k := r.Key
			rows = append(rows, []any{k.ID, append([]byte{}, k.Hash...), string(k.Principal), k.CreatedAt.UnixNano(),
				nullTime(k.RevokedAt)})
		}
		if len(rows) >= restoreBatchRows || size >= restoreBatchBytes {
			if err := flush(); err != nil {
				return err
			}
		}
	}
	return flush()
}
