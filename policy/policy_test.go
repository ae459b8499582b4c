package policy

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/memgate/memgate/admit"
	"github.com/memgate/memgate/internal/benchstats"
	"github.com/memgate/memgate/memory"
)

func TestParseErrors(t *testing.T) {
	tests := []struct {
		name, in string
		want     []string
	}{
		{"empty", ``, []string{"empty policy file"}},
		{"yaml syntax", "version: 1\nrules:\n  - name: [unclosed\n", []string{"syntax"}},
		{"unknown key", "version: 1\nrulez: []\n", []string{"syntax", "rulez"}},
		{"version", "version: 2\n", []string{"version: is 2"}},
		{"relax builtin", "version: 1\nbuiltins: {crossProject: admit}\n", []string{"builtins.crossProject: admit would relax the default rank_down"}},
		{"relax low authority", "version: 1\nbuiltins: {lowAuthorityHighRisk: admit}\n", []string{"builtins.lowAuthorityHighRisk"}},
		{"hard boundary not tunable", "version: 1\nbuiltins: {crossUser: admit}\n", []string{"crossUser"}},
		{"unknown decision", "version: 1\nbuiltins: {crossProject: maybe}\n", []string{`unknown value "maybe"`}},
		{"rule admits", `version: 1
rules: [{name: r, when: "true", decision: admit, reason: x}]`, []string{`rule "r": decision: admit would relax nothing`}},
		{"cel syntax", `version: 1
rules: [{name: broken, when: "memory.domain == ", decision: deny, reason: x}]`, []string{`rule "broken": when:`, "Syntax error", "1:"}},
		{"cel undefined field", `version: 1
rules: [{name: typo, when: "memory.domian == 'work'", decision: deny, reason: x}]`, []string{`rule "typo"`, "domian"}},
		{"cel type error", `version: 1
rules: [{name: types, when: "memory.ageHours == 'old'", decision: deny, reason: x}]`, []string{`rule "types"`, "no matching overload"}},
		{"not bool", `version: 1
rules: [{name: str, when: "memory.domain", decision: deny, reason: x}]`, []string{"yields string; want bool"}},
		{"too costly", `version: 1
rules: [{name: slow, when: "memory.lineageRefs.all(a, memory.audience.all(b, memory.text.contains(a + b)))", decision: deny, reason: x}]`, []string{`rule "slow"`, "exceeds the limit"}},
		{"bad reason and constraint", `version: 1
rules: [{name: r, when: "true", decision: deny, reason: "Bad Reason", constraints: [beNice]}]`, []string{"reason:", `unknown "beNice"`}},
		{"no decision nor constraints", `version: 1
rules: [{name: r, when: "true", reason: x}]`, []string{"decision: is required"}},
		{"repeated name", `version: 1
rules: [{name: r, when: "true", decision: deny, reason: x}, {name: r, when: "false", decision: deny, reason: y}]`, []string{"repeats"}},
		{"missing name and when", `version: 1
rules: [{decision: deny, reason: x}]`, []string{"rules[0]: name: is required", "rules[0]: when: is required"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Parse([]byte(tt.in))
			if err == nil {
				t.Fatal("accepted")
			}
			for _, w := range tt.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error lacks %q:\n%v", w, err)
				}
			}
		})
	}
}

func TestStricterBuiltinsAndJSON(t *testing.T) {
	p, err := Parse([]byte(`{"version": 1, "builtins": {"crossProject": "deny", "lowAuthorityHighRisk": "quarantine"},
		"rules": [{"name": "r", "when": "ctx.toolRiskRank >= 3 && memory.authorityRank < 3", "decision": "deny", "reason": "no_low_for_risky"}]}`))
	if err != nil {
		t.Fatal(err)
	}
	if b := p.Builtins(); b.CrossProject != admit.Deny || b.LowAuthorityHighRisk != admit.Quarantine || b.RestrictedExternal != admit.Deny {
		t.Fatalf("builtins %+v", b)
	}
	actx := &admit.Context{UserID: "u", ToolRisk: admit.RiskExternalSideEffect}
	c := &admit.Candidate{Memory: memory.Memory{ID: "m", UserID: "u", Text: "x", SourceAuthority: memory.AuthorityToolVerified},
		Lineage: admit.Lineage{EffectiveAuthority: memory.AuthorityToolVerified}}
	rs := []admit.Result{{Decision: admit.Admit}}
	p.Evaluate(actx, []admit.Candidate{*c}, rs)
	if r := rs[0]; r.Decision != admit.Deny || r.Reasons[0] != "policy:no_low_for_risky" {
		t.Fatalf("got %+v", rs[0])
	}
}

func TestRunCases(t *testing.T) {
	cases, err := ParseCases([]byte(`
- name: other user
  context: {userId: alex}
  memory: {id: m1, userId: sam, text: t}
  expect: {decision: deny, reasons: [cross_user_scope]}
- name: wrong expectation
  context: {userId: alex, toolRisk: privileged}
  memory: {id: m2, userId: alex, text: t, sourceAuthority: external}
  expect: {decision: admit}
`))
	if err != nil {
		t.Fatal(err)
	}
	res := Default().RunCases(cases)
	if !res[0].Passed || res[1].Passed || !strings.Contains(res[1].Problem, "decision admit_summary_only, want admit") {
		t.Fatalf("results %+v", res)
	}
	_, err = ParseCases([]byte(`
- name: bad
  context: {userId: alex, intent: chat}
  memory: {id: m1, text: t}
  expect: {decision: maybe}
  extra: 1
`))
	if err == nil || !strings.Contains(err.Error(), "extra") {
		t.Fatalf("unknown field accepted: %v", err)
	}
	_, err = ParseCases([]byte(`
- name: bad
  context: {userId: alex, intent: chat}
  memory: {id: m1, text: t}
  expect: {decision: maybe}
`))
	for _, w := range []string{`intent: unknown value "chat"`, "userId: is required", `expect.decision: unknown value "maybe"`} {
		if err == nil || !strings.Contains(err.Error(), w) {
			t.Errorf("error lacks %q: %v", w, err)
		}
	}
}

func FuzzParse(f *testing.F) {
	f.Add([]byte("version: 1\nrules:\n  - name: r\n    when: memory.domain == 'x'\n    decision: deny\n    reason: x\n"))
	f.Add([]byte(`{"version":1,"builtins":{"crossProject":"deny"}}`))
	f.Add([]byte("version: 1\nrules: [{name: a, when: \"memory.text.matches('(a+)+$')\", decision: quarantine, reason: r}]"))
	f.Fuzz(func(t *testing.T, data []byte) {
		p, err := Parse(data)
		if err != nil {
			if err.Error() == "" {
				t.Fatal("empty error")
			}
			return
		}
		// A policy that loads must evaluate without panicking, and never
		// admit another user's memory.
		actx := &admit.Context{UserID: "u", Principal: admit.Principal{ID: "u"}, Intent: admit.IntentAnswer, ToolRisk: admit.RiskNone}
		cs := []admit.Candidate{{Memory: memory.Memory{ID: "m", UserID: "other", Text: "hello"}}}
		rs := []admit.Result{{Decision: admit.Admit}}
		p.Evaluate(actx, cs, rs)
		if rs[0].Decision != admit.Deny {
			t.Fatalf("cross-user memory got %s", rs[0].Decision)
		}
	})
}

// BenchmarkEnvelope50 evaluates the built-in rules and four operator rules
// for 50 candidates, as one admission of a k=50 search does.
func BenchmarkEnvelope50(b *testing.B) {
	p, err := Parse([]byte(`version: 1
rules:
  - {name: a, when: 'memory.domain == "health" && ctx.domain == "work"', decision: deny, reason: a}
  - {name: b, when: 'memory.domain == "finance"', constraints: [requireCitation], reason: b}
  - {name: c, when: 'memory.text.lowerAscii().contains("ignore previous instructions")', decision: quarantine, reason: c}
  - {name: d, when: 'memory.kind == "preference" && memory.ageHours > 8760.0', decision: rank_down, reason: d}
`))
	if err != nil {
		b.Fatal(err)
	}
	now := time.Date(2026, 6, 11, 10, 0, 0, 0, time.UTC)
	actx := &admit.Context{UserID: "u", Principal: admit.Principal{ID: "u"}, ProjectID: "p1", Domain: "work",
		Intent: admit.IntentSend, ToolRisk: admit.RiskExternalSideEffect, Now: now}
	domains := []string{"work", "health", "finance", "family", ""}
	auth := []memory.Authority{memory.AuthorityUserConfirmed, memory.AuthorityExternal, memory.AuthorityModelInferred, memory.AuthorityToolVerified}
	cands := make([]admit.Candidate, 50)
	for i := range cands {
		cands[i] = admit.Candidate{Memory: memory.Memory{
			ID: fmt.Sprintf("m%d", i), UserID: "u", ProjectID: fmt.Sprintf("p%d", i%3), Domain: domains[i%len(domains)],
			Text: "Alex prefers the quarterly report as a PDF, sent to the finance team before Friday noon",
			Kind: memory.KindPreference, SourceAuthority: auth[i%len(auth)], CreatedAt: now.Add(-time.Duration(i*400) * time.Hour),
		}, Lineage: admit.Lineage{EffectiveAuthority: auth[i%len(auth)]}}
	}
	pl := admit.Pipeline{Policy: p}
	b.ReportAllocs()
	benchstats.Loop(b, func() {
		if _, err := pl.Run(b.Context(), actx, cands); err != nil {
			b.Fatal(err)
		}
	})
}

func FuzzParseCases(f *testing.F) {
	f.Add([]byte("- name: x\n  context: {userId: u}\n  memory: {id: m, userId: u, text: t}\n  expect: {decision: deny}\n"))
	f.Add([]byte("- !00000 00"))
	f.Fuzz(func(t *testing.T, data []byte) {
		cases, err := ParseCases(data)
		if err != nil {
			return
		}
		Default().RunCases(cases)
	})
}
