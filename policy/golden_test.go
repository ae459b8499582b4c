package policy

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/goccy/go-yaml"

	"github.com/memgate/memgate/admit"
)

var update = flag.Bool("update", false, "rewrite the golden files")

// scenario is a golden test input: a task, its candidates, and optionally a
// policy file; the expected decisions are in the .golden file beside it.
type scenario struct {
	Policy     *File         `json:"policy"`
	Context    admit.Context `json:"context"`
	Candidates []Case        `json:"candidates"`
}

func loadScenario(t *testing.T, path string) scenario {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var raw any
	if err := yaml.Unmarshal(data, &raw); err != nil {
		t.Fatal(err)
	}
	js, _ := json.Marshal(raw)
	dec := json.NewDecoder(bytes.NewReader(js))
	dec.DisallowUnknownFields()
	var s scenario
	if err := dec.Decode(&s); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	if err := s.Context.Validate(); err != nil {
		t.Fatal(err)
	}
	return s
}

func formatResult(r admit.Result) string {
	var cs []string
	if r.Constraints.RequireCitation {
		cs = append(cs, "requireCitation")
	}
	if r.Constraints.RequireUserConfirmation {
		cs = append(cs, "requireUserConfirmation")
	}
	if r.Constraints.ForbidToolBinding {
		cs = append(cs, "forbidToolBinding")
	}
	reasons := make([]string, len(r.Reasons))
	for i, x := range r.Reasons {
		reasons[i] = string(x)
	}
	return fmt.Sprintf("%-24s %-18s reasons=%s constraints=%s", r.MemoryID, r.Decision, strings.Join(reasons, ","), strings.Join(cs, ","))
}

// TestGolden pins the decision, reasons and constraints of every built-in
// rule and of operator rules, scenario by scenario.
func TestGolden(t *testing.T) {
	files, _ := filepath.Glob("testdata/golden/*.yaml")
	if len(files) == 0 {
		t.Fatal("no golden scenarios")
	}
	for _, path := range files {
		t.Run(filepath.Base(path), func(t *testing.T) {
			s := loadScenario(t, path)
			p := Default()
			if s.Policy != nil {
				var err error
				if p, err = Compile(*s.Policy); err != nil {
					t.Fatal(err)
				}
			}
			cands := make([]admit.Candidate, len(s.Candidates))
			for i := range s.Candidates {
				cands[i] = s.Candidates[i].Candidate()
			}
			pl := admit.Pipeline{Policy: p, Gate: admit.Neutral{}}
			results, err := pl.Run(t.Context(), &s.Context, cands)
			if err != nil {
				t.Fatal(err)
			}
			var b strings.Builder
			for _, r := range results {
				if len(r.Reasons) == 0 {
					t.Fatalf("%s has no reason", r.MemoryID)
				}
				b.WriteString(formatResult(r) + "\n")
			}
			golden := strings.TrimSuffix(path, ".yaml") + ".golden"
			if *update {
				if err := os.WriteFile(golden, []byte(b.String()), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("%v (run go test ./policy -update to create it)", err)
			}
			if got := b.String(); got != string(want) {
				t.Fatalf("decisions differ from %s:\n--- got\n%s--- want\n%s", golden, got, want)
			}
		})
	}
}
