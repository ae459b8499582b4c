package policy

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"reflect"
	"regexp"
	"strings"
	"time"

	"cel.dev/cel-go/cel"
	"cel.dev/cel-go/checker"
	"cel.dev/cel-go/common/types"
	"cel.dev/cel-go/ext"
	"cel.dev/cel-go/interpreter"
	"github.com/goccy/go-yaml"

	"github.com/memgate/memgate/admit"
	"github.com/memgate/memgate/memory"
)

// MaxRuleCost bounds the estimated worst-case cost of one rule's expression,
// in CEL cost units. A rule above it is rejected when the policy is loaded.
// The estimate is a true upper bound because every input a rule can see is
// bounded by validation (text by memory.MaxTextBytes, lists by
// memory.MaxRefs), so evaluation needs no run-time cost tracking.
const MaxRuleCost = 50_000

// Version is the policy file format version this build reads.
const Version = 1

// File is the policy file format (YAML or JSON).
type File struct {
	Version  int       `yaml:"version" json:"version"`
	Builtins Builtins  `yaml:"builtins,omitempty" json:"builtins,omitempty"`
	Rules    []RuleDef `yaml:"rules,omitempty" json:"rules,omitempty"`
}

// RuleDef is one operator rule as written in a policy file.
type RuleDef struct {
	// Name identifies the rule in errors and audits.
	Name        string `yaml:"name" json:"name"`
	Description string `yaml:"description,omitempty" json:"description,omitempty"`
	// When is a CEL expression over `memory` and `ctx` that yields a bool.
	When string `yaml:"when" json:"when"`
	// Decision is imposed when the rule fires: admit_summary_only,
	// rank_down, quarantine or deny. It may be omitted when the rule only
	// adds constraints. Rules can only restrict, so admit is refused.
	Decision admit.Decision `yaml:"decision,omitempty" json:"decision,omitempty"`
	// Reason is the code recorded when the rule fires, as "policy:REASON".
	Reason string `yaml:"reason" json:"reason"`
	// Constraints are added when the rule fires: requireCitation,
	// requireUserConfirmation, forbidToolBinding.
	Constraints []string `yaml:"constraints,omitempty" json:"constraints,omitempty"`
}

// MemoryView is what a rule sees of a candidate as `memory`.
type MemoryView struct {
	ID                 string   `cel:"id"`
	Text               string   `cel:"text"`
	UserID             string   `cel:"userId"`
	WorkspaceID        string   `cel:"workspaceId"`
	ProjectID          string   `cel:"projectId"`
	Domain             string   `cel:"domain"`
	SourceAuthority    string   `cel:"sourceAuthority"`
	EffectiveAuthority string   `cel:"effectiveAuthority"`
	AuthorityRank      int      `cel:"authorityRank"` // of effectiveAuthority: 0 unknown … 4 system
	Kind               string   `cel:"kind"`
	Classification     string   `cel:"classification"`
	AgeHours           float64  `cel:"ageHours"`
	HasExpiry          bool     `cel:"hasExpiry"`
	HoursToExpiry      float64  `cel:"hoursToExpiry"` // 0 without expiry
	LineageRefs        []string `cel:"lineageRefs"`
	Audience           []string `cel:"audience"`
	Similarity         float64  `cel:"similarity"`
}

// ContextView is what a rule sees of the task as `ctx`.
type ContextView struct {
	TaskID            string   `cel:"taskId"`
	PrincipalID       string   `cel:"principalId"`
	Roles             []string `cel:"roles"`
	UserID            string   `cel:"userId"`
	WorkspaceID       string   `cel:"workspaceId"`
	ProjectID         string   `cel:"projectId"`
	Domain            string   `cel:"domain"`
	Intent            string   `cel:"intent"`
	ToolRisk          string   `cel:"toolRisk"`
	ToolRiskRank      int      `cel:"toolRiskRank"` // 0 none … 4 privileged
	RequiredAuthority string   `cel:"requiredAuthority"`
}

// Policy is a loaded, compiled envelope. It is safe for concurrent use.
type Policy struct {
	builtins Builtins
	rules    []*rule
	// Clock is used when a context has no Now; default time.Now.
	Clock func() time.Time
}

type rule struct {
	def         RuleDef
	prg         cel.Program
	reason      admit.Reason
	constraints admit.Constraints
}

// Default returns the envelope with built-in rules only.
func Default() *Policy { return &Policy{builtins: DefaultBuiltins, Clock: time.Now} }

// Builtins returns the built-in rules' decisions in force.
func (p *Policy) Builtins() Builtins { return p.builtins }

// Rules returns the operator rules as written.
func (p *Policy) Rules() []RuleDef {
	out := make([]RuleDef, len(p.rules))
	for i, r := range p.rules {
		out[i] = r.def
	}
	return out
}

// LoadFile reads and compiles a policy file.
func LoadFile(path string) (*Policy, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("policy: %w", err)
	}
	p, err := Parse(data)
	if err != nil {
		return nil, fmt.Errorf("policy %s: %w", path, err)
	}
	return p, nil
}

// Parse compiles a policy from YAML or JSON. Every problem is reported:
// unknown keys, bad decisions, an attempt to relax a built-in rule, and CEL
// syntax, type and cost errors with the rule's name and the position in its
// expression.
func Parse(data []byte) (*Policy, error) {
	var f File
	if err := decodeYAML(data, &f, true); err != nil {
		if errors.Is(err, io.EOF) || len(bytes.TrimSpace(data)) == 0 {
			return nil, errors.New("empty policy file (want at least `version: 1`)")
		}
		return nil, err
	}
	return Compile(f)
}

// decodeYAML decodes YAML (or JSON) into v, rejecting unknown keys when
// strict. The YAML library can panic on some malformed input; that becomes
// an error here, since a policy or cases file is outside input.
func decodeYAML(data []byte, v any, strict bool) (err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("syntax: malformed YAML (the parser failed: %v)", p)
		}
	}()
	var opts []yaml.DecodeOption
	if strict {
		opts = append(opts, yaml.Strict())
	}
	if err := yaml.NewDecoder(bytes.NewReader(data), opts...).Decode(v); err != nil {
		if errors.Is(err, io.EOF) {
			return err
		}
		return fmt.Errorf("syntax: %s", yaml.FormatError(err, false, true))
	}
	return nil
}

var reasonPattern = regexp.MustCompile(`^[a-z][a-z0-9_]{0,63}$`)

// Compile checks and compiles a policy. All problems are returned together.
func Compile(f File) (*Policy, error) {
	var errs []error
	if f.Version != Version {
		errs = append(errs, fmt.Errorf("version: is %d; this build reads version %d", f.Version, Version))
	}
	b := DefaultBuiltins
	for _, t := range []struct {
		name string
		set  admit.Decision
		dst  *admit.Decision
	}{
		{"crossProject", f.Builtins.CrossProject, &b.CrossProject},
		{"lowAuthorityHighRisk", f.Builtins.LowAuthorityHighRisk, &b.LowAuthorityHighRisk},
		{"restrictedOutsideDomain", f.Builtins.RestrictedOutsideDomain, &b.RestrictedOutsideDomain},
		{"restrictedExternal", f.Builtins.RestrictedExternal, &b.RestrictedExternal},
	} {
		if t.set == "" {
			continue
		}
		if _, err := admit.ParseDecision(string(t.set)); err != nil {
			errs = append(errs, fmt.Errorf("builtins.%s: %v", t.name, err))
			continue
		}
		if t.set.Severity() < t.dst.Severity() {
			errs = append(errs, fmt.Errorf("builtins.%s: %s would relax the default %s; built-in rules can only be made stricter", t.name, t.set, *t.dst))
			continue
		}
		*t.dst = t.set
	}
	env, err := newEnv()
	if err != nil {
		return nil, err
	}
	p := &Policy{builtins: b, Clock: time.Now}
	names := map[string]bool{}
	for i, def := range f.Rules {
		r, rerrs := compileRule(env, def)
		label := fmt.Sprintf("rules[%d]", i)
		if def.Name != "" {
			label = fmt.Sprintf("rule %q", def.Name)
			if names[def.Name] {
				rerrs = append(rerrs, errors.New("name: repeats an earlier rule's name"))
			}
			names[def.Name] = true
		}
		for _, e := range rerrs {
			errs = append(errs, fmt.Errorf("%s: %w", label, e))
		}
		if len(rerrs) == 0 {
			p.rules = append(p.rules, r)
		}
	}
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	return p, nil
}

func newEnv() (*cel.Env, error) {
	return cel.NewEnv(
		ext.NativeTypes(ext.ParseStructTags(true), reflect.TypeFor[MemoryView](), reflect.TypeFor[ContextView]()),
		cel.Variable("memory", cel.ObjectType("policy.MemoryView")),
		cel.Variable("ctx", cel.ObjectType("policy.ContextView")),
		ext.Strings(),
	)
}

func compileRule(env *cel.Env, def RuleDef) (*rule, []error) {
	var errs []error
	if def.Name == "" {
		errs = append(errs, errors.New("name: is required"))
	}
	if !reasonPattern.MatchString(def.Reason) {
		errs = append(errs, fmt.Errorf("reason: %q must be lower_snake_case, 1-64 characters", def.Reason))
	}
	r := &rule{def: def, reason: admit.OperatorReason(def.Reason)}
	switch def.Decision {
	case "":
		if len(def.Constraints) == 0 {
			errs = append(errs, errors.New("decision: is required unless the rule only adds constraints"))
		}
	case admit.Admit:
		errs = append(errs, errors.New("decision: admit would relax nothing; rules can only restrict (admit_summary_only, rank_down, quarantine, deny) or add constraints"))
	default:
		if _, err := admit.ParseDecision(string(def.Decision)); err != nil {
			errs = append(errs, fmt.Errorf("decision: %v", err))
		}
	}
	for _, c := range def.Constraints {
		switch c {
		case "requireCitation":
			r.constraints.RequireCitation = true
		case "requireUserConfirmation":
			r.constraints.RequireUserConfirmation = true
		case "forbidToolBinding":
			r.constraints.ForbidToolBinding = true
		default:
			errs = append(errs, fmt.Errorf("constraints: unknown %q (allowed: requireCitation, requireUserConfirmation, forbidToolBinding)", c))
		}
	}
	if strings.TrimSpace(def.When) == "" {
		return nil, append(errs, errors.New("when: is required"))
	}
	ast, iss := env.Compile(def.When)
	if iss.Err() != nil {
		return nil, append(errs, fmt.Errorf("when: %s", strings.TrimSpace(iss.Err().Error())))
	}
	if ast.OutputType() != cel.BoolType {
		return nil, append(errs, fmt.Errorf("when: yields %s; want bool", ast.OutputType()))
	}
	est, err := env.EstimateCost(ast, sizeEstimator{})
	if err != nil {
		return nil, append(errs, fmt.Errorf("when: estimate cost: %v", err))
	}
	if est.Max > MaxRuleCost {
		return nil, append(errs, fmt.Errorf("when: worst-case cost %d exceeds the limit %d; simplify the expression", est.Max, MaxRuleCost))
	}
	prg, err := env.Program(ast, cel.EvalOptions(cel.OptOptimize))
	if err != nil {
		return nil, append(errs, fmt.Errorf("when: %v", err))
	}
	r.prg = prg
	return r, errs
}

// sizeEstimator bounds the size of rule inputs for the static cost check:
// strings by the memory text limit, lists by the reference limit.
type sizeEstimator struct{}

// EstimateSize bounds strings by the text limit and lists by the reference limit.
func (sizeEstimator) EstimateSize(element checker.AstNode) *checker.SizeEstimate {
	if element.Type() != nil && element.Type().Kind() == types.ListKind {
		return &checker.SizeEstimate{Min: 0, Max: memory.MaxRefs}
	}
	return &checker.SizeEstimate{Min: 0, Max: memory.MaxTextBytes}
}

// EstimateCallCost defers to CEL's own call costs.
func (sizeEstimator) EstimateCallCost(function, overloadID string, target *checker.AstNode, args []checker.AstNode) *checker.CallEstimate {
	return nil
}

// Evaluate applies the built-in rules, then every operator rule, to each
// candidate's result. An operator rule that fails at run time (a type error on
// dynamic data, say) quarantines the memory: an envelope that cannot decide
// must not admit.
func (p *Policy) Evaluate(actx *admit.Context, cands []admit.Candidate, results []admit.Result) {
	now := actx.Now
	if now.IsZero() {
		now = p.Clock()
	}
	act := &activation{ctx: viewContext(actx), memory: &MemoryView{}}
	for i := range cands {
		c, r := &cands[i], &results[i]
		evaluateBuiltins(&p.builtins, actx, c, r, now)
		if len(p.rules) == 0 {
			continue
		}
		viewMemory(act.memory, c, now) // one view reused: rules finish before the next candidate
		for _, rl := range p.rules {
			out, _, err := rl.prg.Eval(act)
			if err != nil {
				r.Restrict(admit.Quarantine, admit.Reason("policy_error:"+rl.def.Name), admit.Constraints{})
				continue
			}
			if fired, ok := out.Value().(bool); ok && fired {
				d := rl.def.Decision
				if d == "" {
					d = admit.Admit
				}
				r.Restrict(d, rl.reason, rl.constraints)
			}
		}
	}
}

// activation resolves the two variables rules see without a map per
// candidate.
type activation struct {
	memory *MemoryView
	ctx    *ContextView
}

// ResolveName resolves memory and ctx.
func (a *activation) ResolveName(name string) (any, bool) {
	switch name {
	case "memory":
		return a.memory, true
	case "ctx":
		return a.ctx, true
	}
	return nil, false
}

// Parent returns nil: there is no enclosing activation.
func (a *activation) Parent() interpreter.Activation { return nil }

func viewMemory(v *MemoryView, c *admit.Candidate, now time.Time) {
	m := &c.Memory
	*v = MemoryView{
		ID: m.ID, Text: m.Text, UserID: m.UserID, WorkspaceID: m.WorkspaceID, ProjectID: m.ProjectID,
		Domain: m.Domain, SourceAuthority: string(m.SourceAuthority),
		EffectiveAuthority: string(c.Lineage.EffectiveAuthority), AuthorityRank: c.Lineage.EffectiveAuthority.Rank(),
		Kind: string(m.Kind), Classification: string(m.Classification),
		AgeHours: now.Sub(m.CreatedAt).Hours(), HasExpiry: !m.ExpiresAt.IsZero(),
		LineageRefs: nonNil(m.LineageRefs), Audience: nonNil(m.Audience), Similarity: c.Similarity,
	}
	if v.HasExpiry {
		v.HoursToExpiry = m.ExpiresAt.Sub(now).Hours()
	}
}

func viewContext(a *admit.Context) *ContextView {
	return &ContextView{
		TaskID: a.TaskID, PrincipalID: a.Principal.ID, Roles: nonNil(a.Principal.Roles), UserID: a.UserID,
		WorkspaceID: a.WorkspaceID, ProjectID: a.ProjectID, Domain: a.Domain, Intent: string(a.Intent),
		ToolRisk: string(a.ToolRisk), ToolRiskRank: a.ToolRisk.Rank(), RequiredAuthority: string(a.RequiredAuthority),
	}
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}
