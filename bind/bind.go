// Package bind is the last stage of memgate's read path: it decides whether
// memories may justify a tool call. A memory can enter a model's context
// without being allowed to steer an action: only memories admitted in this
// task, without forbidToolBinding and with enough authority for the tool's
// risk, are accepted as justification, and an argument whose value comes only
// from a memory that may not steer tools (a recipient, a URL, a path, an
// account number) is flagged as tainted even when that memory is not cited.
package bind

import (
	"fmt"
	"regexp"
	"slices"
	"sort"
	"strings"

	"github.com/memgate/memgate/admit"
	"github.com/memgate/memgate/memory"
)

// ToolCall is a tool call the model proposes.
type ToolCall struct {
	Name string         `json:"name"`
	Risk admit.ToolRisk `json:"risk"`
	Args map[string]any `json:"args,omitempty"`
}

// Verdict is what may be done with a tool call.
type Verdict string

// Verdicts, least to most restrictive.
const (
	Allow               Verdict = "allow"
	RequireConfirmation Verdict = "require_confirmation"
	DenyCall            Verdict = "deny"
)

var verdictOrder = []Verdict{Allow, RequireConfirmation, DenyCall}

// Reason codes of binding decisions.
const (
	ReasonJustified           = "justified_by_admitted_memory"
	ReasonNoMemory            = "no_memory_justification"
	ReasonNotDecided          = "justification_not_decided_in_task"
	ReasonNotAdmitted         = "justification_not_admitted"
	ReasonRevoked             = "justification_revoked"
	ReasonForbidden           = "justification_forbids_tool_binding"
	ReasonOnlyForbidden       = "only_non_bindable_justifications"
	ReasonBelowToolAuthority  = "justification_below_tool_authority"
	ReasonConfirmationPending = "justification_requires_confirmation"
	ReasonTaint               = "argument_taint"
)

// Justification is what the task's admission said about one memory cited to
// justify the call.
type Justification struct {
	MemoryID string
	// Decided is false when the memory was never a candidate in this task.
	Decided            bool
	Decision           admit.Decision
	Constraints        admit.Constraints
	EffectiveAuthority memory.Authority
	Text               string
	// Revoked is true when the memory, or one it was derived from, has
	// been revoked or forgotten since its decision, or the memory has
	// expired since: revocation wins over an earlier admission.
	Revoked bool
}

// Source is a memory decided in this task, with its text, used for the
// taint check.
type Source struct {
	MemoryID string
	Text     string
	Bindable bool
}

// Taint is an argument value found in a memory that may not steer tools and
// in no memory that may.
type Taint struct {
	Arg      string `json:"arg"`
	Value    string `json:"value"`
	MemoryID string `json:"memoryId"`
}

// Result is the binding decision.
type Result struct {
	Verdict Verdict  `json:"verdict"`
	Reasons []string `json:"reasons"`
	// Accepted are the justifications that were accepted.
	Accepted []string `json:"accepted,omitempty"`
	Tainted  []Taint  `json:"tainted,omitempty"`
}

func (r *Result) raise(v Verdict, reason string) {
	if slices.Index(verdictOrder, v) > slices.Index(verdictOrder, r.Verdict) {
		r.Verdict = v
	}
	if !slices.Contains(r.Reasons, reason) {
		r.Reasons = append(r.Reasons, reason)
	}
}

// MinAuthority is the authority a memory needs to justify a call of the given
// risk: user_confirmed for privileged tools, tool_verified for external side
// effects and local writes, anything for read-only.
func MinAuthority(r admit.ToolRisk) memory.Authority {
	switch r {
	case admit.RiskPrivileged:
		return memory.AuthorityUserConfirmed
	case admit.RiskExternalSideEffect, admit.RiskWritesLocal:
		return memory.AuthorityToolVerified
	}
	return ""
}

// Bindable reports whether a memory with this decision and constraints may
// justify tool calls at all.
func Bindable(d admit.Decision, c admit.Constraints) bool {
	return d.Injectable() && !c.ForbidToolBinding
}

// Decide applies the binding rule to a call, its justifications and the
// task's decided memories.
func Decide(call ToolCall, justs []Justification, sources []Source) Result {
	r := Result{Verdict: Allow}
	need := MinAuthority(call.Risk)
	forbiddenOnly := len(justs) > 0
	for _, j := range justs {
		switch {
		case !j.Decided:
			r.raise(DenyCall, ReasonNotDecided)
			forbiddenOnly = false
		case !j.Decision.Injectable():
			r.raise(DenyCall, ReasonNotAdmitted)
			forbiddenOnly = false
		case j.Revoked:
			r.raise(DenyCall, ReasonRevoked)
			forbiddenOnly = false
		case j.Constraints.ForbidToolBinding:
			// Not accepted; judged below if nothing else justifies the call.
			if !slices.Contains(r.Reasons, ReasonForbidden) {
				r.Reasons = append(r.Reasons, ReasonForbidden)
			}
		default:
			forbiddenOnly = false
			if need != "" && j.EffectiveAuthority.Rank() < need.Rank() {
				r.raise(DenyCall, ReasonBelowToolAuthority)
				continue
			}
			if j.Constraints.RequireUserConfirmation {
				r.raise(RequireConfirmation, ReasonConfirmationPending)
			}
			r.Accepted = append(r.Accepted, j.MemoryID)
		}
	}
	if forbiddenOnly {
		switch call.Risk {
		case admit.RiskPrivileged:
			r.raise(DenyCall, ReasonOnlyForbidden)
		default:
			r.raise(RequireConfirmation, ReasonOnlyForbidden)
		}
	}
	if r.Tainted = taint(call.Args, sources); len(r.Tainted) > 0 {
		r.raise(DenyCall, ReasonTaint)
	}
	if len(r.Reasons) == 0 {
		if len(justs) == 0 {
			r.Reasons = append(r.Reasons, ReasonNoMemory)
		} else {
			r.Reasons = append(r.Reasons, ReasonJustified)
		}
	}
	return r
}

// Decided is a memory decided in the task, as Judge needs it.
type Decided struct {
	MemoryID           string
	Text               string
	Decision           admit.Decision
	Constraints        admit.Constraints
	EffectiveAuthority memory.Authority
	// Revoked: the memory, or one it was derived from, is revoked or
	// forgotten now, whatever its decision was.
	Revoked bool
}

// WithRevoked adds the user's revoked memories that the task did not decide
// to decided: a revoked memory is excluded in every task, so its values taint
// arguments even when the task never retrieved it.
func WithRevoked(decided []Decided, revoked []memory.Memory) []Decided {
	seen := make(map[string]bool, len(decided))
	for _, d := range decided {
		seen[d.MemoryID] = true
	}
	for _, m := range revoked {
		if m.Revoked && !seen[m.ID] {
			decided = append(decided, Decided{MemoryID: m.ID, Text: m.Text, Decision: admit.Deny, Revoked: true})
		}
	}
	return decided
}

// Judge decides a call from the ids that justify it and every memory decided
// in the task: it builds the justifications (ids not among decided are not
// decided in the task) and the taint sources, then applies Decide.
func Judge(call ToolCall, justifiedBy []string, decided []Decided) Result {
	byID := make(map[string]*Decided, len(decided))
	sources := make([]Source, len(decided))
	for i := range decided {
		d := &decided[i]
		byID[d.MemoryID] = d
		sources[i] = Source{MemoryID: d.MemoryID, Text: d.Text, Bindable: Bindable(d.Decision, d.Constraints) && !d.Revoked}
	}
	justs := make([]Justification, len(justifiedBy))
	for i, id := range justifiedBy {
		j := Justification{MemoryID: id}
		if d, ok := byID[id]; ok {
			j.Decided, j.Decision, j.Constraints, j.EffectiveAuthority, j.Text, j.Revoked = true, d.Decision, d.Constraints, d.EffectiveAuthority, d.Text, d.Revoked
		}
		justs[i] = j
	}
	return Decide(call, justs, sources)
}

// valuePattern finds the kinds of values that steer tool calls: e-mail
// addresses, URLs, host names, file paths, and long digit runs (accounts,
// phone numbers, claim numbers).
var valuePattern = regexp.MustCompile(`(?i)[a-z0-9._%+-]+@[a-z0-9.-]+\.[a-z]{2,}` +
	`|[a-z][a-z0-9+.-]*://[^\s"'<>]+` +
	`|(?:~|\.{1,2})?/[\w.-]+(?:/[\w.-]+)+` +
	`|\b(?:[a-z0-9-]+\.)+(?:com|net|org|io|dev|example|co|uk|de|fr|app)\b` +
	`|\b\d(?:[\d -]{4,}\d)\b`)

// Values extracts the steering values of a text, normalised (lower case,
// digits without separators, trailing punctuation removed).
func Values(text string) []string {
	var out []string
	for _, v := range valuePattern.FindAllString(text, -1) {
		out = append(out, normalize(v))
	}
	return out
}

func normalize(v string) string {
	v = strings.TrimRight(strings.ToLower(v), ".,;:!?)")
	if strings.IndexFunc(v, func(r rune) bool { return r < '0' || r > '9' }) == -1 {
		return v
	}
	digits := strings.Map(func(r rune) rune {
		if r == ' ' || r == '-' {
			return -1
		}
		return r
	}, v)
	if strings.IndexFunc(digits, func(r rune) bool { return r < '0' || r > '9' }) == -1 {
		return digits
	}
	return v
}

// MinVerbatimTaint is the shortest argument value checked verbatim against
// memory text, beside the extracted values: an address or a file name that
// no pattern knows is still caught when it was copied from a memory.
const MinVerbatimTaint = 8

// taint finds argument values that occur in a non-bindable memory and in no
// bindable one: extracted values (addresses, URLs, paths, numbers), and whole
// argument strings of MinVerbatimTaint characters or more.
func taint(args map[string]any, sources []Source) []Taint {
	if len(args) == 0 || len(sources) == 0 {
		return nil
	}
	var out []Taint
	walkArgs("", args, func(path, val string) {
		v := strings.ToLower(strings.Join(strings.Fields(val), " "))
		if len(v) < MinVerbatimTaint {
			return
		}
		from, inBound := "", false
		for _, s := range sources {
			if !strings.Contains(strings.ToLower(strings.Join(strings.Fields(s.Text), " ")), v) {
				continue
			}
			if s.Bindable {
				inBound = true
				break
			}
			if from == "" {
				from = s.MemoryID
			}
		}
		if from != "" && !inBound {
			out = append(out, Taint{Arg: path, Value: v, MemoryID: from})
		}
	})
	// An argument found both verbatim and as an extracted value is one
	// taint, reported once.
	for _, t := range valueTaint(args, sources) {
		if !slices.ContainsFunc(out, func(o Taint) bool { return o.Arg == t.Arg && o.Value == t.Value }) {
			out = append(out, t)
		}
	}
	return out
}

// valueTaint is the extracted-value half of taint.
func valueTaint(args map[string]any, sources []Source) []Taint {
	bound := map[string]bool{}
	unbound := map[string]string{} // value -> first memory id
	for _, s := range sources {
		for _, v := range Values(s.Text) {
			if s.Bindable {
				bound[v] = true
			} else if _, ok := unbound[v]; !ok {
				unbound[v] = s.MemoryID
			}
		}
	}
	var out []Taint
	walkArgs("", args, func(path, val string) {
		for _, v := range Values(val) {
			if id, ok := unbound[v]; ok && !bound[v] {
				out = append(out, Taint{Arg: path, Value: v, MemoryID: id})
			}
		}
	})
	sort.Slice(out, func(i, j int) bool { return out[i].Arg+out[i].Value < out[j].Arg+out[j].Value })
	return out
}

// walkArgs calls fn for every string leaf of a JSON-like argument tree, with
// its path (a.b[2]).
func walkArgs(path string, v any, fn func(path, val string)) {
	switch x := v.(type) {
	case string:
		fn(path, x)
	case map[string]any:
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			p := k
			if path != "" {
				p = path + "." + k
			}
			walkArgs(p, x[k], fn)
		}
	case []any:
		for i, e := range x {
			walkArgs(fmt.Sprintf("%s[%d]", path, i), e, fn)
		}
	case fmt.Stringer:
		fn(path, x.String())
	}
}
