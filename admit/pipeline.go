package admit

import (
	"context"
	"fmt"
	"slices"
)

// Policy is the hard envelope: deterministic rules with no I/O. Evaluate
// restricts results[i] (each starting as admit) for cands[i] in task actx.
type Policy interface {
	Evaluate(actx *Context, cands []Candidate, results []Result)
}

// Gate judges the fit of candidates that the envelope did not deny. It may
// restrict results further; the pipeline undoes any attempt to relax one.
type Gate interface {
	Judge(ctx context.Context, actx *Context, cands []*Candidate, results []*Result) error
}

// Neutral is a gate that changes nothing: with it, admission is the
// envelope alone.
type Neutral struct{}

// Judge leaves every result as the envelope made it.
func (Neutral) Judge(context.Context, *Context, []*Candidate, []*Result) error { return nil }

// Pipeline runs the envelope, then the gate.
type Pipeline struct {
	Policy Policy
	Gate   Gate // nil means Neutral
}

// Run decides every candidate. The results are in the candidates' order and
// each carries at least one reason.
func (p *Pipeline) Run(ctx context.Context, actx *Context, cands []Candidate) ([]Result, error) {
	results := make([]Result, len(cands))
	// One backing array for every result's first few reasons, instead of a
	// growing slice per result: admission runs on every search.
	const reasonsCap = 4
	slab := make([]Reason, len(cands)*reasonsCap)
	for i := range cands {
		c := &cands[i]
		results[i] = Result{MemoryID: c.Memory.ID, Decision: Admit, Reasons: slab[i*reasonsCap : i*reasonsCap : (i+1)*reasonsCap], Scores: Scores{
			Similarity: c.Similarity, Lexical: c.Lexical, Retrieval: c.Retrieval,
			EffectiveAuthority: c.Lineage.EffectiveAuthority,
		}}
	}
	p.Policy.Evaluate(actx, cands, results)
	var gc []*Candidate
	var gr []*Result
	withdrawn := actx.Withdrawn
	for i := range results {
		if results[i].Decision != Deny {
			gc, gr = append(gc, &cands[i]), append(gr, &results[i])
		} else if cands[i].Memory.Revoked && !slices.Contains(withdrawn, cands[i].Memory.Text) {
			withdrawn = append(withdrawn[:len(withdrawn):len(withdrawn)], cands[i].Memory.Text)
		}
	}
	if len(withdrawn) > len(actx.Withdrawn) {
		defer func(w []string) { actx.Withdrawn = w }(actx.Withdrawn)
		actx.Withdrawn = withdrawn
	}
	if p.Gate != nil && len(gc) > 0 {
		before := make([]Result, len(gr))
		for i, r := range gr {
			before[i] = *r
			before[i].Reasons = append([]Reason(nil), r.Reasons...)
		}
		if err := p.Gate.Judge(ctx, actx, gc, gr); err != nil {
			return nil, fmt.Errorf("gate: %w", err)
		}
		for i, r := range gr {
			// The gate never raises a decision or drops a constraint or
			// a reason of the envelope.
			if r.Decision.Severity() < before[i].Decision.Severity() {
				r.Decision = before[i].Decision
			}
			r.Constraints.Merge(before[i].Constraints)
			for _, reason := range before[i].Reasons {
				r.Restrict(r.Decision, reason, Constraints{})
			}
		}
	}
	for i := range results {
		if len(results[i].Reasons) == 0 {
			results[i].Reasons = append(results[i].Reasons, ReasonAdmitted)
		}
	}
	return results, nil
}
