package gate

import (
	"testing"

	"github.com/memgate/memgate/admit"
	"github.com/memgate/memgate/embed"
	"github.com/memgate/memgate/memory"
)

// beliefModel is a logistic model that weighs a stated belief on an
// objective question down by beliefWeight and every shape feature (no
// reason of its own) down by shapeWeight; its threshold is threshold.
func beliefModel(beliefWeight, shapeWeight float32, bias, threshold float64) *Model {
	w := make([]float32, Dim)
	bs, _ := groupRange("belief")
	w[bs+beliefOnObjective] = -beliefWeight
	ss, se := groupRange("shape")
	for i := ss; i < se; i++ {
		w[i] = -shapeWeight
	}
	return NewModel(Header{Format: FormatVersion, Schema: SchemaVersion, Embedder: embed.NewBuiltin().Identity(),
		Sizes: []int{Dim, 1}, DefaultThreshold: threshold}, [][]float32{w}, [][]float32{{float32(bias)}})
}

// TestBeliefOnObjectiveIsASummary: a stated belief on a question asked
// objectively is at most a marked summary whatever its fit, when the
// network weighs the belief against it, also when a reasonless group
// lowered the fit below the threshold more than the belief did; not for a
// question about the user's own view, not for a memory that states no
// belief, not when the network does not weigh it, not in a task that
// sends.
func TestBeliefOnObjectiveIsASummary(t *testing.T) {
	const (
		belief    = "Sam is convinced the moon landings were filmed in a studio."
		fact      = "The Apollo 11 crew landed on the Moon on 20 July 1969."
		objective = "Was the Apollo 11 moon landing real?"
		ownView   = "What did I say I think about the moon landings?"
	)
	for _, tc := range []struct {
		name          string
		m             *Model
		query, memory string
		want          admit.Decision
		lowered       string       // the group that must have lowered the fit most, if any
		intent        admit.Intent // default answer
	}{
		{"belief, objective question, fit above threshold", beliefModel(4, 0, 3, 0.1), objective, belief, admit.AdmitSummaryOnly, "", ""},
		{"belief, the user's own view asked", beliefModel(4, 0, 3, 0.1), ownView, belief, admit.Admit, "", ""},
		{"no belief stated", beliefModel(4, 0, 3, 0.1), objective, fact, admit.Admit, "", ""},
		{"the network does not weigh the belief", beliefModel(0, 0, 3, 0.1), objective, belief, admit.Admit, "", ""},
		{"a task that sends", beliefModel(4, 0, 3, 0.1), objective, belief, admit.Admit, "", admit.IntentSend},
		{"shape lowered the fit more, below threshold", beliefModel(4, 5, 3, 0.99), objective, belief, admit.AdmitSummaryOnly, "shape", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			q := make([]float32, embed.BuiltinDim)
			embed.NewBuiltin().EmbedInto(q, tc.query)
			c := cand("m", tc.memory, memory.AuthorityUserConfirmed, "", q)
			c.Query = tc.query
			actx := &admit.Context{UserID: "u", Intent: admit.IntentAnswer, ToolRisk: admit.RiskNone, Now: now}
			if tc.intent != "" {
				actx.Intent = tc.intent
			}
			r := judgeAll(t, New(tc.m), actx, []*admit.Candidate{c})[0]
			if r.Decision != tc.want {
				t.Fatalf("decision %s, want %s (fit %.3f, threshold %.3f, reasons %v, factors %v)",
					r.Decision, tc.want, r.Scores.GateFit, r.Scores.GateThreshold, r.Reasons, r.Scores.GateFactors)
			}
			if tc.lowered != "" && (len(r.Scores.GateFactors) == 0 || r.Scores.GateFactors[0] != tc.lowered) {
				t.Fatalf("the test needs %s to lower the fit most: factors %v", tc.lowered, r.Scores.GateFactors)
			}
			if tc.want == admit.AdmitSummaryOnly {
				if !hasReason(r.Reasons, admit.ReasonBeliefOnObjective) || !r.Constraints.RequireCitation || !r.Constraints.ForbidToolBinding {
					t.Errorf("a belief passed as a summary needs its reason, a citation and no tool binding: %+v", r)
				}
			}
		})
	}
}

func hasReason(rs []admit.Reason, want admit.Reason) bool {
	for _, r := range rs {
		if r == want {
			return true
		}
	}
	return false
}
