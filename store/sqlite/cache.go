package sqlite

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"unsafe"

	"modernc.org/sqlite"

	"github.com/memgate/memgate/lineage"
	"github.com/memgate/memgate/memory"
)

// maxCacheBytes bounds the records a store keeps decoded, as memorySize
// and ancestorsSize estimate them.
const maxCacheBytes = 64 << 20

// generationSQL reads the store's generation (schema v7): a number every
// change of memories, lineage, supersessions or tombstones replaces with a
// random one in the changing transaction.
const generationSQL = "SELECT n FROM generation WHERE id = 1"

// A recordCache keeps the memories (without vectors) and lineages that Get
// and Ancestors decoded, valid for one generation of the store. An
// admission reads the records of its k candidates after the audit writer's
// last commit, which empties SQLite's page cache on every connection: the
// reads then cost more than the rest of the admission's storage work.
// Checking the generation costs one row.
//
// A record read at generation g is kept only if the generation is still g
// after it was read, so that no change committed meanwhile is missed; any
// later change, by this process or another, empties the cache on the next
// read. Generations are random 64-bit numbers, never counted, so one never
// comes back after a change, even across a restore of an older copy. The
// store's own writes empty the cache at once, so forgotten text does not
// stay in memory.
type recordCache struct {
	mu    sync.Mutex
	valid bool  // whether the records kept are those of generation gen
	gen   int64 // the generation of the records kept
	bytes int
	mems  map[string]memory.Memory
	anc   map[string][]lineage.Ancestor
}

func newRecordCache() *recordCache {
	return &recordCache{mems: map[string]memory.Memory{}, anc: map[string][]lineage.Ancestor{}}
}

// clear drops every record.
func (c *recordCache) clear() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.valid = false
	c.resetLocked()
}

func (c *recordCache) resetLocked() {
	c.bytes = 0
	clear(c.mems)
	clear(c.anc)
}

// atLocked makes gen the cache's generation, dropping the records of any
// other. A reader that read an older generation before a change may drop
// the records of the newer one: a lost hit, never a stale one.
func (c *recordCache) atLocked(gen int64) {
	if !c.valid || gen != c.gen {
		c.valid, c.gen = true, gen
		c.resetLocked()
	}
}

// makeRoomLocked drops records until n more bytes fit. Map order is
// unspecified, so what goes is an arbitrary sample.
func (c *recordCache) makeRoomLocked(n int) {
	if c.bytes+n <= maxCacheBytes {
		return
	}
	for id, m := range c.mems {
		delete(c.mems, id)
		c.bytes -= memorySize(&m)
		if c.bytes+n <= maxCacheBytes*3/4 {
			break
		}
	}
	for id, a := range c.anc {
		if c.bytes+n <= maxCacheBytes*3/4 {
			break
		}
		delete(c.anc, id)
		c.bytes -= ancestorsSize(a)
	}
}

// memorySize estimates what a kept memory costs: the struct, about 64
// bytes of map entry, and what its strings hold.
func memorySize(m *memory.Memory) int {
	n := int(unsafe.Sizeof(*m)) + 64 + len(m.ID) + len(m.Text) + len(m.UserID) + len(m.WorkspaceID) + len(m.ProjectID) + len(m.Domain) + len(m.RevokedReason)
	for _, l := range [][]string{m.LineageRefs, m.Supersedes, m.SupersededBy, m.Audience} {
		for _, s := range l {
			n += 16 + len(s)
		}
	}
	return n
}

// ancestorsSize estimates what a kept lineage costs.
func ancestorsSize(a []lineage.Ancestor) int {
	n := 64
	for _, x := range a {
		n += 48 + len(x.ID) + len(x.Authority)
	}
	return n
}

// detach returns m with slices of its own, so that a caller changing them
// does not change the cache.
func detach(m memory.Memory) memory.Memory {
	m.LineageRefs = slices.Clone(m.LineageRefs)
	m.Supersedes = slices.Clone(m.Supersedes)
	m.SupersededBy = slices.Clone(m.SupersededBy)
	m.Audience = slices.Clone(m.Audience)
	return m
}

// generation reads the store's generation; ok is false for a store whose
// schema predates it (a read-only store of an older version), which is then
// read without the cache.
func (s *Store) generation(ctx context.Context) (gen int64, ok bool, err error) {
	rows, err := s.query(ctx, generationSQL)
	if err != nil {
		if isNoSuchTable(err) {
			return 0, false, nil
		}
		return 0, false, describe(err)
	}
	defer rows.Close()
	if !rows.Next() {
		return 0, false, describe(rows.Err())
	}
	if err := rows.Scan(&gen); err != nil {
		return 0, false, err
	}
	return gen, true, describe(rows.Err())
}

// isNoSuchTable reports whether err is SQLite's for a missing table.
func isNoSuchTable(err error) bool {
	var se *sqlite.Error
	return errors.As(err, &se) && strings.Contains(se.Error(), "no such table")
}

// cachedGet is Get without vectors through the cache: the memories among
// ids that the cache holds for the store's current generation, and the
// others read by getUncached.
func (s *Store) cachedGet(ctx context.Context, ids []string) ([]memory.Memory, error) {
	gen, ok, err := s.generation(ctx)
	if err != nil {
		return nil, fmt.Errorf("get memories: read generation: %w", err)
	}
	if !ok {
		return s.getUncached(ctx, ids, false)
	}
	c := s.cache
	found := make(map[string]memory.Memory, len(ids))
	var missing []string
	c.mu.Lock()
	c.atLocked(gen)
	for _, id := range ids {
		if m, hit := c.mems[id]; hit {
			found[id] = m
		} else if _, dup := found[id]; !dup {
			missing = append(missing, id)
		}
	}
	c.mu.Unlock()
	if len(missing) > 0 {
		read, err := s.getUncached(ctx, missing, false)
		if err != nil {
			return nil, err
		}
		for _, m := range read {
			found[m.ID] = m
		}
		if err := s.keep(ctx, gen, func(c *recordCache) {
			for _, m := range read {
				n := memorySize(&m)
				c.makeRoomLocked(n)
				c.mems[m.ID] = m
				c.bytes += n
			}
		}); err != nil {
			return nil, fmt.Errorf("get memories: read generation: %w", err)
		}
	}
	out := make([]memory.Memory, 0, len(ids))
	for _, id := range ids {
		if m, ok := found[id]; ok {
			out = append(out, detach(m))
			delete(found, id) // each once
		}
	}
	return out, nil
}

// keep runs add on the cache if the store is still at generation gen, the
// one current before the records add keeps were read.
func (s *Store) keep(ctx context.Context, gen int64, add func(*recordCache)) error {
	now, ok, err := s.generation(ctx)
	if err != nil || !ok || now != gen {
		return err
	}
	c := s.cache
	c.mu.Lock()
	defer c.mu.Unlock()
	c.atLocked(gen)
	add(c)
	return nil
}

// cachedAncestors is Ancestors through the cache, as cachedGet is Get.
func (s *Store) cachedAncestors(ctx context.Context, ids []string) (map[string][]lineage.Ancestor, error) {
	gen, ok, err := s.generation(ctx)
	if err != nil {
		return nil, fmt.Errorf("read lineage: read generation: %w", err)
	}
	if !ok {
		return s.ancestorsUncached(ctx, ids)
	}
	c := s.cache
	out := make(map[string][]lineage.Ancestor, len(ids))
	var missing []string
	c.mu.Lock()
	c.atLocked(gen)
	for _, id := range ids {
		if a, hit := c.anc[id]; hit {
			out[id] = slices.Clone(a)
		} else {
			missing = append(missing, id)
		}
	}
	c.mu.Unlock()
	if len(missing) == 0 {
		return out, nil
	}
	read, err := s.ancestorsUncached(ctx, missing)
	if err != nil {
		return nil, err
	}
	if err := s.keep(ctx, gen, func(c *recordCache) {
		for _, id := range missing {
			a, stored := read[id] // nil: no ancestors, kept as such
			if !stored {
				continue
			}
			n := ancestorsSize(a)
			c.makeRoomLocked(n)
			c.anc[id] = slices.Clone(a)
			c.bytes += n
		}
	}); err != nil {
		return nil, fmt.Errorf("read lineage: read generation: %w", err)
	}
	for id, a := range read {
		out[id] = a
	}
	return out, nil
}
