// Package embed turns memory text into vectors for similarity retrieval.
//
// The builtin embedder (NewBuiltin) needs no network and no model download:
// it hashes word, word-pair and character n-gram features into a fixed-size
// vector. It is what memgate uses by default. Package embed/openai talks to
// any OpenAI-compatible /v1/embeddings server for real semantic embeddings.
//
// A store records the Identity of the embedder that filled it, because
// vectors from two embedders are not comparable; memgate refuses to mix them.
package embed

import (
	"context"
	"fmt"
	"math"
)

// Identity names an embedder and its output dimension. Two embedders with the
// same Identity must produce comparable vectors.
type Identity struct {
	Name string `json:"name"`
	Dim  int    `json:"dim"`
}

// String renders the identity as "name (dim N)" for messages.
func (id Identity) String() string { return fmt.Sprintf("%s (dim %d)", id.Name, id.Dim) }

// Normalize scales v to unit length in place, so that a dot product of two
// normalized vectors is their cosine similarity. A zero vector stays zero.
func Normalize(v []float32) {
	var ss float64
	for _, x := range v {
		ss += float64(x) * float64(x)
	}
	if ss == 0 {
		return
	}
	inv := float32(1 / math.Sqrt(ss))
	for i := range v {
		v[i] *= inv
	}
}

// Check reports an error if vecs does not hold exactly n vectors of dimension
// dim with finite components. Embedders use it to vet what a server sent.
func Check(vecs [][]float32, n, dim int) error {
	if len(vecs) != n {
		return fmt.Errorf("got %d vectors for %d texts", len(vecs), n)
	}
	for i, v := range vecs {
		if len(v) != dim {
			return fmt.Errorf("vector %d has dimension %d, want %d", i, len(v), dim)
		}
		for j, x := range v {
			if math.IsNaN(float64(x)) || math.IsInf(float64(x), 0) {
				return fmt.Errorf("vector %d component %d is not finite", i, j)
			}
		}
	}
	return nil
}

// ctxErr lets a long batch stop early when its context is cancelled.
func ctxErr(ctx context.Context) error {
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("embed: %w", err)
	}
	return nil
}
