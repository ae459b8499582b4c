package cli

import (
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/memgate/memgate/gate"
)

// searchScores runs search --json and returns each candidate's gate fit and
// threshold by memory id.
func searchScores(t *testing.T, args ...string) map[string][2]float64 {
	t.Helper()
	r := run(t, "", append(args, "--json")...)
	if r.code != 0 {
		t.Fatalf("%v: %+v", args, r)
	}
	var adm struct {
		Items []struct {
			Memory struct {
				ID string `json:"id"`
			} `json:"memory"`
			Scores struct {
				GateFit       float64 `json:"gateFit"`
				GateThreshold float64 `json:"gateThreshold"`
			} `json:"scores"`
		} `json:"items"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &adm); err != nil {
		t.Fatal(err)
	}
	out := map[string][2]float64{}
	for _, it := range adm.Items {
		out[it.Memory.ID] = [2]float64{it.Scores.GateFit, it.Scores.GateThreshold}
	}
	return out
}

// A gate trained with memgate train is used by search through the global
// --gate flag and the MEMGATE_GATE variable: the scores search reports are the
// trained model's (its threshold for the task's bucket), not the built-in
// model's. A bad model path is a clear error.
func TestGlobalGateFlag(t *testing.T) {
	dir := t.TempDir()
	if r := run(t, "", "suite", "generate", "--out", filepath.Join(dir, "s"), "--per-family", "3", "--seed", "4"); r.code != 0 {
		t.Fatalf("suite: %+v", r)
	}
	model := filepath.Join(dir, "g.model")
	if r := run(t, "", "train", "--cases", filepath.Join(dir, "s", "train.jsonl"), "--dev", filepath.Join(dir, "s", "dev.jsonl"),
		"--out", model, "--epochs", "20", "--min-utility", "0.5"); r.code != 0 {
		t.Fatalf("train: %+v", r)
	}
	m, err := gate.Load(model)
	if err != nil {
		t.Fatal(err)
	}
	def, err := gate.Default()
	if err != nil {
		t.Fatal(err)
	}
	task := &struct{ intent, risk string }{"send", "external_side_effect"}
	bucket := task.intent + "×" + task.risk
	want, builtin := m.Threshold(bucket), def.Model().Threshold(bucket)
	if want == builtin {
		t.Fatalf("the trained model's threshold for %s equals the built-in one (%v): the test cannot tell them apart", bucket, want)
	}

	db := filepath.Join(dir, "g.db")
	for _, args := range [][]string{
		{"add", "--user", "alex", "--id", "claims", "--domain", "finance", "--authority", "user_confirmed", "Claims go to claims@insurer.example"},
		{"add", "--user", "alex", "--id", "gift", "--domain", "family", "Mia wants a telescope for her birthday"},
	} {
		if r := run(t, "", append([]string{"--db", db}, args...)...); r.code != 0 {
			t.Fatalf("%v: %+v", args, r)
		}
	}
	search := []string{"search", "--user", "alex", "-q", "send the claim to the insurer", "--intent", task.intent, "--tool-risk", task.risk}
	check := func(name string, got map[string][2]float64, threshold float64) {
		t.Helper()
		if len(got) != 2 {
			t.Fatalf("%s: %d candidates, want 2", name, len(got))
		}
		for id, s := range got {
			if math.Abs(s[1]-threshold) > 1e-9 {
				t.Errorf("%s: %s judged against threshold %v, want %v", name, id, s[1], threshold)
			}
		}
	}
	base := searchScores(t, append([]string{"--db", db}, search...)...)
	check("built-in gate", base, builtin)
	withFlag := searchScores(t, append([]string{"--db", db, "--gate", model}, search...)...)
	check("--gate", withFlag, want)
	if withFlag["claims"][0] == base["claims"][0] {
		t.Errorf("--gate: the fit of claims is the built-in gate's (%v)", base["claims"][0])
	}
	// The flag may follow the command, like every global flag.
	check("search --gate", searchScores(t, append(append([]string{"--db", db}, search...), "--gate", model)...), want)

	t.Setenv("MEMGATE_GATE", model)
	check("MEMGATE_GATE", searchScores(t, append([]string{"--db", db}, search...)...), want)
	// An explicit empty --gate means the built-in model.
	check("--gate ''", searchScores(t, append([]string{"--db", db, "--gate", ""}, search...)...), builtin)
	t.Setenv("MEMGATE_GATE", "")

	// eval's --gate is the same global flag.
	if r := run(t, "", "eval", "--cases", filepath.Join(dir, "s", "test.jsonl"), "--gate", model, "--baseline", "full"); r.code != 0 {
		t.Fatalf("eval --gate: %+v", r)
	}

	// Bad model paths: a clear error naming the flag and the file, exit 1.
	raw, _ := os.ReadFile(model)
	damaged := filepath.Join(dir, "damaged.model")
	os.WriteFile(damaged, raw[:len(raw)/2], 0o600)
	for _, c := range []struct{ path, want string }{
		{filepath.Join(dir, "missing.model"), "no such file"},
		{damaged, "checksum"},
		{db, "not a memgate gate model"},
	} {
		r := run(t, "", append([]string{"--db", db, "--gate", c.path}, search...)...)
		if r.code != 1 {
			t.Errorf("--gate %s: exit %d, want 1: %s", c.path, r.code, r.stderr)
		}
		checkOneLine(t, "--gate "+c.path, r.stderr, "--gate")
		if !strings.Contains(r.stderr, c.want) || !strings.Contains(r.stderr, c.path) {
			t.Errorf("--gate %s: stderr should name the file and say %q: %s", c.path, c.want, r.stderr)
		}
	}
}
