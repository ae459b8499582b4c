package retrieve

import "testing"

func TestFuse(t *testing.T) {
	vector := []Hit{{"a", 0.9}, {"b", 0.8}, {"c", 0.7}}
	lexical := []Hit{{"c", 12}, {"d", 9}, {"a", 3}}
	got := Fuse(vector, lexical, 10)
	// a: 1/61+1/63, c: 1/63+1/61 -> tie, broken by id; then b (1/62), d (1/62) tie -> b, d.
	want := []string{"a", "c", "b", "d"}
	if len(got) != len(want) {
		t.Fatalf("got %d results, want %d", len(got), len(want))
	}
	for i, id := range want {
		if got[i].ID != id {
			t.Fatalf("rank %d: got %s, want %s (%+v)", i, got[i].ID, id, got)
		}
	}
	c := got[1]
	if c.VectorRank != 3 || c.LexicalRank != 1 || c.Similarity != 0.7 || c.Lexical != 12 {
		t.Fatalf("c lost its per-retriever scores: %+v", c)
	}
	if d := got[3]; d.VectorRank != 0 || d.Similarity != 0 || d.LexicalRank != 2 {
		t.Fatalf("d should be lexical-only: %+v", d)
	}
	if got := Fuse(vector, lexical, 2); len(got) != 2 {
		t.Fatalf("k=2 gave %d", len(got))
	}
	if got := Fuse(nil, nil, 5); len(got) != 0 {
		t.Fatalf("empty inputs gave %v", got)
	}
}

func TestFuseIgnoresDuplicatesWithinAList(t *testing.T) {
	got := Fuse([]Hit{{"a", 0.9}, {"a", 0.5}}, nil, 10)
	if len(got) != 1 || got[0].VectorRank != 1 || got[0].Similarity != 0.9 {
		t.Fatalf("got %+v", got)
	}
}
