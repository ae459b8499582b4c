package cli

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

	"github.com/memgate/memgate"
	"github.com/memgate/memgate/admit"
	"github.com/memgate/memgate/memory"
)

// terminalUnsafe returns the first rune a terminal would not show faithfully:
// a control character other than newline and tab, a format character (bidi
// overrides, zero-width characters, BOM, soft hyphen, tags), a line or
// paragraph separator, or a byte that is not UTF-8. A zero-width joiner or
// non-joiner between two non-ASCII characters (an emoji sequence, a joining
// script) and a flag's tags after U+1F3F4 are text.
func terminalUnsafe(s string) (rune, bool) {
	rs := []rune(s)
	for i, r := range rs {
		if r == utf8.RuneError {
			return r, true
		}
		if r == '\n' || r == '\t' {
			continue
		}
		if (r == '\u200d' || r == '\u200c') && i > 0 && i+1 < len(rs) && rs[i-1] > 0x7f && rs[i+1] > 0x7f {
			continue
		}
		if r >= 0xe0000 && r <= 0xe007f && i > 0 && (rs[i-1] == 0x1f3f4 || (rs[i-1] >= 0xe0000 && rs[i-1] <= 0xe007f)) {
			continue
		}
		if unicode.IsControl(r) || unicode.Is(unicode.Cf, r) || r == '\u2028' || r == '\u2029' {
			return r, true
		}
	}
	return 0, false
}

func assertTerminalSafe(t *testing.T, what, out string) {
	t.Helper()
	if r, bad := terminalUnsafe(out); bad {
		t.Errorf("%s prints %U raw:\n%q", what, r, out)
	}
}

func TestSafe(t *testing.T) {
	for in, want := range map[string]string{
		"plain text, ünïcode, 日本語, emoji 😀": "plain text, ünïcode, 日本語, emoji 😀",
		"u\u200b1":           `u\u200b1`,
		"a\u202eevil\u202c":  `a\u202eevil\u202c`,
		"nul\x00":            `nul\u0000`,
		"esc\x1b[31mred":     `esc\u001b[31mred`,
		"line\nbreak\ttab\r": `line\nbreak\ttab\r`,
		"sep\u2028\u2029":    `sep\u2028\u2029`,
		"bom\ufeff":          `bom\ufeff`,
		"bad\xffutf8":        `bad\xffutf8`,
		"tag\U000e0041":      `tag\U000e0041`,
		"c1\u0085":           `c1\u0085`,
	} {
		if got := safe(in); got != want {
			t.Errorf("safe(%q) = %q, want %q", in, got, want)
		}
		assertTerminalSafe(t, fmt.Sprintf("safe(%q)", in), safe(in))
	}
	if got := safeBlock("two\nlines\u202e\tand\x1b"); got != "two\nlines\\u202e\tand\\u001b" {
		t.Errorf("safeBlock keeps newlines and tabs only: %q", got)
	}
}

const nasty = "\u202eevil\u202c \u200bzero\u200d width\ufeff \x1b[2Jclear \u2028sep \u2066iso\u2069"

// The terminal printers escape invisible characters in every id and text;
// tested on the printers directly, since the store will refuse such ids.
func TestPrintersEscape(t *testing.T) {
	m := memory.Memory{ID: "m" + nasty, Text: "text" + nasty, UserID: "u" + nasty, WorkspaceID: "w" + nasty, ProjectID: "p" + nasty,
		Domain: "d" + nasty, Revoked: true, RevokedReason: "r" + nasty, LineageRefs: []string{"l" + nasty}, Supersedes: []string{"s" + nasty},
		SupersededBy: []string{"b" + nasty}, Audience: []string{"a" + nasty}}
	var b bytes.Buffer
	printMemory(&b, &m)
	assertTerminalSafe(t, "printMemory", b.String())
	if !strings.Contains(b.String(), `\u202eevil`) {
		t.Errorf("printMemory should show the escapes: %s", b.String())
	}
	b.Reset()
	printMemoryLine(&b, &m)
	assertTerminalSafe(t, "printMemoryLine", b.String())
	b.Reset()
	adm := &memgate.Admission{Context: admit.Context{TaskID: "t" + nasty}, Items: []memgate.Decided{{Memory: m,
		Result: admit.Result{MemoryID: m.ID, Decision: admit.Admit, Reasons: []admit.Reason{admit.Reason("policy:" + nasty)}}}}}
	printAdmission(&b, adm)
	assertTerminalSafe(t, "printAdmission", b.String())
}

// End to end: a memory whose text holds invisible characters is escaped by
// get, list, search (and its context) and audit, and kept exact in --json.
func TestCommandsEscapeInvisibleText(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "e.db")
	text := "Atlas deploys on Thursday" + nasty
	if r := run(t, "", "--db", db, "add", "--user", "alex", "--id", "m1", text); r.code != 0 {
		t.Fatalf("add: %+v", r)
	}
	for _, args := range [][]string{
		{"get", "m1"},
		{"list"},
		{"list", "--user", "alex"},
		{"search", "--user", "alex", "--task", "t1", "-q", "when does atlas deploy", "--context"},
		{"audit", "--task", "t1"},
		{"quarantine", "list", "--status", ""},
		{"get", "m\u202e1"}, // the error message echoes the id
	} {
		r := run(t, "", append([]string{"--db", db}, args...)...)
		assertTerminalSafe(t, strings.Join(args, " ")+" (stdout)", r.stdout)
		assertTerminalSafe(t, strings.Join(args, " ")+" (stderr)", r.stderr)
	}
	r := run(t, "", "--db", db, "get", "m1")
	if !strings.Contains(r.stdout, `\u202eevil\u202c`) {
		t.Errorf("get should show the bidi override as an escape:\n%s", r.stdout)
	}
	r = run(t, "", "--db", db, "get", "m1", "--json")
	var m memory.Memory
	if err := json.Unmarshal([]byte(r.stdout), &m); err != nil || m.Text != text {
		t.Errorf("get --json must keep the exact text: %q, %v", m.Text, err)
	}
	os.Remove(db)
}
