package memgate

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/memgate/memgate/admit"
	"github.com/memgate/memgate/audit"
	"github.com/memgate/memgate/internal/benchstats"
	"github.com/memgate/memgate/store/sqlite"
)

// The audit durability test runs a child copy of this test binary that
// admits in a loop and prints each admission's SearchID once Admit has
// returned, kills it with SIGKILL part-way, and checks that every
// acknowledged admission survived, whole.
const auditChildEnv = "MEMGATE_AUDIT_CHILD"

// openSync opens an engine on the store at path with the audit writer's
// durability as.
func openSync(path string, as sqlite.AuditSync) (*Engine, error) {
	st, err := sqlite.OpenWith(ctx, path, sqlite.OpenOptions{AuditSync: as})
	if err != nil {
		return nil, err
	}
	e, err := New(ctx, st, nil)
	if err != nil {
		st.Close()
		return nil, err
	}
	return e, nil
}

// TestAuditChild is the child's body; it does nothing in a normal run.
func TestAuditChild(t *testing.T) {
	mode := os.Getenv(auditChildEnv)
	if mode == "" {
		t.Skip("helper process for TestAuditSurvivesKill")
	}
	as := sqlite.AuditSyncNormal
	if mode == "full" {
		as = sqlite.AuditSyncFull
	}
	e, err := openSync(os.Getenv("MEMGATE_AUDIT_DB"), as)
	if err != nil {
		fmt.Println("open:", err)
		os.Exit(2)
	}
	if _, err := e.AddBatch(ctx, synth("u", 300, 7)); err != nil {
		fmt.Println("add:", err)
		os.Exit(2)
	}
	fmt.Println("started")
	// Four callers at once, so that admissions share transactions.
	var mu sync.Mutex
	var wg sync.WaitGroup
	for g := range 4 {
		wg.Go(func() {
			task := admit.Context{TaskID: fmt.Sprintf("t%d", g), UserID: "u", ProjectID: "p3", Domain: "work",
				Intent: admit.IntentSend, ToolRisk: admit.RiskExternalSideEffect}
			for {
				adm, err := e.Admit(ctx, task, Query{Text: "send the quarterly report deadline to the Acme client", K: 20})
				mu.Lock()
				if err != nil {
					fmt.Println("admit:", err)
					mu.Unlock()
					return
				}
				// os.Stdout is unbuffered: the line is in the pipe when
				// Println returns.
				fmt.Println("acked", adm.SearchID, len(adm.Items))
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	os.Exit(0)
}

// TestAuditSurvivesKill: every admission acknowledged (Admit returned) before
// the process was killed with SIGKILL is in the reopened store with all its
// decisions, every admission there is whole, and the file passes SQLite's
// integrity check. It runs for the default durability (AuditSyncNormal) and
// for AuditSyncFull.
func TestAuditSurvivesKill(t *testing.T) {
	if testing.Short() {
		t.Skip("spawns processes")
	}
	for _, mode := range []string{"normal", "full"} {
		t.Run(mode, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "audit.db")
			cmd := exec.Command(os.Args[0], "-test.run=^TestAuditChild$")
			cmd.Env = append(os.Environ(), auditChildEnv+"="+mode, "MEMGATE_AUDIT_DB="+path)
			out, err := cmd.StdoutPipe()
			if err != nil {
				t.Fatal(err)
			}
			cmd.Stderr = os.Stderr
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			sc := bufio.NewScanner(out)
			if !sc.Scan() || sc.Text() != "started" {
				cmd.Process.Kill()
				cmd.Wait()
				t.Fatalf("child did not start: %q", sc.Text())
			}
			acked := map[int64]int{} // SearchID → decisions
			var order []int64
			read := func() {
				f := strings.Fields(sc.Text())
				if len(f) != 3 || f[0] != "acked" {
					t.Errorf("child: %q", sc.Text())
					return
				}
				id, _ := strconv.ParseInt(f[1], 10, 64)
				n, _ := strconv.Atoi(f[2])
				if _, dup := acked[id]; dup {
					t.Errorf("SearchID %d acknowledged twice", id)
				}
				acked[id] = n
				order = append(order, id)
			}
			for len(acked) < 100 && sc.Scan() {
				read()
			}
			if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
				t.Fatal(err)
			}
			for sc.Scan() { // lines already in the pipe were acknowledged before the kill
				read()
			}
			cmd.Wait()
			if len(acked) < 100 {
				t.Fatalf("the child acknowledged only %d admissions", len(acked))
			}

			e, err := Open(ctx, path, &Options{MustExist: true})
			if err != nil {
				t.Fatal(err)
			}
			defer e.Close()
			if err := e.Check(ctx); err != nil {
				t.Fatal(err)
			}
			for _, id := range order {
				evs, err := e.Audit(ctx, audit.Filter{SearchID: id})
				if err != nil {
					t.Fatal(err)
				}
				if len(evs) == 0 || evs[0].Seq != id || evs[0].Kind != audit.Search {
					t.Fatalf("acknowledged admission %d is missing after kill -9 (%d events)", id, len(evs))
				}
				decisions := 0
				for _, ev := range evs[1:] {
					if ev.Kind == audit.Decision && ev.SearchID == id {
						decisions++
					}
				}
				if decisions != acked[id] || acked[id] == 0 {
					t.Fatalf("admission %d: %d decisions after kill -9, %d acknowledged", id, decisions, acked[id])
				}
			}
			// Whatever else was written is whole too: every search event
			// has its decisions (20 each), none half-written.
			searches, err := e.Audit(ctx, audit.Filter{Kind: audit.Search})
			if err != nil {
				t.Fatal(err)
			}
			for _, s := range searches {
				evs, err := e.Audit(ctx, audit.Filter{SearchID: s.Seq, Kind: audit.Decision})
				if err != nil {
					t.Fatal(err)
				}
				if len(evs) != 20 {
					t.Fatalf("admission %d has %d decisions, want 20", s.Seq, len(evs))
				}
			}
			// The child was killed whatever its memory index was doing:
			// a memory's events are still all found (Check above also
			// checked the index itself).
			all, err := e.Audit(ctx, audit.Filter{Kind: audit.Decision})
			if err != nil {
				t.Fatal(err)
			}
			byMemory := map[string]int{}
			for _, ev := range all {
				byMemory[ev.MemoryID]++
			}
			for id, n := range byMemory {
				evs, err := e.Audit(ctx, audit.Filter{MemoryID: id, Kind: audit.Decision})
				if err != nil {
					t.Fatal(err)
				}
				if len(evs) != n {
					t.Fatalf("memory %s: %d decisions found by memory, %d in the trail", id, len(evs), n)
				}
			}
			t.Logf("%d admissions acknowledged, %d in the store", len(acked), len(searches))
		})
	}
}

// benchAdmitEngine is an engine over a 20,000-memory user, with the audit
// writer's durability as, loaded and ready to admit.
func benchAdmitEngine(b *testing.B, as sqlite.AuditSync) *Engine {
	b.Helper()
	e, err := openSync(filepath.Join(b.TempDir(), "bench.db"), as)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { e.Close() })
	addAll(b, e, synth("big", 20000, 2))
	if err := e.LoadIndex(ctx, "big"); err != nil {
		b.Fatal(err)
	}
	return e
}

var benchTask = admit.Context{TaskID: "bench", UserID: "big", ProjectID: "p3", Domain: "work",
	Intent: admit.IntentSend, ToolRisk: admit.RiskExternalSideEffect}

// BenchmarkAdmit20kSync is BenchmarkAdmit20k for each audit durability:
// "normal" (the default) and "full".
func BenchmarkAdmit20kSync(b *testing.B) {
	for _, as := range []sqlite.AuditSync{sqlite.AuditSyncNormal, sqlite.AuditSyncFull} {
		b.Run(as.String(), func(b *testing.B) {
			e := benchAdmitEngine(b, as)
			b.ReportAllocs()
			b.ResetTimer()
			benchstats.Loop(b, func() {
				adm, err := e.Admit(ctx, benchTask, Query{Text: "send the quarterly report deadline to the Acme client", K: 50})
				if err != nil || len(adm.Items) != 50 {
					b.Fatalf("admit: %v", err)
				}
			})
		})
	}
}

// BenchmarkAdmit20kParallel is BenchmarkAdmit20k from 8 goroutines at once,
// whatever GOMAXPROCS, for each audit durability: it reports the p50 and p99
// latency of each Admit and the admissions per second. Concurrent
// admissions share the audit writer's transactions and commits.
func BenchmarkAdmit20kParallel(b *testing.B) {
	for _, as := range []sqlite.AuditSync{sqlite.AuditSyncNormal, sqlite.AuditSyncFull} {
		b.Run(as.String(), func(b *testing.B) {
			e := benchAdmitEngine(b, as)
			b.ReportAllocs()
			var mu sync.Mutex
			var lat []time.Duration
			procs := runtime.GOMAXPROCS(0)
			b.SetParallelism((8 + procs - 1) / procs)
			b.ResetTimer()
			b.RunParallel(func(pb *testing.PB) {
				var mine []time.Duration
				for pb.Next() {
					start := time.Now()
					adm, err := e.Admit(ctx, benchTask, Query{Text: "send the quarterly report deadline to the Acme client", K: 50})
					if err != nil || len(adm.Items) != 50 {
						b.Errorf("admit: %v", err)
						return
					}
					mine = append(mine, time.Since(start))
				}
				mu.Lock()
				lat = append(lat, mine...)
				mu.Unlock()
			})
			b.StopTimer()
			benchstats.Report(b, lat)
			b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "admits/s")
		})
	}
}
