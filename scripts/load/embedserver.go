package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/signal"
	"strconv"
	"sync"
	"syscall"

	"github.com/memgate/memgate/embed"
)

// serveEmbeddings serves a deterministic OpenAI-compatible embedding API
// (POST /v1/embeddings) at addr until SIGINT or SIGTERM: each text's
// vector is the builtin embedder's feature hashing (words, word pairs and
// character trigrams, see package embed) into dim buckets instead of 256,
// normalised. It is lexical, not semantic, like the builtin embedder, but it
// has the dimension of the small sentence-embedding models (384), which is
// what the scale benchmark needs: `memgate serve --embedder openai` with
// MEMGATE_EMBED_BASE_URL=http://ADDR/v1 and MEMGATE_EMBED_DIM=dim.
//
// Embed.Builtin.EmbedInto documents a vector of length embed.BuiltinDim;
// its hashing takes the bucket modulo the vector's length, so a longer
// vector gets the same features spread over more buckets (checked at
// start: the vector of a sample text must be unit length and use buckets
// beyond 256).
func serveEmbeddings(addr string, dim int) error {
	if dim <= 0 || dim > 8192 {
		return fmt.Errorf("-dim %d: want 1 to 8192", dim)
	}
	b := embed.NewBuiltin()
	probe := make([]float32, dim)
	b.EmbedInto(probe, "the Atlas deploy of the billing service failed on Tuesday")
	var norm float64
	high := false
	for i, x := range probe {
		norm += float64(x) * float64(x)
		if i >= embed.BuiltinDim && x != 0 {
			high = true
		}
	}
	if norm < 0.99 || norm > 1.01 || (dim > embed.BuiltinDim && !high) {
		return fmt.Errorf("the builtin hashing does not fill %d dimensions (norm %.3f)", dim, norm)
	}
	pool := sync.Pool{New: func() any { return make([]float32, dim) }}
	mux := http.NewServeMux()
	mux.HandleFunc("POST /v1/embeddings", func(w http.ResponseWriter, r *http.Request) {
		var req struct {
			Input      []string `json:"input"`
			Model      string   `json:"model"`
			Dimensions int      `json:"dimensions"`
		}
		if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
			http.Error(w, `{"error":{"message":"bad request"}}`, http.StatusBadRequest)
			return
		}
		if req.Dimensions != 0 && req.Dimensions != dim {
			http.Error(w, fmt.Sprintf(`{"error":{"message":"this server makes %d-dimensional vectors"}}`, dim), http.StatusBadRequest)
			return
		}
		v := pool.Get().([]float32)
		defer pool.Put(v)
		w.Header().Set("Content-Type", "application/json")
		bw := bufio.NewWriterSize(w, 64<<10)
		buf := make([]byte, 0, 64)
		bw.WriteString(`{"object":"list","data":[`)
		for i, text := range req.Input {
			b.EmbedInto(v, text)
			if i > 0 {
				bw.WriteByte(',')
			}
			fmt.Fprintf(bw, `{"object":"embedding","index":%d,"embedding":[`, i)
			for j, x := range v {
				if j > 0 {
					bw.WriteByte(',')
				}
				buf = strconv.AppendFloat(buf[:0], float64(x), 'g', -1, 32)
				bw.Write(buf)
			}
			bw.WriteString("]}")
		}
		model, _ := json.Marshal(req.Model)
		fmt.Fprintf(bw, `],"model":%s,"usage":{"prompt_tokens":0,"total_tokens":0}}`, model)
		bw.Flush()
	})
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return err
	}
	fmt.Fprintf(os.Stderr, "load: serving %d-d embeddings on http://%s/v1\n", dim, ln.Addr())
	hs := &http.Server{Handler: mux}
	stop := make(chan os.Signal, 1)
	signal.Notify(stop, syscall.SIGINT, syscall.SIGTERM)
	go func() { <-stop; hs.Close() }()
	if err := hs.Serve(ln); err != http.ErrServerClosed {
		return err
	}
	return nil
}
