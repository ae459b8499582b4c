package cli

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"testing"

	"github.com/memgate/memgate/embed"
	"github.com/memgate/memgate/embed/openai"
	"github.com/memgate/memgate/gate"
)

// fakeEmbeddings serves OpenAI's /v1/embeddings with a deterministic
// 64-dimensional embedding (a fold of the builtin one), standing in for a
// local embedding server.
func fakeEmbeddings(t *testing.T) *httptest.Server {
	t.Helper()
	b := embed.NewBuiltin()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var req struct {
			Input []string `json:"input"`
			Model string   `json:"model"`
		}
		if r.URL.Path != "/v1/embeddings" || json.NewDecoder(r.Body).Decode(&req) != nil {
			http.Error(w, "bad request", http.StatusBadRequest)
			return
		}
		type item struct {
			Index     int       `json:"index"`
			Embedding []float32 `json:"embedding"`
		}
		var out struct {
			Data  []item `json:"data"`
			Model string `json:"model"`
		}
		full := make([]float32, embed.BuiltinDim)
		for i, text := range req.Input {
			b.EmbedInto(full, text)
			v := make([]float32, 64)
			for j, x := range full {
				v[j%64] += x
			}
			out.Data = append(out.Data, item{Index: i, Embedding: v})
		}
		out.Model = req.Model
		json.NewEncoder(w).Encode(out)
	}))
	t.Cleanup(srv.Close)
	return srv
}

// Bring your own embedder: train a gate on your embedder's vectors, then
// search a store of that embedder with it. The model records the embedder,
// and search uses it with the store's own vectors.
func TestTrainWithOwnEmbedder(t *testing.T) {
	srv := fakeEmbeddings(t)
	t.Setenv(openai.EnvBaseURL, srv.URL+"/v1")
	t.Setenv(openai.EnvModel, "fake-64")
	t.Setenv(openai.EnvAPIKey, "test")
	dir := t.TempDir()
	if r := run(t, "", "suite", "generate", "--out", filepath.Join(dir, "s"), "--per-family", "3", "--seed", "4"); r.code != 0 {
		t.Fatalf("suite: %+v", r)
	}
	model := filepath.Join(dir, "own.model")
	if r := run(t, "", "--embedder", "openai", "train", "--cases", filepath.Join(dir, "s", "train.jsonl"),
		"--dev", filepath.Join(dir, "s", "dev.jsonl"), "--out", model, "--epochs", "20", "--min-utility", "0.5"); r.code != 0 {
		t.Fatalf("train: %+v", r)
	}
	m, err := gate.Load(model)
	if err != nil {
		t.Fatal(err)
	}
	if id := m.Header.Embedder; id.Dim != 64 || id.Name == embed.BuiltinName {
		t.Fatalf("model embedder %+v, want the fake 64-d embedder", id)
	}
	db := filepath.Join(dir, "own.db")
	if r := run(t, "", "--db", db, "--embedder", "openai", "add", "--user", "u", "--domain", "work", "Atlas deploys go through the release pipeline"); r.code != 0 {
		t.Fatalf("add: %+v", r)
	}
	scores := searchScores(t, "--db", db, "--embedder", "openai", "--gate", model, "search", "--user", "u", "-q", "deploy atlas",
		"--intent", "answer", "--tool-risk", "none")
	if len(scores) != 1 {
		t.Fatalf("scores %v", scores)
	}
	for _, s := range scores {
		if s[1] != m.Threshold("answer×none") {
			t.Fatalf("search used threshold %v, the own-embedder model has %v", s[1], m.Threshold("answer×none"))
		}
	}
	// The same model on a builtin store is refused: its vectors are another
	// embedder's.
	bdb := filepath.Join(dir, "builtin.db")
	run(t, "", "--db", bdb, "add", "--user", "u", "note")
	if r := run(t, "", "--db", bdb, "--gate", model, "search", "--user", "u", "-q", "note"); r.code != 1 {
		t.Fatalf("builtin store with an own-embedder model: %+v", r)
	}
}
