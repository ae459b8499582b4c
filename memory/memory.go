package memory

import (
	"errors"
	"fmt"
	"math"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"
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

// FieldError reports one problem with one field of a memory.
type FieldError struct {
	Field   string // JSON name of the field, e.g. "expiresAt" or "lineageRefs[2]"
	Problem string
}

// Error renders the problem as "field: problem".
func (e *FieldError) Error() string { return e.Field + ": " + e.Problem }

func fieldErr(field, format string, args ...any) error {
	return &FieldError{Field: field, Problem: fmt.Sprintf(format, args...)}
}

// Validate checks every field against the data model and the limits above and
// returns all problems found, each a *FieldError naming its field. An empty ID
// and a zero CreatedAt are allowed: the store fills them in on add.
func (m *Memory) Validate() error {
	var errs []error
	add := func(err error) {
		if err != nil {
			errs = append(errs, err)
		}
	}
	if m.ID != "" {
		add(checkID("id", m.ID))
	}
	switch {
	case strings.TrimSpace(m.Text) == "":
		add(fieldErr("text", "must not be empty"))
	case len(m.Text) > MaxTextBytes:
		add(fieldErr("text", "is %d bytes; the limit is %d", len(m.Text), MaxTextBytes))
	case !utf8.ValidString(m.Text):
		add(fieldErr("text", "is not valid UTF-8"))
	}
	if m.UserID == "" {
		add(fieldErr("userId", "is required"))
	} else {
		add(checkID("userId", m.UserID))
	}
	add(checkLabel("workspaceId", m.WorkspaceID))
	add(checkLabel("projectId", m.ProjectID))
	add(checkLabel("domain", m.Domain))
	add(checkEnum("sourceAuthority", m.SourceAuthority, Authorities))
	add(checkEnum("kind", m.Kind, Kinds))
	add(checkEnum("classification", m.Classification, Classifications))

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

func checkID(field, s string) error {
	if len(s) > MaxIDBytes {
		return fieldErr(field, "is %d bytes; the limit is %d", len(s), MaxIDBytes)
	}
	if !utf8.ValidString(s) {
		return fieldErr(field, "is not valid UTF-8")
	}
	for _, r := range s {
		if unicode.IsSpace(r) || unicode.IsControl(r) {
			return fieldErr(field, "%q contains whitespace or a control character", s)
		}
	}
	return nil
}

func checkLabel(field, s string) error {
	if s == "" {
		return nil
	}
	if strings.TrimSpace(s) != s {
		return fieldErr(field, "%q has leading or trailing whitespace", s)
	}
	if len(s) > MaxIDBytes {
		return fieldErr(field, "is %d bytes; the limit is %d", len(s), MaxIDBytes)
	}
	if !utf8.ValidString(s) {
		return fieldErr(field, "is not valid UTF-8")
	}
	for _, r := range s {
		if unicode.IsControl(r) {
			return fieldErr(field, "%q contains a control character", s)
		}
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
		if err := checkID(name, ref); err != nil {
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
		if err := checkID(name, a); err != nil {
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
