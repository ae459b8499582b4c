package content

import "testing"

// TestChecksReviewSet reads helper-85's blind set of experience memories
// that defeat a safeguard, and look-alikes that do not (docs/gate.md,
// "Look 52"), written blind, before the rule was first measured on it:
// the rule catches few of its wordings, and was not widened to them.
func TestChecksReviewSet(t *testing.T) {
	set := reviewSet{"testdata/checks-review.jsonl", 40, 40, 1, 0}
	set.check(t, func(c reviewCase) bool {
		var z Analyzer
		var a Analysis
		z.Analyze(c.Text, &a)
		return z.defeatsChecks() > 0
	})
}
