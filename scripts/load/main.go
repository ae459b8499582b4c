// Command load measures memgate serve under concurrent load, over real HTTP
// on the loopback interface: requests per second, latency percentiles and
// errors for admit or search, and the server's heap before and after (a soak
// run should keep it flat).
//
// It serves an existing store (-db, whose users it reads) or builds one in a
// temporary directory (-users × -per-user synthetic memories, embedded with
// the builtin embedder), loads every user's index first (as a long-running
// server would at start), creates an admin key, and runs -clients clients
// for -duration, each sending its next request as soon as the last returns
// (or at -rate requests per second in total, for a soak).
//
//	go run ./scripts/load -users 10 -per-user 20000 -clients 32 -duration 30s -op admit
//	go run ./scripts/load -db big.db -op search -rate 500 -duration 10m
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
		users    = flag.Int("users", 10, "users to build")
		perUser  = flag.Int("per-user", 20000, "memories per user to build")
		clients  = flag.Int("clients", 32, "concurrent clients")
		duration = flag.Duration("duration", 30*time.Second, "how long to send requests")
		op       = flag.String("op", "admit", "admit or search")
		k        = flag.Int("k", 50, "candidates per request")
		rate     = flag.Float64("rate", 0, "total requests per second (0: as fast as the server answers)")
		cpuProf  = flag.String("cpuprofile", "", "write a CPU profile of the measured run (server and clients) to this file")
	)
	flag.Parse()
	if *op != "admit" && *op != "search" {
		fail(fmt.Errorf("-op %q: want admit or search", *op))
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
	hs := &http.Server{Handler: server.New(eng, ks, server.Options{})}
	go hs.Serve(ln)
	defer hs.Close()
	base := "http://" + ln.Addr().String()

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
	res := run(base, plain, *op, *k, *clients, *duration, *rate, userIDs)
	if *cpuProf != "" {
		pprof.StopCPUProfile()
	}
	heapAfter := heap()
	slices.Sort(res.lat)
	pct := func(p float64) time.Duration {
		if len(res.lat) == 0 {
			return 0
		}
		return res.lat[min(len(res.lat)-1, int(p*float64(len(res.lat))))]
	}
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

// run sends requests from clients goroutines for d and collects latencies.
func run(base, key, op string, k, clients int, d time.Duration, rate float64, users []string) result {
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
				user := users[r.IntN(len(users))]
				q := sentence(r, 4+r.IntN(6))
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
