package weaviate

import (
	"math"
	"slices"
	"strings"

	"github.com/memgate/memgate/embed"
	"github.com/memgate/memgate/index/exact"
)

// BM25 parameters, the exact index's (index/exact/lexical.go): the usual
// defaults of Robertson and Zaragoza.
const (
	bm25K1 = 1.2
	bm25B  = 0.75
)

// analyze returns the content words of text, in order, as the exact index
// counts them: embed.Tokens without the stopwords (embed.IsStopword). None
// holds whitespace, so they can be joined by spaces and split again by a
// whitespace tokenizer.
func analyze(text string) []string {
	var out []string
	for tok := range embed.Tokens(text) {
		if !embed.IsStopword(tok) {
			out = append(out, tok)
		}
	}
	return out
}

// queryTerms returns the distinct content words of a query, sorted: the
// order in which the exact index adds up their scores.
func queryTerms(query string) []string {
	return slices.Compact(slices.Sorted(slices.Values(analyze(query))))
}

// bm25Stats are the statistics of one user's entries that BM25 needs: how
// many entries (n) and content words (totalLen) they have, and the query
// words that count, with their document frequencies.
type bm25Stats struct {
	n        int64
	totalLen int64
	terms    []string // the query words that occur, sorted, at most exact.MaxQueryTerms
	df       []int64  // by terms
}

// use sets the words that count from the query's sorted words and their
// frequencies (0 for a word no entry has): the first exact.MaxQueryTerms
// that occur, as the exact index takes them. It reports whether the words
// after these could still matter, that is whether fewer than
// exact.MaxQueryTerms occur among the words seen so far.
func (s *bm25Stats) use(words []string, df []int64) bool {
	for i, w := range words {
		if len(s.terms) == exact.MaxQueryTerms {
			return false
		}
		if df[i] > 0 {
			s.terms = append(s.terms, w)
			s.df = append(s.df, df[i])
		}
	}
	return len(s.terms) < exact.MaxQueryTerms
}

// score is the BM25 score of an entry whose content words are doc (the
// terms property, split on spaces), computed as the exact index computes
// it: per query word in sorted order, in float64, added up in float32. It
// is 0 for an entry without any of the query words.
func (s *bm25Stats) score(doc []string) float32 {
	if s.n == 0 || s.totalLen == 0 {
		return 0
	}
	avgLen := float64(s.totalLen) / float64(s.n)
	docLen := len(doc)
	var counts map[string]int
	if len(s.terms) > 1 {
		counts = make(map[string]int, len(doc))
		for _, w := range doc {
			counts[w]++
		}
	}
	var score float32
	for i, tok := range s.terms {
		var c int
		if counts != nil {
			c = counts[tok]
		} else {
			for _, w := range doc {
				if w == tok {
					c++
				}
			}
		}
		if c == 0 {
			continue
		}
		// The exact index keeps a term frequency in a uint16.
		tf := float64(min(c, math.MaxUint16))
		df := float64(s.df[i])
		idf := math.Log(1 + (float64(s.n)-df+0.5)/(df+0.5))
		norm := bm25K1 * (1 - bm25B + bm25B*float64(docLen)/avgLen)
		score += float32(idf * tf * (bm25K1 + 1) / (tf + norm))
	}
	return score
}

// docTerms splits a stored terms property into its words.
func docTerms(terms string) []string {
	return strings.Fields(terms)
}
