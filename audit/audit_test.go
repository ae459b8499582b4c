package audit

import (
	"strings"
	"testing"
)

func TestParseKind(t *testing.T) {
	for _, k := range Kinds {
		if got, err := ParseKind(string(k)); err != nil || got != k {
			t.Errorf("ParseKind(%q) = %q, %v", k, got, err)
		}
	}
	if k, err := ParseKind(""); err != nil || k != "" {
		t.Errorf("empty: %q %v", k, err)
	}
	if _, err := ParseKind("searches"); err == nil || !strings.Contains(err.Error(), "allowed: search, decision") {
		t.Errorf("unknown kind: %v", err)
	}
}
