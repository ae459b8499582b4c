// Command load measures memgate serve under concurrent load, over real HTTP
// on the loopback interface: requests per second, latency percentiles and
// errors for admit or search, the ingest rate of batch adds, and (in
// process) the server's heap before and after (a soak run should keep it
// flat).
//
// In process (the default), it serves an existing store (-db, whose users it
// reads) or builds one in a temporary directory (-users × -per-user
// synthetic memories from a 40-word vocabulary, embedded with the builtin
// embedder), loads every user's index first (as a long-running server would
// at start), creates an admin key, and runs -clients clients for -duration,
// each sending its next request as soon as the last returns (or at -rate
// requests per second in total, for a soak).
//
//	go run ./scripts/load -users 10 -per-user 20000 -clients 32 -duration 30s -op admit
//	go run ./scripts/load -db big.db -op search -rate 500 -duration 10m
//
// With -server URL it drives a running memgate serve instead, with the API
// key in $MEMGATE_KEY (an admin key, or one for user0 … user<N-1>):
//
//	-op ingest   posts -users × -per-user generated memories through
//	             /v1/memories/batch, -batch per request (the server's
//	             --max-batch, 1000 by default, is the most it takes), from
//	             -clients concurrent clients, and reports memories/s
//	             acknowledged (and, with -wait-weaviate, until the Weaviate
//	             index holds them all);
//	-op warm     sends one search per user (the first search of a user
//	             loads its index in an embedded server);
//	-op search, -op admit
//	             as in process, on users user0 … user<-users - 1>.
//
// Generated memories and queries (texts.go) come from templates with slots
// filled from each user's own people, projects and places, a function of
// -seed, the user and the position only, so every server gets the same
// data. -op ingest without -server ingests into a new in-process server.
//
//	MEMGATE_KEY=... go run ./scripts/load -server http://127.0.0.1:8080 -op ingest -users 1000 -per-user 1000 -clients 4
//	MEMGATE_KEY=... go run ./scripts/load -server http://127.0.0.1:8080 -op search -users 1000 -duration 30s
//
// Two helper modes do nothing else:
//
//	-embed-server ADDR  serves a deterministic OpenAI-compatible
//	                    /v1/embeddings of -dim dimensions (384 by default),
//	                    for memgate serve --embedder openai (embedserver.go);
//	-table DIR          prints the side-by-side table of the result files
//	                    scripts/scale-bench.sh writes.
package main

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"runtime"
	"runtime/pprof"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/memgate/memgate"
	"github.com/memgate/memgate/auth"
	"github.com/memgate/memgate/memory"
	"github.com/memgate/memgate/server"
)

func main() {
	var (
		db       = flag.String("db", "", "an existing store to serve (default: build one in a temporary directory)")
		users    = flag.Int("users", 10, "users to build (with -server: users to ingest or query, user0 …)")
		perUser  = flag.Int("per-user", 20000, "memories per user to build or ingest")
		clients  = flag.Int("clients", 32, "concurrent clients")
		duration = flag.Duration("duration", 30*time.Second, "how long to send requests")
		op       = flag.String("op", "admit", "admit, search, ingest (batch adds) or warm (one search per user; with -server)")
		k        = flag.Int("k", 50, "candidates per request")
		rate     = flag.Float64("rate", 0, "total requests per second (0: as fast as the server answers)")
		cpuProf  = flag.String("cpuprofile", "", "write a CPU profile of the measured run (server and clients) to this file")
		server   = flag.String("server", "", "drive the memgate server at this URL, with the API key in $MEMGATE_KEY, instead of one in this process")
		batch    = flag.Int("batch", 1000, "memories per /v1/memories/batch request of -op ingest (at most the server's --max-batch, 1000 by default)")
		seed     = flag.Uint64("seed", 1, "seed of the generated memories and queries of -op ingest and -server runs")
		waitWV   = flag.String("wait-weaviate", "", "after -op ingest, wait until the Weaviate server at this URL holds every ingested memory")
		wvClass  = flag.String("weaviate-class", "MemgateMemory", "the Weaviate collection -wait-weaviate counts")
		embedAt  = flag.String("embed-server", "", "only serve deterministic OpenAI-compatible embeddings of -dim dimensions at this address, until interrupted")
		dim      = flag.Int("dim", 384, "dimension of -embed-server's vectors")
		table    = flag.String("table", "", "only print the side-by-side table of the result files in this directory (scripts/scale-bench.sh)")
	)
	flag.Parse()
	switch {
	case *embedAt != "":
		if err := serveEmbeddings(*embedAt, *dim); err != nil {
			fail(err)
		}
		return
	case *table != "":
		if err := printTable(*table); err != nil {
			fail(err)
		}
		return
	}
	switch *op {
	case "admit", "search", "ingest":
	case "warm":
		if *server == "" {
			fail(fmt.Errorf("-op warm needs -server"))
		}
	default:
		fail(fmt.Errorf("-op %q: want admit, search, ingest or warm", *op))
	}
	if *server != "" {
		key := os.Getenv("MEMGATE_KEY")
		if key == "" {
			fail(fmt.Errorf("-server needs an API key in $MEMGATE_KEY"))
		}
		remote(strings.TrimRight(*server, "/"), key, *op, *seed, *users, *perUser, *batch, *clients, *k, *duration, *rate, *waitWV, *wvClass)
		return
	}
	ctx := context.Background()
	path := *db
	if path == "" {
		dir, err := os.MkdirTemp("", "memgate-load-")
		if err != nil {
			fail(err)
		}
		defer os.RemoveAll(dir)
		path = filepath.Join(dir, "load.db")
	}
	eng, err := memgate.Open(ctx, path, nil)
	if err != nil {
		fail(err)
	}
	defer eng.Close()
	if *op == "ingest" {
		ks, ok := eng.Store().(auth.Store)
		if !ok {
			fail(fmt.Errorf("the store cannot keep keys"))
		}
		base, plain, stop := serveInProcess(ctx, eng, ks)
		defer stop()
		remote(base, plain, *op, *seed, *users, *perUser, *batch, *clients, *k, *duration, *rate, "", "")
		return
	}
	if *db == "" {
		start := time.Now()
		if err := build(ctx, eng, *users, *perUser); err != nil {
			fail(err)
		}
		fmt.Fprintf(os.Stderr, "built %d users × %d memories in %s\n", *users, *perUser, time.Since(start).Round(time.Millisecond))
	}
	page, err := eng.List(ctx, memgate.ListOptions{Limit: 1})
	if err != nil || len(page.Memories) == 0 {
		fail(fmt.Errorf("the store has no memories (%v)", err))
	}
	start := time.Now()
	if err := eng.LoadIndex(ctx); err != nil {
		fail(err)
	}
	st, err := eng.Stats(ctx)
	if err != nil {
		fail(err)
	}
	fmt.Fprintf(os.Stderr, "loaded %d vectors of %d users in %s\n", st.Indexed, st.Users, time.Since(start).Round(time.Millisecond))
	userIDs := usersOf(ctx, eng)

	ks, ok := eng.Store().(auth.Store)
	if !ok {
		fail(fmt.Errorf("the store cannot keep keys"))
	}
	base, plain, stop := serveInProcess(ctx, eng, ks)
	defer stop()

	heapBefore := heap()
	if *cpuProf != "" {
		f, err := os.Create(*cpuProf)
		if err != nil {
			fail(err)
		}
		if err := pprof.StartCPUProfile(f); err != nil {
			fail(err)
		}
	}
	res := run(base, plain, *op, *k, *clients, *duration, *rate, userIDs, func(r *rand.Rand, _ int) string { return sentence(r, 4+r.IntN(6)) })
	if *cpuProf != "" {
		pprof.StopCPUProfile()
	}
	heapAfter := heap()
	slices.Sort(res.lat)
	pct := func(p float64) time.Duration { return percentile(res.lat, p) }
	out := map[string]any{
		"op": *op, "k": *k, "clients": *clients, "duration": duration.String(), "rateTarget": *rate,
		"requests": len(res.lat), "errors": res.errors, "requestsPerSecond": float64(len(res.lat)) / duration.Seconds(),
		"p50ms": ms(pct(.50)), "p90ms": ms(pct(.90)), "p99ms": ms(pct(.99)), "maxms": ms(pct(1)),
		"users": len(userIDs), "memories": st.Memories, "cpus": runtime.NumCPU(),
		"heapBeforeMiB": heapBefore, "heapAfterMiB": heapAfter,
	}
	enc := json.NewEncoder(os.Stdout)
	enc.SetIndent("", "  ")
	enc.Encode(out)
	if res.errors > 0 {
		fmt.Fprintf(os.Stderr, "first error: %s\n", res.firstErr)
		os.Exit(1)
	}
}

// serveInProcess serves eng on a loopback port with a new admin key and
// returns the base URL, the key and a function that stops the server.
func serveInProcess(ctx context.Context, eng *memgate.Engine, ks auth.Store) (string, string, func()) {
	plain, key, err := auth.NewKey(auth.Principal{ID: "load", Role: auth.Admin, Users: []string{auth.AllUsers}}, time.Now())
	if err != nil {
		fail(err)
	}
	if err := ks.PutKey(ctx, key); err != nil {
		fail(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		fail(err)
	}
	h, err := server.New(eng, ks, server.Options{})
	if err != nil {
		fail(err)
	}
	hs := &http.Server{Handler: h}
	go hs.Serve(ln)
	return "http://" + ln.Addr().String(), plain, func() { hs.Close() }
}

// remote runs op against the server at base and prints its result as JSON.
func remote(base, key, op string, seed uint64, users, perUser, batch, clients, k int, d time.Duration, rate float64, waitWV, wvClass string) {
	if users < 1 {
		fail(fmt.Errorf("-users %d: want at least 1", users))
	}
	enc := json.NewEncoder(os.Stdout)
	enc.SetIndent("", "  ")
	switch op {
	case "ingest":
		if batch < 1 || perUser < 1 || clients < 1 {
			fail(fmt.Errorf("-batch, -per-user and -clients must be positive"))
		}
		res := ingest(base, key, seed, users, perUser, batch, clients)
		slices.Sort(res.lat)
		out := map[string]any{
			"op": op, "users": users, "perUser": perUser, "batch": batch, "clients": clients,
			"memories": res.memories, "batches": res.batches, "errors": res.errors,
			"seconds": res.elapsed.Seconds(), "memoriesPerSecond": float64(res.memories) / res.elapsed.Seconds(),
			"p50ms": ms(percentile(res.lat, .50)), "p99ms": ms(percentile(res.lat, .99)), "maxms": ms(percentile(res.lat, 1)),
			"cpus": runtime.NumCPU(),
		}
		if waitWV != "" && res.errors == 0 {
			waited, n, err := waitIndexed(waitWV, wvClass, users, perUser, time.Hour)
			out["indexWaitSeconds"], out["indexedObjects"] = waited.Seconds(), n
			if err != nil {
				fmt.Fprintln(os.Stderr, "load:", err)
				res.errors++
				out["errors"] = res.errors
			} else {
				out["indexedPerSecond"] = float64(res.memories) / (res.elapsed + waited).Seconds()
			}
		}
		enc.Encode(out)
		if res.errors > 0 {
			fmt.Fprintf(os.Stderr, "first error: %s\n", res.firstErr)
			os.Exit(1)
		}
	case "warm":
		el, errs, first := warm(base, key, seed, users, clients, k)
		enc.Encode(map[string]any{"op": op, "users": users, "clients": clients, "k": k, "seconds": el.Seconds(), "errors": errs})
		if errs > 0 {
			fmt.Fprintf(os.Stderr, "first error: %s\n", first)
			os.Exit(1)
		}
	default:
		ids := make([]string, users)
		for u := range ids {
			ids[u] = userName(u)
		}
		res := run(base, key, op, k, clients, d, rate, ids, func(r *rand.Rand, u int) string { return genQuery(r, seed, u) })
		slices.Sort(res.lat)
		pct := func(p float64) time.Duration { return percentile(res.lat, p) }
		enc.Encode(map[string]any{
			"op": op, "k": k, "clients": clients, "duration": d.String(), "rateTarget": rate,
			"requests": len(res.lat), "errors": res.errors, "requestsPerSecond": float64(len(res.lat)) / d.Seconds(),
			"p50ms": ms(pct(.50)), "p90ms": ms(pct(.90)), "p99ms": ms(pct(.99)), "maxms": ms(pct(1)),
			"users": users, "cpus": runtime.NumCPU(), "server": base,
		})
		if res.errors > 0 {
			fmt.Fprintf(os.Stderr, "first error: %s\n", res.firstErr)
			os.Exit(1)
		}
	}
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

func heap() float64 {
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return float64(m.HeapAlloc) / (1 << 20)
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "load:", err)
	os.Exit(1)
}

var vocabulary = strings.Fields(`project deadline invoice client meeting doctor appointment family dinner
	budget report deploy service database migration review contract insurance claim school
	holiday flight hotel password account bank transfer salary tax refund recipe allergy
	medication birthday gift garden car repair lawyer landlord rent lease quarterly sprint`)

func sentence(r *rand.Rand, n int) string {
	w := make([]string, n)
	for i := range w {
		w[i] = vocabulary[r.IntN(len(vocabulary))]
	}
	return strings.Join(w, " ")
}

// build adds users × perUser synthetic memories.
func build(ctx context.Context, eng *memgate.Engine, users, perUser int) error {
	r := rand.New(rand.NewPCG(1, 2))
	domains := []string{"work", "family", "health", "finance", "travel", ""}
	for u := range users {
		user := fmt.Sprintf("user%d", u)
		for start := 0; start < perUser; start += 5000 {
			batch := make([]memory.Memory, 0, 5000)
			for i := start; i < min(start+5000, perUser); i++ {
				batch = append(batch, memory.Memory{ID: fmt.Sprintf("%s-m%d", user, i), UserID: user,
					Text: sentence(r, 8+r.IntN(14)), ProjectID: fmt.Sprintf("p%d", r.IntN(8)), Domain: domains[r.IntN(len(domains))]})
			}
			if _, err := eng.AddBatch(ctx, batch); err != nil {
				return err
			}
		}
	}
	return nil
}

func usersOf(ctx context.Context, eng *memgate.Engine) []string {
	users, err := eng.Store().Users(ctx)
	if err != nil {
		fail(err)
	}
	return users
}

type result struct {
	lat      []time.Duration
	errors   int64
	firstErr string
}

// run sends requests from clients goroutines for d and collects latencies;
// query gives the text of a query to user users[u].
func run(base, key, op string, k, clients int, d time.Duration, rate float64, users []string, query func(r *rand.Rand, u int) string) result {
	tr := &http.Transport{MaxIdleConnsPerHost: clients}
	hc := &http.Client{Transport: tr, Timeout: 30 * time.Second}
	var (
		mu       sync.Mutex
		res      result
		errs     atomic.Int64
		once     sync.Once
		wg       sync.WaitGroup
		deadline = time.Now().Add(d)
	)
	var tick <-chan time.Time
	if rate > 0 {
		t := time.NewTicker(time.Duration(float64(time.Second) / rate))
		defer t.Stop()
		tick = t.C
	}
	for c := range clients {
		wg.Go(func() {
			r := rand.New(rand.NewPCG(uint64(c), 7))
			var lat []time.Duration
			for n := 0; time.Now().Before(deadline); n++ {
				if tick != nil {
					<-tick
				}
				u := r.IntN(len(users))
				user := users[u]
				q := query(r, u)
				var path string
				var body any
				if op == "admit" {
					path = "/v1/admit"
					body = map[string]any{"context": map[string]any{"taskId": fmt.Sprintf("c%d-%d", c, n), "userId": user,
						"intent": "send", "toolRisk": "external_side_effect"}, "query": map[string]any{"text": q, "k": k}}
				} else {
					path = "/v1/search"
					body = map[string]any{"query": map[string]any{"scope": map[string]any{"userId": user}, "text": q, "k": k}}
				}
				b, _ := json.Marshal(body)
				req, _ := http.NewRequest("POST", base+path, bytes.NewReader(b))
				req.Header.Set("Authorization", "Bearer "+key)
				start := time.Now()
				resp, err := hc.Do(req)
				if err == nil {
					io.Copy(io.Discard, resp.Body)
					resp.Body.Close()
					if resp.StatusCode != 200 {
						err = fmt.Errorf("%s: status %d", path, resp.StatusCode)
					}
				}
				if err != nil {
					errs.Add(1)
					once.Do(func() { mu.Lock(); res.firstErr = err.Error(); mu.Unlock() })
					continue
				}
				lat = append(lat, time.Since(start))
			}
			mu.Lock()
			res.lat = append(res.lat, lat...)
			mu.Unlock()
		})
	}
	wg.Wait()
	res.errors = errs.Load()
	return res
}
