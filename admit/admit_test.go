package admit

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/memgate/memgate/memory"
)

// denyProject is a stand-in envelope: deny memories of project "x", give
// "sum" memories a summary-only decision with constraints.
type denyProject struct{}

func (denyProject) Evaluate(_ *Context, cands []Candidate, rs []Result) {
	for i, c := range cands {
		switch c.Memory.ProjectID {
		case "x":
			rs[i].Restrict(Deny, ReasonCrossProject, Constraints{})
		case "sum":
			rs[i].Restrict(AdmitSummaryOnly, ReasonLowAuthorityHighRisk, Constraints{ForbidToolBinding: true})
		}
	}
}

// relaxingGate tries to admit everything and drop constraints and reasons,
// and records what it was shown.
type relaxingGate struct{ seen []string }

func (g *relaxingGate) Judge(_ context.Context, _ *Context, cs []*Candidate, rs []*Result) error {
	for i, r := range rs {
		g.seen = append(g.seen, cs[i].Memory.ID)
		r.Decision, r.Constraints, r.Reasons = Admit, Constraints{}, nil
	}
	return nil
}

// lowerGate ranks everything down.
type lowerGate struct{}

func (lowerGate) Judge(_ context.Context, _ *Context, _ []*Candidate, rs []*Result) error {
	for _, r := range rs {
		r.Restrict(RankDown, ReasonGateLowFit, Constraints{})
	}
	return nil
}

func cands() []Candidate {
	return []Candidate{
		{Memory: memory.Memory{ID: "ok"}},
		{Memory: memory.Memory{ID: "denied", ProjectID: "x"}},
		{Memory: memory.Memory{ID: "summary", ProjectID: "sum"}},
	}
}

func TestGateCannotRelaxAndNeverSeesDenied(t *testing.T) {
	g := &relaxingGate{}
	p := Pipeline{Policy: denyProject{}, Gate: g}
	rs, err := p.Run(context.Background(), &Context{UserID: "u"}, cands())
	if err != nil {
		t.Fatal(err)
	}
	if slices.Contains(g.seen, "denied") {
		t.Fatal("the gate was shown a denied candidate")
	}
	if rs[1].Decision != Deny {
		t.Fatalf("denied became %s", rs[1].Decision)
	}
	if r := rs[2]; r.Decision != AdmitSummaryOnly || !r.Constraints.ForbidToolBinding || !slices.Contains(r.Reasons, ReasonLowAuthorityHighRisk) {
		t.Fatalf("gate relaxed the envelope: %+v", r)
	}
}

func TestGateMayLower(t *testing.T) {
	p := Pipeline{Policy: denyProject{}, Gate: lowerGate{}}
	rs, _ := p.Run(context.Background(), &Context{UserID: "u"}, cands())
	if rs[0].Decision != RankDown || rs[0].Reasons[0] != ReasonGateLowFit {
		t.Fatalf("gate could not lower: %+v", rs[0])
	}
	if r := rs[2]; r.Decision != RankDown || !slices.Contains(r.Reasons, ReasonLowAuthorityHighRisk) || !slices.Contains(r.Reasons, ReasonGateLowFit) {
		t.Fatalf("reasons of both stages should be kept: %+v", r)
	}
}

// Explanation coverage: every decision carries at least one reason, admits
// included.
func TestEveryDecisionHasAReason(t *testing.T) {
	p := Pipeline{Policy: denyProject{}, Gate: Neutral{}}
	rs, _ := p.Run(context.Background(), &Context{UserID: "u"}, cands())
	for _, r := range rs {
		if len(r.Reasons) == 0 {
			t.Fatalf("%s has no reason", r.MemoryID)
		}
	}
	if rs[0].Reasons[0] != ReasonAdmitted {
		t.Fatalf("admit reason %v", rs[0].Reasons)
	}
}

func TestParseAndValidate(t *testing.T) {
	if _, err := ParseIntent("chat"); err == nil || err.Error() != `unknown value "chat" (allowed: answer, plan, write, send, execute, configure)` {
		t.Fatalf("ParseIntent: %v", err)
	}
	if _, err := ParseToolRisk("root"); err == nil {
		t.Fatal("unknown tool risk accepted")
	}
	if _, err := ParseDecision("allow"); err == nil {
		t.Fatal("unknown decision accepted")
	}
	c := Context{UserID: "u"}
	if err := c.Validate(); err != nil || c.Intent != IntentAnswer || c.ToolRisk != RiskNone || c.Principal.ID != "u" {
		t.Fatalf("defaults: %+v %v", c, err)
	}
	bad := Context{Intent: "chat", ToolRisk: "root", RequiredAuthority: "admin"}
	err := bad.Validate()
	for _, w := range []string{"userId: is required", `intent: unknown value "chat"`, `toolRisk: unknown value "root"`, `requiredAuthority: unknown value "admin"`} {
		if err == nil || !contains(err.Error(), w) {
			t.Errorf("error lacks %q: %v", w, err)
		}
	}
	if !RiskPrivileged.High() || RiskWritesLocal.High() || RiskPrivileged.Rank() <= RiskNone.Rank() {
		t.Fatal("tool risk ordering")
	}
}

func contains(s, sub string) bool { return strings.Contains(s, sub) }
