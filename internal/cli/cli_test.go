package cli

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

type result struct {
	code           int
	stdout, stderr string
}

func run(t *testing.T, stdin string, args ...string) result {
	t.Helper()
	var out, errb bytes.Buffer
	code := Main(args, strings.NewReader(stdin), &out, &errb)
	return result{code, out.String(), errb.String()}
}

func TestCommandLine(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "cli.db")
	jsonl := filepath.Join(dir, "in.jsonl")
	if err := os.WriteFile(jsonl, []byte(
		`{"id":"m1","userId":"alex","text":"Atlas deploys after the Thursday freeze","projectId":"atlas","domain":"work","sourceAuthority":"user_confirmed"}`+"\n"+
			`{"id":"m2","userId":"alex","text":"Blood test on Friday","domain":"health","classification":"restricted"}`+"\n"+
			`{"id":"m3","userId":"sam","text":"Sam deploys Atlas on Fridays"}`+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	bad := filepath.Join(dir, "bad.jsonl")
	os.WriteFile(bad, []byte(`{"id":"x","userId":"alex","text":"ok"}`+"\n"+`{"userId":"alex","text":"","kind":"opinion"}`+"\n"), 0o600)

	steps := []struct {
		args     []string
		code     int
		out, err string // substrings
	}{
		{[]string{"import", jsonl}, 0, "imported 3 memories", ""},
		{[]string{"import", bad}, 1, "", `line 2: kind: unknown value "opinion" (allowed: fact, preference, event, rule, procedure, tool_experience); text: must not be empty`},
		{[]string{"add", "--user", "alex", "--id", "m4", "--domain", "family", "Mia's birthday is June 20"}, 0, "m4", ""},
		{[]string{"add", "--user", "alex", "--kind", "opinion", "x"}, 2, "", `--kind: unknown value "opinion"`},
		{[]string{"add", "--user", "alex", "--expires", "tomorrow", "x"}, 2, "", "--expires: cannot parse"},
		{[]string{"add", "--text", "no user"}, 1, "", "userId: is required"},
		{[]string{"search", "--user", "alex", "-q", "when does atlas deploy", "-k", "2"}, 0, "m1", ""},
		{[]string{"search", "-q", "x"}, 2, "", "--user is required"},
		{[]string{"search", "--user", "alex"}, 2, "", "--query is required"},
		{[]string{"get", "m2"}, 0, "restricted", ""},
		{[]string{"get", "nope"}, 1, "", "memory nope: memory not found"},
		{[]string{"revoke", "m1", "--reason", "stale"}, 0, "revoked m1", ""},
		{[]string{"forget", "m2"}, 0, "forgot m2", ""},
		{[]string{"list", "--user", "alex", "--revoked"}, 0, "[revoked]", ""},
		{[]string{"stats", "--check"}, 0, "integrity    ok", ""},
		{[]string{"nosuch"}, 2, "", "unknown command"},
		{[]string{"get"}, 2, "", "want one memory id"},
		{[]string{"--embedder", "magic", "stats"}, 2, "", `--embedder "magic"`},
	}
	for _, s := range steps {
		r := run(t, "", append([]string{"--db", db}, s.args...)...)
		if r.code != s.code || !strings.Contains(r.stdout, s.out) || !strings.Contains(r.stderr, s.err) {
			t.Fatalf("memgate %s: exit %d (want %d)\nstdout: %s\nstderr: %s\nwant stdout ∋ %q, stderr ∋ %q",
				strings.Join(s.args, " "), r.code, s.code, r.stdout, r.stderr, s.out, s.err)
		}
		if strings.Contains(r.stderr, "goroutine") || strings.Contains(r.stderr, "panic") {
			t.Fatalf("stack trace on stderr: %s", r.stderr)
		}
	}

	// --json output uses the spec's field names.
	r := run(t, "", "--db", db, "search", "--user", "alex", "-q", "birthday", "--json")
	var cands []struct {
		Memory     map[string]any `json:"memory"`
		Similarity float64        `json:"similarity"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &cands); err != nil || len(cands) == 0 {
		t.Fatalf("search --json: %v\n%s", err, r.stdout)
	}
	if cands[0].Memory["userId"] != "alex" || cands[0].Memory["id"] != "m4" {
		t.Fatalf("search --json first candidate %v", cands[0].Memory)
	}
	for _, c := range cands {
		if c.Memory["userId"] != "alex" {
			t.Fatalf("other user's memory in alex's search: %v", c.Memory)
		}
	}

	// Export, then import into a fresh store, and the exports match.
	r = run(t, "", "--db", db, "export")
	if r.code != 0 || !strings.Contains(r.stderr, "exported 3 memories") {
		t.Fatalf("export: %+v", r)
	}
	db2 := filepath.Join(dir, "copy.db")
	if r2 := run(t, r.stdout, "--db", db2, "import", "-"); r2.code != 0 {
		t.Fatalf("import -: %+v", r2)
	}
	if r3 := run(t, "", "--db", db2, "export"); r3.stdout != r.stdout {
		t.Fatalf("re-imported export differs:\n%s\n%s", r.stdout, r3.stdout)
	}

	// A file that is not a store is refused clearly.
	notes := filepath.Join(dir, "notes.txt")
	os.WriteFile(notes, []byte("just some notes, not a database"), 0o600)
	if r := run(t, "", "--db", notes, "stats"); r.code != 1 || !strings.Contains(r.stderr, "not a memgate store") {
		t.Fatalf("foreign file: %+v", r)
	}
}

func TestDemo(t *testing.T) {
	r := run(t, "", "demo")
	if r.code != 0 {
		t.Fatalf("demo failed: %s", r.stderr)
	}
	for _, want := range []string{"Task 1", "Task 3", "⚠", "expired", "superseded by fam-mia-gift", "external source", "should not be trusted"} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("demo output lacks %q", want)
		}
	}
	if strings.Contains(r.stdout, "sam-") || strings.Contains(r.stdout, "  fam-revoked") {
		t.Error("demo shows another user's or a revoked memory as a candidate")
	}
}
