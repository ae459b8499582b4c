package cli

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"time"
	"unicode/utf8"

	"github.com/memgate/memgate/memory"
)

func truncate(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return string(r[:n-1]) + "…"
}

// scopeLabel renders a memory's scope compactly, e.g. "acme/atlas·work".
func scopeLabel(m *memory.Memory) string {
	var parts []string
	if m.WorkspaceID != "" || m.ProjectID != "" {
		parts = append(parts, strings.Trim(m.WorkspaceID+"/"+m.ProjectID, "/"))
	}
	if m.Domain != "" {
		parts = append(parts, m.Domain)
	}
	if len(parts) == 0 {
		return "-"
	}
	return strings.Join(parts, "·")
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

func printMemoryLine(w io.Writer, m *memory.Memory) {
	flag := ""
	if m.Revoked {
		flag = " [revoked]"
	}
	fmt.Fprintf(w, "%s\t%s\t%s\t%s%s\n", m.ID, m.UserID, scopeLabel(m), truncate(m.Text, 70), flag)
}

func printMemory(w io.Writer, m *memory.Memory) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	row := func(k, v string) {
		if v != "" {
			fmt.Fprintf(tw, "%s\t%s\n", k, v)
		}
	}
	ts := func(t time.Time) string {
		if t.IsZero() {
			return ""
		}
		return t.Format(time.RFC3339)
	}
	row("id", m.ID)
	row("text", m.Text)
	row("userId", m.UserID)
	row("workspaceId", m.WorkspaceID)
	row("projectId", m.ProjectID)
	row("domain", m.Domain)
	row("sourceAuthority", string(m.SourceAuthority))
	row("kind", string(m.Kind))
	row("classification", string(m.Classification))
	row("createdAt", ts(m.CreatedAt))
	row("expiresAt", ts(m.ExpiresAt))
	if m.Revoked {
		row("revoked", "true")
		row("revokedAt", ts(m.RevokedAt))
		row("revokedReason", m.RevokedReason)
	}
	row("lineageRefs", strings.Join(m.LineageRefs, ", "))
	row("supersedes", strings.Join(m.Supersedes, ", "))
	row("supersededBy", strings.Join(m.SupersededBy, ", "))
	row("audience", strings.Join(m.Audience, ", "))
	tw.Flush()
}
