package content

import "testing"

// TestPressureReviewSets reads two review sets of memories that press for
// flattery or agreement, and look-alikes that do not (docs/gate.md, "Look
// 52"): helper-83's, written blind before the rule was, and helper-84's,
// written against the rule's first version to break it. The rule was
// mended on the misses of both, so both are dev data.
func TestPressureReviewSets(t *testing.T) {
	for _, set := range []reviewSet{
		{"testdata/pressure-review.jsonl", 70, 70, 57, 1},
		{"testdata/pressure-review2.jsonl", 40, 80, 16, 16},
	} {
		set.check(t, func(c reviewCase) bool { return analyze(c.Text).Cues[AgreementPressure] > 0 })
	}
}
