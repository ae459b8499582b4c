package lineage

import (
	"slices"
	"testing"

	"github.com/memgate/memgate/memory"
)

// TestGraph: transitive ancestors, another user's memory as an unknown
// ancestor whose own lineage is not followed, a forgotten ancestor without
// authority, a cycle that never lists a memory as its own ancestor, and the
// effective authority as the lowest.
func TestGraph(t *testing.T) {
	var g Graph
	g.Memory("sum", "alex", memory.AuthorityModelInferred, false)
	g.Link("sum", "note")
	g.Link("sum", "web")
	g.Memory("note", "alex", memory.AuthorityUserConfirmed, false)
	g.Link("note", "old")
	g.Memory("old", "alex", memory.AuthorityToolVerified, true)
	g.Tombstone("web", "alex")
	g.Memory("foreign", "sam", memory.AuthoritySystem, false)
	g.Memory("leak", "alex", memory.AuthorityUserConfirmed, false)
	g.Link("leak", "foreign")
	g.Link("foreign", "note") // never followed: sam's lineage is not alex's
	g.Memory("a", "alex", memory.AuthoritySystem, false)
	g.Link("a", "b")
	g.Memory("b", "alex", memory.AuthoritySystem, false)
	g.Link("b", "a")

	got := g.Ancestors([]string{"sum", "leak", "a", "missing", "web"})
	ids := func(as []Ancestor) []string {
		var out []string
		for _, a := range as {
			out = append(out, a.ID)
		}
		return out
	}
	if want := []string{"note", "old", "web"}; !slices.Equal(ids(got["sum"]), want) {
		t.Errorf("sum: %v, want %v", got["sum"], want)
	}
	if want := []Ancestor{{ID: "foreign"}}; !slices.Equal(got["leak"], want) {
		t.Errorf("leak: %+v, want another user's memory as unknown, not followed", got["leak"])
	}
	if want := []string{"b"}; !slices.Equal(ids(got["a"]), want) {
		t.Errorf("a: %v, want %v (a cycle never lists a memory as its own ancestor)", got["a"], want)
	}
	if _, ok := got["missing"]; ok {
		t.Error("an id that is not stored has an answer")
	}
	if _, ok := got["web"]; ok {
		t.Error("a tombstone has an answer")
	}
	m := memory.Memory{ID: "sum", SourceAuthority: memory.AuthorityModelInferred}
	l := Of(&m, got["sum"])
	if l.EffectiveAuthority != "" || !slices.Equal(l.ForgottenAncestors, []string{"web"}) || !slices.Equal(l.RevokedAncestors, []string{"old"}) {
		t.Errorf("Of = %+v, want unknown authority (the forgotten web page), forgotten web, revoked old", l)
	}
	if !Withdrawn(got["sum"]) || Withdrawn(got["a"]) {
		t.Error("Withdrawn")
	}
}
