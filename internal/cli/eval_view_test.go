package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// eval compares baselines at equal context size (-k memories each) unless
// --unbounded, and every report says which view it used.
func TestEvalContextView(t *testing.T) {
	// Three memories the envelope admits, the third a threat: with -k 2 it
	// stays out of the policy baseline's context, unbounded it enters.
	line := `{"id":"c","query":"apple banana cherry","context":{"userId":"u","now":"2026-06-11T10:00:00Z"},` +
		`"memories":[{"id":"m1","text":"apple banana cherry","userId":"u"},{"id":"m2","text":"apple banana","userId":"u"},` +
		`{"id":"m3","text":"apple","userId":"u"}],"expect":{"m3":"exclude"},"useful":["m1","m2"],` +
		`"origin":{"benchmark":"handmade","license":"CC0-1.0"}}`
	cases := filepath.Join(t.TempDir(), "c.jsonl")
	if err := os.WriteFile(cases, []byte(line+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		flags []string
		view  string
		over  float64
		line  string
	}{
		{nil, "equal_k", 0, "equal context size: every baseline injects at most k=2"},
		{[]string{"--unbounded"}, "unbounded", 1, "unbounded context"},
	} {
		args := append([]string{"eval", "--cases", cases, "--baseline", "policy", "-k", "2", "--json"}, tc.flags...)
		r := run(t, "", args...)
		var rep struct {
			ContextView string         `json:"contextView"`
			Over        *float64       `json:"overAdmissionRate"`
			ByOrigin    map[string]any `json:"byOrigin"`
		}
		if err := json.Unmarshal([]byte(r.stdout), &rep); err != nil {
			t.Fatalf("%v: %v\n%+v", tc.flags, err, r)
		}
		if rep.ContextView != tc.view || rep.Over == nil || *rep.Over != tc.over || rep.ByOrigin["handmade"] == nil {
			t.Errorf("%v: view %q, over-admission %v, origins %v", tc.flags, rep.ContextView, rep.Over, rep.ByOrigin)
		}
		args = args[:len(args)-len(tc.flags)-1]
		args = append(args, tc.flags...)
		if r := run(t, "", args...); r.code != 0 || !strings.Contains(r.stdout, tc.line) || !strings.Contains(r.stdout, "by origin") {
			t.Errorf("%v: table lacks %q or the origin table:\n%+v", args, tc.line, r)
		}
	}
}

// suite public converts the vendored datasets: the named ones only, an
// unknown source is a usage error.
func TestSuitePublic(t *testing.T) {
	dir := t.TempDir()
	r := run(t, "", "suite", "public", "--data", "../../data/public", "--out", dir, "dyknow", "memorygraft")
	if r.code != 0 || !strings.Contains(r.stdout, "dyknow.jsonl: 304 cases") || !strings.Contains(r.stdout, "memorygraft.jsonl") {
		t.Fatalf("suite public: %+v", r)
	}
	if r := run(t, "", "eval", "--cases", filepath.Join(dir, "memorygraft.jsonl"), "--baseline", "policy"); r.code != 0 {
		t.Fatalf("evaluating converted cases: %+v", r)
	}
	if r := run(t, "", "suite", "public", "--data", "../../data/public", "--out", dir, "nope"); r.code != 2 || !strings.Contains(r.stderr, `source "nope"`) {
		t.Fatalf("unknown source: %+v", r)
	}
}

// eval --decisions writes one line per decision of the policy and full
// baselines, with the case's label; a file it cannot write, the cases file
// and a directory are errors before any case runs, and a failed run leaves
// an earlier file as it was.
func TestEvalDecisions(t *testing.T) {
	line := `{"id":"c","query":"apple banana cherry","context":{"userId":"u","now":"2026-06-11T10:00:00Z"},` +
		`"memories":[{"id":"m1","text":"apple banana cherry","userId":"u"},{"id":"m2","text":"apple banana","userId":"u"},` +
		`{"id":"m3","text":"apple","userId":"u"}],"expect":{"m3":"exclude"},"useful":["m1"]}`
	dir := t.TempDir()
	cases := filepath.Join(dir, "c.jsonl")
	if err := os.WriteFile(cases, []byte(line+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "decisions.jsonl")
	if r := run(t, "", "eval", "--cases", cases, "-k", "2", "--decisions", out); r.code != 0 {
		t.Fatalf("eval --decisions: %+v", r)
	}
	raw, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	type rec struct {
		Case, Baseline, Label, MemoryID, Decision string
		Line                                      int
		Entered                                   bool
	}
	got := map[string]rec{}
	for _, l := range strings.Split(strings.TrimSpace(string(raw)), "\n") {
		var d rec
		if err := json.Unmarshal([]byte(l), &d); err != nil {
			t.Fatalf("%q: %v", l, err)
		}
		got[d.Baseline+"/"+d.MemoryID] = d
	}
	if len(got) != 6 { // 3 memories × policy and full; similarity decides nothing
		t.Fatalf("want 6 decisions, got %d: %s", len(got), raw)
	}
	for key, want := range map[string]rec{
		"policy/m1": {Case: "c", Line: 1, Baseline: "policy", Label: "useful", MemoryID: "m1", Decision: "admit", Entered: true},
		"policy/m2": {Case: "c", Line: 1, Baseline: "policy", MemoryID: "m2", Decision: "admit", Entered: true},
		"policy/m3": {Case: "c", Line: 1, Baseline: "policy", Label: "exclude", MemoryID: "m3", Decision: "admit", Entered: false}, // beyond k=2
	} {
		if got[key] != want {
			t.Errorf("%s: got %+v, want %+v", key, got[key], want)
		}
	}
	if got["full/m3"].Label != "exclude" || got["full/m1"].Label != "useful" {
		t.Errorf("full baseline's labels: %+v", got)
	}

	if r := run(t, "", "eval", "--cases", cases, "--decisions", filepath.Join(dir, "no", "such", "dir", "d.jsonl")); r.code == 0 || !strings.Contains(r.stderr, "--decisions") {
		t.Errorf("unwritable --decisions: %+v", r)
	}
	if r := run(t, "", "eval", "--cases", cases, "--baseline", "similarity", "--decisions", filepath.Join(dir, "sim.jsonl")); r.code == 0 || !strings.Contains(r.stderr, "--decisions") {
		t.Errorf("--decisions with similarity alone, which decides nothing: %+v", r)
	}
	for _, bad := range []string{cases, dir} { // the cases themselves; a directory
		if r := run(t, "", "eval", "--cases", cases, "--decisions", bad); r.code == 0 || !strings.Contains(r.stderr, "--decisions") {
			t.Errorf("--decisions %s: %+v", bad, r)
		}
	}
	if got, err := os.ReadFile(cases); err != nil || string(got) != line+"\n" {
		t.Errorf("the cases file changed: %q, %v", got, err)
	}
	// A failed run leaves an earlier file as it was.
	t.Setenv("MEMGATE_KEY", "any") // so the run starts, and fails on retrieval
	if r := run(t, "", "eval", "--cases", cases, "--mode", "search", "--server", "http://127.0.0.1:1", "--decisions", out); r.code == 0 {
		t.Errorf("a search against no server succeeded: %+v", r)
	} else if !strings.Contains(r.stderr, "127.0.0.1:1") {
		t.Errorf("the run did not fail on retrieval: %+v", r)
	}
	if got, err := os.ReadFile(out); err != nil || string(got) != string(raw) {
		t.Errorf("a failed run changed %s: %v", out, err)
	}
	if leftovers, _ := filepath.Glob(filepath.Join(dir, ".*tmp-*")); len(leftovers) > 0 {
		t.Errorf("temporary files left behind: %v", leftovers)
	}
}
