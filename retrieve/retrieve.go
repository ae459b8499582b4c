// Package retrieve holds the vocabulary of candidate retrieval, the first
// stage of memgate's read path: what an index stores (Entry), what a single
// retriever returns (Hit), and how vector and lexical rankings are fused into
// one candidate list (Fuse).
//
// Retrieval only proposes candidates. Whether a candidate may enter a model's
// context is decided later, by admission.
package retrieve

import (
	"cmp"
	"slices"
)

// Entry is what a candidate index keeps for one memory: its text and vector
// for the two searches, and enough scope to enforce the user boundary and
// the optional filters inside the search itself.
type Entry struct {
	ID          string
	UserID      string
	WorkspaceID string
	ProjectID   string
	Domain      string
	Text        string
	Vector      []float32 // unit length
}

// Hit is one result of one retriever, best first in its list.
type Hit struct {
	ID    string
	Score float64 // cosine similarity for vectors, BM25 (higher is better) for text
}

// RRFConstant is the k of reciprocal-rank fusion, 1/(k+rank). 60 is the
// value of Cormack et al. and works across very different score scales.
const RRFConstant = 60

// Fused is a candidate after fusion, with what each retriever said of it.
type Fused struct {
	ID          string
	Score       float64 // reciprocal-rank fusion score
	VectorRank  int     // 1-based rank in the vector list, 0 if absent
	LexicalRank int     // 1-based rank in the lexical list, 0 if absent
	Similarity  float64 // cosine similarity, if the vector list had it
	Lexical     float64 // BM25 score, 0 if there was no lexical match
}

// Fuse merges a vector ranking and a lexical ranking by reciprocal-rank
// fusion and returns at most k candidates, best first. Ties are broken by
// id so the order is deterministic.
func Fuse(vector, lexical []Hit, k int) []Fused {
	byID := make(map[string]*Fused, len(vector)+len(lexical))
	out := make([]Fused, 0, len(vector)+len(lexical))
	get := func(id string) *Fused {
		if f, ok := byID[id]; ok {
			return f
		}
		out = append(out, Fused{ID: id})
		return &out[len(out)-1]
	}
	// Pointers into out stay valid: its capacity is never exceeded.
	for i, h := range vector {
		f := get(h.ID)
		byID[h.ID] = f
		if f.VectorRank == 0 {
			f.VectorRank, f.Similarity = i+1, h.Score
			f.Score += 1.0 / float64(RRFConstant+i+1)
		}
	}
	for i, h := range lexical {
		f := get(h.ID)
		byID[h.ID] = f
		if f.LexicalRank == 0 {
			f.LexicalRank, f.Lexical = i+1, h.Score
			f.Score += 1.0 / float64(RRFConstant+i+1)
		}
	}
	slices.SortFunc(out, func(a, b Fused) int {
		if c := cmp.Compare(b.Score, a.Score); c != 0 {
			return c
		}
		return cmp.Compare(a.ID, b.ID)
	})
	if k >= 0 && len(out) > k {
		out = out[:k]
	}
	return out
}
