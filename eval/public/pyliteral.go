package public

// A reader for the few Python constructs the AgentDojo task files use to
// state their texts: class-level assignments of string literals (plain,
// f-, raw, triple-quoted, implicitly concatenated inside parentheses or
// joined with +) whose f-string fields name earlier class constants.

import (
	"fmt"
	"regexp"
	"strings"
)

// pyClass is one class of a task file: its string constants, in order.
type pyClass struct {
	Name   string
	Consts map[string]string
}

var (
	pyClassRe  = regexp.MustCompile(`(?m)^class (\w+)\(`)
	pyAssignRe = regexp.MustCompile(`(?m)^    ([A-Za-z_][A-Za-z_0-9]*)(?:\s*:\s*[^=\n]+)?\s*=\s*`)
	pyFieldRe  = regexp.MustCompile(`\{\{|\}\}|\{([^{}]*)\}`)
)

// pyClasses returns the classes of src, each with the string constants it
// assigns at class level that can be evaluated (others are skipped).
func pyClasses(src string) []pyClass {
	locs := pyClassRe.FindAllStringSubmatchIndex(src, -1)
	var out []pyClass
	for i, l := range locs {
		end := len(src)
		if i+1 < len(locs) {
			end = locs[i+1][0]
		}
		body := src[l[1]:end]
		c := pyClass{Name: src[l[2]:l[3]], Consts: map[string]string{}}
		for _, a := range pyAssignRe.FindAllStringSubmatchIndex(body, -1) {
			name := body[a[2]:a[3]]
			if v, ok := pyExpr(body[a[1]:], c.Consts); ok {
				c.Consts[name] = v
			}
		}
		out = append(out, c)
	}
	return out
}

// pyExpr evaluates the string expression at the start of s: one literal,
// or literals joined by + or juxtaposed inside parentheses. ok is false
// for anything else.
func pyExpr(s string, consts map[string]string) (string, bool) {
	i, depth := 0, 0
	var b strings.Builder
	n := 0
	for {
		// Skip spaces; newlines only inside parentheses.
		for i < len(s) && (s[i] == ' ' || s[i] == '\t' || (depth > 0 && (s[i] == '\n' || s[i] == '\r'))) {
			i++
		}
		if i >= len(s) {
			break
		}
		switch c := s[i]; {
		case c == '(' && n == 0:
			depth++
			i++
			continue
		case c == ')' && depth > 0:
			depth--
			i++
			if depth == 0 {
				return b.String(), n > 0
			}
			continue
		case c == '+' && n > 0:
			i++
			if depth == 0 {
				// Allow a continuation on the same line only.
				for i < len(s) && s[i] == ' ' {
					i++
				}
			}
			continue
		case c == '#' && depth > 0:
			for i < len(s) && s[i] != '\n' {
				i++
			}
			continue
		}
		lit, used, ok := pyLiteral(s[i:], consts)
		if !ok {
			if depth > 0 {
				return "", false
			}
			break
		}
		b.WriteString(lit)
		i += used
		n++
		if depth == 0 {
			// Outside parentheses a literal ends the expression unless a +
			// follows on the same line.
			j := i
			for j < len(s) && s[j] == ' ' {
				j++
			}
			if j >= len(s) || s[j] != '+' {
				break
			}
		}
	}
	if depth > 0 || n == 0 {
		return "", false
	}
	return b.String(), true
}

// pyLiteral reads one string literal at the start of s and returns its
// value and length.
func pyLiteral(s string, consts map[string]string) (string, int, bool) {
	i := 0
	fstr, raw := false, false
	for i < len(s) && i < 3 && strings.ContainsRune("fFrRbBuU", rune(s[i])) {
		switch s[i] {
		case 'f', 'F':
			fstr = true
		case 'r', 'R':
			raw = true
		}
		i++
	}
	if i >= len(s) || (s[i] != '"' && s[i] != '\'') {
		return "", 0, false
	}
	q := string(s[i])
	if strings.HasPrefix(s[i:], q+q+q) {
		q = q + q + q
	}
	i += len(q)
	var b strings.Builder
	for {
		if i >= len(s) {
			return "", 0, false
		}
		if strings.HasPrefix(s[i:], q) {
			i += len(q)
			break
		}
		c := s[i]
		if c == '\n' && len(q) == 1 {
			return "", 0, false
		}
		if c == '\\' && i+1 < len(s) {
			nx := s[i+1]
			if raw {
				b.WriteByte(c)
				b.WriteByte(nx)
				i += 2
				continue
			}
			switch nx {
			case '\n':
			case 'n':
				b.WriteByte('\n')
			case 't':
				b.WriteByte('\t')
			case '\\', '\'', '"':
				b.WriteByte(nx)
			default:
				b.WriteByte(c)
				b.WriteByte(nx)
			}
			i += 2
			continue
		}
		b.WriteByte(c)
		i++
	}
	v := b.String()
	if fstr {
		var err error
		if v, err = pyFormat(v, consts); err != nil {
			return "", 0, false
		}
	}
	return v, i, true
}

// pyFormat fills an f-string's fields from consts; a field must name one.
func pyFormat(s string, consts map[string]string) (string, error) {
	var err error
	out := pyFieldRe.ReplaceAllStringFunc(s, func(m string) string {
		switch m {
		case "{{":
			return "{"
		case "}}":
			return "}"
		}
		name := strings.TrimSpace(m[1 : len(m)-1])
		if v, ok := consts[name]; ok {
			return v
		}
		if err == nil {
			err = fmt.Errorf("f-string field %s is not a known constant", m)
		}
		return m
	})
	return out, err
}
