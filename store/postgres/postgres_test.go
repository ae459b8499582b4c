package postgres

import (
	"bytes"
	"context"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/memgate/memgate/audit"
	"github.com/memgate/memgate/auth"
	"github.com/memgate/memgate/embed"
	"github.com/memgate/memgate/memory"
	"github.com/memgate/memgate/store"
	"github.com/memgate/memgate/store/postgres/pgtest"
	"github.com/memgate/memgate/store/storetest"
)

const envServer = pgtest.Env

func serverURL(t testing.TB) string { return pgtest.ServerURL(t) }

func withDatabase(t testing.TB, base, name string) string { return pgtest.WithDatabase(t, base, name) }

func adminExec(t testing.TB, stmts ...string) { pgtest.AdminExec(t, stmts...) }

func freshDB(t testing.TB) string { return pgtest.Fresh(t) }

// openAt opens the store at u, closed when t ends.
func openAt(t testing.TB, u string, o Options) *Store {
	t.Helper()
	s, err := OpenWith(t.Context(), u, o)
	if err != nil {
		t.Fatalf("OpenWith(%+v): %v", o, err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// openFresh opens a store in a database of its own.
func openFresh(t testing.TB) *Store { return openAt(t, freshDB(t), Options{}) }

// The PostgreSQL store passes the conformance suite, each check in a fresh
// database.
func TestConformance(t *testing.T) {
	serverURL(t)
	storetest.Run(t, func(t testing.TB) store.Store { return openFresh(t) })
}

var t0 = time.Date(2026, 5, 1, 9, 0, 0, 123456789, time.UTC)

func newMem(id, user, text string) memory.Memory {
	return memory.Memory{ID: id, UserID: user, Text: text, CreatedAt: t0, Embedding: []float32{0.5, 0.5, 0.5, 0.5}}
}

func mustInsert(t testing.TB, s *Store, ms ...memory.Memory) {
	t.Helper()
	if _, err := s.Insert(t.Context(), ms, store.ConflictError, nil); err != nil {
		t.Fatalf("Insert: %v", err)
	}
}

// The audit trail refuses UPDATE, DELETE and TRUNCATE, whoever sends them,
// and Check notices when its triggers are disabled.
func TestAuditTrailIsAppendOnly(t *testing.T) {
	s := openFresh(t)
	ctx := t.Context()
	first, err := s.AppendEvents(ctx, []audit.Event{{Kind: audit.Search, At: t0, UserID: "u1", Payload: json.RawMessage(`{"q":1}`)}})
	if err != nil {
		t.Fatal(err)
	}
	for _, stmt := range []string{
		"UPDATE audit_events SET payload = 'x'",
		"UPDATE audit_events SET seq = seq + 100",
		"DELETE FROM audit_events",
		"TRUNCATE audit_events",
	} {
		_, err := s.Pool().Exec(ctx, stmt)
		if err == nil || !strings.Contains(err.Error(), "the audit trail is append-only") {
			t.Errorf("%s: %v, want the append-only refusal", stmt, err)
		}
	}
	evs, err := s.Events(ctx, audit.Filter{})
	if err != nil || len(evs) != 1 || evs[0].Seq != first || string(evs[0].Payload) != `{"q":1}` {
		t.Errorf("after refused changes the trail reads %+v, %v", evs, err)
	}
	if err := s.Check(ctx); err != nil {
		t.Errorf("Check: %v", err)
	}
	if _, err := s.Pool().Exec(ctx, "ALTER TABLE audit_events DISABLE TRIGGER audit_no_update_or_delete"); err != nil {
		t.Fatal(err)
	}
	if err := s.Check(ctx); err == nil || !strings.Contains(err.Error(), "append-only triggers") {
		t.Errorf("Check with a disabled trigger = %v", err)
	}
}

// Forgetting leaves no trace of the text or the vector in any table of the
// store (what PostgreSQL keeps in dead tuples and the WAL until VACUUM and
// checkpoints is documented, not tested).
func TestForgetLeavesNoText(t *testing.T) {
	s := openFresh(t)
	ctx := t.Context()
	const secret = "the safe code is zebracorn-4711"
	m := newMem("secret", "u1", secret)
	m.Embedding = []float32{0.1234567, -0.7654321, 0.25, 0.5}
	m.Audience = []string{"role:family"}
	m.Domain = "vault"
	mustInsert(t, s, newMem("base", "u1", "a base note"), newMem("old", "u1", "an old note"))
	m.LineageRefs, m.Supersedes = []string{"base"}, []string{"old"}
	mustInsert(t, s, m)
	child := newMem("child", "u1", "derived from the secret")
	child.LineageRefs = []string{"secret"}
	newer := newMem("newer", "u1", "replaces the secret")
	newer.Supersedes = []string{"secret"}
	mustInsert(t, s, child, newer)
	a := &audit.Admission{Search: audit.Event{Kind: audit.Search, At: t0, UserID: "u1", TaskID: "t", Payload: json.RawMessage(`{"query":"code"}`)},
		Decisions: []audit.Event{{Kind: audit.Decision, At: t0, UserID: "u1", TaskID: "t", MemoryID: "secret", Decision: "quarantine", Payload: json.RawMessage(`{}`)}},
		Quarantine: []audit.QuarantineItem{{MemoryID: "secret", UserID: "u1", TaskID: "t", At: t0, Query: "code",
			Context: json.RawMessage(`{}`), Reasons: json.RawMessage(`[]`)}}}
	if _, err := s.RecordAdmission(ctx, a); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Revoke(ctx, "secret", store.Change{Reason: "stale", At: t0.Add(time.Minute)}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Forget(ctx, "secret", store.Change{Reason: "erasure", At: t0.Add(time.Hour), PrincipalID: "dpo"}); err != nil {
		t.Fatal(err)
	}
	if err := s.Vacuum(ctx); err != nil {
		t.Fatal(err)
	}
	needles := map[string]string{
		"text":          secret,
		"text as bytea": hex.EncodeToString([]byte(secret)),
		"vector":        hex.EncodeToString(encodeVector(m.Embedding)),
		"vector part":   hex.EncodeToString(encodeVector(m.Embedding[:2])),
		"domain":        "vault",
	}
	rows, err := s.Pool().Query(ctx, "SELECT tablename FROM pg_tables WHERE schemaname = current_schema() ORDER BY 1")
	if err != nil {
		t.Fatal(err)
	}
	tables, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil || len(tables) < 9 {
		t.Fatalf("tables %v, %v", tables, err)
	}
	for _, table := range tables {
		rows, err := s.Pool().Query(ctx, "SELECT t::text FROM "+pgx.Identifier{table}.Sanitize()+" t")
		if err != nil {
			t.Fatal(err)
		}
		texts, err := pgx.CollectRows(rows, pgx.RowTo[string])
		if err != nil {
			t.Fatal(err)
		}
		for _, row := range texts {
			for what, needle := range needles {
				if strings.Contains(row, needle) {
					t.Errorf("table %s keeps the forgotten memory's %s: %s", table, what, row)
				}
			}
		}
	}
	// What stays: the tombstone, the incoming lineage link, the events.
	var links, tombs int
	if err := s.Pool().QueryRow(ctx, `SELECT (SELECT count(*) FROM lineage WHERE source_id = 'secret'),
		(SELECT count(*) FROM tombstones WHERE id = 'secret' AND user_id = 'u1')`).Scan(&links, &tombs); err != nil || links != 1 || tombs != 1 {
		t.Errorf("after forgetting: %d links to it, %d tombstones (%v); want 1 and 1", links, tombs, err)
	}
	if err := s.Check(ctx); err != nil {
		t.Errorf("Check: %v", err)
	}
}

// Text reads back byte for byte, NUL and invalid UTF-8 included, as from
// SQLite (PostgreSQL's text type refuses both, hence bytea).
func TestTextRoundTrip(t *testing.T) {
	s := openFresh(t)
	ctx := t.Context()
	m := newMem("nul", "u1", "before\x00after")
	if err := m.Validate(); err != nil {
		t.Fatalf("the test's memory is invalid: %v", err)
	}
	mustInsert(t, s, m)
	c := store.Change{Reason: "bad \xff byte\x00", At: t0.Add(time.Hour)}
	got, err := s.Revoke(ctx, "nul", c)
	if err != nil {
		t.Fatal(err)
	}
	if got.Text != m.Text || got.RevokedReason != c.Reason {
		t.Errorf("read back %q, %q; want %q, %q", got.Text, got.RevokedReason, m.Text, c.Reason)
	}
	payload := json.RawMessage("\x00 not json \xfe")
	if _, err := s.AppendEvents(ctx, []audit.Event{{Kind: audit.Binding, At: t0, Payload: payload}, {Kind: audit.Binding, At: t0}}); err != nil {
		t.Fatal(err)
	}
	evs, err := s.Events(ctx, audit.Filter{Kind: audit.Binding})
	if err != nil || len(evs) != 2 || !bytes.Equal(evs[0].Payload, payload) || evs[1].Payload == nil || len(evs[1].Payload) != 0 {
		t.Errorf("events read back %+v, %v", evs, err)
	}
	ts, err := s.Forget(ctx, "nul", c)
	if err != nil {
		t.Fatal(err)
	}
	tss, err := s.Tombstones(ctx, []string{"nul"})
	if err != nil || tss["nul"].Reason != c.Reason || ts.Reason != c.Reason {
		t.Errorf("tombstone %+v, %v", tss, err)
	}
}

// Open creates the schema once, however many processes open a new store at
// once, and records each migration.
func TestConcurrentOpen(t *testing.T) {
	u := freshDB(t)
	const openers = 6
	var wg sync.WaitGroup
	errs := make([]error, openers)
	for i := range openers {
		wg.Go(func() {
			s, err := Open(t.Context(), u)
			if err == nil {
				err = s.SetIdentity(t.Context(), embed.Identity{Name: "builtin", Dim: 4})
				s.Close()
			}
			errs[i] = err
		})
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Errorf("opener %d: %v", i, err)
		}
	}
	s := openAt(t, u, Options{MustExist: true})
	rows, err := s.Pool().Query(t.Context(), "SELECT version FROM schema_migrations ORDER BY version")
	if err != nil {
		t.Fatal(err)
	}
	versions, err := pgx.CollectRows(rows, pgx.RowTo[int32])
	if err != nil {
		t.Fatal(err)
	}
	var want []int32
	for v := range migrations {
		want = append(want, int32(v+1))
	}
	if !slices.Equal(versions, want) {
		t.Errorf("schema_migrations = %v, want %v", versions, want)
	}
	if v, err := s.SchemaVersion(t.Context()); err != nil || v != len(migrations) {
		t.Errorf("SchemaVersion = %d, %v", v, err)
	}
	if st, err := s.Stats(t.Context(), t0); err != nil || st.Schema != len(migrations) || st.FileBytes <= 0 {
		t.Errorf("Stats = %+v, %v; want the schema version and a size", st, err)
	}
}

// MustExist and ReadOnly refuse to create a store; a read-only store reads
// and refuses writes with store.ErrReadOnly; a newer schema and another
// program's tables are refused.
func TestOpenOptions(t *testing.T) {
	ctx := t.Context()
	u := freshDB(t)
	for _, o := range []Options{{MustExist: true}, {ReadOnly: true}} {
		if _, err := OpenWith(ctx, u, o); !errors.Is(err, store.ErrNoStore) {
			t.Errorf("OpenWith(%+v) of an empty database = %v, want ErrNoStore", o, err)
		}
	}
	if _, err := OpenWith(ctx, withDatabase(t, serverURL(t), "memgate_test_no_such_database"), Options{MustExist: true}); !errors.Is(err, store.ErrNoStore) {
		t.Errorf("OpenWith of a missing database = %v, want ErrNoStore", err)
	}
	w := openAt(t, u, Options{})
	mustInsert(t, w, newMem("m1", "u1", "one"))
	if w.ReadOnly() {
		t.Errorf("a store opened writable says it is read-only")
	}

	r := openAt(t, u, Options{ReadOnly: true})
	if !r.ReadOnly() {
		t.Errorf("a read-only store says it is writable")
	}
	if _, err := store.GetOne(ctx, r, "m1", true); err != nil {
		t.Errorf("read-only Get: %v", err)
	}
	if _, err := r.Insert(ctx, []memory.Memory{newMem("m2", "u1", "two")}, store.ConflictError, nil); !errors.Is(err, store.ErrReadOnly) {
		t.Errorf("read-only Insert = %v, want ErrReadOnly", err)
	}
	if _, err := r.Revoke(ctx, "m1", store.Change{At: t0}); !errors.Is(err, store.ErrReadOnly) {
		t.Errorf("read-only Revoke = %v, want ErrReadOnly", err)
	}
	if _, err := r.AppendEvents(ctx, []audit.Event{{Kind: audit.Search, At: t0}}); !errors.Is(err, store.ErrReadOnly) {
		t.Errorf("read-only AppendEvents = %v, want ErrReadOnly", err)
	}

	if _, err := w.Pool().Exec(ctx, "INSERT INTO schema_migrations (version) VALUES (99)"); err != nil {
		t.Fatal(err)
	}
	if _, err := Open(ctx, u); err == nil || !strings.Contains(err.Error(), "newer memgate") {
		t.Errorf("Open of a newer schema = %v", err)
	}

	other := freshDB(t)
	conn, err := pgx.Connect(ctx, other)
	if err != nil {
		t.Fatal(err)
	}
	_, err = conn.Exec(ctx, "CREATE TABLE memories (id int)")
	conn.Close(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Open(ctx, other); err == nil || !strings.Contains(err.Error(), "not a memgate store") {
		t.Errorf("Open of another program's tables = %v", err)
	}
}

// Two stores can share a database in two schemas (search_path), and do not
// see each other.
func TestSchemas(t *testing.T) {
	u := freshDB(t)
	ctx := t.Context()
	conn, err := pgx.Connect(ctx, u)
	if err != nil {
		t.Fatal(err)
	}
	_, err = conn.Exec(ctx, "CREATE SCHEMA tenant_a; CREATE SCHEMA tenant_b")
	conn.Close(ctx)
	if err != nil {
		t.Fatal(err)
	}
	in := func(schema string) string {
		if strings.Contains(u, "://") {
			sep := "?"
			if strings.Contains(u, "?") {
				sep = "&"
			}
			return u + sep + "search_path=" + schema
		}
		return u + " search_path=" + schema
	}
	a, b := openAt(t, in("tenant_a"), Options{}), openAt(t, in("tenant_b"), Options{})
	mustInsert(t, a, newMem("m1", "u1", "in a"))
	mustInsert(t, b, newMem("m1", "u1", "in b"))
	for s, want := range map[*Store]string{a: "in a", b: "in b"} {
		if m, err := store.GetOne(ctx, s, "m1", false); err != nil || m.Text != want {
			t.Errorf("GetOne = %q, %v; want %q", m.Text, err, want)
		}
	}
	if a.auditLock == b.auditLock || a.memoriesLock == b.memoriesLock {
		t.Errorf("two schemas share advisory lock keys")
	}
}

// The store keeps API keys (auth.Store) as store/sqlite does.
func TestKeys(t *testing.T) {
	s := openFresh(t)
	ctx := t.Context()
	p := auth.Principal{ID: "agent-1", Role: auth.Agent, Users: []string{"u1", "u2"}}
	plain, k, err := auth.NewKey(p, t0)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.PutKey(ctx, k); err != nil {
		t.Fatal(err)
	}
	if err := s.PutKey(ctx, k); !errors.Is(err, store.ErrConflict) || err.Error() != "store key "+k.ID+": conflict" {
		t.Errorf("PutKey of a stored id = %v, want %q", err, "store key "+k.ID+": conflict")
	}
	_, k2, _ := auth.NewKey(auth.Principal{ID: "admin", Role: auth.Admin, Users: []string{auth.AllUsers}}, t0.Add(time.Hour))
	if err := s.PutKey(ctx, k2); err != nil {
		t.Fatal(err)
	}
	if got, err := auth.Authenticate(ctx, s, plain, t0.Add(time.Minute)); err != nil || got.ID != p.ID || !slices.Equal(got.Users, p.Users) {
		t.Errorf("Authenticate = %+v, %v", got, err)
	}
	if _, err := s.Key(ctx, "nosuchkey"); !errors.Is(err, auth.ErrUnknownKey) {
		t.Errorf("Key(missing) = %v", err)
	}
	at := t0.Add(2 * time.Hour)
	for _, when := range []time.Time{at, at.Add(time.Hour)} {
		if err := s.RevokeKey(ctx, k.ID, when); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.RevokeKey(ctx, "nosuchkey", at); !errors.Is(err, store.ErrNotFound) || err.Error() != "revoke key nosuchkey: not found" {
		t.Errorf("RevokeKey(missing) = %v", err)
	}
	keys, err := s.Keys(ctx)
	if err != nil || len(keys) != 2 || keys[0].ID != k.ID || keys[1].ID != k2.ID {
		t.Fatalf("Keys = %+v, %v", keys, err)
	}
	if !keys[0].RevokedAt.Equal(at) || !keys[1].RevokedAt.IsZero() || !keys[0].CreatedAt.Equal(t0) || !bytes.Equal(keys[0].Hash, k.Hash) {
		t.Errorf("keys read back %+v", keys)
	}
	if _, err := auth.Authenticate(ctx, s, plain, at); !errors.Is(err, auth.ErrUnknownKey) {
		t.Errorf("Authenticate with a revoked key = %v", err)
	}
}

// Path shows where the store is, never the password.
func TestPathHidesThePassword(t *testing.T) {
	u := serverURL(t)
	s := openAt(t, u, Options{})
	cfg, err := pgx.ParseConfig(u)
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Password != "" && strings.Contains(s.Path(), cfg.Password) {
		t.Errorf("Path() = %s shows the password", s.Path())
	}
	if !strings.HasPrefix(s.Path(), "postgres://") || !strings.Contains(s.Path(), cfg.Database) {
		t.Errorf("Path() = %s", s.Path())
	}
}

// Without a server: a URL that cannot be parsed is refused without showing
// it, and an unreachable server is ErrUnreachable.
func TestOpenErrors(t *testing.T) {
	ctx := t.Context()
	if _, err := Open(ctx, ""); err == nil {
		t.Errorf("Open(\"\") succeeded")
	}
	if _, err := Open(ctx, "postgres://u:sekrit@host:notaport/db"); err == nil || strings.Contains(err.Error(), "sekrit") {
		t.Errorf("Open of a bad URL = %v", err)
	}
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	// Port 1 on the loopback: nothing listens there.
	_, err := Open(ctx, "postgres://u:sekrit@127.0.0.1:1/db?connect_timeout=5")
	if !errors.Is(err, ErrUnreachable) || strings.Contains(err.Error(), "sekrit") {
		t.Errorf("Open of an unreachable server = %v, want ErrUnreachable without the password", err)
	}
}

func TestLockKeys(t *testing.T) {
	if lockKey("public", "audit") == lockKey("public", "memories") || lockKey("a", "audit") == lockKey("b", "audit") {
		t.Errorf("lock keys collide")
	}
}

// Reembed replaces every vector and the identity in one transaction; a
// failure part-way changes nothing.
func TestReembed(t *testing.T) {
	s := openFresh(t)
	ctx := t.Context()
	if err := s.SetIdentity(ctx, embed.Identity{Name: "old", Dim: 4}); err != nil {
		t.Fatal(err)
	}
	for i := range 5 {
		mustInsert(t, s, newMem(fmt.Sprintf("m%d", i), "u1", fmt.Sprintf("note %d", i)))
	}
	calls := 0
	failing := func(ctx context.Context, texts []string) ([][]float32, error) {
		if calls++; calls == 2 {
			return nil, errors.New("embedder down")
		}
		out := make([][]float32, len(texts))
		for i := range out {
			out[i] = []float32{3, 4, 0}
		}
		return out, nil
	}
	if err := s.Reembed(ctx, embed.Identity{Name: "new", Dim: 3}, failing, 2, nil); err == nil || !strings.Contains(err.Error(), "embedder down") {
		t.Fatalf("Reembed with a failing embedder = %v", err)
	}
	if id, _, _ := s.Identity(ctx); id.Name != "old" {
		t.Errorf("a failed Reembed changed the identity to %v", id)
	}
	if m, _ := store.GetOne(ctx, s, "m0", true); len(m.Embedding) != 4 {
		t.Errorf("a failed Reembed changed m0's vector to %v", m.Embedding)
	}
	calls = -10
	var ticks []int
	if err := s.Reembed(ctx, embed.Identity{Name: "new", Dim: 3}, failing, 2, func(done, total int) { ticks = append(ticks, done, total) }); err != nil {
		t.Fatal(err)
	}
	if want := []int{2, 5, 4, 5, 5, 5}; !slices.Equal(ticks, want) {
		t.Errorf("progress %v, want %v", ticks, want)
	}
	if id, ok, err := s.Identity(ctx); err != nil || !ok || id != (embed.Identity{Name: "new", Dim: 3}) {
		t.Errorf("Identity after Reembed = %v, %v, %v", id, ok, err)
	}
	if m, _ := store.GetOne(ctx, s, "m4", true); !slices.Equal(m.Embedding, []float32{0.6, 0.8, 0}) {
		t.Errorf("m4's vector after Reembed = %v, want it normalized", m.Embedding)
	}
}

// Sequence numbers commit in order: a reader that tails the trail (Events
// After the last it saw) or the memories (List After its cursor) while
// writers append misses nothing, as with SQLite's single writer.
func TestTailingMissesNothing(t *testing.T) {
	s := openFresh(t)
	ctx := t.Context()
	const writers, rounds = 4, 25
	var wg sync.WaitGroup
	for w := range writers {
		wg.Go(func() {
			for r := range rounds {
				ev := audit.Event{Kind: audit.Injection, At: t0, UserID: "u1", TaskID: fmt.Sprintf("w%d-r%d", w, r), Payload: json.RawMessage(`{}`)}
				if _, err := s.AppendEvents(ctx, []audit.Event{ev, ev}); err != nil {
					t.Errorf("AppendEvents: %v", err)
					return
				}
				if _, err := s.Insert(ctx, []memory.Memory{newMem(fmt.Sprintf("w%d-r%d", w, r), "u1", "note")}, store.ConflictError, nil); err != nil {
					t.Errorf("Insert: %v", err)
					return
				}
			}
		})
	}
	done := make(chan struct{})
	go func() { wg.Wait(); close(done) }()
	var tailedEvents, tailedMemories int
	var after, cursor int64
	for finished := false; !finished; {
		select {
		case <-done:
			finished = true // one more pass reads what the last writes left
		default:
		}
		evs, err := s.Events(ctx, audit.Filter{After: after})
		if err != nil {
			t.Fatal(err)
		}
		if len(evs) > 0 {
			tailedEvents += len(evs)
			after = evs[len(evs)-1].Seq
		}
		for {
			p, err := s.List(ctx, store.ListQuery{After: cursor, Limit: 7})
			if err != nil {
				t.Fatal(err)
			}
			tailedMemories += len(p.Memories)
			if p.Next == 0 {
				if n := len(p.Memories); n > 0 {
					// The last page has no cursor: the last memory's is its
					// insertion sequence number.
					cursor = lastSeqOf(t, s, p.Memories[n-1].ID)
				}
				break
			}
			cursor = p.Next
		}
	}
	if want := writers * rounds * 2; tailedEvents != want {
		t.Errorf("tailing the trail saw %d events, want %d", tailedEvents, want)
	}
	if want := writers * rounds; tailedMemories != want {
		t.Errorf("tailing the memories saw %d, want %d", tailedMemories, want)
	}
}

// lastSeqOf is the insertion sequence number of memory id.
func lastSeqOf(t testing.TB, s *Store, id string) int64 {
	t.Helper()
	var seq int64
	if err := s.Pool().QueryRow(t.Context(), "SELECT seq FROM memories WHERE id = $1", id).Scan(&seq); err != nil {
		t.Fatal(err)
	}
	return seq
}

// TestStopOutboxWaitsForWritesInFlight stops the outbox while a write, whose
// trigger already saw it enabled, has not committed: StopOutbox must wait
// for it, so that the stopped outbox keeps nothing and the next consumer
// starts afresh. (Found by review.)
func TestStopOutboxWaitsForWritesInFlight(t *testing.T) {
	u := freshDB(t)
	s := openAt(t, u, Options{})
	ctx := t.Context()
	if err := s.EnableOutbox(ctx, "idx-a", false); err != nil {
		t.Fatal(err)
	}
	mustInsert(t, s, newMem("m1", "ann", "first"))
	conn, err := pgx.Connect(ctx, u)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	tx, err := conn.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tx.Exec(ctx, "UPDATE memories SET text = 'edited by hand' WHERE id = 'm1'"); err != nil {
		t.Fatal(err)
	}
	stopped := make(chan error, 1)
	go func() { _, err := s.StopOutbox(ctx); stopped <- err }()
	time.Sleep(200 * time.Millisecond) // StopOutbox reaches the write's lock, or (wrongly) finishes
	if err := tx.Commit(ctx); err != nil {
		t.Fatal(err)
	}
	if err := <-stopped; err != nil {
		t.Fatal(err)
	}
	if st, err := s.OutboxLag(ctx); err != nil || st.Enabled || st.Pending != 0 {
		t.Fatalf("after the stop and the write: %+v, %v; want a stopped, empty outbox", st, err)
	}
	if err := s.EnableOutbox(ctx, "idx-b", false); err != nil {
		t.Fatal(err)
	}
	if st, _ := s.OutboxLag(ctx); st.Pending != 0 {
		t.Fatalf("the next consumer inherits %d records from before the stop", st.Pending)
	}
}
