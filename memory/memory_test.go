package memory

import (
	"errors"
	"io"
	"strings"
	"testing"
	"time"
)

func valid() Memory {
	return Memory{
		ID: "m1", Text: "Prefers window seats on long flights", UserID: "u1",
		Domain: "travel", SourceAuthority: AuthorityUserConfirmed, Kind: KindPreference,
		Classification: ClassInternal, CreatedAt: time.Date(2026, 5, 1, 9, 0, 0, 0, time.UTC),
	}
}

func TestValidate(t *testing.T) {
	tests := []struct {
		name   string
		mutate func(*Memory)
		field  string // "" means valid
	}{
		{"valid", func(*Memory) {}, ""},
		{"minimal", func(m *Memory) { *m = Memory{Text: "x", UserID: "u"} }, ""},
		{"empty text", func(m *Memory) { m.Text = "  \n" }, "text"},
		{"oversized text", func(m *Memory) { m.Text = strings.Repeat("a", MaxTextBytes+1) }, "text"},
		{"text at limit", func(m *Memory) { m.Text = strings.Repeat("a", MaxTextBytes) }, ""},
		{"invalid utf8", func(m *Memory) { m.Text = "ok \xff\xfe" }, "text"},
		{"missing user", func(m *Memory) { m.UserID = "" }, "userId"},
		{"user with space", func(m *Memory) { m.UserID = "u 1" }, "userId"},
		{"id with newline", func(m *Memory) { m.ID = "a\nb" }, "id"},
		{"long id", func(m *Memory) { m.ID = strings.Repeat("i", MaxIDBytes+1) }, "id"},
		{"project padded", func(m *Memory) { m.ProjectID = " p1" }, "projectId"},
		{"domain control", func(m *Memory) { m.Domain = "wo\x00rk" }, "domain"},
		{"unknown authority", func(m *Memory) { m.SourceAuthority = "admin" }, "sourceAuthority"},
		{"unknown kind", func(m *Memory) { m.Kind = "opinion" }, "kind"},
		{"unknown classification", func(m *Memory) { m.Classification = "secret" }, "classification"},
		{"expires before created", func(m *Memory) { m.ExpiresAt = m.CreatedAt.Add(-time.Hour) }, "expiresAt"},
		{"expires at created", func(m *Memory) { m.ExpiresAt = m.CreatedAt }, "expiresAt"},
		{"expires after created", func(m *Memory) { m.ExpiresAt = m.CreatedAt.Add(time.Hour) }, ""},
		{"revokedAt without revoked", func(m *Memory) { m.RevokedAt = m.CreatedAt }, "revoked"},
		{"revoked with reason", func(m *Memory) { m.Revoked, m.RevokedReason = true, "wrong" }, ""},
		{"self lineage", func(m *Memory) { m.LineageRefs = []string{"m1"} }, "lineageRefs[0]"},
		{"repeated lineage", func(m *Memory) { m.LineageRefs = []string{"a", "a"} }, "lineageRefs[1]"},
		{"empty supersedes", func(m *Memory) { m.Supersedes = []string{""} }, "supersedes[0]"},
		{"too many refs", func(m *Memory) { m.Supersedes = make([]string, MaxRefs+1) }, "supersedes"},
		{"empty role", func(m *Memory) { m.Audience = []string{"role:"} }, "audience[0]"},
		{"audience ok", func(m *Memory) { m.Audience = []string{"agent-7", "role:family"} }, ""},
		{"zero embedding", func(m *Memory) { m.Embedding = []float32{0, 0} }, "embedding"},
		{"nan embedding", func(m *Memory) { m.Embedding = []float32{1, float32(nan())} }, "embedding"},
		{"huge embedding", func(m *Memory) { m.Embedding = make([]float32, MaxEmbeddingDim+1) }, "embedding"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := valid()
			tt.mutate(&m)
			err := m.Validate()
			if tt.field == "" {
				if err != nil {
					t.Fatalf("Validate() = %v, want nil", err)
				}
				return
			}
			var fe *FieldError
			if !errors.As(err, &fe) {
				t.Fatalf("Validate() = %v, want a *FieldError for %s", err, tt.field)
			}
			if fe.Field != tt.field {
				t.Fatalf("Validate() names field %q (%v), want %q", fe.Field, err, tt.field)
			}
		})
	}
}

func nan() float64 { var z float64; return z / z }

func TestValidateReportsEveryProblem(t *testing.T) {
	m := Memory{Kind: "opinion", Classification: "secret"}
	err := m.Validate()
	for _, f := range []string{"text", "userId", "kind", "classification"} {
		if !strings.Contains(err.Error(), f+":") {
			t.Errorf("error %q does not mention %s", err, f)
		}
	}
}

func TestUnknownEnumNamesAllowedValues(t *testing.T) {
	_, err := DecodeRecord([]byte(`{"text":"t","userId":"u","sourceAuthority":"root"}`))
	want := `sourceAuthority: unknown value "root" (allowed: system, user_confirmed, tool_verified, model_inferred, external)`
	if err == nil || err.Error() != want {
		t.Fatalf("got %v, want %s", err, want)
	}
}

func TestDecodeRecord(t *testing.T) {
	tests := []struct {
		name, in, errHas string
	}{
		{"full", `{"id":"m1","text":"Blood test on Friday","userId":"u1","domain":"health","sourceAuthority":"user_confirmed","kind":"event","classification":"restricted","createdAt":"2026-05-01T09:00:00Z","expiresAt":"2026-06-01","lineageRefs":["m0"],"audience":["role:family"]}`, ""},
		{"bad date", `{"text":"t","userId":"u","createdAt":"yesterday"}`, `createdAt: cannot parse "yesterday"`},
		{"wrong type", `{"text":"t","userId":7}`, "userId: expected a string, got JSON number"},
		{"wrong array type", `{"text":"t","userId":"u","lineageRefs":"m1"}`, "lineageRefs: expected an array, got JSON string"},
		{"not an object", `[1,2]`, "record must be a JSON object"},
		{"syntax", `{"text":"t",`, "invalid JSON"},
		{"invalid utf8", "{\"text\":\"\xff\",\"userId\":\"u\"}", "not valid UTF-8"},
		{"lone surrogate escape is refused, not replaced", `{"text":"a\ud800b","userId":"u"}`, "lone UTF-16 surrogate"},
		{"expiry before creation", `{"text":"t","userId":"u","createdAt":"2026-05-02","expiresAt":"2026-05-01"}`, "expiresAt: 2026-05-01T00:00:00Z is not after createdAt"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m, err := DecodeRecord([]byte(tt.in))
			if tt.errHas == "" {
				if err != nil {
					t.Fatalf("DecodeRecord: %v", err)
				}
				if m.UserID == "" || m.Text == "" {
					t.Fatalf("decoded %+v lost fields", m)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tt.errHas) {
				t.Fatalf("DecodeRecord error = %v, want it to contain %q", err, tt.errHas)
			}
		})
	}
}

func TestRoundTrip(t *testing.T) {
	m := valid()
	m.ExpiresAt = m.CreatedAt.Add(48 * time.Hour)
	m.Revoked, m.RevokedAt, m.RevokedReason = true, m.CreatedAt.Add(time.Hour), "user asked"
	m.LineageRefs, m.Supersedes, m.Audience = []string{"a"}, []string{"b"}, []string{"role:x"}
	var sb strings.Builder
	if err := NewEncoder(&sb).Encode(&m); err != nil {
		t.Fatal(err)
	}
	got, err := DecodeRecord([]byte(sb.String()))
	if err != nil {
		t.Fatalf("decode %s: %v", sb.String(), err)
	}
	if got.ID != m.ID || got.Text != m.Text || !got.ExpiresAt.Equal(m.ExpiresAt) || !got.RevokedAt.Equal(m.RevokedAt) ||
		got.RevokedReason != m.RevokedReason || got.Supersedes[0] != "b" || got.Audience[0] != "role:x" || got.Kind != m.Kind {
		t.Fatalf("round trip changed the memory:\n got %+v\nwant %+v", got, m)
	}
}

func TestDecoderLineNumbers(t *testing.T) {
	in := strings.Join([]string{
		`{"text":"one","userId":"u"}`,
		``,
		`{"text":"","userId":"u"}`,
		`not json`,
		`{"text":"five","userId":"u","kind":"fact"}`,
	}, "\n")
	d := NewDecoder(strings.NewReader(in))
	type result struct {
		line int
		ok   bool
	}
	var got []result
	for {
		_, line, err := d.Next()
		if err == io.EOF {
			break
		}
		var le *LineError
		if err != nil && (!errors.As(err, &le) || le.Line != line) {
			t.Fatalf("error %v is not a LineError for line %d", err, line)
		}
		got = append(got, result{line, err == nil})
	}
	want := []result{{1, true}, {3, false}, {4, false}, {5, true}}
	if len(got) != len(want) {
		t.Fatalf("got %v, want %v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("got %v, want %v", got, want)
		}
	}
}

func TestDecoderLongLine(t *testing.T) {
	in := `{"text":"ok","userId":"u"}` + "\n" + strings.Repeat("x", MaxLineBytes+10) + "\n" + `{"text":"after","userId":"u"}`
	d := NewDecoder(strings.NewReader(in))
	if _, _, err := d.Next(); err != nil {
		t.Fatal(err)
	}
	_, line, err := d.Next()
	if err == nil || line != 2 || !strings.Contains(err.Error(), "longer than") {
		t.Fatalf("got line %d err %v, want a too-long error on line 2", line, err)
	}
	if _, _, err := d.Next(); err != io.EOF {
		t.Fatalf("after a fatal line error Next = %v, want io.EOF", err)
	}
}

func TestFilterMatches(t *testing.T) {
	m := &Memory{UserID: "u1", ProjectID: "p1"}
	tests := []struct {
		f    Filter
		want bool
	}{
		{Filter{UserID: "u1"}, true},
		{Filter{UserID: "u2"}, false},
		{Filter{UserID: "u1", ProjectID: "p1"}, true},
		{Filter{UserID: "u1", ProjectID: "p2"}, false},
		{Filter{UserID: "u1", Domain: "health"}, true}, // unscoped domain matches every domain
	}
	for _, tt := range tests {
		if got := tt.f.Matches(m); got != tt.want {
			t.Errorf("%+v.Matches = %v, want %v", tt.f, got, tt.want)
		}
	}
}

func TestAuthorityRank(t *testing.T) {
	for i := 1; i < len(Authorities)-1; i++ {
		if Authorities[i-1].Rank() <= Authorities[i].Rank() {
			t.Errorf("%s should outrank %s", Authorities[i-1], Authorities[i])
		}
	}
	if !AuthorityExternal.Low() || !AuthorityModelInferred.Low() || !Authority("").Low() || AuthorityToolVerified.Low() {
		t.Error("Low() misclassifies authorities")
	}
}
