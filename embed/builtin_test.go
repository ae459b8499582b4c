package embed

import (
	"context"
	"math"
	"slices"
	"testing"
	"unicode/utf8"

	"github.com/memgate/memgate/internal/termsafe"
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

// TestBuiltinSymbolsOnly: an emoji or punctuation is content. A text with no
// word tokens embeds its symbols, so it is a unit vector, not the zero vector.
func TestBuiltinSymbolsOnly(t *testing.T) {
	for _, text := range []string{"😀", "!!!", "!!! ??? ...", "🇫🇷", "👍🏽", "👨\u200d👩\u200d👧", "—", "€", "' '", "«»", "\u200b😀\u200b", "\xff"} {
		v := embedOne(t, text)
		if n := cos(v, v); math.Abs(n-1) > 1e-5 {
			t.Errorf("Embed(%q): norm² = %v, want a unit vector", text, n)
		}
	}
	if s := cos(embedOne(t, "😀"), embedOne(t, "!!!")); s > 0.5 {
		t.Errorf("different symbols should differ: cos(😀, !!!) = %.3f", s)
	}
	if s := cos(embedOne(t, "😀"), embedOne(t, "😀 😀")); s < 0.9 {
		t.Errorf("the same symbol repeated should stay close: %.3f", s)
	}
	if s := cos(embedOne(t, "🚀🔥"), embedOne(t, "🔥🚀")); s < 0.5 || s > 0.9999 {
		t.Errorf("symbol order should count a little: cos = %.3f", s)
	}
}

// TestBuiltinNothingVisible: only a text with no visible character at all
// (whitespace, control and invisible format characters) embeds to zero.
// Memory validation refuses such text.
func TestBuiltinNothingVisible(t *testing.T) {
	for _, text := range []string{"", " ", "\t\n\r", "\u200b", "\u200d\u2060\ufeff", "\u202e", "\x00\x1b", "\u2028\u3000"} {
		if v := embedOne(t, text); !isZero(v) {
			t.Errorf("Embed(%q) is not the zero vector", text)
		}
		if termsafe.HasVisible(text) {
			t.Errorf("termsafe.HasVisible(%q) = true", text)
		}
	}
	for _, text := range []string{"a", "😀", "!", "\u200bx", "\xff"} {
		if !termsafe.HasVisible(text) {
			t.Errorf("termsafe.HasVisible(%q) = false", text)
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

// embedV1 is memgate-hash-v1 as it was before symbol features: words, word
// pairs and trigrams only. FuzzBuiltinV1Stable checks the embedder against it.
func embedV1(v []float32, text string) {
	clear(v)
	var prev string
	for tok := range Tokens(text) {
		if stopwords[tok] {
			addFeature(v, 'w', tok, "", weightStopword)
			continue
		}
		addFeature(v, 'w', tok, "", weightWord)
		if prev != "" {
			addFeature(v, 'p', prev, tok, weightPair)
		}
		prev = tok
		if utf8.RuneCountInString(tok) >= 4 {
			addTrigrams(v, tok)
		}
	}
	Normalize(v)
}

// FuzzBuiltinV1Stable: wherever the original embedder produced a vector, the
// embedder must produce the very same bits; elsewhere (no word features) it
// must produce a unit vector unless the text has nothing visible.
func FuzzBuiltinV1Stable(f *testing.F) {
	for _, g := range goldenV1 {
		f.Add(g.text)
	}
	for _, s := range []string{"😀", "!!!", "", " ", "\u200b", "'", "👨\u200d👩\u200d👧 !", "\xff\xfe"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		want, got := make([]float32, BuiltinDim), make([]float32, BuiltinDim)
		embedV1(want, s)
		NewBuiltin().EmbedInto(got, s)
		if !isZero(want) {
			if !slices.Equal(got, want) {
				t.Fatalf("EmbedInto(%q) changed a memgate-hash-v1 vector", s)
			}
			return
		}
		if isZero(got) == termsafe.HasVisible(s) {
			t.Fatalf("EmbedInto(%q): zero=%v but HasVisible=%v", s, isZero(got), termsafe.HasVisible(s))
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
