package memgate

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"github.com/memgate/memgate/embed"
	"github.com/memgate/memgate/internal/vecmath"
	"github.com/memgate/memgate/memory"
	"github.com/memgate/memgate/retrieve"
)

// Limits of a search.
const (
	DefaultK = 10
	MaxK     = 1000
)

// Query asks for the candidates of one task.
type Query struct {
	// Scope is the user (required) and optional workspace, project and
	// domain filters. Memories unscoped on an axis match any filter on it.
	Scope memory.Filter `json:"scope"`
	// Text is the task or query text. It drives both the lexical search and,
	// unless Vector is set, the vector search.
	Text string `json:"text,omitempty"`
	// Vector is an optional caller-computed query embedding, of the store's
	// embedder dimension.
	Vector []float32 `json:"vector,omitempty"`
	// K is how many candidates to return; 0 means DefaultK.
	K int `json:"k,omitempty"`
	// Depth is how many results each retriever contributes before fusion;
	// 0 means 2K. A deeper list lets fusion promote memories that only one
	// retriever ranks highly.
	Depth int `json:"depth,omitempty"`
}

// Candidate is one retrieved memory with everything admission needs: the full
// record and what each retriever said of it. A candidate is not yet admitted.
type Candidate struct {
	Memory memory.Memory `json:"memory"`
	// Similarity is the cosine similarity of the memory to the query.
	Similarity float64 `json:"similarity"`
	// Lexical is the BM25 score (higher is better), 0 without a text match.
	Lexical float64 `json:"lexical"`
	// VectorRank and LexicalRank are 1-based ranks in each retriever's
	// list; 0 means the retriever did not return the memory.
	VectorRank  int `json:"vectorRank,omitempty"`
	LexicalRank int `json:"lexicalRank,omitempty"`
	// Score is the reciprocal-rank fusion score the list is ordered by.
	Score float64 `json:"score"`
}

// Search returns the top K non-revoked memories of the query's user and
// scope, by reciprocal-rank fusion of vector similarity and BM25. The user
// scope is enforced inside both searches; records are re-read from the store
// and their scope checked again, so an index that lags the store cannot leak a
// memory of another scope or resurrect a revoked one.
func (e *Engine) Search(ctx context.Context, q Query) ([]Candidate, error) {
	r, err := e.search(ctx, q, false)
	return r.cands, err
}

// searched is what search found.
type searched struct {
	cands []Candidate
	qvec  []float32 // the normalised query vector
	// vecs are the candidates' vectors from the index, in order, if they
	// were asked for (nil for one the index no longer holds).
	vecs [][]float32
}

// search is Search that also returns the normalised query vector and, if
// withVectors, the candidates' vectors. The index is asked for vectors once
// per search, never per candidate.
func (e *Engine) search(ctx context.Context, q Query, withVectors bool) (searched, error) {
	if err := e.checkQuery(&q); err != nil {
		return searched{}, errorf("search", err)
	}
	qvec := q.Vector
	if len(qvec) == 0 {
		vecs, err := e.emb.Embed(ctx, []string{q.Text})
		if err != nil {
			return searched{}, errorf("search: embed query", err)
		}
		qvec = vecs[0]
	} else {
		qvec = append([]float32(nil), qvec...)
	}
	embed.Normalize(qvec)

	e.mu.RLock()
	idx := e.index
	e.mu.RUnlock()
	// Load the user first (once, and failing once), then run the two
	// retrievers side by side: they are independent.
	if e.lazy != nil {
		if err := e.lazy.ensure(ctx, q.Scope.UserID); err != nil {
			return searched{}, errorf("search", err)
		}
	}
	var (
		lhits []retrieve.Hit
		lerr  error
		wg    sync.WaitGroup
	)
	if q.Text != "" {
		wg.Go(func() { lhits, lerr = idx.Lexical(ctx, q.Scope, q.Text, q.Depth) })
	}
	vhits, err := idx.Search(ctx, q.Scope, qvec, q.Depth)
	wg.Wait()
	if err != nil {
		return searched{}, errorf("search: vector index", err)
	}
	if lerr != nil {
		return searched{}, errorf("search: lexical index", lerr)
	}
	fused := retrieve.Fuse(vhits, lhits, q.K)
	ids := make([]string, len(fused))
	for i, f := range fused {
		ids[i] = f.ID
	}
	records, err := e.store.Get(ctx, ids, false)
	if err != nil {
		return searched{}, errorf("search", err)
	}
	byID := make(map[string]int, len(records))
	for i := range records {
		byID[records[i].ID] = i
	}
	r := searched{qvec: qvec, cands: make([]Candidate, 0, len(fused))}
	for _, f := range fused {
		i, ok := byID[f.ID]
		if !ok {
			continue // forgotten since the index answered
		}
		m := records[i]
		if m.Revoked || m.UserID != q.Scope.UserID || !q.Scope.Matches(&m) {
			continue
		}
		r.cands = append(r.cands, Candidate{Memory: m, Similarity: f.Similarity, Lexical: f.Lexical,
			VectorRank: f.VectorRank, LexicalRank: f.LexicalRank, Score: f.Score})
	}
	// Lexical-only candidates need their similarity, and admission may
	// need every candidate's vector: one call to the index gets them.
	var need []string
	for _, c := range r.cands {
		if withVectors || c.VectorRank == 0 {
			need = append(need, c.Memory.ID)
		}
	}
	if len(need) == 0 {
		return r, nil
	}
	vecs, err := idx.Vectors(ctx, q.Scope.UserID, need)
	if err != nil {
		return searched{}, errorf("search: vector index", err)
	}
	if len(vecs) != len(need) {
		return searched{}, fmt.Errorf("search: vector index returned %d vectors for %d ids", len(vecs), len(need))
	}
	if withVectors {
		r.vecs = vecs
	}
	for i, j := 0, 0; i < len(r.cands); i++ {
		c := &r.cands[i]
		if !withVectors && c.VectorRank != 0 {
			continue
		}
		if v := vecs[j]; c.VectorRank == 0 && len(v) == len(qvec) {
			c.Similarity = float64(vecmath.Dot(qvec, v))
		}
		j++
	}
	return r, nil
}

func (e *Engine) checkQuery(q *Query) error {
	var errs []error
	q.Scope.Normalize()
	if q.Scope.UserID == "" {
		errs = append(errs, &memory.FieldError{Field: "scope.userId", Problem: "is required"})
	} else if err := q.Scope.Validate(); err != nil {
		errs = append(errs, err)
	}
	if q.Text == "" && len(q.Vector) == 0 {
		errs = append(errs, &memory.FieldError{Field: "text", Problem: "text or vector is required"})
	} else if q.Text != "" {
		// A query with nothing visible would embed to nothing and match
		// every memory at similarity 0.
		if err := memory.CheckText("text", q.Text); err != nil {
			errs = append(errs, err)
		}
	}
	if len(q.Text) > memory.MaxTextBytes {
		errs = append(errs, &memory.FieldError{Field: "text", Problem: fmt.Sprintf("is %d bytes; the limit is %d", len(q.Text), memory.MaxTextBytes)})
	}
	if err := memory.CheckVector("vector", q.Vector); err != nil {
		errs = append(errs, err)
	} else if dim := e.emb.Identity().Dim; len(q.Vector) > 0 && len(q.Vector) != dim {
		errs = append(errs, &memory.FieldError{Field: "vector", Problem: fmt.Sprintf("has dimension %d; the store's embedder needs %d", len(q.Vector), dim)})
	}
	switch {
	case q.K < 0 || q.K > MaxK:
		errs = append(errs, &memory.FieldError{Field: "k", Problem: fmt.Sprintf("is %d; want 1 to %d", q.K, MaxK)})
	case q.K == 0:
		q.K = DefaultK
	}
	switch {
	case q.Depth < 0 || q.Depth > 4*MaxK:
		errs = append(errs, &memory.FieldError{Field: "depth", Problem: fmt.Sprintf("is %d; want 0 to %d", q.Depth, 4*MaxK)})
	case q.Depth == 0:
		q.Depth = 2 * q.K
	case q.Depth < q.K:
		q.Depth = q.K
	}
	return errors.Join(errs...)
}
