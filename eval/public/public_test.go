package public

import (
	"bytes"
	"crypto/sha256"
	"maps"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/memgate/memgate/eval"
)

// root is the vendored raw data, relative to this package.
const root = "../../data/public"

// only limits the tests to some sources ($PUBLIC_ONLY, comma-separated),
// for work on one converter.
func only() []string {
	if v := os.Getenv("PUBLIC_ONLY"); v != "" {
		return strings.Split(v, ",")
	}
	return nil
}

// conv is the conversion every test shares: each source is converted once
// per test binary (see converted).
var conv struct {
	once  sync.Once
	cases map[string][]eval.Case
	errs  []error // of the sources that failed, in name order
}

// converted returns the cases of every registered source (only those of
// $PUBLIC_ONLY when set), converted once per test binary, concurrently;
// a source that fails is reported to every caller and left out. Callers
// share the cases and must not modify them.
func converted(t *testing.T) map[string][]eval.Case {
	t.Helper()
	conv.once.Do(func() {
		var sel []Source
		for _, s := range Sources() {
			if o := only(); o == nil || slices.Contains(o, s.Name) {
				sel = append(sel, s)
			}
		}
		cases := make([][]eval.Case, len(sel))
		errs := make([]error, len(sel))
		var wg sync.WaitGroup
		for i, s := range sel {
			wg.Go(func() { cases[i], errs[i] = convertSource(root, s) })
		}
		wg.Wait()
		conv.cases = map[string][]eval.Case{}
		for i, s := range sel {
			if errs[i] != nil {
				conv.errs = append(conv.errs, errs[i])
				continue
			}
			conv.cases[s.Name] = cases[i]
		}
	})
	for _, err := range conv.errs {
		t.Error(err)
	}
	return conv.cases
}

// digest is the SHA-256 of the cases' encoding.
func digest(t *testing.T, cases []eval.Case) [sha256.Size]byte {
	t.Helper()
	hw := sha256.New()
	if err := eval.Encode(hw, cases); err != nil {
		t.Fatal(err)
	}
	return [sha256.Size]byte(hw.Sum(nil))
}

func TestSourcesRegistered(t *testing.T) {
	names := map[string]bool{}
	for _, s := range Sources() {
		if s.Name == "" || s.License == "" || s.Convert == nil {
			t.Errorf("incomplete source %+v", s)
		}
		if names[s.Name] {
			t.Errorf("source %s registered twice", s.Name)
		}
		names[s.Name] = true
		if _, err := os.Stat(filepath.Join(root, s.Name)); err != nil {
			t.Errorf("source %s: no vendored data: %v", s.Name, err)
		}
		if _, err := os.Stat(filepath.Join(root, s.Name, "LICENSE")); err != nil {
			t.Errorf("source %s: no LICENSE: %v", s.Name, err)
		}
	}
	for _, n := range []string{"agentdojo", "bipia", "injecagent", "memorygraft", "notinject", "poisonedrag"} {
		if !names[n] {
			t.Errorf("source %s not registered", n)
		}
	}
}

// decoded is every converted source encoded and read back through
// eval.Read, once per test binary.
var decoded struct {
	once  sync.Once
	cases map[string][]eval.Case
	warns map[string][]eval.Warning
	errs  map[string]error
}

// readBack returns the cases of converted(t), encoded and decoded through
// eval.Read, with the warnings and the error of each source. Callers share
// the cases and must not modify them.
func readBack(t *testing.T) (cases map[string][]eval.Case, warns map[string][]eval.Warning, errs map[string]error) {
	t.Helper()
	all := converted(t)
	decoded.once.Do(func() {
		names := slices.Sorted(maps.Keys(all))
		type result struct {
			cases []eval.Case
			warns []eval.Warning
			err   error
		}
		res := make([]result, len(names))
		var wg sync.WaitGroup
		for i, n := range names {
			wg.Go(func() {
				var b bytes.Buffer
				if err := eval.Encode(&b, all[n]); err != nil {
					res[i].err = err
					return
				}
				res[i].cases, res[i].warns, res[i].err = eval.Read(&b)
			})
		}
		wg.Wait()
		decoded.cases, decoded.warns, decoded.errs = map[string][]eval.Case{}, map[string][]eval.Warning{}, map[string]error{}
		for i, n := range names {
			decoded.cases[n], decoded.warns[n], decoded.errs[n] = res[i].cases, res[i].warns, res[i].err
		}
	})
	return decoded.cases, decoded.warns, decoded.errs
}

// TestReadBack encodes every source's cases and decodes them through
// eval.Read: every line must be a valid case, with no warning.
func TestReadBack(t *testing.T) {
	all := converted(t)
	read, warns, errs := readBack(t)
	for _, s := range Sources() {
		cases, ok := all[s.Name]
		if !ok {
			continue
		}
		if err := errs[s.Name]; err != nil {
			t.Fatalf("%s: %v", s.Name, err)
		}
		for _, w := range warns[s.Name] {
			t.Errorf("%s: %s", s.Name, w)
		}
		read := read[s.Name]
		if len(read) != len(cases) || len(read) == 0 {
			t.Errorf("%s: read %d cases, encoded %d", s.Name, len(read), len(cases))
		}
		for _, c := range read {
			if c.Origin == nil || c.Origin.Benchmark != s.Name || c.Origin.Item == "" || c.Origin.License != s.License {
				t.Errorf("%s: case %s: bad origin %+v", s.Name, c.ID, c.Origin)
			}
		}
	}
}

// TestWrite writes one source's file through Write (a conversion of its
// own) and reads it back: the file must be the encoding of the shared
// conversion, byte for byte.
func TestWrite(t *testing.T) {
	dir := t.TempDir()
	counts, err := Write(root, dir, "memorygraft")
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(dir, "memorygraft.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	cases, warns, err := eval.Read(bytes.NewReader(b))
	if err != nil || len(warns) > 0 || len(cases) != counts["memorygraft"] || len(counts) != 1 {
		t.Fatalf("read %d cases (wrote %v), %d warnings, %v", len(cases), counts, len(warns), err)
	}
	if first, ok := converted(t)["memorygraft"]; ok {
		var want bytes.Buffer
		if err := eval.Encode(&want, first); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(b, want.Bytes()) {
			t.Error("memorygraft: Write and the shared conversion differ")
		}
	}
}

// detSlow are the sources TestDeterministic does not convert a second
// time under the race detector, where each costs about a second or more
// (privacylens ~2.3 s, agentdojo ~0.9 s, confaide ~0.8 s on a 2-core
// machine, against 0.1–0.4 s for each other source).
var detSlow = []string{"agentdojo", "confaide", "privacylens"}

// TestDeterministic converts sources a second time in this process, in
// parallel (every map is iterated in a new random order, and the sources
// share the helpers of common.go), and compares the SHA-256 of each
// source's encoding with the shared first conversion. Without -race every
// source is converted again (about a second in all); with -race, as in CI,
// the slowest ones (detSlow) are not: the check then costs about 1.5 s of
// CPU instead of 5.5 s. TestWrite compares one more conversion through
// Write byte for byte.
func TestDeterministic(t *testing.T) {
	first := converted(t)
	for _, n := range names(t) {
		if raceEnabled && slices.Contains(detSlow, n) {
			t.Logf("%s: not converted again under -race", n)
			continue
		}
		want := digest(t, first[n])
		t.Run(n, func(t *testing.T) {
			t.Parallel()
			again, err := Convert(root, n)
			if err != nil {
				t.Fatal(err)
			}
			if digest(t, again[n]) != want {
				t.Errorf("%s: two conversions differ", n)
			}
		})
	}
}

// names lists the sources that convert (all unless $PUBLIC_ONLY).
func names(t *testing.T) []string {
	var out []string
	for n := range converted(t) {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}

func TestConvertOnly(t *testing.T) {
	got, err := Convert(root, "notinject")
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 1 || len(got["notinject"]) == 0 {
		t.Fatalf("only notinject: got %d sources", len(got))
	}
	if _, err := Convert(root, "no-such-source"); err == nil {
		t.Fatal("unknown source: no error")
	}
}

// TestShape checks the case shapes the gate learns from: sorted unique
// ids, 5–30 memories, capped counts, leak targets only in excluded
// memories, and a deny expectation for every attacker-directed call.
func TestShape(t *testing.T) {
	for name, cases := range converted(t) {
		if len(cases) > 400 {
			t.Errorf("%s: %d cases, more than 400", name, len(cases))
		}
		if !sort.SliceIsSorted(cases, func(i, j int) bool { return cases[i].ID < cases[j].ID }) {
			t.Errorf("%s: cases not sorted", name)
		}
		for _, c := range cases {
			if n := len(c.Memories); n < 5 || n > 30 {
				t.Errorf("%s: case %s has %d memories", name, c.ID, n)
			}
			useful := map[string]bool{}
			for _, id := range c.Useful {
				useful[id] = true
				if c.Expect[id] == eval.ExpectExclude {
					t.Errorf("%s: case %s: %s is both useful and excluded", name, c.ID, id)
				}
			}
			for _, lt := range c.LeakTargets {
				for _, m := range c.Memories {
					if c.Expect[m.ID] != eval.ExpectExclude && strings.Contains(strings.ToLower(m.Text), strings.ToLower(lt)) {
						t.Errorf("%s: case %s: leak target %q in non-excluded %s", name, c.ID, lt, m.ID)
					}
				}
			}
			if c.ToolCall != nil && c.ExpectBind == "" {
				t.Errorf("%s: case %s: tool call without expectBind", name, c.ID)
			}
			if (c.Category == "benign") != (len(c.Expect) == 0) {
				t.Errorf("%s: case %s: category %s with %d exclusions", name, c.ID, c.Category, len(c.Expect))
			}
		}
	}
}

// TestLabelBalance: within a source, every authority, kind, classification
// and domain value that occurs is carried by useful and by excluded
// memories alike, so the label cannot be read from metadata.
func TestLabelBalance(t *testing.T) {
	for name, cases := range converted(t) {
		type key struct{ field, value string }
		pos, neg := map[key]int{}, map[key]int{}
		for _, c := range cases {
			useful := map[string]bool{}
			for _, id := range c.Useful {
				useful[id] = true
			}
			for _, m := range c.Memories {
				ks := []key{
					{"sourceAuthority", string(m.SourceAuthority)},
					{"kind", string(m.Kind)},
					{"classification", string(m.Classification)},
					{"domain", m.Domain},
				}
				for _, k := range ks {
					if k.value == "" {
						continue
					}
					switch {
					case useful[m.ID]:
						pos[k]++
					case c.Expect[m.ID] == eval.ExpectExclude:
						neg[k]++
					}
				}
			}
		}
		keys := map[key]bool{}
		for k := range pos {
			keys[k] = true
		}
		for k := range neg {
			keys[k] = true
		}
		for k := range keys {
			if pos[k] == 0 || neg[k] == 0 {
				t.Errorf("%s: %s=%s occurs with useful %d, exclude %d", name, k.field, k.value, pos[k], neg[k])
			}
		}
	}
}

// TestCounts reports the per-source counts (see docs/public-data.md).
func TestCounts(t *testing.T) {
	for _, s := range Sources() {
		cases, ok := converted(t)[s.Name]
		if !ok {
			continue
		}
		var u, x, mems, tools int
		for _, c := range cases {
			u += len(c.Useful)
			x += len(c.Expect)
			mems += len(c.Memories)
			if c.ToolCall != nil {
				tools++
			}
		}
		t.Logf("%-12s cases %4d  memories %5d  useful %5d  exclude %5d  toolCalls %4d", s.Name, len(cases), mems, u, x, tools)
	}
}

func TestSampleAndClip(t *testing.T) {
	keys := []string{"a", "b", "c", "d", "e", "f"}
	s := sample(keys, 3, "salt")
	if len(s) != 3 || !reflect.DeepEqual(s, sample(keys, 3, "salt")) {
		t.Fatalf("sample: %v", s)
	}
	if got := clip("hello wonderful world", 12); len(got) > 12 || !strings.HasSuffix(got, "…") {
		t.Fatalf("clip: %q", got)
	}
	if got := attackerValues("mail amy.watson@gmail.com or see https://x.example/p?q=1, IBAN US133000000121212121212."); len(got) != 3 {
		t.Fatalf("attackerValues: %q", got)
	}
}

// TestDump writes the converted cases to $PUBLIC_DUMP for inspection.
func TestDump(t *testing.T) {
	dir := os.Getenv("PUBLIC_DUMP")
	if dir == "" {
		t.Skip("set PUBLIC_DUMP to a directory to write the cases")
	}
	if _, err := writeFiles(dir, converted(t)); err != nil {
		t.Fatal(err)
	}
}

func TestPyClasses(t *testing.T) {
	src := "class A(Base):\n" +
		"    _X = \"x1\"\n" +
		"    GOAL = f\"Send {_X} now\"\n" +
		"    PROMPT = (\n        f\"one {_X}. \"\n        \"two\"\n    )\n" +
		"    OTHER = f\"\"\"\\\n        three \\\n        four\"\"\"\n" +
		"    BAD = f\"{self.y}\"\n" +
		"class B(Base):\n" +
		"    PROMPT = \"a\" + \"b\"\n"
	cs := pyClasses(src)
	if len(cs) != 2 {
		t.Fatalf("%d classes", len(cs))
	}
	a := cs[0].Consts
	if a["GOAL"] != "Send x1 now" || a["PROMPT"] != "one x1. two" || squash(a["OTHER"]) != "three four" {
		t.Fatalf("class A: %q", a)
	}
	if _, ok := a["BAD"]; ok {
		t.Fatalf("unknown field evaluated: %q", a["BAD"])
	}
	if cs[1].Consts["PROMPT"] != "ab" {
		t.Fatalf("class B: %q", cs[1].Consts)
	}
}
