package memory

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"
	"unicode"
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

// field returns a pointer to w's field for the JSON key, or nil for a key
// the wire form does not have.
func (w *wire) field(key string) any {
	switch key {
	case "id":
		return &w.ID
	case "text":
		return &w.Text
	case "userId":
		return &w.UserID
	case "workspaceId":
		return &w.WorkspaceID
	case "projectId":
		return &w.ProjectID
	case "domain":
		return &w.Domain
	case "sourceAuthority":
		return &w.SourceAuthority
	case "kind":
		return &w.Kind
	case "classification":
		return &w.Classification
	case "createdAt":
		return &w.CreatedAt
	case "expiresAt":
		return &w.ExpiresAt
	case "revoked":
		return &w.Revoked
	case "revokedAt":
		return &w.RevokedAt
	case "revokedReason":
		return &w.RevokedReason
	case "lineageRefs":
		return &w.LineageRefs
	case "supersedes":
		return &w.Supersedes
	case "audience":
		return &w.Audience
	case "embedding":
		return &w.Embedding
	}
	return nil
}

// ignoredKey is accepted and ignored: the store derives it, and Export writes
// it, so an export imports back.
const ignoredKey = "supersededBy"

// knownKeys are the keys of a memory's JSON form, for suggestions.
var knownKeys = []string{"id", "text", "userId", "workspaceId", "projectId", "domain",
	"sourceAuthority", "kind", "classification", "createdAt", "expiresAt", "revoked",
	"revokedAt", "revokedReason", "lineageRefs", "supersedes", "audience", "embedding", ignoredKey}

// maxKeyErrors bounds the unknown or repeated keys reported for one record.
const maxKeyErrors = 10

// UnmarshalJSON decodes a memory from the specification's JSON form, strictly:
// an unknown key (with the closest known key as a suggestion) and a key that
// appears twice are errors, as are type errors, unknown enumeration values
// and unparseable or out-of-range dates (see ParseTime); each is a
// *FieldError naming its key, and every problem is reported, not just the
// first. Ids and labels are put in NFC form (see Memory.Normalize).
// supersededBy is derived by the store and ignored here. The memory is not
// validated: DecodeRecord does that.
//
// On error, m still holds what did decode, so that a caller can report the
// remaining fields' problems too; the error still rejects the record.
func (m *Memory) UnmarshalJSON(data []byte) error {
	var w wire
	errs, err := decodeObject(data, &w)
	if err != nil {
		return err
	}
	out := Memory{
		ID: w.ID, Text: w.Text, UserID: w.UserID,
		WorkspaceID: w.WorkspaceID, ProjectID: w.ProjectID, Domain: w.Domain,
		Revoked: w.Revoked, RevokedReason: w.RevokedReason,
		LineageRefs: w.LineageRefs, Supersedes: w.Supersedes, Audience: w.Audience,
		Embedding: w.Embedding,
	}
	out.Normalize()
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
	*m = out
	return errors.Join(errs...)
}

// keyIndex numbers knownKeys, for plainKnownKeys.
var keyIndex = func() map[string]int {
	m := make(map[string]int, len(knownKeys))
	for i, k := range knownKeys {
		m[k] = i
	}
	return m
}()

// decodeObject decodes the JSON object in data into w. A syntax error, or
// data that is not an object, is returned as err. Unknown keys, repeated keys
// and type errors are returned as errs, one *FieldError each.
func decodeObject(data []byte, w *wire) (errs []error, err error) {
	// Fast path for the usual record: every key known, once, unescaped.
	// encoding/json then decodes exactly what the keys say.
	if plainKnownKeys(data) {
		if json.Unmarshal(data, w) == nil {
			return nil, nil
		}
		*w = wire{}
	}
	return decodeKeyByKey(data, w)
}

// decodeKeyByKey is decodeObject's slow path: it decodes each key's value on
// its own, so that every problem is reported.
func decodeKeyByKey(data []byte, w *wire) (errs []error, err error) {
	if !json.Valid(data) { // let encoding/json say where
		var v any
		if err := json.Unmarshal(data, &v); err != nil {
			return nil, jsonFieldError(err)
		}
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	tok, err := dec.Token()
	if err != nil {
		return nil, jsonFieldError(err)
	}
	if d, ok := tok.(json.Delim); !ok || d != '{' {
		return nil, fmt.Errorf("record must be a JSON object, got JSON %s", jsonTokenKind(tok))
	}
	seen := make(map[string]bool, len(knownKeys))
	repeated := map[string]bool{}
	badKeys := 0
	keyErr := func(key, problem string) {
		if badKeys++; badKeys <= maxKeyErrors {
			errs = append(errs, &FieldError{Field: displayKey(key), Problem: problem})
		}
	}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, jsonFieldError(err)
		}
		key, _ := tok.(string)
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return nil, jsonFieldError(err)
		}
		dst := w.field(key)
		switch {
		case seen[key]:
			if (dst != nil || key == ignoredKey) && !repeated[key] {
				repeated[key] = true
				keyErr(key, "repeated key (each key may appear once)")
			} // each problem key is reported once
		case dst == nil && key != ignoredKey:
			seen[key] = true
			keyErr(key, "unknown key"+suggestKey(key))
		default:
			seen[key] = true
			if dst == nil {
				continue
			}
			if err := json.Unmarshal(raw, dst); err != nil {
				errs = append(errs, typeError(key, err))
			}
		}
	}
	if _, err := dec.Token(); err != nil { // the closing brace
		return nil, jsonFieldError(err)
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, errors.New("invalid JSON: data after the record's closing brace")
	}
	if badKeys > maxKeyErrors {
		errs = append(errs, &FieldError{Field: "record", Problem: fmt.Sprintf("has %d more unknown or repeated keys", badKeys-maxKeyErrors)})
	}
	return errs, nil
}

// plainKnownKeys reports whether data is one JSON object whose keys are all
// known, each once, written without escapes. It does not validate values
// (encoding/json does); false only means "decode key by key".
func plainKnownKeys(data []byte) bool {
	var seen uint64
	i := skipSpace(data, 0)
	if i == len(data) || data[i] != '{' {
		return false
	}
	i = skipSpace(data, i+1)
	if i < len(data) && data[i] == '}' {
		return skipSpace(data, i+1) == len(data)
	}
	for {
		if i == len(data) || data[i] != '"' {
			return false
		}
		j := i + 1
		for j < len(data) && data[j] != '"' {
			if data[j] == '\\' {
				return false
			}
			j++
		}
		if j == len(data) {
			return false
		}
		k, ok := keyIndex[string(data[i+1:j])]
		if !ok || seen&(1<<k) != 0 {
			return false
		}
		seen |= 1 << k
		i = skipSpace(data, j+1)
		if i == len(data) || data[i] != ':' {
			return false
		}
		if i, ok = skipValue(data, skipSpace(data, i+1)); !ok {
			return false
		}
		i = skipSpace(data, i)
		switch {
		case i == len(data):
			return false
		case data[i] == ',':
			i = skipSpace(data, i+1)
		case data[i] == '}':
			return skipSpace(data, i+1) == len(data)
		default:
			return false
		}
	}
}

func skipSpace(data []byte, i int) int {
	for i < len(data) && (data[i] == ' ' || data[i] == '\t' || data[i] == '\n' || data[i] == '\r') {
		i++
	}
	return i
}

// skipValue returns the offset just past the JSON value starting at i.
func skipValue(data []byte, i int) (int, bool) {
	depth := 0
	for i < len(data) {
		c := data[i]
		switch c {
		case '"':
			for i++; i < len(data) && data[i] != '"'; i++ {
				if data[i] == '\\' {
					i++
				}
			}
			if i >= len(data) {
				return i, false
			}
			i++
		case '{', '[':
			depth++
			i++
		case '}', ']':
			if depth == 0 {
				return i, true
			}
			depth--
			i++
		case ',', ' ', '\t', '\n', '\r':
			if depth == 0 {
				return i, true
			}
			i++
		default:
			i++
		}
		if depth == 0 && (c == '"' || c == '}' || c == ']') {
			return i, true
		}
	}
	return i, depth == 0
}

// typeError names the key of a value of the wrong JSON type.
func typeError(key string, err error) error {
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) {
		return &FieldError{Field: key, Problem: fmt.Sprintf("expected %s, got JSON %s", jsonKind(te.Type.String()), te.Value)}
	}
	return &FieldError{Field: key, Problem: err.Error()}
}

// jsonTokenKind names the JSON type of a value's first token.
func jsonTokenKind(tok json.Token) string {
	switch tok.(type) {
	case nil:
		return "null"
	case bool:
		return "bool"
	case float64, json.Number:
		return "number"
	case string:
		return "string"
	case json.Delim:
		return "array"
	}
	return fmt.Sprintf("%T", tok)
}

// displayKey renders a key for an error message: as it is when it is short
// and plainly printable, else quoted with escapes and cut to 64 bytes, so a
// hostile key cannot hide in or rewrite the message.
func displayKey(key string) string {
	plain := key != "" && len(key) <= 64
	for _, r := range key {
		if !plain {
			break
		}
		plain = unicode.IsPrint(r) && r != ' ' && r != '"' && r != '\\'
	}
	if plain {
		return key
	}
	if len(key) > 64 {
		cut := 64
		for cut > 0 && !utf8.RuneStart(key[cut]) {
			cut--
		}
		return strconv.Quote(key[:cut]) + "…"
	}
	return strconv.Quote(key)
}

// suggestKey returns ` (did you mean "K"?)` for the known key K closest to
// key: equal but for case, or at most 2 edits away (1 for short keys).
func suggestKey(key string) string {
	if len(key) > 64 {
		return ""
	}
	best, bestDist := "", 3
	for _, k := range knownKeys {
		if strings.EqualFold(k, key) {
			best = k
			break
		}
		limit := 2
		if len(k) <= 4 {
			limit = 1
		}
		if d := editDistance(strings.ToLower(key), strings.ToLower(k)); d <= limit && d < bestDist {
			best, bestDist = k, d
		}
	}
	if best == "" {
		return ""
	}
	return fmt.Sprintf(" (did you mean %q?)", best)
}

// editDistance is the Levenshtein distance between a and b, in bytes.
func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}

// ParseTime parses a timestamp as RFC 3339 (with or without fractional
// seconds) or as a plain date (2006-01-02, midnight UTC). The empty string
// yields the zero time, which means absent. Results are in UTC. A time
// outside MinTime to MaxTime is an error, and so is the zero time written out
// (0001-01-01, 0001-01-01T00:00:00Z), which is not a date.
func ParseTime(s string) (time.Time, error) {
	if s == "" {
		return time.Time{}, nil
	}
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		if t, err = time.Parse(time.DateOnly, s); err != nil {
			return time.Time{}, fmt.Errorf("cannot parse %q as a date (want RFC 3339 such as 2026-06-11T10:00:00Z, or 2026-06-11)", s)
		}
	}
	t = t.UTC()
	if t.IsZero() {
		return time.Time{}, fmt.Errorf("%s is the zero time, not a date; leave the date out instead", t.Format(time.RFC3339))
	}
	if err := checkTimeRange(t); err != nil {
		return time.Time{}, err
	}
	return t, nil
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
// since a changed byte in a memory would be stored as fact, and it rejects
// unknown and repeated keys (see Memory.UnmarshalJSON). Ids come back in NFC
// form.
func DecodeRecord(raw []byte) (Memory, error) {
	if !utf8.Valid(raw) {
		return Memory{}, errors.New("record is not valid UTF-8")
	}
	if at := loneSurrogate(raw); at >= 0 {
		return Memory{}, fmt.Errorf("record has a lone UTF-16 surrogate escape %s at byte %d: it is not a character, and decoding would replace it with U+FFFD", raw[at:at+6], at)
	}
	var m Memory
	if err := m.UnmarshalJSON(raw); err != nil { // json.Unmarshal would scan raw once more
		var se *json.SyntaxError
		var fe *FieldError
		switch {
		case errors.As(err, &se):
			return Memory{}, jsonFieldError(err)
		case errors.As(err, &fe): // bad key, type, enum or date: report the other fields' problems too
			return Memory{}, errors.Join(err, validateOthers(&m, err))
		}
		return Memory{}, err
	}
	if err := m.Validate(); err != nil {
		return Memory{}, err
	}
	return m, nil
}

// loneSurrogate returns the offset of the first \uD800–\uDFFF escape in raw
// that is not half of a surrogate pair, or -1. encoding/json replaces such
// an escape with U+FFFD, silently changing the text.
func loneSurrogate(raw []byte) int {
	hex4 := func(i int) (rune, bool) {
		if i+6 > len(raw) || raw[i] != '\\' || raw[i+1] != 'u' {
			return 0, false
		}
		var r rune
		for _, c := range raw[i+2 : i+6] {
			switch {
			case c >= '0' && c <= '9':
				r = r<<4 | rune(c-'0')
			case c >= 'a' && c <= 'f':
				r = r<<4 | rune(c-'a'+10)
			case c >= 'A' && c <= 'F':
				r = r<<4 | rune(c-'A'+10)
			default:
				return 0, false
			}
		}
		return r, true
	}
	for i := 0; i < len(raw); i++ {
		if raw[i] != '\\' || i+1 >= len(raw) {
			continue
		}
		if raw[i+1] != 'u' {
			i++ // an escaped character, possibly a backslash
			continue
		}
		r, ok := hex4(i)
		if !ok {
			continue
		}
		switch {
		case r >= 0xD800 && r <= 0xDBFF:
			if lo, ok := hex4(i + 6); ok && lo >= 0xDC00 && lo <= 0xDFFF {
				i += 11 // the pair
				continue
			}
			return i
		case r >= 0xDC00 && r <= 0xDFFF:
			return i
		}
		i += 5
	}
	return -1
}

// validateOthers validates m but leaves out problems with the fields that
// decodeErr already reports: a field that did not decode is empty, and "is
// required" would only repeat the real problem.
func validateOthers(m *Memory, decodeErr error) error {
	failed := map[string]bool{}
	for _, e := range flatten(decodeErr) {
		if fe, ok := e.(*FieldError); ok {
			failed[fe.Field] = true
		}
	}
	var keep []error
	for _, e := range flatten(m.Validate()) {
		if fe, ok := e.(*FieldError); ok {
			base, _, _ := strings.Cut(fe.Field, "[")
			if failed[base] {
				continue
			}
		}
		keep = append(keep, e)
	}
	return errors.Join(keep...)
}

// flatten lists the errors joined in err.
func flatten(err error) []error {
	if err == nil {
		return nil
	}
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		var out []error
		for _, e := range j.Unwrap() {
			out = append(out, flatten(e)...)
		}
		return out
	}
	return []error{err}
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
