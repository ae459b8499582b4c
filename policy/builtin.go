// Package policy is memgate's hard policy envelope: the absolute boundaries
// that no learned model may override (other user, revoked, expired, …), the
// tunable built-in rules, and operators' own rules written as CEL expressions
// in a policy file. Evaluation is deterministic and does no I/O.
//
// When several rules fire, the most restrictive decision wins and every fired
// rule's reason is kept.
package policy

import (
	"slices"
	"time"

	"github.com/memgate/memgate/admit"
	"github.com/memgate/memgate/memory"
)

// Builtins are the tunable built-in rules: the decision each imposes when it
// fires. They can be made stricter than their defaults, never laxer. The hard
// boundaries (revoked, derived from revoked or forgotten, other user, other
// workspace, audience, expired, superseded, below required authority) always
// deny and are not listed here because they cannot be tuned.
type Builtins struct {
	// CrossProject: a memory of another project. Default rank_down.
	CrossProject admit.Decision `yaml:"crossProject,omitempty" json:"crossProject,omitempty"`
	// LowAuthorityHighRisk: a model-inferred, external or unknown-source
	// memory in a task with external_side_effect or privileged tools.
	// Default admit_summary_only, always with requireCitation,
	// requireUserConfirmation and forbidToolBinding.
	LowAuthorityHighRisk admit.Decision `yaml:"lowAuthorityHighRisk,omitempty" json:"lowAuthorityHighRisk,omitempty"`
	// RestrictedOutsideDomain: a restricted memory in a task of another
	// domain. Default deny.
	RestrictedOutsideDomain admit.Decision `yaml:"restrictedOutsideDomain,omitempty" json:"restrictedOutsideDomain,omitempty"`
	// RestrictedExternal: a restricted memory in a task with
	// external_side_effect or privileged tools. Default deny.
	RestrictedExternal admit.Decision `yaml:"restrictedExternal,omitempty" json:"restrictedExternal,omitempty"`
}

// DefaultBuiltins are the built-in rules' default decisions.
var DefaultBuiltins = Builtins{
	CrossProject:            admit.RankDown,
	LowAuthorityHighRisk:    admit.AdmitSummaryOnly,
	RestrictedOutsideDomain: admit.Deny,
	RestrictedExternal:      admit.Deny,
}

// HardReasons are the reasons of the boundaries that always deny.
var HardReasons = []admit.Reason{
	admit.ReasonRevoked, admit.ReasonRevokedSource, admit.ReasonForgottenSource,
	admit.ReasonCrossUser, admit.ReasonCrossWorkspace, admit.ReasonAudience,
	admit.ReasonExpired, admit.ReasonSuperseded, admit.ReasonBelowRequiredAuthority,
}

var lowAuthorityConstraints = admit.Constraints{RequireCitation: true, RequireUserConfirmation: true, ForbidToolBinding: true}

// evaluateBuiltins applies the envelope's built-in rules.
func evaluateBuiltins(b *Builtins, actx *admit.Context, c *admit.Candidate, r *admit.Result, now time.Time) {
	m := &c.Memory
	deny := func(reason admit.Reason) { r.Restrict(admit.Deny, reason, admit.Constraints{}) }

	if m.Revoked {
		deny(admit.ReasonRevoked)
	}
	if len(c.Lineage.RevokedAncestors) > 0 {
		deny(admit.ReasonRevokedSource)
	}
	if len(c.Lineage.ForgottenAncestors) > 0 {
		deny(admit.ReasonForgottenSource)
	}
	if m.UserID != actx.UserID {
		deny(admit.ReasonCrossUser)
	}
	if otherScope(actx.WorkspaceID, m.WorkspaceID) {
		deny(admit.ReasonCrossWorkspace)
	}
	if len(m.Audience) > 0 && !inAudience(actx.Principal, m.Audience) {
		deny(admit.ReasonAudience)
	}
	if !m.ExpiresAt.IsZero() && !now.Before(m.ExpiresAt) {
		deny(admit.ReasonExpired)
	}
	if len(m.SupersededBy) > 0 {
		deny(admit.ReasonSuperseded)
	}
	eff := c.Lineage.EffectiveAuthority
	if actx.RequiredAuthority != "" && eff.Rank() < actx.RequiredAuthority.Rank() {
		deny(admit.ReasonBelowRequiredAuthority)
	}
	if otherScope(actx.ProjectID, m.ProjectID) {
		r.Restrict(b.CrossProject, admit.ReasonCrossProject, admit.Constraints{})
	}
	if eff.Low() && actx.ToolRisk.High() {
		r.Restrict(b.LowAuthorityHighRisk, admit.ReasonLowAuthorityHighRisk, lowAuthorityConstraints)
	}
	if m.Classification == memory.ClassRestricted {
		if otherScope(actx.Domain, m.Domain) {
			r.Restrict(b.RestrictedOutsideDomain, admit.ReasonRestrictedOutside, admit.Constraints{ForbidToolBinding: true})
		}
		if actx.ToolRisk.High() {
			r.Restrict(b.RestrictedExternal, admit.ReasonRestrictedExternal, admit.Constraints{ForbidToolBinding: true, RequireUserConfirmation: true})
		}
	}
}

// otherScope reports a mismatch on one scope axis. A memory unscoped on the
// axis belongs to all of the user's scopes, and a task without the axis set
// does not restrict it: neither is a mismatch.
func otherScope(task, mem string) bool { return task != "" && mem != "" && task != mem }

// inAudience reports whether the principal is named in aud, by id or by one
// of its roles ("role:NAME").
func inAudience(p admit.Principal, aud []string) bool {
	if slices.Contains(aud, p.ID) {
		return true
	}
	for _, role := range p.Roles {
		if slices.Contains(aud, "role:"+role) {
			return true
		}
	}
	return false
}
