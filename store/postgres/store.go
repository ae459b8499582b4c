// Package postgres is memgate's system of record in PostgreSQL (pgx v5): the
// scale-out counterpart of store/sqlite, implementing the same contract
// (store.Store, store.Checker, store.Locator and auth.Store) with the same
// answers, orders and errors, as store/storetest checks.
//
// Open takes a postgres:// URL. The store lives in the first schema of the
// connection's search_path (public, usually; add ?search_path=NAME to the
// URL to keep several stores in one database), which the role must be
// allowed to create tables in. Open creates or upgrades the schema with
// versioned migrations, recorded in schema_migrations and applied in one
// transaction under an advisory lock, so that processes opening the same
// store at once are safe.
//
// Every write is one transaction: a batch insert; a revocation or forgetting
// and its audit event; an admission's search event, decisions and quarantine
// items; a verdict, its labelled example and its audit event. The audit
// trail is append-only: triggers refuse UPDATE, DELETE and TRUNCATE of
// audit_events. Writes that append to the trail take one advisory lock, and
// inserts of memories another, so that sequence numbers are committed in
// order: a reader continuing after a sequence number never misses a row
// committed later with a smaller one (as with SQLite's single writer).
// Every table of a user's data carries user_id, and links between memories
// are keyed by (user_id, id) so that they cannot cross users.
//
// # Forgetting, and what PostgreSQL keeps until VACUUM
//
// Forget deletes the memory's row (its text, metadata, vector and own
// links) and leaves a tombstone, in one transaction; no table the store
// reads holds the text afterwards. PostgreSQL, however, does not overwrite
// deleted rows:
//
//   - The deleted row stays in the table's data file (and a long text in
//     its TOAST table) as a dead tuple until VACUUM removes it: autovacuum
//     does so eventually, Store.Vacuum at once. Even then, the freed space
//     in the page is not zeroed until new rows reuse it; VACUUM FULL
//     rewrites the table into new files, but the old files are only
//     unlinked, not wiped, by the file system.
//   - The insert (and the delete) are in the write-ahead log, in pg_wal,
//     until checkpoints recycle those segments; WAL archives, base backups,
//     streaming or logical replicas, and pg_dump files keep their copies for
//     as long as they are kept.
//   - Server logs hold the text only if statement logging with parameters
//     is on (log_statement, auto_explain, log_min_duration_statement).
//
// Where erasure must reach the disk, run Vacuum after forgetting, keep the
// WAL archive and backups under a retention period that the erasure policy
// allows, and use encrypted storage for the server's files. store/sqlite
// overwrites forgotten text in place (secure_delete); PostgreSQL cannot.
package postgres

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/memgate/memgate/audit"
	"github.com/memgate/memgate/embed"
	"github.com/memgate/memgate/memory"
	"github.com/memgate/memgate/store"
)

// CheckBatch reports every problem Insert would refuse in ms, without
// writing: invalid memories, ids repeated in the batch or already taken, and
// lineage or supersedes naming ids that are unknown or another user's. A
// memory whose id is stored counts as a problem unless onConflict is
// store.ConflictSkip. Insert runs the same check inside its transaction.
func (s *Store) CheckBatch(ctx context.Context, ms []memory.Memory, onConflict store.OnConflict) error {
	_, err := checkBatch(ctx, s.pool, ms, onConflict, false)
	if err != nil {
		var ies store.ItemErrors
		if !errors.As(err, &ies) {
			return fmt.Errorf("check memories: %w", describe(err))
		}
	}
	return err
}

// owners looks up whose memories ids are, stored or forgotten, in two
// queries. In a transaction that inserts (lock), the stored ones are locked
// FOR SHARE, so that none is forgotten before the insert commits: a link
// checked is a link that holds.
func owners(ctx context.Context, q pgxQuerier, ids []string, lock bool) (map[string]store.Owner, error) {
	out := make(map[string]store.Owner, len(ids))
	if len(ids) == 0 {
		return out, nil
	}
	stmt := "SELECT id, user_id FROM memories WHERE id = ANY($1)"
	if lock {
		stmt += " FOR SHARE"
	}
	for _, st := range []struct {
		sql       string
		forgotten bool
	}{{stmt, false}, {"SELECT id, user_id FROM tombstones WHERE id = ANY($1)", true}} {
		rows, err := q.Query(ctx, st.sql, ids)
		if err != nil {
			return nil, err
		}
		for rows.Next() {
			var id, user string
			if err := rows.Scan(&id, &user); err != nil {
				rows.Close()
				return nil, err
			}
			if _, seen := out[id]; !seen {
				out[id] = store.Owner{UserID: user, Forgotten: st.forgotten}
			}
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// checkBatch is store.CheckInsert against q.
func checkBatch(ctx context.Context, q pgxQuerier, ms []memory.Memory, onConflict store.OnConflict, lock bool) ([]bool, error) {
	return store.CheckInsert(ms, onConflict, func(ids []string) (map[string]store.Owner, error) {
		return owners(ctx, q, ids, lock)
	})
}

// progressEvery is how often Insert tells its progress, in memories.
const progressEvery = 2048

var memoryCopyColumns = []string{"id", "user_id", "workspace_id", "project_id", "domain", "text",
	"source_authority", "kind", "classification", "created_at", "expires_at", "revoked", "revoked_at", "revoked_reason",
	"audience", "embedding"}

// Insert stores memories in one transaction: all of them or, on any error,
// none. Each must be valid, have an id, a creation time and an embedding.
// Lineage and supersession references must name memories of the same user
// that are stored, forgotten (tombstoned) or in the same batch. The ids of
// forgotten memories are never reused. It returns how many memories were
// inserted. progress, if not nil, is told every 2048 memories and at the end
// how many are done. Rows are written with COPY, 2048 at a time.
func (s *Store) Insert(ctx context.Context, ms []memory.Memory, onConflict store.OnConflict, progress func(done int)) (int, error) {
	inserted := 0
	var ticks []int
	err := s.write(ctx, "insert memories", memoriesLock, func(tx pgx.Tx) error {
		inserted, ticks = 0, ticks[:0]
		skip, err := checkBatch(ctx, tx, ms, onConflict, true)
		if err != nil {
			return err
		}
		var links, supers [][]any
		for start := 0; start < len(ms); start += progressEvery {
			end := min(start+progressEvery, len(ms))
			var rows [][]any
			for i := start; i < end; i++ {
				if skip[i] {
					continue
				}
				m := &ms[i]
				var audience any
				if len(m.Audience) > 0 {
					audience = m.Audience
				}
				rows = append(rows, []any{m.ID, m.UserID, nullStr(m.WorkspaceID), nullStr(m.ProjectID), nullStr(m.Domain),
					[]byte(m.Text), nullStr(string(m.SourceAuthority)), nullStr(string(m.Kind)), nullStr(string(m.Classification)),
					m.CreatedAt.UnixNano(), nullTime(m.ExpiresAt), m.Revoked, nullTime(m.RevokedAt), nullBytes(m.RevokedReason),
					audience, encodeVector(m.Embedding)})
				for _, ref := range m.LineageRefs {
					links = append(links, []any{m.UserID, m.ID, ref})
				}
				for _, ref := range m.Supersedes {
					supers = append(supers, []any{m.UserID, m.ID, ref})
				}
			}
			if len(rows) > 0 {
				if _, err := tx.CopyFrom(ctx, pgx.Identifier{"memories"}, memoryCopyColumns, pgx.CopyFromRows(rows)); err != nil {
					return err
				}
				inserted += len(rows)
			}
			if end%progressEvery == 0 && !skip[end-1] {
				ticks = append(ticks, end)
			}
		}
		for _, rel := range []struct {
			table string
			cols  []string
			rows  [][]any
		}{{"lineage", []string{"user_id", "memory_id", "source_id"}, links},
			{"supersessions", []string{"user_id", "memory_id", "superseded_id"}, supers}} {
			if len(rel.rows) == 0 {
				continue
			}
			if _, err := tx.CopyFrom(ctx, pgx.Identifier{rel.table}, rel.cols, pgx.CopyFromRows(rel.rows)); err != nil {
				return err
			}
		}
		ticks = append(ticks, len(ms))
		return nil
	})
	if err != nil {
		return 0, err
	}
	if progress != nil {
		for _, done := range ticks {
			progress(done)
		}
	}
	return inserted, nil
}

const memoryColumns = `seq, id, user_id, workspace_id, project_id, domain, text, source_authority, kind, classification,
	created_at, expires_at, revoked, revoked_at, revoked_reason, audience`

// A memoryScanner scans rows of memoryColumns (then the embedding, if
// withVector) into memories, reusing its scan targets from row to row.
type memoryScanner struct {
	withVector bool
	m          memory.Memory
	seq        int64
	created    int64
	ws, proj   *string
	dom, auth  *string
	kind       *string
	class      *string
	text, rsn  []byte
	aud        []string
	expires    *int64
	revokedAt  *int64
	vec        []byte
	dest       []any
}

func newMemoryScanner(withVector bool) *memoryScanner {
	ms := &memoryScanner{withVector: withVector}
	ms.dest = []any{&ms.seq, &ms.m.ID, &ms.m.UserID, &ms.ws, &ms.proj, &ms.dom, &ms.text, &ms.auth, &ms.kind, &ms.class,
		&ms.created, &ms.expires, &ms.m.Revoked, &ms.revokedAt, &ms.rsn, &ms.aud}
	if withVector {
		ms.dest = append(ms.dest, &ms.vec)
	}
	return ms
}

// scan reads the row the rows are at, and returns the memory and its seq.
func (ms *memoryScanner) scan(rows pgx.Row) (memory.Memory, int64, error) {
	ms.m = memory.Memory{}
	ms.aud = nil
	if err := rows.Scan(ms.dest...); err != nil {
		return memory.Memory{}, 0, err
	}
	m := ms.m
	m.WorkspaceID, m.ProjectID, m.Domain = deref(ms.ws), deref(ms.proj), deref(ms.dom)
	m.Text = string(ms.text)
	m.SourceAuthority, m.Kind, m.Classification = memory.Authority(deref(ms.auth)), memory.Kind(deref(ms.kind)), memory.Classification(deref(ms.class))
	m.CreatedAt = time.Unix(0, ms.created).UTC()
	if ms.expires != nil {
		m.ExpiresAt = time.Unix(0, *ms.expires).UTC()
	}
	if ms.revokedAt != nil {
		m.RevokedAt = time.Unix(0, *ms.revokedAt).UTC()
	}
	m.RevokedReason = string(ms.rsn)
	if len(ms.aud) > 0 {
		m.Audience = ms.aud
	}
	if ms.withVector {
		v, err := decodeVector(ms.vec)
		if err != nil {
			return m, 0, fmt.Errorf("memory %s: %w", m.ID, err)
		}
		m.Embedding = v
	}
	return m, ms.seq, nil
}

// Get returns the memories with the given ids, in the order asked, each
// once, with their lineage, supersedes and supersededBy relations. Ids that
// are not stored are left out.
func (s *Store) Get(ctx context.Context, ids []string, withVectors bool) ([]memory.Memory, error) {
	if len(ids) == 0 {
		return nil, nil
	}
	ms, err := s.get(ctx, s.pool, ids, withVectors)
	if err != nil {
		return nil, fmt.Errorf("get memories: %w", describe(err))
	}
	return ms, nil
}

func (s *Store) get(ctx context.Context, q pgxQuerier, ids []string, withVectors bool) ([]memory.Memory, error) {
	uniq := distinct(ids)
	cols := memoryColumns
	if withVectors {
		cols += ", embedding"
	}
	rows, err := q.Query(ctx, "SELECT "+cols+" FROM memories WHERE id = ANY($1)", uniq)
	if err != nil {
		return nil, err
	}
	sc := newMemoryScanner(withVectors)
	found := make([]memory.Memory, 0, len(uniq))
	for rows.Next() {
		m, _, err := sc.scan(rows)
		if err != nil {
			rows.Close()
			return nil, err
		}
		found = append(found, m)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, err
	}
	byID := make(map[string]*memory.Memory, len(found))
	for i := range found {
		byID[found[i].ID] = &found[i]
	}
	if err := loadRelations(ctx, q, uniq, byID); err != nil {
		return nil, err
	}
	out := make([]memory.Memory, 0, len(found))
	for _, id := range uniq {
		if m, ok := byID[id]; ok {
			out = append(out, *m)
		}
	}
	return out, nil
}

// distinct is ids, each once, in order.
func distinct(ids []string) []string {
	seen := make(map[string]struct{}, len(ids))
	uniq := make([]string, 0, len(ids))
	for _, id := range ids {
		if _, dup := seen[id]; !dup {
			seen[id] = struct{}{}
			uniq = append(uniq, id)
		}
	}
	return uniq
}

// relationsSQL reads the relations of the memories whose ids are in $1:
// rows (0, id, source) for lineage, (1, id, superseded) for supersession and
// (2, id, successor) for the live memories of the same user that supersede
// one. Only live (non-revoked) memories supersede: revoking the newer memory
// lets the older one stand again.
const relationsSQL = `SELECT 0, l.memory_id, l.source_id FROM lineage l WHERE l.memory_id = ANY($1)
	UNION ALL SELECT 1, s.memory_id, s.superseded_id FROM supersessions s WHERE s.memory_id = ANY($1)
	UNION ALL SELECT 2, s.superseded_id, s.memory_id FROM supersessions s
		JOIN memories m ON m.user_id = s.user_id AND m.id = s.memory_id AND NOT m.revoked
		WHERE s.superseded_id = ANY($1)`

// loadRelations fills LineageRefs, Supersedes and SupersededBy of the
// memories in byID, each sorted by id; ids are theirs, each once.
func loadRelations(ctx context.Context, q pgxQuerier, ids []string, byID map[string]*memory.Memory) error {
	if len(byID) == 0 {
		return nil
	}
	rows, err := q.Query(ctx, relationsSQL, ids)
	if err != nil {
		return fmt.Errorf("load relations: %w", err)
	}
	var rel store.Relations
	for rows.Next() {
		var kind int32
		var id, ref string
		if err := rows.Scan(&kind, &id, &ref); err != nil {
			rows.Close()
			return fmt.Errorf("load relations: %w", err)
		}
		m, ok := byID[id]
		if !ok {
			continue
		}
		rel.Add(m, int(kind), ref)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return fmt.Errorf("load relations: %w", err)
	}
	rel.Sort()
	return nil
}

// List returns memories in insertion order, one page at a time. A page's
// Next is the insertion sequence number of its last memory, set only when
// another memory follows.
func (s *Store) List(ctx context.Context, q store.ListQuery) (store.Page, error) {
	where := []string{"seq > $1"}
	args := []any{q.After}
	if q.Filter.UserID != "" {
		args = append(args, q.Filter.UserID)
		where = append(where, "user_id = $"+strconv.Itoa(len(args)))
	}
	for _, ax := range []struct{ col, v string }{{"workspace_id", q.Filter.WorkspaceID}, {"project_id", q.Filter.ProjectID}, {"domain", q.Filter.Domain}} {
		if ax.v != "" {
			args = append(args, ax.v)
			where = append(where, "("+ax.col+" IS NULL OR "+ax.col+" = $"+strconv.Itoa(len(args))+")")
		}
	}
	if !q.IncludeRevoked {
		where = append(where, "NOT revoked")
	}
	cols := memoryColumns
	if q.WithVectors {
		cols += ", embedding"
	}
	stmt := "SELECT " + cols + " FROM memories WHERE " + strings.Join(where, " AND ") + " ORDER BY seq"
	if q.Limit > 0 {
		stmt += " LIMIT " + strconv.Itoa(q.Limit+1)
	}
	var p store.Page
	err := pgx.BeginTxFunc(ctx, s.pool, pgx.TxOptions{AccessMode: pgx.ReadOnly, IsoLevel: pgx.RepeatableRead}, func(tx pgx.Tx) error {
		rows, err := tx.Query(ctx, stmt, args...)
		if err != nil {
			return err
		}
		var ms []memory.Memory
		var seqs []int64
		sc := newMemoryScanner(q.WithVectors)
		for rows.Next() {
			m, seq, err := sc.scan(rows)
			if err != nil {
				rows.Close()
				return err
			}
			ms, seqs = append(ms, m), append(seqs, seq)
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return err
		}
		if q.Limit > 0 && len(ms) > q.Limit {
			ms = ms[:q.Limit]
			p.Next = seqs[q.Limit-1]
		}
		if len(ms) > 0 {
			byID := make(map[string]*memory.Memory, len(ms))
			ids := make([]string, len(ms))
			for i := range ms {
				byID[ms[i].ID], ids[i] = &ms[i], ms[i].ID
			}
			if err := loadRelations(ctx, tx, ids, byID); err != nil {
				return err
			}
		}
		p.Memories = ms
		return nil
	})
	if err != nil {
		return store.Page{}, fmt.Errorf("list memories: %w", describe(err))
	}
	return p, nil
}

// Revoke marks a memory revoked and appends its audit event, in one
// transaction, and returns the memory as now stored. Revoking a revoked
// memory keeps the first revocation; the event is appended all the same.
func (s *Store) Revoke(ctx context.Context, id string, c store.Change) (memory.Memory, error) {
	var m memory.Memory
	err := s.write(ctx, "revoke "+id, auditLock, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, `UPDATE memories SET revoked = true, revoked_at = $1, revoked_reason = $2
			WHERE id = $3 AND NOT revoked`, c.At.UnixNano(), nullBytes(c.Reason), id); err != nil {
			return err
		}
		ms, err := s.get(ctx, tx, []string{id}, false)
		if err != nil {
			return err
		}
		if len(ms) == 0 {
			return store.ErrNotFound
		}
		m = ms[0]
		_, err = appendEvents(ctx, tx, []audit.Event{audit.ChangeEvent(audit.Revoke, c.At, m.UserID, id, c.PrincipalID, c.Reason)})
		return err
	})
	if err != nil {
		return memory.Memory{}, err
	}
	return m, nil
}

// Forget deletes a memory's row (text, metadata, vector, its own lineage and
// supersessions) for good, leaves a tombstone and appends the audit event,
// in one transaction. Lineage rows naming it as a source stay, so its
// descendants remain traceable. See the package documentation for what
// PostgreSQL keeps of the deleted row until VACUUM.
func (s *Store) Forget(ctx context.Context, id string, c store.Change) (memory.Tombstone, error) {
	t := memory.Tombstone{ID: id, ForgottenAt: c.At.UTC(), Reason: c.Reason}
	err := s.write(ctx, "forget "+id, auditLock, func(tx pgx.Tx) error {
		err := tx.QueryRow(ctx, "DELETE FROM memories WHERE id = $1 RETURNING user_id", id).Scan(&t.UserID)
		if errors.Is(err, pgx.ErrNoRows) {
			return store.ErrNotFound
		}
		if err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, "INSERT INTO tombstones (id, user_id, forgotten_at, reason) VALUES ($1, $2, $3, $4)",
			id, t.UserID, c.At.UnixNano(), nullBytes(c.Reason)); err != nil {
			return err
		}
		_, err = appendEvents(ctx, tx, []audit.Event{audit.ChangeEvent(audit.Forget, c.At, t.UserID, id, c.PrincipalID, c.Reason)})
		return err
	})
	if err != nil {
		return memory.Tombstone{ID: id, ForgottenAt: c.At.UTC(), Reason: c.Reason, UserID: t.UserID}, err
	}
	return t, nil
}

// Revoked returns the last n memories the user stored that are now revoked
// (all of them for n ≤ 0), oldest first, without vectors or relations.
func (s *Store) Revoked(ctx context.Context, userID string, n int) ([]memory.Memory, error) {
	var limit *int64
	if n > 0 {
		l := int64(n)
		limit = &l
	}
	rows, err := s.pool.Query(ctx, "SELECT "+memoryColumns+" FROM memories WHERE user_id = $1 AND revoked ORDER BY seq DESC LIMIT $2",
		userID, limit)
	if err != nil {
		return nil, fmt.Errorf("read revoked memories: %w", describe(err))
	}
	defer rows.Close()
	var out []memory.Memory
	sc := newMemoryScanner(false)
	for rows.Next() {
		m, _, err := sc.scan(rows)
		if err != nil {
			return nil, fmt.Errorf("read revoked memories: %w", err)
		}
		out = append(out, m)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("read revoked memories: %w", describe(err))
	}
	slices.Reverse(out) // oldest first
	return out, nil
}

// Tombstones returns the tombstones of the forgotten memories among ids.
func (s *Store) Tombstones(ctx context.Context, ids []string) (map[string]memory.Tombstone, error) {
	out := map[string]memory.Tombstone{}
	if len(ids) == 0 {
		return out, nil
	}
	rows, err := s.pool.Query(ctx, "SELECT id, user_id, forgotten_at, reason FROM tombstones WHERE id = ANY($1)", distinct(ids))
	if err != nil {
		return nil, fmt.Errorf("read tombstones: %w", describe(err))
	}
	defer rows.Close()
	for rows.Next() {
		var t memory.Tombstone
		var at int64
		var reason []byte
		if err := rows.Scan(&t.ID, &t.UserID, &at, &reason); err != nil {
			return nil, fmt.Errorf("read tombstones: %w", describe(err))
		}
		t.ForgottenAt, t.Reason = time.Unix(0, at).UTC(), string(reason)
		out[t.ID] = t
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("read tombstones: %w", describe(err))
	}
	return out, nil
}

// Supersede records that newID replaces each of oldIDs. All must be stored
// memories of the same user; another user's id reads like a missing one.
func (s *Store) Supersede(ctx context.Context, newID string, oldIDs []string) error {
	return s.write(ctx, "supersede", noLock, func(tx pgx.Tx) error {
		var user string
		if err := tx.QueryRow(ctx, "SELECT user_id FROM memories WHERE id = $1 FOR SHARE", newID).Scan(&user); err != nil {
			if errors.Is(err, pgx.ErrNoRows) {
				return fmt.Errorf("memory %s: %w", newID, store.ErrNotFound)
			}
			return err
		}
		for _, old := range oldIDs {
			if old == newID {
				return fmt.Errorf("memory %s cannot supersede itself", old)
			}
			var oldUser string
			err := tx.QueryRow(ctx, "SELECT user_id FROM memories WHERE id = $1 FOR SHARE", old).Scan(&oldUser)
			if errors.Is(err, pgx.ErrNoRows) || (err == nil && oldUser != user) {
				// Another user's memory reads like a missing one: whose
				// memories exist is not for another user's caller to learn.
				return fmt.Errorf("memory %s: %w", old, store.ErrNotFound)
			}
			if err != nil {
				return err
			}
			if _, err := tx.Exec(ctx, `INSERT INTO supersessions (user_id, memory_id, superseded_id) VALUES ($1, $2, $3)
				ON CONFLICT DO NOTHING`, user, newID, old); err != nil {
				return err
			}
		}
		return nil
	})
}

// Descendants returns the ids of every stored memory derived, directly or
// through other memories, from any of ids, sorted.
func (s *Store) Descendants(ctx context.Context, ids []string) ([]string, error) {
	rows, err := s.pool.Query(ctx, `WITH RECURSIVE d(id, user_id) AS (
			SELECT l.memory_id, l.user_id FROM lineage l WHERE l.source_id = ANY($1)
			UNION SELECT l.memory_id, l.user_id FROM d JOIN lineage l ON l.source_id = d.id AND l.user_id = d.user_id)
		SELECT id FROM d ORDER BY id`, distinct(ids))
	if err != nil {
		return nil, fmt.Errorf("find descendants: %w", describe(err))
	}
	out, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		return nil, fmt.Errorf("find descendants: %w", describe(err))
	}
	if len(out) == 0 {
		return nil, nil
	}
	return out, nil
}

// Stats counts what the store holds; expiry is judged at now. Schema is
// the schema version, FileBytes the size of the store's tables and indexes
// (with their TOAST tables).
func (s *Store) Stats(ctx context.Context, now time.Time) (store.Stats, error) {
	st := store.Stats{ByAuth: map[string]int{}}
	err := pgx.BeginTxFunc(ctx, s.pool, pgx.TxOptions{AccessMode: pgx.ReadOnly, IsoLevel: pgx.RepeatableRead}, func(tx pgx.Tx) error {
		var fileBytes *int64
		err := tx.QueryRow(ctx, `SELECT
			(SELECT count(*) FROM memories),
			(SELECT count(*) FROM memories WHERE revoked),
			(SELECT count(*) FROM memories WHERE expires_at IS NOT NULL AND expires_at <= $1),
			(SELECT count(*) FROM (`+usersSQL+`) u),
			(SELECT count(*) FROM tombstones),
			(SELECT count(*) FROM lineage),
			(SELECT count(*) FROM supersessions),
			(SELECT coalesce(max(version), 0) FROM schema_migrations),
			(SELECT sum(pg_total_relation_size(c.oid))::int8 FROM pg_class c
				WHERE c.relnamespace = (SELECT n.oid FROM pg_namespace n WHERE n.nspname = current_schema()) AND c.relkind = 'r'
				AND c.relname IN ('memories', 'lineage', 'supersessions', 'tombstones', 'audit_events', 'quarantine',
					'examples', 'api_keys', 'meta', 'schema_migrations'))`, now.UnixNano()).
			Scan(&st.Memories, &st.Revoked, &st.Expired, &st.Users, &st.Tombstones, &st.Lineage, &st.Supersede, &st.Schema, &fileBytes)
		if err != nil {
			return err
		}
		if fileBytes != nil {
			st.FileBytes = *fileBytes
		}
		rows, err := tx.Query(ctx, "SELECT coalesce(source_authority, ''), count(*) FROM memories GROUP BY 1")
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var a string
			var n int
			if err := rows.Scan(&a, &n); err != nil {
				return err
			}
			if a == "" {
				a = "unknown"
			}
			st.ByAuth[a] += n
		}
		return rows.Err()
	})
	if err != nil {
		return store.Stats{ByAuth: map[string]int{}}, fmt.Errorf("stats: %w", describe(err))
	}
	return st, nil
}

func encodeVector(v []float32) []byte {
	b := make([]byte, 4*len(v))
	for i, x := range v {
		binary.LittleEndian.PutUint32(b[4*i:], math.Float32bits(x))
	}
	return b
}

func decodeVector(b []byte) ([]float32, error) {
	if len(b)%4 != 0 {
		return nil, fmt.Errorf("corrupt embedding of %d bytes", len(b))
	}
	v := make([]float32, len(b)/4)
	for i := range v {
		v[i] = math.Float32frombits(binary.LittleEndian.Uint32(b[4*i:]))
	}
	return v, nil
}

// nullStr is s, or NULL for "" (as store/sqlite stores it).
func nullStr(s string) any {
	if s == "" {
		return nil
	}
	return s
}

// nullBytes is s as bytea, or NULL for "".
func nullBytes(s string) any {
	if s == "" {
		return nil
	}
	return []byte(s)
}

func nullTime(t time.Time) any {
	if t.IsZero() {
		return nil
	}
	return t.UnixNano()
}

func nullInt(n int64) any {
	if n == 0 {
		return nil
	}
	return n
}

// EmbedFunc computes vectors for texts, as an embedder does.
type EmbedFunc func(ctx context.Context, texts []string) ([][]float32, error)

// Reembed recomputes every memory's embedding with embedFn, batch texts at a
// time, and records id as the store's embedder, all in one transaction
// (under the inserts' lock): a failure part-way leaves the store as it was.
// progress, if not nil, is told how many memories are done.
func (s *Store) Reembed(ctx context.Context, id embed.Identity, embedFn EmbedFunc, batch int, progress func(done, total int)) error {
	if batch <= 0 {
		batch = 256
	}
	return s.write(ctx, "re-embed", memoriesLock, func(tx pgx.Tx) error {
		var total int
		if err := tx.QueryRow(ctx, "SELECT count(*) FROM memories").Scan(&total); err != nil {
			return err
		}
		done := 0
		for after := int64(0); ; {
			rows, err := tx.Query(ctx, "SELECT seq, text FROM memories WHERE seq > $1 ORDER BY seq LIMIT $2", after, batch)
			if err != nil {
				return err
			}
			var seqs []int64
			var texts []string
			for rows.Next() {
				var seq int64
				var text []byte
				if err := rows.Scan(&seq, &text); err != nil {
					rows.Close()
					return err
				}
				seqs, texts = append(seqs, seq), append(texts, string(text))
			}
			rows.Close()
			if err := rows.Err(); err != nil {
				return err
			}
			if len(seqs) == 0 {
				break
			}
			vecs, err := embedFn(ctx, texts)
			if err != nil {
				return err
			}
			if err := embed.Check(vecs, len(texts), id.Dim); err != nil {
				return fmt.Errorf("embedder %s: %w", id, err)
			}
			encoded := make([][]byte, len(vecs))
			for i, v := range vecs {
				embed.Normalize(v)
				encoded[i] = encodeVector(v)
			}
			if _, err := tx.Exec(ctx, `UPDATE memories m SET embedding = u.embedding
				FROM unnest($1::int8[], $2::bytea[]) AS u(seq, embedding) WHERE m.seq = u.seq`, seqs, encoded); err != nil {
				return err
			}
			done += len(seqs)
			after = seqs[len(seqs)-1]
			if progress != nil {
				progress(done, total)
			}
		}
		_, err := tx.Exec(ctx, `INSERT INTO meta (key, value) VALUES ('embedder_name', $1), ('embedder_dim', $2)
			ON CONFLICT (key) DO UPDATE SET value = excluded.value`, id.Name, strconv.Itoa(id.Dim))
		return err
	})
}
