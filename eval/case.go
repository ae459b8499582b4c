// Package eval measures whether memgate lowers memory-induced risk and keeps
// useful memory, on any set of labelled cases in the evaluation case format
// (docs/eval-cases.md). Each case runs in isolation; three baselines are
// compared: similarity (inject the top k by similarity, what most memory
// layers do), policy (the hard envelope alone) and full (envelope + gate).
package eval

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"regexp"
	"strings"
	"unicode/utf8"

	"github.com/memgate/memgate/admit"
	"github.com/memgate/memgate/bind"
	"github.com/memgate/memgate/memory"
)

// FormatVersion is the version of the case format this package reads.
const FormatVersion = 1

// MaxCaseBytes bounds one case line.
const MaxCaseBytes = 8 << 20

// Expectation classes of the case format.
const (
	ExpectAdmit   = "admit"   // decision admit
	ExpectLimited = "limited" // decision admit_summary_only
	ExpectExclude = "exclude" // rank_down, quarantine or deny
)

// Bind expectations of the case format.
const (
	BindAllow   = "allow"
	BindConfirm = "confirm"
	BindDeny    = "deny"
)

// Event is a change applied to the case's memories before the query.
type Event struct {
	Op string `json:"op"` // revoke or forget
	ID string `json:"id"`
}

// ToolCall is the tool call a case checks the binder with.
type ToolCall struct {
	Name        string         `json:"name"`
	Risk        string         `json:"risk"`
	Args        map[string]any `json:"args,omitempty"`
	JustifiedBy []string       `json:"justifiedBy,omitempty"`
}

// Origin is the source of a case converted from a public benchmark.
type Origin struct {
	// Benchmark names the source (e.g. "agentdojo", "poisonedrag"); measures
	// are broken down by it.
	Benchmark string `json:"benchmark"`
	// Item identifies the record of the source the case was built from.
	Item string `json:"item,omitempty"`
	// License is the SPDX identifier of the source's licence.
	License string `json:"license,omitempty"`
}

// Case is one self-contained evaluation case.
type Case struct {
	ID       string `json:"id"`
	Category string `json:"category"`
	// Family names the template family a generated case came from; splits
	// are by family. Optional for hand-written cases.
	Family      string            `json:"family,omitempty"`
	Query       string            `json:"query"`
	Context     admit.Context     `json:"context"`
	Memories    []memory.Memory   `json:"memories"`
	Events      []Event           `json:"events,omitempty"`
	Expect      map[string]string `json:"expect,omitempty"`
	Useful      []string          `json:"useful,omitempty"`
	LeakTargets []string          `json:"leakTargets,omitempty"`
	ToolCall    *ToolCall         `json:"toolCall,omitempty"`
	ExpectBind  string            `json:"expectBind,omitempty"`
	// Origin says where a case came from, for cases converted from public
	// benchmarks; measures are also reported per Origin.Benchmark.
	Origin *Origin `json:"origin,omitempty"`

	// Line is the case's line in its file (not part of the format).
	Line int `json:"-"`

	leaks []leakMatcher
}

type leakMatcher struct {
	literal string
	re      *regexp.Regexp
}

func (l leakMatcher) in(text string) bool {
	if l.re != nil {
		return l.re.MatchString(text)
	}
	return strings.Contains(strings.ToLower(text), strings.ToLower(l.literal))
}

// Warning is a problem with one line of a cases file; the case was skipped.
type Warning struct {
	Line int
	Err  error
}

// String renders the warning on one line with its line number.
func (w Warning) String() string {
	return fmt.Sprintf("line %d: %s", w.Line, strings.ReplaceAll(w.Err.Error(), "\n", "; "))
}

// Read decodes a JSON Lines cases file. Malformed or invalid cases are
// skipped and reported as warnings with their line numbers; blank lines are
// ignored. It fails only when the input cannot be read or holds no valid
// case.
func Read(r io.Reader) ([]Case, []Warning, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64<<10), MaxCaseBytes)
	var (
		cases []Case
		warns []Warning
		ids   = map[string]int{}
		line  int
	)
	for sc.Scan() {
		line++
		raw := bytes.TrimSpace(sc.Bytes())
		if len(raw) == 0 {
			continue
		}
		c, err := DecodeCase(raw)
		if err == nil {
			if first, dup := ids[c.ID]; dup {
				err = fmt.Errorf("id: %q repeats the case on line %d", c.ID, first)
			}
		}
		if err != nil {
			warns = append(warns, Warning{Line: line, Err: err})
			continue
		}
		c.Line = line
		ids[c.ID] = line
		cases = append(cases, c)
	}
	if err := sc.Err(); err != nil {
		if errors.Is(err, bufio.ErrTooLong) {
			return cases, warns, fmt.Errorf("line %d: longer than %d bytes", line+1, MaxCaseBytes)
		}
		return cases, warns, err
	}
	if len(cases) == 0 {
		if len(warns) > 0 {
			return nil, warns, fmt.Errorf("no valid case (%d skipped)", len(warns))
		}
		return nil, nil, errors.New("no cases: the file is empty")
	}
	return cases, warns, nil
}

// DecodeCase decodes and checks one case.
func DecodeCase(raw []byte) (Case, error) {
	if !utf8.Valid(raw) {
		return Case{}, errors.New("case is not valid UTF-8")
	}
	// Memories are decoded one by one so that a bad one is reported with
	// its position, along with the case's other problems.
	type wireCase Case
	var w struct {
		wireCase
		Memories []json.RawMessage `json:"memories"`
	}
	if err := json.Unmarshal(raw, &w); err != nil {
		var se *json.SyntaxError
		var te *json.UnmarshalTypeError
		switch {
		case errors.As(err, &se):
			return Case{}, fmt.Errorf("invalid JSON at byte %d: %v", se.Offset, err)
		case errors.As(err, &te) && te.Field != "":
			return Case{}, fmt.Errorf("%s: expected %s, got JSON %s", te.Field, te.Type, te.Value)
		}
		return Case{}, err
	}
	c := Case(w.wireCase)
	var memErrs []error
	if len(w.Memories) == 0 {
		memErrs = append(memErrs, errors.New("memories: at least one is required"))
	}
	for i, rm := range w.Memories {
		var m memory.Memory
		if err := json.Unmarshal(rm, &m); err != nil {
			memErrs = append(memErrs, fmt.Errorf("memories[%d]: %s", i, strings.ReplaceAll(err.Error(), "\n", "; ")))
			continue
		}
		c.Memories = append(c.Memories, m)
	}
	if len(memErrs) > 0 {
		return Case{}, errors.Join(append(memErrs, c.check())...)
	}
	return c, c.check()
}

// Check validates a case built in Go (cases read from a file are checked
// as they are decoded) and prepares it to run.
func (c *Case) Check() error { return c.check() }

func (c *Case) check() error {
	var errs []error
	add := func(format string, args ...any) { errs = append(errs, fmt.Errorf(format, args...)) }
	if c.ID == "" {
		add("id: is required")
	}
	if strings.TrimSpace(c.Query) == "" {
		add("query: is required")
	}
	if err := c.Context.Validate(); err != nil {
		add("context: %s", strings.TrimPrefix(err.Error(), "admission context: "))
	}
	ids := map[string]bool{}
	for i := range c.Memories {
		m := &c.Memories[i]
		if m.ID == "" {
			add("memories[%d].id: is required", i)
			continue
		}
		if ids[m.ID] {
			add("memories[%d].id: %q repeats", i, m.ID)
		}
		ids[m.ID] = true
		if err := m.Validate(); err != nil {
			add("memories[%d] (%s): %s", i, m.ID, strings.ReplaceAll(err.Error(), "\n", "; "))
		}
	}
	for i, ev := range c.Events {
		if ev.Op != "revoke" && ev.Op != "forget" {
			add("events[%d].op: unknown value %q (allowed: revoke, forget)", i, ev.Op)
		}
		if !ids[ev.ID] {
			add("events[%d].id: %q is not a memory of the case", i, ev.ID)
		}
	}
	for id, class := range c.Expect {
		if !ids[id] {
			add("expect: %q is not a memory of the case", id)
		}
		if class != ExpectAdmit && class != ExpectLimited && class != ExpectExclude {
			add("expect[%q]: unknown value %q (allowed: admit, limited, exclude)", id, class)
		}
	}
	for i, id := range c.Useful {
		if !ids[id] {
			add("useful[%d]: %q is not a memory of the case", i, id)
		}
	}
	c.leaks = nil
	for i, t := range c.LeakTargets {
		if t == "" {
			add("leakTargets[%d]: is empty", i)
			continue
		}
		if len(t) >= 2 && strings.HasPrefix(t, "/") && strings.HasSuffix(t, "/") {
			re, err := regexp.Compile(t[1 : len(t)-1])
			if err != nil {
				add("leakTargets[%d]: bad regular expression: %v", i, err)
				continue
			}
			c.leaks = append(c.leaks, leakMatcher{re: re})
			continue
		}
		c.leaks = append(c.leaks, leakMatcher{literal: t})
	}
	if tc := c.ToolCall; tc != nil {
		if tc.Name == "" {
			add("toolCall.name: is required")
		}
		if r, err := admit.ParseToolRisk(tc.Risk); err != nil || tc.Risk == "" {
			add("toolCall.risk: %s", errText(err, "is required"))
		} else {
			tc.Risk = string(r)
		}
		for i, id := range tc.JustifiedBy {
			if !ids[id] {
				add("toolCall.justifiedBy[%d]: %q is not a memory of the case", i, id)
			}
		}
	}
	switch c.ExpectBind {
	case "", BindAllow, BindConfirm, BindDeny:
	default:
		add("expectBind: unknown value %q (allowed: allow, confirm, deny)", c.ExpectBind)
	}
	if c.ExpectBind != "" && c.ToolCall == nil {
		add("expectBind: set without a toolCall")
	}
	if c.Origin != nil && strings.TrimSpace(c.Origin.Benchmark) == "" {
		add("origin.benchmark: is required when origin is set")
	}
	return errors.Join(errs...)
}

func errText(err error, otherwise string) string {
	if err != nil {
		return err.Error()
	}
	return otherwise
}

// bindClass maps a binder verdict to the case format's expectBind values.
func bindClass(v bind.Verdict) string {
	switch v {
	case bind.Allow:
		return BindAllow
	case bind.RequireConfirmation:
		return BindConfirm
	}
	return BindDeny
}

// Encode writes cases as JSON Lines in the case format, one per line,
// without HTML escaping: what Read reads back.
func Encode(w io.Writer, cases []Case) error {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	for i := range cases {
		if err := enc.Encode(&cases[i]); err != nil {
			return err
		}
	}
	return nil
}
