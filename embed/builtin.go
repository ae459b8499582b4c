package embed

import (
	"context"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/memgate/memgate/internal/termsafe"
)

// BuiltinName is the Identity name of the builtin embedder. The suffix is a
// version: any change to features, weights or hashing gets a new one, so a
// store filled by an older version is refused rather than silently mixed.
// (Giving a vector to texts that used to embed to the zero vector, which no
// store holds, changes no stored vector and kept the name; TestBuiltinGoldenV1
// and FuzzBuiltinV1Stable pin every other vector.)
const BuiltinName = "memgate-hash-v1"

// BuiltinDim is the builtin embedder's output dimension.
const BuiltinDim = 256

// Feature weights of the builtin embedder. Whole words carry most of the
// signal; word pairs add a little word order; character trigrams let
// inflections (deploy, deploys, deployment) and typos overlap.
const (
	weightWord     = 1.0
	weightStopword = 0.15
	weightPair     = 0.6
	weightTrigram  = 0.3
)

// Builtin is a deterministic, offline feature-hashing embedder. It is lexical,
// not semantic: texts are close when they share words or word fragments.
// It is safe for concurrent use.
type Builtin struct{}

// NewBuiltin returns the builtin embedder.
func NewBuiltin() *Builtin { return &Builtin{} }

// Identity returns BuiltinName and BuiltinDim.
func (*Builtin) Identity() Identity { return Identity{Name: BuiltinName, Dim: BuiltinDim} }

// Embed returns one unit-length vector per text. It never fails except when
// ctx is done; a text with no visible character (see EmbedInto) yields the
// zero vector.
func (b *Builtin) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	out := make([][]float32, len(texts))
	slab := make([]float32, len(texts)*BuiltinDim)
	for i, t := range texts {
		if i%256 == 0 {
			if err := ctxErr(ctx); err != nil {
				return nil, err
			}
		}
		v := slab[i*BuiltinDim : (i+1)*BuiltinDim : (i+1)*BuiltinDim]
		b.EmbedInto(v, t)
		out[i] = v
	}
	return out, nil
}

// EmbedInto writes the embedding of text into v, which must have length
// BuiltinDim. It is the zero vector only when text has no visible character
// (termsafe.HasVisible is false): empty, whitespace, control and invisible
// format characters only.
//
// Texts with word tokens embed exactly as memgate-hash-v1 always did. A text
// without any (an emoji, "!!!") used to embed to the zero vector, which no
// store accepts; it now embeds its visible symbols instead, which changes no
// vector that was ever stored, so the name stays memgate-hash-v1.
func (*Builtin) EmbedInto(v []float32, text string) {
	clear(v)
	words := embedWords(v, text)
	if !words {
		embedSymbols(v, text)
	}
	if isZero(v) && termsafe.HasVisible(text) {
		// Features that cancel out exactly (rare) must not leave a text
		// with content unembeddable: one feature of the whole text cannot
		// cancel.
		addFeature(v, 'f', text, "", weightWord)
	}
	Normalize(v)
}

// embedWords adds the word, word pair and trigram features of text to v and
// reports whether text had any word token.
func embedWords(v []float32, text string) bool {
	found := false
	var prev string // previous content word, for word pairs
	for tok := range Tokens(text) {
		found = true
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
	return found
}

// embedSymbols adds features for a text without words: each visible
// character (emoji, punctuation, symbols) and each pair of neighbouring ones,
// as words and word pairs are weighted. Whitespace separates pairs; invisible
// characters (such as the joiner inside an emoji sequence) are skipped.
func embedSymbols(v []float32, text string) {
	var buf [2 * utf8.UTFMax]byte
	var prev rune // previous symbol; 0 at the start and after whitespace
	for _, r := range text {
		if termsafe.Invisible(r) {
			if unicode.IsSpace(r) {
				prev = 0
			}
			continue
		}
		n := utf8.EncodeRune(buf[:], r)
		addFeature(v, 's', buf[:n], "", weightWord)
		if prev != 0 {
			m := utf8.EncodeRune(buf[:], prev)
			m += utf8.EncodeRune(buf[m:], r)
			addFeature(v, 'q', buf[:m], "", weightPair)
		}
		prev = r
	}
}

func isZero(v []float32) bool {
	for _, x := range v {
		if x != 0 {
			return false
		}
	}
	return true
}

// addTrigrams adds the character trigrams of "^tok$".
func addTrigrams(v []float32, tok string) {
	var buf [64]byte
	w := append(append(append(buf[:0], '^'), tok...), '$')
	// Offsets of rune starts, so trigrams never split a UTF-8 sequence.
	var starts [64]int
	n := 0
	for i := range string(w) {
		if n == len(starts) {
			break
		}
		starts[n] = i
		n++
	}
	for i := 0; i+3 <= n; i++ {
		end := len(w)
		if i+3 < n {
			end = starts[i+3]
		}
		addFeature(v, 't', w[starts[i]:end], "", weightTrigram)
	}
}

// addFeature hashes (class, a, b) with 64-bit FNV-1a and adds ±weight to the
// bucket it selects; the sign bit keeps collisions from only ever adding up.
func addFeature[S ~string | ~[]byte](v []float32, class byte, a S, b string, weight float32) {
	const offset, prime = 14695981039346656037, 1099511628211
	h := uint64(offset)
	h = (h ^ uint64(class)) * prime
	for i := 0; i < len(a); i++ {
		h = (h ^ uint64(a[i])) * prime
	}
	if b != "" {
		h = (h ^ ' ') * prime
		for i := 0; i < len(b); i++ {
			h = (h ^ uint64(b[i])) * prime
		}
	}
	h ^= h >> 29 // FNV's low bits mix poorly; fold the high bits in
	idx := int(h % uint64(len(v)))
	if h&(1<<40) != 0 {
		weight = -weight
	}
	v[idx] += weight
}

// Tokens yields the lower-cased words of text: runs of letters, digits and
// inner apostrophes. Han, Hiragana, Katakana and Hangul characters, which are
// written without spaces, are each a token of their own.
func Tokens(text string) func(yield func(string) bool) {
	return func(yield func(string) bool) {
		lower := strings.ToLower(text)
		start := -1
		for i, r := range lower {
			switch {
			case isIdeograph(r):
				if start >= 0 && !yield(trimApos(lower[start:i])) {
					return
				}
				start = -1
				if !yield(lower[i : i+utf8.RuneLen(r)]) {
					return
				}
			case unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.Is(unicode.Mn, r) || (r == '\'' && start >= 0):
				if start < 0 {
					start = i
				}
			default:
				if start >= 0 {
					if t := trimApos(lower[start:i]); t != "" && !yield(t) {
						return
					}
				}
				start = -1
			}
		}
		if start >= 0 {
			if t := trimApos(lower[start:]); t != "" {
				yield(t)
			}
		}
	}
}

func trimApos(s string) string { return strings.TrimRight(s, "'") }

func isIdeograph(r rune) bool {
	return unicode.In(r, unicode.Han, unicode.Hiragana, unicode.Katakana, unicode.Hangul)
}

// IsStopword reports whether tok (lower case, from Tokens) is a frequent
// English function word that carries little meaning on its own.
func IsStopword(tok string) bool { return stopwords[tok] }

// stopwords are frequent English function words. They keep a small weight,
// so "not" and "never" still count for something, but do not dominate.
var stopwords = func() map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(`a an and are as at be been but by can could did do does
		for from had has have he her his i if in into is it its just me my of on or our she
		so than that the their them then there these they this those to was we were what
		when where which who will with would you your about after all also am any because
		before being both each few how more most other own same should some such too very
		s t don't i'm it's let's`) {
		m[w] = true
	}
	return m
}()
