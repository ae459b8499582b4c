package memory

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"

	"github.com/memgate/memgate/internal/termsafe"
)

// Limits on a memory's fields. They keep one bad record from exhausting memory
// or the model's context, and are part of the documented input contract.
const (
	// MaxTextBytes is the largest memory text accepted, in bytes of UTF-8.
	MaxTextBytes = 32 << 10
	// MaxIDBytes bounds ids, user ids and scope labels.
	MaxIDBytes = 256
	// MaxRefs bounds the entries of lineageRefs, supersedes and audience.
	MaxRefs = 256
	// MaxEmbeddingDim bounds a caller-supplied embedding.
	MaxEmbeddingDim = 8192
)

// MinTime and MaxTime bound every timestamp of a memory (createdAt,
// expiresAt, revokedAt) and of an admission context. Stores keep times as
// nanoseconds since 1970 in a signed 64-bit integer, which holds 1677-09-21
// to 2262-04-11; the bounds are whole days inside that. Do not modify them.
var (
	MinTime = time.Date(1678, 1, 1, 0, 0, 0, 0, time.UTC)
	MaxTime = time.Date(2261, 12, 31, 23, 59, 59, 999999999, time.UTC)
)

// CheckTime reports whether t can be stored: the zero time (absent) or a time
// from MinTime to MaxTime. field names t in the error.
func CheckTime(field string, t time.Time) error {
	if t.IsZero() {
		return nil
	}
	if err := checkTimeRange(t); err != nil {
		return &FieldError{Field: field, Problem: err.Error()}
	}
	return nil
}

func checkTimeRange(t time.Time) error {
	const day = "2006-01-02"
	switch {
	case t.Before(MinTime):
		return fmt.Errorf("%s is before %s, the earliest date memgate can store",
			t.UTC().Format(time.RFC3339Nano), MinTime.Format(day))
	case t.After(MaxTime):
		return fmt.Errorf("%s is after %s, the latest date memgate can store (leave the date out to mean \"never\")",
			t.UTC().Format(time.RFC3339Nano), MaxTime.Format(day))
	}
	return nil
}

// Memory is one long-term memory with its trust metadata. Field names and
// meanings follow the memgate specification's data model.
type Memory struct {
	// ID identifies the memory. Empty means the store assigns one on add.
	ID string `json:"id"`
	// Text is the memory's content.
	Text string `json:"text"`

	// UserID is the owner; it is required and is the hard scope boundary.
	UserID string `json:"userId"`
	// WorkspaceID, ProjectID and Domain narrow the scope. Empty means the
	// memory is unscoped on that axis: it belongs to all of the user's
	// workspaces, projects or domains.
	WorkspaceID string `json:"workspaceId,omitempty"`
	ProjectID   string `json:"projectId,omitempty"`
	Domain      string `json:"domain,omitempty"`

	// SourceAuthority says where the memory came from; empty is unknown.
	SourceAuthority Authority `json:"sourceAuthority,omitempty"`
	// Kind says what the memory records; empty is unknown.
	Kind Kind `json:"kind,omitempty"`
	// Classification is the sensitivity label; empty is unknown.
	Classification Classification `json:"classification,omitempty"`

	// CreatedAt is when the memory was made. Zero means the store sets it
	// to the time of the add.
	CreatedAt time.Time `json:"createdAt,omitzero"`
	// ExpiresAt, if set, is when the memory stops being valid.
	ExpiresAt time.Time `json:"expiresAt,omitzero"`

	// Revoked marks a memory withdrawn by its owner or an operator. A
	// revoked memory is kept for audit but is never a search candidate.
	Revoked       bool      `json:"revoked,omitempty"`
	RevokedAt     time.Time `json:"revokedAt,omitzero"`
	RevokedReason string    `json:"revokedReason,omitempty"`

	// LineageRefs are the ids of the memories this one was derived from
	// (a summary's sources, for instance).
	LineageRefs []string `json:"lineageRefs,omitempty"`
	// Supersedes are the ids of older memories this one replaces.
	Supersedes []string `json:"supersedes,omitempty"`
	// SupersededBy lists the newer memories that replace this one. The
	// store derives it from other memories' Supersedes; it is ignored on
	// input.
	SupersededBy []string `json:"supersededBy,omitempty"`

	// Audience, when set, is the access list of a shared memory: principal
	// ids and "role:NAME" entries allowed to receive it. Empty means the
	// owner's scope.
	Audience []string `json:"audience,omitempty"`

	// Embedding is an optional caller-supplied vector. When empty the store's
	// embedder computes one from Text. Stores return it only when asked.
	Embedding []float32 `json:"embedding,omitempty"`
}

// ErrInvalid is matched (errors.Is) by every *FieldError: a caller can tell
// bad input from a failing store without knowing which field was wrong.
var ErrInvalid = errors.New("invalid input")

// FieldError reports one problem with one field of an input: a memory, a
// query, an admission context or a request.
type FieldError struct {
	Field   string // JSON name of the field, e.g. "expiresAt" or "lineageRefs[2]"
	Problem string
}

// Error renders the problem as "field: problem".
func (e *FieldError) Error() string { return e.Field + ": " + e.Problem }

// Is makes errors.Is(err, ErrInvalid) true.
func (e *FieldError) Is(target error) bool { return target == ErrInvalid }

// PrefixFields puts prefix before the field name of every *FieldError in
// err's tree (errors.Join lists and wrapped errors included), so that an
// error about a nested value names it from the top of what the caller sent:
// "candidates[2].memory.kind", not "kind". It changes the errors in place,
// so messages already formatted by a wrapper keep their text; it returns
// err.
func PrefixFields(err error, prefix string) error {
	switch e := err.(type) {
	case nil:
	case *FieldError:
		e.Field = prefix + e.Field
	case interface{ Unwrap() []error }:
		for _, x := range e.Unwrap() {
			PrefixFields(x, prefix)
		}
	case interface{ Unwrap() error }:
		PrefixFields(e.Unwrap(), prefix)
	}
	return err
}

func fieldErr(field, format string, args ...any) error {
	return &FieldError{Field: field, Problem: fmt.Sprintf(format, args...)}
}

// Validate checks every field against the data model and the limits above and
// returns all problems found, each a *FieldError naming its field. An empty ID
// and a zero CreatedAt are allowed: the store fills them in on add.
//
// Validate does not change m. Ids and labels must already be in Unicode NFC
// form: call Normalize first on a memory from outside (the JSON decoder
// does).
func (m *Memory) Validate() error {
	var errs []error
	add := func(err error) {
		if err != nil {
			errs = append(errs, err)
		}
	}
	if m.ID != "" {
		add(CheckID("id", m.ID))
	}
	add(CheckText("text", m.Text))
	if m.UserID == "" {
		add(fieldErr("userId", "is required"))
	} else {
		add(CheckID("userId", m.UserID))
	}
	add(CheckLabel("workspaceId", m.WorkspaceID))
	add(CheckLabel("projectId", m.ProjectID))
	add(CheckLabel("domain", m.Domain))
	add(checkEnum("sourceAuthority", m.SourceAuthority, Authorities))
	add(checkEnum("kind", m.Kind, Kinds))
	add(checkEnum("classification", m.Classification, Classifications))

	add(CheckTime("createdAt", m.CreatedAt))
	add(CheckTime("expiresAt", m.ExpiresAt))
	add(CheckTime("revokedAt", m.RevokedAt))
	if !m.ExpiresAt.IsZero() && !m.CreatedAt.IsZero() && !m.ExpiresAt.After(m.CreatedAt) {
		add(fieldErr("expiresAt", "%s is not after createdAt %s",
			m.ExpiresAt.Format(time.RFC3339), m.CreatedAt.Format(time.RFC3339)))
	}
	if !m.Revoked && (!m.RevokedAt.IsZero() || m.RevokedReason != "") {
		add(fieldErr("revoked", "is false but revokedAt or revokedReason is set"))
	}
	if len(m.RevokedReason) > MaxTextBytes {
		add(fieldErr("revokedReason", "is %d bytes; the limit is %d", len(m.RevokedReason), MaxTextBytes))
	}
	add(checkRefs("lineageRefs", m.ID, m.LineageRefs))
	add(checkRefs("supersedes", m.ID, m.Supersedes))
	add(checkAudience(m.Audience))
	add(CheckVector("embedding", m.Embedding))
	return errors.Join(errs...)
}

// NormalizeID returns s in Unicode NFC form, the form ids and labels are
// compared and stored in, so that "josé" typed with a combining accent and
// "josé" typed with a precomposed é are the same user.
func NormalizeID(s string) string {
	if norm.NFC.IsNormalString(s) {
		return s
	}
	return norm.NFC.String(s)
}

// Normalize puts m's ids and labels (id, userId, workspaceId, projectId,
// domain, lineageRefs, supersedes, audience) in NFC form. The text is kept
// as written. Slices are copied before they are changed, never written
// through. Call it on every memory from outside before Validate.
func (m *Memory) Normalize() {
	m.ID, m.UserID = NormalizeID(m.ID), NormalizeID(m.UserID)
	m.WorkspaceID, m.ProjectID, m.Domain = NormalizeID(m.WorkspaceID), NormalizeID(m.ProjectID), NormalizeID(m.Domain)
	m.LineageRefs = NormalizeIDs(m.LineageRefs)
	m.Supersedes = NormalizeIDs(m.Supersedes)
	m.Audience = NormalizeIDs(m.Audience)
}

// NormalizeIDs returns ids with each entry in NFC form: ids itself when no
// entry changes, else a new slice, so a caller's slice is never modified.
func NormalizeIDs(ids []string) []string {
	for i, s := range ids {
		if n := NormalizeID(s); n != s {
			out := slices.Clone(ids)
			out[i] = n
			for j := i + 1; j < len(out); j++ {
				out[j] = NormalizeID(out[j])
			}
			return out
		}
	}
	return ids
}

// CheckID reports whether s can be an id: a memory id, user id, principal
// id, role, audience entry or task id. It must be at most MaxIDBytes of valid
// UTF-8 in NFC form (see NormalizeID) with no whitespace, no control or
// invisible character (zero-width characters, bidi controls, variation
// selectors, …; see termsafe.Invisible), no private-use or unassigned code
// point and no U+FFFD. An empty s is not checked: callers that require an id
// say so. field names s in the error, which gives the first offending
// character as U+XXXX and its byte offset, never the raw character.
func CheckID(field, s string) error { return checkChars(field, s, false) }

// CheckLabel is CheckID for scope labels (workspaceId, projectId, domain),
// which may also contain plain spaces (U+0020) between words, though not at
// either end.
func CheckLabel(field, s string) error { return checkChars(field, s, true) }

func checkChars(field, s string, spaces bool) error {
	if s == "" {
		return nil
	}
	if len(s) > MaxIDBytes {
		return fieldErr(field, "is %d bytes; the limit is %d", len(s), MaxIDBytes)
	}
	if !utf8.ValidString(s) {
		return fieldErr(field, "is not valid UTF-8")
	}
	for i, r := range s {
		switch {
		case r == ' ' && !spaces:
			return fieldErr(field, "contains a space at byte %d", i)
		case r == ' ':
		case unicode.IsSpace(r):
			return fieldErr(field, "contains whitespace %U at byte %d", r, i)
		case termsafe.Invisible(r):
			return fieldErr(field, "contains an invisible or control character %U at byte %d", r, i)
		case r == utf8.RuneError:
			return fieldErr(field, "contains U+FFFD, the replacement character left by a decoding error, at byte %d", i)
		case unicode.Is(unicode.Co, r) || !assigned(r):
			return fieldErr(field, "contains a private-use or unassigned character %U at byte %d", r, i)
		}
	}
	if spaces && strings.TrimSpace(s) != s {
		return fieldErr(field, "has leading or trailing whitespace")
	}
	if !norm.NFC.IsNormalString(s) {
		return fieldErr(field, "is not in Unicode NFC form (normalize ids before validating them)")
	}
	return nil
}

// assigned reports whether r is an assigned character (any general category
// but Cn) in the Unicode tables Go was built with.
func assigned(r rune) bool {
	return unicode.In(r, unicode.L, unicode.M, unicode.N, unicode.P, unicode.S, unicode.Z,
		unicode.Cc, unicode.Cf, unicode.Co, unicode.Cs)
}

// CheckText reports whether s can be a memory's text (or a query): not
// empty or whitespace only, at most MaxTextBytes of valid UTF-8, and with at
// least one visible character (not only control or invisible format
// characters, see termsafe.HasVisible). Inside visible text any character is
// allowed. field names s in the error.
func CheckText(field, s string) error {
	switch {
	case strings.TrimSpace(s) == "":
		return fieldErr(field, "must not be empty")
	case len(s) > MaxTextBytes:
		return fieldErr(field, "is %d bytes; the limit is %d", len(s), MaxTextBytes)
	case !utf8.ValidString(s):
		return fieldErr(field, "is not valid UTF-8")
	case !termsafe.HasVisible(s):
		return fieldErr(field, "has no visible characters (only whitespace, control or invisible format characters)")
	}
	return nil
}

// CheckNote reports whether s can be a free-text note: the reason for a
// revocation or a forgetting, a reviewer's note. It may be empty; it must be
// valid UTF-8 of at most MaxTextBytes. field names s in the error.
func CheckNote(field, s string) error {
	switch {
	case len(s) > MaxTextBytes:
		return fieldErr(field, "is %d bytes; the limit is %d", len(s), MaxTextBytes)
	case !utf8.ValidString(s):
		return fieldErr(field, "is not valid UTF-8")
	}
	return nil
}

func checkEnum[T ~string](field string, v T, allowed []T) error {
	if _, err := parseEnum(string(v), allowed); err != nil {
		return &FieldError{Field: field, Problem: err.Error()}
	}
	return nil
}

func checkRefs(field, self string, refs []string) error {
	if len(refs) > MaxRefs {
		return fieldErr(field, "has %d entries; the limit is %d", len(refs), MaxRefs)
	}
	seen := make(map[string]bool, len(refs))
	for i, ref := range refs {
		name := fmt.Sprintf("%s[%d]", field, i)
		if ref == "" {
			return fieldErr(name, "is empty")
		}
		if err := CheckID(name, ref); err != nil {
			return err
		}
		if self != "" && ref == self {
			return fieldErr(name, "refers to the memory itself")
		}
		if seen[ref] {
			return fieldErr(name, "repeats %q", ref)
		}
		seen[ref] = true
	}
	return nil
}

func checkAudience(aud []string) error {
	if len(aud) > MaxRefs {
		return fieldErr("audience", "has %d entries; the limit is %d", len(aud), MaxRefs)
	}
	for i, a := range aud {
		name := fmt.Sprintf("audience[%d]", i)
		if a == "" || a == "role:" {
			return fieldErr(name, "is empty (want a principal id or role:NAME)")
		}
		if err := CheckID(name, a); err != nil {
			return err
		}
	}
	return nil
}

// CheckVector reports whether v can be used as an embedding: at most
// MaxEmbeddingDim finite components, not all zero. An empty v is valid and
// means "none supplied". field names v in the error.
func CheckVector(field string, v []float32) error {
	if len(v) == 0 {
		return nil
	}
	if len(v) > MaxEmbeddingDim {
		return fieldErr(field, "has %d dimensions; the limit is %d", len(v), MaxEmbeddingDim)
	}
	nonzero := false
	for i, x := range v {
		if math.IsNaN(float64(x)) || math.IsInf(float64(x), 0) {
			return fieldErr(field, "component %d is not a finite number", i)
		}
		nonzero = nonzero || x != 0
	}
	if !nonzero {
		return fieldErr(field, "is all zeros")
	}
	return nil
}

// Filter narrows a set of memories to one user's scope. UserID is required
// wherever a Filter scopes a search. A set WorkspaceID, ProjectID or Domain
// matches memories with that value and memories unscoped on that axis.
type Filter struct {
	UserID      string `json:"userId,omitempty"`
	WorkspaceID string `json:"workspaceId,omitempty"`
	ProjectID   string `json:"projectId,omitempty"`
	Domain      string `json:"domain,omitempty"`
}

// Normalize puts the filter's ids in NFC form, as Memory.Normalize does for
// a memory, so that a filter from outside matches the memories it names.
func (f *Filter) Normalize() {
	f.UserID, f.WorkspaceID = NormalizeID(f.UserID), NormalizeID(f.WorkspaceID)
	f.ProjectID, f.Domain = NormalizeID(f.ProjectID), NormalizeID(f.Domain)
}

// Validate checks the filter's ids as Memory.Validate checks a memory's
// (CheckID for userId, CheckLabel for the others) and returns every problem,
// each a *FieldError. It does not require UserID: callers that scope a
// search do. Call Normalize first.
func (f Filter) Validate() error {
	return errors.Join(
		CheckID("userId", f.UserID),
		CheckLabel("workspaceId", f.WorkspaceID),
		CheckLabel("projectId", f.ProjectID),
		CheckLabel("domain", f.Domain))
}

// Matches reports whether m falls inside the filter's scope.
func (f Filter) Matches(m *Memory) bool {
	return (f.UserID == "" || m.UserID == f.UserID) &&
		axisMatches(f.WorkspaceID, m.WorkspaceID) &&
		axisMatches(f.ProjectID, m.ProjectID) &&
		axisMatches(f.Domain, m.Domain)
}

func axisMatches(want, have string) bool { return want == "" || have == "" || want == have }

// Tombstone is what remains of a forgotten memory: its id, owner and when and
// why it was forgotten. The text and vectors are gone for good.
type Tombstone struct {
	ID          string    `json:"id"`
	UserID      string    `json:"userId"`
	ForgottenAt time.Time `json:"forgottenAt"`
	Reason      string    `json:"reason,omitempty"`
}
