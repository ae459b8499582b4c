package gate

import (
	"hash/maphash"
	"sync"
	"unsafe"

	"github.com/memgate/memgate/gate/content"
)

// analysisBytes bounds the memory one generation of a Gate's analysis cache
// holds: texts, their word hashes and the fixed part. Two generations are
// kept, so the cache holds at most twice this.
const analysisBytes = 4 << 20

// maxSeenOnce bounds the texts the cache remembers having seen once (8
// bytes and a map slot each); past it, it forgets them all.
const maxSeenOnce = 1 << 16

// analyses keeps the content analysis of memory texts the gate has judged,
// so that a memory retrieved again, as a user's memories are by the next
// task and the one after, is not analyzed again: an analysis depends on the
// text alone. It is two generations of a map: a lookup that finds a text in
// the older one moves it to the newer, and when the newer is full the older
// is dropped, so the texts judged recently stay and the memory held is
// bounded whatever the texts. Its analyses are shared and never changed.
//
// A text is kept the second time it is seen, not the first: most of the
// memories a search retrieves once are not retrieved again soon, and
// copying their analyses into the cache would cost more, in allocations
// and the collector's work, than analyzing the few that recur twice.
//
// Entries are per user (the task's): one user's admissions never find an
// analysis another user's made, so whether an admission finds its texts
// analyzed says nothing of the texts other users hold. The space is shared,
// so how much other users admit does change how long an entry stays.
type analyses struct {
	mu       sync.Mutex
	cur, old map[textKey]*content.Analysis
	curBytes int
	limit    int
	seenOnce map[uint64]struct{} // hashes of the texts seen once and not kept
	seed     maphash.Seed
}

// A textKey is a memory text of a user.
type textKey struct{ user, text string }

// newAnalyses returns an empty cache of at most limit bytes per generation.
func newAnalyses(limit int) *analyses {
	return &analyses{cur: make(map[textKey]*content.Analysis), limit: limit,
		seenOnce: make(map[uint64]struct{}), seed: maphash.MakeSeed()}
}

// lookup sets out[i] to the cached analysis of texts[i], or nil where there
// is none, and keep[i] to whether the analysis of a text not in the cache
// is to be stored (it was seen before), taking the lock once for the set.
func (c *analyses) lookup(texts []textKey, out []*content.Analysis, keep []bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for i, t := range texts {
		a, ok := c.cur[t]
		if !ok {
			if a, ok = c.old[t]; ok {
				delete(c.old, t)
				c.add(t, a)
			}
		}
		out[i], keep[i] = a, false
		if a != nil {
			continue
		}
		h := maphash.Comparable(c.seed, t)
		if _, ok := c.seenOnce[h]; ok {
			delete(c.seenOnce, h)
			keep[i] = true
			continue
		}
		if len(c.seenOnce) >= maxSeenOnce {
			clear(c.seenOnce)
		}
		c.seenOnce[h] = struct{}{}
	}
}

// store adds the analyses as[i] of texts[i] for each i in kept, except
// those of texts too large to keep: over a sixteenth of a generation.
func (c *analyses) store(texts []textKey, as []*content.Analysis, kept []int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, i := range kept {
		if _, ok := c.cur[texts[i]]; !ok && sizeOf(texts[i], as[i]) <= c.limit/16 {
			c.add(texts[i], as[i])
		}
	}
}

// add puts a in the newer generation, which becomes the older when full.
// The caller holds c.mu.
func (c *analyses) add(t textKey, a *content.Analysis) {
	size := sizeOf(t, a)
	if c.curBytes+size > c.limit && len(c.cur) > 0 {
		c.old, c.cur, c.curBytes = c.cur, make(map[textKey]*content.Analysis, len(c.cur)), 0
	}
	c.cur[t] = a
	c.curBytes += size
}

// sizeOf is about the memory an entry holds: the map's slot, the text, the
// analysis and its word hashes.
func sizeOf(t textKey, a *content.Analysis) int {
	const fixed = int(unsafe.Sizeof(content.Analysis{})) + 64
	return fixed + len(t.user) + len(t.text) + a.ListBytes()
}
