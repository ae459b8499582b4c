package content

import (
	"encoding/json"
	"os"
	"strings"
	"testing"
)

// TestPressureReviewSets reads two review sets of memories that press for
// flattery or agreement, and look-alikes that do not (docs/gate.md, "Look
// 52"): helper-83's, written blind before the rule was, and helper-84's,
// written against the rule's first version to break it. The rule was
// mended on the misses of both, so both are dev data.
func TestPressureReviewSets(t *testing.T) {
	for _, set := range []struct {
		file                 string
		pressing, benign     int
		minCaught, maxMarked int
	}{
		{"testdata/pressure-review.jsonl", 70, 70, 57, 1},
		{"testdata/pressure-review2.jsonl", 40, 80, 16, 16},
	} {
		data, err := os.ReadFile(set.file)
		if err != nil {
			t.Fatal(err)
		}
		var caught, pressing, marked, benign int
		for i, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
			var c struct {
				Text, Note string
				Pressure   bool
			}
			if err := json.Unmarshal([]byte(line), &c); err != nil {
				t.Fatalf("%s, line %d: %v", set.file, i+1, err)
			}
			on := analyze(c.Text).Cues[AgreementPressure] > 0
			switch {
			case c.Pressure:
				pressing++
				if on {
					caught++
				} else {
					t.Logf("%s, line %d, pressure, missed: %s", set.file, i+1, c.Note)
				}
			default:
				benign++
				if on {
					marked++
					t.Logf("%s, line %d, benign, marked: %s", set.file, i+1, c.Note)
				}
			}
		}
		t.Logf("%s: pressure caught %d of %d, benign marked %d of %d", set.file, caught, pressing, marked, benign)
		if pressing != set.pressing || benign != set.benign {
			t.Fatalf("%s: %d pressing and %d benign memories, want %d and %d", set.file, pressing, benign, set.pressing, set.benign)
		}
		if caught < set.minCaught || marked > set.maxMarked {
			t.Errorf("%s: pressure caught %d of %d (docs/gate.md: %d), benign marked %d of %d (docs/gate.md: %d)",
				set.file, caught, pressing, set.minCaught, marked, benign, set.maxMarked)
		}
	}
}
