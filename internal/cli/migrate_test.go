package cli

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	_ "modernc.org/sqlite" // to tamper with a store's file behind memgate's back

	"github.com/memgate/memgate/store"
)

// fillForMigrate makes a SQLite store through the command line with a bit
// of everything: memories with lineage, supersession, a revocation and a
// forgetting, searches (audit events), and API keys.
func fillForMigrate(t *testing.T, db string) {
	t.Helper()
	jsonl := filepath.Join(t.TempDir(), "m.jsonl")
	os.WriteFile(jsonl, []byte(
		`{"id":"m1","userId":"alex","text":"Atlas deploys after the Thursday freeze","projectId":"atlas","domain":"work","sourceAuthority":"user_confirmed"}`+"\n"+
			`{"id":"m2","userId":"alex","text":"Blood test on Friday","domain":"health","classification":"restricted"}`+"\n"+
			`{"id":"m3","userId":"sam","text":"Sam deploys Atlas on Fridays","sourceAuthority":"external"}`+"\n"+
			`{"id":"m4","userId":"alex","text":"Summary: Atlas ships after the freeze","lineageRefs":["m1"],"supersedes":["m1"]}`+"\n"+
			`{"id":"m5","userId":"alex","text":"Café notes — naïve résumé ☕"}`+"\n"), 0o600)
	for _, args := range [][]string{
		{"import", jsonl},
		{"search", "--user", "alex", "--task", "t1", "-q", "when does Atlas deploy"},
		{"search", "--user", "sam", "--task", "t2", "--intent", "execute", "--tool-risk", "privileged", "-q", "deploy Atlas"},
		{"revoke", "m2", "--reason", "wrong date"},
		{"forget", "m5", "--reason", "asked to"},
		{"keys", "create", "--principal", "ops", "--role", "admin", "--users", "*"},
	} {
		if r := run(t, "", append([]string{"--db", db}, args...)...); r.code != 0 {
			t.Fatalf("%v: %+v", args, r)
		}
	}
}

// migrate copies a SQLite store into a new SQLite file with everything in
// it, prints matching counts and checksums (also as JSON), and the copy
// answers as the original does.
func TestMigrateSQLiteToSQLite(t *testing.T) {
	dir := t.TempDir()
	src := filepath.Join(dir, "src.db")
	fillForMigrate(t, src)

	dst := filepath.Join(dir, "copy.db")
	r := run(t, "", "migrate", "--from", "sqlite:"+src, "--to", dst)
	if r.code != 0 {
		t.Fatalf("migrate: %+v", r)
	}
	for _, want := range []string{"copied " + src + " → " + dst, "checksums match", "memgate reindex"} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("migrate's output lacks %q:\n%s", want, r.stdout)
		}
	}
	for _, want := range [][]string{{"memories", "4", "4"}, {"tombstones", "1", "1"}, {"lineage", "1", "1"},
		{"supersessions", "1", "1"}, {"keys", "1", "1"}, {"identity", "1", "1"}} {
		if !hasRow(r.stdout, want) {
			t.Errorf("migrate's output lacks the row %v:\n%s", want, r.stdout)
		}
	}

	// --json: the same figures, and both checksums.
	dst2 := filepath.Join(dir, "copy2.db")
	r = run(t, "", "migrate", "--from", src, "--to", "sqlite:"+dst2, "--json")
	if r.code != 0 {
		t.Fatalf("migrate --json: %+v", r)
	}
	var rep migrateReport
	if err := json.Unmarshal([]byte(r.stdout), &rep); err != nil {
		t.Fatalf("migrate --json: %v\n%s", err, r.stdout)
	}
	if !rep.Match || !rep.Copied || rep.Source.SHA256 == "" || rep.Source.SHA256 != rep.Destination.SHA256 ||
		rep.Source.Count(store.RecordMemory) != 4 || rep.Destination.Count(store.RecordEvent) == 0 ||
		rep.Source.Count(store.RecordEvent) != rep.Destination.Count(store.RecordEvent) {
		t.Errorf("migrate --json = %+v", rep)
	}

	// The copy answers as the original: memories, the audit trail, keys.
	for _, args := range [][]string{
		{"list", "--revoked", "--json", "--limit", "0"},
		{"get", "m4", "--json"},
		{"audit", "--json"},
		{"keys", "list"},
		{"stats"},
	} {
		want := run(t, "", append([]string{"--db", src}, args...)...)
		got := run(t, "", append([]string{"--db", dst}, args...)...)
		if want.code != 0 || got.code != 0 {
			t.Fatalf("%v: source %+v, copy %+v", args, want, got)
		}
		if args[0] == "stats" { // the first line names the file
			want.stdout, got.stdout = afterFirstLine(want.stdout), afterFirstLine(got.stdout)
		}
		if got.stdout != want.stdout {
			t.Errorf("%v on the copy:\n%s\nwant (the source's):\n%s", args, got.stdout, want.stdout)
		}
	}
	if r := run(t, "", "--db", dst, "get", "m5"); r.code != 1 || !strings.Contains(r.stderr, "forgotten") {
		t.Errorf("get of a forgotten memory in the copy: %+v", r)
	}
	// The copy goes on numbering after the restored records.
	if r := run(t, "", "--db", dst, "search", "--user", "alex", "--task", "t3", "-q", "Atlas"); r.code != 0 {
		t.Fatalf("search on the copy: %+v", r)
	}
	before := run(t, "", "--db", src, "audit", "--json")
	after := run(t, "", "--db", dst, "audit", "--json")
	var evBefore, evAfter []struct{ Seq int64 }
	json.Unmarshal([]byte(before.stdout), &evBefore)
	json.Unmarshal([]byte(after.stdout), &evAfter)
	if len(evBefore) == 0 || len(evAfter) <= len(evBefore) || evAfter[len(evBefore)].Seq <= evBefore[len(evBefore)-1].Seq {
		t.Errorf("events after a search on the copy: %d (was %d), the new ones not numbered after the copied ones", len(evAfter), len(evBefore))
	}

	// A destination that holds anything is refused, and left as it was.
	r = run(t, "", "migrate", "--from", src, "--to", dst)
	if r.code != 1 {
		t.Fatalf("migrate into a store that is not empty: %+v", r)
	}
	checkOneLine(t, "migrate into a store that is not empty", r.stderr, "the store is not empty")
	if again := run(t, "", "--db", dst, "audit", "--json"); again.stdout != after.stdout {
		t.Error("the refused migration changed the destination")
	}
}

// hasRow reports whether out has a line whose words are want.
func hasRow(out string, want []string) bool {
	for _, l := range strings.Split(out, "\n") {
		if strings.Join(strings.Fields(l), " ") == strings.Join(want, " ") {
			return true
		}
	}
	return false
}

func afterFirstLine(s string) string {
	_, rest, _ := strings.Cut(s, "\n")
	return rest
}

// A destination that differs from the source is caught by the checksums:
// one changed row, whether it changed between the copy and its
// verification or afterwards (found by --verify), fails the command and
// names the kind of record that differs.
func TestMigrateDetectsCorruption(t *testing.T) {
	dir := t.TempDir()
	src := filepath.Join(dir, "src.db")
	fillForMigrate(t, src)

	t.Run("between copy and verification", func(t *testing.T) {
		testHookAfterRestore = func(ctx context.Context, dst store.Store) error {
			_, err := dst.Revoke(ctx, "m3", store.Change{Reason: "tampered", At: time.Now(), PrincipalID: "intruder"})
			return err
		}
		defer func() { testHookAfterRestore = nil }()
		r := run(t, "", "migrate", "--from", src, "--to", filepath.Join(dir, "hooked.db"))
		if r.code != 1 {
			t.Fatalf("migrate with a changed destination: %+v", r)
		}
		checkOneLine(t, "migrate", r.stderr, "does not match")
		for _, want := range []string{"memories:", "events:"} {
			if !strings.Contains(r.stderr, want) {
				t.Errorf("the error does not name %s: %s", want, r.stderr)
			}
		}
		if !strings.Contains(r.stdout, "checksums DIFFER") || !strings.Contains(r.stdout, "differs") {
			t.Errorf("the report does not show the difference:\n%s", r.stdout)
		}
	})

	t.Run("after the copy, found by --verify", func(t *testing.T) {
		dst := filepath.Join(dir, "tampered.db")
		if r := run(t, "", "migrate", "--from", src, "--to", dst); r.code != 0 {
			t.Fatalf("migrate: %+v", r)
		}
		if r := run(t, "", "migrate", "--from", src, "--to", dst, "--verify"); r.code != 0 || !strings.Contains(r.stdout, "checksums match") {
			t.Fatalf("migrate --verify of a good copy: %+v", r)
		}
		db, err := sql.Open("sqlite", dst)
		if err != nil {
			t.Fatal(err)
		}
		res, err := db.Exec("UPDATE memories SET text = 'Atlas deploys before the Thursday freeze' WHERE id = 'm1'")
		if n, _ := res.RowsAffected(); err != nil || n != 1 {
			t.Fatalf("tamper: %v (%d rows)", err, n)
		}
		db.Close()
		r := run(t, "", "migrate", "--from", src, "--to", dst, "--verify", "--json")
		if r.code != 1 {
			t.Fatalf("migrate --verify of a tampered copy: %+v", r)
		}
		checkOneLine(t, "migrate --verify", r.stderr, "memories:")
		var rep migrateReport
		if err := json.Unmarshal([]byte(r.stdout), &rep); err != nil {
			t.Fatalf("%v\n%s", err, r.stdout)
		}
		if rep.Match || rep.Copied || len(rep.Differences) != 1 || !strings.HasPrefix(rep.Differences[0], "memories:") ||
			rep.Source.Count(store.RecordMemory) != rep.Destination.Count(store.RecordMemory) {
			t.Errorf("migrate --verify of a tampered copy = %+v; want one difference, in the memories' checksum", rep)
		}
	})
}

// What cannot be migrated whatever the stores hold is a usage error (exit
// 2), and creates no store; a missing source is an operation failure (exit
// 1), and creates no destination either.
func TestMigrateRefusals(t *testing.T) {
	dir := t.TempDir()
	src := filepath.Join(dir, "src.db")
	fillForMigrate(t, src)
	link := filepath.Join(dir, "link.db")
	if err := os.Symlink(src, link); err != nil {
		t.Fatal(err)
	}
	dst := filepath.Join(dir, "never.db")
	for _, tc := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"migrate", "--from", src}, 2, "--from and --to are required"},
		{[]string{"migrate", "--to", dst}, 2, "--from and --to are required"},
		{[]string{"migrate", "--from", src, "--to", "mem:"}, 2, "--to mem:"},
		{[]string{"migrate", "--from", "mem:", "--to", dst}, 2, "--from mem:"},
		{[]string{"migrate", "--from", src, "--to", "redis://x"}, 2, "--to"},
		{[]string{"migrate", "--from", src, "--to", "postgres://a:pw@db:port/memgate"}, 2, "--to: the PostgreSQL URL cannot be read: a port is not a number"},
		{[]string{"migrate", "--from", src, "--to", "postgres://a:s3cret@db/memgate?sslmode=bogus"}, 2, "--to: the PostgreSQL URL cannot be used: failed to configure TLS (sslmode is invalid)"},
		{[]string{"migrate", "--from", "postgres://a:s3cret@db:0/memgate", "--to", dst}, 2, "--from: the PostgreSQL URL cannot be used: invalid port"},
		{[]string{"migrate", "--from", src, "--to", "postgres://a:s3cret@db/memgate?pool_max_conns=abc"}, 2, "--to: the PostgreSQL URL cannot be used: cannot parse pool_max_conns"},
		{[]string{"migrate", "--from", src, "--to", "postgres://a:s3cret@db/memgate?password=pre&s3cret"}, 2, "--to: the PostgreSQL URL cannot be used (want"},
		{[]string{"migrate", "--from", src, "--to", "sqlite:" + src}, 2, "the same store"},
		{[]string{"migrate", "--from", src, "--to", link}, 2, "the same store"},
		{[]string{"migrate", "--from", "postgres://a@db:5432/memgate", "--to", "postgres://b:pw@DB/memgate?sslmode=disable"}, 2, "the same store"},
		{[]string{"migrate", "--from", src, "--to", dst, "extra"}, 2, `unexpected argument "extra"`},
		{[]string{"migrate", "--from", filepath.Join(dir, "missing.db"), "--to", dst}, 1, "no store at"},
		{[]string{"migrate", "--from", src, "--to", dst, "--verify"}, 1, "no store at"},
		// A certificate file the URL names is read when the store is
		// opened: a missing one is the environment's fault, not the
		// command line's (and fails before any connection).
		{[]string{"migrate", "--from", src, "--to", "postgres://a:s3cret@127.0.0.1:1/memgate?sslmode=verify-full&sslrootcert=/nonexistent/ca.pem"}, 1,
			"--to: open store: the PostgreSQL URL cannot be used: failed to configure TLS (unable to read CA file: open /nonexistent/ca.pem"},
	} {
		name := strings.Join(tc.args, " ")
		r := run(t, "", tc.args...)
		if r.code != tc.code {
			t.Errorf("%s: exit %d, want %d\n%s", name, r.code, tc.code, r.stderr)
			continue
		}
		checkOneLine(t, name, r.stderr, tc.want)
		if strings.Contains(r.stderr, "s3cret") {
			t.Errorf("%s: prints the password: %s", name, r.stderr)
		}
		if _, err := os.Stat(dst); !errors.Is(err, os.ErrNotExist) {
			t.Fatalf("%s created %s", name, dst)
		}
	}
}

// A SQLite store migrates into PostgreSQL and back with the same checksum
// all the way (needs MEMGATE_TEST_POSTGRES: a server whose role may CREATE
// DATABASE; scripts/scaleout-up.sh starts one).
func TestMigrateThroughPostgres(t *testing.T) {
	base := os.Getenv("MEMGATE_TEST_POSTGRES")
	if base == "" {
		t.Skip("MEMGATE_TEST_POSTGRES is not set")
	}
	ctx := t.Context()
	conn, err := pgx.Connect(ctx, base)
	if err != nil {
		t.Fatalf("connect to MEMGATE_TEST_POSTGRES: %v", err)
	}
	defer conn.Close(context.Background())
	name := fmt.Sprintf("memgate_migrate_%d_%d", os.Getpid(), time.Now().UnixNano()%1_000_000)
	if _, err := conn.Exec(ctx, "CREATE DATABASE "+name); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		c, err := pgx.Connect(context.Background(), base)
		if err == nil {
			c.Exec(context.Background(), "DROP DATABASE IF EXISTS "+name+" WITH (FORCE)")
			c.Close(context.Background())
		}
	})
	u, err := url.Parse(base)
	if err != nil {
		t.Fatal(err)
	}
	u.Path = "/" + name
	pg := u.String()

	dir := t.TempDir()
	src, back := filepath.Join(dir, "src.db"), filepath.Join(dir, "back.db")
	fillForMigrate(t, src)
	var sums []string
	for _, args := range [][]string{
		{"migrate", "--from", src, "--to", pg, "--json"},
		{"migrate", "--from", pg, "--to", back, "--json"},
		{"migrate", "--from", src, "--to", back, "--verify", "--json"},
	} {
		r := run(t, "", args...)
		var rep migrateReport
		if r.code != 0 || json.Unmarshal([]byte(r.stdout), &rep) != nil || !rep.Match {
			t.Fatalf("%v: %+v", args, r)
		}
		sums = append(sums, rep.Source.SHA256, rep.Destination.SHA256)
	}
	for _, s := range sums[1:] {
		if s != sums[0] {
			t.Fatalf("checksums along SQLite → PostgreSQL → SQLite differ: %v", sums)
		}
	}
	r := run(t, "", "migrate", "--from", src, "--to", pg)
	if r.code != 1 {
		t.Fatalf("migrate into a PostgreSQL store that is not empty: %+v", r)
	}
	checkOneLine(t, "migrate into PostgreSQL again", r.stderr, "the store is not empty")
	if pw, ok := u.User.Password(); ok && strings.Contains(r.stderr, pw) {
		t.Errorf("the error shows the PostgreSQL password: %s", r.stderr)
	}
}

// Two migrations racing into one new SQLite path: one copies, the other
// is refused, and the copy stays (the loser once removed the file the
// winner had just filled).
func TestMigrateRaceKeepsTheCopy(t *testing.T) {
	dir := t.TempDir()
	a, b := filepath.Join(dir, "a.db"), filepath.Join(dir, "b.db")
	fillForMigrate(t, a)
	if r := run(t, "", "--db", b, "add", "--user", "zoe", "zoe rows on Sundays"); r.code != 0 {
		t.Fatalf("add: %+v", r)
	}
	for i := range 10 {
		dst := filepath.Join(dir, fmt.Sprintf("race%d.db", i))
		codes := make(chan int, 2)
		for _, src := range []string{a, b} {
			go func() {
				codes <- Main([]string{"migrate", "--from", src, "--to", dst}, strings.NewReader(""), io.Discard, io.Discard)
			}()
		}
		ok := 0
		for range 2 {
			if <-codes == 0 {
				ok++
			}
		}
		if ok != 1 {
			t.Errorf("race %d: %d of 2 migrations succeeded, want 1", i, ok)
		}
		if r := run(t, "", "--db", dst, "stats"); r.code != 0 {
			t.Fatalf("race %d: the copy is gone or broken: %+v", i, r)
		}
	}
}

// A source that cannot be read is named as the one at fault (not the
// destination it was being copied into), and the destination migrate
// created is removed.
func TestMigrateCorruptSource(t *testing.T) {
	for _, tc := range []struct{ name, update, want string }{
		{"a vector the dump cannot read", "UPDATE memories SET embedding = x'0102' WHERE id = 'm3'", "corrupt embedding"},
		{"a record the dump's checks refuse", "UPDATE memories SET user_id = '' WHERE id = 'm3'", "userId is missing"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			src, dst := filepath.Join(dir, "src.db"), filepath.Join(dir, "dst.db")
			fillForMigrate(t, src)
			db, err := sql.Open("sqlite", src)
			if err != nil {
				t.Fatal(err)
			}
			res, err := db.Exec(tc.update)
			if n, _ := res.RowsAffected(); err != nil || n != 1 {
				t.Fatalf("corrupt: %v (%d rows)", err, n)
			}
			db.Close()
			r := run(t, "", "migrate", "--from", src, "--to", dst)
			if r.code != 1 {
				t.Fatalf("migrate from a corrupt source: %+v", r)
			}
			checkOneLine(t, "migrate", r.stderr, "memgate: --from: ")
			for _, want := range []string{"m3", tc.want, "nothing was written to " + dst} {
				if !strings.Contains(r.stderr, want) {
					t.Errorf("the error does not say %q: %s", want, r.stderr)
				}
			}
			if strings.Contains(r.stderr, "restore") {
				t.Errorf("the error blames the destination's restore: %s", r.stderr)
			}
			assertNoStoreFiles(t, dst)
		})
	}
}

const (
	migrateChildEnv = "MEMGATE_MIGRATE_CHILD"
	migrateTwiceEnv = "MEMGATE_MIGRATE_TWICE" // the child signals itself twice, 10 ms apart
)

// TestMigrateChild is `memgate migrate` in a child process of
// TestMigrateInterrupted: it sends itself SIGTERM after the second record
// and waits for the command to notice.
func TestMigrateChild(t *testing.T) {
	args := childArgs(migrateChildEnv)
	if args == nil {
		t.Skip("a child of TestMigrateInterrupted")
	}
	testHookRecord = func(ctx context.Context, n int) {
		if n == 2 {
			interruptSelf(ctx, os.Getenv(migrateTwiceEnv) != "")
		}
	}
	os.Exit(Main(args, os.Stdin, os.Stdout, os.Stderr))
}

// A migrate stopped by SIGTERM (a service manager, a deploy, a Ctrl-C)
// stops cleanly: it says so, writes nothing, and leaves no file behind, so
// that running it again just works; a repeat of the signal right after
// the first (GNU timeout signals the process, then its group) changes
// nothing.
func TestMigrateInterrupted(t *testing.T) {
	for _, twice := range []bool{false, true} {
		t.Run(fmt.Sprintf("twice=%v", twice), func(t *testing.T) { migrateInterrupted(t, twice) })
	}
}

func migrateInterrupted(t *testing.T, twice bool) {
	dir := t.TempDir()
	src, dst := filepath.Join(dir, "src.db"), filepath.Join(dir, "dst.db")
	fillForMigrate(t, src)
	var extra []string
	if twice {
		extra = append(extra, migrateTwiceEnv+"=1")
	}
	stderr := runInterruptedChild(t, "TestMigrateChild", migrateChildEnv, []string{"migrate", "--from", src, "--to", dst}, extra...)
	for _, want := range []string{"interrupted", "nothing was written to " + dst} {
		if !strings.Contains(stderr, want) {
			t.Errorf("stderr does not say %q:\n%s", want, stderr)
		}
	}
	assertNoStoreFiles(t, dst)
	if r := run(t, "", "migrate", "--from", src, "--to", dst); r.code != 0 || !strings.Contains(r.stdout, "checksums match") {
		t.Fatalf("migrate again after the interruption: %+v", r)
	}
}

// assertNoStoreFiles checks that neither the store at path nor a
// temporary copy meant for it is left.
func assertNoStoreFiles(t *testing.T, path string) {
	t.Helper()
	for _, p := range []string{path, path + "-wal", path + "-shm"} {
		if _, err := os.Stat(p); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("%s is left behind (%v)", p, err)
		}
	}
	tmps, _ := filepath.Glob(filepath.Join(filepath.Dir(path), "."+filepath.Base(path)+".migrate-*"))
	if len(tmps) > 0 {
		t.Errorf("temporary copies left behind: %v", tmps)
	}
}

// A migrate that fails never removes the destination, even one that
// another run created meanwhile: here a second migrate to the same new
// path completes while the first is between its copy and its
// verification, and the first then fails. The second's copy stays, and
// the first says the path was taken.
func TestMigrateFailureKeepsAnotherCopy(t *testing.T) {
	dir := t.TempDir()
	src, other, dst := filepath.Join(dir, "src.db"), filepath.Join(dir, "other.db"), filepath.Join(dir, "dst.db")
	fillForMigrate(t, src)
	if r := run(t, "", "--db", other, "add", "--user", "zoe", "--id", "z1", "zoe rows on Sundays"); r.code != 0 {
		t.Fatalf("add: %+v", r)
	}
	for _, fail := range []bool{true, false} {
		removeStoreFiles(dst)
		testHookAfterRestore = func(ctx context.Context, _ store.Store) error {
			testHookAfterRestore = nil
			if r := run(t, "", "migrate", "--from", other, "--to", dst); r.code != 0 {
				t.Fatalf("the second migrate: %+v", r)
			}
			if fail {
				return errors.New("the first run fails")
			}
			return nil
		}
		r := run(t, "", "migrate", "--from", src, "--to", dst)
		testHookAfterRestore = nil
		want := "the first run fails"
		if !fail {
			want = dst + " was created by someone else during the copy"
		}
		if r.code != 1 || !strings.Contains(r.stderr, want) {
			t.Errorf("fail=%v: the first migrate: %+v, want exit 1 saying %q", fail, r, want)
		}
		if g := run(t, "", "--db", dst, "get", "z1"); g.code != 0 {
			t.Fatalf("fail=%v: the second run's copy is gone: %+v", fail, g)
		}
		if tmps, _ := filepath.Glob(filepath.Join(dir, ".dst.db.migrate-*")); len(tmps) > 0 {
			t.Errorf("fail=%v: temporary copies left behind: %v", fail, tmps)
		}
	}
}

// A copy an earlier run left (killed before it removed it) is named, and
// kept: it may be another run's, still being written.
func TestMigrateNamesLeftCopies(t *testing.T) {
	dir := t.TempDir()
	src, dst := filepath.Join(dir, "src.db"), filepath.Join(dir, "dst.db")
	fillForMigrate(t, src)
	left := filepath.Join(dir, ".dst.db.migrate-1234")
	for _, f := range []string{left, left + "-wal", filepath.Join(dir, ".dst.db.migrated"), filepath.Join(dir, ".other.db.migrate-1"),
		filepath.Join(dir, ".dst.db.migrate-x.migrate-5")} { // a copy for "dst.db.migrate-x"

		if err := os.WriteFile(f, []byte("left by a killed run"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	r := run(t, "", "migrate", "--from", src, "--to", dst)
	if r.code != 0 {
		t.Fatalf("migrate: %+v", r)
	}
	if n := strings.Count(r.stderr, "did not finish"); n != 1 || !strings.Contains(r.stderr, left+" is a copy an earlier migrate to "+dst) {
		t.Errorf("stderr %q: want one note naming %s", r.stderr, left)
	}
	if _, err := os.Stat(left); err != nil {
		t.Errorf("the earlier copy is gone: %v", err)
	}
	if r := run(t, "", "migrate", "--from", src, "--to", filepath.Join(dir, "fresh.db")); r.code != 0 || strings.Contains(r.stderr, "did not finish") {
		t.Errorf("a migrate to another name: %+v", r)
	}
	// A destination in the working directory: the run's own copy is
	// "./.NAME.migrate-…" to os.CreateTemp, and is not named.
	t.Chdir(dir)
	for _, to := range []string{"bare.db", "./dot.db", "sqlite:prefixed.db"} {
		if r := run(t, "", "migrate", "--from", "src.db", "--to", to); r.code != 0 || strings.Contains(r.stderr, "did not finish") {
			t.Errorf("migrate --to %s: %+v", to, r)
		}
	}
}

// A write-ahead log, its index or a rollback journal left beside the
// destination's name by an earlier store of that name (its file removed
// after a crash, or still open in a process) would be applied by SQLite
// to the copy once it bore the name: migrate refuses, and writes nothing.
func TestMigrateRefusesStaleLog(t *testing.T) {
	dir := t.TempDir()
	src := filepath.Join(dir, "src.db")
	fillForMigrate(t, src)
	for _, suffix := range []string{"-wal", "-shm", "-journal"} {
		dst := filepath.Join(dir, "old"+suffix+".db")
		if err := os.WriteFile(dst+suffix, []byte("left by a crashed writer"), 0o600); err != nil {
			t.Fatal(err)
		}
		r := run(t, "", "migrate", "--from", src, "--to", dst)
		if r.code != 1 || !strings.Contains(r.stderr, dst+suffix+" is left from an earlier store") ||
			!strings.Contains(r.stderr, "nothing was written to "+dst) {
			t.Errorf("%s: %+v, want a refusal naming %s", suffix, r, dst+suffix)
		}
		if _, err := os.Stat(dst); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("%s: %s was created", suffix, dst)
		}
		if tmps, _ := filepath.Glob(filepath.Join(dir, ".old*.migrate-*")); len(tmps) > 0 {
			t.Errorf("%s: temporary copies left behind: %v", suffix, tmps)
		}
	}
	// And the destination's path is read as the store reads it.
	if err := os.Mkdir(filepath.Join(dir, "sub"), 0o700); err != nil {
		t.Fatal(err)
	}
	if r := run(t, "", "migrate", "--from", src, "--to", filepath.Join(dir, "sub", "..", "clean.db")); r.code != 0 {
		t.Fatalf("migrate to sub/../clean.db: %+v", r)
	}
	if r := run(t, "", "--db", filepath.Join(dir, "clean.db"), "get", "m1"); r.code != 0 {
		t.Errorf("the copy is not at clean.db: %+v", r)
	}
	r := run(t, "", "migrate", "--from", src, "--to", filepath.Join(dir, "nodir", "x.db"))
	if r.code != 1 || !strings.Contains(r.stderr, "does not exist") || !strings.Contains(r.stderr, "nothing was written") {
		t.Errorf("migrate into a missing directory: %+v", r)
	}
}

// A new SQLite copy has the permission bits of the source's file, whatever
// they are and whatever the umask: a store readable by its owner only is
// copied into a file readable by its owner only, and one shared with a
// group stays shared. An existing (empty) destination keeps its own.
func TestMigrateKeepsPermissions(t *testing.T) {
	dir := t.TempDir()
	src := filepath.Join(dir, "src.db")
	fillForMigrate(t, src)
	for i, tc := range []struct {
		src      os.FileMode
		existing os.FileMode // an empty destination made beforehand; 0 for none
		want     os.FileMode
	}{
		{src: 0o600, want: 0o600},
		{src: 0o640, want: 0o640},
		{src: 0o644, want: 0o644},
		{src: 0o660, want: 0o660},
		{src: 0o400, want: 0o400},
		{src: 0o444, want: 0o444},
		{src: 0o666, want: 0o664}, // never writable by all
		{src: 0o644, existing: 0o600, want: 0o600},
		{src: 0o600, existing: 0o640, want: 0o640},
	} {
		if err := os.Chmod(src, tc.src); err != nil {
			t.Fatal(err)
		}
		dst := filepath.Join(dir, fmt.Sprintf("copy%d.db", i))
		if tc.existing != 0 {
			if err := os.WriteFile(dst, nil, 0o600); err != nil {
				t.Fatal(err)
			}
			if err := os.Chmod(dst, tc.existing); err != nil {
				t.Fatal(err)
			}
		}
		name := fmt.Sprintf("source %#o, existing destination %#o", tc.src, tc.existing)
		if r := run(t, "", "migrate", "--from", src, "--to", dst); r.code != 0 {
			t.Errorf("%s: migrate: %+v", name, r)
			continue
		}
		fi, err := os.Stat(dst)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if got := fi.Mode().Perm(); got != tc.want {
			t.Errorf("%s: the copy's permissions are %#o, want %#o", name, got, tc.want)
		}
	}
}
