package weaviate

import (
	"context"
	"strings"
	"testing"

	"github.com/memgate/memgate/memory"
)

// TestTenant checks the tenant names of users: valid Weaviate tenant names,
// readable for plain ids, and distinct for distinct users.
func TestTenant(t *testing.T) {
	users := []string{"alice", "Alice", "a_b", "a-b", "a b", "ü", strings.Repeat("x", 62), strings.Repeat("x", 63), "u-alice", "h-x"}
	seen := map[string]string{}
	valid := func(s string) bool {
		if len(s) == 0 || len(s) > 64 {
			return false
		}
		for _, r := range s {
			if !('a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' || '0' <= r && r <= '9' || r == '-' || r == '_') {
				return false
			}
		}
		return true
	}
	for _, u := range users {
		tn := tenant(u)
		if !valid(tn) {
			t.Errorf("tenant(%q) = %q, not a valid tenant name", u, tn)
		}
		if other, ok := seen[tn]; ok {
			t.Errorf("users %q and %q share tenant %q", u, other, tn)
		}
		seen[tn] = u
	}
	if got := tenant("alice"); got != "u-alice" {
		t.Errorf("tenant(alice) = %q, want u-alice", got)
	}
}

// TestObjectID checks that object ids are deterministic and distinct.
func TestObjectID(t *testing.T) {
	if objectID("m1") != objectID("m1") || objectID("m1") == objectID("m2") {
		t.Error("objectID is not a deterministic, distinct UUID per memory id")
	}
}

// TestScopeWhere checks the shape of the scope filter: none without labels,
// one (label or null) per set axis, joined with And.
func TestScopeWhere(t *testing.T) {
	if w := scopeWhere(memory.Filter{UserID: "u"}); w != nil {
		t.Errorf("scopeWhere without labels = %+v, want nil", w.Build())
	}
	one := scopeWhere(memory.Filter{UserID: "u", ProjectID: "p"}).Build()
	if one.Operator != "Or" || len(one.Operands) != 2 {
		t.Errorf("scopeWhere with a project = %+v, want an Or of two", one)
	}
	three := scopeWhere(memory.Filter{UserID: "u", WorkspaceID: "w", ProjectID: "p", Domain: "d"}).Build()
	if three.Operator != "And" || len(three.Operands) != 3 {
		t.Errorf("scopeWhere with three labels = %+v, want an And of three", three)
	}
}

// TestConstructorFails checks that a constructor whose server cannot be
// reached yields an index that fails every call instead of panicking.
func TestConstructorFails(t *testing.T) {
	x := Constructor("weaviate://127.0.0.1:1")(4)
	ctx := context.Background()
	if err := x.Upsert(ctx); err == nil {
		t.Error("Upsert on an unreachable server: no error")
	}
	if _, err := x.Search(ctx, memory.Filter{UserID: "u"}, make([]float32, 4), 1); err == nil {
		t.Error("Search on an unreachable server: no error")
	}
	if _, err := x.Vectors(ctx, "u", []string{"a"}); err == nil {
		t.Error("Vectors on an unreachable server: no error")
	}
}

// TestHasWord checks which queries Lexical sends to the server.
func TestHasWord(t *testing.T) {
	for q, want := range map[string]bool{"": false, "  ,!? ": false, "a": true, "Glacier, harbor!": true, "日本": true, "42": true} {
		if got := hasWord(q); got != want {
			t.Errorf("hasWord(%q) = %v, want %v", q, got, want)
		}
	}
}
