package memory

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"
	"unicode/utf8"
)

// wire is the JSON shape of a Memory as read from outside. Dates are strings so
// that a bad one is reported with its field name rather than Go's generic
// time parsing message.
type wire struct {
	ID              string    `json:"id"`
	Text            string    `json:"text"`
	UserID          string    `json:"userId"`
	WorkspaceID     string    `json:"workspaceId"`
	ProjectID       string    `json:"projectId"`
	Domain          string    `json:"domain"`
	SourceAuthority string    `json:"sourceAuthority"`
	Kind            string    `json:"kind"`
	Classification  string    `json:"classification"`
	CreatedAt       string    `json:"createdAt"`
	ExpiresAt       string    `json:"expiresAt"`
	Revoked         bool      `json:"revoked"`
	RevokedAt       string    `json:"revokedAt"`
	RevokedReason   string    `json:"revokedReason"`
	LineageRefs     []string  `json:"lineageRefs"`
	Supersedes      []string  `json:"supersedes"`
	Audience        []string  `json:"audience"`
	Embedding       []float32 `json:"embedding"`
}

// UnmarshalJSON decodes a memory from the specification's JSON form. Unknown
// fields are ignored, so records from other tools import as they are. Type
// errors, unknown enumeration values and unparseable dates are reported as
// *FieldError values naming the field. supersededBy is derived by the store
// and ignored here.
func (m *Memory) UnmarshalJSON(data []byte) error {
	var w wire
	if err := json.Unmarshal(data, &w); err != nil {
		return jsonFieldError(err)
	}
	var errs []error
	out := Memory{
		ID: w.ID, Text: w.Text, UserID: w.UserID,
		WorkspaceID: w.WorkspaceID, ProjectID: w.ProjectID, Domain: w.Domain,
		Revoked: w.Revoked, RevokedReason: w.RevokedReason,
		LineageRefs: w.LineageRefs, Supersedes: w.Supersedes, Audience: w.Audience,
		Embedding: w.Embedding,
	}
	var err error
	if out.SourceAuthority, err = ParseAuthority(w.SourceAuthority); err != nil {
		errs = append(errs, &FieldError{"sourceAuthority", err.Error()})
	}
	if out.Kind, err = ParseKind(w.Kind); err != nil {
		errs = append(errs, &FieldError{"kind", err.Error()})
	}
	if out.Classification, err = ParseClassification(w.Classification); err != nil {
		errs = append(errs, &FieldError{"classification", err.Error()})
	}
	for _, d := range []struct {
		field string
		in    string
		out   *time.Time
	}{
		{"createdAt", w.CreatedAt, &out.CreatedAt},
		{"expiresAt", w.ExpiresAt, &out.ExpiresAt},
		{"revokedAt", w.RevokedAt, &out.RevokedAt},
	} {
		if *d.out, err = ParseTime(d.in); err != nil {
			errs = append(errs, &FieldError{d.field, err.Error()})
		}
	}
	// Keep what did decode, so that a caller can report the remaining
	// fields' problems too; the error still rejects the record.
	*m = out
	return errors.Join(errs...)
}

// ParseTime parses a timestamp as RFC 3339 (with or without fractional
// seconds) or as a plain date (2006-01-02, midnight UTC). The empty string
// yields the zero time. Results are in UTC.
func ParseTime(s string) (time.Time, error) {
	if s == "" {
		return time.Time{}, nil
	}
	if t, err := time.Parse(time.RFC3339Nano, s); err == nil {
		return t.UTC(), nil
	}
	if t, err := time.Parse(time.DateOnly, s); err == nil {
		return t, nil
	}
	return time.Time{}, fmt.Errorf("cannot parse %q as a date (want RFC 3339 such as 2026-06-11T10:00:00Z, or 2026-06-11)", s)
}

// jsonFieldError turns encoding/json's errors into ones that name the field
// in the specification's terms.
func jsonFieldError(err error) error {
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) {
		if te.Field == "" {
			return fmt.Errorf("record must be a JSON object, got JSON %s", te.Value)
		}
		return &FieldError{Field: te.Field, Problem: fmt.Sprintf("expected %s, got JSON %s", jsonKind(te.Type.String()), te.Value)}
	}
	var se *json.SyntaxError
	if errors.As(err, &se) {
		return fmt.Errorf("invalid JSON at byte %d: %v", se.Offset, err)
	}
	return fmt.Errorf("invalid JSON: %v", err)
}

func jsonKind(goType string) string {
	switch {
	case goType == "string":
		return "a string"
	case goType == "bool":
		return "true or false"
	case goType == "float32":
		return "a number"
	case strings.HasPrefix(goType, "[]"):
		return "an array"
	}
	return goType
}

// MaxLineBytes bounds one JSON Lines record, so a file without newlines cannot
// exhaust memory. It leaves room for MaxTextBytes of text and a large
// embedding.
const MaxLineBytes = 1 << 20

// LineError is a problem with one line of a JSON Lines file.
type LineError struct {
	Line int
	Err  error
}

// Error renders the problem on one line, prefixed by its line number.
func (e *LineError) Error() string {
	return fmt.Sprintf("line %d: %s", e.Line, strings.ReplaceAll(e.Err.Error(), "\n", "; "))
}

// Unwrap returns the problem without its line number.
func (e *LineError) Unwrap() error { return e.Err }

// Decoder reads memories from JSON Lines: one JSON object per line, blank
// lines ignored. Each record is decoded and validated on its own, so a bad line
// is reported with its number and decoding can go on past it.
type Decoder struct {
	sc   *bufio.Scanner
	line int
	done bool
}

// NewDecoder returns a Decoder reading from r.
func NewDecoder(r io.Reader) *Decoder {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64<<10), MaxLineBytes)
	return &Decoder{sc: sc}
}

// Next returns the next memory and the line it was on. At the end of input it
// returns io.EOF. A malformed or invalid record yields a *LineError, after
// which Next may be called again for the following line. A line too long to
// read, or a read error, ends decoding: later calls return io.EOF.
func (d *Decoder) Next() (Memory, int, error) {
	for !d.done {
		if !d.sc.Scan() {
			d.done = true
			if err := d.sc.Err(); err != nil {
				if errors.Is(err, bufio.ErrTooLong) {
					err = fmt.Errorf("line is longer than %d bytes", MaxLineBytes)
				}
				return Memory{}, d.line + 1, &LineError{Line: d.line + 1, Err: err}
			}
			break
		}
		d.line++
		raw := bytes.TrimSpace(d.sc.Bytes())
		if len(raw) == 0 {
			continue
		}
		m, err := DecodeRecord(raw)
		if err != nil {
			return Memory{}, d.line, &LineError{Line: d.line, Err: err}
		}
		return m, d.line, nil
	}
	return Memory{}, d.line, io.EOF
}

// DecodeRecord decodes and validates one memory from its JSON object. Unlike
// encoding/json, it rejects invalid UTF-8 instead of silently replacing it,
// since a changed byte in a memory would be stored as fact.
func DecodeRecord(raw []byte) (Memory, error) {
	if !utf8.Valid(raw) {
		return Memory{}, errors.New("record is not valid UTF-8")
	}
	var m Memory
	if err := json.Unmarshal(raw, &m); err != nil {
		var se *json.SyntaxError
		var fe *FieldError
		switch {
		case errors.As(err, &se):
			return Memory{}, jsonFieldError(err)
		case errors.As(err, &fe): // bad enum or date: report the other fields' problems too
			return Memory{}, errors.Join(err, m.Validate())
		}
		return Memory{}, err
	}
	if err := m.Validate(); err != nil {
		return Memory{}, err
	}
	return m, nil
}

// Encoder writes memories as JSON Lines in the form Decoder reads.
type Encoder struct {
	enc *json.Encoder
}

// NewEncoder returns an Encoder writing to w.
func NewEncoder(w io.Writer) *Encoder {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	return &Encoder{enc: enc}
}

// Encode writes m as one line.
func (e *Encoder) Encode(m *Memory) error { return e.enc.Encode(m) }
