package memory

import (
	"errors"
	"io"
	"slices"
	"strings"
	"testing"
	"time"
)

// Ids and labels: NFC, and nothing invisible, control, private-use or
// unassigned (issue 8, item 4).
func TestIDCharacters(t *testing.T) {
	set := map[string]func(m *Memory, s string){
		"id":             func(m *Memory, s string) { m.ID = s },
		"userId":         func(m *Memory, s string) { m.UserID = s },
		"workspaceId":    func(m *Memory, s string) { m.WorkspaceID = s },
		"projectId":      func(m *Memory, s string) { m.ProjectID = s },
		"domain":         func(m *Memory, s string) { m.Domain = s },
		"lineageRefs[0]": func(m *Memory, s string) { m.LineageRefs = []string{s} },
		"supersedes[0]":  func(m *Memory, s string) { m.Supersedes = []string{s} },
		"audience[0]":    func(m *Memory, s string) { m.Audience = []string{s} },
	}
	tests := []struct {
		value string
		want  string // "" means valid in every field
	}{
		{"u1", ""},
		{"josé", ""},
		{"用户-1", ""},
		{"🦊", ""},
		{"u\u200b1", "contains an invisible or control character U+200B at byte 1"},
		{"u\u200d1", "contains an invisible or control character U+200D at byte 1"},
		{"\ufeffu1", "contains an invisible or control character U+FEFF at byte 0"},
		{"u1\u202e", "contains an invisible or control character U+202E at byte 2"},
		{"u\u2066x\u2069", "U+2066 at byte 1"},
		{"u\x001", "contains an invisible or control character U+0000 at byte 1"},
		{"u\x1b[2J", "U+001B at byte 1"},
		{"u\u00ad1", "U+00AD at byte 1"},
		{"u1\ufe0f", "U+FE0F at byte 2"},
		{"u\u31641", "U+3164 at byte 1"},
		{"u\U000e0041", "U+E0041 at byte 1"},
		{"u\u2028", "contains whitespace U+2028 at byte 1"},
		{"u\u00a01", "contains whitespace U+00A0 at byte 1"},
		{"u\ue0001", "contains a private-use or unassigned character U+E000 at byte 1"},
		{"u\U000effff", "private-use or unassigned character U+EFFFF"},
		{"u\ufffd", "contains U+FFFD"},
		{"jose\u0301", "is not in Unicode NFC form"},
		{"u\xff", "is not valid UTF-8"},
	}
	for _, tt := range tests {
		for field, apply := range set {
			m := valid()
			apply(&m, tt.value)
			err := m.Validate()
			if tt.want == "" {
				if err != nil {
					t.Errorf("%s = %q: Validate() = %v, want nil", field, tt.value, err)
				}
				continue
			}
			if err == nil || !strings.Contains(err.Error(), field+": ") || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("%s = %q: Validate() = %v, want %q", field, tt.value, err, field+": …"+tt.want)
			}
			if err != nil && strings.ContainsAny(err.Error(), "\u200b\u202e\x00\x1b") {
				t.Errorf("%s = %q: error %q repeats the raw character", field, tt.value, err)
			}
		}
	}
}

// Ids may not contain whitespace; labels may contain inner plain spaces.
func TestIDSpaces(t *testing.T) {
	m := valid()
	m.ProjectID, m.WorkspaceID, m.Domain = "car claim", "home office", "family life"
	if err := m.Validate(); err != nil {
		t.Fatalf("labels with inner spaces: %v", err)
	}
	m.UserID = "u 1"
	if err := m.Validate(); err == nil || !strings.Contains(err.Error(), "userId: contains a space at byte 1") {
		t.Fatalf("user id with a space: %v", err)
	}
	m = valid()
	m.Domain = "family\tlife"
	if err := m.Validate(); err == nil || !strings.Contains(err.Error(), "domain: contains whitespace U+0009 at byte 6") {
		t.Fatalf("label with a tab: %v", err)
	}
}

func TestCheckIDAndLabel(t *testing.T) {
	if err := CheckID("principal.id", "agent\u200b7"); err == nil || err.Error() != "principal.id: contains an invisible or control character U+200B at byte 5" {
		t.Errorf("CheckID = %v", err)
	}
	if err := CheckLabel("domain", " work"); err == nil || !strings.Contains(err.Error(), "leading or trailing whitespace") {
		t.Errorf("CheckLabel = %v", err)
	}
	if err := CheckLabel("domain", ""); err != nil {
		t.Errorf("empty label: %v", err)
	}
	if got := NormalizeID("jose\u0301"); got != "josé" {
		t.Errorf("NormalizeID = %q", got)
	}
}

func TestNormalize(t *testing.T) {
	refs := []string{"m\u0301", "plain"}
	aud := []string{"role:e\u0301quipe"}
	m := Memory{ID: "A\u030a", Text: "e\u0301 stays as written", UserID: "jose\u0301", WorkspaceID: "w\u0301",
		ProjectID: "p\u0301", Domain: "sante\u0301", LineageRefs: refs, Supersedes: []string{"x"}, Audience: aud}
	m.Normalize()
	want := Memory{ID: "Å", Text: "e\u0301 stays as written", UserID: "josé", WorkspaceID: "ẃ",
		ProjectID: "ṕ", Domain: "santé", LineageRefs: []string{"ḿ", "plain"}, Supersedes: []string{"x"}, Audience: []string{"role:équipe"}}
	if m.ID != want.ID || m.Text != want.Text || m.UserID != want.UserID || m.WorkspaceID != want.WorkspaceID ||
		m.ProjectID != want.ProjectID || m.Domain != want.Domain || !slices.Equal(m.LineageRefs, want.LineageRefs) ||
		!slices.Equal(m.Supersedes, want.Supersedes) || !slices.Equal(m.Audience, want.Audience) {
		t.Fatalf("Normalize:\n got %+v\nwant %+v", m, want)
	}
	if refs[0] != "m\u0301" || aud[0] != "role:e\u0301quipe" {
		t.Fatal("Normalize wrote through to the caller's slices")
	}
	if err := m.Validate(); err != nil {
		t.Fatalf("normalized memory: %v", err)
	}
}

func TestDecodeNormalizesIDs(t *testing.T) {
	m, err := DecodeRecord([]byte(`{"text":"t","userId":"jose\u0301","domain":"sante\u0301","lineageRefs":["m\u0301"]}`))
	if err != nil {
		t.Fatal(err)
	}
	if m.UserID != "josé" || m.Domain != "santé" || m.LineageRefs[0] != "ḿ" {
		t.Fatalf("decoded ids not in NFC: %+q %+q %+q", m.UserID, m.Domain, m.LineageRefs)
	}
	if _, err := DecodeRecord([]byte(`{"text":"t","userId":"u\u200b1"}`)); err == nil ||
		err.Error() != "userId: contains an invisible or control character U+200B at byte 1" {
		t.Fatalf("zero-width user id: %v", err)
	}
}

func TestFilterValidate(t *testing.T) {
	f := Filter{UserID: "jose\u0301", Domain: "sante\u0301"}
	f.Normalize()
	if f.UserID != "josé" || f.Domain != "santé" {
		t.Fatalf("Filter.Normalize: %+q", f)
	}
	if err := f.Validate(); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		f    Filter
		want string
	}{
		{Filter{UserID: "u\u200b1"}, "userId: contains an invisible or control character U+200B at byte 1"},
		{Filter{UserID: "u1", WorkspaceID: "w\x00"}, "workspaceId: contains an invisible or control character U+0000 at byte 1"},
		{Filter{UserID: "u1", ProjectID: "p\u202e"}, "projectId: contains an invisible"},
		{Filter{UserID: "u1", Domain: "e\u0301"}, "domain: is not in Unicode NFC form"},
	} {
		if err := tt.f.Validate(); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%+q.Validate() = %v, want %q", tt.f, err, tt.want)
		}
	}
}

// Text must show something; it may contain invisible characters among
// visible ones (an emoji sequence uses a joiner).
func TestTextVisible(t *testing.T) {
	for text, want := range map[string]string{
		"\u200b\u200d":      "text: has no visible characters",
		"\u202e \ufeff":     "text: has no visible characters",
		" \n\t":             "text: must not be empty",
		"😀":                 "",
		"!!!":               "",
		"👨\u200d👩\u200d👧":   "",
		"a\u200bb":          "",
		"line\nwith\x00nul": "",
	} {
		m := valid()
		m.Text = text
		err := m.Validate()
		if want == "" {
			if err != nil {
				t.Errorf("text %q: %v", text, err)
			}
			continue
		}
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("text %q: Validate() = %v, want %q", text, err, want)
		}
	}
	if err := CheckText("query", "\u200b"); err == nil || !strings.HasPrefix(err.Error(), "query: has no visible characters") {
		t.Errorf("CheckText = %v", err)
	}
}

// Times must fit the store's range; the zero time is not a date (issue 8,
// item 6).
func TestTimeRange(t *testing.T) {
	day := func(y int, mo time.Month, d int) time.Time { return time.Date(y, mo, d, 0, 0, 0, 0, time.UTC) }
	tests := []struct {
		name   string
		mutate func(*Memory)
		want   string
	}{
		{"created 2300", func(m *Memory) { m.CreatedAt, m.ExpiresAt = day(2300, 1, 1), time.Time{} }, "createdAt: 2300-01-01T00:00:00Z is after 2261-12-31"},
		{"expires 9999", func(m *Memory) { m.ExpiresAt = day(9999, 12, 31) }, "expiresAt: 9999-12-31T00:00:00Z is after 2261-12-31"},
		{"revoked 1600", func(m *Memory) { m.Revoked, m.RevokedAt = true, day(1600, 1, 1) }, "revokedAt: 1600-01-01T00:00:00Z is before 1678-01-01"},
		{"created at min", func(m *Memory) { m.CreatedAt = MinTime }, ""},
		{"expires at max", func(m *Memory) { m.ExpiresAt = MaxTime }, ""},
		{"expires 2261", func(m *Memory) { m.ExpiresAt = day(2261, 12, 31) }, ""},
		{"after max", func(m *Memory) { m.ExpiresAt = MaxTime.Add(time.Nanosecond) }, "expiresAt: "},
		{"before min", func(m *Memory) { m.CreatedAt = MinTime.Add(-time.Nanosecond) }, "createdAt: "},
	}
	for _, tt := range tests {
		m := valid()
		tt.mutate(&m)
		err := m.Validate()
		if tt.want == "" {
			if err != nil {
				t.Errorf("%s: %v", tt.name, err)
			}
			continue
		}
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: Validate() = %v, want %q", tt.name, err, tt.want)
		}
	}
}

func TestParseTimeRange(t *testing.T) {
	tests := []struct{ in, want string }{
		{"", ""},
		{"2026-06-11", ""},
		{"2026-06-11T10:00:00.5+02:00", ""},
		{"2261-12-31", ""},
		{"1678-01-01T00:00:00Z", ""},
		{"9999-12-31", `9999-12-31T00:00:00Z is after 2261-12-31, the latest date memgate can store (leave the date out to mean "never")`},
		{"2300-01-01", "is after 2261-12-31"},
		{"2262-04-12T00:00:00Z", "is after 2261-12-31"},
		{"2261-12-31T23:59:59-01:00", "2262-01-01T00:59:59Z is after 2261-12-31"},
		{"1677-09-21", "1677-09-21T00:00:00Z is before 1678-01-01, the earliest date memgate can store"},
		{"0001-01-01", "is the zero time, not a date; leave the date out instead"},
		{"0001-01-01T00:00:00Z", "is the zero time, not a date"},
		{"yesterday", `cannot parse "yesterday"`},
	}
	for _, tt := range tests {
		got, err := ParseTime(tt.in)
		if tt.want == "" {
			if err != nil {
				t.Errorf("ParseTime(%q) = %v", tt.in, err)
			} else if tt.in != "" && (got.Before(MinTime) || got.After(MaxTime)) {
				t.Errorf("ParseTime(%q) = %v, outside the range", tt.in, got)
			}
			continue
		}
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("ParseTime(%q) = %v, %v; want error %q", tt.in, got, err, tt.want)
		}
	}
}

func TestDecodeTimeRange(t *testing.T) {
	for in, want := range map[string]string{
		`{"text":"t","userId":"u","expiresAt":"0001-01-01T00:00:00Z"}`:                "expiresAt: 0001-01-01T00:00:00Z is the zero time",
		`{"text":"t","userId":"u","createdAt":"0001-01-01"}`:                          "createdAt: 0001-01-01T00:00:00Z is the zero time",
		`{"text":"t","userId":"u","expiresAt":"9999-12-31"}`:                          "expiresAt: 9999-12-31T00:00:00Z is after 2261-12-31",
		`{"text":"t","userId":"u","revoked":true,"revokedAt":"2300-01-01T00:00:00Z"}`: "revokedAt: 2300-01-01T00:00:00Z is after",
	} {
		if _, err := DecodeRecord([]byte(in)); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("DecodeRecord(%s) = %v, want %q", in, err, want)
		}
	}
}

// Unknown and repeated keys are refused, naming the key (issue 8, item 7).
func TestDecodeStrictKeys(t *testing.T) {
	tests := []struct{ name, in, want string }{
		{"misspelt", `{"text":"t","userId":"u","sourceAuthorty":"system"}`, `sourceAuthorty: unknown key (did you mean "sourceAuthority"?)`},
		{"wrong case", `{"Text":"t","userId":"u"}`, `Text: unknown key (did you mean "text"?)`},
		{"unrelated", `{"text":"t","userId":"u","someOtherTool":42}`, `someOtherTool: unknown key`},
		{"repeated", `{"text":"t","userId":"u","text":"other"}`, `text: repeated key (each key may appear once)`},
		{"repeated via escape", `{"text":"t","userId":"u","te\u0078t":"other"}`, `text: repeated key`},
		{"repeated unknown", `{"text":"t","userId":"u","x":1,"x":2}`, `x: unknown key`},
		{"hostile key", "{\"text\":\"t\",\"userId\":\"u\",\"a\\u202eb\":1}", `"a\u202eb": unknown key`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := DecodeRecord([]byte(tt.in))
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("DecodeRecord = %v, want %q", err, tt.want)
			}
			if strings.ContainsRune(err.Error(), '\u202e') {
				t.Fatalf("error %q repeats a bidi override", err)
			}
		})
	}
	// Every problem is reported once, and many are capped.
	_, err := DecodeRecord([]byte(`{"text":"t","userId":"u","x":1,"x":2,"text":"a","text":"b"}`))
	if err == nil || strings.Count(err.Error(), "x: unknown key") != 1 || strings.Count(err.Error(), "text: repeated key") != 1 {
		t.Fatalf("repeated problems: %v", err)
	}
	var sb strings.Builder
	sb.WriteString(`{"text":"t","userId":"u"`)
	for i := range 1000 {
		sb.WriteString(`,"k` + strings.Repeat("x", i%7) + string(rune('a'+i%26)) + `":1`)
	}
	sb.WriteString("}")
	_, err = DecodeRecord([]byte(sb.String()))
	if err == nil || strings.Count(err.Error(), "\n") > maxKeyErrors+1 || !strings.Contains(err.Error(), "more unknown or repeated keys") {
		t.Fatalf("many bad keys: %d lines: %.300v", strings.Count(err.Error(), "\n"), err)
	}
	// supersededBy is derived by the store; an export writes it, so an
	// import accepts and ignores it.
	m, err := DecodeRecord([]byte(`{"text":"t","userId":"u","supersededBy":["m9"]}`))
	if err != nil || m.SupersededBy != nil {
		t.Fatalf("supersededBy: %+v, %v", m, err)
	}
}

func TestDecoderStrictKeysLineNumbers(t *testing.T) {
	in := "{\"text\":\"a\",\"userId\":\"u\"}\n\n{\"text\":\"b\",\"userId\":\"u\",\"sourceAuthorty\":\"system\"}\n{\"text\":\"c\",\"userId\":\"u\",\"userId\":\"v\"}\n"
	d := NewDecoder(strings.NewReader(in))
	var got []string
	for {
		_, _, err := d.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			got = append(got, err.Error())
		}
	}
	want := []string{
		`line 3: sourceAuthorty: unknown key (did you mean "sourceAuthority"?)`,
		`line 4: userId: repeated key (each key may appear once)`,
	}
	if !slices.Equal(got, want) {
		t.Fatalf("got %q\nwant %q", got, want)
	}
}

// A type error names its field and does not add "is required" or "must not
// be empty" for the same field; every field's type error is reported.
func TestDecodeTypeErrors(t *testing.T) {
	_, err := DecodeRecord([]byte(`{"text":1,"userId":7,"revoked":"yes","kind":"fact"}`))
	if err == nil {
		t.Fatal("accepted")
	}
	for _, want := range []string{"text: expected a string, got JSON number", "userId: expected a string, got JSON number", "revoked: expected true or false, got JSON string"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q lacks %q", err, want)
		}
	}
	for _, spurious := range []string{"is required", "must not be empty"} {
		if strings.Contains(err.Error(), spurious) {
			t.Errorf("error %q has a spurious %q", err, spurious)
		}
	}
	// A type error still reports the other fields' problems.
	_, err = DecodeRecord([]byte(`{"text":"t","userId":7,"domain":" x"}`))
	if err == nil || !strings.Contains(err.Error(), "domain: ") {
		t.Errorf("other field's problem not reported: %v", err)
	}
}

// A lone surrogate escape would be decoded as U+FFFD: the text would change
// silently, so the record is refused; a proper pair is a character.
func TestDecodeLoneSurrogate(t *testing.T) {
	tests := []struct {
		in  string
		bad bool
	}{
		{`{"userId":"u","text":"a\ud800"}`, true},
		{`{"userId":"u","text":"a\udc00b"}`, true},
		{`{"userId":"u","text":"a\ud800\u0041"}`, true},
		{`{"userId":"u","text":"smile \ud83d\ude00"}`, false},
		{`{"userId":"u","text":"a backslash \\ud800 is text"}`, false},
		{`{"userId":"u","text":"plain"}`, false},
	}
	for _, tt := range tests {
		_, err := DecodeRecord([]byte(tt.in))
		if got := err != nil && strings.Contains(err.Error(), "surrogate"); got != tt.bad {
			t.Errorf("%s: err %v, want refused %v", tt.in, err, tt.bad)
		}
	}
}
