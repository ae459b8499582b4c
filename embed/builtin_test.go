package embed

import (
	"context"
	"math"
	"slices"
	"testing"
)

func cos(a, b []float32) float64 {
	var s float64
	for i := range a {
		s += float64(a[i]) * float64(b[i])
	}
	return s
}

func embedOne(t testing.TB, text string) []float32 {
	t.Helper()
	v, err := NewBuiltin().Embed(context.Background(), []string{text})
	if err != nil {
		t.Fatal(err)
	}
	return v[0]
}

func TestBuiltinDeterministicAndNormalized(t *testing.T) {
	a, b := embedOne(t, "Deploy the billing service on Friday"), embedOne(t, "Deploy the billing service on Friday")
	if !slices.Equal(a, b) {
		t.Fatal("same text gave different vectors")
	}
	if n := cos(a, a); math.Abs(n-1) > 1e-5 {
		t.Fatalf("norm² = %v, want 1", n)
	}
	if len(a) != BuiltinDim {
		t.Fatalf("dim %d, want %d", len(a), BuiltinDim)
	}
}

func TestBuiltinSimilarity(t *testing.T) {
	q := embedOne(t, "when is the billing service deployment")
	related := embedOne(t, "The billing service deploys every Friday after the freeze")
	unrelated := embedOne(t, "Grandma's birthday dinner is at the Italian place")
	if r, u := cos(q, related), cos(q, unrelated); r <= u+0.1 {
		t.Fatalf("related %.3f should clearly beat unrelated %.3f", r, u)
	}
	// Character trigrams let inflections overlap even with no shared word.
	if s := cos(embedOne(t, "deployment"), embedOne(t, "deploying")); s < 0.2 {
		t.Fatalf("deployment vs deploying = %.3f, want trigram overlap ≥ 0.2", s)
	}
	// Stopwords alone carry little weight.
	if s := cos(embedOne(t, "the cat is on the mat"), embedOne(t, "the report is on the desk")); s > 0.3 {
		t.Fatalf("sentences sharing only stopwords = %.3f, want < 0.3", s)
	}
}

func TestBuiltinNoTokens(t *testing.T) {
	v := embedOne(t, "!!! ??? ...")
	for _, x := range v {
		if x != 0 {
			t.Fatal("text without words should embed to the zero vector")
		}
	}
}

func TestBuiltinCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := NewBuiltin().Embed(ctx, []string{"x"}); err == nil {
		t.Fatal("want an error from a cancelled context")
	}
}

func TestTokens(t *testing.T) {
	tests := []struct {
		in   string
		want []string
	}{
		{"Hello, World!", []string{"hello", "world"}},
		{"don't  re-deploy v2.1", []string{"don't", "re", "deploy", "v2", "1"}},
		{"'quoted' Ünïcode", []string{"quoted", "ünïcode"}},
		{"验血报告 on Friday", []string{"验", "血", "报", "告", "on", "friday"}},
		{"", nil},
	}
	for _, tt := range tests {
		got := slices.Collect(Tokens(tt.in))
		if !slices.Equal(got, tt.want) {
			t.Errorf("Tokens(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func FuzzBuiltin(f *testing.F) {
	f.Add("Deploy the billing service")
	f.Add("验血 ünïcode 'x' \xff")
	f.Fuzz(func(t *testing.T, s string) {
		v := make([]float32, BuiltinDim)
		NewBuiltin().EmbedInto(v, s)
		n := cos(v, v)
		if n != 0 && math.Abs(n-1) > 1e-4 {
			t.Fatalf("norm² %v for %q", n, s)
		}
	})
}

func BenchmarkBuiltin(b *testing.B) {
	text := "Alex prefers to deploy the billing service on Friday afternoons after the change freeze ends"
	v := make([]float32, BuiltinDim)
	e := NewBuiltin()
	b.ReportAllocs()
	for b.Loop() {
		e.EmbedInto(v, text)
	}
}
