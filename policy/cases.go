package policy

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/memgate/memgate/admit"
	"github.com/memgate/memgate/memory"
)

// Case is one offline test of a policy: a task context, a candidate memory
// with what the store would know of its lineage, and the expected outcome.
// Cases files are YAML or JSON lists of cases (`memgate policy test`).
type Case struct {
	Name    string        `json:"name"`
	Context admit.Context `json:"context"`
	Memory  memory.Memory `json:"memory"`
	// Similarity is the candidate's retrieval similarity (default 0).
	Similarity float64 `json:"similarity,omitempty"`
	// Lineage describes the memory's ancestors. EffectiveAuthority
	// defaults to the memory's own sourceAuthority.
	Lineage struct {
		EffectiveAuthority memory.Authority `json:"effectiveAuthority,omitempty"`
		RevokedAncestors   []string         `json:"revokedAncestors,omitempty"`
		ForgottenAncestors []string         `json:"forgottenAncestors,omitempty"`
		// SupersededBy names live memories that replace this one (the
		// store derives it; memory.supersededBy is ignored on input).
		SupersededBy []string `json:"supersededBy,omitempty"`
	} `json:"lineage"`
	Expect struct {
		Decision admit.Decision `json:"decision"`
		// Reasons that must all be present (others may be too).
		Reasons     []admit.Reason     `json:"reasons,omitempty"`
		Constraints *admit.Constraints `json:"constraints,omitempty"`
	} `json:"expect"`
}

// Candidate builds the admission candidate the case describes.
func (c *Case) Candidate() admit.Candidate {
	l := admit.Lineage{EffectiveAuthority: c.Lineage.EffectiveAuthority,
		RevokedAncestors: c.Lineage.RevokedAncestors, ForgottenAncestors: c.Lineage.ForgottenAncestors}
	if l.EffectiveAuthority == "" {
		l.EffectiveAuthority = c.Memory.SourceAuthority
	}
	m := c.Memory
	m.SupersededBy = c.Lineage.SupersededBy
	return admit.Candidate{Memory: m, Similarity: c.Similarity, Lineage: l}
}

// ParseCases reads a YAML or JSON list of cases, checking each.
func ParseCases(data []byte) ([]Case, error) {
	var raw []any
	if err := decodeYAML(data, &raw, false); err != nil && !errors.Is(err, io.EOF) {
		return nil, fmt.Errorf("cases: %w", err)
	}
	if len(raw) == 0 {
		return nil, errors.New("cases: no cases (want a list)")
	}
	var cases []Case
	var errs []error
	for i, item := range raw {
		js, err := json.Marshal(item)
		if err != nil {
			errs = append(errs, fmt.Errorf("cases[%d]: %v", i, err))
			continue
		}
		dec := json.NewDecoder(bytes.NewReader(js))
		dec.DisallowUnknownFields()
		var c Case
		if err := dec.Decode(&c); err != nil {
			errs = append(errs, fmt.Errorf("cases[%d]: %v", i, err))
			continue
		}
		label := fmt.Sprintf("cases[%d] %q", i, c.Name)
		if err := c.Memory.Validate(); err != nil {
			errs = append(errs, fmt.Errorf("%s: memory: %s", label, strings.ReplaceAll(err.Error(), "\n", "; ")))
		}
		if err := c.Context.Validate(); err != nil {
			errs = append(errs, fmt.Errorf("%s: %v", label, err))
		}
		if _, err := admit.ParseDecision(string(c.Expect.Decision)); err != nil {
			errs = append(errs, fmt.Errorf("%s: expect.decision: %v", label, err))
		}
		cases = append(cases, c)
	}
	return cases, errors.Join(errs...)
}

// CaseResult is the outcome of one case.
type CaseResult struct {
	Name   string
	Got    admit.Result
	Passed bool
	// Problem says what differed, when the case failed.
	Problem string
}

// RunCases evaluates every case against p.
func (p *Policy) RunCases(cases []Case) []CaseResult {
	out := make([]CaseResult, len(cases))
	for i := range cases {
		c := &cases[i]
		cands := []admit.Candidate{c.Candidate()}
		rs := []admit.Result{{MemoryID: c.Memory.ID, Decision: admit.Admit}}
		p.Evaluate(&c.Context, cands, rs)
		r := rs[0]
		if len(r.Reasons) == 0 {
			r.Reasons = []admit.Reason{admit.ReasonAdmitted}
		}
		cr := CaseResult{Name: c.Name, Got: r, Passed: true}
		var probs []string
		if r.Decision != c.Expect.Decision {
			probs = append(probs, fmt.Sprintf("decision %s, want %s", r.Decision, c.Expect.Decision))
		}
		for _, want := range c.Expect.Reasons {
			if !slices.Contains(r.Reasons, want) {
				probs = append(probs, fmt.Sprintf("reason %s missing (got %v)", want, r.Reasons))
			}
		}
		if c.Expect.Constraints != nil && *c.Expect.Constraints != r.Constraints {
			probs = append(probs, fmt.Sprintf("constraints %+v, want %+v", r.Constraints, *c.Expect.Constraints))
		}
		if len(probs) > 0 {
			cr.Passed, cr.Problem = false, strings.Join(probs, "; ")
		}
		out[i] = cr
	}
	return out
}
