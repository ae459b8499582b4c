package exact

import (
	"context"
	"fmt"
	"maps"
	"math"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/memgate/memgate/embed"
	"github.com/memgate/memgate/memory"
	"github.com/memgate/memgate/retrieve"
)

// BM25 parameters: the usual defaults of Robertson and Zaragoza.
const (
	bm25K1 = 1.2
	bm25B  = 0.75
)

// posting is one occurrence list entry: a row of the shard and how often the
// term occurs in it.
type posting struct {
	row int32
	tf  uint16
}

// lexical is the full-text half of a shard: an inverted index over the same
// rows as the vectors, so both searches share the scope enforcement.
type lexical struct {
	termIDs  map[string]uint32
	postings [][]posting // by term id
	docTerms [][]uint32  // by row: the distinct term ids of the row
	docLen   []int32
	totalLen int64
	// version counts the changes to the rows, so that norms is known to be
	// current.
	version uint64
	// norms caches each row's BM25 length normalization for the rows as of
	// a version: a query that reads many postings looks them up rather
	// than computing one per posting. Readers (under the index's read lock)
	// replace it when it is stale, once staleReads queries have found it
	// so (rowNorms).
	norms      atomic.Pointer[bm25Norms]
	staleReads atomic.Int32

	// Scratch space for add, which always runs with the shard to itself:
	// the term counts of one text, and a block the rows' term lists are
	// carved from, so that loading many rows does not allocate per row.
	counts    map[string]int
	termBlock []uint32
}

// analyze returns the distinct content terms of text and their counts.
// Stopwords are left out: they match nearly every memory and carry almost no
// BM25 weight, so indexing them would only slow queries down.
func analyze(text string) (map[string]int, int) {
	counts := map[string]int{}
	return counts, analyzeInto(counts, text)
}

// analyzeInto adds the content terms of text to counts and returns how many
// it added.
func analyzeInto(counts map[string]int, text string) int {
	n := 0
	for tok := range embed.Tokens(text) {
		if embed.IsStopword(tok) {
			continue
		}
		counts[tok]++
		n++
	}
	return n
}

func (l *lexical) add(row int32, text string) {
	if l.termIDs == nil {
		l.termIDs = map[string]uint32{}
	}
	if l.counts == nil {
		l.counts = map[string]int{}
	}
	counts := l.counts
	clear(counts)
	n := analyzeInto(counts, text)
	if len(l.termBlock) < len(counts) {
		l.termBlock = make([]uint32, max(4096, len(counts)))
	}
	terms := l.termBlock[:0:len(counts)]
	l.termBlock = l.termBlock[len(counts):]
	for tok, c := range counts {
		id, ok := l.termIDs[tok]
		if !ok {
			id = uint32(len(l.postings))
			l.termIDs[tok] = id
			l.postings = append(l.postings, nil)
		}
		l.postings[id] = append(l.postings[id], posting{row: row, tf: uint16(min(c, math.MaxUint16))})
		terms = append(terms, id)
	}
	l.docTerms = append(l.docTerms, terms)
	l.docLen = append(l.docLen, int32(n))
	l.totalLen += int64(n)
	l.changed()
}

// changed records a change of the rows, which makes the cached norms stale.
// The caller holds the index's write lock.
func (l *lexical) changed() {
	l.version++
	l.staleReads.Store(0)
}

// bm25Norms is the BM25 length normalization of every row, as of a version
// of the rows.
type bm25Norms struct {
	version uint64
	v       []float64
}

// bm25Norm is the BM25 length normalization of a row of docLen terms, in a
// shard whose rows have avgLen terms on average. The conversion rounds the
// product, so that no build fuses it with the addition that follows (as
// GOAMD64=v3 and arm64 may): a norm read from the cache and one computed in
// place are the same number.
func bm25Norm(docLen int32, avgLen float64) float64 {
	return float64(bm25K1 * (1 - bm25B + bm25B*float64(docLen)/avgLen))
}

// staleReadsBeforeRebuild is how many queries find the cached norms stale
// before one rebuilds them: the first after a change computes its own.
const staleReadsBeforeRebuild = 2

// rowNorms returns every row's norm, or nil when the rows changed since the
// norms were computed and too few queries have asked since to pay for
// computing them all. The caller holds the index's read lock.
func (l *lexical) rowNorms(avgLen float64) []float64 {
	if c := l.norms.Load(); c != nil && c.version == l.version {
		return c.v
	}
	if l.staleReads.Add(1) < staleReadsBeforeRebuild {
		return nil
	}
	c := &bm25Norms{version: l.version, v: make([]float64, len(l.docLen))}
	for row, n := range l.docLen {
		c.v[row] = bm25Norm(n, avgLen)
	}
	l.norms.Store(c)
	return c.v
}

// remove drops row's postings and then moves row last into its place, as the
// vector slab does.
func (l *lexical) remove(row, last int32) {
	for _, t := range l.docTerms[row] {
		l.postings[t] = dropRow(l.postings[t], row)
	}
	l.totalLen -= int64(l.docLen[row])
	if row != last {
		for _, t := range l.docTerms[last] {
			for i := range l.postings[t] {
				if l.postings[t][i].row == last {
					l.postings[t][i].row = row
					break
				}
			}
		}
		l.docTerms[row], l.docLen[row] = l.docTerms[last], l.docLen[last]
	}
	l.docTerms, l.docLen = l.docTerms[:last], l.docLen[:last]
	l.changed()
}

func dropRow(ps []posting, row int32) []posting {
	for i := range ps {
		if ps[i].row == row {
			ps[i] = ps[len(ps)-1]
			return ps[:len(ps)-1]
		}
	}
	return ps
}

// MaxQueryTerms bounds the distinct words of a lexical query.
const MaxQueryTerms = 32

// Lexical returns the k memories of f.UserID inside f's scope with the best
// BM25 score for query's words, best first, ties by id as in Search. Scores
// are positive; memories sharing no content word with the query are not
// returned.
func (x *Index) Lexical(ctx context.Context, f memory.Filter, query string, k int) ([]retrieve.Hit, error) {
	if f.UserID == "" {
		return nil, fmt.Errorf("exact index: lexical search needs a userId")
	}
	if k <= 0 {
		return nil, nil
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	counts, _ := analyze(query)
	x.mu.RLock()
	defer x.mu.RUnlock()
	s := x.users[f.UserID]
	if s == nil || len(counts) == 0 {
		return nil, nil
	}
	n := len(s.ids)
	avgLen := float64(s.lex.totalLen) / float64(n)
	if avgLen == 0 {
		return nil, nil
	}
	// Take the query's words in a fixed order: float32 sums depend on the
	// order of their terms, and a query of more than MaxQueryTerms words
	// keeps the same ones every time, so the same query always gets the
	// same scores.
	terms := slices.Sorted(maps.Keys(counts))
	var lists [MaxQueryTerms][]posting
	used, postings := 0, 0
	for _, tok := range terms {
		id, ok := s.lex.termIDs[tok]
		if !ok || len(s.lex.postings[id]) == 0 {
			continue
		}
		if used == MaxQueryTerms {
			break
		}
		lists[used] = s.lex.postings[id]
		used++
		postings += len(s.lex.postings[id])
	}
	ls := getLexScratch(n)
	defer putLexScratch(ls)
	// A query whose postings are few keeps the rows it touches, and
	// offers only those; one that may touch more than 1/denseShare of the
	// rows reads every row (see below).
	ls.dense = x.lexical == lexicalDense || x.lexical == 0 && postings > n/denseShare
	scores := ls.scores
	if ls.dense {
		// Many postings: each row's norm once, not once per posting,
		// unless the rows just changed.
		norms := s.lex.rowNorms(avgLen)
		for _, ps := range lists[:used] {
			idf := bm25IDF(n, len(ps))
			for _, p := range ps {
				tf := float64(p.tf)
				var norm float64
				if norms != nil {
					norm = norms[p.row]
				} else {
					norm = bm25Norm(s.lex.docLen[p.row], avgLen)
				}
				scores[p.row] += bm25Term(idf, tf, norm)
			}
		}
	} else {
		for _, ps := range lists[:used] {
			idf := bm25IDF(n, len(ps))
			for _, p := range ps {
				tf := float64(p.tf)
				if scores[p.row] == 0 { // every term adds more than 0 (idf > 0)
					ls.touched = append(ls.touched, p.row)
				}
				scores[p.row] += bm25Term(idf, tf, bm25Norm(s.lex.docLen[p.row], avgLen))
			}
		}
	}
	want := [3]uint32{s.lookup(f.WorkspaceID), s.lookup(f.ProjectID), s.lookup(f.Domain)}
	// The scoring loop above is not split across cores as Search's scan
	// is: an engine already runs Lexical beside Search, so the two keep
	// both cores of a small machine busy, and the postings are not in row
	// order, so a split by rows would read every posting once per part.
	// It borrows a pooled one-goroutine scan for its heap.
	sc := getScan(s, k, 1, x.dim)
	defer sc.release()
	top := &sc.tops[0]
	// Only the rows the terms touched, when they are few (a query of rare
	// words touches a few dozen): read in posting order, they cost cache
	// misses that a pass over every row, in order, does not. topK's result
	// does not depend on the order rows are offered in (ties go by id).
	if ls.dense {
		for row, score := range scores {
			if score > 0 && inScope(s.scopes[row], want) {
				top.offer(score, int32(row))
			}
		}
	} else {
		for _, row := range ls.touched {
			if score := scores[row]; inScope(s.scopes[row], want) {
				top.offer(score, row)
			}
		}
	}
	return top.hits(s), nil
}

// bm25Term is what a term of inverse document frequency idf, found tf
// times in a row of length normalization norm, adds to the row's score.
func bm25Term(idf, tf, norm float64) float32 {
	return float32(idf * tf * (bm25K1 + 1) / (tf + norm))
}

// bm25IDF is the inverse document frequency of a term in df of n rows.
func bm25IDF(n, df int) float64 {
	d := float64(df)
	return math.Log(1 + (float64(n)-d+0.5)/(d+0.5))
}

// maxPooledScores bounds the score buffer a pooled Lexical keeps for reuse.
const maxPooledScores = 1 << 20

// lexScratch is a Lexical call's space: a score per row, and the rows the
// query's terms touched. Pooled, its scores are all zero: putLexScratch
// clears the rows touched (all of them once they are many).
type lexScratch struct {
	scores  []float32
	touched []int32
	dense   bool // the query may touch more than 1/denseShare of the rows: touched is not kept
}

// denseShare: a query whose postings number more than 1/denseShare of a
// partition's rows has its scores read in a pass over every row.
const denseShare = 8

// Values of Index.lexical.
const (
	lexicalDense = 1 + iota
	lexicalSparse
)

// scoresPool holds lexScratches.
var scoresPool sync.Pool

// getLexScratch returns a scratch of n zero scores and no row touched.
func getLexScratch(n int) *lexScratch {
	ls, _ := scoresPool.Get().(*lexScratch)
	if ls == nil {
		ls = &lexScratch{}
	}
	if cap(ls.scores) < n {
		ls.scores = make([]float32, n)
	}
	ls.scores, ls.touched, ls.dense = ls.scores[:n], ls.touched[:0], false
	return ls
}

func putLexScratch(ls *lexScratch) {
	if ls.dense {
		clear(ls.scores)
	} else {
		for _, row := range ls.touched {
			ls.scores[row] = 0
		}
	}
	if cap(ls.scores) <= maxPooledScores {
		scoresPool.Put(ls)
	}
}
