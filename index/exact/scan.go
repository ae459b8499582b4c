package exact

import (
	"runtime"
	"sync"
	"sync/atomic"
)

// A big partition is scanned by several goroutines: the caller of Search
// and up to GOMAXPROCS-1 helpers. The rows are cut into contiguous chunks
// that the goroutines claim one at a time, each offering its chunks' rows
// to a top-k heap of its own; the heaps are merged at the end. The order of
// the heaps is total (score, then id, and ids are unique within a shard),
// so the k best of the heaps' k best are the k best of the shard, whoever
// scanned which chunk: the result is the sequential scan's, bit for bit.
//
// Chunks are claimed rather than handed out so that a helper the Go or the
// OS scheduler starts late costs little: the caller takes the chunks
// nobody has claimed, and waits only for chunks a helper is scanning. A
// helper that starts after the last chunk was claimed leaves at once.

// splitWork is the size of a partition, in floats read (rows × dim), from
// which Search splits its scan: 2M floats, 8,192 rows of the builtin 256
// dimensions, a scan of about 0.3 ms on one core. Smaller partitions are
// scanned by the caller alone and never start a goroutine. Measured with
// BenchmarkSearchSplit on a 2-vCPU AMD EPYC VM while it was otherwise idle,
// split/seq was 1.2-1.3 at 2,000 and 4,000 rows (waking the other vCPU
// costs more than it saves), 0.89-0.92 at 8,000 and 0.60-0.69 at 20,000.
// When other processes keep the cores busy the helper's thread only takes
// turns with the caller's, and the split loses 15-45% up to 8,000 rows and
// is about even at 20,000, so the threshold is not set lower.
const splitWork = 1 << 21

// minPartWork is the least work, in floats read, that a split scan gives
// each goroutine, so a partition just above splitWork is not spread over
// many cores of a big machine.
const minPartWork = 1 << 20

// chunkWork is about how many floats one chunk holds: small enough that the
// goroutines finish close together, big enough that claiming is free.
const chunkWork = 1 << 15

// maxPooledItems bounds the heap a pooled scan keeps for reuse, so one search
// with a huge k does not pin its heap for every later search.
const maxPooledItems = 1 << 14

// What scan.work does with the chunks it claims.
const (
	passExact  = iota // score the rows with the float32 kernel (scoreChunk)
	passApprox        // pass 1 of the two-pass search (approxChunk)
)

// closed is the bit of scan.state the caller sets once it has claimed the
// last chunk; the other bits count the helpers at work.
const closed = 1 << 30

// scanParts is how many goroutines scan a partition of rows rows: 1 below
// splitWork, else up to GOMAXPROCS, with at least minPartWork floats each.
// x.parts, when positive, overrides it (tests).
func (x *Index) scanParts(rows int) int {
	if x.parts > 0 {
		return max(1, min(x.parts, rows))
	}
	work := rows * x.dim
	if work < splitWork {
		return 1
	}
	return max(1, min(runtime.GOMAXPROCS(0), work/minPartWork))
}

// scan is one search over one shard. Scans are pooled so that a search
// allocates only its result (and the goroutines it starts); a scan goes back
// to the pool when the caller and every helper are done with it.
type scan struct {
	s        *shard
	q        []float32
	want     [3]uint32
	filtered bool
	dim      int
	chunks   int // how many chunks the rows are cut into
	tops     []topK
	pass     int // what work does with a chunk: passExact or passApprox

	// The two-pass search's state (quant.go).
	qc              []int8    // the query's codes
	qscale          float64   // and scale
	abs, qnorm      float64   // the underflow term of a margin; the norm of the query
	perNorm, perErr float64   // a row's margin per unit of its norm and of its quantization error
	approx          []float64 // pass 1's upper bound a + m, by row
	lows            []lowHeap // each worker's k largest lower bounds
	dots            [][]int32 // each worker's dot products of a chunk's codes
	rows            []int32   // the rows pass 2 scores

	next  atomic.Int32 // the next chunk to claim
	state atomic.Int32 // closed | helpers at work
	refs  atomic.Int32 // holders of the scan: the caller and the helpers
	done  chan struct{}
}

var scanPool = sync.Pool{New: func() any { return &scan{done: make(chan struct{}, 1)} }}

// getScan returns a pooled scan of s by workers goroutines, with an empty
// top-k heap for each. A heap has room for k rows of the shard.
func getScan(s *shard, k, workers, dim int) *scan {
	sc := scanPool.Get().(*scan)
	sc.s, sc.dim = s, dim
	n := len(s.ids)
	sc.chunks = 1
	if workers > 1 {
		sc.chunks = min(n, max(2*workers, n*dim/chunkWork))
	}
	if cap(sc.tops) < workers {
		sc.tops = append(sc.tops[:cap(sc.tops)], make([]topK, workers-cap(sc.tops))...)
	}
	sc.tops = sc.tops[:workers]
	room := min(k, n)
	for w := range sc.tops {
		items := sc.tops[w].items[:0]
		if cap(items) < room {
			items = make([]scored, 0, room)
		}
		sc.tops[w] = topK{k: k, ids: s.ids, items: items}
	}
	sc.pass = passExact
	sc.next.Store(0)
	sc.state.Store(0)
	sc.refs.Store(int32(workers))
	return sc
}

// release drops one hold on sc; the last one returns it to the pool,
// without its references to the shard and the query.
func (sc *scan) release() {
	if sc.refs.Add(-1) != 0 {
		return
	}
	sc.s, sc.q = nil, nil
	if cap(sc.approx) > maxPooledItems*8 {
		sc.approx, sc.rows = nil, nil
	}
	for w := range sc.lows {
		if cap(sc.lows[w]) > maxPooledItems {
			sc.lows[w] = nil
		}
	}
	for w := range sc.tops {
		t := &sc.tops[w]
		t.ids = nil
		if cap(t.items) > maxPooledItems {
			t.items = nil
		}
	}
	scanPool.Put(sc)
}

// chunk returns the rows of chunk c.
func (sc *scan) chunk(c int) (lo, hi int) {
	n := len(sc.s.ids)
	return n * c / sc.chunks, n * (c + 1) / sc.chunks
}

// vectors scores the rows against sc.q on the caller's goroutine and on
// len(sc.tops)-1 helpers, and returns the merged heap. The caller holds the
// index's read lock throughout; the helpers rely on it and take no lock
// themselves (a second RLock could wait behind a writer that waits for the
// first), which is why they touch the shard only while the caller waits.
func (sc *scan) vectors() *topK {
	for w := 1; w < len(sc.tops); w++ {
		go sc.help(w)
	}
	sc.work(0)
	if len(sc.tops) > 1 && sc.state.Or(closed) != 0 {
		<-sc.done
	}
	return sc.merge()
}

// help is a helper's part: it joins unless the caller has closed the scan,
// then claims chunks until none is left.
func (sc *scan) help(w int) {
	defer sc.release()
	for {
		st := sc.state.Load()
		if st&closed != 0 {
			return
		}
		if sc.state.CompareAndSwap(st, st+1) {
			break
		}
	}
	sc.work(w)
	if sc.state.Add(-1) == closed {
		sc.done <- struct{}{}
	}
}

// work claims chunks for worker w until none is left.
func (sc *scan) work(w int) {
	for {
		c := int(sc.next.Add(1)) - 1
		if c >= sc.chunks {
			return
		}
		if sc.pass == passApprox {
			sc.approxChunk(w, c)
		} else {
			sc.scoreChunk(w, c)
		}
	}
}

// scoreChunk offers the in-scope rows of chunk c to worker w's heap. It works
// on a copy of the heap and stores it back at the end, so workers do not
// write to neighbouring heap headers (one cache line) as they go.
func (sc *scan) scoreChunk(w, c int) {
	s, q, want, filtered, dim := sc.s, sc.q, sc.want, sc.filtered, sc.dim
	top := sc.tops[w]
	lo, hi := sc.chunk(c)
	for i := lo; i < hi; i++ {
		if filtered && !inScope(s.scopes[i], want) {
			continue
		}
		top.offer(Dot(q, s.vecs[i*dim:(i+1)*dim:(i+1)*dim]), int32(i))
	}
	sc.tops[w] = top
}

// merge offers the rows kept by every helper to the caller's heap and
// returns it.
func (sc *scan) merge() *topK {
	top := &sc.tops[0]
	for w := 1; w < len(sc.tops); w++ {
		for _, it := range sc.tops[w].items {
			top.offer(it.score, it.row)
		}
	}
	return top
}
