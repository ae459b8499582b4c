package memory

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"reflect"
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
		// Unknown, misspelt, wrongly cased and repeated keys (issue 8, item 7).
		`{"text":"t","userId":"u","sourceAuthorty":"system"}`,
		`{"Text":"t","userId":"u"}`,
		`{"text":"t","userId":"u","text":"again"}`,
		`{"text":"t","userId":"u","te\u0078t":"escaped repeat"}`,
		`{"text":"t","userId":"u","x":1,"x":2,"supersededBy":["m2"]}`,
		`{"text":"t","userId":"u","supersededBy":[],"supersededBy":[]}`,
		`{"text":"t","userId":"u"} {"text":"t2"}`,
		// Dates at and beyond the store's range (item 6).
		`{"text":"t","userId":"u","expiresAt":"9999-12-31"}`,
		`{"text":"t","userId":"u","createdAt":"0001-01-01T00:00:00Z"}`,
		`{"text":"t","userId":"u","createdAt":"1678-01-01","expiresAt":"2261-12-31T23:59:59.999999999Z"}`,
		`{"text":"t","userId":"u","revoked":true,"revokedAt":"2262-04-11T23:47:16.854775808Z"}`,
		// Invisible, control and decomposed characters in ids (item 4).
		`{"text":"t","userId":"u\u200b1"}`,
		`{"text":"t","userId":"jose\u0301","domain":"sante\u0301","audience":["role:e\u0301quipe"]}`,
		`{"text":"t","userId":"u","projectId":"p\u202ex","lineageRefs":["m\u0000"]}`,
		// Text with nothing visible, and with only symbols (item 9).
		`{"text":"\u200b\u200d","userId":"u"}`,
		`{"text":"😀","userId":"u"}`,
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
	f.Add([]byte("{\"text\":\"a\",\"userId\":\"u\",\"sourceAuthorty\":\"system\"}\n{\"text\":\"b\",\"userId\":\"u\",\"userId\":\"v\"}\n"))
	f.Add([]byte("{\"text\":\"a\",\"userId\":\"u\u200b1\",\"expiresAt\":\"9999-12-31\"}\r\n\n{\"text\":\"b\",\"userId\":\"u\"}"))
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
	f.Add("m\u200b1", "\u200b", "jose\u0301", "p\u202e", "sante\u0301", "", "", "", "r\ufeff", "role:e\u0301", int64(1), int64(1<<33-1))
	f.Add("m1", "😀", "u1", "car claim", " work", "", "", "", "", "", int64(1<<33-1), int64(1<<33-1))
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

// FuzzDecodeFastPath: the fast path for plain records decodes exactly what
// the key-by-key path does, and finds no problem that it would report.
func FuzzDecodeFastPath(f *testing.F) {
	for _, s := range []string{
		`{"id":"m1","text":"a \"quoted\" text, with {braces} and [brackets]","userId":"u1","lineageRefs":["a","b"],"embedding":[0.5,-1e-3]}`,
		`{"text":"t","userId":"u","text":"t"}`,
		`{"text":"t","userId":"u","revoked":true,"revokedAt":null,"supersededBy":["x"]}`,
		`{"text":"t","userId":"u","kind":{"nested":["}"]}}`,
		`{"te\u0078t":"t","userId":"u"}`,
		` { "text" : "t\\" , "userId":"u" } `,
		`{"text":"t","userId":"u"}x`,
		`{"text":"t","userId":"u",}`,
		`{}`, `{"text":"t"`, `"x"`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var fast, slow wire
		errsFast, errFast := decodeObject(data, &fast)
		errsSlow, errSlow := decodeKeyByKey(data, &slow)
		if (errFast == nil) != (errSlow == nil) || len(errsFast) != len(errsSlow) {
			t.Fatalf("fast path %v %v, key by key %v %v", errFast, errsFast, errSlow, errsSlow)
		}
		if errFast == nil && len(errsFast) == 0 && !reflect.DeepEqual(fast, slow) {
			t.Fatalf("fast path decoded %+v, key by key %+v", fast, slow)
		}
	})
}
