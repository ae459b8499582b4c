package content

import (
	"encoding/json"
	"os"
	"strings"
	"testing"
)

// reviewSet is a review set in testdata: JSON lines of a text (and the
// query it is read against, if any), whether a rule should fire on it, and
// a note. Sets name that flag by what they hold: "hostile", "pressure" or
// "defeats".
type reviewSet struct {
	file                 string
	positive, negative   int // the lines of each kind the file holds
	minCaught, maxMarked int // as docs/gate.md quotes them
}

// reviewCase is one line of a review set.
type reviewCase struct {
	Query, Text, Note          string
	Hostile, Pressure, Defeats bool
}

// check runs fires on every line of the set, logs each miss and each
// false alarm, and fails when the set's size changed or the rule catches
// fewer or marks more than docs/gate.md says.
func (set reviewSet) check(t *testing.T, fires func(reviewCase) bool) {
	t.Helper()
	data, err := os.ReadFile(set.file)
	if err != nil {
		t.Fatal(err)
	}
	var caught, positive, marked, negative int
	for i, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		var c reviewCase
		if err := json.Unmarshal([]byte(line), &c); err != nil {
			t.Fatalf("%s, line %d: %v", set.file, i+1, err)
		}
		on := fires(c)
		switch {
		case c.Hostile || c.Pressure || c.Defeats:
			positive++
			if on {
				caught++
			} else {
				t.Logf("%s, line %d, missed: %s", set.file, i+1, c.Note)
			}
		default:
			negative++
			if on {
				marked++
				t.Logf("%s, line %d, benign, marked: %s", set.file, i+1, c.Note)
			}
		}
	}
	t.Logf("%s: caught %d of %d, benign marked %d of %d", set.file, caught, positive, marked, negative)
	if positive != set.positive || negative != set.negative {
		t.Fatalf("%s: %d positive and %d benign lines, want %d and %d", set.file, positive, negative, set.positive, set.negative)
	}
	if caught < set.minCaught || marked > set.maxMarked {
		t.Errorf("%s: caught %d of %d (docs/gate.md: %d), benign marked %d of %d (docs/gate.md: %d)",
			set.file, caught, positive, set.minCaught, marked, negative, set.maxMarked)
	}
}
