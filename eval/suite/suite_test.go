package suite

import (
	"bytes"
	"strings"
	"testing"

	"github.com/memgate/memgate/eval"
)

func TestGenerateIsDeterministicAndValid(t *testing.T) {
	a, b := Generate(7, 3), Generate(7, 3)
	for split := range a {
		var x, y bytes.Buffer
		Encode(&x, a[split])
		Encode(&y, b[split])
		if x.String() != y.String() {
			t.Fatalf("split %s differs between runs with the same seed", split)
		}
		// Every generated case passes the public decoder.
		cases, warns, err := eval.Read(&x)
		if err != nil || len(warns) > 0 || len(cases) != len(a[split]) {
			t.Fatalf("split %s: %d cases, warnings %v, err %v", split, len(cases), warns, err)
		}
	}
	var x, y bytes.Buffer
	Encode(&x, a[Test])
	Encode(&y, Generate(8, 3)[Test])
	if x.String() == y.String() {
		t.Fatal("different seeds gave the same test split")
	}
}

func TestNoUnfilledPlaceholders(t *testing.T) {
	for _, cases := range Generate(3, 2) {
		for _, c := range cases {
			for _, m := range c.Memories {
				if strings.ContainsAny(m.Text, "{}") {
					t.Fatalf("case %s memory %s has a placeholder: %q", c.ID, m.ID, m.Text)
				}
			}
			if strings.ContainsAny(c.Query, "{}") {
				t.Fatalf("case %s query has a placeholder: %q", c.ID, c.Query)
			}
		}
	}
}

func TestSplitsAreByFamily(t *testing.T) {
	fams := Families()
	splitOf := map[string]string{}
	cats := map[string]map[string]bool{}
	for _, f := range fams {
		if _, dup := splitOf[f.Name]; dup {
			t.Fatalf("family %s listed twice", f.Name)
		}
		splitOf[f.Name] = f.Split
		if cats[f.Split] == nil {
			cats[f.Split] = map[string]bool{}
		}
		cats[f.Split][f.Category] = true
	}
	for split, cases := range Generate(1, 2) {
		for _, c := range cases {
			if splitOf[c.Family] != split || !strings.HasPrefix(c.ID, c.Family) {
				t.Fatalf("case %s of family %s in split %s", c.ID, c.Family, split)
			}
		}
	}
	// Every threat category has test families unseen in training.
	for _, f := range fams {
		if !cats[Test][f.Category] {
			t.Errorf("category %s has no test family", f.Category)
		}
		if !cats[Train][f.Category] {
			t.Errorf("category %s has no train family", f.Category)
		}
	}
	if len(fams) < 70 {
		t.Errorf("only %d families", len(fams))
	}
}
