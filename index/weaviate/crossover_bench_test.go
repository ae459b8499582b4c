package weaviate_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"net/http"
	"net/url"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/memgate/memgate/embed"
	"github.com/memgate/memgate/index/exact"
	"github.com/memgate/memgate/index/weaviate"
	"github.com/memgate/memgate/internal/benchstats"
	"github.com/memgate/memgate/memory"
	"github.com/memgate/memgate/retrieve"
)

// BenchmarkCrossover finds the per-user size at which a k=50 vector search
// through Weaviate's HNSW index gets faster than the exact in-memory scan
// (index/exact). One user grows to each size of MEMGATE_CROSSOVER_SIZES
// (default 1000,10000,50000,100000,200000) of 384-dimensional vectors
// (MEMGATE_CROSSOVER_DIM): the builtin embedder's feature hashing of
// generated sentences, into 384 buckets. At each size it times, one search
// at a time:
//
//   - exact: index/exact's Search (the embedded default);
//   - weaviate: this package's Search, as memgate calls it (the filter,
//     the vectors it reads back to score exactly, the extra fetches);
//   - graphql: Weaviate alone, one nearVector GraphQL query of the
//     user's tenant for 50 ids and distances, with no filter, so the HNSW
//     graph is walked whatever the collection's flatSearchCutoff: the
//     floor of any index over Weaviate's GraphQL API.
//
// and reports p50 and p99 (µs) and, for the two Weaviate ones, recall@50
// against the exact scan. The collection is created with flatcutoff=1
// (MEMGATE_CROSSOVER_FLATCUTOFF), so the weaviate search also walks the
// HNSW graph at every size; with Weaviate's default cutoff (40000), a
// filtered search of a smaller user is a brute-force scan inside Weaviate.
// Inserting the vectors (into both indexes) is timed too: insert-vec/s.
//
// It needs a Weaviate server (MEMGATE_TEST_WEAVIATE, from
// scripts/scaleout-up.sh) and skips without one:
//
//	eval "$(bash scripts/scaleout-up.sh /tmp/so)"
//	go test ./index/weaviate -run '^$' -bench Crossover -benchtime 3s -timeout 60m
func BenchmarkCrossover(b *testing.B) {
	base := os.Getenv("MEMGATE_TEST_WEAVIATE")
	if base == "" {
		b.Skip("MEMGATE_TEST_WEAVIATE is not set (an http://127.0.0.1:PORT Weaviate URL; scripts/scaleout-up.sh starts one)")
	}
	sizes := []int{1000, 10000, 50000, 100000, 200000}
	if s := os.Getenv("MEMGATE_CROSSOVER_SIZES"); s != "" {
		sizes = sizes[:0]
		for f := range strings.SplitSeq(s, ",") {
			n, err := strconv.Atoi(strings.TrimSpace(f))
			if err != nil || n <= 0 {
				b.Fatalf("MEMGATE_CROSSOVER_SIZES: %q is not a size", f)
			}
			sizes = append(sizes, n)
		}
		slices.Sort(sizes)
	}
	dim := xoEnvInt(b, "MEMGATE_CROSSOVER_DIM", 384)
	cutoff := xoEnvInt(b, "MEMGATE_CROSSOVER_FLATCUTOFF", 1)
	const k, user = 50, "crossover"

	u, err := url.Parse(base)
	if err != nil {
		b.Fatal(err)
	}
	q := u.Query()
	class := fmt.Sprintf("MemgateCrossover%d", time.Now().UnixNano())
	q.Set("class", class)
	q.Set("flatcutoff", strconv.Itoa(cutoff))
	u.RawQuery = q.Encode()
	ctx := context.Background()
	wx, err := weaviate.New(ctx, u.String(), dim)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
		defer cancel()
		if err := wx.DropClass(ctx); err != nil {
			b.Errorf("dropping %s: %v", class, err)
		}
	})
	ex := exact.New(dim)
	gql := xoGraphQL(u, class, "u-"+user, k)

	emb := embed.NewBuiltin()
	vector := func(text string) []float32 {
		v := make([]float32, dim)
		emb.EmbedInto(v, text)
		return v
	}
	texts := xoNewTexts(1)
	queries := make([][]float32, 200)
	qr := rand.New(rand.NewPCG(7, 7))
	for i := range queries {
		queries[i] = vector(texts.sentence(qr, 4+qr.IntN(5)))
	}
	filter := memory.Filter{UserID: user}

	have := 0
	for _, size := range sizes {
		// Grow both indexes to size, in batches of 1000.
		start := time.Now()
		for have < size {
			n := min(1000, size-have)
			batch := make([]retrieve.Entry, n)
			for i := range batch {
				id := fmt.Sprintf("m%07d", have+i)
				text := texts.sentence(texts.r, 8+texts.r.IntN(16))
				batch[i] = retrieve.Entry{ID: id, UserID: user, Text: text, Vector: vector(text),
					ProjectID: fmt.Sprintf("p%d", texts.r.IntN(8))}
			}
			if err := ex.Upsert(ctx, batch...); err != nil {
				b.Fatal(err)
			}
			if err := wx.Upsert(ctx, batch...); err != nil {
				b.Fatal(err)
			}
			have += n
		}
		grow := time.Since(start)

		truth := make([][]string, len(queries))
		for i, qv := range queries {
			hits, err := ex.Search(ctx, filter, qv, k)
			if err != nil {
				b.Fatal(err)
			}
			truth[i] = xoIDs(hits)
		}
		recall := func(search func(qv []float32) []string) float64 {
			found, want := 0, 0
			for i, qv := range queries {
				got := search(qv)
				for _, id := range truth[i] {
					want++
					if slices.Contains(got, id) {
						found++
					}
				}
			}
			return float64(found) / float64(max(want, 1))
		}
		mine := func(qv []float32) []string {
			hits, err := wx.Search(ctx, filter, qv, k)
			if err != nil {
				b.Fatal(err)
			}
			return xoIDs(hits)
		}
		raw := func(qv []float32) []string {
			got, err := gql(qv)
			if err != nil {
				b.Fatal(err)
			}
			return got
		}

		b.Run(fmt.Sprintf("n=%d/exact", size), func(b *testing.B) {
			i := 0
			benchstats.Loop(b, func() {
				if _, err := ex.Search(ctx, filter, queries[i%len(queries)], k); err != nil {
					b.Fatal(err)
				}
				i++
			})
			// After the loop: b.Loop's first call drops metrics reported before it.
			b.ReportMetric(float64(size-xoPrevSize(sizes, size))/grow.Seconds(), "insert-vec/s")
		})
		b.Run(fmt.Sprintf("n=%d/weaviate", size), func(b *testing.B) {
			r := recall(mine)
			i := 0
			benchstats.Loop(b, func() {
				mine(queries[i%len(queries)])
				i++
			})
			b.ReportMetric(r, "recall@50")
		})
		b.Run(fmt.Sprintf("n=%d/graphql", size), func(b *testing.B) {
			r := recall(raw)
			i := 0
			benchstats.Loop(b, func() {
				raw(queries[i%len(queries)])
				i++
			})
			b.ReportMetric(r, "recall@50")
		})
	}
}

func xoEnvInt(b *testing.B, name string, def int) int {
	s := os.Getenv(name)
	if s == "" {
		return def
	}
	n, err := strconv.Atoi(s)
	if err != nil || n <= 0 {
		b.Fatalf("%s=%q: want a positive integer", name, s)
	}
	return n
}

func xoPrevSize(sizes []int, size int) int {
	i := slices.Index(sizes, size)
	if i <= 0 {
		return 0
	}
	return sizes[i-1]
}

func xoIDs(hits []retrieve.Hit) []string {
	out := make([]string, len(hits))
	for i, h := range hits {
		out[i] = h.ID
	}
	return out
}

// graphqlSearch returns a function that runs one nearVector query of
// tenant in class for k memory ids over Weaviate's GraphQL API, without a
// filter, and returns the ids.
func xoGraphQL(base *url.URL, class, tenant string, k int) func(q []float32) ([]string, error) {
	endpoint := url.URL{Scheme: "http", Host: base.Host, Path: "/v1/graphql"}
	if base.Scheme == "https" {
		endpoint.Scheme = "https"
	}
	hc := &http.Client{Timeout: time.Minute}
	return func(q []float32) ([]string, error) {
		vec, _ := json.Marshal(q)
		query := fmt.Sprintf(`{Get{%s(tenant:%q,limit:%d,nearVector:{vector:%s}){memoryId _additional{distance}}}}`, class, tenant, k, vec)
		body, _ := json.Marshal(map[string]string{"query": query})
		resp, err := hc.Post(endpoint.String(), "application/json", bytes.NewReader(body))
		if err != nil {
			return nil, err
		}
		defer resp.Body.Close()
		var out struct {
			Data struct {
				Get map[string][]struct {
					MemoryID string `json:"memoryId"`
				} `json:"Get"`
			} `json:"data"`
			Errors []struct {
				Message string `json:"message"`
			} `json:"errors"`
		}
		if err := json.NewDecoder(resp.Body).Decode(&out); err != nil {
			return nil, err
		}
		if len(out.Errors) > 0 {
			return nil, fmt.Errorf("graphql: %s", out.Errors[0].Message)
		}
		rows := out.Data.Get[class]
		got := make([]string, len(rows))
		for i, r := range rows {
			got[i] = r.MemoryID
		}
		return got, nil
	}
}

// xoTexts generates sentences of words drawn from a vocabulary with Zipf
// frequencies, as natural text has: a few very common words, a long tail of
// rare ones.
type xoTexts struct {
	r     *rand.Rand
	zipf  *rand.Zipf
	words []string
}

func xoNewTexts(seed uint64) *xoTexts {
	// 120 stems × 8 endings = 960 word forms; forms of one stem share
	// character trigrams, as inflections do.
	stems := strings.Fields(`deploy migrat invoice client meet doctor appoint family dinner budget report
		servic databas review contract insur claim school holiday flight hotel password account bank
		transfer salar tax refund recipe allerg medic birthday gift garden car repair lawyer landlord
		rent lease quarter sprint releas bug custom support ticket roadmap design hir interview onboard
		laptop backup server outage incident vendor payment suppl shipment warehouse prefer morning
		evening week month urgent confident share privat project deadline atlas orion helios falcon
		cobalt granite lisbon berlin tokyo nairobi oslo madrid seoul dublin prague austin kyoto porto
		vienna maria priya chen lena omar sofia lucas amara yuki noah elena ravi fatima jonas ines
		tomas hana mateo olga kwame zoe arjun leila felix mei diego nora hugo anya kofi clara ivan
		pipeline cluster runbook dashboard certific keyboard bicycle warrant subscript spreadsheet`)
	endings := []string{"", "s", "ed", "ing", "er", "ion", "ly", "al"}
	var words []string
	for _, e := range endings {
		for _, s := range stems {
			words = append(words, s+e)
		}
	}
	r := rand.New(rand.NewPCG(seed, 99))
	// Shuffle so the Zipf ranks do not follow the stem order.
	r.Shuffle(len(words), func(i, j int) { words[i], words[j] = words[j], words[i] })
	return &xoTexts{r: r, zipf: rand.NewZipf(r, 1.1, 2, uint64(len(words)-1)), words: words}
}

// sentence returns n words; r chooses which (the memories and the queries
// use their own generators, so growing the index never shifts the queries).
func (t *xoTexts) sentence(r *rand.Rand, n int) string {
	z := t.zipf
	if r != t.r {
		z = rand.NewZipf(r, 1.1, 2, uint64(len(t.words)-1))
	}
	w := make([]string, n)
	for i := range w {
		w[i] = t.words[z.Uint64()]
	}
	return strings.Join(w, " ")
}
