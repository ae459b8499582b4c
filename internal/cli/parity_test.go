package cli

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/memgate/memgate/store/postgres/pgtest"
)

// The evaluation in search mode gives the same report, field for field
// (latencies aside), whether it retrieves from the embedded default or
// through memgate serve on PostgreSQL and Weaviate: the scale-out backends
// change where memories live, not what is retrieved.
func TestEvalParityAcrossBackends(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a server process")
	}
	store := pgtest.Fresh(t)
	index := freshWeaviate(t)
	if index == "" {
		t.Skip("MEMGATE_TEST_WEAVIATE is not set (scripts/scaleout-up.sh starts a server)")
	}
	dir := t.TempDir()
	if r := run(t, "", "suite", "generate", "--out", dir, "--seed", "3", "--per-family", "2"); r.code != 0 {
		t.Fatalf("suite generate: %d %s", r.code, r.stderr)
	}
	cases := filepath.Join(dir, "test.jsonl")
	embedded := run(t, "", "eval", "--cases", cases, "--mode", "search", "--json")
	if embedded.code != 0 {
		t.Fatalf("eval embedded: %d %s", embedded.code, embedded.stderr)
	}

	r := run(t, "", "--store", store, "--index", "exact", "keys", "create", "--principal", "eval", "--role", "admin", "--users", "*", "--json")
	if r.code != 0 {
		t.Fatalf("keys create: %d %s", r.code, r.stderr)
	}
	var created struct{ Key string }
	if err := json.Unmarshal([]byte(r.stdout), &created); err != nil {
		t.Fatal(err)
	}
	_, url := startServe(t, "scale-out", []string{"MEMGATE_STORE=" + store, "MEMGATE_INDEX=" + index})
	t.Setenv("MEMGATE_KEY", created.Key)
	remote := run(t, "", "eval", "--cases", cases, "--mode", "search", "--json", "--server", url)
	if remote.code != 0 {
		t.Fatalf("eval --server: %d %s", remote.code, remote.stderr)
	}

	var a, b any
	if err := json.Unmarshal([]byte(embedded.stdout), &a); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal([]byte(remote.stdout), &b); err != nil {
		t.Fatal(err)
	}
	latency := regexp.MustCompile(`(?i)latency`)
	var diffs []string
	var fields int
	compare(&diffs, &fields, "", a, b, latency)
	if len(diffs) > 0 {
		t.Errorf("%d of %d report fields differ between the embedded and the scale-out run, e.g.:\n%s",
			len(diffs), fields, strings.Join(diffs[:min(len(diffs), 15)], "\n"))
	}
	if fields < 1000 {
		t.Errorf("only %d fields compared: the report is not what this test expects", fields)
	}
	t.Logf("%d report fields compared", fields)
}

// compare appends to diffs the paths where a and b differ, skipping keys
// that match skip, and counts the leaves compared.
func compare(diffs *[]string, fields *int, path string, a, b any, skip *regexp.Regexp) {
	switch av := a.(type) {
	case map[string]any:
		bv, ok := b.(map[string]any)
		if !ok {
			*diffs = append(*diffs, fmt.Sprintf("%s: %v vs %v", path, a, b))
			return
		}
		keys := map[string]bool{}
		for k := range av {
			keys[k] = true
		}
		for k := range bv {
			keys[k] = true
		}
		sorted := make([]string, 0, len(keys))
		for k := range keys {
			sorted = append(sorted, k)
		}
		slices.Sort(sorted)
		for _, k := range sorted {
			if !skip.MatchString(k) {
				compare(diffs, fields, path+"."+k, av[k], bv[k], skip)
			}
		}
	case []any:
		bv, ok := b.([]any)
		if !ok || len(av) != len(bv) {
			*diffs = append(*diffs, fmt.Sprintf("%s: %d items vs %v", path, len(av), b))
			return
		}
		for i := range av {
			compare(diffs, fields, fmt.Sprintf("%s[%d]", path, i), av[i], bv[i], skip)
		}
	default:
		*fields++
		if !reflect.DeepEqual(a, b) {
			*diffs = append(*diffs, fmt.Sprintf("%s: %v vs %v", path, a, b))
		}
	}
}
