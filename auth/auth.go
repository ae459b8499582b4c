// Package auth is who may call memgate's service: principals, their roles and
// the users they may act for, and the API keys that identify them.
//
// A key is shown once, when it is created, and stored only as a hash. Its
// plaintext is "mgk_" + an id + "_" + a 256-bit random secret: the id finds
// the stored key, the secret proves possession and is compared in constant
// time. A high-entropy secret needs no slow password hash; SHA-256 suffices.
//
// The principal of a request, and the roles the admission context carries,
// always come from its key, never from the request body.
package auth

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base32"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/memgate/memgate/memory"
)

// Role is what a principal may do.
type Role string

// Roles.
const (
	// Agent reads and writes memories of its users and runs admission and
	// binding; it cannot review the quarantine or read other users' audit.
	Agent Role = "agent"
	// Reviewer also reviews the quarantine and reads the audit trail of
	// its users.
	Reviewer Role = "reviewer"
	// Admin may do everything for its users.
	Admin Role = "admin"
)

// ParseRole parses a role name.
func ParseRole(s string) (Role, error) {
	switch r := Role(s); r {
	case Agent, Reviewer, Admin:
		return r, nil
	}
	return "", &memory.FieldError{Field: "role", Problem: fmt.Sprintf("unknown value %q (allowed: agent, reviewer, admin)", s)}
}

// AllUsers in Principal.Users lets a principal act for every user.
const AllUsers = "*"

// Principal is a caller of the service.
type Principal struct {
	ID   string `json:"id"`
	Role Role   `json:"role"`
	// Users are the users the principal may act for; AllUsers for all.
	Users []string `json:"users"`
	// MaxAuthority caps the source authority of the memories it writes;
	// empty means the role's cap (tool_verified for agents: an agent
	// cannot write user_confirmed or system memories).
	MaxAuthority memory.Authority `json:"maxAuthority,omitempty"`
}

// Validate checks a principal before a key is made for it.
func (p *Principal) Validate() error {
	var errs []error
	if err := memory.CheckID("principal", p.ID); err != nil || p.ID == "" {
		if err == nil {
			err = &memory.FieldError{Field: "principal", Problem: "is required"}
		}
		errs = append(errs, err)
	}
	if _, err := ParseRole(string(p.Role)); err != nil {
		errs = append(errs, err)
	}
	if len(p.Users) == 0 {
		errs = append(errs, &memory.FieldError{Field: "users", Problem: "at least one user (or * for all) is required"})
	}
	for i, u := range p.Users {
		if u == AllUsers {
			continue
		}
		if err := memory.CheckID(fmt.Sprintf("users[%d]", i), u); err != nil || u == "" {
			if err == nil {
				err = &memory.FieldError{Field: fmt.Sprintf("users[%d]", i), Problem: "is empty"}
			}
			errs = append(errs, err)
		}
	}
	if p.MaxAuthority != "" {
		if _, err := memory.ParseAuthority(string(p.MaxAuthority)); err != nil {
			errs = append(errs, &memory.FieldError{Field: "maxAuthority", Problem: err.Error()})
		}
	}
	return errors.Join(errs...)
}

// MayActFor reports whether the principal may act for userID.
func (p *Principal) MayActFor(userID string) bool {
	return userID != "" && (slices.Contains(p.Users, AllUsers) || slices.Contains(p.Users, userID))
}

// Can reports whether the principal's role allows what needs.
func (p *Principal) Can(needs Role) bool {
	rank := map[Role]int{Agent: 1, Reviewer: 2, Admin: 3}
	return rank[p.Role] >= rank[needs]
}

// AuthorityCap is the highest source authority the principal may write:
// MaxAuthority if set, else tool_verified for agents and no cap ("") for
// the others.
func (p *Principal) AuthorityCap() memory.Authority {
	if p.MaxAuthority != "" {
		return p.MaxAuthority
	}
	if p.Role == Agent {
		return memory.AuthorityToolVerified
	}
	return ""
}

// AuthorityError is a write above the principal's authority cap.
type AuthorityError struct {
	Cap, Asked memory.Authority
}

// Error names the cap and what was asked.
func (e *AuthorityError) Error() string {
	return fmt.Sprintf("sourceAuthority: this key may write memories of authority %s at most, not %s", e.Cap, e.Asked)
}

// CapAuthority applies the principal's authority cap to a memory it
// writes: a memory without a source authority gets the cap; one above it is
// refused with *AuthorityError, or lowered to the cap when lower is set.
// Every way into memgate (HTTP, Mem0, MCP) applies it the same way.
func (p *Principal) CapAuthority(m *memory.Memory, lower bool) error {
	limit := p.AuthorityCap()
	if limit == "" {
		return nil
	}
	if m.SourceAuthority == "" {
		m.SourceAuthority = limit
		return nil
	}
	if m.SourceAuthority.Rank() > limit.Rank() {
		if !lower {
			return &AuthorityError{Cap: limit, Asked: m.SourceAuthority}
		}
		m.SourceAuthority = limit
	}
	return nil
}

// Key is a stored API key: the principal it identifies and the hash of its
// secret.
type Key struct {
	ID        string    `json:"id"`
	Hash      []byte    `json:"-"`
	Principal Principal `json:"principal"`
	CreatedAt time.Time `json:"createdAt"`
	RevokedAt time.Time `json:"revokedAt,omitzero"`
}

// Store keeps API keys. The system-of-record backends implement it.
type Store interface {
	// PutKey stores a new key; an id already stored is an error.
	PutKey(ctx context.Context, k Key) error
	// Key returns the key with this id; a missing one is an error
	// wrapping ErrUnknownKey.
	Key(ctx context.Context, id string) (Key, error)
	// Keys lists every key, oldest first.
	Keys(ctx context.Context) ([]Key, error)
	// RevokeKey marks a key revoked at a time; it stops authenticating.
	RevokeKey(ctx context.Context, id string, at time.Time) error
}

// Errors of authentication, matched with errors.Is.
var (
	// ErrUnknownKey: no stored key has the id, or the secret is wrong,
	// or the key was revoked. One error for all three, on purpose.
	ErrUnknownKey = errors.New("invalid API key")
	// ErrMalformedKey: the text is not an API key at all.
	ErrMalformedKey = errors.New("malformed API key")
)

const keyPrefix = "mgk_"

var b32 = base32.StdEncoding.WithPadding(base32.NoPadding)

// NewKey makes a key for p and returns its plaintext (to be shown once) and
// the record to store.
func NewKey(p Principal, now time.Time) (string, Key, error) {
	if err := p.Validate(); err != nil {
		return "", Key{}, err
	}
	id, secret := make([]byte, 10), make([]byte, 32)
	if _, err := rand.Read(id); err != nil {
		return "", Key{}, err
	}
	if _, err := rand.Read(secret); err != nil {
		return "", Key{}, err
	}
	k := Key{ID: strings.ToLower(b32.EncodeToString(id)), Principal: p, CreatedAt: now.UTC()}
	s := strings.ToLower(b32.EncodeToString(secret))
	h := sha256.Sum256([]byte(s))
	k.Hash = h[:]
	return keyPrefix + k.ID + "_" + s, k, nil
}

// ParseKey splits a key's plaintext into its id and secret.
func ParseKey(plaintext string) (id, secret string, err error) {
	rest, ok := strings.CutPrefix(plaintext, keyPrefix)
	if !ok {
		return "", "", ErrMalformedKey
	}
	id, secret, ok = strings.Cut(rest, "_")
	if !ok || len(id) != 16 || len(secret) != 52 {
		return "", "", ErrMalformedKey
	}
	return id, secret, nil
}

// Authenticate finds the principal of a key's plaintext in s. Every failure
// other than the store's own is ErrMalformedKey or ErrUnknownKey.
func Authenticate(ctx context.Context, s Store, plaintext string, now time.Time) (Principal, error) {
	id, secret, err := ParseKey(plaintext)
	if err != nil {
		return Principal{}, err
	}
	k, err := s.Key(ctx, id)
	if err != nil {
		return Principal{}, err
	}
	h := sha256.Sum256([]byte(secret))
	if subtle.ConstantTimeCompare(h[:], k.Hash) != 1 {
		return Principal{}, ErrUnknownKey
	}
	if !k.RevokedAt.IsZero() && !now.Before(k.RevokedAt) {
		return Principal{}, ErrUnknownKey
	}
	return k.Principal, nil
}
