// Package audit names the events of memgate's append-only audit trail, once,
// for the engine, every store and the command line: what was searched, how
// each candidate was decided, what was injected, which memories justified
// which tool call, what was revoked or forgotten, and the reviewers'
// verdicts.
package audit

import (
	"fmt"
	"strings"
)

// Kind is the kind of an audit event. The values are stored and are part of
// memgate's interface: they are never renamed.
type Kind string

// Event kinds.
const (
	Search    Kind = "search"    // a retrieval or a gate-only admission: query, context, top-k ids
	Decision  Kind = "decision"  // one candidate's decision, reasons, constraints and scores
	Injection Kind = "injection" // what a context built from an admission injected and omitted
	Binding   Kind = "binding"   // a tool call, its justifications, the verdict and taint
	Revoke    Kind = "revoke"    // a memory withdrawn, with the reason
	Forget    Kind = "forget"    // a memory deleted for good, with the reason
	Verdict   Kind = "verdict"   // a reviewer's verdict on a quarantined memory
)

// Kinds lists every kind, in the order of the read path.
var Kinds = []Kind{Search, Decision, Injection, Binding, Revoke, Forget, Verdict}

// ParseKind parses a kind; "" is the zero Kind (no filter).
func ParseKind(s string) (Kind, error) {
	if s == "" {
		return "", nil
	}
	for _, k := range Kinds {
		if string(k) == s {
			return k, nil
		}
	}
	names := make([]string, len(Kinds))
	for i, k := range Kinds {
		names[i] = string(k)
	}
	return "", fmt.Errorf("unknown value %q (allowed: %s)", s, strings.Join(names, ", "))
}
