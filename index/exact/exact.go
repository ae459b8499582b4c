// Package exact is memgate's in-memory candidate index: an exact vector scan
// and a BM25 inverted index over the same rows, partitioned by user. The user
// scope and the optional workspace, project and domain filters are applied
// inside both searches, so a search never returns another user's memory and
// never loses in-scope results to post-filtering.
//
// Vectors of one user are kept in one contiguous slab and scored with a SIMD
// dot-product kernel; the scan of a big partition is split across cores
// (scan.go) and made in two passes, the first over int8 codes of the
// vectors, that return exactly what the full scan would (quant.go). Exact search is the right choice up to tens of
// thousands of memories per user; a filtered ANN index can replace it behind
// the same interface (index.Index) for larger tenants. The index holds no
// state of its own: an engine fills each user's partition from the store on
// that user's first search (ReplaceUser), then keeps it in step with every
// write.
package exact

import (
	"cmp"
	"context"
	"fmt"
	"iter"
	"math"
	"slices"
	"sync"

	"github.com/memgate/memgate/index"
	"github.com/memgate/memgate/internal/vecmath"
	"github.com/memgate/memgate/memory"
	"github.com/memgate/memgate/retrieve"
)

// Index implements the index contract, including the optional bulk loading
// and counting.
var (
	_ index.Index   = (*Index)(nil)
	_ index.Loader  = (*Index)(nil)
	_ index.Counter = (*Index)(nil)
)

// ctxEvery is how many entries a long write handles between two looks at
// its context.
const ctxEvery = 4096

// Dot is the dot product of equal-length vectors (vecmath.Dot).
func Dot(a, b []float32) float32 { return vecmath.Dot(a, b) }

// Index is an exact vector index partitioned by user. It is safe for
// concurrent use.
type Index struct {
	dim int
	// parts, when positive, is how many ranges every search splits a
	// partition into, whatever its size; 0 lets scanParts decide. Only
	// tests set it, to force the sequential or the parallel scan.
	parts int
	// search, set only by tests, forces one way of searching every
	// partition (searchExact or searchTwoPass); 0 lets twoPass decide.
	search int
	// lexical, set only by tests, forces Lexical's pass over every row
	// (lexicalDense) or over the touched rows alone (lexicalSparse); 0
	// lets the query's postings decide.
	lexical int
	mu      sync.RWMutex
	users   map[string]*shard
	n       int
}

// New returns an empty index for vectors of dimension dim.
func New(dim int) *Index {
	return &Index{dim: dim, users: make(map[string]*shard)}
}

// Dim is the vector dimension the index accepts.
func (x *Index) Dim() int { return x.dim }

// Len is the number of vectors in the index.
func (x *Index) Len() int {
	x.mu.RLock()
	defer x.mu.RUnlock()
	return x.n
}

// shard holds one user's vectors. Scope labels are interned to small
// integers so filters compare numbers, not strings; 0 means unscoped.
type shard struct {
	ids  []string
	vecs []float32 // len(ids)*dim
	// codes, scales and bounds are vecs quantized, for the two-pass
	// search of a big partition (quant.go).
	codes  []int8 // len(ids)*dim
	scales []float32
	bounds []rowBound
	scopes [][3]uint32
	pos    map[string]int
	labels map[string]uint32
	lex    lexical
}

func (s *shard) intern(label string) uint32 {
	if label == "" {
		return 0
	}
	if c, ok := s.labels[label]; ok {
		return c
	}
	c := uint32(len(s.labels) + 1)
	s.labels[label] = c
	return c
}

// lookup returns the code of a filter label: 0 for no filter, and a code
// that no row has when the label was never seen (so only unscoped rows match).
func (s *shard) lookup(label string) uint32 {
	if label == "" {
		return 0
	}
	if c, ok := s.labels[label]; ok {
		return c
	}
	return ^uint32(0)
}

// newShard returns an empty shard with room for n rows of dimension dim.
func newShard(n, dim int) *shard {
	return &shard{ids: make([]string, 0, n), vecs: make([]float32, 0, n*dim), scopes: make([][3]uint32, 0, n),
		codes: make([]int8, 0, n*dim), scales: make([]float32, 0, n), bounds: make([]rowBound, 0, n),
		pos: make(map[string]int, n), labels: make(map[string]uint32)}
}

// check refuses entries the index cannot hold.
func (x *Index) check(entries []retrieve.Entry) error {
	for _, e := range entries {
		if len(e.Vector) != x.dim {
			return fmt.Errorf("exact index: memory %s: vector has dimension %d, index has %d", e.ID, len(e.Vector), x.dim)
		}
		if e.UserID == "" {
			return fmt.Errorf("exact index: memory %s has no userId", e.ID)
		}
		if i := nonFinite(e.Vector); i >= 0 {
			return fmt.Errorf("exact index: memory %s: vector component %d is not a finite number", e.ID, i)
		}
	}
	return nil
}

// nonFinite returns the index of the first NaN or infinite component of v,
// or -1. Scores with such a component have no order, so the index holds
// none.
func nonFinite(v []float32) int {
	for i, x := range v {
		if math.IsNaN(float64(x)) || math.IsInf(float64(x), 0) {
			return i
		}
	}
	return -1
}

// Upsert adds entries, replacing any with the same id and user. Every vector
// must have the index's dimension and every entry a user; on error, a
// cancelled ctx included, nothing is changed.
func (x *Index) Upsert(ctx context.Context, entries ...retrieve.Entry) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if err := x.check(entries); err != nil {
		return err
	}
	x.mu.Lock()
	defer x.mu.Unlock()
	for _, e := range entries {
		s := x.users[e.UserID]
		if s == nil {
			s = newShard(0, x.dim)
			x.users[e.UserID] = s
		}
		x.n += s.upsert(e, x.dim)
	}
	return nil
}

// ReplaceUser sets the entries of one user to those entries yields,
// dropping any the user had. The new partition is built before the index is
// locked, as entries arrive, so searches of other users go on meanwhile and
// the entries need not all be in memory at once; this is how an engine loads
// a user on first use. Every entry must belong to userID and have the
// index's dimension, and a later entry with the id of an earlier one replaces
// it. sizeHint is about how many entries to expect (0 if unknown): room for
// them is allocated at once. If entries yields an error, or an entry is
// refused, or ctx is cancelled meanwhile, ReplaceUser returns that error and
// changes nothing.
func (x *Index) ReplaceUser(ctx context.Context, userID string, sizeHint int, entries iter.Seq2[retrieve.Entry, error]) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	s := newShard(max(sizeHint, 0), x.dim)
	n := 0
	for e, err := range entries {
		if err != nil {
			return err
		}
		if n++; n%ctxEvery == 0 {
			if err := ctx.Err(); err != nil {
				return err
			}
		}
		if err := x.check([]retrieve.Entry{e}); err != nil {
			return err
		}
		if e.UserID != userID {
			return fmt.Errorf("exact index: memory %s belongs to user %s, not %s", e.ID, e.UserID, userID)
		}
		s.upsert(e, x.dim)
	}
	x.mu.Lock()
	defer x.mu.Unlock()
	if old := x.users[userID]; old != nil {
		x.n -= len(old.ids)
	}
	if len(s.ids) == 0 {
		delete(x.users, userID)
		return nil
	}
	x.users[userID] = s
	x.n += len(s.ids)
	return nil
}

// upsert adds or replaces one entry and returns how many rows were added.
func (s *shard) upsert(e retrieve.Entry, dim int) int {
	added := 1
	if _, ok := s.pos[e.ID]; ok {
		s.remove(e.ID, dim)
		added = 0
	}
	sc := [3]uint32{s.intern(e.WorkspaceID), s.intern(e.ProjectID), s.intern(e.Domain)}
	s.pos[e.ID] = len(s.ids)
	s.ids = append(s.ids, e.ID)
	s.vecs = append(s.vecs, e.Vector...)
	s.quantize(e.Vector)
	s.scopes = append(s.scopes, sc)
	s.lex.add(int32(len(s.ids)-1), e.Text)
	return added
}

// Remove deletes the given ids of one user; unknown ids are ignored. It
// fails only if ctx is done before it starts.
func (x *Index) Remove(ctx context.Context, userID string, ids ...string) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	x.mu.Lock()
	defer x.mu.Unlock()
	s := x.users[userID]
	if s == nil {
		return nil
	}
	for _, id := range ids {
		if s.remove(id, x.dim) {
			x.n--
		}
	}
	if len(s.ids) == 0 {
		delete(x.users, userID)
	}
	return nil
}

// remove deletes one id by moving the last row into its place, and reports
// whether it was there.
func (s *shard) remove(id string, dim int) bool {
	i, ok := s.pos[id]
	if !ok {
		return false
	}
	last := len(s.ids) - 1
	s.lex.remove(int32(i), int32(last))
	if i != last {
		s.ids[i] = s.ids[last]
		copy(s.vecs[i*dim:(i+1)*dim], s.vecs[last*dim:])
		copy(s.codes[i*dim:(i+1)*dim], s.codes[last*dim:])
		s.scales[i], s.bounds[i] = s.scales[last], s.bounds[last]
		s.scopes[i] = s.scopes[last]
		s.pos[s.ids[i]] = i
	}
	s.ids = s.ids[:last]
	s.vecs = s.vecs[:last*dim]
	s.codes = s.codes[:last*dim]
	s.scales, s.bounds = s.scales[:last], s.bounds[:last]
	s.scopes = s.scopes[:last]
	delete(s.pos, id)
	return true
}

// Vectors returns the stored vectors of ids of userID, one per id in order,
// nil for an id the user does not have. The vectors are copies, made under
// the read lock into one block: a later write moves rows of the slab in
// place (removal fills the hole with the last row), so handing out views of
// it would let a concurrent Remove change a vector under its reader.
func (x *Index) Vectors(ctx context.Context, userID string, ids []string) ([][]float32, error) {
	if userID == "" {
		return nil, fmt.Errorf("exact index: vectors need a userId")
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	out := make([][]float32, len(ids))
	x.mu.RLock()
	defer x.mu.RUnlock()
	s := x.users[userID]
	if s == nil {
		return out, nil
	}
	found := 0
	for _, id := range ids {
		if _, ok := s.pos[id]; ok {
			found++
		}
	}
	dim := x.dim
	block := make([]float32, found*dim)
	for i, id := range ids {
		r, ok := s.pos[id]
		if !ok {
			continue
		}
		v := block[:dim:dim]
		block = block[dim:]
		copy(v, s.vecs[r*dim:(r+1)*dim])
		out[i] = v
	}
	return out, nil
}

// Search returns the k vectors of f.UserID most similar to q that fall inside
// f's scope, best first, ties by id: when k cuts through tied scores the
// smallest ids are kept. q must be unit length for scores to be cosines.
func (x *Index) Search(ctx context.Context, f memory.Filter, q []float32, k int) ([]retrieve.Hit, error) {
	if f.UserID == "" {
		return nil, fmt.Errorf("exact index: search needs a userId")
	}
	if len(q) != x.dim {
		return nil, fmt.Errorf("exact index: query vector has dimension %d, index has %d", len(q), x.dim)
	}
	if i := nonFinite(q); i >= 0 {
		return nil, fmt.Errorf("exact index: query vector component %d is not a finite number", i)
	}
	if k <= 0 {
		return nil, nil
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	x.mu.RLock()
	defer x.mu.RUnlock()
	s := x.users[f.UserID]
	if s == nil {
		return nil, nil
	}
	// A big partition is scanned by up to GOMAXPROCS goroutines, all under
	// this read lock (see scan.go).
	sc := getScan(s, k, x.scanParts(len(s.ids)), x.dim)
	defer sc.release()
	sc.q = q
	sc.want = [3]uint32{s.lookup(f.WorkspaceID), s.lookup(f.ProjectID), s.lookup(f.Domain)}
	sc.filtered = sc.want != [3]uint32{}
	if x.twoPass(len(s.ids), k) && sc.quantQuery(q) {
		if top := sc.quantVectors(); top != nil {
			return top.hits(s), nil
		}
		// Pass 2 would score too many rows: a full scan, on a fresh scan
		// (helpers of the first may still be leaving).
		full := getScan(s, k, x.scanParts(len(s.ids)), x.dim)
		defer full.release()
		full.q, full.want, full.filtered = q, sc.want, sc.filtered
		return full.vectors().hits(s), nil
	}
	return sc.vectors().hits(s), nil
}

// twoPass reports whether a search of k rows in a partition of rows rows
// takes the two passes of quant.go: the partition is big and k a small part
// of it. x.search, set by tests, overrides it.
func (x *Index) twoPass(rows, k int) bool {
	switch x.search {
	case searchExact:
		return false
	case searchTwoPass:
		return true
	}
	return rows >= quantRows && k <= rows/8
}

// Values of Index.search.
const (
	searchAuto = iota
	searchExact
	searchTwoPass
)

// hits returns the kept rows of s as hits, best first, ties by id.
func (t *topK) hits(s *shard) []retrieve.Hit {
	hits := make([]retrieve.Hit, len(t.items))
	for i, it := range t.items {
		hits[i] = retrieve.Hit{ID: s.ids[it.row], Score: float64(it.score)}
	}
	slices.SortFunc(hits, func(a, b retrieve.Hit) int {
		if c := cmp.Compare(b.Score, a.Score); c != 0 {
			return c
		}
		return cmp.Compare(a.ID, b.ID)
	})
	return hits
}

// inScope applies the rule that an unscoped row (0) matches any filter value
// and an unset filter (0) matches any row.
func inScope(row, want [3]uint32) bool {
	return (want[0] == 0 || row[0] == 0 || row[0] == want[0]) &&
		(want[1] == 0 || row[1] == 0 || row[1] == want[1]) &&
		(want[2] == 0 || row[2] == 0 || row[2] == want[2])
}

// topK keeps the k best rows seen, in a heap with the worst kept row on top.
// Rows are ordered by score, best first, and rows with equal scores by id,
// smallest first, so the rows kept do not depend on the order rows sit in
// the shard (which removals shuffle): when k cuts through tied scores, the
// smallest ids are kept. Ids are compared only when scores are equal.
type topK struct {
	k     int
	ids   []string // the shard's ids, by row
	items []scored
}

type scored struct {
	score float32
	row   int32
}

// worse reports whether a ranks after b.
func (t *topK) worse(a, b scored) bool {
	if a.score != b.score {
		return a.score < b.score
	}
	return t.ids[a.row] > t.ids[b.row]
}

func (t *topK) offer(score float32, row int32) {
	if len(t.items) < t.k {
		t.items = append(t.items, scored{score, row})
		t.up(len(t.items) - 1)
		return
	}
	if top := t.items[0]; score < top.score || score == top.score && t.ids[row] > t.ids[top.row] {
		return
	}
	t.items[0] = scored{score, row}
	t.down(0)
}

func (t *topK) up(i int) {
	for i > 0 {
		p := (i - 1) / 2
		if !t.worse(t.items[i], t.items[p]) {
			return
		}
		t.items[p], t.items[i] = t.items[i], t.items[p]
		i = p
	}
}

func (t *topK) down(i int) {
	n := len(t.items)
	for {
		l, worst := 2*i+1, i
		if l < n && t.worse(t.items[l], t.items[worst]) {
			worst = l
		}
		if r := l + 1; r < n && t.worse(t.items[r], t.items[worst]) {
			worst = r
		}
		if worst == i {
			return
		}
		t.items[i], t.items[worst] = t.items[worst], t.items[i]
		i = worst
	}
}
