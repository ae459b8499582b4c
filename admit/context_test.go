package admit

import (
	"slices"
	"strings"
	"testing"
	"time"
)

// The context's ids are normalised to NFC and refused with invisible or
// control characters, naming the field (issue 8, item 4); its time must fit
// the store's range (item 6).
func TestContextIDs(t *testing.T) {
	roles := []string{"e\u0301quipe", "owner"}
	c := Context{TaskID: "t\u0301", UserID: "jose\u0301", WorkspaceID: "w\u0301", ProjectID: "car claim",
		Domain: "sante\u0301", Principal: Principal{ID: "agent-e\u0301", Roles: roles}}
	if err := c.Validate(); err != nil {
		t.Fatal(err)
	}
	if c.TaskID != "t́" || c.UserID != "josé" || c.WorkspaceID != "ẃ" || c.Domain != "santé" ||
		c.Principal.ID != "agent-é" || !slices.Equal(c.Principal.Roles, []string{"équipe", "owner"}) {
		t.Errorf("not normalised: %+q", c)
	}
	if roles[0] != "e\u0301quipe" {
		t.Error("Validate wrote through to the caller's roles")
	}
	d := Context{UserID: "jose\u0301"}
	if err := d.Validate(); err != nil || d.Principal.ID != "josé" {
		t.Errorf("principal defaults to the normalised user: %q %v", d.Principal.ID, err)
	}

	tests := []struct {
		name string
		c    Context
		want string
	}{
		{"zero-width user", Context{UserID: "u\u200b1"}, "userId: contains an invisible or control character U+200B at byte 1"},
		{"space in user", Context{UserID: "u 1"}, "userId: contains a space at byte 1"},
		{"bidi workspace", Context{UserID: "u", WorkspaceID: "w\u202e"}, "workspaceId: contains an invisible or control character U+202E at byte 1"},
		{"nul project", Context{UserID: "u", ProjectID: "p\x00"}, "projectId: contains an invisible or control character U+0000 at byte 1"},
		{"padded domain", Context{UserID: "u", Domain: "work "}, "domain: has leading or trailing whitespace"},
		{"task", Context{UserID: "u", TaskID: "t\ufeff"}, "taskId: contains an invisible or control character U+FEFF at byte 1"},
		{"principal", Context{UserID: "u", Principal: Principal{ID: "a\u2060b"}}, "principal.id: contains an invisible or control character U+2060 at byte 1"},
		{"role", Context{UserID: "u", Principal: Principal{ID: "a", Roles: []string{"owner", "fam\u200cily"}}}, "principal.roles[1]: contains an invisible or control character U+200C at byte 3"},
		{"empty role", Context{UserID: "u", Principal: Principal{ID: "a", Roles: []string{""}}}, "principal.roles[0]: is empty"},
		{"long user", Context{UserID: strings.Repeat("u", 257)}, "userId: is 257 bytes; the limit is 256"},
		{"now far future", Context{UserID: "u", Now: time.Date(9999, 1, 1, 0, 0, 0, 0, time.UTC)}, "now: 9999-01-01T00:00:00Z is after 2261-12-31"},
		{"now before range", Context{UserID: "u", Now: time.Date(1000, 1, 1, 0, 0, 0, 0, time.UTC)}, "now: 1000-01-01T00:00:00Z is before 1678-01-01"},
	}
	for _, tt := range tests {
		err := tt.c.Validate()
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: Validate() = %v, want %q", tt.name, err, tt.want)
		}
		if err != nil && strings.ContainsAny(err.Error(), "\u200b\u202e\x00\ufeff\u2060\u200c") {
			t.Errorf("%s: error %q repeats the raw character", tt.name, err)
		}
	}
}
