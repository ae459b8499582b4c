package memory

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"testing"
	"time"
)

// FuzzDecodeRecord checks that no input panics the decoder, that every error
// is descriptive, and that every accepted record validates and survives an
// encode/decode round trip unchanged.
func FuzzDecodeRecord(f *testing.F) {
	for _, s := range []string{
		`{"id":"m1","text":"hello","userId":"u1"}`,
		`{"text":"t","userId":"u","createdAt":"2026-05-01","expiresAt":"2026-05-02T10:00:00.5+02:00"}`,
		`{"text":"t","userId":"u","lineageRefs":["a","b"],"audience":["role:x"],"embedding":[0.1,0.2]}`,
		`{"text":"t","userId":"u","kind":"nope"}`,
		`[]`, `null`, `{"text":1}`, "{\"text\":\"\xff\"}",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		m, err := DecodeRecord(raw)
		if err != nil {
			if err.Error() == "" {
				t.Fatal("empty error message")
			}
			return
		}
		if err := m.Validate(); err != nil {
			t.Fatalf("accepted record fails Validate: %v", err)
		}
		out, err := json.Marshal(&m)
		if err != nil {
			t.Fatalf("marshal accepted record: %v", err)
		}
		m2, err := DecodeRecord(out)
		if err != nil {
			t.Fatalf("re-decode %s: %v", out, err)
		}
		out2, _ := json.Marshal(&m2)
		if !bytes.Equal(out, out2) {
			t.Fatalf("round trip changed record:\n%s\n%s", out, out2)
		}
	})
}

// FuzzDecoder checks that the JSON Lines decoder terminates with line numbers
// that only increase, whatever the input.
func FuzzDecoder(f *testing.F) {
	f.Add([]byte("{\"text\":\"a\",\"userId\":\"u\"}\n\n{bad\n"))
	f.Add([]byte("\n\n\n"))
	f.Fuzz(func(t *testing.T, raw []byte) {
		d := NewDecoder(bytes.NewReader(raw))
		last := 0
		for i := 0; ; i++ {
			_, line, err := d.Next()
			if errors.Is(err, io.EOF) {
				return
			}
			if line <= last {
				t.Fatalf("line %d after line %d", line, last)
			}
			last = line
			if i > len(raw)+1 {
				t.Fatal("decoder does not terminate")
			}
		}
	})
}

// FuzzValidate builds memories from arbitrary field values: Validate must
// never panic, must name a field in every error, and an accepted memory must
// survive a JSON round trip as valid.
func FuzzValidate(f *testing.F) {
	f.Add("m1", "text", "u1", "p1", "work", "user_confirmed", "fact", "public", "ref", "role:x", int64(0), int64(3600))
	f.Add("", " ", "", "\x00", "", "admin", "x", "secret", "", "role:", int64(-5), int64(-10))
	f.Fuzz(func(t *testing.T, id, text, user, project, domain, auth, kind, class, ref, aud string, created, expiresDelta int64) {
		m := Memory{ID: id, Text: text, UserID: user, ProjectID: project, Domain: domain,
			SourceAuthority: Authority(auth), Kind: Kind(kind), Classification: Classification(class)}
		if ref != "" {
			m.LineageRefs = []string{ref}
		}
		if aud != "" {
			m.Audience = []string{aud}
		}
		if created != 0 {
			m.CreatedAt = time.Unix(created%(1<<33), 0).UTC()
			m.ExpiresAt = m.CreatedAt.Add(time.Duration(expiresDelta%(1<<33)) * time.Second)
		}
		err := m.Validate()
		if err != nil {
			var fe *FieldError
			if !errors.As(err, &fe) || fe.Field == "" {
				t.Fatalf("error without a field: %v", err)
			}
			return
		}
		raw, err := json.Marshal(&m)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := DecodeRecord(raw); err != nil {
			t.Fatalf("valid memory does not decode back: %v\n%s", err, raw)
		}
	})
}
