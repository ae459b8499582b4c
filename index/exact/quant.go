package exact

import (
	"math"
	"slices"

	"github.com/memgate/memgate/internal/vecmath"
)

// A big partition is searched in two passes that return exactly what the
// full float32 scan returns, bit for bit, while reading about a quarter of
// the bytes (the scan of 20,000 rows of 256 floats is bound by memory
// bandwidth, not arithmetic).
//
// Every row also keeps its vector quantized to int8 codes at a scale of its
// own, with the norm of the vector and of its quantization error. The query
// is quantized the same way. Pass 1 scores every in-scope row from the codes
// (an exact integer dot product times the two scales) and bounds how far
// that approximation a can be from the float32 score s the full scan would
// compute:
//
//	|s − a| ≤ ‖q − q̂‖·‖v‖ + ‖q̂‖·‖v − v̂‖ + γ·‖q‖·‖v‖ + 2(dim+4)·2⁻¹⁵⁰ = m
//
// (Cauchy–Schwarz for the quantization; the classic bound on the rounding
// of a float32 sum of dim products for s, with γ = 2(dim+4)·2⁻²⁴, and the
// absolute error of roundings in float32's subnormal range, at most 2⁻¹⁵⁰
// each; all of it computed in float64 and inflated a little more). A row
// whose score could overflow float32 (‖q‖·‖v‖ ≥ 2¹²⁷) gets an infinite m.
// T is the k-th largest lower bound a − m among the in-scope rows. A row whose upper bound
// a + m is below T has a score below that of at least k rows, so it cannot be
// among the k best. Pass 2 scores the remaining rows with the float32 kernel
// the full scan uses and keeps the k best in the same heap, ordered by score
// then id: the result does not depend on which rows were offered, as long as
// the k best were.
//
// The index holds no NaN or infinity (check refuses them; a row that had
// one would get an infinite bound and always be scored exactly); a zero
// query takes the full scan.

// quantRows is the least number of rows from which a partition is searched
// in two passes: below it the float32 slab fits in the caches and pass 2's
// bookkeeping costs more than it saves.
const quantRows = 2048

// rowBound holds what a row's bound needs: the norm of its vector and of its
// quantization error.
type rowBound struct {
	norm, qerr float64
}

// quantize appends the codes, scale and bound of the vector v of the
// shard's last row.
func (s *shard) quantize(v []float32) {
	n, dim := len(s.codes), len(v)
	s.codes = slices.Grow(s.codes, dim)[:n+dim]
	codes := s.codes[n:]
	scale, qerr, ok := vecmath.Quantize(codes, v)
	if !ok {
		clear(codes)
		s.scales = append(s.scales, 0)
		s.bounds = append(s.bounds, rowBound{norm: 0, qerr: math.Inf(1)})
		return
	}
	s.scales = append(s.scales, scale)
	s.bounds = append(s.bounds, rowBound{norm: norm(v), qerr: qerr})
}

// norm is the Euclidean norm of v in float64.
func norm(v []float32) float64 {
	var ss float64
	for _, x := range v {
		ss += float64(x) * float64(x)
	}
	return math.Sqrt(ss)
}

// quantQuery prepares sc for the two-pass search of query q, and reports
// whether it can be used: q must be finite and not zero.
func (sc *scan) quantQuery(q []float32) bool {
	dim := len(q)
	if cap(sc.qc) < dim {
		sc.qc = make([]int8, dim)
	}
	sc.qc = sc.qc[:dim]
	scale, qerr, ok := vecmath.Quantize(sc.qc, q)
	if !ok || scale == 0 {
		return false
	}
	var hat float64 // ‖q̂‖
	for _, c := range sc.qc {
		hat += float64(c) * float64(c)
	}
	hat = math.Sqrt(hat) * float64(scale)
	const inflate = 1 + 1e-9
	gamma := 2 * float64(dim+4) * 0x1p-24
	sc.qscale = float64(scale)
	sc.perNorm = (qerr + gamma*norm(q)) * inflate
	sc.perErr = hat * inflate
	// Each rounding of the float32 kernel in the subnormal range may lose
	// up to 2⁻¹⁵⁰, whatever the magnitudes.
	sc.abs = float64(2*(dim+4)) * 0x1p-150
	sc.qnorm = norm(q)
	n := len(sc.s.ids)
	if cap(sc.approx) < n {
		sc.approx = make([]float64, n)
	}
	sc.approx = sc.approx[:n]
	if cap(sc.lows) < len(sc.tops) {
		sc.lows = make([]lowHeap, len(sc.tops))
	}
	sc.lows = sc.lows[:len(sc.tops)]
	for w := range sc.lows {
		sc.lows[w] = sc.lows[w][:0]
	}
	if cap(sc.dots) < len(sc.tops) {
		sc.dots = make([][]int32, len(sc.tops))
	}
	sc.dots = sc.dots[:len(sc.tops)]
	return true
}

// margin is m for row i. The rounding of a itself (float64, relative
// 2⁻⁵²) is covered by the inflation of perNorm: |a| is at most about
// ‖q‖·‖v‖, and perNorm holds γ·‖q‖ inflated by 10⁻⁹.
func (sc *scan) margin(i int) float64 {
	b := &sc.s.bounds[i]
	if b.norm*sc.qnorm >= 0x1p127 { // the float32 score may overflow: score it exactly
		return math.Inf(1)
	}
	return b.norm*sc.perNorm + b.qerr*sc.perErr + sc.abs
}

// approxChunk is pass 1 over chunk c for worker w: the upper bounds of its
// in-scope rows into sc.approx (NaN for the others), and their lower bounds
// into w's heap of the k largest.
func (sc *scan) approxChunk(w, c int) {
	s, want, filtered, dim, k := sc.s, sc.want, sc.filtered, sc.dim, sc.tops[0].k
	low := sc.lows[w]
	lo, hi := sc.chunk(c)
	if !filtered {
		// Every row is in scope: their codes' dot products in one call.
		dots := sc.dots[w]
		if cap(dots) < hi-lo {
			dots = make([]int32, hi-lo)
		}
		dots = dots[:hi-lo]
		vecmath.DotInt8Rows(sc.qc, s.codes[lo*dim:hi*dim], dots)
		for j, d := range dots {
			sc.bound(&low, lo+j, d, k)
		}
		sc.lows[w], sc.dots[w] = low, dots
		return
	}
	for i := lo; i < hi; i++ {
		if !inScope(s.scopes[i], want) {
			sc.approx[i] = math.NaN() // never ≥ T: pass 2 skips the row
			continue
		}
		sc.bound(&low, i, vecmath.DotInt8(sc.qc, s.codes[i*dim:(i+1)*dim:(i+1)*dim]), k)
	}
	sc.lows[w] = low
}

// bound records the bounds of row i's score from dot, its codes' dot
// product with the query's: the upper in sc.approx (pass 2 needs only that)
// and the lower offered to low, a heap of the k largest.
func (sc *scan) bound(low *lowHeap, i int, dot int32, k int) {
	a := sc.qscale * float64(sc.s.scales[i]) * float64(dot)
	m := sc.margin(i)
	sc.approx[i] = a + m
	low.offer(a-m, k)
}

// quantVectors runs both passes and returns the heap of the k best rows. It
// returns nil, after pass 1, if pass 2 would score more than one row in
// maxPass2 of the partition (many rows within the bound of the k-th best,
// as when most rows are copies of one vector): the caller then runs the full
// scan, split across cores, rather than pass 2 on one.
func (sc *scan) quantVectors() *topK {
	sc.pass = passApprox
	for w := 1; w < len(sc.tops); w++ {
		go sc.help(w)
	}
	sc.work(0)
	if len(sc.tops) > 1 && sc.state.Or(closed) != 0 {
		<-sc.done
	}
	// T: the k-th largest lower bound of all; -Inf if fewer than k rows
	// are in scope, and then every in-scope row is scored.
	k := sc.tops[0].k
	all := sc.lows[0]
	for w := 1; w < len(sc.lows); w++ {
		for _, v := range sc.lows[w] {
			all.offer(v, k)
		}
	}
	sc.lows[0] = all
	t := math.Inf(-1)
	if len(all) == k {
		t = all[0]
	}
	s, q, dim := sc.s, sc.q, sc.dim
	limit := len(s.ids) / maxPass2
	rows := sc.rows[:0]
	for i, ub := range sc.approx {
		if ub >= t { // false for the rows out of scope (NaN)
			if len(rows) == limit {
				sc.rows = rows
				return nil
			}
			rows = append(rows, int32(i))
		}
	}
	sc.rows = rows
	top := &sc.tops[0]
	for _, i := range rows {
		top.offer(Dot(q, s.vecs[int(i)*dim:int(i+1)*dim:int(i+1)*dim]), i)
	}
	return top
}

// maxPass2: pass 2 scores at most one row in maxPass2 of a partition.
const maxPass2 = 8

// A lowHeap keeps the k largest values offered, the smallest on top.
type lowHeap []float64

func (h *lowHeap) offer(v float64, k int) {
	x := *h
	if len(x) < k {
		x = append(x, v)
		for i := len(x) - 1; i > 0; {
			p := (i - 1) / 2
			if x[p] <= x[i] {
				break
			}
			x[p], x[i] = x[i], x[p]
			i = p
		}
		*h = x
		return
	}
	if v <= x[0] {
		return
	}
	x[0] = v
	for i := 0; ; {
		l, min := 2*i+1, i
		if l < len(x) && x[l] < x[min] {
			min = l
		}
		if r := l + 1; r < len(x) && x[r] < x[min] {
			min = r
		}
		if min == i {
			break
		}
		x[i], x[min] = x[min], x[i]
		i = min
	}
}
