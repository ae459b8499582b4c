package gate

import (
	"sync"
	"unsafe"

	"github.com/memgate/memgate/gate/content"
)

// analysisBytes bounds the memory one generation of a Gate's analysis cache
// holds: texts, their word hashes and the fixed part. Two generations are
// kept, so the cache holds at most twice this.
const analysisBytes = 4 << 20

// analyses keeps the content analysis of memory texts the gate has judged,
// so that a memory retrieved again, as a user's memories are by the next
// task and the one after, is not analyzed again: an analysis depends on the
// text alone. It is two generations of a map: a lookup that finds a text in
// the older one moves it to the newer, and when the newer is full the older
// is dropped, so the texts judged recently stay and the memory held is
// bounded whatever the texts. Its analyses are shared and never changed.
//
// Entries are per user: one user's admissions never find an analysis
// another user's made, so how long an admission takes says nothing of the
// texts other users hold.
type analyses struct {
	mu       sync.Mutex
	cur, old map[textKey]*content.Analysis
	curBytes int
	limit    int
}

// A textKey is a memory text of a user.
type textKey struct{ user, text string }

func newAnalyses(limit int) *analyses {
	return &analyses{cur: make(map[textKey]*content.Analysis), limit: limit}
}

// lookup sets out[i] to the cached analysis of texts[i], or nil where there
// is none, taking the lock once for the whole set.
func (c *analyses) lookup(texts []textKey, out []*content.Analysis) {
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
		out[i] = a
	}
}

// store adds the analyses as[i] of texts[i] for each i in missed.
func (c *analyses) store(texts []textKey, as []*content.Analysis, missed []int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, i := range missed {
		if _, ok := c.cur[texts[i]]; !ok {
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
	return fixed + len(t.user) + len(t.text) + 8*(cap(a.Words)+cap(a.Seq))
}
