// Package admit is the second stage of memgate's read path: it decides, for
// each retrieved candidate, whether it may enter the model's context for this
// task, and under which constraints. A hard policy envelope runs first
// (package policy) and a gate after it; the gate may only lower a decision.
// Every decision carries at least one stable, machine-readable reason.
package admit

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/memgate/memgate/internal/enum"
	"github.com/memgate/memgate/memory"
)

// Intent is what the task is for.
type Intent string

// Intents.
const (
	IntentAnswer    Intent = "answer"
	IntentPlan      Intent = "plan"
	IntentWrite     Intent = "write"
	IntentSend      Intent = "send"
	IntentExecute   Intent = "execute"
	IntentConfigure Intent = "configure"
)

// Intents lists every valid intent.
var Intents = []Intent{IntentAnswer, IntentPlan, IntentWrite, IntentSend, IntentExecute, IntentConfigure}

// ToolRisk is how much harm the task's tools can do.
type ToolRisk string

// Tool risks, least to most dangerous.
const (
	RiskNone               ToolRisk = "none"
	RiskReadOnly           ToolRisk = "read_only"
	RiskWritesLocal        ToolRisk = "writes_local"
	RiskExternalSideEffect ToolRisk = "external_side_effect"
	RiskPrivileged         ToolRisk = "privileged"
)

// ToolRisks lists every valid tool risk, least dangerous first.
var ToolRisks = []ToolRisk{RiskNone, RiskReadOnly, RiskWritesLocal, RiskExternalSideEffect, RiskPrivileged}

// Rank orders tool risks; higher is more dangerous.
func (r ToolRisk) Rank() int { return slices.Index(ToolRisks, r) }

// High reports whether r can change the world outside the agent:
// external_side_effect or privileged.
func (r ToolRisk) High() bool { return r == RiskExternalSideEffect || r == RiskPrivileged }

// ParseIntent parses an intent name; empty means answer.
func ParseIntent(s string) (Intent, error) {
	if s == "" {
		return IntentAnswer, nil
	}
	return parse(s, Intents)
}

// ParseToolRisk parses a tool risk name; empty means none.
func ParseToolRisk(s string) (ToolRisk, error) {
	if s == "" {
		return RiskNone, nil
	}
	return parse(s, ToolRisks)
}

// ParseDecision parses a decision name.
func ParseDecision(s string) (Decision, error) { return parse(s, Decisions) }

func parse[T ~string](s string, allowed []T) (T, error) { return enum.Parse(s, allowed) }

// Principal is who asks: in server mode it comes from the authenticated API
// key, never from the request body.
type Principal struct {
	ID    string   `json:"id"`
	Roles []string `json:"roles,omitempty"`
}

// Context is the task a set of candidates is judged for.
type Context struct {
	TaskID      string    `json:"taskId,omitempty"`
	Principal   Principal `json:"principal"`
	UserID      string    `json:"userId"`
	WorkspaceID string    `json:"workspaceId,omitempty"`
	ProjectID   string    `json:"projectId,omitempty"`
	Domain      string    `json:"domain,omitempty"`
	Intent      Intent    `json:"intent,omitempty"`
	ToolRisk    ToolRisk  `json:"toolRisk,omitempty"`
	// RequiredAuthority is the minimum authority a memory needs in this
	// task; empty means any.
	RequiredAuthority memory.Authority `json:"requiredAuthority,omitempty"`
	// Now is the time expiry is judged at; zero means the engine's clock.
	Now time.Time `json:"now,omitzero"`
	// Withdrawn are the texts of the user's revoked memories, filled in by
	// the engine and by the pipeline (from candidates denied as revoked),
	// never by callers: the gate treats a memory that restates one like
	// the revoked original.
	Withdrawn []string `json:"-"`
}

// Validate checks the context's fields and fills defaults: intent answer,
// tool risk none, and the principal's id from the user when it is unset.
// It puts the ids (taskId, userId, workspaceId, projectId, domain, the
// principal's id and roles) in Unicode NFC form first, as memory.Normalize
// does for memories, and refuses ids with whitespace, control or invisible
// characters (memory.CheckID; scope labels may contain inner spaces,
// memory.CheckLabel), and a Now outside memory.MinTime to memory.MaxTime.
func (c *Context) Validate() error {
	var errs fieldErrors
	add := func(err error) {
		if err != nil {
			errs = append(errs, err)
		}
	}
	bad := func(field, problem string) { errs = append(errs, &memory.FieldError{Field: field, Problem: problem}) }
	c.TaskID, c.UserID = memory.NormalizeID(c.TaskID), memory.NormalizeID(c.UserID)
	c.WorkspaceID, c.ProjectID = memory.NormalizeID(c.WorkspaceID), memory.NormalizeID(c.ProjectID)
	c.Domain, c.Principal.ID = memory.NormalizeID(c.Domain), memory.NormalizeID(c.Principal.ID)
	c.Principal.Roles = memory.NormalizeIDs(c.Principal.Roles)
	if c.UserID == "" {
		bad("userId", "is required")
	}
	add(memory.CheckID("userId", c.UserID))
	add(memory.CheckLabel("workspaceId", c.WorkspaceID))
	add(memory.CheckLabel("projectId", c.ProjectID))
	add(memory.CheckLabel("domain", c.Domain))
	add(memory.CheckID("taskId", c.TaskID))
	add(memory.CheckID("principal.id", c.Principal.ID))
	if len(c.Principal.Roles) > memory.MaxRefs {
		bad("principal.roles", fmt.Sprintf("has %d entries; the limit is %d", len(c.Principal.Roles), memory.MaxRefs))
	}
	for i, r := range c.Principal.Roles[:min(len(c.Principal.Roles), memory.MaxRefs)] {
		name := fmt.Sprintf("principal.roles[%d]", i)
		if r == "" {
			bad(name, "is empty")
			continue
		}
		add(memory.CheckID(name, r))
	}
	add(memory.CheckTime("now", c.Now))
	if c.Principal.ID == "" {
		c.Principal.ID = c.UserID
	}
	if c.Intent == "" {
		c.Intent = IntentAnswer
	} else if _, err := ParseIntent(string(c.Intent)); err != nil {
		bad("intent", err.Error())
	}
	if c.ToolRisk == "" {
		c.ToolRisk = RiskNone
	} else if _, err := ParseToolRisk(string(c.ToolRisk)); err != nil {
		bad("toolRisk", err.Error())
	}
	if _, err := memory.ParseAuthority(string(c.RequiredAuthority)); err != nil {
		bad("requiredAuthority", err.Error())
	}
	if len(errs) > 0 {
		return fmt.Errorf("admission context: %w", errs)
	}
	return nil
}

// Decision is what may be done with a candidate in this task.
type Decision string

// Decisions, from least to most restrictive.
const (
	// Admit: the memory may enter the context and justify tool calls.
	Admit Decision = "admit"
	// AdmitSummaryOnly: a bounded, clearly marked summary may enter the
	// context; it must not be acted on.
	AdmitSummaryOnly Decision = "admit_summary_only"
	// RankDown: kept out of the context unless the caller opts in for a
	// low-risk answer.
	RankDown Decision = "rank_down"
	// Quarantine: kept out and queued for a reviewer.
	Quarantine Decision = "quarantine"
	// Deny: kept out.
	Deny Decision = "deny"
)

// Decisions lists every decision, least restrictive first.
var Decisions = []Decision{Admit, AdmitSummaryOnly, RankDown, Quarantine, Deny}

// Severity orders decisions; higher is more restrictive.
func (d Decision) Severity() int { return slices.Index(Decisions, d) }

// Injectable reports whether the decision lets the memory into the context
// by default.
func (d Decision) Injectable() bool { return d == Admit || d == AdmitSummaryOnly }

// Constraints travel with an admitted memory to the context builder and the
// tool binder.
type Constraints struct {
	RequireCitation         bool `json:"requireCitation,omitempty"`
	RequireUserConfirmation bool `json:"requireUserConfirmation,omitempty"`
	ForbidToolBinding       bool `json:"forbidToolBinding,omitempty"`
}

// Merge adds the constraints of o.
func (c *Constraints) Merge(o Constraints) {
	c.RequireCitation = c.RequireCitation || o.RequireCitation
	c.RequireUserConfirmation = c.RequireUserConfirmation || o.RequireUserConfirmation
	c.ForbidToolBinding = c.ForbidToolBinding || o.ForbidToolBinding
}

// Reason is a stable machine-readable code explaining a decision. The codes
// are part of memgate's public interface: they are never renamed.
type Reason string

// Reason codes of the hard policy envelope.
const (
	ReasonAdmitted               Reason = "within_policy"
	ReasonRevoked                Reason = "memory_revoked"
	ReasonRevokedSource          Reason = "revoked_source"
	ReasonForgottenSource        Reason = "forgotten_source"
	ReasonCrossUser              Reason = "cross_user_scope"
	ReasonCrossWorkspace         Reason = "cross_workspace_scope"
	ReasonCrossProject           Reason = "cross_project_scope"
	ReasonAudience               Reason = "audience_denied"
	ReasonExpired                Reason = "expired"
	ReasonSuperseded             Reason = "superseded"
	ReasonBelowRequiredAuthority Reason = "below_required_authority"
	ReasonLowAuthorityHighRisk   Reason = "low_authority_high_tool_risk"
	ReasonRestrictedOutside      Reason = "restricted_outside_domain"
	ReasonRestrictedExternal     Reason = "restricted_external_side_effect"
)

// Reason codes of the gate and of operator rules. The gate lowers a decision
// only with a content reason (instruction_in_content,
// belief_on_objective_query, newer_memory_on_subject, topic_mismatch,
// restates_revoked_memory, sensitive_content_for_task,
// conflicting_answers); gate_low_fit accompanies each when the fit is
// below its threshold (conflicting_answers, newer_memory_on_subject for a
// replaced holder of a role, and instruction_in_content for an instruction
// that addresses the agent, a request from outside or outside code that
// acts, are rules that apply whatever the fit). gate_uncertain marks a low-fit memory the
// gate found no content reason against, or could not judge
// (gate_out_of_range), in a task with side effects: it passes only as a
// summary that needs the user's confirmation.
const (
	ReasonGateLowFit         Reason = "gate_low_fit"
	ReasonInstructionContent Reason = "instruction_in_content"
	ReasonBeliefOnObjective  Reason = "belief_on_objective_query"
	ReasonNewerOnSubject     Reason = "newer_memory_on_subject"
	ReasonTopicMismatch      Reason = "topic_mismatch"
	ReasonRestatesRevoked    Reason = "restates_revoked_memory"
	ReasonSensitiveForTask   Reason = "sensitive_content_for_task"
	ReasonConflictingAnswers Reason = "conflicting_answers"
	ReasonGateUncertain      Reason = "gate_uncertain"
	ReasonGateOutOfRange     Reason = "gate_out_of_range"
	// ReasonGateDomainMismatch and ReasonInstructionLike were emitted by
	// the first gate (model schema 1); they stay defined because reason
	// codes are never renamed or reused.
	ReasonGateDomainMismatch Reason = "gate_domain_mismatch"
	ReasonInstructionLike    Reason = "instruction_like_content"
	operatorReasonPrefix            = "policy:"
)

// OperatorReason is the reason recorded when an operator rule with the given
// reason code fires: "policy:" + code.
func OperatorReason(code string) Reason { return Reason(operatorReasonPrefix + code) }

// Scores are the numbers that led to a decision.
type Scores struct {
	Similarity float64 `json:"similarity"`
	Lexical    float64 `json:"lexical,omitempty"`
	Retrieval  float64 `json:"retrieval,omitempty"`
	// EffectiveAuthority is the lowest authority of the memory and all its
	// lineage ancestors, the authority decisions use.
	EffectiveAuthority memory.Authority `json:"effectiveAuthority"`
	// GateFit is the learned gate's fit score in [0,1]; absent when no
	// learned gate scored the memory.
	GateFit float64 `json:"gateFit,omitempty"`
	// GateThreshold is the fit the task's bucket requires.
	GateThreshold float64 `json:"gateThreshold,omitempty"`
	// GateFactors name the feature groups that most lowered the fit, when
	// the gate lowered the decision.
	GateFactors []string `json:"gateFactors,omitempty"`
	// GateScored is true when the learned gate computed GateFit (a fit of
	// 0 is a score too).
	GateScored bool `json:"gateScored,omitempty"`
	// GateInstruction is the gate's estimate that the memory is an
	// instruction addressed to the agent, in [0,1].
	GateInstruction float64 `json:"gateInstruction,omitempty"`
	// GateOutOfRange is true when the memory or task lies outside what the
	// gate was trained on (an unseen bucket, a text far longer than any in
	// training): the gate then defers to the envelope.
	GateOutOfRange bool `json:"gateOutOfRange,omitempty"`
}

// Result is the decision for one candidate.
type Result struct {
	MemoryID    string      `json:"memoryId"`
	Decision    Decision    `json:"decision"`
	Reasons     []Reason    `json:"reasons"`
	Constraints Constraints `json:"constraints"`
	Scores      Scores      `json:"scores"`
}

// Restrict moves the result to d if d is more restrictive, merges cs and
// records reason. Reasons of rules that did not change the decision are kept
// too: every rule that fired is visible.
func (r *Result) Restrict(d Decision, reason Reason, cs Constraints) {
	if d.Severity() > r.Decision.Severity() {
		r.Decision = d
	}
	r.Constraints.Merge(cs)
	if !slices.Contains(r.Reasons, reason) {
		r.Reasons = append(r.Reasons, reason)
	}
}

// Lineage is what the store knows about a memory's ancestors.
type Lineage struct {
	// EffectiveAuthority is the lowest authority among the memory and all
	// its ancestors (unknown counts as lowest).
	EffectiveAuthority memory.Authority
	// RevokedAncestors and ForgottenAncestors name ancestors that were
	// revoked or forgotten.
	RevokedAncestors   []string
	ForgottenAncestors []string
}

// Candidate is one memory to judge, with what retrieval and the store said
// of it.
type Candidate struct {
	Memory     memory.Memory
	Similarity float64
	Lexical    float64
	Retrieval  float64
	Lineage    Lineage
	// Query and QueryVector describe the task's query; Vector is the
	// memory's embedding. A learned gate needs them; they may be empty
	// for a gate that does not (QueryVector is shared by all candidates).
	Query       string
	QueryVector []float32
	Vector      []float32
}

// fieldErrors are every problem of one input, each a *memory.FieldError,
// rendered on one line; errors.As finds each.
type fieldErrors []error

// Error lists the problems, separated by semicolons.
func (es fieldErrors) Error() string {
	parts := make([]string, len(es))
	for i, e := range es {
		parts[i] = e.Error()
	}
	return strings.Join(parts, "; ")
}

// Unwrap returns the problems, for errors.Is and errors.As.
func (es fieldErrors) Unwrap() []error { return es }
