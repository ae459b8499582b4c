package cli

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"time"
	"unicode/utf8"

	"github.com/memgate/memgate/internal/termsafe"
	"github.com/memgate/memgate/memory"
)

// safe escapes what a terminal would not show faithfully, so that an id or a
// text prints as what it is: `u\u200b1` rather than something that looks like
// u1, no bidi override reordering the line, no escape sequence driving the
// terminal (see package termsafe). Newlines and tabs are escaped too: the
// result is one line. JSON output is never escaped this way; it keeps the
// exact strings.
func safe(s string) string { return termsafe.Escape(s) }

// safeBlock is safe for multi-line text: it keeps newlines and tabs.
func safeBlock(s string) string { return termsafe.EscapeText(s) }

// safeJoin escapes each of ss and joins them with ", ".
func safeJoin(ss []string) string {
	out := make([]string, len(ss))
	for i, s := range ss {
		out[i] = safe(s)
	}
	return strings.Join(out, ", ")
}

// truncate shortens s to n runes on one line, whitespace collapsed, and
// escapes it for the terminal.
func truncate(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if utf8.RuneCountInString(s) > n {
		r := []rune(s)
		s = string(r[:n-1]) + "…"
	}
	return safe(s)
}

// scopeLabel renders a memory's scope compactly, e.g. "acme/atlas·work",
// escaped for the terminal.
func scopeLabel(m *memory.Memory) string {
	var parts []string
	if m.WorkspaceID != "" || m.ProjectID != "" {
		parts = append(parts, strings.Trim(safe(m.WorkspaceID)+"/"+safe(m.ProjectID), "/"))
	}
	if m.Domain != "" {
		parts = append(parts, safe(m.Domain))
	}
	if len(parts) == 0 {
		return "-"
	}
	return strings.Join(parts, "·")
}

// orDash escapes s for the terminal, or shows "-" for an empty s.
func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return safe(s)
}

func printMemoryLine(w io.Writer, m *memory.Memory) {
	flag := ""
	if m.Revoked {
		flag = " [revoked]"
	}
	fmt.Fprintf(w, "%s\t%s\t%s\t%s%s\n", safe(m.ID), safe(m.UserID), scopeLabel(m), truncate(m.Text, 70), flag)
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
	row("id", safe(m.ID))
	row("text", safe(m.Text))
	row("userId", safe(m.UserID))
	row("workspaceId", safe(m.WorkspaceID))
	row("projectId", safe(m.ProjectID))
	row("domain", safe(m.Domain))
	row("sourceAuthority", safe(string(m.SourceAuthority)))
	row("kind", safe(string(m.Kind)))
	row("classification", safe(string(m.Classification)))
	row("createdAt", ts(m.CreatedAt))
	row("expiresAt", ts(m.ExpiresAt))
	if m.Revoked {
		row("revoked", "true")
		row("revokedAt", ts(m.RevokedAt))
		row("revokedReason", safe(m.RevokedReason))
	}
	row("lineageRefs", safeJoin(m.LineageRefs))
	row("supersedes", safeJoin(m.Supersedes))
	row("supersededBy", safeJoin(m.SupersededBy))
	row("audience", safeJoin(m.Audience))
	tw.Flush()
}
