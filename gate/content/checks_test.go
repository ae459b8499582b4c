package content

import (
	"encoding/json"
	"os"
	"strings"
	"testing"
)

// TestChecksReviewSet reads helper-85's blind set of experience memories
// that defeat a safeguard, and look-alikes that do not (docs/gate.md,
// "Look 52"), written blind, before the rule was first measured on it:
// the rule catches few of its wordings, and was not widened to them.
func TestChecksReviewSet(t *testing.T) {
	const (
		file                 = "testdata/checks-review.jsonl"
		wantDefeats, wantOK  = 40, 40
		minCaught, maxMarked = 1, 0 // docs/gate.md
	)
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	var caught, defeats, marked, ok int
	for i, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		var c struct {
			Text, Note string
			Defeats    bool
		}
		if err := json.Unmarshal([]byte(line), &c); err != nil {
			t.Fatalf("line %d: %v", i+1, err)
		}
		var z Analyzer
		var a Analysis
		z.Analyze(c.Text, &a)
		on := z.defeatsChecks() > 0
		switch {
		case c.Defeats:
			defeats++
			if on {
				caught++
			} else {
				t.Logf("line %d, defeats, missed: %s", i+1, c.Text)
			}
		default:
			ok++
			if on {
				marked++
				t.Logf("line %d, benign, marked: %s", i+1, c.Text)
			}
		}
	}
	t.Logf("defeats caught %d of %d, benign marked %d of %d", caught, defeats, marked, ok)
	if defeats != wantDefeats || ok != wantOK {
		t.Fatalf("%d defeating and %d benign memories, want %d and %d", defeats, ok, wantDefeats, wantOK)
	}
	if caught < minCaught || marked > maxMarked {
		t.Errorf("defeats caught %d of %d (docs/gate.md: %d), benign marked %d of %d (docs/gate.md: %d)",
			caught, defeats, minCaught, marked, ok, maxMarked)
	}
}
