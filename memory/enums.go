package memory

import "github.com/memgate/memgate/internal/enum"

// Authority says where a memory came from, and so how far it may be trusted.
// The zero value means the source is unknown; admission treats it like the
// lowest authority.
type Authority string

// Source authorities, from most to least trusted.
const (
	AuthoritySystem        Authority = "system"
	AuthorityUserConfirmed Authority = "user_confirmed"
	AuthorityToolVerified  Authority = "tool_verified"
	AuthorityModelInferred Authority = "model_inferred"
	AuthorityExternal      Authority = "external"
)

// Authorities lists every valid source authority, most trusted first.
var Authorities = []Authority{AuthoritySystem, AuthorityUserConfirmed, AuthorityToolVerified, AuthorityModelInferred, AuthorityExternal}

// Rank orders authorities: higher is more trusted. model_inferred and external
// share the lowest rank because neither was confirmed by anyone; an unknown
// (empty) authority ranks below both.
func (a Authority) Rank() int {
	switch a {
	case AuthoritySystem:
		return 4
	case AuthorityUserConfirmed:
		return 3
	case AuthorityToolVerified:
		return 2
	case AuthorityModelInferred, AuthorityExternal:
		return 1
	}
	return 0
}

// Low reports whether a is a low authority: model-inferred, external or
// unknown. Low-authority memories must not steer high-risk tool calls.
func (a Authority) Low() bool { return a.Rank() <= 1 }

// Kind says what sort of thing a memory records.
type Kind string

// Memory kinds.
const (
	KindFact           Kind = "fact"
	KindPreference     Kind = "preference"
	KindEvent          Kind = "event"
	KindRule           Kind = "rule"
	KindProcedure      Kind = "procedure"
	KindToolExperience Kind = "tool_experience"
)

// Kinds lists every valid memory kind.
var Kinds = []Kind{KindFact, KindPreference, KindEvent, KindRule, KindProcedure, KindToolExperience}

// Classification is a memory's sensitivity label.
type Classification string

// Classifications, from least to most sensitive.
const (
	ClassPublic       Classification = "public"
	ClassInternal     Classification = "internal"
	ClassConfidential Classification = "confidential"
	ClassRestricted   Classification = "restricted"
)

// Classifications lists every valid classification, least sensitive first.
var Classifications = []Classification{ClassPublic, ClassInternal, ClassConfidential, ClassRestricted}

// ParseAuthority parses a source authority name. The empty string is valid
// and means unknown.
func ParseAuthority(s string) (Authority, error) { return parseEnum(s, Authorities) }

// ParseKind parses a memory kind name. The empty string is valid and means
// unknown.
func ParseKind(s string) (Kind, error) { return parseEnum(s, Kinds) }

// ParseClassification parses a classification name. The empty string is
// valid and means unknown.
func ParseClassification(s string) (Classification, error) {
	return parseEnum(s, Classifications)
}

func parseEnum[T ~string](s string, allowed []T) (T, error) {
	if s == "" {
		return "", nil
	}
	return enum.Parse(s, allowed)
}
