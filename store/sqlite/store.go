// Package sqlite is memgate's embedded system of record: one SQLite file, in
// WAL mode, written through a pure-Go driver (no cgo). Every write is one
// transaction, and a crash mid-write leaves the file as it was before that
// write. Forgotten text is overwritten on disk (secure_delete).
//
// Memories, revocations, forgettings and reviews are committed with
// synchronous=FULL: acknowledged, they survive a crash of the process or a
// power loss. The audit trail of admissions (RecordAdmission, AppendEvents)
// is written by the store's audit writer: one goroutine with a connection of
// its own that takes every request waiting, writes them in one transaction,
// commits once (group commit) and answers each caller only after that
// commit. How durable that commit is, is OpenOptions.AuditSync: by default
// (AuditSyncNormal) an acknowledged admission survives a crash of the
// process, kill -9 included, but a power loss or an operating-system crash
// may lose roughly the last second of admissions, only ever the last ones
// and never part of one. AuditSyncFull flushes before answering, as every
// other write does.
//
// Lineage and supersession are stored as relations, not JSON arrays, so that
// descendants and successors of a memory can be found with one query.
package sqlite

import (
	"context"
	"database/sql"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/memgate/memgate/audit"
	"github.com/memgate/memgate/embed"
	"github.com/memgate/memgate/memory"
	"github.com/memgate/memgate/store"
)

// Store is a memgate store in one SQLite file. It is safe for concurrent use,
// also by several processes.
type Store struct {
	db       *sql.DB
	path     string
	readOnly bool
	// audit writes RecordAdmission and AppendEvents; nil for a read-only
	// store, which refuses them.
	audit *auditWriter
	// stmts are the statements of the read path, prepared on db.
	stmts stmtCache
	// cache keeps the records Get and Ancestors decoded, for one
	// generation of the store.
	cache *recordCache
}

// Close stops the audit writer, once it has written every request it was
// given, and then closes the database. Closing a closed store does nothing.
func (s *Store) Close() error {
	var err error
	if s.audit != nil {
		err = s.audit.close()
	}
	s.stmts.close()
	return errors.Join(err, s.db.Close())
}

// Path is the store's file.
func (s *Store) Path() string { return s.path }

// SchemaVersion is the schema version of the open store.
func (s *Store) SchemaVersion(ctx context.Context) (int, error) {
	var v int
	err := s.db.QueryRowContext(ctx, "PRAGMA user_version").Scan(&v)
	return v, err
}

// Identity returns the embedder identity recorded in the store, and false if
// none is recorded yet (a new store).
func (s *Store) Identity(ctx context.Context) (embed.Identity, bool, error) {
	var name, dim string
	err := s.db.QueryRowContext(ctx, `SELECT
		(SELECT value FROM meta WHERE key = 'embedder_name'),
		(SELECT value FROM meta WHERE key = 'embedder_dim')`).Scan(&sqlNullString{&name}, &sqlNullString{&dim})
	if err != nil {
		return embed.Identity{}, false, fmt.Errorf("read embedder identity: %w", describe(err))
	}
	if name == "" {
		return embed.Identity{}, false, nil
	}
	d, err := strconv.Atoi(dim)
	if err != nil || d <= 0 {
		return embed.Identity{}, false, fmt.Errorf("read embedder identity: corrupt dimension %q", dim)
	}
	return embed.Identity{Name: name, Dim: d}, true, nil
}

// SetIdentity records the embedder identity of a store that has none. It
// fails if a different identity is already recorded; Reembed changes it.
func (s *Store) SetIdentity(ctx context.Context, id embed.Identity) error {
	return s.write(ctx, "record embedder identity", func(tx *sql.Tx) error {
		return setIdentity(ctx, tx, id, false)
	})
}

func setIdentity(ctx context.Context, tx *sql.Tx, id embed.Identity, replace bool) error {
	if !replace {
		var have string
		err := tx.QueryRowContext(ctx, "SELECT value FROM meta WHERE key = 'embedder_name'").Scan(&have)
		if err == nil {
			var dim int
			_ = tx.QueryRowContext(ctx, "SELECT value FROM meta WHERE key = 'embedder_dim'").Scan(&dim)
			if have == id.Name && dim == id.Dim {
				return nil
			}
			return fmt.Errorf("store already records embedder %s", embed.Identity{Name: have, Dim: dim})
		}
		if !errors.Is(err, sql.ErrNoRows) {
			return err
		}
	}
	_, err := tx.ExecContext(ctx, `INSERT INTO meta(key, value) VALUES ('embedder_name', ?), ('embedder_dim', ?)
		ON CONFLICT(key) DO UPDATE SET value = excluded.value`, id.Name, strconv.Itoa(id.Dim))
	return err
}

// write runs fn in one immediate transaction and commits it.
func (s *Store) write(ctx context.Context, what string, fn func(*sql.Tx) error) error {
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("%s: %w", what, describe(err))
	}
	if err := fn(tx); err != nil {
		tx.Rollback()
		return fmt.Errorf("%s: %w", what, describe(err))
	}
	err = tx.Commit()
	s.cache.clear() // whatever it changed, and forgotten text with it
	if err != nil {
		return fmt.Errorf("%s: commit: %w", what, describe(err))
	}
	return nil
}

// Insert stores memories in one transaction: all of them or, on any error,
// none. Each must be valid, have an id, a creation time and an embedding of
// the store's dimension. Lineage and supersession references must name
// memories that are stored, forgotten (tombstoned) or in the same batch; a
// memory may only supersede memories of its own user. The ids of forgotten
// memories are never reused. It returns how many memories were inserted.
// progress, if not nil, is told every few thousand rows how many are done.
func (s *Store) Insert(ctx context.Context, ms []memory.Memory, onConflict store.OnConflict, progress func(done int)) (int, error) {
	inserted := 0
	err := s.write(ctx, "insert memories", func(tx *sql.Tx) error {
		n, err := insertTx(ctx, tx, ms, onConflict, progress)
		inserted = n
		return err
	})
	return inserted, err
}

// queryer is what the batch check needs of a database or a transaction.
type queryer interface {
	PrepareContext(ctx context.Context, query string) (*sql.Stmt, error)
}

// CheckBatch reports every problem Insert would refuse in ms, without
// writing: invalid memories, ids repeated in the batch or already taken, and
// lineage or supersedes naming ids that are unknown. A memory whose id is
// stored counts as a problem unless onConflict is store.ConflictSkip. Insert runs
// the same check inside its transaction.
func (s *Store) CheckBatch(ctx context.Context, ms []memory.Memory, onConflict store.OnConflict) error {
	conn, err := s.db.Conn(ctx)
	if err != nil {
		return fmt.Errorf("check memories: %w", describe(err))
	}
	defer conn.Close()
	_, err = checkBatch(ctx, conn, ms, onConflict)
	if err != nil {
		var ies store.ItemErrors
		if !errors.As(err, &ies) {
			return fmt.Errorf("check memories: %w", describe(err))
		}
	}
	return err
}

// checkBatch is CheckBatch against q; it also says which memories an
// insert with store.ConflictSkip leaves alone. Problems with memories come back
// as store.ItemErrors, anything else (the database failing) as a plain error.
//
// A reference to, or an id of, another user's memory gets the same answer
// as an unknown one, so that a caller acting for one user learns nothing
// about another's memories from an error. The one exception is an explicit
// id that is already taken: ids are unique across the store, so the batch
// is refused, with the same message whoever holds the id and whether or not
// it was forgotten.
func checkBatch(ctx context.Context, q queryer, ms []memory.Memory, onConflict store.OnConflict) ([]bool, error) {
	return store.CheckInsert(ms, onConflict, func(ids []string) (map[string]store.Owner, error) {
		out := make(map[string]store.Owner, len(ids))
		if len(ids) == 0 {
			return out, nil
		}
		owner, err := q.PrepareContext(ctx, `SELECT user_id, 0 FROM memories WHERE id = ?1
			UNION ALL SELECT user_id, 1 FROM tombstones WHERE id = ?1 LIMIT 1`)
		if err != nil {
			return nil, err
		}
		defer owner.Close()
		for _, id := range ids {
			var o store.Owner
			err := owner.QueryRowContext(ctx, id).Scan(&o.UserID, &o.Forgotten)
			if errors.Is(err, sql.ErrNoRows) {
				continue
			}
			if err != nil {
				return nil, err
			}
			out[id] = o
		}
		return out, nil
	})
}

func insertTx(ctx context.Context, tx *sql.Tx, ms []memory.Memory, onConflict store.OnConflict, progress func(int)) (int, error) {
	skip, err := checkBatch(ctx, tx, ms, onConflict)
	if err != nil {
		return 0, err
	}

	// Sequence numbers are never given twice: SQLite would number a row
	// one past the greatest stored, which reuses those of the newest
	// memories once they are forgotten, so the next number also passes the
	// floor that forgetting leaves in meta (schema v6).
	var seq int64
	if err := tx.QueryRowContext(ctx, `SELECT max(coalesce((SELECT max(seq) FROM memories), 0),
		coalesce((SELECT CAST(value AS INTEGER) FROM meta WHERE key = 'memories_seq_floor'), 0))`).Scan(&seq); err != nil {
		return 0, err
	}
	ins, err := tx.PrepareContext(ctx, `INSERT INTO memories(seq, id, user_id, workspace_id, project_id, domain, text,
		source_authority, kind, classification, created_at, expires_at, revoked, revoked_at, revoked_reason,
		audience, embedding) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)`)
	if err != nil {
		return 0, err
	}
	defer ins.Close()
	lin, err := tx.PrepareContext(ctx, "INSERT INTO lineage(memory_id, source_id) VALUES (?, ?)")
	if err != nil {
		return 0, err
	}
	defer lin.Close()
	sup, err := tx.PrepareContext(ctx, "INSERT INTO supersessions(memory_id, superseded_id) VALUES (?, ?)")
	if err != nil {
		return 0, err
	}
	defer sup.Close()
	n := 0
	for i := range ms {
		if skip[i] {
			continue
		}
		m := &ms[i]
		var audience any
		if len(m.Audience) > 0 {
			b, _ := json.Marshal(m.Audience)
			audience = string(b)
		}
		seq++
		if _, err := ins.ExecContext(ctx, seq, m.ID, m.UserID, nullStr(m.WorkspaceID), nullStr(m.ProjectID), nullStr(m.Domain),
			m.Text, nullStr(string(m.SourceAuthority)), nullStr(string(m.Kind)), nullStr(string(m.Classification)),
			m.CreatedAt.UnixNano(), nullTime(m.ExpiresAt), m.Revoked, nullTime(m.RevokedAt), nullStr(m.RevokedReason),
			audience, encodeVector(m.Embedding)); err != nil {
			return 0, err // checked above: a failure here is the database's, not this memory's
		}
		for _, ref := range m.LineageRefs {
			if _, err := lin.ExecContext(ctx, m.ID, ref); err != nil {
				return 0, err
			}
		}
		for _, ref := range m.Supersedes {
			if _, err := sup.ExecContext(ctx, m.ID, ref); err != nil {
				return 0, err
			}
		}
		n++
		if progress != nil && (i+1)%2048 == 0 {
			progress(i + 1)
		}
	}
	if progress != nil {
		progress(len(ms))
	}
	return n, nil
}

const memoryColumns = `seq, id, user_id, workspace_id, project_id, domain, text, source_authority, kind, classification,
	created_at, expires_at, revoked, revoked_at, revoked_reason, audience`

// The statements of the read path, which the store keeps prepared.
const (
	// getSQL reads the memories whose ids are in a JSON array of
	// distinct ids (idList), one lookup of memories' id index each.
	getSQL            = "SELECT " + memoryColumnsM + " FROM json_each(?) j CROSS JOIN memories m ON m.id = j.value"
	getWithVectorsSQL = "SELECT " + memoryColumnsM + ", m.embedding FROM json_each(?) j CROSS JOIN memories m ON m.id = j.value"
	// revokedSQL reads a user's last revoked memories, newest first, up
	// to a limit (-1: none), from memories_revoked_by_user.
	revokedSQL    = "SELECT " + memoryColumns + " FROM memories WHERE user_id = ? AND revoked = 1 ORDER BY seq DESC LIMIT ?"
	tombstonesSQL = "SELECT t.id, t.user_id, t.forgotten_at, t.reason FROM json_each(?) j CROSS JOIN tombstones t ON t.id = j.value"
)

// memoryColumnsM is memoryColumns of the table named m.
const memoryColumnsM = `m.seq, m.id, m.user_id, m.workspace_id, m.project_id, m.domain, m.text, m.source_authority, m.kind,
	m.classification, m.created_at, m.expires_at, m.revoked, m.revoked_at, m.revoked_reason, m.audience`

type scanner interface{ Scan(...any) error }

// A memoryScanner scans rows of memoryColumns (then the embedding, if
// withVector) into memories. Its scan targets are reused from row to row,
// which saves a dozen allocations a row.
type memoryScanner struct {
	withVector bool
	m          memory.Memory
	seq        int64
	created    int64
	ws, proj   sql.NullString
	dom, auth  sql.NullString
	kind       sql.NullString
	class, rsn sql.NullString
	aud        sql.NullString
	expires    sql.NullInt64
	revokedAt  sql.NullInt64
	vec        []byte
	dest       []any
}

func newMemoryScanner(withVector bool) *memoryScanner {
	ms := &memoryScanner{withVector: withVector}
	ms.dest = []any{&ms.seq, &ms.m.ID, &ms.m.UserID, &ms.ws, &ms.proj, &ms.dom, &ms.m.Text, &ms.auth, &ms.kind, &ms.class,
		&ms.created, &ms.expires, &ms.m.Revoked, &ms.revokedAt, &ms.rsn, &ms.aud}
	if withVector {
		ms.dest = append(ms.dest, &ms.vec)
	}
	return ms
}

// scan reads the row sc is at, and returns the memory and its seq.
func (ms *memoryScanner) scan(sc scanner) (memory.Memory, int64, error) {
	ms.m = memory.Memory{}
	if err := sc.Scan(ms.dest...); err != nil {
		return memory.Memory{}, 0, err
	}
	m := ms.m
	m.WorkspaceID, m.ProjectID, m.Domain = ms.ws.String, ms.proj.String, ms.dom.String
	m.SourceAuthority, m.Kind, m.Classification = memory.Authority(ms.auth.String), memory.Kind(ms.kind.String), memory.Classification(ms.class.String)
	m.CreatedAt = time.Unix(0, ms.created).UTC()
	if ms.expires.Valid {
		m.ExpiresAt = time.Unix(0, ms.expires.Int64).UTC()
	}
	if ms.revokedAt.Valid {
		m.RevokedAt = time.Unix(0, ms.revokedAt.Int64).UTC()
	}
	m.RevokedReason = ms.rsn.String
	if ms.aud.Valid {
		if err := json.Unmarshal([]byte(ms.aud.String), &m.Audience); err != nil {
			return m, 0, fmt.Errorf("memory %s: corrupt audience: %w", m.ID, err)
		}
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

// scanMemory scans one row, as memoryScanner does.
func scanMemory(sc scanner, withVector bool) (memory.Memory, int64, error) {
	return newMemoryScanner(withVector).scan(sc)
}

// Get returns the memories with the given ids, in the order asked, with
// their lineage, supersedes and supersededBy relations. Ids that are not
// stored are left out; use GetOne to treat a missing id as an error.
func (s *Store) Get(ctx context.Context, ids []string, withVectors bool) ([]memory.Memory, error) {
	if len(ids) == 0 {
		return nil, nil
	}
	if !withVectors {
		return s.cachedGet(ctx, ids)
	}
	return s.getUncached(ctx, ids, withVectors)
}

// getUncached is Get, read from the database.
func (s *Store) getUncached(ctx context.Context, ids []string, withVectors bool) ([]memory.Memory, error) {
	list := idList(ids)
	q := getSQL
	if withVectors {
		q = getWithVectorsSQL
	}
	rows, err := s.query(ctx, q, list)
	if err != nil {
		return nil, fmt.Errorf("get memories: %w", describe(err))
	}
	sc := newMemoryScanner(withVectors)
	found := make([]memory.Memory, 0, len(ids))
	for rows.Next() {
		m, _, err := sc.scan(rows)
		if err != nil {
			rows.Close()
			return nil, fmt.Errorf("get memories: %w", err)
		}
		found = append(found, m)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("get memories: %w", describe(err))
	}
	byID := make(map[string]*memory.Memory, len(found))
	for i := range found {
		byID[found[i].ID] = &found[i]
	}
	if err := s.loadRelations(ctx, list, byID); err != nil {
		return nil, err
	}
	out := make([]memory.Memory, 0, len(found))
	for _, id := range ids {
		if m, ok := byID[id]; ok {
			out = append(out, *m)
			delete(byID, id) // each once
		}
	}
	return out, nil
}

// idList is ids, each once, as a JSON array: the argument of the statements
// that read the rows of a list of ids (json_each).
func idList(ids []string) string {
	seen := make(map[string]struct{}, len(ids))
	uniq := make([]string, 0, len(ids))
	for _, id := range ids {
		if _, dup := seen[id]; !dup {
			seen[id] = struct{}{}
			uniq = append(uniq, id)
		}
	}
	b, _ := json.Marshal(uniq)
	return string(b)
}

// relationsSQL reads the relations of the memories whose ids are in a JSON
// array of distinct ids: rows (0, id, source) for lineage, (1, id,
// superseded) for supersession and (2, id, successor) for the live
// memories that supersede one. Only live (non-revoked) memories supersede:
// revoking the newer memory lets the older one stand again.
const relationsSQL = `SELECT 0, l.memory_id, l.source_id FROM json_each(?1) j CROSS JOIN lineage l ON l.memory_id = j.value
	UNION ALL SELECT 1, s.memory_id, s.superseded_id FROM json_each(?1) j CROSS JOIN supersessions s ON s.memory_id = j.value
	UNION ALL SELECT 2, s.superseded_id, s.memory_id FROM json_each(?1) j CROSS JOIN supersessions s ON s.superseded_id = j.value
		JOIN memories m ON m.id = s.memory_id AND m.revoked = 0`

// loadRelations fills LineageRefs, Supersedes and SupersededBy of the
// memories in byID, each sorted; idList is their ids (idList).
func (s *Store) loadRelations(ctx context.Context, idList string, byID map[string]*memory.Memory) error {
	rows, err := s.query(ctx, relationsSQL, idList)
	if err != nil {
		return fmt.Errorf("load relations: %w", describe(err))
	}
	var rel store.Relations
	for rows.Next() {
		var kind int
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
		return fmt.Errorf("load relations: %w", describe(err))
	}
	rel.Sort()
	return nil
}

// List returns memories in insertion order, one page at a time.
func (s *Store) List(ctx context.Context, q store.ListQuery) (store.Page, error) {
	var where []string
	var args []any
	where = append(where, "seq > ?")
	args = append(args, q.After)
	if q.Filter.UserID != "" {
		where, args = append(where, "user_id = ?"), append(args, q.Filter.UserID)
	}
	for _, ax := range []struct{ col, v string }{{"workspace_id", q.Filter.WorkspaceID}, {"project_id", q.Filter.ProjectID}, {"domain", q.Filter.Domain}} {
		if ax.v != "" {
			where = append(where, "("+ax.col+" IS NULL OR "+ax.col+" = ?)")
			args = append(args, ax.v)
		}
	}
	if !q.IncludeRevoked {
		where = append(where, "revoked = 0")
	}
	cols := memoryColumns
	if q.WithVectors {
		cols += ", embedding"
	}
	stmt := "SELECT " + cols + " FROM memories WHERE " + strings.Join(where, " AND ") + " ORDER BY seq"
	if q.Limit > 0 {
		stmt += " LIMIT " + strconv.Itoa(q.Limit+1)
	}
	rows, err := s.db.QueryContext(ctx, stmt, args...)
	if err != nil {
		return store.Page{}, fmt.Errorf("list memories: %w", describe(err))
	}
	var ms []memory.Memory
	var seqs []int64
	sc := newMemoryScanner(q.WithVectors)
	for rows.Next() {
		m, seq, err := sc.scan(rows)
		if err != nil {
			rows.Close()
			return store.Page{}, fmt.Errorf("list memories: %w", err)
		}
		ms, seqs = append(ms, m), append(seqs, seq)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return store.Page{}, fmt.Errorf("list memories: %w", describe(err))
	}
	var p store.Page
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
		if err := s.loadRelations(ctx, idList(ids), byID); err != nil {
			return store.Page{}, err
		}
	}
	p.Memories = ms
	return p, nil
}

// Revoke marks a memory revoked and appends its audit event, in one
// transaction, and returns the memory as now stored. Revoking a revoked
// memory keeps the first revocation; the event is appended all the same.
func (s *Store) Revoke(ctx context.Context, id string, c store.Change) (memory.Memory, error) {
	var m memory.Memory
	err := s.write(ctx, "revoke "+id, func(tx *sql.Tx) error {
		if _, err := tx.ExecContext(ctx, `UPDATE memories SET revoked = 1, revoked_at = ?, revoked_reason = ?
			WHERE id = ? AND revoked = 0`, c.At.UnixNano(), nullStr(c.Reason), id); err != nil {
			return err
		}
		// The memory as this transaction leaves it: a Forget committed
		// right after cannot turn a done revocation into an error.
		var err error
		m, _, err = scanMemory(tx.QueryRowContext(ctx, "SELECT "+memoryColumns+" FROM memories WHERE id = ?", id), false)
		if errors.Is(err, sql.ErrNoRows) {
			return store.ErrNotFound
		}
		if err != nil {
			return err
		}
		_, err = appendEvents(ctx, tx, []audit.Event{audit.ChangeEvent(audit.Revoke, c.At, m.UserID, id, c.PrincipalID, c.Reason)})
		return err
	})
	if err != nil {
		return memory.Memory{}, err
	}
	return m, s.loadRelations(ctx, idList([]string{id}), map[string]*memory.Memory{id: &m})
}

// Forget deletes a memory's text, metadata and vector for good, removes it
// from the full-text index, leaves a tombstone and appends the audit event,
// in one transaction. Lineage rows naming it as a source stay, so its
// descendants remain traceable; its own lineage rows go with it.
func (s *Store) Forget(ctx context.Context, id string, c store.Change) (memory.Tombstone, error) {
	t := memory.Tombstone{ID: id, ForgottenAt: c.At.UTC(), Reason: c.Reason}
	err := s.write(ctx, "forget "+id, func(tx *sql.Tx) error {
		if err := tx.QueryRowContext(ctx, "SELECT user_id FROM memories WHERE id = ?", id).Scan(&t.UserID); err != nil {
			if errors.Is(err, sql.ErrNoRows) {
				return store.ErrNotFound
			}
			return err
		}
		if _, err := tx.ExecContext(ctx, "DELETE FROM memories WHERE id = ?", id); err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, "INSERT INTO tombstones(id, user_id, forgotten_at, reason) VALUES (?, ?, ?, ?)",
			id, t.UserID, c.At.UnixNano(), nullStr(c.Reason)); err != nil {
			return err
		}
		_, err := appendEvents(ctx, tx, []audit.Event{audit.ChangeEvent(audit.Forget, c.At, t.UserID, id, c.PrincipalID, c.Reason)})
		return err
	})
	return t, err
}

// Revoked returns the last n memories the user stored that are now revoked
// (all of them for n ≤ 0), oldest first, without vectors or relations.
func (s *Store) Revoked(ctx context.Context, userID string, n int) ([]memory.Memory, error) {
	limit := -1 // SQLite: no limit
	if n > 0 {
		limit = n
	}
	rows, err := s.query(ctx, revokedSQL, userID, limit)
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
	slices.Reverse(out) // oldest first
	return out, rows.Err()
}

// Tombstones returns the tombstones of the forgotten memories among ids.
func (s *Store) Tombstones(ctx context.Context, ids []string) (map[string]memory.Tombstone, error) {
	out := map[string]memory.Tombstone{}
	if len(ids) == 0 {
		return out, nil
	}
	rows, err := s.query(ctx, tombstonesSQL, idList(ids))
	if err != nil {
		return nil, fmt.Errorf("read tombstones: %w", describe(err))
	}
	defer rows.Close()
	for rows.Next() {
		var t memory.Tombstone
		var at int64
		var reason sql.NullString
		if err := rows.Scan(&t.ID, &t.UserID, &at, &reason); err != nil {
			return nil, fmt.Errorf("read tombstones: %w", describe(err))
		}
		t.ForgottenAt, t.Reason = time.Unix(0, at).UTC(), reason.String
		out[t.ID] = t
	}
	return out, rows.Err()
}

// Supersede records that newID replaces each of oldIDs. All must be stored
// memories of the same user.
func (s *Store) Supersede(ctx context.Context, newID string, oldIDs []string) error {
	return s.write(ctx, "supersede", func(tx *sql.Tx) error {
		var user string
		if err := tx.QueryRowContext(ctx, "SELECT user_id FROM memories WHERE id = ?", newID).Scan(&user); err != nil {
			if errors.Is(err, sql.ErrNoRows) {
				return fmt.Errorf("memory %s: %w", newID, store.ErrNotFound)
			}
			return err
		}
		for _, old := range oldIDs {
			if old == newID {
				return fmt.Errorf("memory %s cannot supersede itself", old)
			}
			var oldUser string
			if err := tx.QueryRowContext(ctx, "SELECT user_id FROM memories WHERE id = ?", old).Scan(&oldUser); err != nil {
				if errors.Is(err, sql.ErrNoRows) {
					return fmt.Errorf("memory %s: %w", old, store.ErrNotFound)
				}
				return err
			}
			if oldUser != user {
				// Read like a missing id: whose memories exist is not for
				// another user's caller to learn.
				return fmt.Errorf("memory %s: %w", old, store.ErrNotFound)
			}
			if _, err := tx.ExecContext(ctx, "INSERT OR IGNORE INTO supersessions(memory_id, superseded_id) VALUES (?, ?)", newID, old); err != nil {
				return err
			}
		}
		return nil
	})
}

// Descendants returns the ids of every stored memory derived, directly or
// through other memories, from any of ids.
func (s *Store) Descendants(ctx context.Context, ids []string) ([]string, error) {
	list, _ := json.Marshal(ids)
	rows, err := s.db.QueryContext(ctx, `WITH RECURSIVE d(id) AS (
			SELECT memory_id FROM lineage WHERE source_id IN (SELECT value FROM json_each(?))
			UNION SELECT l.memory_id FROM lineage l JOIN d ON l.source_id = d.id)
		SELECT id FROM d ORDER BY id`, string(list))
	if err != nil {
		return nil, fmt.Errorf("find descendants: %w", describe(err))
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			return nil, err
		}
		out = append(out, id)
	}
	return out, rows.Err()
}

// EmbedFunc computes vectors for texts, as an embedder does.
type EmbedFunc func(ctx context.Context, texts []string) ([][]float32, error)

// Reembed recomputes every memory's embedding with embedFn and records id as
// the store's embedder, all in one transaction: a failure part-way leaves the
// store as it was. progress, if not nil, is told how many memories are done.
func (s *Store) Reembed(ctx context.Context, id embed.Identity, embedFn EmbedFunc, batch int, progress func(done, total int)) error {
	if batch <= 0 {
		batch = 256
	}
	return s.write(ctx, "re-embed", func(tx *sql.Tx) error {
		var total int
		if err := tx.QueryRowContext(ctx, "SELECT count(*) FROM memories").Scan(&total); err != nil {
			return err
		}
		upd, err := tx.PrepareContext(ctx, "UPDATE memories SET embedding = ? WHERE seq = ?")
		if err != nil {
			return err
		}
		defer upd.Close()
		done := 0
		for after := int64(0); ; {
			rows, err := tx.QueryContext(ctx, "SELECT seq, text FROM memories WHERE seq > ? ORDER BY seq LIMIT ?", after, batch)
			if err != nil {
				return err
			}
			var seqs []int64
			var texts []string
			for rows.Next() {
				var seq int64
				var text string
				if err := rows.Scan(&seq, &text); err != nil {
					rows.Close()
					return err
				}
				seqs, texts = append(seqs, seq), append(texts, text)
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
			for i, v := range vecs {
				embed.Normalize(v)
				if _, err := upd.ExecContext(ctx, encodeVector(v), seqs[i]); err != nil {
					return err
				}
			}
			done += len(seqs)
			after = seqs[len(seqs)-1]
			if progress != nil {
				progress(done, total)
			}
		}
		return setIdentity(ctx, tx, id, true)
	})
}

// The statements of Stats; each is answered from an index (a test checks
// their query plans). Grouping by the bare column lets SQLite walk
// memories_by_authority.
const (
	statsCountsSQL = `SELECT
		(SELECT count(*) FROM memories),
		(SELECT count(*) FROM memories WHERE revoked = 1),
		(SELECT count(*) FROM memories WHERE expires_at IS NOT NULL AND expires_at <= ?),
		(SELECT count(DISTINCT user_id) FROM memories),
		(SELECT count(*) FROM tombstones),
		(SELECT count(*) FROM lineage),
		(SELECT count(*) FROM supersessions)`
	statsByAuthoritySQL = "SELECT source_authority, count(*) FROM memories GROUP BY source_authority"
)

// Stats counts what the store holds; expiry is judged at now. It reads
// indexes only, never the memories' rows, so it is fast on a large store.
func (s *Store) Stats(ctx context.Context, now time.Time) (store.Stats, error) {
	st := store.Stats{ByAuth: map[string]int{}}
	err := s.db.QueryRowContext(ctx, statsCountsSQL, now.UnixNano()).
		Scan(&st.Memories, &st.Revoked, &st.Expired, &st.Users, &st.Tombstones, &st.Lineage, &st.Supersede)
	if err != nil {
		return st, fmt.Errorf("stats: %w", describe(err))
	}
	rows, err := s.db.QueryContext(ctx, statsByAuthoritySQL)
	if err != nil {
		return st, fmt.Errorf("stats: %w", describe(err))
	}
	defer rows.Close()
	for rows.Next() {
		var a sql.NullString
		var n int
		if err := rows.Scan(&a, &n); err != nil {
			return st, err
		}
		if !a.Valid || a.String == "" {
			a.String = "unknown"
		}
		st.ByAuth[a.String] += n
	}
	if st.Schema, err = s.SchemaVersion(ctx); err != nil {
		return st, err
	}
	if fi, err := os.Stat(s.path); err == nil {
		st.FileBytes = fi.Size()
	}
	return st, rows.Err()
}

// Check runs SQLite's integrity check over the whole file, and checks that
// the audit trail's memory index (see memIndexer) covers every event it
// claims to and names no event's memory wrongly.
func (s *Store) Check(ctx context.Context) error {
	var res string
	if err := s.db.QueryRowContext(ctx, "PRAGMA integrity_check").Scan(&res); err != nil {
		return fmt.Errorf("integrity check: %w", describe(err))
	}
	if res != "ok" {
		return fmt.Errorf("integrity check: %s", res)
	}
	var missing, wrong sql.NullInt64
	err := s.db.QueryRowContext(ctx, `SELECT
		(SELECT min(e.seq) FROM audit_events e WHERE e.memory_id IS NOT NULL AND e.seq <= `+memoryIndexUpto+`
			AND NOT EXISTS (SELECT 1 FROM audit_memory_index i WHERE i.memory_id = e.memory_id AND i.seq = e.seq)),
		(SELECT min(i.seq) FROM audit_memory_index i LEFT JOIN audit_events e ON e.seq = i.seq WHERE e.memory_id IS NOT i.memory_id)`).Scan(&missing, &wrong)
	switch {
	case err != nil:
		return fmt.Errorf("integrity check: audit memory index: %w", describe(err))
	case missing.Valid:
		return fmt.Errorf("integrity check: audit event %d is missing from the memory index", missing.Int64)
	case wrong.Valid:
		return fmt.Errorf("integrity check: the memory index names the wrong memory for audit event %d", wrong.Int64)
	}
	return nil
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

func nullStr(s string) any {
	if s == "" {
		return nil
	}
	return s
}

func nullTime(t time.Time) any {
	if t.IsZero() {
		return nil
	}
	return t.UnixNano()
}

// sqlNullString scans a nullable text column into a plain string.
type sqlNullString struct{ s *string }

// Scan implements sql.Scanner.
func (n *sqlNullString) Scan(v any) error {
	switch x := v.(type) {
	case nil:
		*n.s = ""
	case string:
		*n.s = x
	case []byte:
		*n.s = string(x)
	default:
		return fmt.Errorf("unexpected %T", v)
	}
	return nil
}

// The contract this package implements.
var (
	_ store.Store   = (*Store)(nil)
	_ store.Checker = (*Store)(nil)
	_ store.Locator = (*Store)(nil)
)
