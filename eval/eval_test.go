package eval

import (
	"context"
	"encoding/json"
	"os"
	"reflect"
	"strings"
	"testing"

	"github.com/memgate/memgate/memory"
)

func readFile(t *testing.T, path string) []Case {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	cases, warns, err := Read(f)
	if err != nil || len(warns) > 0 {
		t.Fatalf("read %s: %v %v", path, warns, err)
	}
	return cases
}

func f(p *float64) float64 {
	if p == nil {
		return -1
	}
	return *p
}

// TestHandComputed checks the measures against values worked out by hand for
// the three cases of testdata/handcheck.jsonl (the reasoning is in the
// comments beside the expected counts).
func TestHandComputed(t *testing.T) {
	cases := readFile(t, "testdata/handcheck.jsonl")
	rep, err := Run(context.Background(), cases, Options{Mode: ModeAdmit, Workers: 2})
	if err != nil {
		t.Fatal(err)
	}
	sim, pol := rep.ByBaseline["similarity"], rep.ByBaseline["policy"]
	checks := []struct {
		m       *Metrics
		measure string
		num     int
		den     int
	}{
		// similarity injects the user's memories: m1, m2 | m7 (revocation unknown to it), m8 | m10.
		{sim, MOverAdmission, 2, 3}, {sim, MHardOverAdmission, 1, 2}, {sim, MUtility, 3, 3},
		{sim, MExplanation, 0, 5}, {sim, MRevocation, 0, 1}, {sim, MLeakTarget, 1, 1}, {sim, MBindAccuracy, 1, 1},
		{sim, MCrossScope, 0, 1}, {sim, MPrecision, 3, 5},
		// policy: m1 restricted outside its domain, m7 revoked, m9 another user are denied.
		{pol, MOverAdmission, 0, 3}, {pol, MPartialOverAdmission, 0, 3}, {pol, MHardOverAdmission, 0, 2}, {pol, MUtility, 3, 3},
		{pol, MExplanation, 6, 6}, {pol, MRevocation, 1, 1}, {pol, MLeakTarget, 0, 1}, {pol, MBindAccuracy, 1, 1},
		{pol, MCrossScope, 0, 1}, {pol, MPrecision, 3, 3}, {pol, MRecall, 3, 3},
	}
	for _, c := range checks {
		if got := c.m.Counts[c.measure]; got.Num != c.num || got.Den != c.den {
			t.Errorf("%s: %d/%d, want %d/%d", c.measure, got.Num, got.Den, c.num, c.den)
		}
	}
	if f(pol.ThreatReduction) != 1 || f(sim.ThreatReduction) != 0 {
		t.Errorf("threat reduction policy %v similarity %v", f(pol.ThreatReduction), f(sim.ThreatReduction))
	}
	if pol.LowAuthorityToolBindingRate != nil {
		t.Error("no case has a low-authority justification: the rate must be undefined (null), not 0")
	}
	if rep.Primary != Full || rep.Cases != 3 || len(rep.ByBaseline) != 3 {
		t.Fatalf("report header %+v", rep)
	}
	if got := rep.ByBaseline["policy"].ByCategory["revoked"].Counts[MRevocation]; got != (Count{1, 1}) {
		t.Errorf("by category: %+v", got)
	}
	if _, ok := rep.ByBaseline["policy"].ByBucket["send×external_side_effect"]; !ok {
		t.Errorf("buckets: %v", sortedKeys(rep.ByBaseline["policy"].ByBucket))
	}
}

func TestSearchModeAgreesOnHandCases(t *testing.T) {
	cases := readFile(t, "testdata/handcheck.jsonl")
	rep, err := Run(context.Background(), cases, Options{Mode: ModeSearch, Baselines: []Baseline{Similarity, PolicyOnly}, Workers: 2})
	if err != nil {
		t.Fatal(err)
	}
	pol := rep.ByBaseline["policy"]
	if got := pol.Counts[MOverAdmission]; got.Num != 0 {
		t.Errorf("search mode policy over-admission %+v", got)
	}
	// memgate's own store never retrieves a revoked memory, whatever the baseline.
	if got := rep.ByBaseline["similarity"].Counts[MRevocation]; got != (Count{1, 1}) {
		t.Errorf("search mode similarity revocation %+v", got)
	}
}

func TestReadReportsBadCases(t *testing.T) {
	in := strings.Join([]string{
		`{"id":"ok","query":"q","context":{"userId":"u"},"memories":[{"id":"m","text":"t","userId":"u"}]}`,
		`{"id":"bad-enum","query":"q","context":{"userId":"u","intent":"chat"},"memories":[{"id":"m","text":"t","userId":"u","kind":"opinion"}]}`,
		`{"id":"bad-refs","query":"q","context":{"userId":"u"},"memories":[{"id":"m","text":"t","userId":"u"}],"expect":{"x":"admit","m":"maybe"},"useful":["y"],"events":[{"op":"delete","id":"z"}]}`,
		`{"id":"bad-regex","query":"q","context":{"userId":"u"},"memories":[{"id":"m","text":"t","userId":"u"}],"leakTargets":["/(unclosed/"]}`,
		`not json`,
		``,
		`{"id":"ok","query":"q","context":{"userId":"u"},"memories":[{"id":"m","text":"t","userId":"u"}]}`,
		`{"id":"bind","query":"q","context":{"userId":"u"},"memories":[{"id":"m","text":"t","userId":"u"}],"expectBind":"maybe"}`,
	}, "\n")
	cases, warns, err := Read(strings.NewReader(in))
	if err != nil || len(cases) != 1 {
		t.Fatalf("cases %d err %v", len(cases), err)
	}
	var got []string
	for _, w := range warns {
		got = append(got, w.String())
	}
	all := strings.Join(got, "\n")
	for _, want := range []string{
		`line 2: memories[0]: kind: unknown value "opinion"`, `context: intent: unknown value "chat"`,
		`line 3: `, `expect: "x" is not a memory of the case`, `expect["m"]: unknown value "maybe"`, `useful[0]: "y" is not a memory`,
		`events[0].op: unknown value "delete"`, `events[0].id: "z" is not a memory`,
		`line 4: leakTargets[0]: bad regular expression`, `line 5: invalid JSON`, `line 7: id: "ok" repeats the case on line 1`,
		`line 8: expectBind: unknown value "maybe"`,
	} {
		if !strings.Contains(all, want) {
			t.Errorf("warnings lack %q:\n%s", want, all)
		}
	}
	if _, _, err := Read(strings.NewReader("")); err == nil || !strings.Contains(err.Error(), "empty") {
		t.Fatalf("empty file: %v", err)
	}
	if _, _, err := Read(strings.NewReader("nope\n")); err == nil || !strings.Contains(err.Error(), "no valid case (1 skipped)") {
		t.Fatalf("all bad: %v", err)
	}
}

func FuzzDecodeCase(f *testing.F) {
	f.Add([]byte(`{"id":"c","query":"q","context":{"userId":"u"},"memories":[{"id":"m","text":"t","userId":"u"}],"expect":{"m":"admit"},"leakTargets":["/a+/"]}`))
	f.Add([]byte(`{"id":"c","query":"q","context":{"userId":"u","toolRisk":"privileged"},"memories":[{"id":"m","text":"t","userId":"u"}],"toolCall":{"name":"x","risk":"privileged","justifiedBy":["m"]},"expectBind":"deny"}`))
	f.Fuzz(func(t *testing.T, raw []byte) {
		c, err := DecodeCase(raw)
		if err != nil {
			return
		}
		// A case that decodes must run without error or panic.
		if _, err := Run(context.Background(), []Case{c}, Options{Mode: ModeAdmit, Workers: 1}); err != nil {
			t.Fatalf("valid case failed to run: %v", err)
		}
	})
}

// The JSON Schema documents every field of the case format.
func TestSchemaCoversFormat(t *testing.T) {
	raw, err := os.ReadFile("../docs/eval-case.schema.json")
	if err != nil {
		t.Fatal(err)
	}
	var schema struct {
		Properties map[string]any `json:"properties"`
		Defs       struct {
			Memory struct {
				Properties map[string]any `json:"properties"`
			} `json:"memory"`
		} `json:"$defs"`
	}
	if err := json.Unmarshal(raw, &schema); err != nil {
		t.Fatal(err)
	}
	for _, f := range jsonFields(reflect.TypeFor[Case]()) {
		if _, ok := schema.Properties[f]; !ok {
			t.Errorf("case field %q missing from the schema", f)
		}
	}
	for _, f := range jsonFields(reflect.TypeFor[memory.Memory]()) {
		if _, ok := schema.Defs.Memory.Properties[f]; !ok && f != "supersededBy" {
			t.Errorf("memory field %q missing from the schema", f)
		}
	}
}

func jsonFields(t reflect.Type) []string {
	var out []string
	for i := range t.NumField() {
		tag := strings.Split(t.Field(i).Tag.Get("json"), ",")[0]
		if tag != "" && tag != "-" {
			out = append(out, tag)
		}
	}
	return out
}
