package cli

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// readmeExample is one command line of the README's "From the command line"
// block, with the output its comment promises ("# → allow").
type readmeExample struct {
	line int
	args []string // without the leading "memgate"
	want string   // from a "→ TEXT" comment: stdout must contain TEXT
}

// readmeExamples extracts the memgate command lines from the sh block that
// follows "From the command line" in README.md: continuation lines joined,
// comments dropped, "a && b" split into two commands, other programs (go
// install) skipped.
func readmeExamples(t *testing.T) []readmeExample {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("..", "..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(string(data), "\n")
	start := -1
	for i, l := range lines {
		if strings.HasPrefix(l, "From the command line") {
			start = i
			break
		}
	}
	if start < 0 {
		t.Fatal(`README.md has no "From the command line" section`)
	}
	for start < len(lines) && strings.TrimSpace(lines[start]) != "```sh" {
		start++
	}
	var out []readmeExample
	var cur strings.Builder
	curLine := 0
	for i := start + 1; i < len(lines); i++ {
		l := lines[i]
		if strings.TrimSpace(l) == "```" {
			break
		}
		if cur.Len() == 0 {
			curLine = i + 1
		}
		if strings.HasSuffix(l, `\`) {
			cur.WriteString(strings.TrimSuffix(l, `\`) + " ")
			continue
		}
		cur.WriteString(l)
		words, comment, err := shellWords(cur.String())
		cur.Reset()
		if err != nil {
			t.Fatalf("README.md:%d: %v", curLine, err)
		}
		want := ""
		if _, after, ok := strings.Cut(comment, "→"); ok {
			want = strings.TrimSpace(after)
		}
		for _, cmd := range splitAnd(words) {
			if len(cmd) == 0 || cmd[0] != "memgate" {
				continue
			}
			out = append(out, readmeExample{line: curLine, args: cmd[1:], want: want})
		}
	}
	if len(out) == 0 {
		t.Fatal("README.md: no memgate commands found in the \"From the command line\" block")
	}
	return out
}

// shellWords splits a POSIX shell line into words (single and double quotes,
// backslash escapes) and returns the text of a trailing # comment.
func shellWords(s string) (words []string, comment string, err error) {
	var w strings.Builder
	inWord := false
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '\'':
			j := strings.IndexByte(s[i+1:], '\'')
			if j < 0 {
				return nil, "", fmt.Errorf("unterminated ' in %q", s)
			}
			w.WriteString(s[i+1 : i+1+j])
			i += j + 1
			inWord = true
		case c == '"':
			i++
			for ; i < len(s) && s[i] != '"'; i++ {
				if s[i] == '\\' && i+1 < len(s) && strings.IndexByte("\"\\$`", s[i+1]) >= 0 {
					i++
				}
				w.WriteByte(s[i])
			}
			if i >= len(s) {
				return nil, "", fmt.Errorf("unterminated \" in %q", s)
			}
			inWord = true
		case c == '\\' && i+1 < len(s):
			i++
			w.WriteByte(s[i])
			inWord = true
		case c == '#' && !inWord:
			return words, s[i+1:], nil
		case c == ' ' || c == '\t':
			if inWord {
				words = append(words, w.String())
				w.Reset()
				inWord = false
			}
		default:
			w.WriteByte(c)
			inWord = true
		}
	}
	if inWord {
		words = append(words, w.String())
	}
	return words, "", nil
}

func splitAnd(words []string) [][]string {
	var out [][]string
	var cur []string
	for _, w := range words {
		if w == "&&" {
			out = append(out, cur)
			cur = nil
			continue
		}
		cur = append(cur, w)
	}
	return append(out, cur)
}

// admittedID is the first id the search table shows with decision admit.
var admittedRow = regexp.MustCompile(`(?m)^\d+\s+(\S+)\s+admit\s`)

// The README's command-line examples run, in order, against a fresh store and
// succeed. Placeholders are filled from earlier output: ID is the id that
// `memgate add` printed, MEMORY_ID an id the preceding search admitted. Files
// the examples name come from testdata/readme.
func TestREADMEExamples(t *testing.T) {
	examples := readmeExamples(t)
	dir := t.TempDir()
	db := filepath.Join(dir, "memgate.db")
	files, _ := filepath.Abs(filepath.Join("testdata", "readme"))
	vars := map[string]string{}
	for _, ex := range examples {
		args := make([]string, len(ex.args))
		for i, a := range ex.args {
			if v, ok := vars[a]; ok {
				a = v
			} else if a == "ID" || a == "MEMORY_ID" {
				t.Fatalf("README.md:%d: placeholder %s before any command that provides it", ex.line, a)
			}
			if _, err := os.Stat(filepath.Join(files, a)); err == nil && !strings.HasPrefix(a, "-") {
				a = filepath.Join(files, a)
			}
			args[i] = a
		}
		if len(args) > 0 && args[0] == "demo" {
			continue // TestDemo runs it
		}
		r := run(t, "", append([]string{"--db", db}, args...)...)
		name := fmt.Sprintf("README.md:%d: memgate %s", ex.line, strings.Join(ex.args, " "))
		if r.code != 0 {
			t.Fatalf("%s: exit %d\nstdout: %s\nstderr: %s", name, r.code, r.stdout, r.stderr)
		}
		if ex.want != "" && !strings.Contains(r.stdout, ex.want) {
			t.Errorf("%s: the README promises %q, got:\n%s", name, ex.want, r.stdout)
		}
		t.Logf("%s: ok", name)
		switch args[0] {
		case "add":
			vars["ID"] = strings.TrimSpace(r.stdout)
		case "search":
			m := admittedRow.FindStringSubmatch(r.stdout)
			if m == nil {
				t.Fatalf("%s: the search admitted nothing, so MEMORY_ID has no value:\n%s", name, r.stdout)
			}
			vars["MEMORY_ID"] = m[1]
		}
	}
}

// TestReadmeDemoIsCurrent checks that every line of the README's abridged
// `memgate demo` output (the block after "What `memgate demo` prints") is a
// line memgate demo prints today, so a change of the gate or the envelope
// cannot leave the README showing decisions memgate no longer makes.
func TestReadmeDemoIsCurrent(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("..", "..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	_, after, ok := strings.Cut(string(data), "What `memgate demo` prints")
	if !ok {
		t.Fatal("README.md shows no memgate demo output")
	}
	_, block, _ := strings.Cut(after, "```\n")
	block, _, _ = strings.Cut(block, "```")
	r := run(t, "", "demo")
	if r.code != 0 {
		t.Fatalf("demo failed: %s", r.stderr)
	}
	printed := map[string]bool{}
	for l := range strings.SplitSeq(r.stdout, "\n") {
		printed[strings.TrimRight(l, " ")] = true
	}
	n := 0
	for l := range strings.SplitSeq(strings.TrimRight(block, "\n"), "\n") {
		if l == "..." {
			continue
		}
		n++
		if !printed[l] {
			t.Errorf("README's demo output has a line memgate demo does not print:\n%s", l)
		}
	}
	if n < 10 {
		t.Fatalf("README's demo block has %d lines; the parser missed it", n)
	}
}
