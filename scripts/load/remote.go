package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/memgate/memgate/index/weaviate"
)

// ingestResult is what -op ingest measures.
type ingestResult struct {
	memories, batches int
	errors            int64
	firstErr          string
	elapsed           time.Duration
	lat               []time.Duration // per batch request
}

// ingest posts users × perUser generated memories to base's
// /v1/memories/batch in requests of batch memories from clients concurrent
// clients. Batches never mix users; each is a function of (seed, user,
// position), so the same flags send the same data to every server.
func ingest(base, key string, seed uint64, users, perUser, batch, clients int) ingestResult {
	type job struct{ u, start, end int }
	jobs := make(chan job)
	go func() {
		// User-major order within a round: every user gets its first
		// batch before any gets its second, as many users writing at
		// once would.
		for start := 0; start < perUser; start += batch {
			for u := range users {
				jobs <- job{u, start, min(start+batch, perUser)}
			}
		}
		close(jobs)
	}()
	hc := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: clients}, Timeout: 10 * time.Minute}
	var (
		mu   sync.Mutex
		res  ingestResult
		done atomic.Int64
		once sync.Once
		wg   sync.WaitGroup
	)
	total := users * perUser
	start := time.Now()
	stopProgress := make(chan struct{})
	go func() {
		t := time.NewTicker(10 * time.Second)
		defer t.Stop()
		for {
			select {
			case <-stopProgress:
				return
			case <-t.C:
				n := done.Load()
				el := time.Since(start)
				fmt.Fprintf(os.Stderr, "load: ingested %d of %d in %s (%.0f memories/s)\n", n, total, el.Round(time.Second), float64(n)/el.Seconds())
			}
		}
	}()
	for range clients {
		wg.Go(func() {
			var lat []time.Duration
			for j := range jobs {
				body, _ := json.Marshal(map[string]any{"memories": genMemories(seed, j.u, j.start, j.end)})
				req, _ := http.NewRequest("POST", base+"/v1/memories/batch", bytes.NewReader(body))
				req.Header.Set("Authorization", "Bearer "+key)
				req.Header.Set("Content-Type", "application/json")
				t0 := time.Now()
				resp, err := hc.Do(req)
				if err == nil {
					msg, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
					resp.Body.Close()
					if resp.StatusCode != http.StatusCreated {
						err = fmt.Errorf("batch %s [%d,%d): status %d: %.300s", userName(j.u), j.start, j.end, resp.StatusCode, msg)
					}
				}
				if err != nil {
					mu.Lock()
					res.errors++
					once.Do(func() { res.firstErr = err.Error() })
					mu.Unlock()
					continue
				}
				lat = append(lat, time.Since(t0))
				done.Add(int64(j.end - j.start))
			}
			mu.Lock()
			res.lat = append(res.lat, lat...)
			mu.Unlock()
		})
	}
	wg.Wait()
	close(stopProgress)
	res.elapsed = time.Since(start)
	res.memories = int(done.Load())
	res.batches = len(res.lat)
	return res
}

// percentile returns the p quantile of sorted latencies.
func percentile(sorted []time.Duration, p float64) time.Duration {
	if len(sorted) == 0 {
		return 0
	}
	return sorted[min(len(sorted)-1, int(p*float64(len(sorted))))]
}

// results are the files -table reads from a directory: for each backend
// label, NAME-ingest.json, NAME-search.json and NAME-admit.json, as this
// command prints them (scripts/scale-bench.sh writes them).
var tableBackends = []struct{ label, title string }{
	{"embedded", "embedded (SQLite + exact)"},
	{"scaleout", "PostgreSQL + Weaviate"},
}

// printTable prints the side-by-side Markdown table of the results in dir.
func printTable(dir string) error {
	read := func(label, op string) map[string]any {
		b, err := os.ReadFile(filepath.Join(dir, label+"-"+op+".json"))
		if err != nil {
			return nil
		}
		var m map[string]any
		if json.Unmarshal(b, &m) != nil {
			return nil
		}
		return m
	}
	num := func(m map[string]any, k string) (float64, bool) {
		v, ok := m[k].(float64)
		return v, ok
	}
	type row struct {
		name string
		cell func(label string) (string, float64)
	}
	metric := func(op, key, format string) func(string) (string, float64) {
		return func(label string) (string, float64) {
			m := read(label, op)
			v, ok := num(m, key)
			if !ok {
				return "–", 0
			}
			return fmt.Sprintf(format, v), v
		}
	}
	pair := func(op string) func(string) (string, float64) {
		return func(label string) (string, float64) {
			m := read(label, op)
			p50, ok1 := num(m, "p50ms")
			p99, ok2 := num(m, "p99ms")
			if !ok1 || !ok2 {
				return "–", 0
			}
			return fmt.Sprintf("%.1f / %.1f", p50, p99), p50
		}
	}
	errs := func(label string) (string, float64) {
		var n float64
		found := false
		for _, op := range []string{"ingest", "search", "admit"} {
			if v, ok := num(read(label, op), "errors"); ok {
				n += v
				found = true
			}
		}
		if !found {
			return "–", 0
		}
		return fmt.Sprintf("%.0f", n), n
	}
	rows := []row{
		{"ingest, memories/s (acknowledged)", metric("ingest", "memoriesPerSecond", "%.0f")},
		{"ingest, memories/s (until all indexed)", func(label string) (string, float64) {
			m := read(label, "ingest")
			if v, ok := num(m, "indexedPerSecond"); ok {
				return fmt.Sprintf("%.0f", v), v
			}
			// No index to wait for: the server updated its index before
			// acknowledging (the embedded exact index).
			if v, ok := num(m, "memoriesPerSecond"); ok {
				return fmt.Sprintf("%.0f (same)", v), v
			}
			return "–", 0
		}},
		{"ingest, batch p50 / p99 ms", pair("ingest")},
		{"first search of every user, s", metric("warm", "seconds", "%.1f")},
		{"search p50 / p99 ms", pair("search")},
		{"search req/s", metric("search", "requestsPerSecond", "%.0f")},
		{"admit p50 / p99 ms", pair("admit")},
		{"admit req/s", metric("admit", "requestsPerSecond", "%.0f")},
		{"errors", errs},
	}
	a, b := tableBackends[0], tableBackends[1]
	fmt.Printf("| | %s | %s | %s ÷ %s |\n|---|---:|---:|---:|\n", a.title, b.title, b.label, a.label)
	for _, r := range rows {
		ca, va := r.cell(a.label)
		cb, vb := r.cell(b.label)
		ratio := "–"
		if va > 0 && vb > 0 && r.name != "errors" {
			ratio = fmt.Sprintf("%.2f×", vb/va)
		}
		fmt.Printf("| %s | %s | %s | %s |\n", r.name, ca, cb, ratio)
	}
	return nil
}

// warm sends one search for every user from clients clients and returns
// the time it took: the first search of a user loads its index in an
// embedded server (and activates its tenant in Weaviate).
func warm(base, key string, seed uint64, users, clients, k int) (time.Duration, int64, string) {
	hc := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: clients}, Timeout: 5 * time.Minute}
	next := atomic.Int64{}
	var errs atomic.Int64
	var first atomic.Value
	var wg sync.WaitGroup
	start := time.Now()
	for range clients {
		wg.Go(func() {
			for {
				u := int(next.Add(1) - 1)
				if u >= users {
					return
				}
				q := genQueryFixed(seed, u)
				b, _ := json.Marshal(map[string]any{"query": map[string]any{"scope": map[string]any{"userId": userName(u)}, "text": q, "k": k}})
				req, _ := http.NewRequest("POST", base+"/v1/search", bytes.NewReader(b))
				req.Header.Set("Authorization", "Bearer "+key)
				resp, err := hc.Do(req)
				if err == nil {
					io.Copy(io.Discard, resp.Body)
					resp.Body.Close()
					if resp.StatusCode != 200 {
						err = fmt.Errorf("/v1/search: status %d", resp.StatusCode)
					}
				}
				if err != nil {
					errs.Add(1)
					first.CompareAndSwap(nil, err.Error())
				}
			}
		})
	}
	wg.Wait()
	s, _ := first.Load().(string)
	return time.Since(start), errs.Load(), s
}

// waitIndexed polls the Weaviate server at wvURL until the tenant of each
// of users (user0 …) holds at least perUser objects of class, and returns
// how long that took and how many objects it counted. It counts with a
// GraphQL Aggregate per tenant: the object counts of /v1/nodes lag the
// writes by many seconds.
func waitIndexed(wvURL, class string, users, perUser int, timeout time.Duration) (time.Duration, int, error) {
	u, err := url.Parse(wvURL)
	if err != nil {
		return 0, 0, err
	}
	u.RawQuery, u.Path = "", "/v1/graphql"
	if u.Scheme == "weaviate" {
		u.Scheme = "http"
	}
	counts := make([]int, users)
	pending := make([]int, users)
	for i := range pending {
		pending[i] = i
	}
	start := time.Now()
	for {
		var still []int
		for _, i := range pending {
			n, err := tenantCount(u.String(), class, "u-"+userName(i))
			if err != nil {
				return time.Since(start), sum(counts), err
			}
			counts[i] = n
			if n < perUser {
				still = append(still, i)
			}
		}
		pending = still
		if len(pending) == 0 {
			return time.Since(start), sum(counts), nil
		}
		if time.Since(start) > timeout {
			return time.Since(start), sum(counts), fmt.Errorf("weaviate has %d of %d objects after %s", sum(counts), users*perUser, timeout)
		}
		fmt.Fprintf(os.Stderr, "load: weaviate has %d of %d objects; %d users incomplete\n", sum(counts), users*perUser, len(pending))
		time.Sleep(time.Second)
	}
}

func sum(v []int) int {
	n := 0
	for _, x := range v {
		n += x
	}
	return n
}

// tenantCount is the number of objects of class in tenant (0 if the tenant
// does not exist yet).
func tenantCount(graphqlURL, class, tenant string) (int, error) {
	q, _ := json.Marshal(map[string]string{"query": fmt.Sprintf(`{Aggregate{%s(tenant:%q){meta{count}}}}`, class, tenant)})
	req, err := http.NewRequest("POST", graphqlURL, bytes.NewReader(q))
	if err != nil {
		return 0, err
	}
	req.Header.Set("Content-Type", "application/json")
	if key := strings.TrimSpace(os.Getenv(weaviate.EnvAPIKey)); key != "" {
		req.Header.Set("Authorization", "Bearer "+key)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return 0, err
	}
	defer resp.Body.Close()
	var body struct {
		Data struct {
			Aggregate map[string][]struct {
				Meta struct {
					Count int `json:"count"`
				} `json:"meta"`
			} `json:"Aggregate"`
		} `json:"data"`
		Errors []struct {
			Message string `json:"message"`
		} `json:"errors"`
	}
	if resp.StatusCode != 200 {
		return 0, fmt.Errorf("%s: status %d", graphqlURL, resp.StatusCode)
	}
	if err := json.NewDecoder(resp.Body).Decode(&body); err != nil {
		return 0, err
	}
	if len(body.Errors) > 0 {
		if strings.Contains(strings.ToLower(body.Errors[0].Message), "tenant") {
			return 0, nil // not created yet
		}
		return 0, fmt.Errorf("weaviate: %s", body.Errors[0].Message)
	}
	rows := body.Data.Aggregate[class]
	if len(rows) == 0 {
		return 0, nil
	}
	return rows[0].Meta.Count, nil
}
