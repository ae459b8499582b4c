package auth_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/memgate/memgate/auth"
	"github.com/memgate/memgate/memory"
	"github.com/memgate/memgate/store/mem"
)

var t0 = time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)

func TestKeys(t *testing.T) {
	ctx := context.Background()
	st := mem.New()
	p := auth.Principal{ID: "agent-1", Role: auth.Agent, Users: []string{"alice"}}
	plain, k, err := auth.NewKey(p, t0)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(k.Hash), plain) || len(k.Hash) != 32 {
		t.Fatalf("stored hash %x", k.Hash)
	}
	if err := st.PutKey(ctx, k); err != nil {
		t.Fatal(err)
	}
	got, err := auth.Authenticate(ctx, st, plain, t0)
	if err != nil || got.ID != "agent-1" || got.Role != auth.Agent {
		t.Fatalf("Authenticate = %+v, %v", got, err)
	}
	other, _, _ := auth.NewKey(p, t0) // well formed, never stored
	flip := "a"
	if plain[len(plain)-1] == 'a' {
		flip = "b"
	}
	wrongSecret := plain[:len(plain)-1] + flip
	for name, key := range map[string]string{"unknown id": other, "wrong secret": wrongSecret} {
		if _, err := auth.Authenticate(ctx, st, key, t0); !errors.Is(err, auth.ErrUnknownKey) {
			t.Errorf("%s: %v, want ErrUnknownKey", name, err)
		}
	}
	for _, key := range []string{"", "Bearer x", "mgk_", "mgk_short_secret", plain + "x", strings.TrimPrefix(plain, "mgk_")} {
		if _, err := auth.Authenticate(ctx, st, key, t0); !errors.Is(err, auth.ErrMalformedKey) {
			t.Errorf("%q: %v, want ErrMalformedKey", key, err)
		}
	}
	if err := st.RevokeKey(ctx, k.ID, t0.Add(time.Hour)); err != nil {
		t.Fatal(err)
	}
	if _, err := auth.Authenticate(ctx, st, plain, t0.Add(30*time.Minute)); err != nil {
		t.Errorf("before its revocation: %v", err)
	}
	if _, err := auth.Authenticate(ctx, st, plain, t0.Add(time.Hour)); !errors.Is(err, auth.ErrUnknownKey) {
		t.Errorf("after its revocation: %v", err)
	}
}

func TestPrincipal(t *testing.T) {
	tests := []struct {
		p     auth.Principal
		field string // "" when valid
	}{
		{auth.Principal{ID: "a", Role: auth.Agent, Users: []string{"alice"}}, ""},
		{auth.Principal{ID: "a", Role: auth.Admin, Users: []string{auth.AllUsers}}, ""},
		{auth.Principal{Role: auth.Agent, Users: []string{"alice"}}, "principal"},
		{auth.Principal{ID: "a", Role: "root", Users: []string{"alice"}}, "role"},
		{auth.Principal{ID: "a", Role: auth.Agent}, "users"},
		{auth.Principal{ID: "a", Role: auth.Agent, Users: []string{""}}, "users[0]"},
		{auth.Principal{ID: "a", Role: auth.Agent, Users: []string{"alice"}, MaxAuthority: "god"}, "maxAuthority"},
	}
	for _, tt := range tests {
		err := tt.p.Validate()
		var fe *memory.FieldError
		switch {
		case tt.field == "" && err != nil:
			t.Errorf("%+v: %v", tt.p, err)
		case tt.field != "" && (!errors.As(err, &fe) || fe.Field != tt.field):
			t.Errorf("%+v: %v, want a FieldError for %s", tt.p, err, tt.field)
		}
	}
	agent := auth.Principal{ID: "a", Role: auth.Agent, Users: []string{"alice"}}
	if !agent.MayActFor("alice") || agent.MayActFor("bob") || agent.MayActFor("") || agent.MayActFor(auth.AllUsers) {
		t.Error("agent's users")
	}
	if agent.Can(auth.Reviewer) || !agent.Can(auth.Agent) {
		t.Error("agent's role")
	}
	admin := auth.Principal{ID: "r", Role: auth.Admin, Users: []string{auth.AllUsers}}
	if !admin.MayActFor("anyone") || !admin.Can(auth.Reviewer) {
		t.Error("admin")
	}
}

func TestCapAuthority(t *testing.T) {
	agent := auth.Principal{ID: "a", Role: auth.Agent, Users: []string{"u"}}
	capped := auth.Principal{ID: "c", Role: auth.Reviewer, Users: []string{"u"}, MaxAuthority: memory.AuthorityModelInferred}
	admin := auth.Principal{ID: "r", Role: auth.Admin, Users: []string{"u"}}
	tests := []struct {
		p          auth.Principal
		asked      memory.Authority
		lower      bool
		want       memory.Authority
		wantRefuse bool
	}{
		{agent, "", false, memory.AuthorityToolVerified, false},
		{agent, memory.AuthorityExternal, false, memory.AuthorityExternal, false},
		{agent, memory.AuthorityUserConfirmed, false, "", true},
		{agent, memory.AuthoritySystem, true, memory.AuthorityToolVerified, false},
		{capped, memory.AuthorityToolVerified, false, "", true},
		{capped, "", false, memory.AuthorityModelInferred, false},
		{admin, memory.AuthoritySystem, false, memory.AuthoritySystem, false},
		{admin, "", false, "", false},
	}
	for _, tt := range tests {
		m := memory.Memory{SourceAuthority: tt.asked}
		err := tt.p.CapAuthority(&m, tt.lower)
		var ae *auth.AuthorityError
		if tt.wantRefuse != errors.As(err, &ae) || (!tt.wantRefuse && m.SourceAuthority != tt.want) {
			t.Errorf("%s asks %q (lower %v): %q, %v", tt.p.Role, tt.asked, tt.lower, m.SourceAuthority, err)
		}
	}
}

func FuzzParseKey(f *testing.F) {
	plain, _, _ := auth.NewKey(auth.Principal{ID: "a", Role: auth.Agent, Users: []string{"u"}}, t0)
	for _, s := range []string{plain, "", "mgk_", "mgk__", "mgk_aaaaaaaaaaaaaaaa_" + strings.Repeat("b", 52)} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		id, secret, err := auth.ParseKey(s)
		if err != nil {
			if !errors.Is(err, auth.ErrMalformedKey) {
				t.Fatalf("ParseKey(%q): %v", s, err)
			}
			return
		}
		if "mgk_"+id+"_"+secret != s || len(id) != 16 || len(secret) != 52 {
			t.Fatalf("ParseKey(%q) = %q, %q", s, id, secret)
		}
	})
}
