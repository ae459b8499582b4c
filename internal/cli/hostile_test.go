package cli

// The hostile battery (issue 8): the command line driven with the input a
// hostile newcomer tried, item by item, plus fuzzed ids and texts. Every
// refusal must be a clear error (the documented exit status, one stderr line
// naming the field) and must leave the store exactly as it was (its export
// is byte-for-byte the same).

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"
)

const hostileSeed = `{"id":"a-claims","userId":"alice","domain":"finance","sourceAuthority":"user_confirmed","text":"Insurance claims go to claims@northwind.example"}
{"id":"a-gift","userId":"alice","domain":"family","text":"Mia wants a telescope for her birthday"}
{"id":"b-pay","userId":"bob","domain":"finance","sourceAuthority":"user_confirmed","text":"Pay the supplier invoice to account DE89370400440532013000"}
{"id":"b-note","userId":"bob","domain":"health","text":"Bob's dentist appointment is on Monday"}
`

type hostileStore struct {
	t   *testing.T
	dir string
	db  string
}

func newHostile(t *testing.T) *hostileStore {
	t.Helper()
	dir := t.TempDir()
	h := &hostileStore{t: t, dir: dir, db: filepath.Join(dir, "h.db")}
	h.file("seed.jsonl", hostileSeed)
	h.ok("import", filepath.Join(dir, "seed.jsonl"))
	return h
}

func (h *hostileStore) file(name, content string) string {
	p := filepath.Join(h.dir, name)
	if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
		h.t.Fatal(err)
	}
	return p
}

func (h *hostileStore) run(args ...string) result {
	h.t.Helper()
	r := run(h.t, "", append([]string{"--db", h.db}, args...)...)
	if strings.Contains(r.stderr, "goroutine ") || strings.Contains(r.stderr, "panic:") {
		h.t.Fatalf("memgate %q: stack trace on stderr:\n%s", args, r.stderr)
	}
	return r
}

func (h *hostileStore) ok(args ...string) result {
	h.t.Helper()
	r := h.run(args...)
	if r.code != 0 {
		h.t.Fatalf("memgate %q: exit %d\n%s%s", args, r.code, r.stdout, r.stderr)
	}
	return r
}

func (h *hostileStore) export() string {
	h.t.Helper()
	return h.ok("export", "--vectors").stdout
}

// refused runs a command that must fail with one of codes and one stderr
// line naming one of fields, and checks that the store did not change.
func (h *hostileStore) refused(codes []int, fields []string, args ...string) result {
	h.t.Helper()
	before := h.export()
	r := h.run(args...)
	name := fmt.Sprintf("memgate %q", args)
	if !slices.Contains(codes, r.code) {
		h.t.Errorf("%s: exit %d, want %v\nstdout: %s\nstderr: %s", name, r.code, codes, r.stdout, r.stderr)
	}
	h.oneLineNaming(name, r.stderr, fields)
	if after := h.export(); after != before {
		h.t.Errorf("%s changed the store:\nbefore:\n%s\nafter:\n%s", name, before, after)
	}
	return r
}

func (h *hostileStore) oneLineNaming(name, stderr string, fields []string) {
	h.t.Helper()
	if !errorShape(name, stderr) {
		h.t.Errorf("%s: want one stderr line \"memgate: …\" (an import: and its report), got:\n%s", name, stderr)
		return
	}
	for _, f := range fields {
		if strings.Contains(stderr, f) {
			return
		}
	}
	h.t.Errorf("%s: the error should name %s:\n%s", name, strings.Join(fields, " or "), stderr)
}

// verdict runs bind --json and returns its verdict, or "" and the result when
// the command failed.
func (h *hostileStore) verdict(args ...string) (string, result) {
	h.t.Helper()
	r := h.run(append(append([]string{"bind"}, args...), "--json")...)
	if r.code != 0 {
		return "", r
	}
	var v struct {
		Verdict string `json:"verdict"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &v); err != nil {
		h.t.Fatalf("bind --json: %v\n%s", err, r.stdout)
	}
	return v.Verdict, r
}

var (
	exitMisuse  = []int{2}
	exitFailure = []int{1}
	exitRefusal = []int{1, 2}
)

// sameError asserts that two failed results are indistinguishable once the
// ids they were about are swapped: same exit status, same message.
func sameError(t *testing.T, what string, a result, idA string, b result, idB string) {
	t.Helper()
	if a.code == 0 || b.code == 0 {
		t.Errorf("%s: both must fail: exit %d and %d\n%s\n%s", what, a.code, b.code, a.stdout, b.stdout)
		return
	}
	// A new memory's generated id differs from run to run; it tells nothing.
	uuid := regexp.MustCompile(`[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}`)
	ea := uuid.ReplaceAllString(strings.ReplaceAll(a.stderr, idA, "ID"), "UUID")
	eb := uuid.ReplaceAllString(strings.ReplaceAll(b.stderr, idB, "ID"), "UUID")
	if a.code != b.code || ea != eb {
		t.Errorf("%s: another user's id is distinguishable from a missing one:\n  %d %s  %d %s", what, a.code, a.stderr, b.code, b.stderr)
	}
}

// Item 1: bind is scoped to the acting user. Alice, reusing Bob's task id,
// cannot justify a payment with Bob's memory, and the error is the one for a
// memory that does not exist.
func TestHostileBindAcrossUsers(t *testing.T) {
	t.Parallel()
	h := newHostile(t)
	task := []string{"--task", "shared-1", "--intent", "send", "--tool-risk", "external_side_effect"}
	h.ok(append([]string{"search", "--user", "bob", "-q", "pay the supplier invoice"}, task...)...)
	h.ok(append([]string{"search", "--user", "alice", "-q", "pay the supplier invoice"}, task...)...)
	call := append([]string{"--tool", "pay", "--args", `{"account":"DE89370400440532013000"}`}, task...)

	// Bob may: the set-up is right.
	if v, r := h.verdict(append([]string{"--user", "bob", "--justified-by", "b-pay"}, call...)...); v != "allow" {
		t.Fatalf("bob's own bind: verdict %q, %+v", v, r)
	}
	before := h.export()
	v, cross := h.verdict(append([]string{"--user", "alice", "--justified-by", "b-pay"}, call...)...)
	if v == "allow" || v == "require_confirmation" {
		t.Errorf("alice's bind justified by bob's memory in a shared task id: %s\n%s", v, cross.stdout)
	}
	_, ghost := h.verdict(append([]string{"--user", "alice", "--justified-by", "no-such-memory"}, call...)...)
	if v == "" || ghost.code != 0 {
		sameError(t, "bind --justified-by <bob's memory>", cross, "b-pay", ghost, "no-such-memory")
	}
	if h.export() != before {
		t.Error("bind changed the store")
	}
}

// Item 2: a memory admitted in a task and then revoked justifies nothing in
// that task.
func TestHostileRevokedAfterAdmission(t *testing.T) {
	t.Parallel()
	h := newHostile(t)
	task := []string{"--user", "alice", "--task", "t1", "--intent", "send", "--tool-risk", "external_side_effect", "--domain", "finance"}
	r := h.ok(append([]string{"search", "-q", "send the insurance claim"}, task...)...)
	if !regexp.MustCompile(`(?m)a-claims\s+admit\s`).MatchString(r.stdout) {
		t.Fatalf("a-claims should be admitted before the revoke:\n%s", r.stdout)
	}
	// Arguments that carry none of the memory's values: the revocation, not
	// argument taint, must be what denies the call.
	calls := [][]string{
		append([]string{"--tool", "send_email", "--justified-by", "a-claims"}, task...),
		append([]string{"--tool", "send_email", "--args", `{"subject":"claim status"}`, "--justified-by", "a-claims"}, task...),
	}
	for _, call := range calls {
		if v, r := h.verdict(call...); v != "allow" {
			t.Fatalf("before the revoke: %q %+v", v, r)
		}
	}
	h.ok("revoke", "a-claims", "--reason", "withdrawn")
	before := h.export()
	for _, call := range calls {
		v, r := h.verdict(call...)
		switch {
		case v == "" && !strings.Contains(r.stderr, "revoked"):
			t.Errorf("bind %q after revoke failed without saying the memory is revoked: %+v", call, r)
		case v != "" && v != "deny":
			t.Errorf("bind %q justified by a memory revoked after its admission: verdict %s\n%s", call, v, r.stdout)
		}
	}
	if h.export() != before {
		t.Error("bind changed the store")
	}
}

// Items 3 and 5: lineage and supersession may not point at another user's
// memory, and the refusal reads exactly like the one for an unknown id.
func TestHostileReferencesToOtherUsers(t *testing.T) {
	t.Parallel()
	h := newHostile(t)
	lineage := h.refused(exitFailure, []string{"--lineage", "lineageRefs"}, "add", "--user", "alice", "--lineage", "b-pay", "Summary of the payment")
	lineageGhost := h.refused(exitFailure, []string{"--lineage", "lineageRefs"}, "add", "--user", "alice", "--lineage", "no-such-memory", "Summary of the payment")
	sameError(t, "add --lineage <bob's memory>", lineage, "b-pay", lineageGhost, "no-such-memory")

	sup := h.refused(exitFailure, []string{"--supersedes", "supersedes"}, "add", "--user", "alice", "--supersedes", "b-pay", "Newer payment details")
	supGhost := h.refused(exitFailure, []string{"--supersedes", "supersedes"}, "add", "--user", "alice", "--supersedes", "no-such-memory", "Newer payment details")
	sameError(t, "add --supersedes <bob's memory>", sup, "b-pay", supGhost, "no-such-memory")

	cmd := h.refused(exitFailure, []string{"b-pay"}, "supersede", "a-gift", "b-pay")
	cmdGhost := h.refused(exitFailure, []string{"no-such-memory"}, "supersede", "a-gift", "no-such-memory")
	sameError(t, "supersede a-gift <bob's memory>", cmd, "b-pay", cmdGhost, "no-such-memory")

	// An id taken by another user reads like one's own duplicate: nothing
	// says whose it is.
	other := h.refused(exitFailure, []string{"--id", "id"}, "add", "--user", "alice", "--id", "b-pay", "x")
	own := h.refused(exitFailure, []string{"--id", "id"}, "add", "--user", "alice", "--id", "a-gift", "x")
	sameError(t, "add --id <bob's id>", other, "b-pay", own, "a-gift")
	if strings.Contains(other.stderr, "bob") {
		t.Errorf("the error names the other user: %s", other.stderr)
	}

	imp := h.file("lineage.jsonl", `{"userId":"alice","text":"derived from bob","lineageRefs":["b-pay"]}`+"\n")
	r := h.refused(exitFailure, []string{"line 1"}, "import", imp)
	if !strings.Contains(r.stderr, "lineageRefs") {
		t.Errorf("import: the error should name lineageRefs: %s", r.stderr)
	}
}

var invisibles = map[string]string{
	"zero-width space":  "\u200b",
	"bidi override":     "\u202e",
	"bidi isolate":      "\u2066",
	"word joiner":       "\u2060",
	"byte-order mark":   "\ufeff",
	"soft hyphen":       "\u00ad",
	"escape":            "\x1b",
	"line separator":    "\u2028",
	"zero-width joiner": "\u200d",
}

// Item 4: ids with invisible or control characters are refused, naming the
// field, in every command that takes them; ids are compared in NFC.
func TestHostileInvisibleIDs(t *testing.T) {
	t.Parallel()
	h := newHostile(t)
	for name, c := range invisibles {
		id := "u" + c + "1"
		for _, f := range []struct {
			flags  []string
			fields []string
		}{
			{[]string{"add", "--user", id, "text"}, []string{"--user", "userId"}},
			{[]string{"add", "--user", "alice", "--id", id, "text"}, []string{"--id", "id"}},
			{[]string{"add", "--user", "alice", "--workspace", id, "text"}, []string{"--workspace", "workspaceId"}},
			{[]string{"add", "--user", "alice", "--project", id, "text"}, []string{"--project", "projectId"}},
			{[]string{"search", "--user", id, "-q", "invoice"}, []string{"--user", "userId"}},
			{[]string{"search", "--user", "alice", "--principal", id, "-q", "invoice"}, []string{"--principal", "principal"}},
			{[]string{"search", "--user", "alice", "--workspace", id, "-q", "invoice"}, []string{"--workspace", "workspaceId"}},
			{[]string{"search", "--user", "alice", "--project", id, "-q", "invoice"}, []string{"--project", "projectId"}},
			{[]string{"bind", "--user", id, "--task", "t", "--tool", "x"}, []string{"--user", "userId"}},
		} {
			t.Run(name+"/"+f.flags[0]+" "+f.fields[0], func(t *testing.T) {
				hh := *h
				hh.t = t
				hh.refused(exitMisuse, f.fields, f.flags...)
			})
		}
		quoted, _ := json.Marshal(id)
		imp := h.file("inv.jsonl", `{"userId":`+string(quoted)+`,"text":"x"}`+"\n")
		r := h.refused(exitFailure, []string{"line 1"}, "import", imp)
		if !strings.Contains(r.stderr, "userId") {
			t.Errorf("import %s: the error should name userId: %s", name, r.stderr)
		}
	}

	// NFC: "José" typed with a combining accent is the same user as "José".
	h.ok("add", "--user", "Jose\u0301", "--id", "nfc-1", "Likes window seats")
	r := h.ok("list", "--user", "Jos\u00e9", "--json")
	var ms []struct {
		ID     string `json:"id"`
		UserID string `json:"userId"`
	}
	json.Unmarshal([]byte(r.stdout), &ms)
	if len(ms) != 1 || ms[0].UserID != "Jos\u00e9" {
		t.Errorf("a user id is not normalised to NFC: list --user José gives %+v", ms)
	}
}

// Item 6: dates beyond 2262 round-trip or are refused; none wraps, none
// makes a memory silently expired, and 0001-01-01 is not "never".
func TestHostileDates(t *testing.T) {
	t.Parallel()
	h := newHostile(t)
	for _, d := range []string{"9999-12-31", "2300-01-01", "2262-04-12", "9999-12-31T23:59:59Z"} {
		id := "far-" + strings.NewReplacer(":", "", "-", "").Replace(d)
		before := h.export()
		r := h.run("add", "--user", "alice", "--id", id, "--expires", d, "--json", "A far-future deadline")
		if r.code != 0 {
			if r.code != 2 {
				t.Errorf("--expires %s: refused with exit %d, want 2", d, r.code)
			}
			h.oneLineNaming("--expires "+d, r.stderr, []string{"--expires", "expiresAt"})
			if h.export() != before {
				t.Errorf("--expires %s: refused but the store changed", d)
			}
			continue
		}
		var m struct {
			ExpiresAt string `json:"expiresAt"`
		}
		json.Unmarshal([]byte(h.ok("get", id, "--json").stdout), &m)
		if want := strings.TrimSuffix(d, "T23:59:59Z"); !strings.HasPrefix(m.ExpiresAt, want) {
			t.Errorf("--expires %s is stored as %s", d, m.ExpiresAt)
		}
		if s := h.ok("search", "--user", "alice", "-q", "far-future deadline"); strings.Contains(s.stdout, "expired") {
			t.Errorf("--expires %s makes the memory expired:\n%s", d, s.stdout)
		}
	}
	for _, args := range [][]string{
		{"add", "--user", "alice", "--expires", "0001-01-01", "x"},
		{"add", "--user", "alice", "--expires", "0001-01-01T00:00:00Z", "x"},
		{"add", "--user", "alice", "--expires", "10000-01-01", "x"},
	} {
		h.refused(exitMisuse, []string{"--expires", "expiresAt"}, args...)
	}
	imp := h.file("far.jsonl", `{"id":"far-import","userId":"alice","text":"x","expiresAt":"9999-12-31T00:00:00Z"}`+"\n")
	before := h.export()
	if r := h.run("import", imp); r.code == 0 {
		if exp := h.export(); !strings.Contains(exp, `"expiresAt":"9999-12-31T00:00:00Z"`) {
			t.Errorf("imported expiresAt 9999-12-31 does not round-trip:\n%s", exp)
		}
	} else {
		h.oneLineNaming("import far.jsonl", r.stderr, []string{"expiresAt"})
		if h.export() != before {
			t.Error("a refused import changed the store")
		}
	}
	never := h.file("never.jsonl", `{"id":"never","userId":"alice","text":"x","expiresAt":"0001-01-01T00:00:00Z"}`+"\n")
	h.refused(exitFailure, []string{"expiresAt"}, "import", never)
}

// Item 7: unknown and duplicate JSON keys are refused, naming line and key.
func TestHostileImportKeys(t *testing.T) {
	t.Parallel()
	h := newHostile(t)
	for _, c := range []struct{ line, key string }{
		{`{"userId":"alice","text":"x","sourceAuthorty":"system"}`, "sourceAuthorty"},
		{`{"userId":"alice","text":"x","UserId":"bob"}`, "UserId"},
		{`{"USERID":"alice","text":"x"}`, "USERID"},
		{`{"userId":"alice","text":"x","text":"y"}`, "text"},
		{`{"userId":"alice","userId":"bob","text":"x"}`, "userId"},
	} {
		f := h.file("keys.jsonl", `{"userId":"alice","text":"a fine first line"}`+"\n"+c.line+"\n")
		r := h.refused(exitFailure, []string{"line 2"}, "import", f)
		if !strings.Contains(r.stderr, c.key) {
			t.Errorf("import %s: the error should name the key %q: %s", c.line, c.key, r.stderr)
		}
	}
}

// Item 8: import reports every bad line in one pass, duplicates by line.
func TestHostileImportOnePass(t *testing.T) {
	t.Parallel()
	h := newHostile(t)
	f := h.file("many.jsonl", strings.Join([]string{
		`{"id":"i1","userId":"alice","text":"fine"}`,
		`{"id":"i2","userId":"alice","text":`,
		`{"id":"i3","userId":"alice","text":"wrong dimension","embedding":[0.1,0.2]}`,
		`{"id":"i1","userId":"alice","text":"duplicate of line 1"}`,
		`{"id":"i5","userId":"alice","text":"derived","lineageRefs":["nowhere"]}`,
		`{"id":"a-gift","userId":"alice","text":"already stored"}`,
	}, "\n")+"\n")
	before := h.export()
	r := h.run("import", f)
	if r.code != 1 {
		t.Errorf("import: exit %d, want 1", r.code)
	}
	for _, n := range []int{2, 3, 4, 5, 6} {
		if !strings.Contains(r.stderr, fmt.Sprintf("line %d:", n)) {
			t.Errorf("import does not report line %d in the same pass:\n%s", n, r.stderr)
		}
	}
	if !regexp.MustCompile(`line 4:.*line 1`).MatchString(r.stderr) {
		t.Errorf("the duplicate on line 4 should name line 1:\n%s", r.stderr)
	}
	if strings.Contains(r.stderr, "line 1:") {
		t.Errorf("line 1 is fine but is reported:\n%s", r.stderr)
	}
	if h.export() != before {
		t.Error("a failed import changed the store")
	}
}

// Item 9: text and queries with nothing to embed either work or fail with an
// input error; never "all zeros", never every memory at similarity 0.
func TestHostileNothingToEmbed(t *testing.T) {
	t.Parallel()
	h := newHostile(t)
	for i, text := range []string{"😀", "!!!", "…", "🎉🎉"} {
		before := h.export()
		id := fmt.Sprintf("emoji-%d", i)
		r := h.run("add", "--user", "alice", "--id", id, text)
		if strings.Contains(r.stderr, "all zeros") {
			t.Errorf("add %q: an internal error leaks: %s", text, r.stderr)
		}
		if r.code == 0 {
			h.ok("get", id)
			continue
		}
		if !slices.Contains(exitRefusal, r.code) {
			t.Errorf("add %q: exit %d", text, r.code)
		}
		h.oneLineNaming("add "+text, r.stderr, []string{"TEXT", "text"})
		if h.export() != before {
			t.Errorf("add %q refused but the store changed", text)
		}
	}
	// A query of symbols is content: it finds the memory that holds them.
	for i, text := range []string{"😀", "!!!", "…", "🎉🎉"} {
		id := fmt.Sprintf("emoji-%d", i)
		if h.run("get", id).code != 0 {
			continue // refused above
		}
		r := h.ok("search", "--user", "alice", "-q", text, "--json")
		var adm struct {
			Items []struct {
				Memory struct{ ID string } `json:"memory"`
				Scores struct {
					Similarity float64 `json:"similarity"`
				} `json:"scores"`
			} `json:"items"`
		}
		json.Unmarshal([]byte(r.stdout), &adm)
		if len(adm.Items) == 0 || adm.Items[0].Memory.ID != id || adm.Items[0].Scores.Similarity <= 0 {
			t.Errorf("search -q %q should find %s first, with a positive similarity: %+v", text, id, adm.Items)
		}
	}
	// A query with nothing visible has nothing to search for: an input error,
	// not every memory at similarity 0.
	for _, q := range []string{"\u200b", "\u200b\u200d\u2060", " \t ", "\ufeff"} {
		h.refused(exitMisuse, []string{"--query", "query"}, "search", "--user", "alice", "-q", q)
	}
}

// Item 11: read commands on a mistyped --db fail and create nothing.
func TestHostileMistypedDB(t *testing.T) {
	t.Parallel()
	h := newHostile(t)
	for _, args := range [][]string{
		{"get", "a-claims"},
		{"list"},
		{"export"},
		{"search", "--user", "alice", "-q", "claims"},
		{"stats"},
		{"audit"},
		{"quarantine", "list"},
		{"bind", "--user", "alice", "--task", "t1", "--tool", "x"},
	} {
		typo := filepath.Join(h.dir, "h.bd")
		r := run(t, "", append([]string{"--db", typo}, args...)...)
		name := fmt.Sprintf("memgate --db h.bd %q", args)
		if r.code != 1 {
			t.Errorf("%s: exit %d, want 1\n%s%s", name, r.code, r.stdout, r.stderr)
		}
		h.oneLineNaming(name, r.stderr, []string{typo})
		if _, err := os.Stat(typo); err == nil {
			t.Errorf("%s created a store", name)
			os.Remove(typo)
		}
	}
}

// Item 12: flags. Bad -k and a missing --user are misuse (exit 2) in every
// command, and change nothing.
func TestHostileFlags(t *testing.T) {
	t.Parallel()
	h := newHostile(t)
	for _, k := range []string{"0", "-1", "1001", "1e3", "ten", ""} {
		h.refused(exitMisuse, []string{"-k"}, "search", "--user", "alice", "-q", "claims", "-k", k)
	}
	h.refused(exitMisuse, []string{"--user"}, "add", "a memory without an owner")
	h.refused(exitMisuse, []string{"--user"}, "add", "--text", "a memory without an owner")
	h.refused(exitMisuse, []string{"--user"}, "search", "-q", "claims")
	h.refused(exitMisuse, []string{"--user"}, "bind", "--task", "t", "--tool", "x")
	h.refused(exitMisuse, []string{"--user"}, "add", "--user", "", "empty owner")
	h.refused(exitMisuse, []string{"--user"}, "search", "--user=", "-q", "claims")
}

// Item 13: a bad --gate is a clear error and changes nothing.
func TestHostileGateFlag(t *testing.T) {
	t.Parallel()
	h := newHostile(t)
	notModel := h.file("not.model", "MEMGATE-GATE but not really a model file at all, just text")
	for _, p := range []string{filepath.Join(h.dir, "missing.model"), notModel, h.db, h.dir} {
		h.refused(exitFailure, []string{"--gate"}, "--gate", p, "search", "--user", "alice", "-q", "claims")
	}
}

// nastyGen makes deterministic nasty strings from fragments a terminal, a
// parser or a database might mishandle.
type nastyGen struct{ r *rand.Rand }

var nastyFragments = []string{
	"\x00", "\x1b[31m", "\x1b]0;title\x07", "\u202e", "\u202d", "\u2066", "\u200b", "\u200c", "\u200d", "\ufeff", "\u00ad",
	"\u2028", "\u2029", "\u0085", "\r\n", "\t", " ", "e\u0301", "\U0001F600", "👩\u200d💻", "\xff", "\xc3", "ａｄｍｉｎ",
	"\u0430lice", "../", "%s%n", "'; DROP TABLE memories;--", "--user", "-", `"`, `\`, "null", "日本語", "مرحبا", "\U000E0041",
	"\u034f", "\u180e", "\u3164", "{\"id\":1}", "<script>", strings.Repeat("x", 300), "a", "b", "7",
}

func (g *nastyGen) next() string {
	var b strings.Builder
	for n := 1 + g.r.IntN(4); n > 0; n-- {
		if g.r.IntN(3) == 0 {
			b.WriteString(string(rune('a' + g.r.IntN(26))))
		}
		b.WriteString(nastyFragments[g.r.IntN(len(nastyFragments))])
	}
	return b.String()
}

// invalidID says whether an id must be refused: empty, not UTF-8, too long,
// or holding whitespace, control or format characters. A label (workspace,
// project) may hold plain spaces inside.
func invalidID(s string, label bool) bool {
	if s == "" || !utf8.ValidString(s) || len(s) > 256 || (label && strings.TrimSpace(s) != s) {
		return true
	}
	for _, r := range s {
		if label && r == ' ' {
			continue
		}
		if unicode.IsSpace(r) || unicode.IsControl(r) || unicode.Is(unicode.Cf, r) || r == '\u2028' || r == '\u2029' {
			return true
		}
	}
	return false
}

func hasCombining(s string) bool {
	for _, r := range s {
		if unicode.Is(unicode.Mn, r) {
			return true
		}
	}
	return false
}

// Fuzzed ids: each is refused as misuse naming the flag, with the store
// unchanged, or stored as given (in NFC) and printed safely.
func TestHostileFuzzedIDs(t *testing.T) {
	t.Parallel()
	h := newHostile(t)
	g := &nastyGen{rand.New(rand.NewPCG(8, 12))}
	flags := []struct{ flag, field string }{{"--id", "id"}, {"--user", "userId"}, {"--workspace", "workspaceId"}, {"--project", "projectId"}}
	seen := map[string]bool{}
	accepted, refused := 0, 0
	defer func() { t.Logf("fuzzed ids: %d accepted, %d refused", accepted, refused) }()
	for i := 0; i < 60; i++ {
		s := g.next()
		f := flags[i%len(flags)]
		if f.flag == "--id" && seen[s] {
			continue
		}
		seen[s] = true
		args := []string{"add", "--user", "alice", "--json", fmt.Sprintf("fuzzed memory %d", i)}
		if f.flag == "--user" {
			args[2] = s
		} else {
			args = append(args, f.flag, s)
		}
		before := h.export()
		r := h.run(args...)
		name := fmt.Sprintf("add %s %q", f.flag, s)
		if r.code != 0 {
			refused++
			if r.code != 2 {
				t.Errorf("%s: exit %d, want 2 (an invalid flag value)\n%s", name, r.code, r.stderr)
			}
			h.oneLineNaming(name, r.stderr, []string{f.flag, f.field})
			assertTerminalSafe(t, name+" (stderr)", r.stderr)
			if h.export() != before {
				t.Errorf("%s: refused but the store changed", name)
			}
			continue
		}
		accepted++
		if invalidID(s, f.flag == "--workspace" || f.flag == "--project") {
			t.Errorf("%s: accepted an id with whitespace, control or format characters", name)
		}
		var m map[string]any
		if err := json.Unmarshal([]byte(r.stdout), &m); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if got, _ := m[f.field].(string); got != s && !hasCombining(s) {
			t.Errorf("%s: stored as %q", name, got)
		}
		id, _ := m["id"].(string)
		reads := [][]string{{"get", id}}
		if i%3 == 0 {
			reads = append(reads, []string{"list", "--limit", "0"})
		}
		for _, read := range reads {
			r := h.ok(read...)
			assertTerminalSafe(t, name+": "+read[0], r.stdout)
		}
	}
}

// Fuzzed texts: each is refused naming the text, with the store unchanged,
// or stored exactly and printed safely by get, list and search.
func TestHostileFuzzedTexts(t *testing.T) {
	t.Parallel()
	h := newHostile(t)
	g := &nastyGen{rand.New(rand.NewPCG(3, 5))}
	accepted, refused := 0, 0
	defer func() { t.Logf("fuzzed texts: %d accepted, %d refused", accepted, refused) }()
	for i := 0; i < 40; i++ {
		s := g.next()
		if i%10 == 0 {
			s = "   " + s + "\n\n"
		}
		before := h.export()
		r := h.run("add", "--user", "carol", "--json", "--text", s)
		name := fmt.Sprintf("add --text %q", s)
		if r.code != 0 {
			refused++
			if !slices.Contains(exitRefusal, r.code) {
				t.Errorf("%s: exit %d", name, r.code)
			}
			h.oneLineNaming(name, r.stderr, []string{"TEXT", "text"})
			assertTerminalSafe(t, name+" (stderr)", r.stderr)
			if h.export() != before {
				t.Errorf("%s: refused but the store changed", name)
			}
			continue
		}
		accepted++
		if !utf8.ValidString(s) || strings.TrimSpace(s) == "" {
			t.Errorf("%s: accepted text that is empty or not UTF-8", name)
		}
		var m struct {
			ID   string `json:"id"`
			Text string `json:"text"`
		}
		json.Unmarshal([]byte(r.stdout), &m)
		if m.Text != s {
			t.Errorf("%s: stored as %q", name, m.Text)
		}
		reads := [][]string{{"get", m.ID}, {"search", "--user", "carol", "-q", s, "--context"}}
		if i%4 == 0 {
			reads = append(reads, []string{"list", "--user", "carol", "--limit", "0"})
		}
		for _, read := range reads {
			r := h.run(read...)
			if r.code == 2 && read[0] == "search" {
				continue // a query with nothing to search for may be refused
			}
			if r.code != 0 {
				t.Errorf("%s: %s: exit %d: %s", name, read[0], r.code, r.stderr)
			}
			assertTerminalSafe(t, name+": "+read[0], r.stdout)
		}
	}
}

func TestRepeatedKey(t *testing.T) {
	tests := []struct {
		in  string
		key string
		dup bool
	}{
		{`{"to":"a@x.example","to":"b@x.example"}`, "to", true},
		{`{"to":"a","cc":["x",{"n":1,"n":2}]}`, "n", true},
		{`{"a":{"b":1},"b":{"a":2}}`, "", false},
		{`{"to":`, "", false},
		{`[1,2]`, "", false},
	}
	for _, tt := range tests {
		if key, dup := repeatedKey([]byte(tt.in)); key != tt.key || dup != tt.dup {
			t.Errorf("repeatedKey(%s) = %q %v, want %q %v", tt.in, key, dup, tt.key, tt.dup)
		}
	}
}
