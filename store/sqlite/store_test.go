package sqlite

import (
	"bytes"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/memgate/memgate/audit"
	"github.com/memgate/memgate/embed"
	"github.com/memgate/memgate/memory"
	"github.com/memgate/memgate/store"
)

var (
	ctx = context.Background()
	t0  = time.Date(2026, 5, 1, 9, 0, 0, 0, time.UTC)
	emb = embed.NewBuiltin()
)

func openTemp(t *testing.T) (*Store, string) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "test.db")
	s, err := Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s, path
}

func mem(id, user, text string) memory.Memory {
	m := memory.Memory{ID: id, UserID: user, Text: text, CreatedAt: t0, Embedding: make([]float32, embed.BuiltinDim)}
	emb.EmbedInto(m.Embedding, text)
	return m
}

func insert(t *testing.T, s *Store, ms ...memory.Memory) {
	t.Helper()
	if _, err := s.Insert(ctx, ms, store.ConflictError, nil); err != nil {
		t.Fatal(err)
	}
}

func count(t *testing.T, s *Store) int {
	t.Helper()
	st, err := s.Stats(ctx, t0)
	if err != nil {
		t.Fatal(err)
	}
	return st.Memories
}

func TestPersistsAcrossReopen(t *testing.T) {
	s, path := openTemp(t)
	if err := s.SetIdentity(ctx, emb.Identity()); err != nil {
		t.Fatal(err)
	}
	full := mem("m1", "u1", "Blood test results are due on Friday")
	full.WorkspaceID, full.ProjectID, full.Domain = "home", "checkup", "health"
	full.SourceAuthority, full.Kind, full.Classification = memory.AuthorityUserConfirmed, memory.KindEvent, memory.ClassRestricted
	full.ExpiresAt = t0.Add(30 * 24 * time.Hour)
	full.Audience = []string{"role:family"}
	derived := mem("m2", "u1", "Summary: health appointments this month")
	derived.LineageRefs, derived.SourceAuthority = []string{"m1"}, memory.AuthorityModelInferred
	newer := mem("m3", "u1", "Blood test moved to Monday")
	newer.Supersedes = []string{"m1"}
	insert(t, s, full, derived, newer)
	s.Close()

	s2, err := Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer s2.Close()
	id, ok, err := s2.Identity(ctx)
	if err != nil || !ok || id != emb.Identity() {
		t.Fatalf("identity after reopen: %v %v %v", id, ok, err)
	}
	got, err := store.GetOne(ctx, s2, "m1", true)
	if err != nil {
		t.Fatal(err)
	}
	if got.Text != full.Text || got.Domain != "health" || got.Kind != memory.KindEvent || got.Classification != memory.ClassRestricted ||
		!got.ExpiresAt.Equal(full.ExpiresAt) || !got.CreatedAt.Equal(t0) || got.Audience[0] != "role:family" ||
		len(got.Embedding) != embed.BuiltinDim || got.Embedding[0] != full.Embedding[0] {
		t.Fatalf("m1 changed across reopen:\n got %+v\nwant %+v", got, full)
	}
	if len(got.SupersededBy) != 1 || got.SupersededBy[0] != "m3" {
		t.Fatalf("m1.SupersededBy = %v", got.SupersededBy)
	}
	ms, err := s2.Get(ctx, []string{"m3", "nope", "m2"}, false)
	if err != nil {
		t.Fatal(err)
	}
	if len(ms) != 2 || ms[0].ID != "m3" || ms[1].ID != "m2" || ms[0].Supersedes[0] != "m1" || ms[1].LineageRefs[0] != "m1" {
		t.Fatalf("Get = %+v", ms)
	}
	if ms[0].Embedding != nil {
		t.Fatal("Get without vectors returned an embedding")
	}
}

func TestIdentityMismatch(t *testing.T) {
	s, _ := openTemp(t)
	if err := s.SetIdentity(ctx, embed.Identity{Name: "a", Dim: 4}); err != nil {
		t.Fatal(err)
	}
	if err := s.SetIdentity(ctx, embed.Identity{Name: "a", Dim: 4}); err != nil {
		t.Fatalf("same identity again: %v", err)
	}
	err := s.SetIdentity(ctx, embed.Identity{Name: "b", Dim: 4})
	if err == nil || !strings.Contains(err.Error(), "already records embedder a (dim 4)") {
		t.Fatalf("err = %v", err)
	}
}

func TestInsertIsAllOrNothing(t *testing.T) {
	s, _ := openTemp(t)
	insert(t, s, mem("a", "u1", "alpha"), mem("theirs", "u2", "their note"))
	forgotten := mem("gone", "u1", "forgotten one")
	insert(t, s, forgotten)
	if _, err := s.Forget(ctx, "gone", store.Change{Reason: "", At: t0}); err != nil {
		t.Fatal(err)
	}
	noVec := mem("x", "u1", "no vector")
	noVec.Embedding = nil
	badLineage := mem("x", "u1", "derived")
	badLineage.LineageRefs = []string{"a", "missing"}
	crossUser := mem("x", "u1", "supersedes someone else's")
	crossUser.Supersedes = []string{"theirs"}
	invalid := mem("x", "u1", "bad kind")
	invalid.Kind = "opinion"
	crossLineage := mem("x", "u1", "derived from someone else's")
	crossLineage.LineageRefs = []string{"theirs"}
	crossBatch := mem("x", "u1", "derived from someone else's, same batch")
	crossBatch.LineageRefs = []string{"y"}

	tests := []struct {
		name  string
		batch []memory.Memory
		want  string
	}{
		{"duplicate in batch", []memory.Memory{mem("d", "u1", "one"), mem("d", "u1", "two")}, "repeats memory 0"},
		{"existing id", []memory.Memory{mem("ok", "u1", "fine"), mem("a", "u1", "again")}, `id: "a" is already taken`},
		{"forgotten id reused", []memory.Memory{mem("gone", "u1", "back")}, `id: "gone" is already taken`},
		{"another user's id", []memory.Memory{mem("theirs", "u1", "mine now")}, `id: "theirs" is already taken`},
		{"unknown lineage", []memory.Memory{mem("ok", "u1", "fine"), badLineage}, `lineageRefs[1]: unknown memory id "missing"`},
		{"lineage of other user", []memory.Memory{crossLineage}, `lineageRefs[0]: unknown memory id "theirs"`},
		{"lineage of other user in batch", []memory.Memory{mem("y", "u2", "theirs too"), crossBatch}, `lineageRefs[0]: unknown memory id "y"`},
		{"supersede other user", []memory.Memory{crossUser}, `supersedes[0]: unknown memory id "theirs"`},
		{"no embedding", []memory.Memory{noVec}, "embedding must be set"},
		{"invalid", []memory.Memory{invalid}, "kind: unknown value"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			before := count(t, s)
			_, err := s.Insert(ctx, tt.batch, store.ConflictError, nil)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("err = %v, want %q", err, tt.want)
			}
			var ie *store.ItemError
			if !errors.As(err, &ie) {
				t.Fatalf("err %v is not an *store.ItemError", err)
			}
			if after := count(t, s); after != before {
				t.Fatalf("failed insert stored %d memories", after-before)
			}
		})
	}
	// Lineage may name a forgotten memory and a memory later in the batch.
	d := mem("d1", "u1", "derived from a forgotten one and a sibling")
	d.LineageRefs = []string{"gone", "d2"}
	if _, err := s.Insert(ctx, []memory.Memory{d, mem("d2", "u1", "sibling")}, store.ConflictError, nil); err != nil {
		t.Fatal(err)
	}
	n, err := s.Insert(ctx, []memory.Memory{mem("a", "u1", "dup"), mem("new", "u1", "new")}, store.ConflictSkip, nil)
	if err != nil || n != 1 {
		t.Fatalf("skip conflicts: n=%d err=%v", n, err)
	}
	if got, _ := store.GetOne(ctx, s, "a", false); got.Text != "alpha" {
		t.Fatalf("skipped conflict overwrote the stored memory: %q", got.Text)
	}
}

// A foreign id and a missing one must read the same: once callers are
// authenticated, an error must not tell one tenant what another stores.
func TestInsertForeignRefLooksMissing(t *testing.T) {
	s, _ := openTemp(t)
	insert(t, s, mem("theirs", "u2", "their note"))
	msg := func(ref string) string {
		m := mem("x", "u1", "derived")
		m.LineageRefs = []string{ref}
		_, err := s.Insert(ctx, []memory.Memory{m}, store.ConflictError, nil)
		var ie *store.ItemError
		if !errors.As(err, &ie) {
			t.Fatalf("lineage %q: err %v is not an *store.ItemError", ref, err)
		}
		return strings.ReplaceAll(ie.Err.Error(), ref, "ID")
	}
	if a, b := msg("theirs"), msg("nothere"); a != b {
		t.Fatalf("foreign and missing lineage differ:\n  %s\n  %s", a, b)
	}
}

// Every problem of a batch is reported at once, in batch order.
func TestInsertReportsEveryProblem(t *testing.T) {
	s, _ := openTemp(t)
	insert(t, s, mem("a", "u1", "alpha"))
	bad := mem("b", "u1", "bad kind")
	bad.Kind = "opinion"
	lin := mem("c", "u1", "derived")
	lin.LineageRefs = []string{"missing"}
	batch := []memory.Memory{mem("ok", "u1", "fine"), bad, mem("a", "u1", "again"), lin, mem("ok", "u1", "twice")}
	_, err := s.Insert(ctx, batch, store.ConflictError, nil)
	var ies store.ItemErrors
	if !errors.As(err, &ies) {
		t.Fatalf("err %v is not store.ItemErrors", err)
	}
	var got []int
	for _, ie := range ies {
		got = append(got, ie.Index)
	}
	if want := []int{1, 2, 3, 4}; !slices.Equal(got, want) {
		t.Fatalf("problems at %v, want %v: %v", got, want, err)
	}
	if n := count(t, s); n != 1 {
		t.Fatalf("failed insert left %d memories, want 1", n)
	}
	if err := s.CheckBatch(ctx, batch, store.ConflictError); !errors.As(err, &ies) || len(ies) != 4 {
		t.Fatalf("CheckBatch = %v, want the same 4 problems", err)
	}
}

func TestList(t *testing.T) {
	s, _ := openTemp(t)
	for i := range 7 {
		m := mem(fmt.Sprintf("m%d", i), "u1", fmt.Sprintf("note %d", i))
		if i == 3 {
			m.Revoked, m.RevokedAt = true, t0
		}
		insert(t, s, m)
	}
	insert(t, s, mem("other", "u2", "x"))
	var got []string
	for after := int64(0); ; {
		p, err := s.List(ctx, store.ListQuery{Filter: memory.Filter{UserID: "u1"}, After: after, Limit: 2})
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range p.Memories {
			got = append(got, m.ID)
		}
		if p.Next == 0 {
			break
		}
		after = p.Next
	}
	if strings.Join(got, ",") != "m0,m1,m2,m4,m5,m6" {
		t.Fatalf("paged list = %v", got)
	}
	p, err := s.List(ctx, store.ListQuery{IncludeRevoked: true})
	if err != nil || len(p.Memories) != 8 {
		t.Fatalf("list all = %d, %v", len(p.Memories), err)
	}
}

func TestRevokeAndForget(t *testing.T) {
	s, path := openTemp(t)
	secret := mem("s1", "u1", "The safe code is zebracorn-4711")
	child := mem("c1", "u1", "Derived note")
	child.LineageRefs = []string{"s1"}
	grandchild := mem("g1", "u1", "Derived again")
	grandchild.LineageRefs = []string{"c1"}
	insert(t, s, secret, child, grandchild, mem("r1", "u1", "revocable zebracorn note"))

	m, err := s.Revoke(ctx, "r1", store.Change{Reason: "user withdrew it", At: t0.Add(time.Hour)})
	if err != nil || !m.Revoked || m.RevokedReason != "user withdrew it" || !m.RevokedAt.Equal(t0.Add(time.Hour)) {
		t.Fatalf("Revoke = %+v, %v", m, err)
	}
	if m, _ := s.Revoke(ctx, "r1", store.Change{Reason: "again", At: t0.Add(2 * time.Hour)}); m.RevokedReason != "user withdrew it" {
		t.Fatal("second revoke overwrote the first")
	}
	if _, err := s.Revoke(ctx, "nope", store.Change{Reason: "", At: t0}); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("revoke unknown: %v", err)
	}

	ts, err := s.Forget(ctx, "s1", store.Change{Reason: "GDPR request", At: t0})
	if err != nil || ts.UserID != "u1" {
		t.Fatalf("Forget = %+v, %v", ts, err)
	}
	if _, err := store.GetOne(ctx, s, "s1", false); !errors.Is(err, store.ErrNotFound) || !strings.Contains(err.Error(), "forgotten at") {
		t.Fatalf("get forgotten: %v", err)
	}
	if d, err := s.Descendants(ctx, []string{"s1"}); err != nil || strings.Join(d, ",") != "c1,g1" {
		t.Fatalf("descendants of the forgotten memory = %v, %v", d, err)
	}
	if _, err := s.Forget(ctx, "s1", store.Change{Reason: "", At: t0}); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("forget twice: %v", err)
	}
	// The forgotten text must not survive anywhere in the file.
	if _, err := s.db.ExecContext(ctx, "PRAGMA wal_checkpoint(TRUNCATE)"); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{path, path + "-wal"} {
		raw, err := os.ReadFile(p)
		if err != nil && !os.IsNotExist(err) {
			t.Fatal(err)
		}
		if bytes.Contains(raw, []byte("safe code is zebracorn")) {
			t.Fatalf("forgotten text is still in %s", p)
		}
	}
}

func TestSupersede(t *testing.T) {
	s, _ := openTemp(t)
	insert(t, s, mem("old", "u1", "Prefers tea"), mem("new", "u1", "Prefers coffee now"), mem("bob", "u2", "x"))
	if err := s.Supersede(ctx, "new", []string{"old"}); err != nil {
		t.Fatal(err)
	}
	if err := s.Supersede(ctx, "new", []string{"old"}); err != nil {
		t.Fatalf("repeat supersede: %v", err)
	}
	m, _ := store.GetOne(ctx, s, "old", false)
	if len(m.SupersededBy) != 1 || m.SupersededBy[0] != "new" {
		t.Fatalf("SupersededBy = %v", m.SupersededBy)
	}
	for _, tt := range []struct {
		newID string
		old   []string
		want  string
	}{
		{"new", []string{"bob"}, "memory bob: not found"}, // reads like a missing id
		{"new", []string{"new"}, "itself"},
		{"new", []string{"zzz"}, "not found"},
		{"zzz", []string{"old"}, "not found"},
	} {
		if err := s.Supersede(ctx, tt.newID, tt.old); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("Supersede(%s, %v) = %v, want %q", tt.newID, tt.old, err, tt.want)
		}
	}
}

func TestRefusesForeignAndCorruptFiles(t *testing.T) {
	dir := t.TempDir()
	write := func(name string, data []byte) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, data, 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	// Another program's SQLite database.
	foreign := filepath.Join(dir, "foreign.db")
	db, err := sql.Open("sqlite", foreign)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec("CREATE TABLE songs(title TEXT)"); err != nil {
		t.Fatal(err)
	}
	db.Close()
	// A memgate store from a newer schema.
	newer := filepath.Join(dir, "newer.db")
	s, err := Open(ctx, newer)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.db.Exec("PRAGMA user_version = 99"); err != nil {
		t.Fatal(err)
	}
	s.Close()
	// A real store, truncated after its header.
	good := filepath.Join(dir, "good.db")
	s, err = Open(ctx, good)
	if err != nil {
		t.Fatal(err)
	}
	for i := range 200 {
		insert(t, s, mem(fmt.Sprintf("m%d", i), "u", strings.Repeat("words and more words ", 20)))
	}
	if _, err := s.db.Exec("PRAGMA wal_checkpoint(TRUNCATE)"); err != nil {
		t.Fatal(err)
	}
	s.Close()
	raw, _ := os.ReadFile(good)
	mangled := append([]byte(nil), raw...)
	for i := 4096; i < len(mangled); i += 7 {
		mangled[i] ^= 0x5a
	}

	tests := []struct {
		name, path, want string
	}{
		{"text file", write("notes.txt", []byte("these are my notes, not a database at all")), "not a SQLite database"},
		{"random bytes", write("random.db", bytes.Repeat([]byte{0xde, 0xad, 0xbe, 0xef}, 1000)), "not a SQLite database"},
		{"short file", write("short.db", []byte("SQLite")), "not a SQLite database"},
		{"foreign database", foreign, "another program"},
		{"newer schema", newer, "newer memgate"},
		{"truncated store", write("truncated.db", raw[:len(raw)/3]), ""},
		{"mangled store", write("mangled.db", mangled), ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, err := Open(ctx, tt.path)
			if err == nil {
				// Damage past the schema shows up on first use instead.
				defer s.Close()
				_, err = s.Get(ctx, []string{"m1"}, true)
				if err == nil {
					err = s.Check(ctx)
				}
			}
			if err == nil {
				t.Fatal("damaged file accepted")
			}
			if tt.want != "" && !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("err = %v, want %q", err, tt.want)
			}
		})
	}
	// An empty file becomes a new store.
	s, err = Open(ctx, write("empty.db", nil))
	if err != nil {
		t.Fatalf("empty file: %v", err)
	}
	s.Close()
}

func TestAuditTrailIsAppendOnly(t *testing.T) {
	s, _ := openTemp(t)
	if _, err := s.AppendEvents(ctx, []audit.Event{{Kind: "search", At: t0, TaskID: "t", Payload: []byte(`{}`)}}); err != nil {
		t.Fatal(err)
	}
	for _, stmt := range []string{"UPDATE audit_events SET kind = 'x'", "DELETE FROM audit_events"} {
		if _, err := s.db.ExecContext(ctx, stmt); err == nil || !strings.Contains(err.Error(), "append-only") {
			t.Fatalf("%s: %v", stmt, err)
		}
	}
	if evs, _ := s.Events(ctx, audit.Filter{}); len(evs) != 1 {
		t.Fatalf("events %d", len(evs))
	}
}

// A store created by the first schema version is upgraded in place.
func TestMigratesV1Store(t *testing.T) {
	path := filepath.Join(t.TempDir(), "v1.db")
	db, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec(migrations[0]); err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec(fmt.Sprintf("PRAGMA application_id = %d; PRAGMA user_version = 1", applicationID)); err != nil {
		t.Fatal(err)
	}
	db.Close()
	s, err := Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if v, _ := s.SchemaVersion(ctx); v != len(migrations) {
		t.Fatalf("schema v%d after open, want v%d", v, len(migrations))
	}
	if _, err := s.AppendEvents(ctx, []audit.Event{{Kind: "search", At: t0, Payload: []byte(`{}`)}}); err != nil {
		t.Fatalf("v2 table missing after migration: %v", err)
	}
}

func TestRecentlyRevoked(t *testing.T) {
	s, _ := openTemp(t)
	for i := range 5 {
		insert(t, s, mem(fmt.Sprintf("r%d", i), "u1", fmt.Sprintf("note %d", i)))
	}
	insert(t, s, mem("other", "u2", "not mine"))
	for _, id := range []string{"r3", "r0", "r1", "other"} {
		if _, err := s.Revoke(ctx, id, store.Change{Reason: "", At: t0}); err != nil {
			t.Fatal(err)
		}
	}
	ids := func(n int) []string {
		ms, err := s.Revoked(ctx, "u1", n)
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, m := range ms {
			out = append(out, m.ID)
		}
		return out
	}
	// The last stored, oldest first; all of them for n ≤ 0.
	if got := ids(2); !slices.Equal(got, []string{"r1", "r3"}) {
		t.Fatalf("last 2: %v", got)
	}
	if got := ids(0); !slices.Equal(got, []string{"r0", "r1", "r3"}) {
		t.Fatalf("all: %v", got)
	}
}
